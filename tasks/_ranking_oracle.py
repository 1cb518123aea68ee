"""The compiled oracle of the ranking task (:meth:`tasks.RankingTask.compiled_oracle`).

The documents of every query are stacked as CSR rows; a query's part scores are its
documents' scores ``x w``, one row per document. Decoding counts every document's swapped
pairs once and keeps what φ and Δ need in the labels.

**Labels** (length ``3m + 2`` for m documents): ``[form, Δ, 2 c_1, …, 2 c_m, payload]`` with
``φ = ½ Σ_j 2 c_j x_j``. ``form`` 0 is the ranks of ``argmax`` (payload: the m ranks, m
zeros), 1 the loss-augmented ``[grades, scores]`` (payload: the float64 bits of its m × 2
entries, row by row), 2 a query's true grades (payload: the float64 bits of the m grades, m
zeros); :func:`ranking_output` rebuilds each.

**Data**, a flat tuple: the documents' CSR ``indptr``, ``columns`` and ``values``; where each
query's documents start (n + 1); per document its grade, the rank of its grade within its
query and its ``balance`` (documents graded below it minus above it); per query its number of
distinct grades; ``n_features``; the stacked dense documents (empty for sparse queries).
"""

from __future__ import annotations

import numba
import numpy as np

from structsvm._compiled_oracle import ScoreTable
from structsvm._utils.pair_counts import count_swaps, pairs_below_above
from tasks._multiclass_oracle import class_scores_into
from tasks._threads import row_blocks_product


@numba.njit(cache=True)
def ranking_scores(data, i, w):
    """Return the (m, 1) document scores ``x_j · w`` of query i."""
    begin, scores = data[3][i], np.empty((data[3][i + 1] - data[3][i], 1))
    return class_scores_into(data[0], data[1], data[2], begin, w, data[8], scores)


@numba.njit(cache=True)
def ranking_decode(data, i, w, scores, augmented):
    """Return the labels of ``[grades, x w]`` if ``augmented``, else of the ranks by score.

    As :meth:`~tasks.RankingTask.loss_augmented_argmax` and :meth:`~tasks.RankingTask.argmax`.
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
        as_upper = count_swaps(ranks_of_grades, n_grades[i], upper, lower, True)
        as_lower = count_swaps(ranks_of_grades, n_grades[i], upper, lower, False)
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
        as_upper = count_swaps(ranks_of_grades, n_grades[i], keys, keys, True)
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
