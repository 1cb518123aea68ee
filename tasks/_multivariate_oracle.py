"""The compiled oracles of the multivariate task (:class:`tasks.MultivariateTask`).

The paper's loss-augmented searches (Joachims 2005): Algorithm 2 over contingency tables
(:func:`best_table`) and the sort-and-count of the ROC area (:func:`pair_ordering`), which the
task's Python oracles call, and the task's compiled oracle built on them
(:meth:`tasks.MultivariateTask.compiled_oracle`). The rows of every data set are stacked, a
ROC-area example's positives before its negatives, and its part scores are its rows' scores
``x_j · w``, one row each. A labelling's labels are its ±1 entries; a pair ordering's are its
(P, N) matrix's entries row by row, and :class:`PairOrderingOutputs` gives the matrix back.

**Data** (:meth:`tasks.MultivariateTask.compiled_oracle`), a flat tuple: the stacked rows and
where each data set's rows start (n + 1), then for the contingency-table losses the true ±1
labels of the rows, the loss's code in :data:`TABLE_LOSSES` and k (0 if unused), for the ROC
area the number of positives of every data set.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    for i in range(len(values)):
        sums[i + 1] = sums[i] + values[i]
    return sums


@numba.njit(cache=True)
def best_table(
    positive_scores: np.ndarray, negative_scores: np.ndarray, code: int, k: int
) -> tuple[int, int]:
    """Return the counts (a, b) of the table maximising Δ + w·φ (Joachims 2005, Algorithm 2).

    The scores of each class come sorted in decreasing order. A table with ``a`` true and ``b``
    false positives scores highest when the ``a`` best positives and the ``b`` best negatives
    are labelled +1, so one pass over all (a, b) with prefix sums of the sorted scores finds
    the maximum in O(n²). Ties go to the first table in the order of increasing a, then b.

    Tables that cannot beat the best so far are skipped, which leaves the answer exactly the
    full pass's: a table's value is at most its value with Δ = 1 (every measure's loss is in
    [0, 1], and rounded sums are monotone), which rises and falls with the negatives' prefix
    sum (these rise while the sorted scores are positive, then fall), so for every a the
    tables left to try have b in an interval around that sum's peak.
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
    positive_scores: np.ndarray, negative_scores: np.ndarray, margin: float
) -> np.ndarray:
    """Return the (P, N) ordering with −1 where a negative scores above a positive − margin.

    Sorting both classes once and walking down them together counts, for every positive, the
    negatives that beat it (the sort-and-count of Joachims 2005, Section 4.2, in O(n log n));
    the ordering matrix is then written out, which takes one step per pair.
    """
    n_pos, n_neg = len(positive_scores), len(negative_scores)
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
    begin = offsets[i]
    n = offsets[i + 1] - begin
    s = scores[:, 0]
    labels = np.full(n, -1, dtype=np.int64)
    if not augmented:
        for j in range(n):
            if s[j] > 0:
                labels[j] = 1
        return labels
    positive_rows = np.flatnonzero(truth[begin : begin + n] > 0)
    negative_rows = np.flatnonzero(truth[begin : begin + n] <= 0)
    positive_rows = positive_rows[np.argsort(-s[positive_rows], kind="mergesort")]
    negative_rows = negative_rows[np.argsort(-s[negative_rows], kind="mergesort")]
    a, b = best_table(s[positive_rows], s[negative_rows], code, k)
    labels[positive_rows[:a]] = 1
    labels[negative_rows[:b]] = 1
    return labels


@numba.njit(cache=True)
def labelling_features(data, i, labels):
    """Return φ = Σ_j y_j x_j over all ``n_features`` columns."""
    rows, offsets = data[0], data[1]
    begin = offsets[i]
    phi = np.zeros(rows.shape[1])
    for j in range(len(labels)):
        for f in range(rows.shape[1]):
            phi[f] += labels[j] * rows[begin + j, f]
    return np.arange(rows.shape[1], dtype=np.int64), phi


@numba.njit(cache=True)
def labelling_loss(data, i, labels):
    """Return 1 − the measure of the labelling's contingency table."""
    offsets, truth, code, k = data[1], data[2], data[3], data[4]
    begin = offsets[i]
    a = b = c = 0
    for j in range(len(labels)):
        if truth[begin + j] > 0:
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
    n_positives = data[2][i]
    n_pairs = n_positives * (len(scores) - n_positives)
    margin = 0.5 / max(n_pairs, 1) if augmented else 0.0
    s = scores[:, 0]
    ordering = pair_ordering(s[:n_positives].copy(), s[n_positives:].copy(), margin)
    return ordering.ravel().astype(np.int64)


@numba.njit(cache=True)
def ordering_features(data, i, labels):
    """Return φ = Σ_ij y_ij (x⁺_i − x⁻_j) from the ordering's row and column sums."""
    rows, offsets, n_positives = data[0], data[1], data[2][i]
    begin = offsets[i]
    n_negatives = offsets[i + 1] - begin - n_positives
    weights = np.zeros(n_positives + n_negatives)
    for p in range(n_positives):
        for q in range(n_negatives):
            sign = labels[p * n_negatives + q]
            weights[p] += sign
            weights[n_positives + q] -= sign
    phi = np.zeros(rows.shape[1])
    for j in range(len(weights)):
        for f in range(rows.shape[1]):
            phi[f] += weights[j] * rows[begin + j, f]
    return np.arange(rows.shape[1], dtype=np.int64), phi


@numba.njit(cache=True)
def ordering_loss(data, i, labels):
    """Return the fraction of swapped pairs, 1 − ROC area."""
    if len(labels) == 0:
        return 0.0
    swapped = 0
    for sign in labels:
        if sign != 1:
            swapped += 1
    return swapped / len(labels)


class PairOrderingOutputs:
    """Turns a pair ordering's labels back into its (P, N) matrix, found by its length.

    ``to_output`` sees the labels alone; the shapes of the data sets tell the matrix's shape
    from its number of entries, unless two data sets of as many pairs differ in shape.
    """

    def __init__(self, shapes: Sequence[tuple[int, int]]) -> None:
        self.shapes: dict[int, tuple[int, int] | None] = {}
        for shape in shapes:
            size = shape[0] * shape[1]
            self.shapes[size] = shape if self.shapes.get(size, shape) == shape else None

    def __call__(self, labels: np.ndarray) -> np.ndarray:
        shape = self.shapes[len(labels)]
        if shape is None:
            raise ValueError(
                f"a pair ordering of {len(labels)} pairs has no single shape among the data sets"
            )
        return labels.reshape(shape).astype(np.int8)
