"""Compiled Viterbi decoding of linear chains (Viterbi, IEEE Trans. Inf. Theory, 1967).

``score(y) = start[y_0] + Σ_t unary[t, y_t] + Σ_t transitions[y_t, y_{t+1}] + end[y_{T-1}]``.
The programme runs backwards and the labelling is read forwards, taking the smallest label that
still completes a best labelling: ties go to the lexicographically smallest labelling.
"""

from __future__ import annotations

import numba
import numpy as np

from tasks._threads import run_sequences


@numba.njit(cache=True, inline="always")
def suffix_scores(
    unary: np.ndarray, begin: int, stop: int, transitions_by_next: np.ndarray, end: np.ndarray,
    best_from: np.ndarray,
) -> None:
    """Set ``best_from[t, i]`` to the best score of positions t..stop-1 given label i at t.

    The chain is rows ``begin:stop`` of ``unary``; ``transitions_by_next`` is the transposed
    transition matrix.
    """
    n_labels = unary.shape[1]
    last = stop - 1
    for i in range(n_labels):
        best_from[last, i] = unary[last, i] + end[i]
    whole_fours = n_labels - n_labels % 4
    for t in range(last - 1, begin - 1, -1):
        following = best_from[t + 1]
        best_next = best_from[t]
        for i in range(n_labels):
            best_next[i] = -np.inf
        # best_next[i] = max_j transitions[i, j] + following[j], four next labels j per sweep
        # over i: a quarter of the loads and stores of best_next, and a loop that vectorises.
        for j in range(0, whole_fours, 4):
            into_0, into_1 = transitions_by_next[j], transitions_by_next[j + 1]
            into_2, into_3 = transitions_by_next[j + 2], transitions_by_next[j + 3]
            after_0, after_1 = following[j], following[j + 1]
            after_2, after_3 = following[j + 2], following[j + 3]
            for i in range(n_labels):
                best_01 = max(into_0[i] + after_0, into_1[i] + after_1)
                best_23 = max(into_2[i] + after_2, into_3[i] + after_3)
                best_next[i] = max(best_next[i], max(best_01, best_23))
        for j in range(whole_fours, n_labels):
            into, after = transitions_by_next[j], following[j]
            for i in range(n_labels):
                best_next[i] = max(best_next[i], into[i] + after)
        for i in range(n_labels):
            best_next[i] += unary[t, i]


@numba.njit(cache=True, inline="always")
def decode_sequence(
    unary: np.ndarray, begin: int, stop: int, transitions: np.ndarray,
    transitions_by_next: np.ndarray, start: np.ndarray, end: np.ndarray, best_from: np.ndarray,
    labels: np.ndarray,
) -> None:
    """Decode rows ``begin:stop`` of ``unary`` into ``labels[begin:stop]`` (workspace rows too)."""
    suffix_scores(unary, begin, stop, transitions_by_next, end, best_from)
    labels[begin] = best_label(start, best_from[begin])
    for t in range(begin + 1, stop):
        labels[t] = best_label(transitions[labels[t - 1]], best_from[t])


@numba.njit(cache=True, inline="always")
def best_label(into: np.ndarray, following: np.ndarray) -> int:
    """Return the smallest label c maximising ``into[c] + following[c]``."""
    label = 0
    best = -np.inf
    for c in range(into.shape[0]):
        value = into[c] + following[c]
        if value > best:
            best = value
            label = c
    return label


def batch_viterbi(
    unary: np.ndarray, offsets: np.ndarray, transitions: np.ndarray, start: np.ndarray,
    end: np.ndarray,
) -> np.ndarray:
    """Return the best labelling of every chain in a batch, concatenated (int64, shape (N,)).

    Runs of sequences are decoded by :func:`viterbi_run`, on Numba's number of threads for a
    batch that :func:`tasks._threads.use_threads` shares; each sequence is decoded alone, so
    the labels are the same whatever the runs.

    Parameters
    ----------
    unary : ndarray of shape (N, L)
        Label scores at each position of all sequences, one sequence after another.
    offsets : ndarray of shape (n_sequences + 1,), int64
        Sequence k is rows ``offsets[k]:offsets[k + 1]``, none empty.
    transitions : ndarray of shape (L, L)
        ``transitions[a, b]`` scores label a followed by label b.
    start, end : ndarray of shape (L,)
        Scores of the first and of the last label of a sequence.
    """
    transitions_by_next = np.ascontiguousarray(transitions.T)
    best_from = np.empty(unary.shape)
    labels = np.empty(unary.shape[0], dtype=np.int64)

    def run(first: int, stop: int) -> None:
        viterbi_run(
            unary, offsets, transitions, transitions_by_next, start, end, first, stop,
            best_from, labels,
        )

    run_sequences(run, len(offsets) - 1)
    return labels


@numba.njit(cache=True, nogil=True)
def viterbi_run(
    unary: np.ndarray, offsets: np.ndarray, transitions: np.ndarray,
    transitions_by_next: np.ndarray, start: np.ndarray, end: np.ndarray, first: int, stop: int,
    best_from: np.ndarray, labels: np.ndarray,
) -> None:
    """Decode sequences ``first:stop`` of :func:`batch_viterbi` into their ``labels``, with
    their rows of the workspace ``best_from`` (N, L). Releases the GIL."""
    for k in range(first, stop):
        decode_sequence(
            unary, offsets[k], offsets[k + 1], transitions, transitions_by_next, start, end,
            best_from, labels,
        )


@numba.njit(cache=True, inline="always")
def add_hamming_loss(unary: np.ndarray, y_true: np.ndarray, label_weights: np.ndarray) -> None:
    """Add ``label_weights[y_true[t]]`` to every label but ``y_true[t]`` at each t, in place."""
    n_positions, n_labels = unary.shape
    for t in range(n_positions):
        truth = y_true[t]
        cost = label_weights[truth]
        for y in range(n_labels):
            if y != truth:
                unary[t, y] += cost


@numba.njit(cache=True, inline="always")
def hamming_loss(y_true: np.ndarray, y: np.ndarray, label_weights: np.ndarray) -> float:
    """Return the weighted Hamming loss ``Σ_t [y_t != y_true[t]] label_weights[y_true[t]]``."""
    loss = 0.0
    for t in range(len(y_true)):
        if y[t] != y_true[t]:
            loss += label_weights[y_true[t]]
    return loss
