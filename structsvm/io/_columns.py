"""CoNLL-style column files: one token a line as whitespace-separated columns.

The data of the CoNLL shared tasks (chunking 2000, named entities 2002 and 2003, ...) hold one
token a line, its columns separated by blanks (``word POS tag``), and a blank line between
sentences; ``-DOCSTART-`` lines mark the start of a document and are not tokens. The files
differ in their number of columns and their encoding (the original CoNLL-2002 files are
latin-1). :func:`read_columns` reads any of them into sentences of columns.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from structsvm._utils.validation import check_iterable
from structsvm.io._errors import FileFormatError

DOCSTART = "-DOCSTART-"
"""First column of a document-boundary line: it ends the sentence before it, not a token."""

ColumnSentence = tuple[tuple[str, ...], ...]
"""A sentence as its columns: ``sentence[c][t]`` is column c of token t."""


def read_columns(
    source: str | os.PathLike[str] | Iterable[str],
    *,
    n_columns: int | None = None,
    encoding: str = "utf-8",
) -> list[ColumnSentence]:
    """Read a CoNLL-style column file into sentences, each a tuple of its columns.

    Every non-blank line holds one token as whitespace-separated columns; blank lines separate
    sentences. Several blank lines in a row, blank lines at the start or end, a missing final
    blank line and ``-DOCSTART-`` lines are accepted; a ``-DOCSTART-`` line ends the sentence
    before it and is not a token.

    Parameters
    ----------
    source : str, path-like or iterable of str
        A file name, or the lines themselves (an open text file, a list of strings).
    n_columns : int, optional
        The number of columns every token line must have. Default: that of the first token line.
    encoding : str, default="utf-8"
        The encoding of a file given by name (``"latin-1"`` for the original CoNLL-2002 files).

    Returns
    -------
    list of tuple of tuple of str
        The sentences in file order; ``sentence[c]`` holds column c of every token, so that
        ``words, pos, tags = sentence`` for a three-column file.

    Raises
    ------
    FileFormatError
        Naming the file (``<lines>`` for lines given directly) and the line: a token line with
        another number of columns, or bytes that are not text in ``encoding``.
    TypeError
        If ``source`` is neither a file name, a path nor an iterable of str.
    FileNotFoundError
        If there is no file named ``source``.

    Examples
    --------
    >>> read_columns(["-DOCSTART- -X- O", "", "Madrid NP B-LOC", "llueve VMI O", ""])
    [(('Madrid', 'llueve'), ('NP', 'VMI'), ('B-LOC', 'O'))]
    """
    if n_columns is not None and (
        not isinstance(n_columns, int) or isinstance(n_columns, bool) or n_columns < 1
    ):
        raise ValueError(f"n_columns must be a positive int or None, got {n_columns!r}")
    if isinstance(source, str | os.PathLike):
        with open(source, "rb") as handle:
            raw = handle.read()
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as error:
            line = raw[: error.start].count(b"\n") + 1
            raise FileFormatError(
                source, line, f"bytes that are not {encoding} text ({error.reason})"
            ) from None
        return column_sentences(text.splitlines(), os.fspath(source), n_columns)
    check_iterable(source, "source", of="lines (str), or a file name or path")
    return column_sentences(source, str(getattr(source, "name", "<lines>")), n_columns)


def column_sentences(
    lines: Iterable[str], name: str, n_columns: int | None = None
) -> list[ColumnSentence]:
    """Split lines into sentences of columns, as :func:`read_columns`; ``name`` for errors."""
    sentences: list[ColumnSentence] = []
    rows: list[list[str]] = []
    first_line = 0

    def close_sentence() -> None:
        if rows:
            # One string object per distinct word or tag, however often it occurs.
            sentences.append(
                tuple(tuple(sys.intern(row[c]) for row in rows) for c in range(len(rows[0])))
            )
            rows.clear()

    for number, line in enumerate(lines, start=1):
        if not isinstance(line, str):
            raise TypeError(
                f"{name}, line {number}: source must give lines of text (str), "
                f"got {type(line).__name__}"
            )
        parts = line.split()
        if not parts or parts[0] == DOCSTART:
            close_sentence()
            continue
        if n_columns is None:
            n_columns, first_line = len(parts), number
        if len(parts) != n_columns:
            since = f" as on line {first_line}" if first_line else ""
            raise FileFormatError(
                name,
                number,
                f"expected {n_columns} columns{since}, found {len(parts)}: {line.rstrip()!r}",
            )
        rows.append(parts)
    close_sentence()
    return sentences
