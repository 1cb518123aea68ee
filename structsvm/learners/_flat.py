"""What the flat classifiers built on a structural SVM share: inputs and the inner fit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from structsvm._task import Task
from structsvm.learners._ssvm import StructuredSVM


def with_intercept_column(X: np.ndarray, fit_intercept: bool) -> np.ndarray:
    """Return X with a constant column of ones appended when fitting an intercept."""
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def fit_structural_svm(
    estimator: BaseEstimator, task: Task, X: Sequence[Any], Y: Sequence[Any]
) -> StructuredSVM:
    """Return a :class:`StructuredSVM` on ``task`` fitted to (X, Y).

    It takes every hyper-parameter of ``estimator`` that it also has (C, solver, tol, ...).
    """
    shared = {
        name: value
        for name, value in estimator.get_params(deep=False).items()
        if name in StructuredSVM._parameter_constraints and name != "task"
    }
    return StructuredSVM(task, **shared).fit(X, Y)
