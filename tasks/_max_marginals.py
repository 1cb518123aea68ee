"""Compiled max-marginals of first- and second-order chains.

The max-marginal of label b at position t is the best score of a labelling with ``y_t = b``:
a forward Viterbi pass to b plus the decoders' backward pass from b (:mod:`tasks._viterbi`,
:mod:`tasks._viterbi_second_order`), whose score conventions it follows; a label no allowed
labelling reaches gets ``-inf``.
"""

from __future__ import annotations

import numba
import numpy as np

from tasks._viterbi import suffix_scores
from tasks._viterbi_second_order import second_order_suffix_scores


@numba.njit(cache=True)
def max_marginals_first_order(
    unary: np.ndarray, transitions: np.ndarray, start: np.ndarray, end: np.ndarray
) -> np.ndarray:
    """Return the max-marginals (T, L) of a first-order chain (scores as in ``batch_viterbi``)."""
    n_positions, n_labels = unary.shape
    best_from = np.empty((n_positions, n_labels))
    suffix_scores(unary, 0, n_positions, np.ascontiguousarray(transitions.T), end, best_from)
    # best_to[i]: best score of positions before t, the transition into t from label i
    # excluded; marginals[t, j] = max_i best_to[i] + unary[t - 1, i] + transitions[i, j] + ...
    marginals = np.empty((n_positions, n_labels))
    best_to = start.copy()
    for j in range(n_labels):
        marginals[0, j] = best_to[j] + best_from[0, j]
    for t in range(1, n_positions):
        reaching = best_to + unary[t - 1]
        for j in range(n_labels):
            best = -np.inf
            for i in range(n_labels):
                best = max(best, reaching[i] + transitions[i, j])
            best_to[j] = best
            marginals[t, j] = best + best_from[t, j]
    return marginals


@numba.njit(cache=True)
def max_marginals_second_order(
    unary: np.ndarray,
    pair_scores: np.ndarray,
    triple_scores: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
) -> np.ndarray:
    """Return the max-marginals (T, L) of a second-order chain.

    The scores are as in ``batch_viterbi_second_order``.
    """
    n_positions, n_labels = unary.shape
    best_from = np.empty((n_positions, n_labels, n_labels))
    second_order_suffix_scores(unary, 0, n_positions, pair_scores, triple_scores, end, best_from)
    marginals = np.empty((n_positions, n_labels))
    for b in range(n_labels):
        marginals[0, b] = start[b] + best_from[0, 0, b]
    if n_positions == 1:
        return marginals
    # best_to[a, b]: best score of positions before t with labels a, b at t - 1, t, the
    # transition into b included, the unary of b excluded.
    best_to = np.empty((n_labels, n_labels))
    for a in range(n_labels):
        for b in range(n_labels):
            best_to[a, b] = start[a] + unary[0, a] + pair_scores[a, b]
    reaching = np.empty((n_labels, n_labels))
    for t in range(1, n_positions):
        if t > 1:
            for b in range(n_labels):
                for c in range(n_labels):
                    best = -np.inf
                    for a in range(n_labels):
                        best = max(best, reaching[a, b] + triple_scores[a, b, c])
                    best_to[b, c] = best
        for b in range(n_labels):
            best = -np.inf
            for a in range(n_labels):
                best = max(best, best_to[a, b] + best_from[t, a, b])
                reaching[a, b] = best_to[a, b] + unary[t, b]
            marginals[t, b] = best
    return marginals
