"""What every structured learner shares: prediction, scoring and the fitted-state check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from structsvm._task import Task, check_size_joint_feature
from structsvm._utils.estimator import BaseEstimator, not_fitted_error
from structsvm._utils.parallel import map_chunks
from structsvm._utils.validation import InstancesOf, ParameterConstraints, validate_parameters


class StructuredEstimator(BaseEstimator):
    """Base of the learners: a task, a learned weight vector ``w_``, ``predict`` and ``score``.

    Subclasses set ``w_`` in ``fit``; ``predict`` then runs the task's argmax oracle, on
    ``n_jobs`` joblib workers for learners with that parameter and serially for the others.
    They declare their hyper-parameters in a ``_parameter_constraints`` table merged with this
    class's, which holds ``task`` (see :mod:`structsvm._utils.validation`).
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        "task": [InstancesOf(Task, "a structsvm.Task instance")],
    }

    task: Task
    n_jobs: int | None = 1

    def _check_task(self) -> Task:
        """Return the task; raise a TypeError if it is not a Task or lacks its size."""
        validate_parameters(self, only=("task",))
        check_size_joint_feature(self.task)
        return self.task

    def _check_fitted(self) -> None:
        if not hasattr(self, "w_"):
            raise not_fitted_error(
                f"This {type(self).__name__} is not fitted yet: call fit(X, Y) before predicting"
            )

    def predict(self, X: Sequence[Any]) -> Sequence[Any]:
        """Return ``argmax_y w · φ(x, y)`` for every input in X."""
        task = self._check_task()
        self._check_fitted()
        X, _ = task.check_data(X)
        return map_chunks(task.batch_argmax, (X,), self.w_, n_jobs=self.n_jobs)

    def score(self, X: Sequence[Any], Y: Sequence[Any]) -> float:
        """Return ``1 - Σ Δ(Y[i], ŷ_i) / Σ max_loss(Y[i])``.

        For the 0/1 loss this is the accuracy; for the Hamming loss of sequences, the accuracy
        per position.
        """
        task = self._check_task()
        X, Y = task.check_data(X, Y)
        losses = task.batch_loss(Y, self.predict(X))
        worst = sum(task.max_loss(y) for y in Y)
        return float(1.0 - np.sum(losses) / worst) if worst > 0 else 1.0
