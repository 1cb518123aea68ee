"""The ranking SVM of Joachims on flat arrays with query ids, trained as a structural SVM."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from structsvm._utils.estimator import BaseEstimator, check_is_fitted
from structsvm._utils.validation import (
    ParameterConstraints,
    check_consistent_length,
    check_feature_array,
    check_targets_given,
    validate_parameters,
)
from structsvm.learners._flat import check_inputs, flat_parameter_constraints, structural_svm_for
from structsvm.learners._ranking_metrics import pairwise_accuracy, query_rows


class RankingSVM(BaseEstimator):
    r"""Ranking SVM (Joachims, KDD 2002) on documents with query ids, trained as a structural SVM.

    ``fit`` groups the rows by query id, builds a :class:`tasks.RankingTask` and trains a
    :class:`~structsvm.StructuredSVM` on it, which minimises

    .. math:: \tfrac12 \|w\|^2 + C \sum_q \sum_{(i, j) \in P_q}
              \max\big(0,\, 1 - w \cdot (x_i - x_j)\big),

    where ``P_q`` are the pairs of documents of query q with ``y_i > y_j`` (documents of
    different queries, or of equal grade, are not compared). This is
    ``LinearSVC(C=C, loss="hinge", fit_intercept=False)`` on the difference vectors of all
    pairs, without forming them: each oracle call sorts a query's scores and counts its
    swapped pairs in O(m log m) (Joachims, KDD 2006). Joachims (2006) and SVM^rank put
    ``C / |P|`` in front of the sum over all ``|P|`` pairs; their C is this C times ``|P|``.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the pairs' hinge losses.
    solver : {"auto", "1-slack", "n-slack", "bcfw"}, default="auto"
        How the structural SVM is trained (see :class:`~structsvm.StructuredSVM`): "1-slack"
        is the algorithm of Joachims (2006), with one constraint per iteration for all queries;
        "n-slack" keeps constraints per query; "auto" picks one by what the task offers.
    tol : float, default=1e-3
        Stop when the duality gap is at most ``tol`` times the primal objective.
    max_iter : int, optional
        Most solver iterations; the solver's default when None.
    random_state, n_jobs, progress, verbose
        As in :class:`~structsvm.StructuredSVM`: the seed of the "bcfw" solver's random order,
        the joblib workers of the oracle calls, a progress bar, and logging of the iterations.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights: a document's score is ``coef_ · x``.
    n_features_in_ : int
        Number of features seen in fit.
    n_iter_ : int
        Solver iterations run.
    svm_ : StructuredSVM
        The fitted structural SVM, with its ``history_``, ``converged_`` and duality gap.

    References
    ----------
    T. Joachims. Optimizing search engines using clickthrough data. KDD 2002.
    T. Joachims. Training linear SVMs in linear time. KDD 2006.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0], [0.0, 2.0]])
    >>> y, qid = np.array([2, 1, 2, 0]), np.array([1, 1, 2, 2])
    >>> ranker = RankingSVM(C=10.0).fit(X, y, qid)
    >>> ranker.score(X, y, qid)
    1.0
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = flat_parameter_constraints()

    def __init__(
        self,
        *,
        C: float = 1.0,
        solver: str = "auto",
        tol: float = 1e-3,
        max_iter: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
        progress: bool = False,
        verbose: int = 0,
    ) -> None:
        self.C = C
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress
        self.verbose = verbose

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X: Any, y: Any, qid: Any = None) -> RankingSVM:
        """Train on documents X (n, n_features), grades y (n,) and query ids qid (n,).

        X may be a scipy.sparse matrix. With ``qid=None`` all documents form one query.

        Raises
        ------
        ValueError
            If a hyper-parameter is invalid, or X, y or qid are malformed.
        """
        validate_parameters(self)
        check_targets_given(y)
        X = check_inputs(self, X, reset=True, sparse=True)
        y = check_feature_array(y, "y", ndim=1, n_features=None)
        check_consistent_length(X, y)
        queries = query_rows(qid, X.shape[0])
        # The framework knows no concrete task at import time; the ready-made ranking task
        # lives in the top-level ``tasks`` package, which itself imports structsvm.
        from tasks import RankingTask

        self.svm_ = structural_svm_for(self, RankingTask(X.shape[1])).fit(
            [X[rows] for rows in queries], [y[rows] for rows in queries]
        )
        self.coef_ = self.svm_.w_
        self.n_iter_ = self.svm_.n_iter_
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Return the score ``coef_ · x`` of every document, shape (n,); higher ranks first."""
        check_is_fitted(self, "coef_")
        X = check_inputs(self, X, reset=False, sparse=True)
        return np.asarray(X @ self.coef_, dtype=np.float64).ravel()

    def predict(self, X: Any) -> np.ndarray:
        """Return the scores (as :meth:`decision_function`): sort a query's documents by them."""
        return self.decision_function(X)

    def score(self, X: Any, y: Any, qid: Any = None) -> float:
        """Return the pairwise accuracy of the scores (see :func:`~structsvm.pairwise_accuracy`).

        The fraction of pairs of one query with ``y_i > y_j`` that the scores order correctly
        (ties count ½): one minus the training loss per pair. NDCG is
        :func:`~structsvm.mean_ndcg`.
        """
        return pairwise_accuracy(y, self.decision_function(X), qid)
