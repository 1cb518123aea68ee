"""CoNLL-U treebank files (Universal Dependencies): reading and writing sentences.

A CoNLL-U file holds sentences separated by blank lines; a sentence is comment lines
(``# ...``) then one line per word of ten tab-separated fields: ID, FORM, LEMMA, UPOS, XPOS,
FEATS, HEAD, DEPREL, DEPS, MISC. Words are numbered 1, 2, … in order; HEAD is the number of
the word's head, 0 for the root, or ``_`` where the file gives none. Multiword-token lines
(ID ``1-2``) and empty nodes (ID ``1.1``) are not words: the reader keeps them aside with
their place, so that writing a sentence gives back its lines. A malformed file raises
:class:`~structsvm.io.FileFormatError` naming the file and the line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from structsvm.io._errors import FileFormatError

N_FIELDS = 10

#: The head of a word whose file gives none (HEAD ``_``).
NO_HEAD = -1

_WORD_ID = re.compile(r"[1-9][0-9]*")
_RANGE_ID = re.compile(r"[1-9][0-9]*-[1-9][0-9]*")
_EMPTY_ID = re.compile(r"(?:0|[1-9][0-9]*)\.[1-9][0-9]*")


@dataclass
class DependencySentence:
    """One sentence of a CoNLL-U file: its words with their fields, and its comments.

    Attributes
    ----------
    words, lemmas, upos, xpos, feats, deprels, deps, misc : list of str
        The fields of every word, in order (``_`` where the file has none).
    heads : ndarray of int64
        The head of every word: 0 for the root, word k's number k (counted from 1) otherwise,
        :data:`NO_HEAD` (-1) where the file gives ``_``.
    comments : list of str
        The comment lines before the words, without their line breaks (``# text = ...``).
    other_lines : list of (int, str)
        Multiword-token and empty-node lines in file order, each with the number of words
        before it.
    """

    words: list[str]
    upos: list[str]
    heads: np.ndarray
    deprels: list[str]
    lemmas: list[str] = field(default_factory=list)
    xpos: list[str] = field(default_factory=list)
    feats: list[str] = field(default_factory=list)
    deps: list[str] = field(default_factory=list)
    misc: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    other_lines: list[tuple[int, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.words)
        for name in ("lemmas", "xpos", "feats", "deps", "misc"):
            if not getattr(self, name):
                setattr(self, name, ["_"] * n)
        self.heads = np.asarray(self.heads, dtype=np.int64)
        for name in ("upos", "deprels", "lemmas", "xpos", "feats", "deps", "misc"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} must have one entry per word ({n})")
        if self.heads.shape != (n,):
            raise ValueError(f"heads must have one entry per word ({n})")

    def __len__(self) -> int:
        return len(self.words)

    def to_lines(self) -> list[str]:
        """Return the sentence's lines (comments, then words), without line breaks."""
        lines = list(self.comments)
        k = 0
        for position in range(len(self.words) + 1):
            while k < len(self.other_lines) and self.other_lines[k][0] == position:
                lines.append(self.other_lines[k][1])
                k += 1
            if position == len(self.words):
                break
            head = self.heads[position]
            fields = [
                str(position + 1),
                self.words[position],
                self.lemmas[position],
                self.upos[position],
                self.xpos[position],
                self.feats[position],
                "_" if head == NO_HEAD else str(int(head)),
                self.deprels[position],
                self.deps[position],
                self.misc[position],
            ]
            lines.append("\t".join(fields))
        return lines


def read_conllu(path: str | os.PathLike[str]) -> list[DependencySentence]:
    """Read every sentence of a CoNLL-U file.

    Returns
    -------
    list of DependencySentence
        In file order; multiword tokens and empty nodes are kept aside, not as words.

    Raises
    ------
    FileFormatError
        Naming the file and line: a word line without ten tab-separated fields, an ID out of
        order or of no known form, an empty FORM or UPOS, a HEAD that is not ``_`` or a word
        number of the sentence (or 0), a word that is its own head, a comment or blank-free
        text after the last word of a sentence without a blank line between.
    """
    sentences: list[DependencySentence] = []
    lines: list[tuple[int, list[str]]] = []
    comments: list[str] = []
    others: list[tuple[int, str]] = []
    with open(path, encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            text = text.rstrip("\r\n")
            if not text.strip():
                if lines or comments or others:
                    sentences.append(_sentence(path, lines, comments, others, number - 1))
                    lines, comments, others = [], [], []
                continue
            if text.startswith("#"):
                if lines or others:
                    raise FileFormatError(
                        path,
                        number,
                        "a comment line inside a sentence (a blank line must "
                        "end the sentence first)",
                    )
                comments.append(text)
                continue
            fields = text.split("\t")
            if len(fields) != N_FIELDS:
                raise FileFormatError(
                    path, number, f"expected {N_FIELDS} tab-separated fields, got {len(fields)}"
                )
            identifier = fields[0]
            if _RANGE_ID.fullmatch(identifier) or _EMPTY_ID.fullmatch(identifier):
                others.append((len(lines), text))
            elif _WORD_ID.fullmatch(identifier):
                if int(identifier) != len(lines) + 1:
                    raise FileFormatError(
                        path,
                        number,
                        f"word ID {identifier} out of order: expected {len(lines) + 1}",
                    )
                lines.append((number, fields))
            else:
                raise FileFormatError(
                    path,
                    number,
                    f"ID {identifier!r} is neither a word number, a range "
                    "(multiword token) nor a decimal (empty node)",
                )
    if lines or comments or others:
        sentences.append(_sentence(path, lines, comments, others, None))
    return sentences


def _sentence(
    path: str | os.PathLike[str],
    lines: list[tuple[int, list[str]]],
    comments: list[str],
    others: list[tuple[int, str]],
    last_line: int | None,
) -> DependencySentence:
    """Return the sentence of its word lines, or raise naming the faulty line."""
    if not lines:
        raise FileFormatError(path, last_line, "a sentence without words")
    n = len(lines)
    heads = np.empty(n, dtype=np.int64)
    for k, (number, fields) in enumerate(lines):
        if not fields[1] or not fields[3]:
            raise FileFormatError(path, number, "FORM and UPOS must not be empty")
        head = fields[6]
        if head == "_":
            heads[k] = NO_HEAD
        elif _WORD_ID.fullmatch(head) or head == "0":
            heads[k] = int(head)
            if heads[k] > n:
                raise FileFormatError(
                    path, number, f"HEAD {head} is beyond the sentence's {n} words"
                )
            if heads[k] == k + 1:
                raise FileFormatError(path, number, f"word {k + 1} is its own head")
        else:
            raise FileFormatError(
                path, number, f"HEAD must be a word number, 0 or '_', got {head!r}"
            )
    column = [[fields[j] for _, fields in lines] for j in range(N_FIELDS)]
    return DependencySentence(
        words=column[1],
        lemmas=column[2],
        upos=column[3],
        xpos=column[4],
        feats=column[5],
        heads=heads,
        deprels=column[7],
        deps=column[8],
        misc=column[9],
        comments=comments,
        other_lines=others,
    )


def write_conllu(path: str | os.PathLike[str], sentences: Iterable[DependencySentence]) -> None:
    """Write sentences to a CoNLL-U file, each followed by a blank line.

    What :func:`read_conllu` read is written back line for line (comments, multiword tokens
    and empty nodes in their places).
    """
    with open(path, "w", encoding="utf-8") as handle:
        for sentence in sentences:
            handle.write("\n".join(sentence.to_lines()) + "\n\n")
