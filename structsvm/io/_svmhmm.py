"""SVM^hmm's token files: one line per token, the lines of one sequence sharing a query id.

A line is ``TAG qid:SEQUENCE FID:VALUE ... [# comment]`` (Joachims, SVM^hmm): the token's tag,
the id of its sequence and its features, ids counted from 1. Consecutive lines with the same
query id form one sequence. Sequences become what :class:`tasks.ChainTask` takes: one
scipy.sparse CSR matrix (T, n_features) and one int array of labels (T,) per sequence, the tags
numbered 0..L-1 in a mapping kept with them.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm.io._errors import FileFormatError
from structsvm.io._lines import (
    DataFile,
    feature_rows,
    format_data_line,
    integer_ids,
    read_data_file,
)


@dataclass
class TaggedSequences:
    """Sequences of feature vectors with a tag per token, as read from an SVM^hmm file.

    Attributes
    ----------
    X : list of scipy.sparse.csr_matrix of shape (T_k, n_features)
        The tokens of every sequence; column ``j`` holds feature id ``j + 1``.
    Y : list of ndarray of shape (T_k,), int
        The label of every token: ``tags[Y[k][t]]`` is its tag.
    tags : ndarray of str, shape (n_tags,)
        The tag of every label 0..n_tags-1.
    qids : ndarray of shape (n_sequences,), int
        The query id of every sequence.
    """

    X: list[sp.csr_matrix]
    Y: list[np.ndarray]
    tags: np.ndarray
    qids: np.ndarray

    @property
    def n_features(self) -> int:
        """The width of the feature vectors."""
        return self.X[0].shape[1] if self.X else 0

    @property
    def n_tokens(self) -> int:
        """The number of tokens over all sequences."""
        return int(sum(len(y) for y in self.Y))


def sorted_tags(tags: Any) -> np.ndarray:
    """Return the distinct tags in label order: by value if all are integers, else as strings."""
    distinct = sorted(set(tags))
    try:
        return np.array(sorted(distinct, key=int), dtype=str)
    except ValueError:
        return np.array(distinct, dtype=str)


def read_svmhmm(
    path: str | os.PathLike[str],
    *,
    tags: Sequence[str] | None = None,
    n_features: int | None = None,
) -> TaggedSequences:
    """Read an SVM^hmm file into sequences for :class:`tasks.ChainTask`.

    Parameters
    ----------
    path : str or path-like
        The file: one token per line, ``TAG qid:SEQUENCE FID:VALUE ...``, the lines of one
        sequence consecutive, feature ids from 1 in increasing order, ``#`` starting a comment.
    tags : sequence of str, optional
        The tags of labels 0, 1, ... (e.g. the ``tags`` of the training file, to read a test
        file with the same labels); a tag not among them is an error. By default, the tags
        found in the file, ordered as integers if they all are, else as strings.
    n_features : int, optional
        Width of the feature vectors; by default the highest feature id in the file.

    Returns
    -------
    TaggedSequences

    Raises
    ------
    FileFormatError
        A ValueError naming the file and the line at fault: a line without ``qid:``, a
        malformed feature, a query id seen again after another sequence, an unknown tag, or a
        file without tokens.
    FileNotFoundError
        If there is no such file.

    References
    ----------
    T. Joachims, T. Finley and C.-N. Yu. Cutting-plane training of structural SVMs. Machine
    Learning 77(1), 2009 (SVM^struct, of which SVM^hmm is an instance).
    Y. Altun, I. Tsochantaridis and T. Hofmann. Hidden Markov support vector machines. ICML 2003.
    """
    lines = read_data_file(path, n_features)
    label_of = None if tags is None else {tag: k for k, tag in enumerate(map(str, tags))}
    run_starts: list[int] = []  # the first row of every sequence
    seen_qids: set[int] = set()
    for row, (tag, qid) in enumerate(zip(lines.targets, lines.qids, strict=True)):
        if qid is None:
            raise FileFormatError(
                path, lines.line_numbers[row], f"expected 'qid:SEQUENCE' after the tag {tag!r}"
            )
        if label_of is not None and tag not in label_of:
            raise FileFormatError(
                path,
                lines.line_numbers[row],
                f"unknown tag {tag!r}: the tags are {', '.join(label_of)}",
            )
        if run_starts and lines.qids[row - 1] == qid:
            continue
        if qid in seen_qids:
            raise FileFormatError(
                path,
                lines.line_numbers[row],
                f"qid:{qid} appears again after another sequence: the lines of a sequence must "
                "be consecutive",
            )
        run_starts.append(row)
        seen_qids.add(qid)
    if not run_starts:
        raise FileFormatError(path, None, "no tokens in the file")

    tag_names = (
        sorted_tags(lines.targets) if label_of is None else np.array(list(label_of), dtype=str)
    )
    label_of = {tag: label for label, tag in enumerate(tag_names)}
    labels = np.array([label_of[tag] for tag in lines.targets], dtype=np.int64)
    width = n_features if n_features is not None else int(lines.columns.max(initial=-1)) + 1
    bounds = [*run_starts, len(labels)]
    return TaggedSequences(
        X=[_rows(lines, first, stop, width) for first, stop in itertools.pairwise(bounds)],
        Y=[labels[first:stop] for first, stop in itertools.pairwise(bounds)],
        tags=tag_names,
        qids=np.array([lines.qids[first] for first in run_starts], dtype=np.int64),
    )


def _rows(lines: DataFile, first: int, stop: int, width: int) -> sp.csr_matrix:
    """Return rows ``first:stop`` of a data file as a CSR matrix (stop - first, width)."""
    begin, end = lines.indptr[first], lines.indptr[stop]
    return sp.csr_matrix(
        (lines.values[begin:end], lines.columns[begin:end], lines.indptr[first : stop + 1] - begin),
        shape=(stop - first, width),
    )


def write_svmhmm(
    path: str | os.PathLike[str],
    X: Sequence[Any],
    Y: Sequence[Any],
    tags: Sequence[str],
    *,
    qids: Sequence[int] | None = None,
) -> None:
    """Write sequences to an SVM^hmm file, one line per token.

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced if it exists).
    X : sequence of arrays or scipy.sparse matrices of shape (T_k, n_features)
        The tokens of every sequence; column ``j`` is written as feature id ``j + 1``, zeros
        left out.
    Y : sequence of int arrays of shape (T_k,)
        The label of every token, written as ``tags[label]``.
    tags : sequence of str
        The tag of every label; tags hold no whitespace, ``:`` or ``#``.
    qids : sequence of int, optional
        The query id of every sequence, distinct; by default 1, 2, ...

    Raises
    ------
    ValueError
        Naming the argument, before anything is written: X and Y are not sequences of the
        same length, a sequence is not a 2-D array of finite real numbers or its labels are
        not integers, one per row, each with a tag; a tag cannot be written; the query ids
        are not distinct int64 integers, one per sequence.
    """
    tag_names = [str(tag) for tag in tags]
    for tag in tag_names:
        if not tag or any(c.isspace() or c in ":#" or not c.isprintable() for c in tag):
            raise ValueError(
                f"tags must be non-empty printable text without whitespace, ':' or '#', got {tag!r}"
            )
    if not all(hasattr(arg, "__len__") and not isinstance(arg, str) for arg in (X, Y)):
        raise ValueError("X and Y must be sequences (lists) of sequences, one per query id")
    if len(X) != len(Y):
        raise ValueError(f"X has {len(X)} sequences but Y has {len(Y)}")
    ids = (
        np.arange(1, len(X) + 1) if qids is None else integer_ids(qids, len(X), "qids", "sequence")
    )
    if len(np.unique(ids)) != len(ids):
        raise ValueError("qids must be distinct: the tokens of one query id form one sequence")
    sequences = [
        _tagged_rows(k, x, y, len(tag_names)) for k, (x, y) in enumerate(zip(X, Y, strict=True))
    ]
    with open(path, "w", encoding="utf-8") as handle:
        for (rows, labels), qid in zip(sequences, ids, strict=True):
            for t, label in enumerate(labels):
                start, stop = rows.indptr[t], rows.indptr[t + 1]
                line = format_data_line(
                    tag_names[label], qid, rows.indices[start:stop], rows.data[start:stop]
                )
                handle.write(line + "\n")


def _tagged_rows(k: int, x: Any, y: Any, n_tags: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """Return sequence k's rows and labels to write, refusing them naming X[k] or Y[k]."""
    rows = feature_rows(x, f"X[{k}]")
    labels = np.asarray(y)
    if labels.shape != (rows.shape[0],):
        raise ValueError(
            f"Y[{k}] must hold one label per row of X[{k}], {rows.shape[0]} in all; "
            f"got shape {labels.shape}"
        )
    if labels.dtype.kind not in "iu":
        raise ValueError(f"Y[{k}] must hold integer labels, got dtype {labels.dtype}")
    if len(labels) and (labels.min() < 0 or labels.max() >= n_tags):
        raise ValueError(f"Y[{k}] has labels outside 0..{n_tags - 1}, the range of tags")
    return rows, labels
