"""Compiled Viterbi decoding of second-order chains: scores on label pairs and label triples.

A second-order chain of T positions with L labels is scored by

    score(y) = start[y_0] + Σ_t unary[t, y_t] + Σ_t transitions[y_t, y_{t+1}]
               + Σ_t triples[y_t, y_{t+1}, y_{t+2}] + end[y_{T-1}],

the model of second-order hidden Markov models (Thede & Harper, ACL 1999) and of SVM^hmm's
``--t 2``. The Viterbi algorithm runs over the L² states ``(y_{t-1}, y_t)``, at a cost of L³
per position, with the batches and ties of :mod:`tasks._viterbi`.

The transition weights enter as ``pair_scores`` (L, L), the score of ``y_t → y_{t+1}``, and
``triple_scores`` (L, L, L), the score of ``(y_{t-2}, y_{t-1}) → y_t`` *including* the pair
score of ``y_{t-1} → y_t``: :func:`second_order_scores` adds them once per batch.
"""

from __future__ import annotations

import numba
import numpy as np

from tasks._viterbi import best_label


@numba.njit(cache=True)
def second_order_scores(transitions: np.ndarray, triples: np.ndarray) -> np.ndarray:
    """Return ``triple_scores[a, b, c] = transitions[b, c] + triples[a, b, c]``."""
    n_labels = transitions.shape[0]
    scores = np.empty((n_labels, n_labels, n_labels))
    for a in range(n_labels):
        for b in range(n_labels):
            for c in range(n_labels):
                scores[a, b, c] = transitions[b, c] + triples[a, b, c]
    return scores


@numba.njit(cache=True)
def second_order_suffix_scores(
    unary: np.ndarray,
    begin: int,
    stop: int,
    pair_scores: np.ndarray,
    triple_scores: np.ndarray,
    end: np.ndarray,
    best_from: np.ndarray,
) -> None:
    """Fill ``best_from`` with the best scores of the chain's suffixes.

    For the chain in rows ``begin:stop`` of ``unary`` and s = t - begin >= 1,
    ``best_from[s, a, b]`` becomes the best score of positions t..stop-1 (their unaries and
    the transitions into t + 1 onwards, and the end score) given labels a at t - 1 and b at t;
    ``best_from[0, 0, b]`` is the same for the first position, with no previous label.
    ``best_from`` is a workspace of shape (at least stop - begin, L, L). Pairs a → b that the
    pair scores forbid (``-inf``) lie on no allowed labelling: they get ``-inf`` without work,
    which saves the L³ sweep over the pairs that constraints rule out.
    """
    n_labels = unary.shape[1]
    last = stop - begin - 1
    for a in range(n_labels):
        for b in range(n_labels):
            best_from[last, a, b] = unary[stop - 1, b] + end[b]
    for s in range(last - 1, 0, -1):
        for a in range(n_labels):
            for b in range(n_labels):
                if pair_scores[a, b] == -np.inf:
                    best_from[s, a, b] = -np.inf
                    continue
                into, following = triple_scores[a, b], best_from[s + 1, b]
                best = -np.inf
                for c in range(n_labels):
                    best = max(best, into[c] + following[c])
                best_from[s, a, b] = unary[begin + s, b] + best
    if last > 0:
        for b in range(n_labels):
            into, following = pair_scores[b], best_from[1, b]
            best = -np.inf
            for c in range(n_labels):
                best = max(best, into[c] + following[c])
            best_from[0, 0, b] = unary[begin, b] + best


@numba.njit(cache=True)
def batch_viterbi_second_order(
    unary: np.ndarray,
    offsets: np.ndarray,
    pair_scores: np.ndarray,
    triple_scores: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
) -> np.ndarray:
    """Return the best labelling of every second-order chain in a batch, concatenated.

    Parameters
    ----------
    unary : ndarray of shape (N, L), float64
        Score of each label at each position of all sequences, one sequence after another.
    offsets : ndarray of shape (n_sequences + 1,), int64
        Sequence k occupies rows ``offsets[k]:offsets[k + 1]``; every sequence is non-empty.
    pair_scores : ndarray of shape (L, L), float64
        ``pair_scores[a, b]`` scores label a followed by label b.
    triple_scores : ndarray of shape (L, L, L), float64
        ``triple_scores[a, b, c]`` scores labels a, b followed by label c, pair score of
        ``b → c`` included (see :func:`second_order_scores`).
    start, end : ndarray of shape (L,), float64
        Scores of the first and of the last label of a sequence.

    Returns
    -------
    ndarray of shape (N,), int64
        The labels of every position; ties go to the lexicographically smallest labelling.
    """
    n_labels = unary.shape[1]
    labels = np.empty(unary.shape[0], dtype=np.int64)
    for k in range(offsets.shape[0] - 1):
        begin, stop = offsets[k], offsets[k + 1]
        best_from = np.empty((stop - begin, n_labels, n_labels))
        decode_second_order(
            unary, begin, stop, pair_scores, triple_scores, start, end, best_from, labels
        )
    return labels


@numba.njit(cache=True, parallel=True)
def parallel_batch_viterbi_second_order(
    unary: np.ndarray,
    offsets: np.ndarray,
    pair_scores: np.ndarray,
    triple_scores: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
) -> np.ndarray:
    """Return :func:`batch_viterbi_second_order`'s labels, the sequences on Numba's threads.

    Each sequence has a workspace of its own and writes only its own labels, so the result
    does not depend on the number of threads.
    """
    n_labels = unary.shape[1]
    labels = np.empty(unary.shape[0], dtype=np.int64)
    for k in numba.prange(offsets.shape[0] - 1):
        begin, stop = offsets[k], offsets[k + 1]
        best_from = np.empty((stop - begin, n_labels, n_labels))
        decode_second_order(
            unary, begin, stop, pair_scores, triple_scores, start, end, best_from, labels
        )
    return labels


@numba.njit(cache=True)
def decode_second_order(
    unary: np.ndarray,
    begin: int,
    stop: int,
    pair_scores: np.ndarray,
    triple_scores: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    best_from: np.ndarray,
    labels: np.ndarray,
) -> None:
    """Decode the chain in rows ``begin:stop`` of ``unary`` into ``labels[begin:stop]``."""
    second_order_suffix_scores(unary, begin, stop, pair_scores, triple_scores, end, best_from)
    labels[begin] = best_label(start, best_from[0, 0])
    if stop - begin > 1:
        labels[begin + 1] = best_label(pair_scores[labels[begin]], best_from[1, labels[begin]])
    for t in range(begin + 2, stop):
        before, previous = labels[t - 2], labels[t - 1]
        labels[t] = best_label(triple_scores[before, previous], best_from[t - begin, previous])
