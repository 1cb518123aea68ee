"""The perceptron's mistake bound: the radius R of a data set, the margin δ of a separator.

For a task whose outputs can be enumerated these are exact:

* ``R = max_i max_{y, y' ∈ Y(x_i)} ‖φ(x_i, y) − φ(x_i, y')‖``, the largest distance between two
  joint feature vectors of the same input;
* ``δ(u) = min_i min_{y ≠ y_i} u · (φ(x_i, y_i) − φ(x_i, y)) / ‖u‖``, the margin by which the unit
  vector along ``u`` separates the true outputs from all others (negative if it does not).

If ``δ(u) > 0`` for some ``u``, the structured perceptron makes at most ``(R / δ)²`` updates
(Collins, "Discriminative training methods for hidden Markov models", EMNLP 2002, Theorem 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np

from structsvm._task import Task
from structsvm._utils.validation import Interval, check_finite_float, check_value


def _enumerated_features(task: Task, x: Any) -> tuple[list[Any], np.ndarray]:
    candidates = list(task.outputs(x))
    return candidates, np.array([task.joint_feature(x, y) for y in candidates])


def radius(task: Task, X: Sequence[Any]) -> float:
    """Return R, the largest distance between two joint feature vectors of the same input.

    Parameters
    ----------
    task : Task
        A task that implements ``outputs(x)``.
    X : sequence of inputs

    Returns
    -------
    float
    """
    # Imported here: scipy.spatial loads scipy.special and scipy.linalg, unused by most fits.
    from scipy.spatial.distance import pdist

    largest = 0.0
    for x in X:
        _, features = _enumerated_features(task, x)
        if len(features) > 1:
            largest = max(largest, float(pdist(features).max()))
    return largest


def margin(task: Task, X: Sequence[Any], Y: Sequence[Any], w: np.ndarray) -> float:
    """Return δ, the smallest normalised score gap between a true output and any other output.

    Parameters
    ----------
    task : Task
        A task that implements ``outputs(x)``.
    X, Y : sequences of inputs and their true outputs
    w : ndarray of shape (task.size_joint_feature,)
        A non-zero weight vector; it is normalised to unit length.

    Returns
    -------
    float
        Positive if and only if ``w`` separates the data.
    """
    w = np.asarray(w, dtype=float)
    norm = np.linalg.norm(w)
    if norm == 0:
        raise ValueError("w must be non-zero to define a margin")
    smallest = np.inf
    for x, y_true in zip(X, Y, strict=True):
        candidates, features = _enumerated_features(task, x)
        wrong = [not task.outputs_equal(y, y_true) for y in candidates]
        if any(wrong):
            gaps = task.score(x, y_true, w) - features[np.array(wrong)] @ w
            smallest = min(smallest, float(gaps.min()))
    return smallest / norm


def mistake_bound(R: float, delta: float) -> float:
    """Return ``(R / δ)²``: the most updates the perceptron makes on data with margin δ.

    Raises
    ------
    ValueError
        If R is not a finite number >= 0, or delta not a finite number > 0 (the data must be
        separable).
    """
    check_value(R, "R", [Interval(Real, 0, None, closed="left")])
    delta = check_finite_float(delta, "delta")
    if delta <= 0:
        raise ValueError(f"delta must be > 0 (the data must be separable), got {delta}")
    return (R / delta) ** 2
