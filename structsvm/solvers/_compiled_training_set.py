"""What the compiled passes of the cutting-plane solvers share: the task's compiled oracle.

The 1-slack pass (:class:`~structsvm.solvers._summed_pass.CompiledSummedPasses`) and the
per-example pass (:class:`~structsvm.solvers._example_pass.CompiledExamplePasses`) are found
and called the same way; each adds its own compiled function.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import scipy.sparse

from structsvm._compiled_oracle import CompiledOracle, find_compiled_oracle
from structsvm._task import Task
from structsvm._utils.parallel import compiled_threads
from structsvm.solvers._cutting_plane import TaskConstraints
from structsvm.solvers._example_oracle import NO_TABLE
from structsvm.solvers._oracle import FeatureMatrix


class CompiledTrainingSet(TaskConstraints):
    """A training set (margin rescaling) whose passes run through the task's compiled oracle.

    A pass whose results are not finite (scores that overflow) is made again by the Python
    pass of :class:`~structsvm.solvers._cutting_plane.TaskConstraints`, whose checks say what
    is wrong.

    Parameters
    ----------
    task : Task
    X, Y : sequences of training inputs and outputs (already validated by the task)
    oracle : CompiledOracle
        What :meth:`structsvm.Task.compiled_oracle` returned for (X, Y).
    true_features : sparse matrix
        The rows φ(x_i, y_i).
    n_jobs : int or None, default=None
        Numba's threads of every pass (:func:`~structsvm._utils.parallel.compiled_threads`);
        the results do not depend on it.
    summed : bool, default=False
        As for :class:`~structsvm.solvers._cutting_plane.TaskConstraints`.
    """

    #: What the passes are for, as the ``structsvm`` log names them.
    purpose: ClassVar[str] = "compiled passes"

    def __init__(
        self,
        task: Task,
        X: Sequence[Any],
        Y: Sequence[Any],
        oracle: CompiledOracle,
        true_features: FeatureMatrix,
        *,
        n_jobs: int | None = None,
        summed: bool = False,
    ) -> None:
        super().__init__(task, X, Y, n_jobs=n_jobs, true_features=true_features, summed=summed)
        self.oracle, self.functions = oracle, oracle.functions()

    @classmethod
    def prepare(
        cls,
        task: Task,
        X: Sequence[Any],
        Y: Sequence[Any],
        *,
        n_jobs: int | None = None,
        true_features: FeatureMatrix | None = None,
        compiled: bool | None = None,
    ) -> Any:
        """Return the training set with the task's compiled oracle, or None.

        ``true_features`` are kept if sparse, else made sparse by the oracle
        (:meth:`~structsvm.CompiledOracle.feature_rows`); ``compiled`` is read as by
        :func:`~structsvm._compiled_oracle.find_compiled_oracle`.
        """
        oracle = find_compiled_oracle(task, X, Y, compiled=compiled, purpose=cls.purpose)
        if oracle is None:
            return None
        if not scipy.sparse.issparse(true_features):
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
