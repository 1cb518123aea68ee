"""The CoNLL-2000 column format: sentences of words, POS tags and chunk tags."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields

from structsvm._utils.validation import check_examples
from structsvm.io._columns import read_columns


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


def read_conll(
    source: str | os.PathLike[str] | Iterable[str],
    columns: Sequence[str | None] = _FIELDS,
    encoding: str = "utf-8",
) -> list[Sentence]:
    """Read a file in the CoNLL-2000 column format into a list of sentences.

    Every non-blank line holds one token as whitespace-separated columns, by default
    ``word POS chunk-tag``; blank lines separate sentences. Several blank lines in a row,
    blank lines at the start or end, a missing final blank line and ``-DOCSTART-`` lines (a
    document boundary, as in CoNLL-2003 files) are all accepted; a ``-DOCSTART-`` line ends
    the sentence before it and is not a token. The lines are read by
    :func:`structsvm.io.read_columns`.

    Parameters
    ----------
    source : str, path-like or iterable of str
        A file name, or the lines themselves (an open text file, a list of strings).
    columns : sequence of {"words", "pos", "tags", None}, default=("words", "pos", "tags")
        What each column holds, left to right; None skips a column. Every line must have
        exactly ``len(columns)`` columns. "words" is required; a field that is not named
        stays None in the sentences (for example ``columns=("words", "pos")`` for
        untagged text).
    encoding : str, default="utf-8"
        The encoding of a file given by name.

    Returns
    -------
    list of Sentence
        The sentences in file order; a file with no tokens gives an empty list.

    Raises
    ------
    ValueError
        If ``columns`` is invalid.
    FileFormatError
        If a line does not have ``len(columns)`` columns, or a file holds bytes that are not
        text in ``encoding``; the message gives the file name (or ``<lines>``) and the line.
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
    fields = read_columns(source, n_columns=len(columns), encoding=encoding)
    return [
        Sentence(**{key: sentence[index] for key, index in positions.items()})
        for sentence in fields
    ]


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
