"""The compiled per-example pass: every example's output, loss, slack and φ in one compiled call.

What n-slack (and BCFW's gap evaluation) needs from a pass on a task with a compiled oracle:
every example's results (:class:`~structsvm.solvers._oracle.OraclePass`), made by
:func:`example_pass` on ``n_jobs`` of Numba's threads. Each example is computed into storage of
its own, so the results are the same bits on any number of threads.
"""

from __future__ import annotations

import itertools
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp

from structsvm.solvers._compiled_training_set import CompiledTrainingSet
from structsvm.solvers._example_oracle import decode_example, sparse_dot, stacked_labels
from structsvm.solvers._oracle import FeatureMatrix, OraclePass


@numba.njit(cache=True)
def _example_arrays(n_labels, n):
    """Return the pass's labels (n_labels,), losses, slacks and entry counts (n,), unset."""
    return (
        np.empty(n_labels, dtype=np.int64), np.empty(n), np.empty(n), np.empty(n, dtype=np.int64)
    )


@numba.njit(cache=True)
def _feature_rows(entries):
    """Return CSR row pointers for rows of ``entries`` entries, and their unset arrays."""
    indptr = np.zeros(len(entries) + 1, dtype=np.int64)
    for i in range(len(entries)):
        indptr[i + 1] = indptr[i] + entries[i]
    return indptr, np.empty(indptr[-1], dtype=np.int64), np.empty(indptr[-1])


@numba.njit(cache=True, parallel=True)
def example_pass(fns, data, w, true_scores, label_offsets, table, offsets):
    """Return every example's results at ``w``: ``(labels, losses, slacks, indptr, indices,
    values)``.

    Example i's loss-augmented output has the labels ``labels[label_offsets[i]:label_offsets[i
    + 1]]``, Δ(y_i, ŷ_i) is ``losses[i]``, ``max(0, Δ − (true_scores[i] − w · φ(x_i, ŷ_i)))``
    is ``slacks[i]``, and φ(x_i, ŷ_i) is the CSR row ``indptr[i]:indptr[i + 1]``. The first
    loop decodes and counts the entries of each φ, the second writes them (the arrays are made
    by serial helpers: an array expression here would be a parallel loop of its own).
    """
    n = len(true_scores)
    labels, losses, slacks, entries = _example_arrays(label_offsets[-1], n)
    for i in numba.prange(n):
        found = decode_example(fns, data, i, w, table, offsets, True)
        labels[label_offsets[i] : label_offsets[i + 1]] = found
        row_indices, row_values = fns[2](data, i, found)
        loss = fns[3](data, i, found)
        losses[i] = loss
        slacks[i] = max(loss - (true_scores[i] - sparse_dot(w, row_indices, row_values)), 0.0)
        entries[i] = len(row_indices)
    indptr, indices, values = _feature_rows(entries)
    for i in numba.prange(n):
        row_indices, row_values = fns[2](data, i, labels[label_offsets[i] : label_offsets[i + 1]])
        indices[indptr[i] : indptr[i + 1]] = row_indices
        values[indptr[i] : indptr[i + 1]] = row_values
    return labels, losses, slacks, indptr, indices, values


class CompiledExamplePasses(CompiledTrainingSet):
    """A training set whose per-example passes are each one call of :func:`example_pass`.

    Build it with :meth:`~structsvm.solvers._compiled_training_set.CompiledTrainingSet.prepare`,
    which returns None when the task has no compiled oracle.
    """

    purpose = "per-example passes (margin rescaling)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.label_offsets = stacked_labels(self.oracle, self.Y)[1]

    def oracle_pass(self, w: np.ndarray) -> OraclePass:
        """Make the pass at ``w`` in one compiled call; return every example's results.

        The outputs are the oracle's :meth:`~structsvm.CompiledOracle.output` of the labels,
        plain values (a checkpoint writes them); the pass is certified if the decoding is exact.
        """
        labels, losses, slacks, indptr, indices, values = self.call(
            example_pass, w, self.label_offsets
        )
        if not np.isfinite(losses.sum() + slacks.sum()):
            return super().oracle_pass(w)
        features: FeatureMatrix = sp.csr_matrix(
            (values, indices, indptr), shape=(self.n_examples, self.task.size_joint_feature)
        )
        if not sp.issparse(self.true_features):
            features = features.toarray()
        return OraclePass(
            outputs=[
                self.oracle.output(labels[begin:stop])
                for begin, stop in itertools.pairwise(self.label_offsets.tolist())
            ],
            losses=losses,
            slacks=slacks,
            true_features=self.true_features,
            features=features,
            certified=self.oracle.exact,
            key_of=self.task.output_key,
        )
