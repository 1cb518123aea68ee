"""The compiled passes of the cutting-plane solvers, through the task's compiled oracle.

:class:`CompiledTrainingSet` finds and calls the oracle for every compiled pass; its subclass
:class:`CompiledExamplePasses` makes the per-example pass (n-slack, BCFW's gap evaluation), one
:func:`example_pass` on ``n_jobs`` threads. Each example is computed into storage of its own,
so the results are the same bits on any number of threads.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, ClassVar, NamedTuple

import numba
import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import (
    ORACLE_FUNCTIONS,
    CompiledOracle,
    find_compiled_oracle,
    offsets_of,
)
from structsvm._task import Task
from structsvm._utils.parallel import compiled_threads, run_in_parts
from structsvm.solvers._cutting_plane import TaskConstraints
from structsvm.solvers._example_oracle import NO_TABLE, decode_example, sparse_dot, stacked_labels
from structsvm.solvers._oracle import FeatureMatrix, OraclePass


class ExampleResults(NamedTuple):
    """Every example's results of a per-example pass (:func:`example_pass`).

    Attributes
    ----------
    labels : ndarray (total labels,), int64
        The loss-augmented outputs' labels, end to end.
    losses, slacks : ndarray (n,)
    indptr, indices, values : ndarray
        φ(x_i, ŷ_i) as the CSR rows of an (n, size) matrix.
    """

    labels: np.ndarray
    losses: np.ndarray
    slacks: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray


class CompiledTrainingSet(TaskConstraints):
    """A training set (margin rescaling) whose passes run through the task's compiled oracle.

    ``oracle`` is what :meth:`structsvm.Task.compiled_oracle` returned for (X, Y) and
    ``true_features`` the sparse rows φ(x_i, y_i); the other parameters are
    :class:`~structsvm.solvers._cutting_plane.TaskConstraints`'. A pass whose results are not
    finite (scores that overflow) is made again by the Python pass, whose checks say what is wrong.
    """

    #: What the passes are for, as the ``structsvm`` log names them.
    purpose: ClassVar[str] = "compiled passes"

    #: The oracle's functions that the passes call (:meth:`structsvm.CompiledOracle.functions`).
    oracle_functions: ClassVar[tuple[str, ...]] = ORACLE_FUNCTIONS

    def __init__(
        self, task: Task, X: Sequence[Any], Y: Sequence[Any], oracle: CompiledOracle,
        true_features: FeatureMatrix, *, n_jobs: int | None = None, summed: bool = False,
    ) -> None:
        super().__init__(task, X, Y, n_jobs=n_jobs, true_features=true_features, summed=summed)
        self.oracle = oracle
        self.functions = oracle.functions(self.oracle_functions, uncalled=self.uncalled(oracle))

    @classmethod
    def uncalled(cls, oracle: CompiledOracle) -> tuple[str, ...]:
        """Return the oracle's functions that these passes never call on ``oracle``.

        The passes hold w fixed and read every example's part scores from the batch table
        where the task has one, so its per-example scoring is never called.
        """
        return () if oracle.batch_scores is None else ("scores",)

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

        ``compiled_pass`` calls its compiled parts; ``true_scores[i] = w · φ(x_i, y_i)`` and
        ``scores, offsets`` the oracle's :class:`~structsvm.ScoreTable` at ``w``
        (:data:`~structsvm.solvers._example_oracle.NO_TABLE` without ``batch_scores``); the
        call runs on ``n_jobs`` threads (:func:`~structsvm._utils.parallel.compiled_threads`).
        """
        oracle = self.oracle
        true_scores = np.asarray(self.true_features @ w, dtype=np.float64).ravel()
        with compiled_threads(self.n_jobs):
            table = NO_TABLE if oracle.batch_scores is None else oracle.batch_scores(oracle.data, w)
            return compiled_pass(self.functions, oracle.data, w, true_scores, *arguments, *table)


@numba.njit(cache=True, nogil=True)
def decode_run(
    fns, data, w, true_scores, label_offsets, table, offsets, first, stop, labels, losses, slacks,
    entries,
):
    """Decode examples ``first:stop`` at ``w``; write their labels, losses, slacks and φ's
    entry counts into the arrays of :func:`example_pass`. Releases the GIL."""
    for i in range(first, stop):
        found = decode_example(fns, data, i, w, table, offsets, True)
        for k in range(len(found)):
            labels[label_offsets[i] + k] = found[k]
        row_indices, row_values = fns[2](data, i, found)
        loss = fns[3](data, i, found)
        losses[i] = loss
        slacks[i] = max(loss - (true_scores[i] - sparse_dot(w, row_indices, row_values)), 0.0)
        entries[i] = len(row_indices)


@numba.njit(cache=True, nogil=True)
def feature_run(fns, data, labels, label_offsets, first, stop, indptr, indices, values):
    """Write φ(x_i, ŷ_i) of examples ``first:stop`` into their CSR rows ``indptr[i]:indptr[i +
    1]`` of ``indices`` and ``values``. Releases the GIL."""
    for i in range(first, stop):
        row_indices, row_values = fns[2](data, i, labels[label_offsets[i] : label_offsets[i + 1]])
        for k in range(len(row_indices)):
            indices[indptr[i] + k] = row_indices[k]
            values[indptr[i] + k] = row_values[k]


def example_pass(
    fns: tuple, data: tuple, w: np.ndarray, true_scores: np.ndarray, label_offsets: np.ndarray,
    table: np.ndarray, offsets: np.ndarray,
) -> ExampleResults:
    """Return every example's results at ``w`` (:class:`ExampleResults`).

    Example i's loss-augmented output has the labels ``labels[label_offsets[i]:label_offsets[i
    + 1]]``, Δ(y_i, ŷ_i) is ``losses[i]``, ``max(0, Δ − (true_scores[i] − w · φ(x_i, ŷ_i)))``
    is ``slacks[i]``, and φ(x_i, ŷ_i) is the CSR row ``indptr[i]:indptr[i + 1]``. Runs of
    consecutive examples are decoded (:func:`decode_run`), then their φ written
    (:func:`feature_run`), on Numba's number of threads
    (:func:`~structsvm._utils.parallel.run_in_parts`).
    """
    n = len(true_scores)
    labels = np.empty(label_offsets[-1], dtype=np.int64)
    losses, slacks, entries = np.empty(n), np.empty(n), np.empty(n, dtype=np.int64)

    def decode(first: int, stop: int) -> None:
        decode_run(
            fns, data, w, true_scores, label_offsets, table, offsets, first, stop,
            labels, losses, slacks, entries,
        )

    run_in_parts(decode, n)
    indptr = offsets_of(entries)
    indices, values = np.empty(indptr[-1], dtype=np.int64), np.empty(indptr[-1])

    def write(first: int, stop: int) -> None:
        feature_run(
            fns, data, labels, label_offsets, first, stop, indptr, indices, values
        )

    run_in_parts(write, n)
    return ExampleResults(labels, losses, slacks, indptr, indices, values)


class CompiledExamplePasses(CompiledTrainingSet):
    """A training set whose per-example passes are each one call of :func:`example_pass`
    (build it with :meth:`~CompiledTrainingSet.prepare`)."""

    purpose = "per-example passes (margin rescaling)"
    oracle_functions = ("scores", "decode", "features", "loss")

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
