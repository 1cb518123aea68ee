"""Compiled construction of a linear chain's joint features as the rows of a CSR matrix.

For sequence k with positions x_t and labels y_t the joint feature holds, in order: the feature
sums ``Σ_{t: y_t = l} x_t`` for every label l (emissions), the counts of label pairs
``(y_t, y_{t+1})`` (transitions), indicators of the first and last labels, and label counts
(bias). Building the CSR arrays directly, one sequence at a time with sorted column indices,
avoids the sort and duplicate summation of a COO conversion.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def chain_features_csr(
    X_all: np.ndarray,
    Y_all: np.ndarray,
    offsets: np.ndarray,
    n_labels: int,
    transitions_at: int,
    start_at: int,
    end_at: int,
    bias_at: int,
    use_transitions: bool,
    use_start_end: bool,
    use_bias: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(indptr, indices, data)`` of the joint features of every sequence.

    ``X_all`` (N, d) and ``Y_all`` (N,) hold all positions one sequence after another;
    ``offsets`` (n + 1,) marks where each sequence starts. The ``*_at`` arguments are the
    column where each block begins.
    """
    n_sequences = len(offsets) - 1
    n_features = X_all.shape[1]
    bound = 0
    for k in range(n_sequences):
        length = offsets[k + 1] - offsets[k]
        bound += min(length, n_labels) * (n_features + 1) + length + 2
    indptr = np.zeros(n_sequences + 1, dtype=np.int64)
    indices = np.empty(bound, dtype=np.int64)
    data = np.empty(bound, dtype=np.float64)
    sums = np.zeros((n_labels, n_features))
    label_counts = np.zeros(n_labels)
    pair_counts = np.zeros(n_labels * n_labels)
    nnz = 0
    for k in range(n_sequences):
        first, stop = offsets[k], offsets[k + 1]
        for t in range(first, stop):
            label_counts[Y_all[t]] += 1.0
            for j in range(n_features):
                sums[Y_all[t], j] += X_all[t, j]
            if use_transitions and t + 1 < stop:
                pair_counts[Y_all[t] * n_labels + Y_all[t + 1]] += 1.0
        for label in range(n_labels):
            if label_counts[label] > 0:
                for j in range(n_features):
                    if sums[label, j] != 0.0:
                        indices[nnz] = label * n_features + j
                        data[nnz] = sums[label, j]
                        nnz += 1
                        sums[label, j] = 0.0
        if use_transitions:
            for label in range(n_labels):
                if label_counts[label] > 0:
                    for following in range(n_labels):
                        pair = label * n_labels + following
                        if pair_counts[pair] > 0:
                            indices[nnz] = transitions_at + pair
                            data[nnz] = pair_counts[pair]
                            nnz += 1
                            pair_counts[pair] = 0.0
        if use_start_end:
            indices[nnz] = start_at + Y_all[first]
            data[nnz] = 1.0
            indices[nnz + 1] = end_at + Y_all[stop - 1]
            data[nnz + 1] = 1.0
            nnz += 2
        for label in range(n_labels):
            if label_counts[label] > 0:
                if use_bias:
                    indices[nnz] = bias_at + label
                    data[nnz] = label_counts[label]
                    nnz += 1
                label_counts[label] = 0.0
        indptr[k + 1] = nnz
    return indptr, indices[:nnz], data[:nnz]
