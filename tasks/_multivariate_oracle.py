"""The multivariate task's oracles in Numba, which its Python oracles call too.

The loss-augmented searches of Joachims (2005): Algorithm 2 over contingency tables
(:func:`best_table`) and the sort-and-count of the ROC area (:func:`pair_ordering`). The
compiled oracle's data is a flat tuple: the stacked rows (a ROC-area example's positives
first), where each data set's rows start, then the true ±1 labels, the loss's code in
:data:`TABLE_LOSSES` and k (0 if unused), or for the ROC area each data set's positives.
"""

from __future__ import annotations

import numba
import numpy as np

from structsvm._compiled_oracle import ScoreTable
from tasks._threads import row_blocks_product

TABLE_LOSSES = ("f1", "precision@k", "recall@k", "prbep")
"""The losses computed from a contingency table, in the order of their codes."""


@numba.njit(cache=True)
def table_loss(code: int, k: int, a: int, b: int, c: int, d: int) -> float:
    """Return 1 − measure of a contingency table, or 0 where the measure is not defined.

    ``a`` true positives, ``b`` false positives, ``c`` false negatives, ``d`` true negatives;
    ``code`` indexes :data:`TABLE_LOSSES`. Precision@k and recall@k are defined for labellings
    with ``a + b == k`` predicted positives, the PRBEP for ``a + b == a + c`` (precision equals
    recall there); without positives to find, recall counts as 1.
    """
    positives = a + c
    if code == 0:
        denominator = 2 * a + b + c
        return 0.0 if denominator == 0 else 1.0 - 2.0 * a / denominator
    if code == 1:
        return 1.0 - a / k if a + b == k else 0.0
    target = k if code == 2 else positives
    if a + b != target or positives == 0:
        return 0.0
    return 1.0 - a / positives


@numba.njit(cache=True)
def _prefix_sums(values: np.ndarray) -> np.ndarray:
    sums = np.zeros(len(values) + 1)
    sums[1:] = np.cumsum(values)
    return sums


@numba.njit(cache=True)
def best_table(
    positive_scores: np.ndarray, negative_scores: np.ndarray, code: int, k: int
) -> tuple[int, int]:
    """Return the counts (a, b) of the table maximising Δ + w·φ (Joachims 2005, Algorithm 2).

    The scores of each class come sorted in decreasing order; the table with ``a`` true and
    ``b`` false positives labels the best ``a`` positives and ``b`` negatives +1. Ties go to
    the first table by increasing a, then b. For every a, only the b around the peak of the
    negatives' prefix sums whose bound (Δ = 1) beats the best so far are tried.
    """
    n_pos, n_neg = len(positive_scores), len(negative_scores)
    pos_sums, neg_sums = _prefix_sums(positive_scores), _prefix_sums(negative_scores)
    peak = 0
    for b in range(1, n_neg + 1):
        if neg_sums[b] > neg_sums[peak]:
            peak = b
    best, best_a, best_b = -np.inf, 0, 0
    for a in range(n_pos + 1):
        positive_part = 2.0 * pos_sums[a] - pos_sums[n_pos]
        ceiling = 1.0 + positive_part
        first, last = peak + 1, peak
        while first > 0 and ceiling + 2.0 * neg_sums[first - 1] - neg_sums[n_neg] > best:
            first -= 1
        while last < n_neg and ceiling + 2.0 * neg_sums[last + 1] - neg_sums[n_neg] > best:
            last += 1
        for b in range(first, last + 1):
            value = (
                table_loss(code, k, a, b, n_pos - a, n_neg - b)
                + positive_part
                + 2.0 * neg_sums[b]
                - neg_sums[n_neg]
            )
            if value > best:
                best, best_a, best_b = value, a, b
    return best_a, best_b


@numba.njit(cache=True)
def pair_ordering(
    positive_scores: np.ndarray, negative_scores: np.ndarray, augmented: bool
) -> np.ndarray:
    """Return the (P, N) ordering with −1 where a negative scores above a positive − margin.

    The margin is 0, or if ``augmented`` ``1 / (2PN)`` (a swap gains 1/(PN) of loss and costs
    ``2 (s⁺_i − s⁻_j)``). One sort of each class and a joint walk down them count the
    negatives that beat every positive (Joachims 2005, Section 4.2).
    """
    n_pos, n_neg = len(positive_scores), len(negative_scores)
    margin = 0.5 / max(n_pos * n_neg, 1) if augmented else 0.0
    negative_order = np.argsort(-negative_scores, kind="mergesort")
    ordering = np.ones((n_pos, n_neg), dtype=np.int8)
    above = 0
    for i in np.argsort(-positive_scores, kind="mergesort"):
        threshold = positive_scores[i] - margin
        while above < n_neg and negative_scores[negative_order[above]] > threshold:
            above += 1
        for r in range(above):
            ordering[i, negative_order[r]] = -1
    return ordering


@numba.njit(cache=True)
def row_scores(data, i, w):
    """Return the (n, 1) scores ``x_j · w`` of data set i's rows (positives first for ROC)."""
    rows, offsets = data[0], data[1]
    begin, stop = offsets[i], offsets[i + 1]
    scores = np.zeros((stop - begin, 1))
    for j in range(begin, stop):
        score = 0.0
        for f in range(rows.shape[1]):
            score += rows[j, f] * w[f]
        scores[j - begin, 0] = score
    return scores


def batch_row_scores(data: tuple, w: np.ndarray) -> ScoreTable:
    """Score every row of every data set at once, a blocked BLAS product."""
    return ScoreTable(row_blocks_product(data[0], w.reshape(-1, 1)), data[1])


@numba.njit(cache=True)
def labelling_decode(data, i, w, scores, augmented):
    """Return the labelling of Algorithm 2 if ``augmented``, else the signs of the scores.

    The rows of each class are sorted by decreasing score (ties: the earlier row first), as
    :meth:`~tasks.MultivariateTask.loss_augmented_argmax` sorts them.
    """
    offsets, truth, code, k = data[1], data[2], data[3], data[4]
    s = scores[:, 0]
    if augmented:
        return best_labelling(s, truth[offsets[i] : offsets[i + 1]], code, k)
    labels = np.full(len(s), -1, dtype=np.int64)
    for j in range(len(s)):
        if s[j] > 0:
            labels[j] = 1
    return labels


@numba.njit(cache=True)
def best_labelling(scores, truth, code, k):
    """Return the ±1 labelling of the table that :func:`best_table` finds for these scores.

    Each class's best-scoring rows are labelled +1 (ties in scores: the earlier row first).
    """
    positive_rows = np.flatnonzero(truth > 0)
    negative_rows = np.flatnonzero(truth <= 0)
    positive_rows = positive_rows[np.argsort(-scores[positive_rows], kind="mergesort")]
    negative_rows = negative_rows[np.argsort(-scores[negative_rows], kind="mergesort")]
    a, b = best_table(scores[positive_rows], scores[negative_rows], code, k)
    labels = np.full(len(scores), -1, dtype=np.int64)
    labels[positive_rows[:a]] = 1
    labels[negative_rows[:b]] = 1
    return labels


@numba.njit(cache=True)
def labelling_features(data, i, labels):
    """Return φ = Σ_j y_j x_j over all ``n_features`` columns."""
    return _weighted_rows(data[0], data[1][i], labels)


@numba.njit(cache=True)
def _weighted_rows(rows, begin, weights):
    """Return ``Σ_j weights[j] rows[begin + j]`` as φ over all the columns (zeros kept)."""
    phi = np.zeros(rows.shape[1])
    for j in range(len(weights)):
        for f in range(rows.shape[1]):
            phi[f] += weights[j] * rows[begin + j, f]
    return np.arange(rows.shape[1], dtype=np.int64), phi


@numba.njit(cache=True)
def labelling_loss(data, i, labels):
    """Return 1 − the measure of the labelling's contingency table."""
    offsets, truth, code, k = data[1], data[2], data[3], data[4]
    return contingency_loss(truth[offsets[i] : offsets[i + 1]], labels, code, k)


@numba.njit(cache=True)
def contingency_loss(truth, labels, code, k):
    """Return 1 − the measure of the table of ``labels`` against ``truth`` (positive: > 0)."""
    a = b = c = 0
    for j in range(len(labels)):
        if truth[j] > 0:
            if labels[j] > 0:
                a += 1
            else:
                c += 1
        elif labels[j] > 0:
            b += 1
    return table_loss(code, k, a, b, c, len(labels) - a - b - c)


def labelling_output(labels: np.ndarray) -> np.ndarray:
    """Return the labelling of its labels, an int8 array of ±1."""
    return labels.astype(np.int8)


@numba.njit(cache=True)
def ordering_decode(data, i, w, scores, augmented):
    """Return the entries of the pair ordering by score (with the oracle's margin if augmented)."""
    n_positives, s = data[2][i], scores[:, 0]
    ordering = pair_ordering(s[:n_positives].copy(), s[n_positives:].copy(), augmented)
    return ordering_labels(ordering.astype(np.int64))


@numba.njit(cache=True)
def ordering_labels(ordering):
    """Return the labels of a (P, N) int64 pair ordering: P, N, then its entries row by row."""
    labels = np.empty(2 + ordering.size, dtype=np.int64)
    labels[0], labels[1] = ordering.shape
    labels[2:] = ordering.ravel()
    return labels


def ordering_output(labels: np.ndarray) -> np.ndarray:
    """Return the (P, N) pair ordering of its labels, an int8 array of ±1."""
    return labels[2:].reshape(labels[0], labels[1]).astype(np.int8)


@numba.njit(cache=True)
def ordering_features(data, i, labels):
    """Return φ = Σ_ij y_ij (x⁺_i − x⁻_j) from the ordering's row and column sums."""
    rows, begin = data[0], data[1][i]
    n_positives, n_negatives = labels[0], labels[1]
    weights = np.zeros(n_positives + n_negatives)
    for p in range(n_positives):
        for q in range(n_negatives):
            sign = labels[2 + p * n_negatives + q]
            weights[p] += sign
            weights[n_positives + q] -= sign
    return _weighted_rows(rows, begin, weights)


@numba.njit(cache=True)
def ordering_loss(data, i, labels):
    """Return the fraction of swapped pairs, 1 − ROC area."""
    if len(labels) == 2:
        return 0.0
    return np.count_nonzero(labels[2:] != 1) / (len(labels) - 2)
