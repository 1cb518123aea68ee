"""Compiled k-best Viterbi: the k highest-scoring labellings of a first-order chain, in order.

The list Viterbi algorithm (Seshadri & Sundberg, IEEE Trans. Commun., 1994; Nilsson &
Goldberger, 2001, for the max-product view): the backward dynamic programme keeps, for every
position t and label i, not only the best suffix starting at (t, i) but its k best, in order.
The k best suffixes at (t, i) are found among the k best suffixes of each label at t + 1, merged
by a k-step selection over the L lists; the k best labellings are then merged from the lists at
the first position and read off by following, for each, a (next label, rank) pointer per
position. Time O(T L² k), memory O(T L k).

Order and ties: the labellings come by decreasing score, and labellings of equal score in
lexicographic order (smallest first). Every list is kept in this order; the merges compare
the candidates by score, then by next label, then by rank in that label's list, which is the
same order, because suffixes through the same next label compare as their tails do. The order
is exact when the scores are computed exactly; otherwise rounding decides between labellings
whose scores agree to the last bit. Labellings of score ``-inf`` (forbidden ones) are never
listed, so fewer than k come back when fewer than k labellings are allowed.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _merge_lists(
    into: np.ndarray,
    scores: np.ndarray,
    counts: np.ndarray,
    k: int,
    heads: np.ndarray,
    base: float,
    merged_scores: np.ndarray,
    merged_labels: np.ndarray,
    merged_ranks: np.ndarray,
) -> int:
    """Merge the sorted lists ``scores[j, :counts[j]]``, shifted by ``into[j]``; keep k.

    Writes the best k (or fewer) finite candidates in order, plus ``base``, with the list j
    and the rank they come from, and returns how many there are. Equal values go to the
    smaller j.
    """
    n_lists = into.shape[0]
    heads[:] = 0
    n_merged = 0
    while n_merged < k:
        best_list = -1
        best_value = -np.inf
        for j in range(n_lists):
            rank = heads[j]
            if rank < counts[j]:
                value = into[j] + scores[j, rank]
                if value > best_value:
                    best_value = value
                    best_list = j
        if best_list < 0:
            break
        merged_scores[n_merged] = base + best_value
        merged_labels[n_merged] = best_list
        merged_ranks[n_merged] = heads[best_list]
        heads[best_list] += 1
        n_merged += 1
    return n_merged


@numba.njit(cache=True)
def top_k_first_order(
    unary: np.ndarray, transitions: np.ndarray, start: np.ndarray, end: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Return the k best labellings (rows, best first) of one chain and their scores.

    The scores are as in :func:`tasks._viterbi.batch_viterbi`: ``unary`` (T, L), ``transitions``
    (L, L), ``start`` and ``end`` (L,), with ``-inf`` for what is forbidden.
    """
    n_positions, n_labels = unary.shape
    # scores[t, i, r]: the r-th best score of positions t..T-1 given label i at t; its label at
    # t + 1 and its rank in that label's list are next_label[t, i, r] and next_rank[t, i, r].
    scores = np.full((n_positions, n_labels, k), -np.inf)
    next_label = np.zeros((n_positions, n_labels, k), dtype=np.int64)
    next_rank = np.zeros((n_positions, n_labels, k), dtype=np.int64)
    counts = np.zeros((n_positions, n_labels), dtype=np.int64)
    last = n_positions - 1
    for i in range(n_labels):
        scores[last, i, 0] = unary[last, i] + end[i]
        counts[last, i] = 1 if scores[last, i, 0] > -np.inf else 0
    heads = np.empty(n_labels, dtype=np.int64)
    for t in range(last - 1, -1, -1):
        for i in range(n_labels):
            counts[t, i] = _merge_lists(
                transitions[i], scores[t + 1], counts[t + 1], k, heads, unary[t, i],
                scores[t, i], next_label[t, i], next_rank[t, i],
            )

    first_labels = np.empty(k, dtype=np.int64)
    first_ranks = np.empty(k, dtype=np.int64)
    best_scores = np.empty(k)
    # -0.0 adds nothing to any value, -0.0 included.
    n_best = _merge_lists(
        start, scores[0], counts[0], k, heads, -0.0, best_scores, first_labels, first_ranks
    )
    labellings = np.empty((n_best, n_positions), dtype=np.int64)
    for n in range(n_best):
        label, rank = first_labels[n], first_ranks[n]
        for t in range(n_positions):
            labellings[n, t] = label
            label, rank = next_label[t, label, rank], next_rank[t, label, rank]
    return labellings, best_scores[:n_best]


@numba.njit(cache=True)
def top_k_second_order(
    unary: np.ndarray,
    pair_scores: np.ndarray,
    triple_scores: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    k: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Return the k best labellings (rows, best first) of one second-order chain and their scores.

    The scores are as in :func:`tasks._viterbi_second_order.batch_viterbi_second_order`. The
    lists belong to label pairs ``(y_{t-1}, y_t)``; time O(T L³ k), memory O(T L² k).
    """
    n_positions, n_labels = unary.shape
    # scores[t, a, b, r]: the r-th best score of positions t..T-1 given labels a, b at t - 1, t
    # (for t = 0, a = 0 and b is the first label); it continues with label next_label[t, a, b, r]
    # at t + 1, at rank next_rank[t, a, b, r] of the list of (b, next_label).
    shape = (n_positions, n_labels, n_labels, k)
    scores = np.full(shape, -np.inf)
    next_label = np.zeros(shape, dtype=np.int64)
    next_rank = np.zeros(shape, dtype=np.int64)
    counts = np.zeros((n_positions, n_labels, n_labels), dtype=np.int64)
    last = n_positions - 1
    for a in range(n_labels):
        for b in range(n_labels):
            scores[last, a, b, 0] = unary[last, b] + end[b]
            counts[last, a, b] = 1 if scores[last, a, b, 0] > -np.inf else 0
    heads = np.empty(n_labels, dtype=np.int64)
    for t in range(last - 1, -1, -1):
        for a in range(n_labels if t > 0 else 1):
            for b in range(n_labels):
                into = triple_scores[a, b] if t > 0 else pair_scores[b]
                counts[t, a, b] = _merge_lists(
                    into, scores[t + 1, b], counts[t + 1, b], k, heads, unary[t, b],
                    scores[t, a, b], next_label[t, a, b], next_rank[t, a, b],
                )

    first_labels = np.empty(k, dtype=np.int64)
    first_ranks = np.empty(k, dtype=np.int64)
    best_scores = np.empty(k)
    n_best = _merge_lists(
        start, scores[0, 0], counts[0, 0], k, heads, -0.0, best_scores, first_labels,
        first_ranks,
    )
    labellings = np.empty((n_best, n_positions), dtype=np.int64)
    for n in range(n_best):
        previous, label, rank = 0, first_labels[n], first_ranks[n]
        for t in range(n_positions):
            labellings[n, t] = label
            previous, label, rank = (
                label, next_label[t, previous, label, rank], next_rank[t, previous, label, rank]
            )
    return labellings, best_scores[:n_best]
