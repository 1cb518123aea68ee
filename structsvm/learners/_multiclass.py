"""The multiclass SVM of Crammer & Singer as a flat scikit-learn classifier."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from structsvm._utils.estimator import BaseEstimator, ClassifierMixin, check_is_fitted
from structsvm._utils.validation import (
    BOOLEAN,
    ArrayLikes,
    ParameterConstraints,
    check_class_labels,
    check_consistent_length,
    check_targets_given,
    validate_parameters,
)
from structsvm.learners._flat import (
    check_inputs,
    flat_parameter_constraints,
    structural_svm_for,
    with_intercept_column,
)


class MulticlassSVM(ClassifierMixin, BaseEstimator):
    """Multiclass SVM (Crammer & Singer, JMLR 2001) on plain arrays, trained as a structural SVM.

    ``fit`` builds a :class:`tasks.MulticlassTask` for the classes found in y and trains a
    :class:`~structsvm.StructuredSVM` on it, which minimises
    ``½‖W‖² + C Σ_i max_y (Δ(y_i, y) + W[y]·x_i − W[y_i]·x_i)``. With the 0/1 loss and
    ``fit_intercept=False`` this is scikit-learn's
    ``LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C)``.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the slacks.
    solver : {"auto", "n-slack", "1-slack", "bcfw", "dual-cd"}, default="auto"
        How the structural SVM is trained; see :class:`~structsvm.StructuredSVM`. "dual-cd"
        (exact dual coordinate descent on the Crammer–Singer subproblems, Keerthi et al. 2008)
        is the fastest, for the 0/1 loss as for any loss matrix, and is what "auto" picks when
        the task's compiled oracle counts its outputs (``CompiledOracle.n_outputs``); the
        solver that ran is ``svm_.solver_``.
    tol : float, default=1e-3
        Stop when the duality gap is at most ``tol`` times the primal objective.
    max_iter : int, optional
        Most solver iterations; the solver's default when None.
    loss_matrix : array of shape (n_classes, n_classes), optional
        ``loss_matrix[j, k]`` is the cost of predicting ``classes_[k]`` for ``classes_[j]``
        (the classes in sorted order): finite, non-negative, zero diagonal. Default: 0/1 loss.
    fit_intercept : bool, default=True
        Learn one intercept per class, as the weights of a constant input feature equal to 1.
        The intercepts are penalised with the weights (as in ``LinearSVC`` with
        ``intercept_scaling=1``).
    random_state : int, RandomState or None, default=None
        Seed of the "bcfw" and "dual-cd" solvers' random order.
    n_jobs : int or None, default=None
        Workers for the oracle calls, as in :class:`~structsvm.StructuredSVM`.
    progress : bool, default=False
        Show a progress bar during fit.
    verbose : int, default=0
        Log every solver iteration to the ``structsvm`` logger when >= 1.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    coef_ : ndarray of shape (n_classes, n_features)
        One weight row per class.
    intercept_ : ndarray of shape (n_classes,)
        One intercept per class (zeros when ``fit_intercept=False``).
    n_features_in_ : int
        Number of features seen in fit.
    n_iter_ : int
        Solver iterations run.
    svm_ : StructuredSVM
        The fitted structural SVM, with its ``history_``, ``converged_`` and duality gap.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        **flat_parameter_constraints(),
        "loss_matrix": [ArrayLikes(), None],
        "fit_intercept": [BOOLEAN],
    }

    def __init__(
        self,
        *,
        C: float = 1.0,
        solver: str = "auto",
        tol: float = 1e-3,
        max_iter: int | None = None,
        loss_matrix: np.ndarray | None = None,
        fit_intercept: bool = True,
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
        progress: bool = False,
        verbose: int = 0,
    ) -> None:
        self.C = C
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.loss_matrix = loss_matrix
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress
        self.verbose = verbose

    def fit(self, X: Any, y: Any) -> MulticlassSVM:
        """Train on a (n_samples, n_features) array X and labels y of any values; return self.

        Raises
        ------
        ValueError
            If a hyper-parameter is invalid, if X or y are malformed, if y holds fewer than
            two classes, or if ``loss_matrix`` does not match the number of classes.
        """
        validate_parameters(self)
        check_targets_given(y)
        X = check_inputs(self, X, reset=True)
        y = check_class_labels(y)
        check_consistent_length(X, y)
        self.classes_, encoded = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                "Classifier can't train when only one class is present: y must hold at least "
                f"two classes, got only {self.classes_[0]!r}"
            )

        inputs = with_intercept_column(X, self.fit_intercept)
        # The framework knows no concrete task at import time; the ready-made multiclass task
        # lives in the top-level ``tasks`` package, which itself imports structsvm.
        from tasks import MulticlassTask

        task = MulticlassTask(len(self.classes_), inputs.shape[1], loss_matrix=self.loss_matrix)
        self.svm_ = structural_svm_for(self, task).fit(inputs, encoded)
        weights = self.svm_.w_.reshape(len(self.classes_), inputs.shape[1])
        self.n_iter_ = self.svm_.n_iter_
        self.coef_ = weights[:, : X.shape[1]]
        self.intercept_ = (
            weights[:, -1] if self.fit_intercept else np.zeros(len(self.classes_))
        )
        return self

    def class_scores(self, X: Any) -> np.ndarray:
        """Return ``coef_[k] · x + intercept_[k]`` for every input and class, (n, n_classes)."""
        check_is_fitted(self, "coef_")
        X = check_inputs(self, X, reset=False)
        return X @ self.coef_.T + self.intercept_

    def decision_function(self, X: Any) -> np.ndarray:
        """Return the class scores, shape (n, n_classes); with two classes, shape (n,).

        With two classes the score is that of ``classes_[1]`` minus that of ``classes_[0]``,
        positive where ``classes_[1]`` is predicted (scikit-learn's binary convention).
        """
        scores = self.class_scores(X)
        return scores[:, 1] - scores[:, 0] if len(self.classes_) == 2 else scores

    def predict(self, X: Any) -> np.ndarray:
        """Return the class of highest score for every input (ties: the first in ``classes_``)."""
        best = np.argmax(self.class_scores(X), axis=1)
        return self.classes_[best]
