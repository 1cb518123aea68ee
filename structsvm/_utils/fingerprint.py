"""What identifies a training problem, so that a fit continues only the problem it started.

A fit with ``warm_start=True`` continues from the state an earlier fit left on the estimator,
which is only meaningful for the same problem: :func:`problem_key` records what identifies it
and :func:`check_same_problem` names what differs. Digests of the data and of their joint
features cost a pass over the data, so learners record them only when a later continuation
may need them (see :func:`problem_key`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm._task import Task


def problem_key(
    solver: str,
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    true_features: np.ndarray | sp.spmatrix | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Return what identifies a training problem, in the order differences are reported.

    The solver; the task's type and ``size_joint_feature``; the number of examples; with
    ``true_features`` (the rows φ(x_i, y_i) of the training data, which the learner passes on
    to its solver rather than computing them twice), digests of the data (X, Y)
    (:func:`data_digest`) and of those joint features; then ``options``. Without
    ``true_features`` the key holds only what costs nothing to record.
    The task's attributes are not compared, as tasks may keep counters or caches that change
    while they are used; a task that differs only in its loss is not told apart.
    """
    key: dict[str, Any] = {
        "solver": solver,
        "task": f"{type(task).__module__}.{type(task).__qualname__}, "
        f"size_joint_feature={task.size_joint_feature}",
        "n_examples": len(X),
    }
    if true_features is not None:
        key["data"] = data_digest([*X, *Y])
        key["features"] = data_digest([true_features])
    return {**key, **options}


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
            import joblib  # imported here: fits that never need it do without its imports

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
_DIGESTS = ("data", "features")


def check_same_problem(
    previous: dict[str, Any], current: dict[str, Any], estimator: str
) -> None:
    """Raise ValueError naming the first difference between two problem keys.

    ``warm_start`` continues the optimisation of one problem; a different one needs a fresh
    fit (``warm_start=False``). Digests that the earlier key does not hold (its fit did not
    record them) are not compared.
    """
    for name, value in current.items():
        if name in _DIGESTS and name not in previous:
            continue
        before = previous.get(name)
        if before == value:
            continue
        what = _WHAT.get(name, name)
        shown = "" if name in _DIGESTS else f": {before!r} before, {value!r} now"
        raise ValueError(
            f"{estimator} with warm_start=True continues the earlier fit of the same problem, "
            f"but the {what} changed{shown}; set warm_start=False to fit from scratch"
        )
