"""The compiled oracle of the multiclass task (:meth:`tasks.MulticlassTask.compiled_oracle`).

The inputs are CSR rows (dense rows keep all their entries); an output's labels are its
class alone, ties going to the smallest class.
"""

from __future__ import annotations

import numba
import numpy as np

from structsvm._compiled_oracle import ScoreTable
from tasks._threads import row_blocks_product


@numba.njit(cache=True, inline="always")
def class_scores_into(indptr, columns, values, begin, w, n_features, out):
    """Write the scores ``W[y] · x_r`` of the CSR rows from ``begin`` into ``out[r − begin, y]``.

    ``W`` is ``w[:out.shape[1] * n_features]`` by rows; each score sums its row's entries in
    order. Returns ``out``.
    """
    for row in range(out.shape[0]):
        for label in range(out.shape[1]):
            offset = label * n_features
            score = 0.0
            for p in range(indptr[begin + row], indptr[begin + row + 1]):
                score += values[p] * w[offset + columns[p]]
            out[row, label] = score
    return out


@numba.njit(cache=True)
def multiclass_scores(data, i, w):
    """Return the (1, n_classes) class scores ``W[y] · x_i``."""
    indptr, columns, values, _, loss_matrix, n_features, _ = data
    scores = np.empty((1, loss_matrix.shape[0]))
    return class_scores_into(indptr, columns, values, i, w, n_features, scores)


@numba.njit(cache=True)
def multiclass_decode(data, i, w, scores, augmented):
    """Return the best class (plus its loss if ``augmented``), ties to the smallest."""
    truth, loss_matrix = data[3][i], data[4]
    best, best_value = 0, -np.inf
    for label in range(loss_matrix.shape[0]):
        value = scores[0, label] + (loss_matrix[truth, label] if augmented else 0.0)
        if value > best_value:
            best, best_value = label, value
    return np.full(1, best, dtype=np.int64)


@numba.njit(cache=True)
def multiclass_features(data, i, labels):
    """Return e_y ⊗ x_i on the stored entries of x_i."""
    indptr, columns, values, _, _, n_features, _ = data
    begin, end = indptr[i], indptr[i + 1]
    return labels[0] * n_features + columns[begin:end], values[begin:end].copy()


@numba.njit(cache=True)
def multiclass_loss(data, i, labels):
    """Return ``loss_matrix[y_i, y]``."""
    return data[4][data[3][i], labels[0]]


@numba.njit(cache=True)
def multiclass_labelling_score(data, i, w, scores, labels):
    """Return ``w · φ(x_i, y)``, the class's score ``scores[0, y]``."""
    return scores[0, labels[0]]


@numba.njit(cache=True)
def multiclass_add_features(data, i, labels, scale, out):
    """Add ``scale · x_i`` into class y's block of ``out``; return True."""
    indptr, columns, values, _, _, n_features, _ = data
    offset = labels[0] * n_features
    for p in range(indptr[i], indptr[i + 1]):
        out[offset + columns[p]] += scale * values[p]
    return True


def dense_class_scores(data: tuple, w: np.ndarray) -> ScoreTable:
    """Score every dense input at once, a blocked BLAS product (the same rows on any threads)."""
    dense, loss_matrix, n_features = data[6], data[4], data[5]
    scores = row_blocks_product(dense, w.reshape(loss_matrix.shape[0], n_features).T)
    return ScoreTable(scores, np.arange(len(dense) + 1, dtype=np.int64))
