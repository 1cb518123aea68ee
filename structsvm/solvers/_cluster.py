"""Where the oracle passes of a fit run: a Dask cluster, compiled threads or joblib workers.

Inside ``joblib.parallel_backend("dask")`` with a connected ``dask.distributed.Client``, a solver
whose ``n_jobs`` is not 1 scatters the training set once per fit, one shard of consecutive
examples per worker slot; each pass then sends only ``w``, and gets back every example's results
(:class:`ShardOutputs`) or only their sums (1-slack). The shards, and the tasks of an interrupted
pass, are released when the fit ends, however it ends.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from structsvm._task import Task
from structsvm._utils.parallel import (
    check_picklable,
    dask_client,
    effective_n_jobs,
    joined_chunks,
)
from structsvm.solvers._cutting_plane import ConstraintSource, TaskConstraints
from structsvm.solvers._example_pass import CompiledExamplePasses
from structsvm.solvers._oracle import FeatureMatrix, OraclePass, PassSummary
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
    """Make the oracle pass over a shard at ``w`` (on the worker holding it)."""
    oracle = shard.oracle_pass(w)
    if isinstance(oracle, PassSummary):
        return oracle
    return ShardOutputs(
        oracle.outputs, oracle.losses, oracle.slacks, oracle.features, oracle.certified
    )


class ClusterConstraints(TaskConstraints):
    """A task's training set held in shards by the workers of a Dask ``client``.

    A context manager: entering scatters the shards, leaving releases them. The other
    parameters are :class:`~structsvm.solvers._cutting_plane.TaskConstraints`'; a worker
    computes its shard's true joint features, this process only those a per-example pass needs.
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
    cluster (joblib's "dask" backend and ``n_jobs`` not 1): a :class:`ClusterConstraints`; for
    margin rescaling on a task with a compiled oracle, its compiled passes on ``n_jobs`` threads;
    else a :class:`~structsvm.solvers._cutting_plane.TaskConstraints`.
    """
    options = dict(n_jobs=n_jobs, true_features=true_features)
    client = dask_client(n_jobs)
    if client is not None:
        with ClusterConstraints(
            client, task, X, Y, rescaling=rescaling, summed=summed, **options
        ) as source:
            yield source
        return
    passes = CompiledSummedPasses if summed else CompiledExamplePasses
    source = passes.prepare(task, X, Y, **options) if rescaling == "margin" else None
    if source is None:
        source = TaskConstraints(task, X, Y, rescaling=rescaling, summed=summed, **options)
    yield source
