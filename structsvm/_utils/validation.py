"""Checks of user input at the public boundary, each raising an error that names the argument."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import assert_all_finite, column_or_1d


def check_consistent_length(X: Sequence[Any], Y: Sequence[Any]) -> None:
    """Raise ValueError unless ``X`` and ``Y`` hold the same number of examples."""
    check_targets_given(Y)
    n_targets = len(np.asarray(Y))
    if len(X) != n_targets:
        raise ValueError(
            f"X and Y have different lengths: X has {len(X)} examples, Y has {n_targets}"
        )


def check_targets_given(Y: Any) -> None:
    """Raise ValueError if the targets of a fit are missing (``Y is None``)."""
    if Y is None:
        raise ValueError(
            "fitting requires y to be passed, but the target y is None: "
            "expected one target per example in X"
        )


def check_feature_array(
    x: Any, name: str, *, ndim: int, n_features: int | None, finite: bool = True
) -> np.ndarray:
    """Return ``x`` as a float64 array of ``ndim`` dimensions and the given width.

    Parameters
    ----------
    x : array-like
        The features to check.
    name : str
        How the argument is called in messages.
    ndim : int
        Required number of dimensions (1 for one feature vector, 2 for rows of them).
    n_features : int or None
        Required length of the last axis, or None to accept any.
    finite : bool, default=True
        Also require every entry to be finite (a pass over the whole array).
    """
    try:
        array = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a numeric array; could not convert it: {error}") from None
    if array.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {array.shape}")
    if n_features is not None and array.shape[-1] != n_features:
        raise ValueError(
            f"{name} has {array.shape[-1]} features per row, expected n_features={n_features}"
        )
    if finite and not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return array


def check_labels(y: Any, name: str, *, n_labels: int, ndim: int = 1) -> np.ndarray:
    """Return ``y`` as an int64 array whose entries lie in ``[0, n_labels)``."""
    array = np.asarray(y)
    if array.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array of labels, got shape {array.shape}")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        if not np.issubdtype(array.dtype, np.floating) or np.any(array != np.round(array)):
            raise ValueError(f"{name} must hold integer labels, got dtype {array.dtype}")
    array = array.astype(np.int64)
    if array.size and (array.min() < 0 or array.max() >= n_labels):
        raise ValueError(
            f"{name} has labels outside [0, {n_labels}): found {array.min()}..{array.max()}"
        )
    return array


def check_class_labels(y: Any, name: str = "y") -> np.ndarray:
    """Return class labels ``y`` as a 1-D array; raise ValueError if NaN or not classes."""
    array = column_or_1d(y, warn=True)
    if array.dtype.kind in "fc":
        assert_all_finite(array, input_name=name)
    check_classification_targets(array)
    return array


def check_binary_labels(y: Any, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Return the two classes of ``y`` (sorted) and ``y`` as ±1, +1 marking the second class."""
    array = check_class_labels(y, name)
    classes = np.unique(array)
    if len(classes) != 2:
        found = f"{len(classes)} class" + ("" if len(classes) == 1 else "es")
        raise ValueError(
            f"Only binary classification is supported: {name} must hold exactly two classes, "
            f"got {found}"
        )
    return classes, np.where(array == classes[1], 1.0, -1.0)


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` if it is an integer ``>= minimum``; raise ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_positive_float(value: Any, name: str) -> float:
    """Return ``value`` as a float if it is finite and > 0; raise ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return float(value)


def check_finite_float(value: Any, name: str) -> float:
    """Return ``value`` as a float if it is a finite real number; raise ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


def check_weights(w: Any, size: int, *, finite: bool = True) -> np.ndarray:
    """Return a weight vector as a float64 array of length ``size``, finite unless told.

    ``finite=False`` skips the pass over all entries, for callers that check the part of
    ``w`` they read (a cost independent of ``size``).
    """
    return check_feature_array(w, "w", ndim=1, n_features=size, finite=finite)


def take(data: Sequence[Any], indices: np.ndarray) -> Sequence[Any]:
    """Select examples by index from an array (fancy indexing) or any other sequence (a list)."""
    if isinstance(data, np.ndarray):
        return data[indices]
    return [data[i] for i in indices]
