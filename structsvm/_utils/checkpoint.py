"""Checkpoint files: the whole estimator, with its solver state, in a model file.

A checkpoint is a model file (:mod:`structsvm.io._model_file`) of kind "checkpoint": beside
what :func:`structsvm.save` writes, it keeps what continuing the fit needs (the solver's
dual state, its random generators, the problem's fingerprint). It is written atomically, so
the file at the target path is always a complete checkpoint, the old one or the new one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from structsvm._utils.validation import PATH, check_value
from structsvm.io._atomic import write_atomically
from structsvm.io._model_file import ModelFileError, read_model_file, write_model_file


def write_checkpoint(obj: Any, path: str | os.PathLike[str]) -> None:
    """Write ``obj`` with its solver state to ``path`` so that ``path`` is never partly written.

    Raises
    ------
    ValueError
        If ``obj`` holds something a model file cannot (the message names the attribute).
    """
    write_atomically(path, lambda stream: write_model_file(obj, stream, kind="checkpoint"))


def read_checkpoint(
    path: str | os.PathLike[str], expected: type, task_classes: Iterable[type] = ()
) -> Any:
    """Load a checkpoint written by :func:`write_checkpoint` and check the estimator's type.

    ``task_classes`` are your own classes the file may name, as for :func:`structsvm.load`.

    Raises
    ------
    FileNotFoundError
        If there is no file at ``path``.
    ModelFileError
        A ValueError: if the file is not a checkpoint at all (a model file without solver
        state, a foreign, truncated, damaged or altered file; see :func:`structsvm.load`).
    TypeError
        If ``path`` is not a str or path-like (an integer would be taken for an open file
        descriptor), or the file holds something other than an ``expected`` estimator.
    """
    check_value(path, "path", [PATH])
    obj, header = read_model_file(path, task_classes=task_classes)
    if header["kind"] != "checkpoint":
        raise ModelFileError(
            path,
            f"a model file of kind {header['kind']!r}, not a checkpoint: it holds no solver "
            "state to continue from (load it with structsvm.load)",
        )
    if not isinstance(obj, expected):
        raise TypeError(
            f"{os.fspath(path)!r} is not a checkpoint of a {expected.__name__}: it holds a "
            f"{type(obj).__name__}, not a {expected.__name__}"
        )
    return obj
