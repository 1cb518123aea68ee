"""A training set kept on the workers of a Dask cluster for the whole of a fit.

Inside ``joblib.parallel_backend("dask")``, with a ``dask.distributed.Client`` connected, a
solver whose ``n_jobs`` is not 1 scatters the training set once per fit, one contiguous shard
of examples (with the task) per worker slot, and every oracle pass then sends each shard only
``w``. A worker makes the pass over its shard, the true joint features computed there once, and
sends back every example's results (:class:`ShardOutputs`, n-slack and BCFW's gap evaluation)
or only their sums (:class:`~structsvm.solvers._oracle.PassSummary`, 1-slack). The shards, and
the tasks of an interrupted pass, are released when the fit ends, however it ends.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from joblib import effective_n_jobs

from structsvm._task import Task
from structsvm._utils.parallel import check_picklable, dask_client, joined_chunks
from structsvm.solvers._cutting_plane import (
    ConstraintSource,
    DualOptimiser,
    Formulation,
    TaskConstraints,
    cutting_plane,
)
from structsvm.solvers._example_pass import CompiledExamplePasses
from structsvm.solvers._oracle import FeatureMatrix, OraclePass, PassSummary
from structsvm.solvers._state import SolverState
from structsvm.solvers._summed_pass import CompiledSummedPasses


@dataclass
class ShardOutputs:
    """What a pass over a shard sends back when the solver needs every example."""

    outputs: Sequence[Any]
    losses: np.ndarray
    slacks: np.ndarray
    features: FeatureMatrix
    certified: bool


def shard_pass(shard: TaskConstraints, w: np.ndarray) -> PassSummary | ShardOutputs:
    """Make the oracle pass over a shard at ``w`` (on the worker holding it).

    Returns its :class:`~structsvm.solvers._oracle.PassSummary` if the shard is ``summed``, its
    :class:`ShardOutputs` otherwise.
    """
    oracle = shard.oracle_pass(w)
    if isinstance(oracle, PassSummary):
        return oracle
    return ShardOutputs(
        oracle.outputs, oracle.losses, oracle.slacks, oracle.features, oracle.certified
    )


class ClusterConstraints(TaskConstraints):
    """A task's training set held in shards by the workers of a Dask cluster.

    A context manager: entering scatters the shards, leaving releases them. ``client`` is the
    ``dask.distributed.Client``; the other parameters are
    :class:`~structsvm.solvers._cutting_plane.TaskConstraints`'. Each shard is the
    training set of consecutive examples, one per worker slot that ``n_jobs`` asks for
    (``effective_n_jobs``), at most one per example; a worker computes its shard's true joint
    features, this process only those a per-example pass needs.
    """

    def __init__(self, client: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.client = client
        self.n_shards = max(1, min(effective_n_jobs(self.n_jobs), self.n_examples))
        self._shards: list[Any] = []

    def __enter__(self) -> ClusterConstraints:
        check_picklable(self.task.batch_loss_augmented_argmax, self.n_jobs)
        bounds = np.linspace(0, self.n_examples, self.n_shards + 1).astype(int)
        shards = [
            TaskConstraints(
                self.task, self.X[begin:stop], self.Y[begin:stop], rescaling=self.rescaling,
                summed=self.summed,
            )
            for begin, stop in itertools.pairwise(bounds)
        ]
        # One call for all the shards: the scheduler spreads them over the workers.
        self._shards = self.client.scatter(shards, hash=False)
        return self

    def __exit__(self, *exc_info: object) -> None:
        shards, self._shards = self._shards, []
        self.client.cancel(shards)

    def oracle_pass(self, w: np.ndarray) -> OraclePass | PassSummary:
        """Make the pass at ``w`` on the workers; send only ``w``, receive what is needed."""
        if not self._shards:
            raise RuntimeError("the training set is on the cluster only inside a with block")
        futures = [self.client.submit(shard_pass, shard, w, pure=False) for shard in self._shards]
        try:
            parts = self.client.gather(futures)
        finally:
            self.client.cancel(futures)
        if self.summed:
            return PassSummary.combined(parts)
        return OraclePass(
            outputs=joined_chunks([part.outputs for part in parts]),
            losses=np.concatenate([part.losses for part in parts]),
            slacks=np.concatenate([part.slacks for part in parts]),
            true_features=self.true_features,
            features=joined_chunks([part.features for part in parts]),
            certified=all(part.certified for part in parts),
            key_of=self.task.output_key,
            rescaling=self.rescaling,
        )


@contextmanager
def training_set(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    *,
    n_jobs: int | None = None,
    true_features: FeatureMatrix | None = None,
    rescaling: str = "margin",
    summed: bool = False,
) -> Iterator[ConstraintSource]:
    """Hold the training set where the oracle passes of a fit will run, for the block.

    The parameters are :class:`~structsvm.solvers._cutting_plane.TaskConstraints`'. On a Dask
    cluster (joblib's "dask" backend and ``n_jobs`` not 1): a :class:`ClusterConstraints`.
    Otherwise, for margin rescaling and a task with a compiled oracle, its compiled passes on
    ``n_jobs`` threads (:class:`~structsvm.solvers._summed_pass.CompiledSummedPasses` if
    ``summed``, else :class:`~structsvm.solvers._example_pass.CompiledExamplePasses`); else a
    :class:`~structsvm.solvers._cutting_plane.TaskConstraints`.
    """
    client = dask_client(n_jobs)
    if client is not None:
        with ClusterConstraints(
            client, task, X, Y, n_jobs=n_jobs, true_features=true_features,
            rescaling=rescaling, summed=summed,
        ) as source:
            yield source
        return
    passes = CompiledSummedPasses if summed else CompiledExamplePasses
    source = (
        passes.prepare(task, X, Y, n_jobs=n_jobs, true_features=true_features)
        if rescaling == "margin"
        else None
    )
    yield source if source is not None else TaskConstraints(
        task, X, Y, n_jobs=n_jobs, true_features=true_features, rescaling=rescaling,
        summed=summed,
    )


def task_cutting_plane(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    C: float,
    formulation: Formulation,
    optimiser: DualOptimiser,
    *,
    n_jobs: int | None,
    true_features: FeatureMatrix | None,
    rescaling: str,
    summed: bool,
    **loop: Any,
) -> Iterator[SolverState]:
    """Run :func:`~structsvm.solvers._cutting_plane.cutting_plane` (with the options ``loop``)
    on the training set that :func:`training_set` holds for the run."""
    with training_set(
        task, X, Y, n_jobs=n_jobs, true_features=true_features, rescaling=rescaling,
        summed=summed,
    ) as source:
        yield from cutting_plane(source, C, formulation, optimiser, **loop)
