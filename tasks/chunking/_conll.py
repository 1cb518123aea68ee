"""The CoNLL-2000 column format: sentences of words, POS tags and chunk tags.

The data of the CoNLL-2000 shared task on text chunking (Tjong Kim Sang & Buchholz, 2000) hold
one token a line as whitespace-separated columns, ``word POS chunk-tag``, with a blank line
between sentences. :func:`read_conll` reads such files into :class:`Sentence` objects.

References
----------
E. F. Tjong Kim Sang and S. Buchholz. Introduction to the CoNLL-2000 shared task: chunking.
In *Proceedings of CoNLL-2000 and LLL-2000*, pages 127–132, 2000.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields

from structsvm._utils.validation import check_examples, check_iterable


@dataclass(frozen=True)
class Sentence:
    """One sentence of a column file: its words and, when read, POS tags and chunk tags.

    Parameters
    ----------
    words : tuple of str
        The tokens, in order.
    pos : tuple of str or None
        One part-of-speech tag per token, or None when the file had no POS column.
    tags : tuple of str or None
        One chunk tag per token (``B-NP``, ``I-NP``, ``O``, ...), or None when the file had
        no chunk column (unlabelled text to tag).
    """

    words: tuple[str, ...]
    pos: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        for name in _FIELDS:
            value = getattr(self, name)
            if value is None:
                continue
            object.__setattr__(self, name, tuple(value))
            if len(getattr(self, name)) != len(self.words):
                raise ValueError(
                    f"Sentence.{name} has {len(getattr(self, name))} entries but there are "
                    f"{len(self.words)} words"
                )

    def __len__(self) -> int:
        return len(self.words)


_FIELDS = tuple(field.name for field in fields(Sentence))
"""The fields of a sentence, which are also the names a column of a file may have."""
_DOCSTART = "-DOCSTART-"
"""First column of a document-boundary line (as in CoNLL-2003 files): not a token."""


def read_conll(
    source: str | os.PathLike[str] | Iterable[str],
    columns: Sequence[str | None] = _FIELDS,
) -> list[Sentence]:
    """Read a file in the CoNLL-2000 column format into a list of sentences.

    Every non-blank line holds one token as whitespace-separated columns, by default
    ``word POS chunk-tag``; blank lines separate sentences. Several blank lines in a row,
    blank lines at the start or end, a missing final blank line and ``-DOCSTART-`` lines (a
    document boundary, as in CoNLL-2003 files) are all accepted; a ``-DOCSTART-`` line ends
    the sentence before it and is not a token.

    Parameters
    ----------
    source : str, path-like or iterable of str
        A file name, or the lines themselves (an open text file, a list of strings).
    columns : sequence of {"words", "pos", "tags", None}, default=("words", "pos", "tags")
        What each column holds, left to right; None skips a column. Every line must have
        exactly ``len(columns)`` columns. "words" is required; a field that is not named
        stays None in the sentences (for example ``columns=("words", "pos")`` for
        untagged text).

    Returns
    -------
    list of Sentence
        The sentences in file order; a file with no tokens gives an empty list.

    Raises
    ------
    ValueError
        If ``columns`` is invalid, or if a line does not have ``len(columns)`` columns; the
        message gives the file name (or ``<lines>``) and the 1-based line number.
    TypeError
        If ``source`` is not a file name, a path or an iterable of str in order (not a set or
        a mapping), or ``columns`` is not a sequence.
    FileNotFoundError
        If there is no file named ``source``.

    References
    ----------
    E. F. Tjong Kim Sang and S. Buchholz. Introduction to the CoNLL-2000 shared task:
    chunking. In *Proceedings of CoNLL-2000 and LLL-2000*, pages 127–132, 2000.

    Examples
    --------
    >>> read_conll(["He PRP B-NP", "reckons VBZ B-VP", ""])
    [Sentence(words=('He', 'reckons'), pos=('PRP', 'VBZ'), tags=('B-NP', 'B-VP'))]
    """
    positions = _check_columns(columns)
    n_columns = len(columns)
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        with open(source, encoding="utf-8") as lines:
            return _read_lines(lines, name, positions, n_columns)
    check_iterable(source, "source", of="lines (str), or a file name or path")
    name = getattr(source, "name", "<lines>")
    return _read_lines(source, str(name), positions, n_columns)


def _check_columns(columns: Sequence[str | None]) -> dict[str, int]:
    """Return the column index of every field named in ``columns``; reject invalid names."""
    if isinstance(columns, str):
        raise ValueError(f"columns must be a sequence of names, got the string {columns!r}")
    check_examples(columns, "columns", of="column names")
    positions: dict[str, int] = {}
    for index, column in enumerate(columns):
        if column is None:
            continue
        if column not in _FIELDS:
            raise ValueError(
                f"columns may hold only {', '.join(map(repr, _FIELDS))} or None, got {column!r}"
            )
        if column in positions:
            raise ValueError(f"columns names {column!r} twice")
        positions[column] = index
    if "words" not in positions:
        raise ValueError(f"columns must include 'words', got {tuple(columns)!r}")
    return positions


def _read_lines(
    lines: Iterable[str], name: str, positions: dict[str, int], n_columns: int
) -> list[Sentence]:
    """Split numbered lines into sentences; ``name`` labels the lines in error messages."""
    sentences: list[Sentence] = []
    rows: list[list[str]] = []

    def close_sentence() -> None:
        if rows:
            # One string object per distinct word or tag, however often it occurs.
            fields = {
                key: [sys.intern(row[index]) for row in rows] for key, index in positions.items()
            }
            sentences.append(Sentence(**fields))
            rows.clear()

    for number, line in enumerate(lines, start=1):
        if not isinstance(line, str):
            raise TypeError(
                f"{name}:{number}: source must give lines of text (str), got {type(line).__name__}"
            )
        parts = line.split()
        if not parts:
            close_sentence()
            continue
        if parts[0] == _DOCSTART:
            close_sentence()
            continue
        if len(parts) != n_columns:
            raise ValueError(
                f"{name}:{number}: expected {n_columns} columns "
                f"({' '.join(str(c) for c in _column_names(positions, n_columns))}), "
                f"found {len(parts)}: {line.rstrip()!r}"
            )
        rows.append(parts)
    close_sentence()
    return sentences


def _column_names(positions: dict[str, int], n_columns: int) -> list[str]:
    """Return the field held by every column, ``_`` for a skipped column."""
    names = ["_"] * n_columns
    for key, index in positions.items():
        names[index] = key
    return names
