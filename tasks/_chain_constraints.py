"""Hard constraints on the labellings of a linear chain: forbidden transitions and end labels.

``forbidden_transitions[a, b]`` forbids label b right after a, ``forbidden_first[a]`` and
``forbidden_last[a]`` label a at the first and last position (BIO tags forbid ``O → I-NP``).
The decoders give what is forbidden the score ``-inf``
(:func:`tasks._chain_oracle.chain_weights`); :func:`find_violation` checks given labellings.
"""

from __future__ import annotations

import numba
import numpy as np


def check_forbidden(value: object, n_labels: int, name: str) -> np.ndarray:
    """Return forbidden transitions (L, L), or forbidden first or last labels (L,), as a mask.

    ``value`` is None (nothing forbidden), a boolean mask, or a sequence of labels (of
    ``(previous, next)`` label pairs for ``forbidden_transitions``).

    Raises
    ------
    ValueError
        If ``value`` is neither, or names a label outside ``0 .. n_labels - 1``; the message
        names the argument ``name``.
    """
    pairs = name == "forbidden_transitions"
    shape = (n_labels, n_labels) if pairs else (n_labels,)
    mask = np.zeros(shape, dtype=bool)
    if value is None:
        return mask
    array = np.asarray(value)
    if array.dtype == bool:
        if array.shape != shape:
            raise ValueError(
                f"{name} as a boolean mask must have shape {shape}, got {array.shape}"
            )
        return array.copy()
    if array.size == 0:
        return mask
    entry_shape = (2,) if pairs else ()
    if array.ndim != len(shape) or array.shape[1:] != entry_shape or not np.issubdtype(
        array.dtype, np.integer
    ):
        entries = "(previous, next) integer label pairs" if pairs else "integer labels"
        raise ValueError(
            f"{name} must be an {shape} boolean mask or a list of {entries}, got an array of "
            f"{array.dtype} with shape {array.shape}"
        )
    if array.min() < 0 or array.max() >= n_labels:
        raise ValueError(
            f"{name} names labels outside 0 .. {n_labels - 1}: found {array.min()}..{array.max()}"
        )
    mask[tuple(array.reshape(len(array), -1).T)] = True
    return mask


@numba.njit(cache=True)
def _first_violation(
    labels: np.ndarray, offsets: np.ndarray, forbidden_transitions: np.ndarray,
    forbidden_first: np.ndarray, forbidden_last: np.ndarray,
) -> tuple[int, int, int]:
    """Return (sequence, position, kind) of the first broken constraint, kind 0 if none.

    Kinds: 1 a forbidden first label, 2 a forbidden transition into the position, 3 a forbidden
    last label.
    """
    for k in range(offsets.shape[0] - 1):
        first, stop = offsets[k], offsets[k + 1]
        if forbidden_first[labels[first]]:
            return k, 0, 1
        for t in range(first + 1, stop):
            if forbidden_transitions[labels[t - 1], labels[t]]:
                return k, t - first, 2
        if forbidden_last[labels[stop - 1]]:
            return k, stop - 1 - first, 3
    return -1, -1, 0


def find_violation(
    labels: np.ndarray, offsets: np.ndarray, forbidden_transitions: np.ndarray,
    forbidden_first: np.ndarray, forbidden_last: np.ndarray,
) -> tuple[int, str] | None:
    """Return the first sequence breaking a constraint and how, or None if all keep them.

    ``labels`` (int64) holds the labellings one after another, sequence k at
    ``labels[offsets[k]:offsets[k + 1]]``.
    """
    k, t, kind = _first_violation(
        labels, offsets, forbidden_transitions, forbidden_first, forbidden_last
    )
    if kind == 0:
        return None
    at = offsets[k] + t
    if kind == 1:
        return k, f"starts with the forbidden first label {labels[at]}"
    if kind == 2:
        return k, (
            f"has the forbidden transition {labels[at - 1]} -> {labels[at]} at positions "
            f"{t - 1}, {t}"
        )
    return k, f"ends with the forbidden last label {labels[at]}"
