"""The compiled oracle of the ranking task (:meth:`tasks.RankingTask.compiled_oracle`).

The documents of every query are stacked as CSR rows (a dense query keeps all its entries);
a query's part scores are its documents' scores ``x w``, one row per document. Decoding counts
the swapped pairs of every document once, as :func:`~structsvm._utils.pair_counts.swap_counts`
does, and keeps what φ and Δ need in the labels, so that :func:`ranking_features` and
:func:`ranking_loss` never sort again.

**Labels.** A ranking's output is not an int array: its labels (length ``3m + 2`` for a
query of m documents) are ``[form, Δ, 2 c_1, …, 2 c_m, payload]``, where ``φ = ½ Σ_j 2 c_j x_j``
(every c_j a multiple of ½) and Δ is the number of swapped pairs of the query's preference
pairs. ``form`` 1 is the loss-augmented output ``[grades, scores]``, whose payload is the
float64 bits of its m × 2 entries (row by row); ``form`` 0 is the ranks output of ``argmax``,
whose payload is the m ranks followed by m zeros; ``form`` 2 is a query's true grades
(:func:`ranking_labels`), whose payload is the float64 bits of its m grades followed by m zeros.
:func:`ranking_output` rebuilds each.

**Data** (:meth:`tasks.RankingTask.compiled_oracle`), a flat tuple: the documents' CSR
``indptr``, ``columns`` and ``values``; ``documents``, where each query's documents start
(n + 1); per document its grade, the rank of its grade within its query and its ``balance``
(documents graded below it minus above it); per query its number of distinct grades;
``n_features``; the stacked dense documents (empty for sparse queries).
"""

from __future__ import annotations

import numba
import numpy as np

from structsvm._compiled_oracle import ScoreTable
from structsvm._utils.pair_counts import _sweep_counts, pairs_below_above
from tasks._multiclass_oracle import class_scores_into
from tasks._threads import row_blocks_product


@numba.njit(cache=True)
def ranking_scores(data, i, w):
    """Return the (m, 1) document scores ``x_j · w`` of query i."""
    begin, scores = data[3][i], np.empty((data[3][i + 1] - data[3][i], 1))
    return class_scores_into(data[0], data[1], data[2], begin, w, data[8], scores)


@numba.njit(cache=True)
def _swapped(grade_rank, n_grades, upper, lower, as_upper):
    """Return per document its swapped pairs as the better-graded member if ``as_upper``,
    else as the worse-graded one (as :func:`~structsvm._utils.pair_counts.swap_counts`)."""
    m = len(upper)
    keys = np.empty(2 * m)
    keys[:m], keys[m:] = (-lower, -upper) if as_upper else (upper, lower)
    return _sweep_counts(grade_rank, n_grades, np.argsort(keys, kind="mergesort"), as_upper)


@numba.njit(cache=True)
def ranking_decode(data, i, w, scores, augmented):
    """Return the labels of ``[grades, x w]`` if ``augmented``, else of the ranks by score.

    The loss-augmented output swaps exactly the pairs with ``s_i − ½ <= s_j + ½`` (keys
    rounded as :meth:`~tasks.RankingTask.loss_augmented_argmax` rounds them); the ranks give
    m − 1 to the best document, equal scores ranked by position (the earlier one higher).
    """
    documents, grades, grade_rank, n_grades, balance = data[3], data[4], data[5], data[6], data[7]
    begin, stop = documents[i], documents[i + 1]
    m = stop - begin
    ranks_of_grades = grade_rank[begin:stop]
    s = scores[:, 0].copy()
    labels = np.zeros(3 * m + 2, dtype=np.int64)
    twice_weights = labels[2 : m + 2]
    if augmented:
        upper, lower = s - 0.5, s + 0.5
        as_upper = _swapped(ranks_of_grades, n_grades[i], upper, lower, True)
        as_lower = _swapped(ranks_of_grades, n_grades[i], upper, lower, False)
        for j in range(m):
            twice_weights[j] = balance[begin + j] - 2 * as_upper[j] + 2 * as_lower[j]
        output = np.empty(2 * m)
        for j in range(m):
            output[2 * j] = grades[begin + j]
            output[2 * j + 1] = s[j]
        labels[0] = 1
        labels[m + 2 :] = output.view(np.int64)
    else:
        ranks = np.empty(m, dtype=np.int64)
        order = np.argsort(-s, kind="mergesort")
        for position in range(m):
            ranks[order[position]] = m - 1 - position
        keys = ranks.astype(np.float64)
        as_upper = _swapped(ranks_of_grades, n_grades[i], keys, keys, True)
        for j in range(m):
            twice_weights[j] = 2 * ranks[j] - (m - 1)
        labels[m + 2 : 2 * m + 2] = ranks
    labels[1] = as_upper.sum()
    return labels


@numba.njit(cache=True)
def ranking_features(data, i, labels):
    """Return φ = ½ Σ_j 2 c_j x_j over all ``n_features`` columns (zeros kept)."""
    indptr, columns, values, documents, n_features = data[0], data[1], data[2], data[3], data[8]
    begin = documents[i]
    phi = np.zeros(n_features)
    for j in range(begin, documents[i + 1]):
        weight = 0.5 * labels[2 + j - begin]
        for p in range(indptr[j], indptr[j + 1]):
            phi[columns[p]] += weight * values[p]
    return np.arange(n_features, dtype=np.int64), phi


@numba.njit(cache=True)
def ranking_loss(data, i, labels):
    """Return the number of swapped preference pairs, kept in the labels."""
    return float(labels[1])


def ranking_output(labels: np.ndarray) -> np.ndarray:
    """Return the output of a ranking's labels: the ranks, ``[grades, scores]`` or the grades."""
    m = (len(labels) - 2) // 3
    payload = labels[m + 2 :]
    if labels[0] == 0:
        return payload[:m].copy()
    if labels[0] == 2:
        return payload[:m].view(np.float64).copy()
    return payload.view(np.float64).reshape(m, 2).copy()


def ranking_labels(y: np.ndarray) -> np.ndarray:
    """Return the labels of a query's grades (form 2): its preference pairs all kept, Δ = 0.

    Each document's weight is then half its balance, the documents graded below it minus
    those above it.
    """
    y = np.ravel(np.asarray(y, dtype=np.float64))
    m = len(y)
    below, above = pairs_below_above(y)
    labels = np.zeros(3 * m + 2, dtype=np.int64)
    labels[0] = 2
    labels[2 : m + 2] = below - above
    labels[m + 2 : 2 * m + 2] = y.view(np.int64)
    return labels


def dense_document_scores(data: tuple, w: np.ndarray) -> ScoreTable:
    """Score every document of dense queries at once, a blocked BLAS product."""
    dense, documents = data[9], data[3]
    return ScoreTable(row_blocks_product(dense, w.reshape(-1, 1)), documents)
