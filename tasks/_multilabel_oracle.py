"""The compiled oracle of the multi-label task (:meth:`tasks.MultiLabelTask.compiled_oracle`).

The inputs are CSR rows (and the dense array, for the batched scoring); all examples share the
label graph. An output's labels are its 0/1 vector.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from structsvm._compiled_oracle import ScoreTable
from tasks._graph_oracle import scheduled_labels
from tasks._multiclass_oracle import class_scores_into
from tasks._threads import row_blocks_product

MAX_PRODUCT, BRUTE = 0, 1
"""The inference methods of the compiled oracle, as ``MultiLabelOracleData.method`` names them."""


class MultiLabelOracleData(NamedTuple):
    """The training set of a multi-label task and its label graph (``CompiledOracle.data``)."""

    indptr: np.ndarray
    columns: np.ndarray
    values: np.ndarray
    dense: np.ndarray
    truth: np.ndarray
    edges: np.ndarray
    forest: bool
    order: np.ndarray
    parent: np.ndarray
    parent_edge: np.ndarray
    child_is_second: np.ndarray
    method: int
    n_features: int
    pairwise_at: int
    max_iter: int
    damping: float
    tol: float
    serial: bool


@numba.njit(cache=True)
def multilabel_scores(data, i, w):
    """Return the (n_labels, 2) unary scores: 0 for a label off, ``W[j] · x_i`` for it on."""
    n_labels = data.truth.shape[1]
    scores = np.zeros((n_labels, 2))
    on = scores[:, 1:].T
    class_scores_into(data.indptr, data.columns, data.values, i, w, data.n_features, on)
    return scores


@numba.njit(cache=True)
def multilabel_decode(data, i, w, scores, augmented):
    """Return the best labelling on the label graph (plus the Hamming loss if ``augmented``)."""
    if augmented:
        for label in range(scores.shape[0]):
            scores[label, 1 - data.truth[i, label]] += 1.0
    tables = w[data.pairwise_at :].copy().reshape(-1, 2, 2)
    if data.method == BRUTE:
        return _brute_labels(scores, tables, data.edges)
    return scheduled_labels(scores, tables, data.edges, data.forest, data, 0, scores.shape[0])


@numba.njit(cache=True)
def _brute_labels(unary, tables, edges):
    """Return the first best 0/1 labelling in lexicographic order (label 0 most significant)."""
    n_labels = unary.shape[0]
    labels = np.zeros(n_labels, dtype=np.int64)
    best = np.zeros(n_labels, dtype=np.int64)
    best_score = -np.inf
    for code in range(1 << n_labels):
        for label in range(n_labels):
            labels[label] = (code >> (n_labels - 1 - label)) & 1
        score = 0.0
        for label in range(n_labels):
            score += unary[label, labels[label]]
        for e in range(edges.shape[0]):
            score += tables[e, labels[edges[e, 0]], labels[edges[e, 1]]]
        if score > best_score:
            best_score = score
            best[:] = labels
    return best


@numba.njit(cache=True)
def multilabel_features(data, i, labels):
    """Return φ(x_i, y): x_i in the block of every label on, then one indicator per edge."""
    begin, end = data.indptr[i], data.indptr[i + 1]
    n_on = labels.sum()
    n_edges = data.edges.shape[0]
    indices = np.empty(n_on * (end - begin) + n_edges, dtype=np.int64)
    values = np.ones(len(indices))
    k = 0
    for label in range(len(labels)):
        if labels[label]:
            for p in range(begin, end):
                indices[k] = label * data.n_features + data.columns[p]
                values[k] = data.values[p]
                k += 1
    for e in range(n_edges):
        pair = 2 * labels[data.edges[e, 0]] + labels[data.edges[e, 1]]
        indices[k] = data.pairwise_at + 4 * e + pair
        k += 1
    return indices, values


@numba.njit(cache=True)
def multilabel_loss(data, i, labels):
    """Return the Hamming loss, the number of labels that differ from example i's."""
    loss = 0.0
    for label in range(len(labels)):
        if labels[label] != data.truth[i, label]:
            loss += 1.0
    return loss


def dense_label_scores(data: MultiLabelOracleData, w: np.ndarray) -> ScoreTable:
    """Score every input at once, a blocked BLAS product (the same rows on any threads)."""
    n, n_labels = data.truth.shape
    weights = w[: data.pairwise_at].reshape(n_labels, data.n_features)
    scores = np.zeros((n * n_labels, 2))
    scores[:, 1] = row_blocks_product(data.dense, weights.T).ravel()
    offsets = np.arange(0, n * n_labels + 1, n_labels, dtype=np.int64)
    return ScoreTable(scores, offsets)
