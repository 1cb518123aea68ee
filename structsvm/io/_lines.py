"""The grammar of one line of SVM^light-style data, shared by every reader of such files.

A line is ``TARGET [qid:QUERY] FID:VALUE FID:VALUE ... [# comment]``: a target (a number for
SVM^light, SVM^multiclass and SVM^rank, a tag for SVM^hmm), an optional query id (an int64
integer), then features with integer ids from 1, strictly increasing and within int64, and
finite values written as decimal numbers. Fields are separated by ASCII spaces and tabs; the
part before the comment must be UTF-8 text without control characters. A line that is blank
once its comment is removed holds no example.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

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

    def fail(reason: str) -> FileFormatError:
        return FileFormatError(path, line_number, reason)

    data = text.split("#", 1)[0]
    odd = _ODD_CHARACTER.search(data)
    if odd is not None:
        what = (
            "bytes that are not UTF-8"
            if _is_undecodable(odd[0])
            else "a control character or a space other than ASCII's"
        )
        raise fail(f"{what} ({odd[0]!r}) at column {odd.start() + 1}: not a text data line")
    tokens = data.split()
    if not tokens:
        return None
    target, rest = tokens[0], tokens[1:]
    if ":" in target:
        raise fail(f"expected a target (label or tag) first, got {target!r}")
    qid = None
    if rest and rest[0].startswith("qid:"):
        qid_text = rest[0][len("qid:") :]
        if not _INTEGER.fullmatch(qid_text):
            raise fail(f"expected an integer query id in 'qid:ID', got {rest[0]!r}")
        qid = int(qid_text)
        if not INT64[0] <= qid <= INT64[1]:
            raise fail(f"the query id in {rest[0]!r} is beyond int64")
        rest = rest[1:]
    columns, values = _parse_features(rest, n_features, fail)
    return DataLine(target=target, qid=qid, columns=columns, values=values)


def _parse_features(
    tokens: list[str], n_features: int | None, fail: Callable[[str], FileFormatError]
) -> tuple[np.ndarray, np.ndarray]:
    """Return the 0-based columns and the values of ``fid:value`` tokens, checked one by one."""
    columns = np.empty(len(tokens), dtype=np.int64)
    values = np.empty(len(tokens), dtype=np.float64)
    previous = 0
    for k, token in enumerate(tokens):
        fid_text, colon, value_text = token.partition(":")
        if not colon:
            raise fail(f"expected 'fid:value', got {token!r}")
        if not _INTEGER.fullmatch(fid_text):
            raise fail(f"expected an integer feature id in 'fid:value', got {token!r}")
        if not NUMBER.fullmatch(value_text):
            raise fail(f"expected a number as the value in 'fid:value', got {token!r}")
        fid, value = int(fid_text), float(value_text)
        if fid > INT64[1]:
            raise fail(f"the feature id in {token!r} is beyond int64")
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
    return columns, values


@dataclass
class DataFile:
    """Every example line of a file: targets, query ids and features as one CSR structure.

    Row k is the example on line ``line_numbers[k]``; its features are
    ``columns[indptr[k]:indptr[k + 1]]`` (0-based) and the matching ``values``.
    """

    targets: list[str]
    qids: list[int | None]
    line_numbers: list[int]
    indptr: np.ndarray
    columns: np.ndarray
    values: np.ndarray


def read_data_file(path: str | os.PathLike[str], n_features: int | None = None) -> DataFile:
    """Read every example line of a file, with the rules of :func:`parse_data_line`.

    The features of the whole file are parsed at once by NumPy and checked with array
    operations. Whatever that fast path does not vouch for (a broken rule, a token of an
    unusual form) sends the file to :func:`parse_data_line`, line by line, which decides: it
    raises for the first faulty line or accepts the file.

    Raises
    ------
    FileFormatError
        As :func:`parse_data_line`, for the first faulty line.
    """
    targets: list[str] = []
    qids: list[int | None] = []
    line_numbers: list[int] = []
    counts: list[int] = []
    tokens: list[str] = []
    with open_data_file(path) as handle:
        for line_number, text in enumerate(handle, start=1):
            data = text.split("#", 1)[0]
            if _ODD_CHARACTER.search(data):
                return _read_line_by_line(path, n_features)
            fields = data.split()
            if not fields:
                continue
            qid, first_feature = None, 1
            if len(fields) > 1 and fields[1].startswith("qid:"):
                if not _INTEGER.fullmatch(fields[1], len("qid:")):
                    return _read_line_by_line(path, n_features)
                qid, first_feature = int(fields[1][len("qid:") :]), 2
                if not INT64[0] <= qid <= INT64[1]:
                    return _read_line_by_line(path, n_features)
            targets.append(fields[0])
            qids.append(qid)
            line_numbers.append(line_number)
            counts.append(len(fields) - first_feature)
            tokens.extend(fields[first_feature:])
    features = _parse_features_at_once(tokens)
    if features is None or any(":" in target for target in targets):
        return _read_line_by_line(path, n_features)
    columns, values = features
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    line_starts = np.zeros(len(columns), dtype=bool)
    line_starts[indptr[:-1][np.diff(indptr) > 0]] = True
    if (
        np.any(columns < 0)
        or np.any((np.diff(columns) <= 0) & ~line_starts[1:])
        or (n_features is not None and np.any(columns >= n_features))
        or not np.all(np.isfinite(values))
    ):
        return _read_line_by_line(path, n_features)
    return DataFile(targets, qids, line_numbers, indptr, columns, values)


INT64 = (-(2**63), 2**63 - 1)

_INTEGER = re.compile(r"[+-]?[0-9]+")
NUMBER = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:nan|inf|infinity))"
)
"""A number as data files write it: decimal, with an optional exponent, or nan and inf (which
the readers then refuse as not finite), in ASCII."""

_FEATURES = re.compile(
    r"(?:[+-]?[0-9]+:[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?(?: |\Z))*"
)
"""Space-separated ``fid:value`` tokens of finite decimal values, which NumPy reads as one."""

_ODD_CHARACTER = re.compile(
    r"[\x00-\x08\x0e-\x1f\x7f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\udc80-\udcff]"
)
"""What the data part of a line may not hold: control characters, whitespace other than
ASCII spaces, tabs and line ends (which :meth:`str.split` would take for separators), and the
stand-ins of bytes that are not UTF-8."""


def _is_undecodable(character: str) -> bool:
    """Tell whether a character stands for a byte that is not UTF-8 (``surrogateescape``)."""
    return "\udc80" <= character <= "\udcff"


def open_data_file(path: str | os.PathLike[str]) -> Any:
    """Open a data file as text; bytes that are not UTF-8 come through as stand-ins.

    Comments may hold any bytes; the parser refuses a stand-in in the data of a line,
    naming the line.
    """
    return open(path, encoding="utf-8", errors="surrogateescape")


def _parse_features_at_once(tokens: list[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """Return the 0-based columns and values of ``fid:value`` tokens, or None if unsure.

    None when a token is not of the plain form, a value is not a number NumPy reads, or an
    id is too large to pass through a float exactly.
    """
    joined = " ".join(tokens)
    if not _FEATURES.fullmatch(joined):
        return None
    with warnings.catch_warnings():
        # NumPy warns (and stops) where a value is not a number: the size check below sees it.
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            numbers = np.fromstring(joined.replace(":", " "), sep=" ")
        except ValueError:  # newer NumPy raises rather than warns
            return None
    if numbers.size != 2 * len(tokens) or np.any(np.abs(numbers[0::2]) > 2**53):
        return None
    return numbers[0::2].astype(np.int64) - 1, numbers[1::2]


def _read_line_by_line(path: str | os.PathLike[str], n_features: int | None) -> DataFile:
    """Read a file with :func:`parse_data_line`, one line at a time (raising at a faulty one)."""
    lines, line_numbers = [], []
    with open_data_file(path) as handle:
        for line_number, text in enumerate(handle, start=1):
            line = parse_data_line(text, path, line_number, n_features)
            if line is not None:
                lines.append(line)
                line_numbers.append(line_number)
    indptr = np.zeros(len(lines) + 1, dtype=np.int64)
    np.cumsum([len(line.columns) for line in lines], out=indptr[1:])
    return DataFile(
        targets=[line.target for line in lines],
        qids=[line.qid for line in lines],
        line_numbers=line_numbers,
        indptr=indptr,
        columns=np.concatenate([np.empty(0, np.int64), *(line.columns for line in lines)]),
        values=np.concatenate([np.empty(0), *(line.values for line in lines)]),
    )


def feature_rows(X: Any, name: str) -> sp.csr_matrix:
    """Return examples to write as a float64 CSR matrix, refusing what a file cannot hold.

    Raises
    ------
    ValueError
        Naming ``name``: X is not a 2-D array or sparse matrix of real, finite numbers.
    """
    if X is None or isinstance(X, (str, bytes)):
        raise ValueError(f"{name} must be a 2-D array or sparse matrix, got {type(X).__name__}")
    matrix = X if sp.issparse(X) else np.asarray(X)
    if matrix.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array or sparse matrix, got {matrix.ndim} dimensions"
        )
    if matrix.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers, got dtype {matrix.dtype}")
    rows = sp.csr_matrix(matrix, dtype=np.float64)
    if not np.all(np.isfinite(rows.data)):
        raise ValueError(f"{name} must hold finite numbers: a file cannot hold NaN or infinity")
    return rows


def integer_ids(ids: Any, count: int, name: str, what: str) -> np.ndarray:
    """Return ``count`` int64 ids (query ids), refusing others by ``name``."""
    array = np.asarray(ids)
    if (
        array.shape != (count,)
        or not np.issubdtype(array.dtype, np.integer)
        or (count and (array.min() < INT64[0] or array.max() > INT64[1]))
    ):
        raise ValueError(f"{name} must hold one int64 integer per {what}, {count} in all")
    return array.astype(np.int64)


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
