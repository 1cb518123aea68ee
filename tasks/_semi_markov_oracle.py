"""The compiled oracle of :class:`tasks.SemiMarkovTask`: semi-Markov Viterbi in O(T·L·K²).

A labelling of T tokens into segments of K labels is held as one code per token: ``k`` where a
segment of label k begins, ``K + k`` inside it (the BIO scheme). With d token features the
weights are, in order: first-token emissions (K×d), emissions of every token of the segment
(K×d), last-token emissions (K×d), one weight per label and segment length (K×L), transitions
between the labels of consecutive segments (K×K). The part scores of example i are a (T, 3K)
array: column k the first-token score of label k at each token, ``K + k`` the every-token
score, ``2K + k`` the last-token score.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np


class SegmentData(NamedTuple):
    """The training data as the compiled functions read them (CSR token rows, all examples)."""

    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    offsets: np.ndarray
    codes: np.ndarray
    n_labels: int
    n_features: int
    max_lengths: np.ndarray
    max_length: int
    segment_loss: bool


@numba.njit(cache=True)
def segment_scores(data, i, w):
    """Return example i's (T, 3K) part scores: first-token, every-token, last-token scores."""
    K, d = data.n_labels, data.n_features
    start, stop = data.offsets[i], data.offsets[i + 1]
    scores = np.zeros((stop - start, 3 * K))
    for t in range(stop - start):
        for entry in range(data.indptr[start + t], data.indptr[start + t + 1]):
            j, value = data.indices[entry], data.values[entry]
            for block in range(3):
                for k in range(K):
                    scores[t, block * K + k] += value * w[(block * K + k) * d + j]
    return scores


@numba.njit(cache=True)
def _true_segment_ends(codes, K):
    """Return, for every token, the end of the true segment that begins there (-1: none)."""
    T = len(codes)
    ends = np.full(T, -1, dtype=np.int64)
    end = T
    for t in range(T - 1, -1, -1):
        if codes[t] < K:
            ends[t] = end
            end = t
    return ends


@numba.njit(cache=True)
def segment_decode(data, i, w, scores, augmented):
    """Return the codes of the best segmentation (plus the loss if ``augmented``).

    ``V[e, k]`` is the best score of a segmentation of the first e tokens whose last segment
    has label k; a segment of label k and length at most ``max_lengths[k]`` ending at e is
    reached from ``entry[s, k]``, the best ``V[s, k'] + A[k', k]`` (0 at s = 0). Ties go to the
    first label, then the shortest segment.
    """
    K, d, L = data.n_labels, data.n_features, data.max_length
    T = scores.shape[0]
    at_length = 3 * K * d
    at_transition = at_length + K * L
    Y = data.codes[data.offsets[i] : data.offsets[i + 1]]
    true_ends = _true_segment_ends(Y, K)
    V = np.full((T + 1, K), -np.inf)
    length_of = np.zeros((T + 1, K), dtype=np.int64)
    previous_of = np.full((T + 1, K), -1, dtype=np.int64)
    entry = np.zeros((T, K))
    entry_from = np.full((T, K), -1, dtype=np.int64)
    for e in range(1, T + 1):
        s = e - 1
        if s > 0:
            for k in range(K):
                best, choice = -np.inf, -1
                for before in range(K):
                    value = V[s, before] + w[at_transition + before * K + k]
                    if value > best:
                        best, choice = value, before
                entry[s, k], entry_from[s, k] = best, choice
        for k in range(K):
            inside, inside_loss = 0.0, 0.0
            for length in range(1, min(data.max_lengths[k], e) + 1):
                s = e - length
                inside += scores[s, K + k]
                value = (
                    entry[s, k]
                    + scores[s, k]
                    + inside
                    + scores[e - 1, 2 * K + k]
                    + w[at_length + k * L + length - 1]
                )
                if augmented:
                    if data.segment_loss:
                        matches = Y[s] == k and true_ends[s] == e
                        value += -1.0 if matches else 1.0
                    else:
                        if length > 1 and Y[s + 1] != K + k:
                            inside_loss += 1.0
                        value += inside_loss + (1.0 if Y[s] != k else 0.0)
                if value > V[e, k]:
                    V[e, k], length_of[e, k], previous_of[e, k] = value, length, entry_from[s, k]
    codes = np.empty(T, dtype=np.int64)
    k = 0
    for label in range(1, K):
        if V[T, label] > V[T, k]:
            k = label
    e = T
    while e > 0:
        s = e - length_of[e, k]
        codes[s] = k
        codes[s + 1 : e] = K + k
        k, e = previous_of[e, k], s
    return codes


@numba.njit(cache=True)
def segment_features(data, i, labels):
    """Return φ(x_i, y) of the codes ``labels`` as sorted distinct indices and their values."""
    K, d, L = data.n_labels, data.n_features, data.max_length
    start = data.offsets[i]
    T = len(labels)
    row_start, row_stop = data.indptr[start], data.indptr[start + T]
    size = 3 * (row_stop - row_start) + 2 * T
    indices = np.empty(size, dtype=np.int64)
    values = np.empty(size)
    end = 0
    previous = -1
    s = 0
    while s < T:
        k = labels[s]
        e = s + 1
        while e < T and labels[e] >= K:
            e += 1
        for block, t in ((0, s), (2, e - 1)):
            for entry in range(data.indptr[start + t], data.indptr[start + t + 1]):
                indices[end] = (block * K + k) * d + data.indices[entry]
                values[end] = data.values[entry]
                end += 1
        for entry in range(data.indptr[start + s], data.indptr[start + e]):
            indices[end] = (K + k) * d + data.indices[entry]
            values[end] = data.values[entry]
            end += 1
        indices[end], values[end] = 3 * K * d + k * L + e - s - 1, 1.0
        end += 1
        if previous >= 0:
            indices[end], values[end] = 3 * K * d + K * L + previous * K + k, 1.0
            end += 1
        previous, s = k, e
    order = np.argsort(indices[:end], kind="mergesort")
    merged_indices = np.empty(end, dtype=np.int64)
    merged_values = np.zeros(end)
    n = -1
    for position in order:
        if n < 0 or merged_indices[n] != indices[position]:
            n += 1
            merged_indices[n] = indices[position]
        merged_values[n] += values[position]
    return merged_indices[: n + 1], merged_values[: n + 1]


@numba.njit(cache=True)
def segment_loss(data, i, labels):
    """Return Δ(y_i, y): wrong token codes, or segments in one labelling but not the other."""
    K = data.n_labels
    Y = data.codes[data.offsets[i] : data.offsets[i + 1]]
    T = len(Y)
    if not data.segment_loss:
        return float(np.sum(Y != labels))
    n_true, n_predicted, n_matched = 0, 0, 0
    true_ends = _true_segment_ends(Y, K)
    predicted_ends = _true_segment_ends(labels, K)
    for s in range(T):
        n_true += Y[s] < K
        if labels[s] < K:
            n_predicted += 1
            n_matched += Y[s] == labels[s] and true_ends[s] == predicted_ends[s]
    return float(n_true + n_predicted - 2 * n_matched)
