"""Checkpoint files written atomically.

A checkpoint is the whole estimator, written by :func:`write_checkpoint` to a temporary file in
the target's directory, flushed to disk and moved over the target in one step, so the file at
the target path is always a complete checkpoint, the old one or the new one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import joblib

from structsvm._utils.validation import PATH, check_value


def write_checkpoint(obj: Any, path: str | os.PathLike[str]) -> None:
    """Write ``obj`` to ``path`` with joblib so that ``path`` is never partly written.

    The data go to a temporary file in the same directory, are flushed and synced to disk,
    and the file is then renamed over ``path`` (:func:`os.replace`, atomic on POSIX and
    Windows). If anything fails, the temporary file is removed and ``path`` is unchanged.
    """
    check_value(path, "path", [PATH])
    target = Path(path)
    directory = target.parent
    handle, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=directory
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            joblib.dump(obj, stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _sync_directory(directory)


def _sync_directory(directory: Path) -> None:
    """Flush a directory entry to disk after a rename, where the platform allows it."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def read_checkpoint(path: str | os.PathLike[str], expected: type) -> Any:
    """Load a checkpoint written by :func:`write_checkpoint` and check the estimator's type.

    Raises
    ------
    FileNotFoundError
        If there is no file at ``path``.
    ValueError
        If the file is not a checkpoint at all: not a joblib pickle, truncated or corrupt.
    TypeError
        If ``path`` is not a str or path-like (an integer would be taken for an open file
        descriptor), or the file is a pickle of something other than an ``expected`` estimator.
    """
    check_value(path, "path", [PATH])
    try:
        obj = joblib.load(path)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except Exception as error:  # unpickling a foreign or damaged file can raise anything
        raise ValueError(
            f"{os.fspath(path)!r} is not a structsvm checkpoint: it could not be read as a "
            f"joblib pickle ({type(error).__name__}: {error})"
        ) from error
    if not isinstance(obj, expected):
        raise TypeError(
            f"{os.fspath(path)!r} is not a checkpoint of a {expected.__name__}: it holds a "
            f"{type(obj).__name__}, not a {expected.__name__}"
        )
    return obj
