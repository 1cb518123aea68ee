"""The grammar of one line of SVM^light-style data, shared by every reader of such files.

A line is ``TARGET [qid:QUERY] FID:VALUE FID:VALUE ... [# comment]``: a target (a number for
SVM^light, SVM^multiclass and SVM^rank, a tag for SVM^hmm), an optional query id (an integer),
then features with integer ids from 1, strictly increasing, and finite values. A line that is
blank once its comment is removed holds no example.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from structsvm.io._errors import FileFormatError


@dataclass(frozen=True)
class DataLine:
    """One example line: its target, query id (or None) and features (0-based column ids)."""

    target: str
    qid: int | None
    columns: np.ndarray
    values: np.ndarray


def parse_data_line(
    text: str, path: str | os.PathLike[str], line_number: int, n_features: int | None = None
) -> DataLine | None:
    """Return the example on a line, or None if it holds none (blank or comment only).

    Parameters
    ----------
    text : str
        The line, with or without its line break.
    path, line_number
        Where the line comes from, for the error message.
    n_features : int, optional
        The highest feature id allowed.

    Raises
    ------
    FileFormatError
        Naming the file and line: a ``qid:`` that is not an integer, a feature that is not
        ``fid:value``, an id that is not a positive integer, above ``n_features`` or not above
        the previous one, a value that is not a finite number.
    """
    tokens = text.split("#", 1)[0].split()
    if not tokens:
        return None

    def fail(reason: str) -> FileFormatError:
        return FileFormatError(path, line_number, reason)

    target, rest = tokens[0], tokens[1:]
    if ":" in target:
        raise fail(f"expected a target (label or tag) first, got {target!r}")
    qid = None
    if rest and rest[0].startswith("qid:"):
        qid_text = rest[0][len("qid:") :]
        try:
            qid = int(qid_text)
        except ValueError:
            raise fail(f"expected an integer query id in 'qid:ID', got {rest[0]!r}") from None
        rest = rest[1:]
    columns = np.empty(len(rest), dtype=np.int64)
    values = np.empty(len(rest), dtype=np.float64)
    previous = 0
    for k, token in enumerate(rest):
        fid_text, colon, value_text = token.partition(":")
        if not colon:
            raise fail(f"expected 'fid:value', got {token!r}")
        try:
            fid = int(fid_text)
        except ValueError:
            raise fail(f"expected an integer feature id in 'fid:value', got {token!r}") from None
        try:
            value = float(value_text)
        except ValueError:
            raise fail(f"expected a number as the value in 'fid:value', got {token!r}") from None
        if fid < 1:
            raise fail(f"feature ids start at 1, got {token!r}")
        if fid <= previous:
            raise fail(
                f"feature ids must increase along a line, got {fid} after {previous} in {token!r}"
            )
        if n_features is not None and fid > n_features:
            raise fail(f"feature id {fid} is above n_features={n_features}")
        if not math.isfinite(value):
            raise fail(f"feature values must be finite, got {token!r}")
        columns[k], values[k], previous = fid - 1, value, fid
    return DataLine(target=target, qid=qid, columns=columns, values=values)


def format_data_line(target: str, qid: int | None, columns: Any, values: Any) -> str:
    """Return one example line (without line break), feature ids counted from 1.

    Zeros are left out; values are written in Python's shortest form that reads back to the
    same float, so writing and reading a file gives the same numbers.
    """
    parts = [target] if qid is None else [target, f"qid:{int(qid)}"]
    parts.extend(
        f"{int(j) + 1}:{float(v)!r}" for j, v in zip(columns, values, strict=True) if v != 0
    )
    return " ".join(parts)


def format_target(target: float) -> str:
    """Return a numeric target (label, grade) as files hold it: integral values as integers."""
    return str(int(target)) if float(target).is_integer() else repr(float(target))
