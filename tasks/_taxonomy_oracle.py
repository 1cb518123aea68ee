"""The compiled oracle of classification into a taxonomy (:class:`tasks.TaxonomyTask`).

The inputs are held as CSR rows with sorted columns; an output's labels are its leaf alone. The
path of leaf k is ``path_blocks[path_offsets[k]:path_offsets[k + 1]]`` (increasing block
numbers) with the coefficients ``path_coefficients``: φ(x, k) puts ``coefficient · x`` in the
block of each. Ties go to the smallest leaf, as the task's Python oracles break them.

data = (indptr, columns, values, labels, loss_matrix, n_features, path_offsets, path_blocks,
path_coefficients, n_blocks)
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def taxonomy_scores(data, i, w):
    """Return the (1, n_leaves) leaf scores: the block scores ``W[v] · x_i`` summed on paths."""
    indptr, columns, values, _, loss_matrix, n_features = data[:6]
    path_offsets, path_blocks, path_coefficients, n_blocks = data[6:]
    block_scores = np.zeros(n_blocks)
    for block in range(n_blocks):
        offset = block * n_features
        score = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            score += values[p] * w[offset + columns[p]]
        block_scores[block] = score
    n_leaves = loss_matrix.shape[0]
    scores = np.zeros((1, n_leaves))
    for leaf in range(n_leaves):
        score = 0.0
        for q in range(path_offsets[leaf], path_offsets[leaf + 1]):
            score += path_coefficients[q] * block_scores[path_blocks[q]]
        scores[0, leaf] = score
    return scores


@numba.njit(cache=True)
def taxonomy_decode(data, i, w, scores, augmented):
    """Return the best leaf (plus its loss if ``augmented``), ties to the smallest."""
    truth, loss_matrix = data[3][i], data[4]
    best, best_value = 0, -np.inf
    for leaf in range(loss_matrix.shape[0]):
        value = scores[0, leaf] + (loss_matrix[truth, leaf] if augmented else 0.0)
        if value > best_value:
            best, best_value = leaf, value
    labels = np.empty(1, dtype=np.int64)
    labels[0] = best
    return labels


@numba.njit(cache=True)
def taxonomy_features(data, i, labels):
    """Return φ(x_i, k): ``coefficient · x_i`` in the block of every node on k's path."""
    indptr, columns, values, n_features = data[0], data[1], data[2], data[5]
    path_offsets, path_blocks, path_coefficients = data[6], data[7], data[8]
    leaf = labels[0]
    begin, end = indptr[i], indptr[i + 1]
    first, last = path_offsets[leaf], path_offsets[leaf + 1]
    size = end - begin
    indices = np.empty(size * (last - first), dtype=np.int64)
    entries = np.empty(size * (last - first))
    for q in range(first, last):
        offset = path_blocks[q] * n_features
        at = (q - first) * size
        for p in range(begin, end):
            indices[at + p - begin] = offset + columns[p]
            entries[at + p - begin] = path_coefficients[q] * values[p]
    return indices, entries


@numba.njit(cache=True)
def taxonomy_loss(data, i, labels):
    """Return ``loss_matrix[y_i, y]``."""
    return data[4][data[3][i], labels[0]]
