"""Files of biological sequences: FASTA (plain or aligned) and GCG's MSF alignments.

Both readers return the sequences in file order as a dict from name to letters. Gaps of an
alignment (``-``, and MSF's ``.`` and ``~``) are written ``-``. A malformed file raises
:class:`~structsvm.io.FileFormatError` naming the file and the line.
"""

from __future__ import annotations

import os
import re

from structsvm.io._errors import FileFormatError

_SEQUENCE_LETTERS = re.compile(r"[A-Za-z*\-.~]*")
_MSF_NAME = re.compile(r"\bName:\s*(\S+)")


def _read_lines(path: str | os.PathLike[str]) -> list[str]:
    """Return the lines of a text file, without their line ends."""
    with open(path, encoding="utf-8", errors="strict") as handle:
        return handle.read().splitlines()


def _sequence_text(text: str, path: str | os.PathLike[str], number: int) -> str:
    """Return the letters of a line of sequence (blanks removed, gaps as ``-``), or raise."""
    letters = "".join(text.split())
    if not _SEQUENCE_LETTERS.fullmatch(letters):
        bad = next(letter for letter in letters if not _SEQUENCE_LETTERS.fullmatch(letter))
        raise FileFormatError(path, number, f"{bad!r} is not a residue letter or a gap")
    return letters.replace(".", "-").replace("~", "-")


def read_fasta(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read a FASTA file: each record a ``>NAME description`` line, then lines of sequence.

    Returns
    -------
    dict of str to str
        Every record's name (the first word of its header) and letters, in file order.

    Raises
    ------
    FileFormatError
        On sequence before the first header, a header without a name, a repeated name, a
        record without letters, or a character that is neither a letter nor a gap.
    """
    records: dict[str, list[str]] = {}
    name, header_line = None, 0
    for number, text in enumerate(_read_lines(path), start=1):
        if text.startswith(">"):
            if name is not None and not records[name]:
                raise FileFormatError(path, header_line, f"record {name!r} has no sequence")
            words = text[1:].split()
            if not words:
                raise FileFormatError(path, number, "a header line must name its sequence")
            name, header_line = words[0], number
            if name in records:
                raise FileFormatError(path, number, f"sequence {name!r} appears twice")
            records[name] = []
        elif text.strip():
            if name is None:
                raise FileFormatError(path, number, "sequence before the first '>' header")
            records[name].append(_sequence_text(text, path, number))
    if name is None:
        raise FileFormatError(path, None, "no '>' header: not a FASTA file")
    if not records[name]:
        raise FileFormatError(path, header_line, f"record {name!r} has no sequence")
    return {key: "".join(parts) for key, parts in records.items()}


def read_msf(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read a GCG MSF multiple alignment: ``Name:`` lines, ``//``, then blocks of rows.

    Every row of a block is a sequence's name followed by letters and gaps in groups; lines of
    column numbers are skipped. The aligned sequences must all have the same length.

    Returns
    -------
    dict of str to str
        Every sequence's name and aligned letters (gaps as ``-``), in the order of the header.

    Raises
    ------
    FileFormatError
        If the ``//`` line or the ``Name:`` lines are missing, a row names a sequence not
        declared, a row holds a character that is neither a letter nor a gap, or the aligned
        sequences differ in length.
    """
    lines = _read_lines(path)
    names: list[str] = []
    end_of_header = None
    for number, text in enumerate(lines, start=1):
        if text.strip() == "//":
            end_of_header = number
            break
        match = _MSF_NAME.search(text)
        if match:
            if match.group(1) in names:
                raise FileFormatError(path, number, f"sequence {match.group(1)!r} named twice")
            names.append(match.group(1))
    if end_of_header is None:
        raise FileFormatError(path, None, "no '//' line ending the header: not an MSF file")
    if not names:
        raise FileFormatError(path, end_of_header, "the header names no sequence ('Name:' lines)")
    rows: dict[str, list[str]] = {name: [] for name in names}
    for number, text in enumerate(lines[end_of_header:], start=end_of_header + 1):
        words = text.split()
        if not words or all(word.isdigit() for word in words):
            continue
        if words[0] not in rows:
            raise FileFormatError(
                path, number, f"row of {words[0]!r}, a sequence the header does not name"
            )
        rows[words[0]].append(_sequence_text(" ".join(words[1:]), path, number))
    aligned = {name: "".join(parts) for name, parts in rows.items()}
    lengths = {len(sequence) for sequence in aligned.values()}
    if len(lengths) != 1:
        shown = ", ".join(f"{name}: {len(sequence)}" for name, sequence in aligned.items())
        raise FileFormatError(path, None, f"the aligned sequences differ in length ({shown})")
    return aligned
