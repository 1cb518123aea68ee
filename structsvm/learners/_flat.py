"""What the flat estimators built on a structural SVM share: parameters, inputs, the inner SVM.

A flat estimator (MulticlassSVM, RankingSVM, PerformanceSVM) takes plain arrays, builds a task
and trains a :class:`StructuredSVM` on it. The hyper-parameters it passes on are declared here
once, with StructuredSVM's own validation rules, and so is the check of its inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from structsvm._task import Task
from structsvm._utils.estimator import BaseEstimator
from structsvm._utils.validation import ParameterConstraints, errors_naming
from structsvm.learners._ssvm import _SOLVER_SPECIFIC, StructuredSVM

FLAT_PARAMETERS = (
    "C",
    "solver",
    "tol",
    "max_iter",
    "random_state",
    "n_jobs",
    "progress",
    "verbose",
)
"""The parameters that flat estimators declare by default and pass on to their StructuredSVM."""

PASSED_ON = (
    FLAT_PARAMETERS + tuple(sorted(_SOLVER_SPECIFIC - set(FLAT_PARAMETERS))) + ("warm_start",)
)
"""Every parameter a flat estimator may declare and pass on: FLAT_PARAMETERS, the options
that only some solvers take (bcfw's steps, order and averaging, the cutting planes' window)
and ``warm_start``."""


def flat_parameter_constraints(names: Sequence[str] = FLAT_PARAMETERS) -> ParameterConstraints:
    """Return StructuredSVM's validation rules for ``names``, a subset of PASSED_ON."""
    unknown = set(names) - set(PASSED_ON)
    if unknown:
        raise ValueError(f"not parameters passed on to StructuredSVM: {sorted(unknown)}")
    return {name: StructuredSVM._parameter_constraints[name] for name in names}


def structural_svm_for(estimator: Any, task: Task) -> StructuredSVM:
    """Return a StructuredSVM on ``task`` with the values of the PASSED_ON ``estimator`` has.

    The parameters the estimator does not declare keep StructuredSVM's defaults; those it
    declares are validated by StructuredSVM's own rules when it fits.
    """
    declared = type(estimator)._parameter_constraints
    return StructuredSVM(
        task, **{name: getattr(estimator, name) for name in PASSED_ON if name in declared}
    )


def with_intercept_column(X: np.ndarray, fit_intercept: bool) -> np.ndarray:
    """Return X with a constant column of ones appended when fitting an intercept."""
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def check_inputs(estimator: BaseEstimator, X: Any, *, reset: bool, sparse: bool = False) -> Any:
    """Return the inputs X of a flat estimator as scikit-learn validates them, errors naming X.

    A finite, non-empty 2-D float64 array (or CSR matrix if ``sparse``); ``reset=True`` (in
    fit) records ``n_features_in_``, ``reset=False`` checks X against it.
    """
    # Imported here: scikit-learn's validation brings in much of scikit-learn.
    from sklearn.utils.validation import validate_data

    with errors_naming("X"):
        return validate_data(
            estimator, X, dtype=np.float64, reset=reset, accept_sparse="csr" if sparse else False
        )
