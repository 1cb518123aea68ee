"""Multi-label classification: a 0/1 vector of labels scored on a graph over the labels."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import CompiledOracle, csr_arrays
from structsvm._task import ORACLE_METHODS, overrides_any
from structsvm._utils.validation import (
    check_feature_array,
    check_flag,
    check_labels,
    check_positive_int,
    check_weights,
)
from structsvm.inference import hamming_augmented_unary, infer_many
from structsvm.inference._brute import labelling_count
from structsvm.inference._max_product import graph_schedule, loopy_options
from tasks._chow_liu import chow_liu_tree
from tasks._graph import check_edges
from tasks._multilabel_oracle import (
    BRUTE,
    MAX_PRODUCT,
    MultiLabelOracleData,
    dense_label_scores,
    multilabel_decode,
    multilabel_features,
    multilabel_loss,
    multilabel_scores,
)
from tasks._relaxed import RelaxedLabelling, RelaxedOutputsTask, weighted_hamming

LABEL_GRAPHS = ("independent", "tree", "full")
"""The label graphs :class:`MultiLabelTask` builds itself."""

BRUTE_FORCE_LABELS = 12
"""The most labels whose 2 ** n_labels labellings the default oracle of a cyclic graph scores."""


class MultiLabelTask(RelaxedOutputsTask):
    """Multi-label classification: x is a feature vector, y ∈ {0, 1}^k says which labels are on.

    The k labels are the nodes of a graph. With d features and m edges the weights are

    * the unary block ``w[:k*d].reshape(k, d)``: row j scores x when label j is on (an off
      label scores 0);
    * the pairwise block ``w[k*d:].reshape(m, 2, 2)``: entry ``[e, a, b]`` scores edge
      e = (u, v) with ``y_u = a`` and ``y_v = b``.

    The score of y is ``Σ_j y_j W[j] · x + Σ_e P[e, y_u, y_v]``, the loss the Hamming loss.
    Without edges the structural SVM splits into k binary hinge-loss SVMs with the same C.

    Label graphs (``edges``): ``"independent"`` (no edges); ``"tree"``, the Chow–Liu tree of
    the training labels (:func:`tasks.chow_liu_tree`), fitted by :meth:`fit_graph`, which
    :meth:`check_data` calls on the first labels it sees; ``"full"``, every pair of labels; or
    an (m, 2) int array of edges.

    The oracles call :func:`structsvm.inference.infer_many` on a whole batch. The default
    ``inference_method`` is exact: ``"max-product"`` on forests, ``"brute"`` on graphs with
    cycles of at most ``BRUTE_FORCE_LABELS`` = 12 labels, else ``"ad3"``, whose uncertified
    outputs the loss-augmented oracle returns as :class:`~tasks.RelaxedLabelling`, as
    :class:`~tasks.GraphTask` does. Ties: an independent label is off when its score is 0,
    brute force takes the lexicographically smallest labelling. With ``"max-product"`` or
    ``"brute"`` the solvers' compiled passes decode in Numba (:meth:`compiled_oracle`).

    Parameters
    ----------
    n_labels : int
        Number of labels k.
    n_features : int
        Width d of an input vector.
    edges : {"independent", "tree", "full"} or array of shape (m, 2), default="independent"
        The label graph.
    inference_method : str, optional
        One of :data:`structsvm.inference.INFERENCE_METHODS`; the exact default above if None.
    relaxed : bool, default=False
        Let the loss-augmented oracle return the fractional optimum of ``"lp"`` or ``"ad3"``.
    inference_options : dict, optional
        Further keyword arguments of the inference method.

    Attributes
    ----------
    edges_ : ndarray of shape (m, 2) or None
        The label graph's edges; None for ``"tree"`` until :meth:`fit_graph`.
    size_joint_feature : int
        ``k*d + 4*m``.

    References
    ----------
    B. Taskar, C. Guestrin and D. Koller, "Max-margin Markov networks", NIPS 2003.
    T. Finley and T. Joachims, "Training structural SVMs when exact inference is
    intractable", ICML 2008 (multi-label classification on fully connected label graphs).
    C. K. Chow and C. N. Liu, "Approximating discrete probability distributions with
    dependence trees", IEEE Transactions on Information Theory 14(3), 1968.
    """

    def __init__(
        self,
        n_labels: int,
        n_features: int,
        edges: str | np.ndarray = "independent",
        inference_method: str | None = None,
        relaxed: bool = False,
        inference_options: dict[str, Any] | None = None,
    ) -> None:
        self.n_labels = check_positive_int(n_labels, "n_labels")
        self.n_features = check_positive_int(n_features, "n_features")
        self.relaxed = check_flag(relaxed, "relaxed")
        if isinstance(edges, str):
            if edges not in LABEL_GRAPHS:
                raise ValueError(f"edges must be one of {LABEL_GRAPHS} or an array, got {edges!r}")
            self.graph = edges
            pairs = itertools.combinations(range(self.n_labels), 2) if edges == "full" else ()
            pairs = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
            self.edges_ = None if edges == "tree" else pairs
        else:
            self.graph = "given"
            self.edges_ = check_edges(edges, "edges", self.n_labels, "labels")
        n_edges = self.n_labels - 1 if self.graph == "tree" else len(self.edges_)
        self._pairwise_at = self.n_labels * self.n_features
        self.size_joint_feature = self._pairwise_at + 4 * n_edges
        if inference_method is None:
            forest = self.edges_ is None or graph_schedule(self.n_labels, self.edges_).forest
            small = self.n_labels <= BRUTE_FORCE_LABELS
            inference_method = "max-product" if forest else "brute" if small else "ad3"
        self._set_inference(inference_method, inference_options)

    def fit_graph(self, Y: Any) -> MultiLabelTask:
        """Fit the Chow–Liu tree of the labels Y, shape (n, n_labels), for ``edges="tree"``.

        Returns the task. Other label graphs are fixed and are left as they are.
        """
        Y = check_labels(Y, "Y", n_labels=2, ndim=2)
        if self.graph == "tree":
            self.edges_ = chow_liu_tree(_check_width(Y, self.n_labels))
        return self

    def __repr__(self) -> str:
        return (
            f"MultiLabelTask(n_labels={self.n_labels}, n_features={self.n_features}, "
            f"edges={self.graph!r}, inference_method={self.inference_method!r})"
        )

    def check_data(self, X: Any, Y: Any = None) -> tuple[np.ndarray, np.ndarray | None]:
        """Return X as a finite (n, n_features) float array and Y as an (n, n_labels) 0/1 array.

        With ``edges="tree"`` and no tree fitted yet, the tree is fitted on Y here.

        Raises
        ------
        ValueError
            If X is not a finite 2-D array of width ``n_features`` with at least one row, or Y
            not a 0/1 array of shape (n, n_labels).
        """
        X = check_feature_array(X, "X", ndim=2, n_features=self.n_features)
        if X.shape[0] == 0:
            raise ValueError("X is empty: expected at least one example")
        if Y is None:
            return X, None
        Y = _check_width(check_labels(Y, "Y", n_labels=2, ndim=2), self.n_labels)
        super().check_data(X, Y)
        if self.edges_ is None:
            self.fit_graph(Y)
        return X, Y

    def _edges(self) -> np.ndarray:
        if self.edges_ is None:
            raise ValueError(
                "the label tree is not fitted: call fit_graph(Y) (or check_data(X, Y)) before "
                'using a MultiLabelTask with edges="tree"'
            )
        return self.edges_

    def joint_feature(self, x: Any, y: Any) -> np.ndarray:
        """Return φ(x, y): ``y_j x`` for every label j, then one indicator of 4 per edge.

        For a :class:`~tasks.RelaxedLabelling` the marginals of label j being on and of the
        four states of every edge take the place of the indicators.
        """
        if not isinstance(y, RelaxedLabelling):
            return self.batch_joint_feature(np.asarray(x)[None, :], [y])[0]
        on = np.outer(y.node_marginals[:, 1], np.asarray(x, dtype=np.float64))
        return np.concatenate([on.ravel(), y.edge_marginals.ravel()])

    def batch_joint_feature(self, X: Any, Y: Sequence[Any]) -> np.ndarray:
        """Return the rows φ(X[i], Y[i]), shape (n, size_joint_feature), in a few array steps."""
        if any(isinstance(y, RelaxedLabelling) for y in Y):
            return super().batch_joint_feature(X, Y)
        edges = self._edges()
        X = np.asarray(X, dtype=np.float64)
        labels = np.asarray(Y, dtype=np.int64).reshape(len(X), self.n_labels)
        phi = np.zeros((len(X), self.size_joint_feature))
        phi[:, : self._pairwise_at] = (labels[:, :, None] * X[:, None, :]).reshape(len(X), -1)
        states = 2 * labels[:, edges[:, 0]] + labels[:, edges[:, 1]]
        columns = self._pairwise_at + 4 * np.arange(len(edges)) + states
        np.put_along_axis(phi, columns, 1.0, axis=1)
        return phi

    def loss(self, y_true: Any, y: Any) -> float:
        """Return the Hamming loss, or ``Σ_j (1 − μ_j(y_true_j))`` for a relaxed output."""
        labels = np.asarray(y_true, dtype=np.int64)
        return weighted_hamming(labels, np.ones(len(labels)), y)

    def max_loss(self, y_true: Any) -> float:
        """Return k, the loss of getting every label wrong."""
        return float(self.n_labels)

    def outputs(self, x: Any) -> Iterator[np.ndarray]:
        """Yield all 2^k labellings in lexicographic order (small k only)."""
        for labels in itertools.product((0, 1), repeat=self.n_labels):
            yield np.array(labels, dtype=np.int64)

    def unary_scores(self, X: Any, w: np.ndarray) -> np.ndarray:
        """Return the (n, k, 2) unary scores: 0 for a label off, ``W[j] · x`` for it on."""
        w = check_weights(w, self.size_joint_feature, finite=False)
        weights = w[: self._pairwise_at].reshape(self.n_labels, self.n_features)
        X = np.asarray(X, dtype=np.float64).reshape(-1, self.n_features)
        unary = np.zeros((len(X), self.n_labels, 2))
        unary[:, :, 1] = X @ weights.T
        return unary

    def pairwise_scores(self, w: np.ndarray) -> np.ndarray:
        """Return the (m, 2, 2) edge scores ``P[e, y_u, y_v]``."""
        return np.asarray(w[self._pairwise_at :], dtype=np.float64).reshape(-1, 2, 2)

    def argmax(self, x: Any, w: np.ndarray) -> np.ndarray:
        """Return the labelling of highest score (always a labelling)."""
        return self.batch_argmax(np.asarray(x)[None, :], w)[0]

    def loss_augmented_argmax(self, x: Any, y_true: Any, w: np.ndarray) -> Any:
        """Return the output maximising Hamming loss plus score."""
        return self.batch_loss_augmented_argmax(np.asarray(x)[None, :], [y_true], w)[0]

    def batch_argmax(self, X: Any, w: np.ndarray) -> list[np.ndarray]:
        """Return the best labelling of every input, from one call of the inference layer."""
        return [result.labels for result in self._infer_many(self.unary_scores(X, w), w)]

    def batch_loss_augmented_argmax(self, X: Any, Y_true: Any, w: np.ndarray) -> list[Any]:
        """Return the most violating output of every example.

        A labelling where inference certifies it; otherwise a :class:`~tasks.RelaxedLabelling`
        (fractional with ``relaxed=True``, else one-hot).
        """
        unary = self.unary_scores(X, w)
        labels = np.asarray(Y_true, dtype=np.int64).reshape(len(unary), self.n_labels)
        augmented = hamming_augmented_unary(unary.reshape(-1, 2), labels.ravel())
        results = self._infer_many(augmented.reshape(unary.shape), w, relaxed=self.relaxed)
        return [self._oracle_output(result, self._edges(), 2) for result in results]

    def _infer_many(self, unary: np.ndarray, w: np.ndarray, **relaxed: bool) -> list[Any]:
        """Run the inference method on the label graph with these unary scores, one per input."""
        edges, pairwise, method = self._edges(), self.pairwise_scores(w), self.inference_method
        return infer_many(unary, edges, pairwise, method, **relaxed, **self.inference_options)

    def compiled_oracle(self, X: Any, Y: Any) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        Offered with ``inference_method`` ``"max-product"`` or ``"brute"`` within its
        ``max_labellings``, unless a subclass overrides an oracle, the loss or the joint
        feature; not exact (``CompiledOracle.exact``) for loopy max-product.
        """
        if self.inference_method not in ("max-product", "brute") or overrides_any(
            self, MultiLabelTask, (*ORACLE_METHODS, "unary_scores", "pairwise_scores")
        ):
            return None
        edges = self._edges()
        brute = self.inference_method == "brute"
        if brute and labelling_count(2, self.n_labels, **self.inference_options) is None:
            return None
        options = loopy_options(**({} if brute else self.inference_options))
        schedule = graph_schedule(self.n_labels, edges)
        dense = np.ascontiguousarray(X, dtype=np.float64)
        data = MultiLabelOracleData(
            *csr_arrays(sp.csr_matrix(dense)),
            dense,
            truth=np.ascontiguousarray(Y, dtype=np.int64).reshape(len(dense), self.n_labels),
            edges=np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2),
            **schedule._asdict(),
            method=BRUTE if brute else MAX_PRODUCT,
            n_features=self.n_features,
            pairwise_at=self._pairwise_at,
            **options._asdict(),
        )
        functions = (multilabel_scores, multilabel_decode, multilabel_features, multilabel_loss)
        return CompiledOracle(
            data, *functions, n_examples=len(dense), batch_scores=dense_label_scores,
            exact=brute or schedule.forest,
        )


def _check_width(Y: np.ndarray, n_labels: int) -> np.ndarray:
    if Y.shape[1] != n_labels:
        raise ValueError(f"Y must have n_labels={n_labels} columns, got shape {Y.shape}")
    return Y
