"""SVM^light files (also those of SVM^multiclass and SVM^rank), through scikit-learn's parser.

One example per line: ``TARGET [qid:QUERY] FID:VALUE ... [# comment]`` with feature ids
counted from 1 (Joachims, SVM^light). scikit-learn's compiled reader does the reading; when it
refuses a file, the file is read again line by line with :func:`parse_data_line` to say which
line is wrong and why.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from structsvm.io._errors import FileFormatError
from structsvm.io._lines import parse_data_line


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
    qid : ndarray of shape (n_samples,)
        The query ids (0 where a line has none); only with ``query_id=True``.

    Raises
    ------
    FileFormatError
        A ValueError naming the file and the line at fault, e.g.
        ``"train.dat, line 17: expected 'fid:value', got 'x'"``.
    FileNotFoundError
        If there is no such file.

    References
    ----------
    T. Joachims. Making large-scale SVM learning practical. In Advances in Kernel Methods -
    Support Vector Learning, MIT Press, 1999 (SVM^light and its file format).
    """
    try:
        return tuple(
            load_svmlight_file(
                os.fspath(path),
                n_features=n_features,
                dtype=np.float64,
                zero_based=False,
                query_id=query_id,
            )
        )
    except ValueError as error:
        _raise_at_faulty_line(path, n_features)
        raise FileFormatError(path, None, str(error)) from error


def _raise_at_faulty_line(path: str | os.PathLike[str], n_features: int | None) -> None:
    """Raise a FileFormatError for the first line of the file that breaks the format, if any."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line_number, text in enumerate(handle, start=1):
            line = parse_data_line(text, path, line_number, n_features)
            if line is None:
                continue
            try:
                target = float(line.target)
            except ValueError:
                target = math.nan
            if not math.isfinite(target):
                raise FileFormatError(
                    path, line_number, f"expected a number as the target, got {line.target!r}"
                )


def write_svmlight(
    path: str | os.PathLike[str],
    X: Any,
    y: Any,
    *,
    qid: Any = None,
    comment: str | None = None,
) -> None:
    """Write examples to an SVM^light file, feature ids counted from 1.

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced if it exists).
    X : array or scipy.sparse matrix of shape (n_samples, n_features)
        Column ``j`` is written as feature id ``j + 1``; zeros are left out.
    y : array of shape (n_samples,)
        The targets: class labels (SVM^multiclass), grades (SVM^rank) or ±1 (SVM^light).
    qid : array of shape (n_samples,), optional
        Query ids, written as ``qid:ID`` (SVM^rank).
    comment : str, optional
        A comment written at the top of the file.
    """
    X = X if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    dump_svmlight_file(
        X, np.asarray(y), os.fspath(path), zero_based=False, query_id=qid, comment=comment
    )
