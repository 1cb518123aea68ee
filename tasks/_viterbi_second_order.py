"""Compiled Viterbi decoding of second-order chains (Thede & Harper, ACL 1999; SVM^hmm ``--t 2``).

``score(y) = start[y_0] + Σ_t unary[t, y_t] + Σ_t pair_scores[y_t, y_{t+1}]
+ Σ_t triples[y_t, y_{t+1}, y_{t+2}] + end[y_{T-1}]``, decoded over the L² states
``(y_{t-1}, y_t)`` in L³ per position, with the ties of :mod:`tasks._viterbi`. The decoders take
``triple_scores`` *including* the pair score of the last two labels (:func:`second_order_scores`).
"""

from __future__ import annotations

import numba
import numpy as np

from tasks._threads import run_sequences
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
    unary: np.ndarray, begin: int, stop: int, pair_scores: np.ndarray,
    triple_scores: np.ndarray, end: np.ndarray, best_from: np.ndarray,
) -> None:
    """Fill the workspace ``best_from`` (at least stop - begin, L, L) with suffix scores.

    For s = t - begin >= 1, ``best_from[s, a, b]`` is the best score of positions t..stop-1
    given labels a at t - 1 and b at t; ``best_from[0, 0, b]`` the same for the first position.
    Pairs that ``pair_scores`` forbid (``-inf``) get ``-inf`` without the sweep over c.
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


def batch_viterbi_second_order(
    unary: np.ndarray, offsets: np.ndarray, pair_scores: np.ndarray, triple_scores: np.ndarray,
    start: np.ndarray, end: np.ndarray,
) -> np.ndarray:
    """Return the best labelling of every second-order chain in a batch, concatenated.

    As :func:`tasks._viterbi.batch_viterbi`, with ``pair_scores`` (L, L) and
    ``triple_scores`` (L, L, L) from :func:`second_order_scores`; runs of sequences are
    decoded by :func:`second_order_run`.
    """
    labels = np.empty(unary.shape[0], dtype=np.int64)

    def run(first: int, stop: int) -> None:
        second_order_run(
            unary, offsets, pair_scores, triple_scores, start, end, first, stop, labels
        )

    run_sequences(run, len(offsets) - 1)
    return labels


@numba.njit(cache=True, nogil=True)
def second_order_run(
    unary: np.ndarray, offsets: np.ndarray, pair_scores: np.ndarray, triple_scores: np.ndarray,
    start: np.ndarray, end: np.ndarray, first: int, stop: int, labels: np.ndarray,
) -> None:
    """Decode sequences ``first:stop`` of :func:`batch_viterbi_second_order` into their
    ``labels``. Releases the GIL."""
    n_labels = unary.shape[1]
    for k in range(first, stop):
        begin, end_row = offsets[k], offsets[k + 1]
        best_from = np.empty((end_row - begin, n_labels, n_labels))
        decode_second_order(
            unary, begin, end_row, pair_scores, triple_scores, start, end, best_from, labels
        )


@numba.njit(cache=True)
def decode_second_order(
    unary: np.ndarray, begin: int, stop: int, pair_scores: np.ndarray,
    triple_scores: np.ndarray, start: np.ndarray, end: np.ndarray, best_from: np.ndarray,
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
