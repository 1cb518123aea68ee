"""Classification into a taxonomy (Cai & Hofmann, CIKM 2004) as a flat scikit-learn classifier."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from structsvm._utils.estimator import BaseEstimator, ClassifierMixin, check_is_fitted
from structsvm._utils.validation import (
    BOOLEAN,
    ArrayLikes,
    InstancesOf,
    Options,
    ParameterConstraints,
    check_class_labels,
    check_consistent_length,
    check_targets_given,
    validate_parameters,
)
from structsvm.learners._flat import check_inputs, flat_parameter_constraints, structural_svm_for


class TaxonomySVM(ClassifierMixin, BaseEstimator):
    """A classifier whose classes are the leaves of a tree, trained as a structural SVM.

    ``fit`` builds a :class:`tasks.TaxonomyTask` and trains a :class:`~structsvm.StructuredSVM`
    on it: with ``features="path"`` an input's score for a class is the sum of the scores of
    the class's ancestors (each node has its weight row), and with ``loss="tree"`` the margin
    asked of a wrong class grows with its distance in the tree (Cai & Hofmann, CIKM 2004).

    The tree comes from the labels themselves when they are paths such as ``"comp/sys/mac"``
    (split on ``separator``; every prefix is a node), or from ``parents`` (then the labels are
    node numbers, leaves of that tree).

    Parameters
    ----------
    C : float, default=1.0
    loss : {"tree", "zero_one", "lca"}, default="tree"
        As :class:`tasks.TaxonomyTask`'s: the tree distance, 0/1, or the height of the lowest
        common ancestor.
    features : {"path", "normalized", "leaf"}, default="path"
        The taxonomy's features; the same with node weights that sum to 1 along every path,
        so that no class weighs more for being deeper (Choi, Sasaki & Srebro 2016); or flat
        ones (one weight row per class).
    level_weights : array of shape (depth + 1,), optional
        The weight of every depth's blocks, the root's first (ones by default).
    normalize_loss : bool, default=False
        Divide the loss by its mean between distinct classes (mean 1, as the 0/1 loss), so
        that C means the same under every loss.
    rescaling : {"margin", "slack"}, default="margin"
        How the loss enters the constraints, as in :class:`~structsvm.StructuredSVM`: slack
        rescaling asks every wrong class for a margin of 1 and weighs its violation by the
        loss, so that a non-uniform loss does not turn into a bias between the classes.
    parents : array of shape (n_nodes,), optional
        The tree as a parent array (-1 for the root); None: read it from the label paths.
    separator : str, default="/"
    fit_intercept : bool, default=True
        Append a constant feature equal to 1 (one intercept per node block).
    solver, tol, max_iter, random_state, n_jobs, progress, verbose
        As in :class:`~structsvm.StructuredSVM` (solver "1-slack" by default).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes (the leaves, as the labels gave them), in the order of the task's leaves.
    parents_ : ndarray of shape (n_nodes,)
    node_names_ : list of str or None
        Every node's path when the tree was read from the labels.
    loss_matrix_ : ndarray of shape (n_classes, n_classes)
        The training loss of predicting ``classes_[k]`` for ``classes_[j]``.
    task_ : TaxonomyTask
    svm_ : StructuredSVM
    n_features_in_ : int
    n_iter_ : int
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        **flat_parameter_constraints(),
        "loss": [Options("tree", "zero_one", "lca")],
        "features": [Options("path", "normalized", "leaf")],
        "level_weights": [ArrayLikes(), None],
        "normalize_loss": [BOOLEAN],
        "rescaling": [Options("margin", "slack")],
        "parents": [ArrayLikes(), None],
        "separator": [InstancesOf(str, "a string")],
        "fit_intercept": [BOOLEAN],
    }

    def __init__(
        self,
        *,
        C: float = 1.0,
        loss: str = "tree",
        features: str = "path",
        level_weights: Any = None,
        normalize_loss: bool = False,
        rescaling: str = "margin",
        parents: Any = None,
        separator: str = "/",
        fit_intercept: bool = True,
        solver: str = "1-slack",
        tol: float = 1e-3,
        max_iter: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
        progress: bool = False,
        verbose: int = 0,
    ) -> None:
        self.C = C
        self.loss = loss
        self.features = features
        self.level_weights = level_weights
        self.normalize_loss = normalize_loss
        self.rescaling = rescaling
        self.parents = parents
        self.separator = separator
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress
        self.verbose = verbose

    def fit(self, X: Any, y: Any) -> TaxonomySVM:
        """Train on inputs X (dense or sparse) and labels y (paths, or leaves of ``parents``).

        Raises
        ------
        ValueError
            If a hyper-parameter is invalid, X or y are malformed, a path label is the prefix
            of another, or a label is not a leaf of ``parents``.
        """
        validate_parameters(self)
        check_targets_given(y)
        X = check_inputs(self, X, reset=True, sparse=True)
        y = check_class_labels(y)
        check_consistent_length(X, y)
        # The framework knows no concrete task at import time; the taxonomy task lives in the
        # top-level ``tasks`` package, which itself imports structsvm.
        from tasks import TaxonomyTask, taxonomy_from_paths

        if self.parents is None:
            taxonomy = taxonomy_from_paths([str(label) for label in y], self.separator)
            parents, self.node_names_, nodes = taxonomy
        else:
            parents, self.node_names_ = np.asarray(self.parents), None
            nodes = np.asarray(y)
        inputs = _with_intercept(X, self.fit_intercept)
        self.task_ = TaxonomyTask(
            parents,
            inputs.shape[1],
            self.loss,
            self.features,
            self.level_weights,
            self.normalize_loss,
        )
        leaves = self.task_.leaves
        encoded = np.searchsorted(leaves, nodes)
        found = leaves[np.minimum(encoded, len(leaves) - 1)]
        if np.any(encoded >= len(leaves)) or np.any(found != nodes):
            raise ValueError("y must hold leaves of the tree given by parents")
        self.parents_ = self.task_.parents
        if self.node_names_ is None:
            self.classes_ = leaves.copy()
        else:
            label_of = {str(label): label for label in np.unique(y)}
            self.classes_ = np.array([label_of[self.node_names_[leaf]] for leaf in leaves])
        self.loss_matrix_ = self.task_.loss_matrix
        svm = structural_svm_for(self, self.task_).set_params(rescaling=self.rescaling)
        self.svm_ = svm.fit(inputs, encoded)
        self.n_iter_ = self.svm_.n_iter_
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Return every class's score, shape (n, n_classes)."""
        check_is_fitted(self, "svm_")
        X = check_inputs(self, X, reset=False, sparse=True)
        return self.task_.leaf_scores(_with_intercept(X, self.fit_intercept), self.svm_.w_)

    def predict(self, X: Any) -> np.ndarray:
        """Return the class of highest score for every input (ties: the first in ``classes_``)."""
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


def _with_intercept(X: Any, fit_intercept: bool) -> Any:
    """Return X with a constant column of ones appended when fitting an intercept."""
    if not fit_intercept:
        return X
    ones = np.ones((X.shape[0], 1))
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(ones)], format="csr")
    return np.hstack([X, ones])
