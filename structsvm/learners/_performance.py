"""Joachims' SVM for multivariate performance measures as a flat binary classifier."""

from __future__ import annotations

from numbers import Integral
from typing import Any, ClassVar

import numpy as np

from structsvm._utils.estimator import BaseEstimator, ClassifierMixin, check_is_fitted
from structsvm._utils.validation import (
    BOOLEAN,
    Interval,
    Options,
    ParameterConstraints,
    check_binary_labels,
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


class PerformanceSVM(ClassifierMixin, BaseEstimator):
    r"""Linear binary classifier trained for F1, precision@k, recall@k, PRBEP or ROC area.

    ``fit`` builds a :class:`tasks.MultivariateTask` whose single example is the whole
    training set and trains a :class:`~structsvm.StructuredSVM` on it: Joachims' SVM^Δ_multi,

    .. math:: \min_{w,\ \xi \ge 0}\ \tfrac12 \|w\|^2 + C\,\xi \quad \text{s.t.} \quad
              w\cdot\big(\phi(\bar x, \bar y) - \phi(\bar x, \bar y')\big)
              \ge \Delta(\bar y, \bar y') - \xi \ \text{ for all } \bar y',

    with φ(x̄, ȳ) = Σ_i y_i x_i (over pairs for the ROC area) and Δ = 1 − the measure, in
    [0, 1]. The loss-augmented oracles are the paper's exact ones, so the hinge bound it
    minimises is that of the measure itself rather than of the error rate. The rows x_i are
    scaled by s = 1 / (2n) (by s = 1 / (2 P N), with P positive and N negative examples, for
    the ROC area) before φ is taken; ``coef_`` applies to the unscaled rows. With this scale a
    violated constraint is measured against a margin of 1 in ``coef_ · x``: were Δ the error
    rate, ξ would be the mean hinge loss, ``max(0, 1 − y_i (coef_ · x_i + intercept_))``, over
    the examples, and for the ROC area the averaged hinge loss over the pairs of a ranking SVM.

    Parameters
    ----------
    loss : {"f1", "precision@k", "recall@k", "prbep", "roc_area"}, default="f1"
        The measure to optimise; see :class:`tasks.MultivariateTask`.
    C : float, default=1.0
        Weight of the single slack ξ, as the C of the paper's problem. It is not the C of a
        linear SVM, which weighs the sum of n hinge losses: were Δ the error rate, this problem
        would be ``LinearSVC(C=C / n, loss="hinge")`` (intercept penalised, as with
        ``intercept_scaling=1``).
        The paper takes φ of the unscaled rows and states its losses in percent (λ = 100); a
        loss λ times this one and unscaled rows give the same classifier with the paper's C
        equal to λ·s²·C, and weights λ·s times these.
    k : int, optional
        The k of precision@k and recall@k (required for them, unused otherwise).
    solver : {"1-slack", "n-slack", "bcfw"}, default="1-slack"
        How the structural SVM is trained; with one example the cutting-plane solvers
        coincide with the paper's Algorithm 1.
    tol : float, default=1e-3
        Stop when the duality gap is at most ``tol`` times the primal objective.
    max_iter : int, optional
        Most solver iterations; the solver's default when None.
    fit_intercept : bool, default=True
        Learn an intercept, as the weight of a constant input feature equal to 1 (penalised
        with the weights). The ROC area does not depend on it, so it stays 0 there.
    progress : bool, default=False
        Show a progress bar during fit.
    verbose : int, default=0
        Log every solver iteration to the ``structsvm`` logger when >= 1.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels, sorted; ``classes_[1]`` is the positive class of the measure.
    coef_ : ndarray of shape (n_features,)
        The weights.
    intercept_ : float
        The intercept (0 when ``fit_intercept=False``).
    n_features_in_ : int
        Number of features seen in fit.
    n_iter_ : int
        Solver iterations run.
    svm_ : StructuredSVM
        The fitted structural SVM, with its ``history_``, ``converged_`` and duality gap.

    Notes
    -----
    ``predict`` thresholds ``decision_function`` at 0, as the paper's hypothesis does. For
    precision@k, the PRBEP and the ROC area only the ranking by ``decision_function`` is
    trained; rank by it (and take the top k) rather than thresholding it.

    References
    ----------
    T. Joachims. A support vector method for multivariate performance measures. In
    Proceedings of the 22nd International Conference on Machine Learning (ICML), 2005.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        "loss": [Options("f1", "precision@k", "recall@k", "prbep", "roc_area")],
        "k": [Interval(Integral, 1, None, closed="left"), None],
        "fit_intercept": [BOOLEAN],
        **flat_parameter_constraints(("C", "solver", "tol", "max_iter", "progress", "verbose")),
    }

    def __init__(
        self,
        *,
        loss: str = "f1",
        C: float = 1.0,
        k: int | None = None,
        solver: str = "1-slack",
        tol: float = 1e-3,
        max_iter: int | None = None,
        fit_intercept: bool = True,
        progress: bool = False,
        verbose: int = 0,
    ) -> None:
        self.loss = loss
        self.C = C
        self.k = k
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.progress = progress
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X: Any, y: Any) -> PerformanceSVM:
        """Train on a (n_samples, n_features) array X and binary labels y; return self.

        Raises
        ------
        ValueError
            If a hyper-parameter is invalid (also a missing ``k`` for precision@k or
            recall@k), if X or y are malformed, or if y does not hold exactly two classes.
        """
        validate_parameters(self)
        check_targets_given(y)
        X = check_inputs(self, X, reset=True)
        self.classes_, signs = check_binary_labels(y)
        check_consistent_length(X, signs)
        inputs = with_intercept_column(X, self.fit_intercept)
        # The framework knows no concrete task at import time; the ready-made task lives in
        # the top-level ``tasks`` package, which itself imports structsvm.
        from tasks import MultivariateTask

        task = MultivariateTask(inputs.shape[1], self.loss, self.k)
        scaled = inputs * self._feature_scale(signs)
        self.svm_ = structural_svm_for(self, task).fit([scaled], [signs.astype(np.int8)])
        self.n_iter_ = self.svm_.n_iter_
        self.coef_ = self.svm_.w_[: X.shape[1]].copy()
        self.intercept_ = float(self.svm_.w_[-1]) if self.fit_intercept else 0.0
        return self

    def _feature_scale(self, signs: np.ndarray) -> float:
        """Return s = 1 / (2 n), or 1 / (2 P N) for the ROC area: φ is taken of s·x."""
        if self.loss == "roc_area":
            n_positive = int(np.count_nonzero(signs > 0))
            return 0.5 / (n_positive * (len(signs) - n_positive))
        return 0.5 / len(signs)

    def decision_function(self, X: Any) -> np.ndarray:
        """Return ``coef_ · x + intercept_`` for every input, positive towards ``classes_[1]``."""
        check_is_fitted(self, "coef_")
        X = check_inputs(self, X, reset=False)
        return X @ self.coef_ + self.intercept_

    def predict(self, X: Any) -> np.ndarray:
        """Return ``classes_[1]`` where the decision function is positive, else ``classes_[0]``."""
        check_is_fitted(self, "coef_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
