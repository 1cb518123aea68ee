"""A task's training set for the 1-slack solver, its passes made by the task's compiled kernel.

The 1-slack solver needs from an oracle pass only its sums
(:class:`~structsvm.solvers._oracle.PassSummary`). A task that offers a compiled pass
(:meth:`structsvm.Task.summed_pass_kernel`) prepares its data once per fit, here, and every
pass is then one call of its kernel, on ``n_jobs`` threads
(:func:`~structsvm._utils.parallel.oracle_threads`), in place of the oracle, the losses, the
joint features and their sums of :func:`~structsvm.solvers._oracle.loss_augmented_pass`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from joblib import effective_n_jobs

from structsvm._task import Task
from structsvm._utils.parallel import check_n_jobs, oracle_threads
from structsvm.solvers._oracle import (
    FeatureMatrix,
    PassSummary,
    column_sums,
    loss_augmented_pass,
)
from structsvm.solvers._working_set import FeatureSpace


class CompiledSummedPasses:
    """A task's training set whose 1-slack passes run in the task's compiled kernel.

    A :class:`~structsvm.solvers._cutting_plane.ConstraintSource` whose
    :meth:`oracle_pass` returns a :class:`~structsvm.solvers._oracle.PassSummary`. Build it
    with :meth:`prepare`, which returns None when the task has no compiled pass.

    Parameters
    ----------
    task : Task
    X, Y : sequences of training inputs and outputs (already validated by the task)
    kernel, data
        What :meth:`structsvm.Task.summed_pass_kernel` returned for (X, Y).
    true_features : ndarray or sparse matrix
        The rows φ(x_i, y_i); their sum is every constraint's fixed part.
    n_jobs : int or None, default=None
        Threads of every pass (:func:`~structsvm._utils.parallel.oracle_threads`) for a task
        with :attr:`~structsvm.Task.threaded_batches`, one for any other; the sums do not
        depend on it.
    """

    def __init__(
        self,
        task: Task,
        X: Sequence[Any],
        Y: Sequence[Any],
        kernel: Any,
        data: Any,
        true_features: FeatureMatrix,
        *,
        n_jobs: int | None = None,
    ) -> None:
        self.task, self.X, self.Y = task, X, Y
        self.kernel, self.data = kernel, data
        self.true_features = true_features
        self.true_feature_sum = column_sums(true_features)
        self.n_jobs = n_jobs
        self.n_examples = len(X)
        self.space = FeatureSpace(task.size_joint_feature)

    @classmethod
    def prepare(
        cls,
        task: Task,
        X: Sequence[Any],
        Y: Sequence[Any],
        *,
        n_jobs: int | None = None,
        true_features: FeatureMatrix | None = None,
    ) -> CompiledSummedPasses | None:
        """Return the training set with the task's compiled pass, or None.

        ``true_features`` are the rows φ(x_i, y_i) if the caller has them (computed here
        otherwise).

        None if the task has no compiled pass, and if ``n_jobs`` asks for joblib worker
        processes (a task without :attr:`~structsvm.Task.threaded_batches` and more than one
        job): the generic pass then runs on them, as ``n_jobs`` promises.
        """
        if not task.threaded_batches and effective_n_jobs(check_n_jobs(n_jobs)) > 1:
            return None
        prepared = task.summed_pass_kernel(X, Y)
        if prepared is None:
            return None
        if true_features is None:
            true_features = task.batch_joint_feature(X, Y)
        return cls(task, X, Y, *prepared, true_features, n_jobs=n_jobs)

    def zero_weights(self) -> np.ndarray:
        """Return ``w = 0``."""
        return self.space.zero_weights()

    def oracle_pass(self, w: np.ndarray) -> PassSummary:
        """Make the pass at ``w`` in one call of the kernel; return its sums.

        Scores that overflow make the sums not finite: the pass is then made again by
        :func:`~structsvm.solvers._oracle.loss_augmented_pass`, whose checks say what is wrong.
        """
        with oracle_threads(self.task, self.n_jobs):
            feature_sum, loss_sum, slack_sum = self.kernel(self.data, w)
        if not np.isfinite(loss_sum + slack_sum + feature_sum.sum()):
            return PassSummary.of(
                loss_augmented_pass(self.task, self.X, self.Y, self.true_features, w)
            )
        return PassSummary(self.true_feature_sum - feature_sum, loss_sum, slack_sum, True)
