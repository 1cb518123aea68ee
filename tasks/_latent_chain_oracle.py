"""The compiled oracle of the latent chain task over completed outputs (y, h).

It serves the convex problem of a latent SVM round (:meth:`tasks.LatentChainTask.compiled_oracle`):
part scores are the unary scores of the sub-states, decoding is Viterbi over the sub-states
(:func:`tasks._viterbi.decode_sequence`, no start or end scores), the labels' Hamming loss added
if augmented; a pair's labels are ``y`` followed by ``h``. Data: the stacked inputs, where each
sequence starts, the true labels, ``n_substates`` and ``n_states``."""

from __future__ import annotations

import numba
import numpy as np

from structsvm._compiled_oracle import ScoreTable
from tasks._threads import row_blocks_product
from tasks._viterbi import decode_sequence


@numba.njit(cache=True)
def add_off_label(unary: np.ndarray, labels: np.ndarray, n_substates: int, amount: float) -> None:
    """Add ``amount`` to every sub-state whose label is not ``labels[t]``, in place.

    1 adds the labels' Hamming loss; ``-inf`` rules the other labels out.
    """
    n_positions, n_states = unary.shape
    for t in range(n_positions):
        for state in range(n_states):
            if state // n_substates != labels[t]:
                unary[t, state] += amount


@numba.njit(cache=True)
def substate_scores(data, i, w):
    """Return the (T, n_states) unary scores of sequence i."""
    inputs, offsets, n_states = data[0], data[1], data[4]
    begin, stop = offsets[i], offsets[i + 1]
    n_features = inputs.shape[1]
    scores = np.zeros((stop - begin, n_states))
    for t in range(begin, stop):
        for state in range(n_states):
            score = 0.0
            for f in range(n_features):
                score += inputs[t, f] * w[state * n_features + f]
            scores[t - begin, state] = score
    return scores


@numba.njit(cache=True)
def pair_decode(data, i, w, scores, augmented):
    """Return ``[y, h]`` of the best sub-state sequence (plus the labels' Hamming loss).

    Ties go to the lexicographically smallest sequence of sub-states.
    """
    inputs, offsets, truth, n_substates, n_states = data[0], data[1], data[2], data[3], data[4]
    begin = offsets[i]
    n_positions = offsets[i + 1] - begin
    if augmented:
        add_off_label(scores, truth[begin : begin + n_positions], n_substates, 1.0)
    n_unary = n_states * inputs.shape[1]
    transitions = w[n_unary:].copy().reshape(n_states, n_states)
    zeros = np.zeros(n_states)
    states = np.empty(n_positions, dtype=np.int64)
    decode_sequence(
        scores, 0, n_positions, transitions, np.ascontiguousarray(transitions.T), zeros, zeros,
        np.empty((n_positions, n_states)), states,
    )
    labels = np.empty(2 * n_positions, dtype=np.int64)
    for t in range(n_positions):
        labels[t] = states[t] // n_substates
        labels[n_positions + t] = states[t] % n_substates
    return labels


@numba.njit(cache=True)
def pair_features(data, i, labels):
    """Return the inputs summed by sub-state, then the sub-state transition counts.

    Every column of a sub-state that occurs is listed (zeros kept), then every transition
    that occurs with its count.
    """
    inputs, offsets, n_substates, n_states = data[0], data[1], data[3], data[4]
    begin = offsets[i]
    n_positions = offsets[i + 1] - begin
    n_features = inputs.shape[1]
    states = labels[:n_positions] * n_substates + labels[n_positions:]
    sums = np.zeros((n_states, n_features))
    occurs = np.zeros(n_states, dtype=np.bool_)
    for t in range(n_positions):
        occurs[states[t]] = True
        for f in range(n_features):
            sums[states[t], f] += inputs[begin + t, f]
    transitions = np.zeros(n_states * n_states)
    for t in range(n_positions - 1):
        transitions[states[t] * n_states + states[t + 1]] += 1.0
    used, moves = np.flatnonzero(occurs), np.flatnonzero(transitions)
    columns = (used.reshape((-1, 1)) * n_features + np.arange(n_features)).ravel()
    indices = np.concatenate((columns, n_states * n_features + moves))
    return indices, np.concatenate((sums[used].ravel(), transitions[moves]))


@numba.njit(cache=True)
def pair_loss(data, i, labels):
    """Return the number of positions whose labels differ from the truth's."""
    offsets, truth = data[1], data[2]
    begin, stop = offsets[i], offsets[i + 1]
    return float(np.sum(labels[: stop - begin] != truth[begin:stop]))


def batch_substate_scores(data: tuple, w: np.ndarray) -> ScoreTable:
    """Score every position of every sequence at once, a blocked BLAS product."""
    inputs, offsets, n_states = data[0], data[1], data[4]
    weights = w[: n_states * inputs.shape[1]].reshape(n_states, inputs.shape[1])
    return ScoreTable(row_blocks_product(inputs, weights.T), offsets)


def pair_output(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the pair (labels, sub-states) of its labels, the two halves."""
    n_positions = len(labels) // 2
    return labels[:n_positions].copy(), labels[n_positions:].copy()
