"""Labelling the nodes of a graph: unary and pairwise potentials, a weighted Hamming loss."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import CompiledOracle, csr_arrays, offsets_of
from structsvm._task import ORACLE_METHODS, overrides_any
from structsvm._utils.validation import (
    check_class_weights,
    check_feature_array,
    check_flag,
    check_labels,
    check_positive_int,
    check_weights,
)
from structsvm.inference import hamming_augmented_unary, infer
from structsvm.inference._ad3 import Ad3State, ad3_options, ad3_state
from structsvm.inference._max_product import GraphSchedule, graph_schedule, loopy_options
from structsvm.inference._trws import trws_options
from tasks._graph_oracle import (
    DECODERS,
    GraphOracleData,
    graph_decode,
    graph_features,
    graph_loss,
    graph_scores,
)
from tasks._multiclass import check_rows
from tasks._pairwise_blocks import pairwise_block_map
from tasks._relaxed import RelaxedLabelling, RelaxedOutputsTask, WeightedLabels, weighted_hamming

NodeFeatures = np.ndarray | sp.csr_matrix


class GraphInput(NamedTuple):
    """The parts of a graph labelling input, as the tasks hold them after ``check_data``.

    Attributes
    ----------
    nodes : ndarray or csr_matrix of shape (n_nodes, n_features), float64
    edges : ndarray of shape (n_edges, 2), int64
    edge_features : ndarray of shape (n_edges, n_edge_features)
        What each pairwise block is weighted by (a column of ones for :class:`GraphTask`).
    node_weights : ndarray of shape (n_nodes,) or None
    """

    nodes: NodeFeatures
    edges: np.ndarray
    edge_features: np.ndarray
    node_weights: np.ndarray | None


class GraphTask(RelaxedOutputsTask):
    """Label every node of a graph: unary potentials from node features, one pairwise block.

    An input is ``x = (node_features, edges)`` or ``(node_features, edges, node_weights)``:
    ``node_features`` of shape (n_nodes, n_features), dense or ``scipy.sparse``; ``edges`` of
    shape (n_edges, 2), the node indices (u, v) of every edge; ``node_weights`` of shape
    (n_nodes,), the loss weight of every node. The output ``y`` is one state in
    ``0 .. n_states - 1`` per node. With S states and d features the weights are

    * the unary block ``w[:S*d].reshape(S, d)``, row s scoring the features of nodes in state s;
    * the pairwise block: ``P[s, t]`` scores an edge (u, v) with ``y_u = s`` and ``y_v = t``;
      symmetric unless ``directed`` (its S (S + 1) / 2 weights are the upper triangle, diagonal
      included, row by row), a free S × S matrix (row: state of u) if ``directed``.

    The score of a labelling is ``Σ_i U[y_i] · x_i + Σ_(u,v) P[y_u, y_v]``; the loss
    ``Δ(y, ŷ) = Σ_i node_weights[i] · class_weights[y_i] · [ŷ_i ≠ y_i]``.

    The oracles run :func:`structsvm.inference.infer` with ``inference_method``. Where it
    cannot certify a labelling, the loss-augmented oracle returns a
    :class:`~tasks.RelaxedLabelling`: the relaxation's fractional optimum with
    ``relaxed=True`` (Finley & Joachims, ICML 2008), else the labelling's one-hot marginals,
    so that :meth:`is_certified` tells the solvers which duality gaps are certified.
    ``argmax`` always returns a labelling. With ``"trws"`` or ``"max-product"`` the solvers'
    compiled passes decode in Numba (:meth:`compiled_oracle`).

    Parameters
    ----------
    n_states : int
        Number of states S (at least 2).
    n_features : int
        Width d of a node's feature vector.
    directed : bool, default=False
        A free pairwise matrix instead of a symmetric one.
    inference_method : str, default="trws"
        One of :data:`structsvm.inference.INFERENCE_METHODS`.
    class_weights : array of shape (n_states,), optional
        Loss weight of every true class (finite, non-negative); default all ones.
    relaxed : bool, default=False
        Let the loss-augmented oracle return fractional outputs of ``"lp"`` or ``"ad3"``.
    inference_options : dict, optional
        Further keyword arguments of :func:`~structsvm.inference.infer` (iteration limits,
        tolerances).
    warm_calls : bool, default=True
        In the compiled oracle's decoding of a training graph with cycles, start TRW-S from
        the messages and AD3 from the multipliers, distributions and step that the previous
        call on that graph left (a fit calls inference on every graph many times, at weights
        that change little); False starts every call afresh.

    Attributes
    ----------
    size_joint_feature : int
        ``S*d`` plus the pairwise weights.

    References
    ----------
    B. Taskar, C. Guestrin and D. Koller, "Max-margin Markov networks", NIPS 2003.
    T. Finley and T. Joachims, "Training structural SVMs when exact inference is
    intractable", ICML 2008.
    """

    def __init__(
        self,
        n_states: int,
        n_features: int,
        directed: bool = False,
        inference_method: str = "trws",
        class_weights: np.ndarray | None = None,
        relaxed: bool = False,
        inference_options: dict[str, Any] | None = None,
        warm_calls: bool = True,
    ) -> None:
        self.directed = check_flag(directed, "directed")
        self._set_common(
            n_states, n_features, inference_method, class_weights, relaxed, inference_options,
            warm_calls, ["free" if self.directed else "symmetric"],
        )

    def _set_common(
        self,
        n_states: int,
        n_features: int,
        inference_method: str,
        class_weights: np.ndarray | None,
        relaxed: bool,
        inference_options: dict[str, Any] | None,
        warm_calls: bool,
        block_kinds: Sequence[str],
    ) -> None:
        """Check and set the parameters every graph task has; lay out one pairwise block per
        edge feature, of the given kinds, after the unary block."""
        self.n_states = check_positive_int(n_states, "n_states", minimum=2)
        self.n_features = check_positive_int(n_features, "n_features")
        self.class_weights = check_class_weights(class_weights, self.n_states, "class_weights")
        self.relaxed = check_flag(relaxed, "relaxed")
        self.warm_calls = check_flag(warm_calls, "warm_calls")
        self._set_inference(inference_method, inference_options)
        blocks = [pairwise_block_map(self.n_states, kind) for kind in block_kinds]
        self._pairwise_map = sp.block_diag(blocks, format="csr")
        self._pairwise_at = self.n_states * self.n_features
        self.size_joint_feature = self._pairwise_at + self._pairwise_map.shape[0]

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(n_states={self.n_states}, n_features={self.n_features}, "
            f"inference_method={self.inference_method!r})"
        )

    def _parts(self, x: Any) -> GraphInput:
        """Split an input into its parts (without the checks of :meth:`check_data`)."""
        nodes, edges, *rest = x
        edges = _as_edges(edges)
        node_weights = rest[0] if rest else None
        return GraphInput(_as_node_array(nodes), edges, np.ones((len(edges), 1)), node_weights)

    _PARTS = ("node_features", "edges")
    """The parts of an input before its optional node weights."""

    def _check_input(self, x: Any, name: str) -> tuple[Any, ...]:
        """Return an input with its parts checked and converted; raise ValueError if bad."""
        n_parts, parts = len(self._PARTS), ", ".join(self._PARTS)
        if not isinstance(x, tuple | list) or len(x) not in (n_parts, n_parts + 1):
            got = type(x).__name__ + (f" of length {len(x)}" if isinstance(x, tuple | list) else "")
            raise ValueError(f"{name} must be a tuple ({parts}) or ({parts}, node_weights): {got}")
        nodes = _check_nodes(x[0], f"{name}[0] (node features)", self.n_features)
        edges = check_edges(x[1], f"{name}[1] (edges)", nodes.shape[0])
        checked = (nodes, edges, *self._check_edge_features(x, name, edges))
        if len(x) == n_parts:
            return checked
        weights = _check_node_weights(x[n_parts], f"{name}[{n_parts}] (node weights)", nodes)
        return (*checked, weights)

    def _check_edge_features(self, x: Any, name: str, edges: np.ndarray) -> tuple[Any, ...]:
        """Return the checked parts of an input that describe its edges (none here)."""
        return ()

    def check_data(
        self, X: Sequence[Any], Y: Sequence[Any] | None = None
    ) -> tuple[list[tuple[Any, ...]], list[Any] | None]:
        """Return X as checked tuples and Y as int64 labels, paired with node weights if given.

        An output of an input with node weights comes back as a :class:`~tasks.WeightedLabels`,
        so that the loss weighs its nodes.

        Raises
        ------
        ValueError
            If an input is not a tuple of the documented parts (finite node features of width
            ``n_features``, edges between existing distinct nodes, finite non-negative node
            weights), or ``Y[k]`` does not hold one state in range per node of ``X[k]``; the
            message names the offending ``X[k]`` or ``Y[k]``.
        """
        if len(X) == 0:
            raise ValueError("X is empty: expected at least one graph")
        X = [self._check_input(x, f"X[{k}]") for k, x in enumerate(X)]
        if Y is None:
            return X, None
        if len(Y) != len(X):
            raise ValueError(
                f"X and Y have different lengths: X has {len(X)} graphs, Y has {len(Y)}"
            )
        checked = []
        for k, (x, y) in enumerate(zip(X, Y, strict=True)):
            n_nodes = x[0].shape[0]
            labels = check_labels(np.asarray(y), f"Y[{k}]", n_labels=self.n_states)
            if len(labels) != n_nodes:
                raise ValueError(f"Y[{k}] has {len(labels)} labels but X[{k}] has {n_nodes} nodes")
            weights = self._parts(x).node_weights
            checked.append(labels if weights is None else WeightedLabels(labels, weights))
        return X, checked

    def joint_feature(self, x: Any, y: Any) -> np.ndarray:
        """Return φ(x, y): the node features summed by state, then the pairwise statistics.

        ``y`` is a labelling (or :class:`~tasks.WeightedLabels`) or a
        :class:`~tasks.RelaxedLabelling`, whose marginals take the place of the one-hot
        indicators of the states.
        """
        graph = self._parts(x)
        n_states = self.n_states
        n_edges = len(graph.edges)
        if isinstance(y, RelaxedLabelling):
            states = y.node_marginals
            pairs = y.edge_marginals.reshape(n_edges, n_states * n_states)
        else:
            labels = np.asarray(y, dtype=np.int64)
            states = _one_hot(labels, n_states)
            pair_index = labels[graph.edges[:, 0]] * n_states + labels[graph.edges[:, 1]]
            pairs = _one_hot(pair_index, n_states * n_states)
        unary = states.T @ graph.nodes
        if sp.issparse(unary):
            unary = unary.toarray()
        edge_statistics = np.asarray((pairs.T @ graph.edge_features).T)
        pairwise = self._pairwise_map @ edge_statistics.ravel()
        return np.concatenate([np.asarray(unary).ravel(), pairwise])

    def loss(self, y_true: Any, y: Any) -> float:
        """Return ``Σ_i node_weights[i] · class_weights[y_true_i] · (1 − μ_i(y_true_i))``.

        For a labelling ``μ_i`` is its one-hot indicator (the weighted Hamming loss).
        """
        labels, weights = self._true_labels(y_true)
        return weighted_hamming(labels, weights * self.class_weights[labels], y)

    def max_loss(self, y_true: Any) -> float:
        """Return the loss of getting every node wrong."""
        labels, weights = self._true_labels(y_true)
        return float(np.sum(weights * self.class_weights[labels]))

    def _true_labels(self, y_true: Any) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(y_true, WeightedLabels):
            return y_true.labels, y_true.node_weights
        labels = np.asarray(y_true, dtype=np.int64)
        return labels, np.ones(len(labels))

    def outputs(self, x: Any) -> Iterator[np.ndarray]:
        """Yield all ``n_states ** n_nodes`` labellings in lexicographic order (tiny graphs)."""
        n_nodes = self._parts(x).nodes.shape[0]
        for labels in itertools.product(range(self.n_states), repeat=n_nodes):
            yield np.array(labels, dtype=np.int64)

    def potentials(self, x: Any, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the unary (n_nodes, S), the edges and the pairwise (n_edges, S, S) scores."""
        w = check_weights(w, self.size_joint_feature, finite=False)
        graph = self._parts(x)
        n_states = self.n_states
        unary_weights = w[: self._pairwise_at].reshape(n_states, self.n_features)
        unary = np.asarray(graph.nodes @ unary_weights.T)
        matrices = (self._pairwise_map.T @ w[self._pairwise_at :]).reshape(-1, n_states**2)
        pairwise = (graph.edge_features @ matrices).reshape(-1, n_states, n_states)
        if not (np.all(np.isfinite(unary)) and np.all(np.isfinite(pairwise))):
            raise ValueError("the scores of x under w are not finite")
        return unary, graph.edges, pairwise

    def argmax(self, x: Any, w: np.ndarray) -> np.ndarray:
        """Return the labelling of x that ``inference_method`` finds best (always a labelling)."""
        unary, edges, pairwise = self.potentials(x, w)
        options = self.inference_options
        return infer(unary, edges, pairwise, self.inference_method, **options).labels

    def loss_augmented_argmax(self, x: Any, y_true: Any, w: np.ndarray) -> Any:
        """Return the output maximising loss plus score, by inference on augmented unaries.

        A labelling when inference certifies it optimal; otherwise a
        :class:`~tasks.RelaxedLabelling` (fractional with ``relaxed=True``, else one-hot).
        """
        unary, edges, pairwise = self.potentials(x, w)
        labels, weights = self._true_labels(y_true)
        augmented = hamming_augmented_unary(unary, labels, weights, self.class_weights)
        method, options = self.inference_method, self.inference_options
        result = infer(augmented, edges, pairwise, method, relaxed=self.relaxed, **options)
        return self._oracle_output(result, edges, self.n_states)

    def compiled_oracle(self, X: Sequence[Any], Y: Sequence[Any]) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        Offered with ``inference_method`` ``"max-product"``, ``"trws"`` or ``"ad3"`` (unless
        ``relaxed``: fractional outputs do not cross the protocol), unless a subclass
        overrides an oracle, the loss or the joint feature. Forests are decoded by
        max-product's exact pass, whatever the method. A training set with a cycle gives an
        oracle marked not exact (``CompiledOracle.exact``): its passes' gaps are uncertified.
        With ``warm_calls`` the data holds the state of TRW-S or AD3 on every training graph.
        """
        method = self.inference_method
        if (
            method not in DECODERS
            or (method == "ad3" and self.relaxed)
            or overrides_any(self, GraphTask, (*ORACLE_METHODS, "potentials"))
        ):
            return None
        given = self.inference_options
        if method == "trws":
            options = loopy_options(**trws_options(**given)._asdict())
        else:
            options = loopy_options(**(given if method == "max-product" else {}))
        solver_options = ad3_options(**(given if method == "ad3" else {}))
        graphs = [self._parts(x) for x in X]
        node_counts = [graph.nodes.shape[0] for graph in graphs]
        edge_counts = [len(graph.edges) for graph in graphs]
        nodes = sp.vstack([sp.csr_matrix(graph.nodes) for graph in graphs], format="csr")
        edge_features = [sp.csr_matrix(graph.edge_features) for graph in graphs]
        truths = [self._true_labels(y) for y in Y]
        forest, *schedules = zip(
            *(graph_schedule(graph.nodes.shape[0], graph.edges) for graph in graphs), strict=True
        )
        schedule = GraphSchedule(np.array(forest, dtype=np.bool_), *map(np.concatenate, schedules))
        messages, states = _kept_states(
            method if self.warm_calls else None, node_counts, edge_counts, self.n_states
        )
        data = GraphOracleData(
            node_offsets=offsets_of(node_counts),
            **_csr_fields("node", nodes),
            edge_offsets=offsets_of(edge_counts),
            edges=np.concatenate([graph.edges for graph in graphs]).reshape(-1, 2),
            **_csr_fields("edge", sp.vstack(edge_features, format="csr")),
            **_csr_fields("block", self._pairwise_map.T),
            truth=np.concatenate([labels for labels, _ in truths]).astype(np.int64),
            costs=np.concatenate(
                [weights * self.class_weights[labels] for labels, weights in truths]
            ).astype(np.float64),
            **schedule._asdict(),
            n_states=self.n_states,
            n_features=self.n_features,
            pairwise_at=self._pairwise_at,
            **options._asdict(),
            decoder=DECODERS.index(method),
            ad3_options=solver_options,
            warm_calls=self.warm_calls,
            messages=messages,
            ad3_states=states,
        )
        functions = (graph_scores, graph_decode, graph_features, graph_loss)
        return CompiledOracle(
            data, *functions, n_examples=len(graphs), exact=bool(schedule.forest.all())
        )


def _kept_states(
    method: str | None, node_counts: Sequence[int], edge_counts: Sequence[int], n_states: int
) -> tuple[np.ndarray, Ad3State]:
    """Return the stacked TRW-S messages and AD3 states that ``method`` keeps between calls.

    Those of another method (and all with None, no state kept) have no rows.
    """
    n_edges = sum(edge_counts) if method in ("trws", "ad3") else 0
    messages = np.zeros((n_edges if method == "trws" else 0, 2, n_states))
    kept = method == "ad3"
    states = ad3_state(sum(node_counts) if kept else 0, n_edges if kept else 0, n_states)
    n_graphs = len(node_counts) if kept else 0
    return messages, states._replace(
        eta=np.zeros(n_graphs), started=np.zeros(n_graphs, dtype=np.bool_)
    )


def _csr_fields(part: str, matrix: Any) -> dict[str, np.ndarray]:
    """Return a matrix's CSR arrays as the fields ``{part}_indptr``, ``_columns``, ``_values``."""
    names = (f"{part}_indptr", f"{part}_columns", f"{part}_values")
    return dict(zip(names, csr_arrays(matrix), strict=True))


def _one_hot(indices: np.ndarray, width: int) -> sp.csr_matrix:
    n = len(indices)
    return sp.csr_matrix((np.ones(n), indices, np.arange(n + 1)), shape=(n, width))


def _as_node_array(nodes: Any) -> NodeFeatures:
    if sp.issparse(nodes):
        return nodes if sp.isspmatrix_csr(nodes) else sp.csr_matrix(nodes)
    return np.asarray(nodes, dtype=np.float64)


def _as_edges(edges: Any) -> np.ndarray:
    return np.asarray(edges, dtype=np.int64).reshape(-1, 2)


def _check_nodes(nodes: Any, name: str, n_features: int) -> NodeFeatures:
    nodes = check_rows(nodes, name, n_features)
    if sp.issparse(nodes):
        nodes = nodes.copy()
        nodes.sum_duplicates()
    if nodes.shape[0] == 0:
        raise ValueError(f"{name} has no nodes: expected at least one")
    return nodes


def check_edges(edges: Any, name: str, n_nodes: int, nodes: str = "nodes") -> np.ndarray:
    """Return edges as an (n_edges, 2) int64 array of distinct ``nodes`` in ``[0, n_nodes)``."""
    array = np.asarray(edges)
    if array.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n_edges, 2), got {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} must hold integer indices of {nodes}, got dtype {array.dtype}")
    array = array.astype(np.int64)
    if array.min() < 0 or array.max() >= n_nodes:
        raise ValueError(
            f"{name} must join {nodes} in [0, {n_nodes}): found {array.min()}..{array.max()}"
        )
    if np.any(array[:, 0] == array[:, 1]):
        raise ValueError(f"{name} holds a self-loop (an edge (u, u)): an edge joins two {nodes}")
    return array


def _check_node_weights(weights: Any, name: str, nodes: NodeFeatures) -> np.ndarray:
    array = check_feature_array(weights, name, ndim=1, n_features=nodes.shape[0])
    if np.any(array < 0):
        raise ValueError(f"{name} must be non-negative, found {array.min()}")
    return array
