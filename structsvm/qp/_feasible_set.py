"""The feasible set of the working-set dual: ``α >= 0`` and every group's sum at most C.

The constraints of a working set fall into groups (one per slack variable); the dual variables
of a group share the bound C on their sum. Groups are numbered ``0 .. n_groups - 1`` and given
per constraint by ``group_index``.
"""

from __future__ import annotations

import numpy as np


def group_sums(values: np.ndarray, group_index: np.ndarray, n_groups: int) -> np.ndarray:
    """Return the sums of ``values`` (one per constraint) over the ``n_groups`` groups."""
    return np.bincount(group_index, weights=values, minlength=n_groups)


def clip_to_feasible(
    alpha: np.ndarray, group_index: np.ndarray, n_groups: int, C: float
) -> np.ndarray:
    """Return α clipped to ``[0, C]``, each group scaled down so that its sum is at most C.

    Solvers return α feasible up to rounding; this removes the rounding. An α far outside the
    set, such as an arbitrary warm start, is moved inside it, not projected onto it.

    Parameters
    ----------
    alpha : ndarray of shape (m,)
    group_index : ndarray of shape (m,) of int
        The group of each constraint.
    n_groups : int
    C : float
        Bound on each group's sum.

    Returns
    -------
    ndarray of shape (m,)
    """
    alpha = np.clip(alpha, 0.0, C)
    excess = np.maximum(group_sums(alpha, group_index, n_groups) / C, 1.0)
    return alpha / excess[group_index]
