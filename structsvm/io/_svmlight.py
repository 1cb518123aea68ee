"""SVM^light files (also those of SVM^multiclass and SVM^rank).

One example per line: ``TARGET [qid:QUERY] FID:VALUE ... [# comment]`` with feature ids
counted from 1 (Joachims, SVM^light). They are read by :func:`read_data_file`, the reader of
SVM^hmm files too, which names the first line that breaks the format and why, and written
with the same line format.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm.io._errors import FileFormatError
from structsvm.io._lines import (
    NUMBER,
    feature_rows,
    format_data_line,
    format_target,
    integer_ids,
    read_data_file,
)


def read_svmlight(
    path: str | os.PathLike[str], *, n_features: int | None = None, query_id: bool = False
) -> tuple[Any, ...]:
    """Read an SVM^light, SVM^multiclass or SVM^rank file.

    Parameters
    ----------
    path : str or path-like
        The file: one example per line, ``TARGET [qid:QUERY] FID:VALUE ...``, feature ids from
        1 in increasing order, ``#`` starting a comment.
    n_features : int, optional
        Width of X; by default the highest feature id in the file.
    query_id : bool, default=False
        Also return the query id of every row (SVM^rank files).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Column ``j`` holds feature id ``j + 1``.
    y : ndarray of shape (n_samples,)
        The targets, as floats.
    qid : ndarray of shape (n_samples,), int64
        The query ids; only with ``query_id=True``, when every line must have one.

    Raises
    ------
    FileFormatError
        A ValueError naming the file and the line at fault, e.g.
        ``"train.dat, line 17: expected 'fid:value', got 'x'"``: a target that is not a finite
        number, a malformed or non-finite feature, an id out of order, above ``n_features`` or
        beyond int64, a missing ``qid:`` with ``query_id=True``, binary data.
    FileNotFoundError
        If there is no such file.

    References
    ----------
    T. Joachims. Making large-scale SVM learning practical. In Advances in Kernel Methods -
    Support Vector Learning, MIT Press, 1999 (SVM^light and its file format).
    """
    lines = read_data_file(path, n_features)
    y = np.empty(len(lines.targets))
    for row, target in enumerate(lines.targets):
        y[row] = float(target) if NUMBER.fullmatch(target) else math.nan
        if not math.isfinite(y[row]):
            raise FileFormatError(
                path, lines.line_numbers[row], f"expected a number as the target, got {target!r}"
            )
    width = n_features if n_features is not None else int(lines.columns.max(initial=-1)) + 1
    X = sp.csr_matrix((lines.values, lines.columns, lines.indptr), shape=(len(y), width))
    if not query_id:
        return X, y
    for row, qid in enumerate(lines.qids):
        if qid is None:
            raise FileFormatError(
                path,
                lines.line_numbers[row],
                "expected 'qid:QUERY' after the target: a file read with query ids needs one "
                "on every line",
            )
    return X, y, np.array(lines.qids, dtype=np.int64)


def write_svmlight(
    path: str | os.PathLike[str],
    X: Any,
    y: Any,
    *,
    qid: Any = None,
    comment: str | None = None,
) -> None:
    """Write examples to an SVM^light file, feature ids counted from 1.

    Numbers are written in Python's shortest form that reads back to the same float
    (scikit-learn's ``dump_svmlight_file`` keeps 16 significant digits, which can change the
    last bit), so :func:`read_svmlight` gives back exactly what was written.

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced if it exists).
    X : array or scipy.sparse matrix of shape (n_samples, n_features)
        Column ``j`` is written as feature id ``j + 1``; zeros are left out.
    y : array of shape (n_samples,)
        The targets: class labels (SVM^multiclass), grades (SVM^rank) or ±1 (SVM^light);
        integral values are written without a decimal point.
    qid : array of shape (n_samples,), optional
        Integer query ids, written as ``qid:ID`` (SVM^rank).
    comment : str, optional
        A comment written at the top of the file, ``#`` before each of its lines.

    Raises
    ------
    ValueError
        Naming the argument: X is not a 2-D array or sparse matrix of finite real numbers,
        X, y and qid do not have one entry per example, a target is not a finite number, a
        query id not an int64 integer, or the comment not a str.
    """
    rows = feature_rows(X, "X")
    if comment is not None and not isinstance(comment, str):
        raise ValueError(f"comment must be a str, got {type(comment).__name__}")
    try:
        targets = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("y must hold real numbers") from None
    if targets.shape != (rows.shape[0],):
        raise ValueError(
            f"y must hold one target per row of X, {rows.shape[0]} in all; got shape "
            f"{targets.shape}"
        )
    if not np.all(np.isfinite(targets)):
        raise ValueError("y must hold finite numbers")
    ids = None if qid is None else integer_ids(qid, rows.shape[0], "qid", "row of X")
    with open(path, "w", encoding="utf-8") as handle:
        for text in (comment or "").splitlines():
            handle.write(f"# {text}\n")
        for i, target in enumerate(targets):
            start, stop = rows.indptr[i], rows.indptr[i + 1]
            line = format_data_line(
                format_target(target),
                None if ids is None else ids[i],
                rows.indices[start:stop],
                rows.data[start:stop],
            )
            handle.write(line + "\n")
