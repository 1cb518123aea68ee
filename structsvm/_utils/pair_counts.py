"""Counting preference pairs of a ranking without listing them, in O(m log m).

The m documents of a query have grades; its preference pairs are ``(i, j)`` with
``grades[i] > grades[j]``, up to m²/2 of them. Each document carries two keys, ``upper`` (used
when it is the better-graded member of a pair) and ``lower`` (the worse-graded one), and a
pair is swapped when ``upper[i] <= lower[j]``. :func:`swap_counts` counts the swapped pairs of
every document by sorting the 2m keys once and sweeping them with a Fenwick tree over the
grades, the counting of Joachims (KDD 2006) for ordinal regression extended to any number of
grades.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _sweep_counts(
    grade_rank: np.ndarray, n_grades: int, order: np.ndarray, below: bool
) -> np.ndarray:
    """Count, for every query event of a sorted sweep, the inserted documents on one side.

    ``order`` lists 2m events: an index ``k < m`` inserts document k's grade, an index
    ``k >= m`` asks for document ``k - m`` how many inserted documents have a lower grade
    (``below``) or a higher grade (not ``below``).
    """
    m = grade_rank.shape[0]
    tree = np.zeros(n_grades + 1, dtype=np.int64)
    counts = np.zeros(m, dtype=np.int64)
    inserted = 0
    for k in order:
        if k < m:
            position = grade_rank[k] + 1
            while position <= n_grades:
                tree[position] += 1
                position += position & -position
            inserted += 1
            continue
        i = k - m
        # Documents inserted so far with grade rank < grade_rank[i] (below) or <= (above).
        position = grade_rank[i] if below else grade_rank[i] + 1
        total = 0
        while position > 0:
            total += tree[position]
            position -= position & -position
        counts[i] = total if below else inserted - total
    return counts


@numba.njit(cache=True)
def swap_keys(upper: np.ndarray, lower: np.ndarray, as_upper: bool) -> np.ndarray:
    """Return the 2m keys whose stable ascending order is the sweep that counts every
    document's swapped pairs as the better-graded member if ``as_upper``, else as the worse."""
    m = len(upper)
    keys = np.empty(2 * m)
    # Descending keys, a lower key before an equal upper key: lower[j] >= upper[i] is counted;
    # ascending keys, an upper key before an equal lower key: upper[i] <= lower[j] is counted.
    keys[:m], keys[m:] = (-lower, -upper) if as_upper else (upper, lower)
    return keys


@numba.njit(cache=True)
def count_swaps(
    grade_rank: np.ndarray, n_grades: int, upper: np.ndarray, lower: np.ndarray, as_upper: bool
) -> np.ndarray:
    """Return one side of :func:`swap_counts` in compiled code; ``grade_rank`` numbers the
    grades from 0."""
    order = np.argsort(swap_keys(upper, lower, as_upper), kind="mergesort")
    return _sweep_counts(grade_rank, n_grades, order, as_upper)


def swap_counts(
    grades: np.ndarray, upper: np.ndarray, lower: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Return, per document, its swapped pairs as the better and as the worse-graded member.

    A pair (i, j) with ``grades[i] > grades[j]`` is swapped when ``upper[i] <= lower[j]``.

    Returns
    -------
    as_upper : ndarray of int64, shape (m,)
        ``as_upper[i] = #{j : grades[j] < grades[i], lower[j] >= upper[i]}``.
    as_lower : ndarray of int64, shape (m,)
        ``as_lower[j] = #{i : grades[i] > grades[j], upper[i] <= lower[j]}``.

    Both sum to the number of swapped pairs. Cost: two stable sorts of the 2m keys and two
    sweeps with a Fenwick tree over the grades, O(m log m).
    """
    levels, grade_rank = np.unique(grades, return_inverse=True)
    grade_rank = grade_rank.astype(np.int64).ravel()
    return tuple(
        _sweep_counts(
            grade_rank, len(levels), np.argsort(swap_keys(upper, lower, side), kind="stable"), side
        )
        for side in (True, False)
    )


def pairs_below_above(grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return, per document, how many documents have a lower and a higher grade."""
    _, grade_rank, sizes = np.unique(grades, return_inverse=True, return_counts=True)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    grade_rank = grade_rank.ravel()
    below = starts[grade_rank]
    above = len(grades) - starts[grade_rank + 1]
    return below, above


def count_pairs(grades: np.ndarray) -> int:
    """Return the number of preference pairs ``#{(i, j) : grades[i] > grades[j]}``."""
    _, sizes = np.unique(grades, return_counts=True)
    return int((len(grades) ** 2 - np.sum(sizes.astype(np.int64) ** 2)) // 2)
