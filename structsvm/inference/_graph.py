"""A pairwise model checked once: unary and pairwise scores on an undirected graph.

Every method receives a :class:`PairwiseModel`, built by :func:`check_model` from the arguments
of ``infer``. The pairwise scores are kept as a table of shape (n_tables, n_states, n_states)
with ``n_tables`` either ``n_edges`` (one table per edge) or 1 (one table shared by all edges,
never copied per edge); :meth:`PairwiseModel.table_of` maps edges to their table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike

from structsvm._utils.validation import check_feature_array


@dataclass(frozen=True)
class PairwiseModel:
    """Checked scores of a pairwise model: maximise Σ_i unary[i, y_i] + Σ_e θ_e[y_u, y_v].

    Attributes
    ----------
    unary : ndarray of float64, shape (n_nodes, n_states)
    edges : ndarray of int64, shape (n_edges, 2)
        Edge e joins ``edges[e, 0]`` (first) and ``edges[e, 1]`` (second); no self-loops.
    tables : ndarray of float64, shape (n_tables, n_states, n_states)
        ``tables[t, a, b]`` scores the first node of an edge in state a and the second in b.
    per_edge : bool
        True if edge e has table e, False if every edge has table 0.
    """

    unary: np.ndarray
    edges: np.ndarray
    tables: np.ndarray
    per_edge: bool

    @property
    def n_nodes(self) -> int:
        return self.unary.shape[0]

    @property
    def n_states(self) -> int:
        return self.unary.shape[1]

    @property
    def n_edges(self) -> int:
        return self.edges.shape[0]

    def table_of(self, edge_ids: np.ndarray) -> np.ndarray:
        """Return the index into ``tables`` of each edge in ``edge_ids``."""
        return edge_ids if self.per_edge else np.zeros_like(edge_ids)

    def score(self, labels: np.ndarray) -> float:
        """Return the objective at the integral labelling ``labels``."""
        nodes = np.arange(self.n_nodes)
        edge_ids = np.arange(self.n_edges)
        first, second = labels[self.edges[:, 0]], labels[self.edges[:, 1]]
        pairwise = self.tables[self.table_of(edge_ids), first, second].sum()
        return float(self.unary[nodes, labels].sum() + pairwise)

    def pairwise_scores(self, labellings: np.ndarray) -> np.ndarray:
        """Return the pairwise part of the objective of every row of ``labellings``."""
        first, second = labellings[:, self.edges[:, 0]], labellings[:, self.edges[:, 1]]
        return self.tables[self.table_of(np.arange(self.n_edges)), first, second].sum(axis=1)

    def degrees(self) -> np.ndarray:
        """Return the number of edges at each node."""
        return np.bincount(self.edges.ravel(), minlength=self.n_nodes)

    def components(self) -> tuple[int, np.ndarray]:
        """Return the number of connected components and the component of each node."""
        # Imported here: SciPy's graph routines load scipy.linalg, about 11 MB, unused by most fits.
        from scipy.sparse.csgraph import connected_components

        adjacency = scipy.sparse.coo_matrix(
            (np.ones(self.n_edges), (self.edges[:, 0], self.edges[:, 1])),
            shape=(self.n_nodes, self.n_nodes),
        )
        return connected_components(adjacency, directed=False)

    def is_forest(self) -> bool:
        """Return True if the graph has no cycle (a tree or a forest).

        A graph without self-loops has at least n_nodes − n_components edges, with equality
        exactly when it is acyclic; two edges joining the same pair of nodes form a cycle.
        """
        n_components, _ = self.components()
        return self.n_edges == self.n_nodes - n_components


def check_model(unary: ArrayLike, edges: ArrayLike, pairwise: ArrayLike) -> PairwiseModel:
    """Return the arguments of ``infer`` as a :class:`PairwiseModel`; raise on bad input.

    Raises
    ------
    ValueError
        Naming the argument: ``unary`` not a 2-D finite array with at least one node and one
        state, ``edges`` not integer pairs of node indices in range or with a self-loop,
        ``pairwise`` neither (n_states, n_states) nor (n_edges, n_states, n_states) or not
        finite.
    """
    unary = np.ascontiguousarray(check_feature_array(unary, "unary", ndim=2, n_features=None))
    n_nodes, n_states = unary.shape
    if n_nodes == 0 or n_states == 0:
        raise ValueError(
            f"unary must have at least one node and one state, got shape {unary.shape}"
        )
    edges = _check_edges(edges, n_nodes)
    n_edges = edges.shape[0]
    pairwise = check_feature_array(pairwise, "pairwise", ndim=np.ndim(pairwise), n_features=None)
    if pairwise.shape == (n_states, n_states):
        tables, per_edge = pairwise[None], False
    elif pairwise.shape == (n_edges, n_states, n_states):
        tables, per_edge = pairwise, True
    else:
        raise ValueError(
            f"pairwise must have shape (n_states, n_states) = {(n_states, n_states)} (one table "
            f"shared by all edges) or (n_edges, n_states, n_states) = "
            f"{(n_edges, n_states, n_states)}, got {pairwise.shape}"
        )
    return PairwiseModel(unary, edges, np.ascontiguousarray(tables), per_edge)


def _check_edges(edges: ArrayLike, n_nodes: int) -> np.ndarray:
    array = np.asarray(edges)
    if array.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"edges must be an integer array of node indices, got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"edges must have shape (n_edges, 2), got {array.shape}")
    if array.min() < 0 or array.max() >= n_nodes:
        raise ValueError(
            f"edges must hold node indices in [0, {n_nodes}) (n_nodes = unary.shape[0]), "
            f"found {array.min()}..{array.max()}"
        )
    self_loops = np.flatnonzero(array[:, 0] == array[:, 1])
    if self_loops.size:
        e = self_loops[0]
        raise ValueError(f"edges must join two different nodes, edge {e} is {array[e].tolist()}")
    return np.ascontiguousarray(array, dtype=np.int64)
