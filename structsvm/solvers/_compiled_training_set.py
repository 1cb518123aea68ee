"""A training set whose oracle passes run through its task's compiled oracle: the shared part.

The 1-slack pass (:class:`~structsvm.solvers._summed_pass.CompiledSummedPasses`) and the
per-example pass (:class:`~structsvm.solvers._example_pass.CompiledExamplePasses`) are
:class:`~structsvm.solvers._cutting_plane.ConstraintSource` objects that hold the same things
and are found the same way; each adds its own pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import scipy.sparse

from structsvm._compiled_oracle import CompiledOracle, find_compiled_oracle
from structsvm._task import Task
from structsvm.solvers._oracle import FeatureMatrix
from structsvm.solvers._working_set import FeatureSpace


class CompiledTrainingSet:
    """The training set, the task's compiled oracle and its functions, the true joint features.

    Parameters
    ----------
    task : Task
    X, Y : sequences of training inputs and outputs (already validated by the task)
    oracle : CompiledOracle
        What :meth:`structsvm.Task.compiled_oracle` returned for (X, Y).
    true_features : ndarray or sparse matrix
        The rows φ(x_i, y_i).
    n_jobs : int or None, default=None
        Numba's threads of every pass (:func:`~structsvm._utils.parallel.compiled_threads`);
        the results do not depend on it.
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
    ) -> None:
        self.task, self.X, self.Y = task, X, Y
        self.oracle, self.functions = oracle, oracle.functions()
        self.true_features = true_features
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
        compiled: bool | None = None,
    ) -> Any:
        """Return the training set with the task's compiled oracle, or None.

        ``true_features`` are the rows φ(x_i, y_i) if the caller has them in a sparse matrix;
        otherwise (none, or dense rows) the oracle makes them sparse
        (:meth:`~structsvm.CompiledOracle.feature_rows`), as the passes read them. ``compiled``
        is read as by :func:`~structsvm._compiled_oracle.find_compiled_oracle`.
        """
        oracle = find_compiled_oracle(task, X, Y, compiled=compiled, purpose=cls.purpose)
        if oracle is None:
            return None
        if not scipy.sparse.issparse(true_features):
            true_features = oracle.feature_rows(Y, task.size_joint_feature)
        return cls(task, X, Y, oracle, true_features, n_jobs=n_jobs)

    def zero_weights(self) -> np.ndarray:
        """Return ``w = 0``."""
        return self.space.zero_weights()
