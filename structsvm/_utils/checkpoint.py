"""Continuing fits: what identifies a training problem, and checkpoint files written atomically.

A fit with ``warm_start=True`` continues from the state an earlier fit left on the estimator,
which is only meaningful for the same problem: :func:`problem_key` records what identifies it
and :func:`check_same_problem` names what differs. A checkpoint is the whole estimator,
written by :func:`write_checkpoint` to a temporary file in the target's directory, flushed to
disk and moved over the target in one step, so the file at the target path is always a
complete checkpoint, the old one or the new one.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import scipy.sparse as sp

from structsvm._task import Task


def problem_key(
    solver: str, task: Task, X: Sequence[Any], Y: Sequence[Any], **options: Any
) -> dict[str, Any]:
    """Return what identifies a training problem, in the order differences are reported.

    The solver; the task's type and ``size_joint_feature``; the number of examples; digests of
    the data (X, Y) (:func:`data_digest`) and of the task's joint features of them; then
    ``options``.
    The task's attributes are not compared, as tasks may keep counters or caches that change
    while they are used; a task that differs only in its loss is not told apart.
    """
    return {
        "solver": solver,
        "task": f"{type(task).__module__}.{type(task).__qualname__}, "
        f"size_joint_feature={task.size_joint_feature}",
        "n_examples": len(X),
        "data": data_digest([*X, *Y]),
        "features": data_digest([task.batch_joint_feature(X, Y)]),
        **options,
    }


def data_digest(items: Sequence[Any]) -> str:
    """Return a digest of a list of examples that tells different data apart.

    Numbers, numeric arrays and scipy.sparse matrices are digested from their buffers, shapes
    and types (fast, even for many sparse sentences); any other object by :func:`joblib.hash`.
    """
    digest = hashlib.blake2b(digest_size=16)
    for item in items:
        if sp.issparse(item):
            item = sp.csr_matrix(item)
            parts = (item.data, item.indices, item.indptr)
        elif isinstance(item, (np.ndarray, np.generic, int, float)) and (
            np.asarray(item).dtype != object
        ):
            item = np.asarray(item)
            parts = (item,)
        else:
            digest.update(joblib.hash(item).encode())
            continue
        digest.update(f"{type(item).__name__}{item.shape}".encode())
        for part in parts:
            digest.update(f"{part.dtype}".encode())
            digest.update(np.ascontiguousarray(part).data)
    return digest.hexdigest()


_WHAT = {
    "solver": "solver",
    "task": "task",
    "n_examples": "number of training examples",
    "data": "training data (X, Y)",
    "features": "task's joint features of the training data",
}


def check_same_problem(
    previous: dict[str, Any], current: dict[str, Any], estimator: str
) -> None:
    """Raise ValueError naming the first difference between two problem keys.

    ``warm_start`` continues the optimisation of one problem; a different one needs a fresh
    fit (``warm_start=False``).
    """
    for name, value in current.items():
        before = previous.get(name)
        if before == value:
            continue
        what = _WHAT.get(name, name)
        shown = "" if name in ("data", "features") else f": {before!r} before, {value!r} now"
        raise ValueError(
            f"{estimator} with warm_start=True continues the earlier fit of the same problem, "
            f"but the {what} changed{shown}; set warm_start=False to fit from scratch"
        )


def write_checkpoint(obj: Any, path: str | os.PathLike[str]) -> None:
    """Write ``obj`` to ``path`` with joblib so that ``path`` is never partly written.

    The data go to a temporary file in the same directory, are flushed and synced to disk,
    and the file is then renamed over ``path`` (:func:`os.replace`, atomic on POSIX and
    Windows). If anything fails, the temporary file is removed and ``path`` is unchanged.
    """
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
    """Load a checkpoint written by :func:`write_checkpoint` and check the estimator's type."""
    obj = joblib.load(path)
    if not isinstance(obj, expected):
        raise TypeError(
            f"{os.fspath(path)!r} holds a {type(obj).__name__}, not a {expected.__name__}"
        )
    return obj
