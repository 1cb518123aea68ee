"""The compiled passes of the cutting-plane solvers, through the task's compiled oracle.

:class:`CompiledTrainingSet` finds and calls the oracle for every compiled pass; its subclass
:class:`CompiledExamplePasses` makes the per-example pass (n-slack, BCFW's gap evaluation), one
:func:`example_pass` on ``n_jobs`` of Numba's threads. Each example is computed into storage of
its own, so the results are the same bits on any number of threads.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, ClassVar

import numba
import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import CompiledOracle, find_compiled_oracle
from structsvm._task import Task
from structsvm._utils.parallel import compiled_threads
from structsvm.solvers._cutting_plane import TaskConstraints
from structsvm.solvers._example_oracle import NO_TABLE, decode_example, sparse_dot, stacked_labels
from structsvm.solvers._oracle import FeatureMatrix, OraclePass


class CompiledTrainingSet(TaskConstraints):
    """A training set (margin rescaling) whose passes run through the task's compiled oracle.

    ``oracle`` is what :meth:`structsvm.Task.compiled_oracle` returned for (X, Y) and
    ``true_features`` the sparse rows φ(x_i, y_i); the other parameters are
    :class:`~structsvm.solvers._cutting_plane.TaskConstraints`'. A pass whose results are not
    finite (scores that overflow) is made again by the Python pass, whose checks say what is wrong.
    """

    #: What the passes are for, as the ``structsvm`` log names them.
    purpose: ClassVar[str] = "compiled passes"

    def __init__(
        self, task: Task, X: Sequence[Any], Y: Sequence[Any], oracle: CompiledOracle,
        true_features: FeatureMatrix, *, n_jobs: int | None = None, summed: bool = False,
    ) -> None:
        super().__init__(task, X, Y, n_jobs=n_jobs, true_features=true_features, summed=summed)
        self.oracle, self.functions = oracle, oracle.functions()

    @classmethod
    def prepare(
        cls, task: Task, X: Sequence[Any], Y: Sequence[Any], *, n_jobs: int | None = None,
        true_features: FeatureMatrix | None = None, compiled: bool | None = None,
    ) -> Any:
        """Return the training set with the task's compiled oracle, or None (``compiled`` read
        as by :func:`~structsvm._compiled_oracle.find_compiled_oracle`)."""
        oracle = find_compiled_oracle(task, X, Y, compiled=compiled, purpose=cls.purpose)
        if oracle is None:
            return None
        if not sp.issparse(true_features):
            true_features = oracle.feature_rows(Y, task.size_joint_feature)
        return cls(task, X, Y, oracle, true_features, n_jobs=n_jobs)

    def call(self, compiled_pass: Any, w: np.ndarray, *arguments: Any) -> Any:
        """Return ``compiled_pass(fns, data, w, true_scores, *arguments, scores, offsets)``.

        ``true_scores[i] = w · φ(x_i, y_i)`` and ``scores, offsets`` the oracle's
        :class:`~structsvm.ScoreTable` at ``w`` (:data:`~structsvm.solvers._example_oracle.NO_TABLE`
        without ``batch_scores``); the call runs on ``n_jobs`` of Numba's threads.
        """
        oracle = self.oracle
        true_scores = np.asarray(self.true_features @ w, dtype=np.float64).ravel()
        with compiled_threads(self.n_jobs):
            table = NO_TABLE if oracle.batch_scores is None else oracle.batch_scores(oracle.data, w)
            return compiled_pass(self.functions, oracle.data, w, true_scores, *arguments, *table)


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
    by serial helpers: an array expression here would be a parallel loop of its own; arrays are
    copied element by element: an array assigned to a slice would compile the shape-mismatch
    error).
    """
    n = len(true_scores)
    labels, losses, slacks, entries = _example_arrays(label_offsets[-1], n)
    for i in numba.prange(n):
        found = decode_example(fns, data, i, w, table, offsets, True)
        for k in range(len(found)):
            labels[label_offsets[i] + k] = found[k]
        row_indices, row_values = fns[2](data, i, found)
        loss = fns[3](data, i, found)
        losses[i] = loss
        slacks[i] = max(loss - (true_scores[i] - sparse_dot(w, row_indices, row_values)), 0.0)
        entries[i] = len(row_indices)
    indptr, indices, values = _feature_rows(entries)
    for i in numba.prange(n):
        row_indices, row_values = fns[2](data, i, labels[label_offsets[i] : label_offsets[i + 1]])
        for k in range(len(row_indices)):
            indices[indptr[i] + k] = row_indices[k]
            values[indptr[i] + k] = row_values[k]
    return labels, losses, slacks, indptr, indices, values


class CompiledExamplePasses(CompiledTrainingSet):
    """A training set whose per-example passes are each one call of :func:`example_pass`
    (build it with :meth:`~CompiledTrainingSet.prepare`)."""

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
