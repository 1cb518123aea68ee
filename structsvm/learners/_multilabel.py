"""Multi-label classification on a graph over the labels as a flat scikit-learn classifier."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from structsvm._utils.estimator import BaseEstimator, ClassifierMixin, check_is_fitted
from structsvm._utils.validation import (
    BOOLEAN,
    ArrayLikes,
    Options,
    ParameterConstraints,
    check_indicator_targets,
    validate_parameters,
)
from structsvm.inference import INFERENCE_METHODS
from structsvm.learners._flat import (
    check_inputs,
    flat_parameter_constraints,
    structural_svm_for,
    with_intercept_column,
)


class MultiLabelSVM(ClassifierMixin, BaseEstimator):
    """Multi-label structural SVM on plain arrays: which of k labels apply to each input.

    ``fit`` takes X (n, d) and a 0/1 indicator Y (n, k), scikit-learn's multi-label
    convention, builds a :class:`tasks.MultiLabelTask` on the label graph ``edges`` and trains
    a :class:`~structsvm.StructuredSVM` on it: ``½‖w‖² + C Σ_i ξ_i`` with the Hamming loss,
    where w holds one weight row per label (scoring x when the label is on) and a 2 × 2 table
    per edge of the label graph. With ``edges="independent"`` this is k binary hinge-loss
    SVMs with the same C (``LinearSVC(C=C, loss="hinge")`` per label, intercept penalised);
    ``"tree"`` joins the labels by the Chow–Liu tree of the training labels' mutual
    information (exact max-product inference) and ``"full"`` joins every pair (exact
    enumeration of the 2^k labellings up to 12 labels). ``predict`` returns the labelling of
    highest score.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the slacks.
    edges : {"independent", "tree", "full"} or array of shape (m, 2), default="independent"
        The label graph; see :class:`tasks.MultiLabelTask`.
    inference_method : str, optional
        One of :data:`structsvm.inference.INFERENCE_METHODS`; the task's exact default if None.
    solver : {"auto", "n-slack", "1-slack", "bcfw"}, default="auto"
        How the structural SVM is trained; see :class:`~structsvm.StructuredSVM`. "auto"
        picks one by what the task offers.
    tol : float, default=1e-3
        Stop when the duality gap is at most ``tol`` times the primal objective.
    max_iter : int, optional
        Most solver iterations; the solver's default when None.
    fit_intercept : bool, default=True
        Learn one intercept per label, as the weights of a constant input feature equal to 1
        (penalised with the weights).
    random_state : int, RandomState or None, default=None
        Seed of the "bcfw" solver's random order.
    n_jobs : int or None, default=None
        Workers for the oracle calls, as in :class:`~structsvm.StructuredSVM`.
    progress : bool, default=False
        Show a progress bar during fit.
    verbose : int, default=0
        Log every solver iteration to the ``structsvm`` logger when >= 1.

    Attributes
    ----------
    classes_ : ndarray of shape (n_labels,)
        The label indices ``0 .. n_labels - 1``, the columns of Y (as scikit-learn's
        multi-label one-vs-rest classifier has them).
    coef_ : ndarray of shape (n_labels, n_features)
        The weights of each label, scoring x when the label is on.
    intercept_ : ndarray of shape (n_labels,)
        One intercept per label (zeros when ``fit_intercept=False``).
    edges_ : ndarray of shape (n_edges, 2)
        The label graph's edges (the fitted tree for ``edges="tree"``).
    pairwise_ : ndarray of shape (n_edges, 2, 2)
        ``pairwise_[e, a, b]`` scores edge (u, v) with ``y_u = a`` and ``y_v = b``.
    n_features_in_ : int
        Number of features seen in fit.
    n_iter_ : int
        Solver iterations run.
    svm_ : StructuredSVM
        The fitted structural SVM, with its ``history_``, ``converged_`` and duality gap.

    References
    ----------
    T. Finley and T. Joachims, "Training structural SVMs when exact inference is
    intractable", ICML 2008.
    C. K. Chow and C. N. Liu, "Approximating discrete probability distributions with
    dependence trees", IEEE Transactions on Information Theory 14(3), 1968.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        **flat_parameter_constraints(),
        "edges": [Options("independent", "tree", "full"), ArrayLikes()],
        "inference_method": [Options(*INFERENCE_METHODS), None],
        "fit_intercept": [BOOLEAN],
    }

    def __init__(
        self,
        *,
        C: float = 1.0,
        edges: str | np.ndarray = "independent",
        inference_method: str | None = None,
        solver: str = "auto",
        tol: float = 1e-3,
        max_iter: int | None = None,
        fit_intercept: bool = True,
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
        progress: bool = False,
        verbose: int = 0,
    ) -> None:
        self.C = C
        self.edges = edges
        self.inference_method = inference_method
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.classifier_tags.multi_label = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    def fit(self, X: Any, Y: Any) -> MultiLabelSVM:
        """Train on a (n_samples, n_features) array X and a 0/1 array Y (n_samples, n_labels).

        Raises
        ------
        ValueError
            If a hyper-parameter is invalid, if X is malformed, or if Y is not a 2-D array of
            zeros and ones with a row per input.
        """
        # Imported here: scikit-learn's validation brings in much of scikit-learn.
        from sklearn.utils.validation import validate_data

        validate_parameters(self)
        X, Y = validate_data(self, X, Y, dtype=np.float64, multi_output=True)
        check_indicator_targets(Y)
        Y = _check_indicator(Y)
        inputs = with_intercept_column(X, self.fit_intercept)
        # The framework knows no concrete task at import time; the ready-made task lives in
        # the top-level ``tasks`` package, which itself imports structsvm.
        from tasks import MultiLabelTask

        n_labels = Y.shape[1]
        task = MultiLabelTask(n_labels, inputs.shape[1], self.edges, self.inference_method)
        self.svm_ = structural_svm_for(self, task).fit(inputs, Y)
        weights = self.svm_.w_[: n_labels * inputs.shape[1]].reshape(n_labels, -1)
        self.n_iter_ = self.svm_.n_iter_
        self.classes_ = np.arange(n_labels)
        self.coef_ = weights[:, : X.shape[1]]
        self.intercept_ = weights[:, -1] if self.fit_intercept else np.zeros(n_labels)
        self.edges_ = task.edges_
        self.pairwise_ = task.pairwise_scores(self.svm_.w_)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Return the labelling of highest score of every input, a 0/1 array (n, n_labels)."""
        check_is_fitted(self, "coef_")
        X = check_inputs(self, X, reset=False)
        inputs = with_intercept_column(X, self.fit_intercept)
        return np.array(self.svm_.predict(inputs), dtype=np.int64).reshape(len(X), -1)


def _check_indicator(Y: np.ndarray) -> np.ndarray:
    """Return Y as an int64 0/1 array of shape (n, n_labels); raise ValueError otherwise."""
    if Y.ndim != 2:
        raise ValueError(
            "Y must be a 2-D 0/1 indicator array of shape (n_samples, n_labels), one column "
            f"per label, got shape {Y.shape}"
        )
    if not np.all((Y == 0) | (Y == 1)):
        values = np.unique(Y)
        raise ValueError(
            f"Y must hold only 0 and 1 (label off, label on), found the values {values[:5]}"
        )
    return Y.astype(np.int64)
