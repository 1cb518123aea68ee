"""Compiled k-best (list) Viterbi of first- and second-order chains (Seshadri & Sundberg, 1994).

The backward programme keeps, per position and label (pair of labels for the second order), the
k best suffixes in order, merged from the next position's lists; the labellings are read off by
(next label, rank) pointers. Time O(T L^(order+1) k). They come by decreasing score, equal
scores in lexicographic order (exactly so when the scores are computed exactly); labellings of
score ``-inf`` (forbidden) are never listed, so fewer than k come back when fewer are allowed.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _merge_lists(
    into: np.ndarray, scores: np.ndarray, counts: np.ndarray, k: int, heads: np.ndarray,
    base: float, merged_scores: np.ndarray, merged_labels: np.ndarray, merged_ranks: np.ndarray,
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

    first_labels, first_ranks, best_scores = _best_starts(start, scores[0], counts[0], k, heads)
    labellings = np.empty((len(best_scores), n_positions), dtype=np.int64)
    for n in range(len(best_scores)):
        label, rank = first_labels[n], first_ranks[n]
        for t in range(n_positions):
            labellings[n, t] = label
            label, rank = next_label[t, label, rank], next_rank[t, label, rank]
    return labellings, best_scores


@numba.njit(cache=True)
def _best_starts(
    start: np.ndarray, scores: np.ndarray, counts: np.ndarray, k: int, heads: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge the first position's lists: the k best first labels, their ranks and scores."""
    labels, ranks, best = np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64), np.empty(k)
    # -0.0 adds nothing to any value, -0.0 included.
    n_best = _merge_lists(start, scores, counts, k, heads, -0.0, best, labels, ranks)
    return labels[:n_best], ranks[:n_best], best[:n_best]


@numba.njit(cache=True)
def top_k_second_order(
    unary: np.ndarray, pair_scores: np.ndarray, triple_scores: np.ndarray, start: np.ndarray,
    end: np.ndarray, k: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Return :func:`top_k_first_order`'s result for a second-order chain (lists by label pair).

    The scores are as in :func:`tasks._viterbi_second_order.batch_viterbi_second_order`.
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

    first_labels, first_ranks, best_scores = _best_starts(
        start, scores[0, 0], counts[0, 0], k, heads
    )
    labellings = np.empty((len(best_scores), n_positions), dtype=np.int64)
    for n in range(len(best_scores)):
        previous, label, rank = 0, first_labels[n], first_ranks[n]
        for t in range(n_positions):
            labellings[n, t] = label
            previous, label, rank = (
                label, next_label[t, previous, label, rank], next_rank[t, previous, label, rank]
            )
    return labellings, best_scores
