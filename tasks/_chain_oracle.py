"""The compiled oracle of the linear-chain task (:meth:`tasks.ChainTask.compiled_oracle`).

Part scores are an example's unary scores (bias added); decoding is the task's own Viterbi on
the weights its Python oracles read (:func:`first_order_weights`, or :func:`chain_weights`
where constraints forbid), so the same labellings and ties; φ is
:func:`tasks._chain_features.sequence_features`; the loss the weighted Hamming loss.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from structsvm._compiled_oracle import ScoreTable
from tasks._chain_features import (
    add_position_scores,
    entries_bound,
    sequence_features,
    sparse_unary_scores,
)
from tasks._threads import row_blocks_product
from tasks._viterbi import add_hamming_loss, decode_sequence, hamming_loss
from tasks._viterbi_second_order import decode_second_order, second_order_scores


class ChainData(NamedTuple):
    """A chain task's training set and layout, as its compiled oracle reads them.

    Attributes
    ----------
    indptr, indices, values : the N positions of all sequences stacked, in CSR form
    offsets : ndarray (n + 1,), int64
        Sequence i is positions ``offsets[i]:offsets[i + 1]``.
    labels : ndarray (N,), int64
        The true labels, concatenated.
    label_weights : ndarray (L,)
    n_labels, n_features : int
    transitions_at, triples_at, start_at, end_at, bias_at : int
        Where each block of w begins (:class:`tasks.ChainTask`).
    use_transitions, use_triples, use_start_end, use_bias : bool
        Which blocks are on (triples: ``order=2``).
    constrained : bool
    forbidden_transitions : ndarray (L, L), bool
    forbidden_first, forbidden_last : ndarray (L,), bool
    dense : ndarray (N, n_features)
        The positions as one dense array for a BLAS product in :func:`batch_scores`; (0, 0)
        when they are scored from their stored entries.
    """

    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    offsets: np.ndarray
    labels: np.ndarray
    label_weights: np.ndarray
    n_labels: int
    n_features: int
    transitions_at: int
    triples_at: int
    start_at: int
    end_at: int
    bias_at: int
    use_transitions: bool
    use_triples: bool
    use_start_end: bool
    use_bias: bool
    constrained: bool
    forbidden_transitions: np.ndarray
    forbidden_first: np.ndarray
    forbidden_last: np.ndarray
    dense: np.ndarray


@numba.njit(cache=True)
def chain_scores(data, i, w):
    """Return the unary scores (T_i, L) of sequence i: ``x_t · E[l] + b[l]``."""
    first, stop = data.offsets[i], data.offsets[i + 1]
    emissions = w[: data.transitions_at].reshape((data.n_labels, data.n_features))
    scores = np.zeros((stop - first, data.n_labels))
    for t in range(stop - first):
        add_position_scores(data.indptr, data.indices, data.values, emissions, first + t, scores[t])
    if data.use_bias:
        bias = w[data.bias_at : data.bias_at + data.n_labels]
        for t in range(scores.shape[0]):
            for label in range(data.n_labels):
                scores[t, label] += bias[label]
    return scores


@numba.njit(cache=True, inline="always")
def _fill_chain_weights(data, w, transitions, start, end):
    """Write the transition (any layout), start and end weights that Viterbi reads.

    Blocks that are off are zeros; what the constraints forbid is ``-inf``.
    """
    n_labels = data.n_labels
    # Element by element: an array assigned to a slice would compile the shape-mismatch error.
    for a in range(n_labels):
        start[a] = w[data.start_at + a] if data.use_start_end else 0.0
        end[a] = w[data.end_at + a] if data.use_start_end else 0.0
    if data.use_transitions:
        for b in range(n_labels):
            for a in range(n_labels):
                transitions[a, b] = w[data.transitions_at + a * n_labels + b]
    else:
        transitions[:] = 0.0
    if data.constrained:
        for a in range(n_labels):
            if data.forbidden_first[a]:
                start[a] = -np.inf
            if data.forbidden_last[a]:
                end[a] = -np.inf
            for b in range(n_labels):
                if data.forbidden_transitions[a, b]:
                    transitions[a, b] = -np.inf


@numba.njit(cache=True, inline="always")
def first_order_weights(data, w, zeros):
    """Return the transitions (by previous label), start and end weights that Viterbi reads,
    without constraints: views of ``w`` for the blocks that are on, of the zero rows ``0:n``,
    ``n`` and ``n + 1`` of ``zeros`` for those that are off. Inlined into the decoder (a call
    would pass every field of ``data``, once per example); :class:`tasks.ChainTask` runs its
    Python function as it is, with NumPy.
    """
    n = data.n_labels
    transitions, start, end = zeros[:n], zeros[n], zeros[n + 1]
    if data.use_transitions:
        transitions = w[data.transitions_at : data.transitions_at + n * n].reshape((n, n))
    if data.use_start_end:
        start, end = w[data.start_at : data.end_at], w[data.end_at : data.bias_at]
    return transitions, start, end


@numba.njit(cache=True)
def chain_weights(data, w):
    """Return copies of the pair, start and end scores that a first-order decoder reads.

    ``-inf`` where the constraints forbid (:func:`_fill_chain_weights`).
    """
    n = data.n_labels
    work = np.empty((n + 2, n))
    transitions, start, end = work[:n], work[n], work[n + 1]
    _fill_chain_weights(data, w, transitions, start, end)
    return transitions, start, end


@numba.njit(cache=True)
def decoding_weights(data, w):
    """Return copies of the pair, triple, start and end scores that a second-order decoder reads.

    Those of :func:`chain_weights`, and the triple scores, which include the pair scores
    (:func:`tasks._viterbi_second_order.second_order_scores`): a function of its own, so that a
    first-order chain never compiles them.
    """
    transitions, start, end = chain_weights(data, w)
    n = data.n_labels
    weights = w[data.triples_at : data.start_at].reshape((n, n, n))
    return transitions, second_order_scores(transitions, weights), start, end


@numba.njit(cache=True, inline="always")
def _decoded_labels(data, i, scores, augmented):
    """Add the Hamming loss to sequence i's ``scores`` if ``augmented``; return its labels' room."""
    first, stop = data.offsets[i], data.offsets[i + 1]
    if augmented:
        add_hamming_loss(scores, data.labels[first:stop], data.label_weights)
    return np.empty(stop - first, dtype=np.int64)


@numba.njit(cache=True, inline="always")
def _decode_first_order(scores, transitions, start, end, work, labels):
    """Decode ``scores`` into ``labels`` by Viterbi; rows ``0:n`` and ``2n + 2:`` of ``work``
    take the transitions by next label and the programme."""
    n = transitions.shape[0]
    by_next = work[:n]
    for b in range(n):
        for a in range(n):
            by_next[b, a] = transitions[a, b]
    decode_sequence(
        scores, 0, len(labels), transitions, by_next, start, end, work[2 * n + 2 :], labels
    )


@numba.njit(cache=True)
def chain_decode(data, i, w, scores, augmented):
    """Return the best labelling of sequence i (plus its Hamming loss if ``augmented``).

    First order, without constraints; ``scores`` are its unary scores, which the loss is added
    to in place. The weights are read from ``w`` in place (:func:`first_order_weights`).
    """
    labels = _decoded_labels(data, i, scores, augmented)
    n = data.n_labels
    work = np.zeros((2 * n + 2 + len(labels), n))
    transitions, start, end = first_order_weights(data, w, work[n:])
    _decode_first_order(scores, transitions, start, end, work, labels)
    return labels


@numba.njit(cache=True)
def chain_decode_constrained(data, i, w, scores, augmented):
    """Return :func:`chain_decode`'s labelling for a first-order chain with constraints.

    The weights are copied, ``-inf`` where the constraints forbid (:func:`_fill_chain_weights`):
    a decoder of its own, so that a chain without constraints never compiles the copy.
    """
    labels = _decoded_labels(data, i, scores, augmented)
    n = data.n_labels
    work = np.empty((2 * n + 2 + len(labels), n))
    transitions, start, end = work[n : 2 * n], work[2 * n], work[2 * n + 1]
    _fill_chain_weights(data, w, transitions, start, end)
    _decode_first_order(scores, transitions, start, end, work, labels)
    return labels


@numba.njit(cache=True)
def chain_decode_second_order(data, i, w, scores, augmented):
    """Return :func:`chain_decode`'s labelling for a second-order chain (label triples scored).

    A decoder of its own, so that a first-order chain never compiles the second-order one.
    """
    labels = _decoded_labels(data, i, scores, augmented)
    length, n = len(labels), data.n_labels
    transitions, triples, start, end = decoding_weights(data, w)
    decode_second_order(
        scores, 0, length, transitions, triples, start, end, np.empty((length, n, n)), labels
    )
    return labels


@numba.njit(cache=True)
def chain_features(data, i, labels):
    """Return φ(x_i, y) as :meth:`tasks.ChainTask.sparse_joint_feature` gives it."""
    first, stop = data.offsets[i], data.offsets[i + 1]
    bound = entries_bound(data, first, stop)
    indices, values = np.empty(bound, dtype=np.int64), np.empty(bound)
    size = sequence_features(data, first, stop, labels, indices, values)
    return indices[:size], values[:size]


@numba.njit(cache=True)
def chain_labelling_score(data, i, w, scores, labels):
    """Return ``w · φ(x_i, y)`` from sequence i's unary scores (bias included) and ``w``.

    The unary scores of the labels, then the transitions, triples, start and end weights of
    the labelling, read from ``w`` as they are (the constraints play no part in ``w · φ``).
    """
    n, length = data.n_labels, len(labels)
    score = 0.0
    for t in range(length):
        score += scores[t, labels[t]]
    if data.use_transitions:
        for t in range(length - 1):
            score += w[data.transitions_at + labels[t] * n + labels[t + 1]]
    if data.use_triples:
        for t in range(length - 2):
            score += w[data.triples_at + (labels[t] * n + labels[t + 1]) * n + labels[t + 2]]
    if data.use_start_end:
        score += w[data.start_at + labels[0]] + w[data.end_at + labels[length - 1]]
    return score


@numba.njit(cache=True)
def chain_add_features(data, i, labels, scale, out):
    """Add ``scale · φ(x_i, y)`` into ``out`` position by position; return True."""
    first, n, d = data.offsets[i], data.n_labels, data.n_features
    length = len(labels)
    for t in range(length):
        label = labels[t]
        at = label * d
        for p in range(data.indptr[first + t], data.indptr[first + t + 1]):
            out[at + data.indices[p]] += scale * data.values[p]
        if data.use_bias:
            out[data.bias_at + label] += scale
        if data.use_transitions and t + 1 < length:
            out[data.transitions_at + label * n + labels[t + 1]] += scale
        if data.use_triples and t + 2 < length:
            out[data.triples_at + (label * n + labels[t + 1]) * n + labels[t + 2]] += scale
    if data.use_start_end:
        out[data.start_at + labels[0]] += scale
        out[data.end_at + labels[length - 1]] += scale
    return True


@numba.njit(cache=True)
def chain_loss(data, i, labels):
    """Return the weighted Hamming loss of ``labels`` against sequence i's true labels."""
    first, stop = data.offsets[i], data.offsets[i + 1]
    return hamming_loss(data.labels[first:stop], labels, data.label_weights)


#: Dense positions storing more than this share of non-zero entries are scored by a BLAS product
#: (:func:`batch_scores`), sparser ones from their stored entries (a product of every entry
#: costs about three stored entries' loop on a machine's vector units).
DENSE_FROM = 1 / 3


def batch_scores(data: ChainData, w: np.ndarray) -> ScoreTable:
    """Score every position at once, bias added, by a blocked BLAS product of the dense
    positions or else from the stored entries (the sums of :func:`chain_scores`, the same bits),
    on Numba's threads."""
    emissions = w[: data.transitions_at].reshape(data.n_labels, data.n_features)
    if data.dense.size:
        scores = row_blocks_product(data.dense, emissions.T)
    else:
        # Column-major emissions keep the labels of one feature together for the loop.
        scores = sparse_unary_scores(
            data.indptr, data.indices, data.values, np.asfortranarray(emissions)
        )
    if data.use_bias:
        scores += w[data.bias_at : data.bias_at + data.n_labels]
    return ScoreTable(scores, data.offsets)
