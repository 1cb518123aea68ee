"""The compiled per-example pass: every example's output, loss, slack and φ in one compiled call.

The n-slack solver (and BCFW's gap evaluation) needs from an oracle pass every example's
result (:class:`~structsvm.solvers._oracle.OraclePass`), not only their sums. A task that offers
a compiled oracle (:meth:`structsvm.Task.compiled_oracle`) prepares its data once per fit,
here, and a pass at ``w`` is then one call of :func:`example_pass` on ``n_jobs`` of Numba's
threads, in two parallel loops:

1. decode every example (loss-augmented), write its labels into the example's slots of one
   array (an output has as many labels as the example's true output), its loss and slack, and
   count the entries of its φ(x_i, ŷ_i);
2. write each φ(x_i, ŷ_i) into its rows of a CSR matrix whose row pointers are the running
   sums of those counts.

Each example is computed by itself into storage of its own, so the results are the same bits on
any number of threads.
"""

from __future__ import annotations

import itertools
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp

from structsvm._utils.parallel import compiled_threads
from structsvm.solvers._compiled_training_set import CompiledTrainingSet
from structsvm.solvers._example_oracle import NO_TABLE, decode_example, sparse_dot
from structsvm.solvers._oracle import FeatureMatrix, OraclePass, loss_augmented_pass


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
    """A training set whose per-example oracle passes are made by the task's compiled oracle.

    A :class:`~structsvm.solvers._cutting_plane.ConstraintSource` whose :meth:`oracle_pass`
    returns an :class:`~structsvm.solvers._oracle.OraclePass` for margin rescaling. Build it with
    :meth:`prepare`, which returns None when the task has no compiled oracle.

    The parameters are :class:`~structsvm.solvers._compiled_training_set.CompiledTrainingSet`'s.
    """

    purpose = "per-example passes (margin rescaling)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        label_counts = [len(self.oracle.labels(y)) for y in self.Y]
        self.label_offsets = np.zeros(self.n_examples + 1, dtype=np.int64)
        np.cumsum(label_counts, out=self.label_offsets[1:])

    def oracle_pass(self, w: np.ndarray) -> OraclePass:
        """Make the pass at ``w`` in one compiled call; return every example's results.

        The outputs are the oracle's :meth:`~structsvm.CompiledOracle.output` of the labels
        the pass is certified when the compiled decoding is exact.
        Scores that overflow make the results not finite: the pass is then made again by
        :func:`~structsvm.solvers._oracle.loss_augmented_pass`, whose checks say what is wrong.
        """
        oracle, n = self.oracle, self.n_examples
        true_scores = np.asarray(self.true_features @ w, dtype=np.float64).ravel()
        with compiled_threads(self.n_jobs):
            table = NO_TABLE if oracle.batch_scores is None else oracle.batch_scores(oracle.data, w)
            labels, losses, slacks, indptr, indices, values = example_pass(
                self.functions, oracle.data, w, true_scores, self.label_offsets, *table
            )
        if not np.isfinite(losses.sum() + slacks.sum()):
            return loss_augmented_pass(
                self.task, self.X, self.Y, self.true_features, w, n_jobs=self.n_jobs
            )
        features: FeatureMatrix = sp.csr_matrix(
            (values, indices, indptr), shape=(n, self.task.size_joint_feature)
        )
        if not sp.issparse(self.true_features):
            features = features.toarray()
        return OraclePass(
            # The outputs are plain values, so that a solver state holding the pass is a value
            # too (a checkpoint writes it to a model file).
            outputs=[
                oracle.output(labels[begin:stop])
                for begin, stop in itertools.pairwise(self.label_offsets.tolist())
            ],
            losses=losses,
            slacks=slacks,
            true_features=self.true_features,
            features=features,
            certified=oracle.exact,
            key_of=self.task.output_key,
        )
