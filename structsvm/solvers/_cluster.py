"""A training set kept on the workers of a Dask cluster for the whole of a fit.

Inside ``joblib.parallel_backend("dask")``, with a ``dask.distributed.Client`` connected, a
solver whose ``n_jobs`` is not 1 does not send chunks of the data with every oracle call, as
:func:`~structsvm._utils.parallel.map_chunks` does: it scatters the training set once per fit,
one contiguous shard of examples (inputs, outputs and the task) per worker slot, whose true
joint features the worker computes once, and every oracle pass then submits one small task
per shard that carries only the weights ``w``. Each worker makes the pass over its own shard
where the shard lives — the oracle, the losses, the joint features of the outputs, the
contract checks and the slacks — and sends back only what the solver needs:

* the n-slack solver and BCFW's gap evaluation need every example's output, loss, slack and
  joint feature (:class:`ShardOutputs`): what travels back grows with the shard, what is sent
  does not;
* the 1-slack solver needs only the aggregated constraint and the one slack
  (:class:`~structsvm.solvers._oracle.PassSummary`): ``Σ_i v_i(ŷ_i)``, ``Σ_i Δ(y_i, ŷ_i)`` and
  ``Σ_i ξ_i(w)``, ``size_joint_feature + 2`` numbers per shard however many examples it holds.
  It keeps no cache of outputs per example, so nothing else has to come back.

The shards are released when the fit ends, completes, fails or is interrupted, and so are the
tasks of a pass that a KeyboardInterrupt cut short: no futures outlive the fit.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from joblib import effective_n_jobs

from structsvm._task import Task
from structsvm._utils.parallel import check_picklable, dask_client, joined_chunks
from structsvm.solvers._cutting_plane import ConstraintSource, TaskConstraints
from structsvm.solvers._example_pass import CompiledExamplePasses
from structsvm.solvers._oracle import (
    FeatureMatrix,
    OraclePass,
    PassSummary,
    column_sums,
    loss_augmented_pass,
)
from structsvm.solvers._summed_pass import CompiledSummedPasses
from structsvm.solvers._working_set import FeatureSpace


@dataclass
class Shard:
    """The examples one worker holds for a fit, with the task that makes passes over them.

    Their true joint features are computed where the shard lives, on its first pass, and kept
    there: they are often larger than the data, and never need to travel.
    """

    task: Task
    X: Sequence[Any]
    Y: Sequence[Any]

    @functools.cached_property
    def true_features(self) -> FeatureMatrix:
        """The rows φ(x_i, y_i) of the shard."""
        return self.task.batch_joint_feature(self.X, self.Y)

    @functools.cached_property
    def true_feature_sum(self) -> np.ndarray:
        """Their sum (see :func:`~structsvm.solvers._oracle.column_sums`)."""
        return column_sums(self.true_features)


@dataclass
class ShardOutputs:
    """What a pass over a shard sends back when the solver needs every example."""

    outputs: Sequence[Any]
    losses: np.ndarray
    slacks: np.ndarray
    features: FeatureMatrix
    certified: bool


def shard_pass(shard: Shard, w: np.ndarray, rescaling: str, summed: bool) -> Any:
    """Make the oracle pass over a shard at ``w`` (on the worker holding it).

    Returns its :class:`~structsvm.solvers._oracle.PassSummary` if ``summed``, its
    :class:`ShardOutputs` otherwise.
    """
    oracle = loss_augmented_pass(
        shard.task,
        shard.X,
        shard.Y,
        shard.true_features,
        w,
        true_feature_sum=shard.true_feature_sum if summed else None,
        rescaling=rescaling,
    )
    if summed:
        return PassSummary.of(oracle)
    return ShardOutputs(
        oracle.outputs, oracle.losses, oracle.slacks, oracle.features, oracle.certified
    )


class ClusterConstraints:
    """A task's training set held in shards by the workers of a Dask cluster.

    A :class:`~structsvm.solvers._cutting_plane.ConstraintSource`, and a context manager:
    entering scatters the shards (once), leaving releases them.

    Parameters
    ----------
    client : dask.distributed.Client
    task : Task
    X, Y : sequences of training inputs and outputs (already validated by the task)
    n_jobs : int or None
        The solver's ``n_jobs``, read inside joblib's "dask" backend: one shard per worker
        slot it asks for (``effective_n_jobs(n_jobs)``), at most one per example.
    true_features : ndarray or sparse matrix, optional
        The rows φ(x_i, y_i), if the caller has them; computed here unless ``summed`` (the
        workers compute their own shard's).
    rescaling : {"margin", "slack"}, default="margin"
        The constraints (see :mod:`structsvm.solvers._oracle`).
    summed : bool, default=False
        Whether the solver needs only the sums of a pass (1-slack): :meth:`oracle_pass` then
        returns a :class:`~structsvm.solvers._oracle.PassSummary`, else an
        :class:`~structsvm.solvers._oracle.OraclePass`.
    """

    def __init__(
        self,
        client: Any,
        task: Task,
        X: Sequence[Any],
        Y: Sequence[Any],
        *,
        n_jobs: int | None,
        true_features: FeatureMatrix | None = None,
        rescaling: str = "margin",
        summed: bool = False,
    ) -> None:
        self.client, self.task, self.X, self.Y = client, task, X, Y
        self.rescaling, self.summed = rescaling, summed
        self.n_examples = len(X)
        self.n_jobs = n_jobs
        self.n_shards = max(1, min(effective_n_jobs(n_jobs), self.n_examples))
        self.space = FeatureSpace(task.size_joint_feature)
        if true_features is None and not summed:
            true_features = task.batch_joint_feature(X, Y)
        # The rows of the constraints a per-example pass returns are formed here.
        self.true_features = true_features
        self._shards: list[Any] = []

    def __enter__(self) -> ClusterConstraints:
        check_picklable(self.task.batch_loss_augmented_argmax, self.n_jobs)
        bounds = np.linspace(0, self.n_examples, self.n_shards + 1).astype(int)
        shards = [
            Shard(self.task, self.X[begin:stop], self.Y[begin:stop])
            for begin, stop in itertools.pairwise(bounds)
        ]
        # One call for all the shards: the scheduler spreads them over the workers.
        self._shards = self.client.scatter(shards, hash=False)
        return self

    def __exit__(self, *exc_info: object) -> None:
        shards, self._shards = self._shards, []
        self.client.cancel(shards)

    def zero_weights(self) -> np.ndarray:
        """Return ``w = 0``."""
        return self.space.zero_weights()

    def oracle_pass(self, w: np.ndarray) -> OraclePass | PassSummary:
        """Make the pass at ``w`` on the workers; send only ``w``, receive what is needed."""
        if not self._shards:
            raise RuntimeError("the training set is on the cluster only inside a with block")
        futures = [
            self.client.submit(shard_pass, shard, w, self.rescaling, self.summed, pure=False)
            for shard in self._shards
        ]
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

    On a Dask cluster (joblib's "dask" backend active and ``n_jobs`` not 1) that is the
    cluster's workers: a :class:`ClusterConstraints` with one shard per worker slot,
    ``summed`` as given. Anywhere else it is this process: for margin rescaling, if the task
    offers a compiled oracle (:meth:`~structsvm.Task.compiled_oracle`), a
    :class:`~structsvm.solvers._summed_pass.CompiledSummedPasses` if ``summed``, a
    :class:`~structsvm.solvers._example_pass.CompiledExamplePasses` if not, whose passes are
    compiled calls on ``n_jobs`` threads; otherwise a
    :class:`~structsvm.solvers._cutting_plane.TaskConstraints` whose passes run through
    :func:`~structsvm._utils.parallel.map_chunks` on ``n_jobs`` joblib workers or threads.
    """
    client = dask_client(n_jobs)
    compiled: ConstraintSource | None = None
    if client is None and rescaling == "margin":
        passes = CompiledSummedPasses if summed else CompiledExamplePasses
        compiled = passes.prepare(task, X, Y, n_jobs=n_jobs, true_features=true_features)
    if compiled is not None:
        yield compiled
        return
    if client is None:
        yield TaskConstraints(
            task,
            X,
            Y,
            n_jobs=n_jobs,
            true_features=true_features,
            rescaling=rescaling,
            summed=summed,
        )
        return
    with ClusterConstraints(
        client,
        task,
        X,
        Y,
        n_jobs=n_jobs,
        true_features=true_features,
        rescaling=rescaling,
        summed=summed,
    ) as source:
        yield source
