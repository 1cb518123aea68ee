"""Graph labelling whose pairwise potentials depend on features of the edges."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from structsvm._utils.validation import check_feature_array, check_positive_int
from tasks._graph import GraphInput, GraphTask, _as_edges, _as_node_array


class EdgeFeatureGraphTask(GraphTask):
    """Label every node of a graph, with one pairwise block per edge feature.

    An input is ``x = (node_features, edges, edge_features)`` or
    ``(node_features, edges, edge_features, node_weights)``, where ``edge_features`` has shape
    (n_edges, n_edge_features); the rest is as in :class:`GraphTask`. Edge feature f weights
    its own S × S block ``P_f``, so the pairwise score of edge e = (u, v) is
    ``Σ_f edge_features[e, f] · P_f[y_u, y_v]``. A block is free (S² weights) unless f is
    listed in ``symmetric_edge_features`` (``P_f = P_fᵀ``, S (S + 1) / 2 weights, the upper
    triangle row by row) or ``antisymmetric_edge_features`` (``P_f = −P_fᵀ``, S (S − 1) / 2
    weights). The weights are the unary block ``w[:S*d].reshape(S, d)`` then the pairwise
    blocks in the order of the edge features; loss, oracles and relaxed outputs are those of
    :class:`GraphTask`. Direction indicators (:func:`~tasks.grid_direction_features`) give a
    directional model, :func:`~tasks.edge_features_from_nodes` input-dependent pairwise scores.

    Parameters
    ----------
    n_states, n_features : int
        As in :class:`GraphTask`.
    n_edge_features : int
        Width of an edge's feature vector.
    symmetric_edge_features, antisymmetric_edge_features : sequences of int, default=()
        Edge features whose blocks are symmetric, or antisymmetric (disjoint).
    inference_method, class_weights, relaxed, inference_options, warm_calls
        As in :class:`GraphTask`.

    References
    ----------
    S. Nowozin, C. Rother, S. Bagon, T. Sharp, B. Yao and P. Kohli, "Decision tree fields",
    ICCV 2011 (input-dependent pairwise terms, and the snakes data).
    """

    def __init__(
        self,
        n_states: int,
        n_features: int,
        n_edge_features: int,
        symmetric_edge_features: Sequence[int] = (),
        antisymmetric_edge_features: Sequence[int] = (),
        inference_method: str = "trws",
        class_weights: np.ndarray | None = None,
        relaxed: bool = False,
        inference_options: dict[str, Any] | None = None,
        warm_calls: bool = True,
    ) -> None:
        self.n_edge_features = check_positive_int(n_edge_features, "n_edge_features")
        symmetric = _check_feature_indices(
            symmetric_edge_features, "symmetric_edge_features", self.n_edge_features
        )
        antisymmetric = _check_feature_indices(
            antisymmetric_edge_features, "antisymmetric_edge_features", self.n_edge_features
        )
        both = sorted(set(symmetric) & set(antisymmetric))
        if both:
            raise ValueError(f"edge features {both} are listed as both symmetric and antisymmetric")
        self.symmetric_edge_features, self.antisymmetric_edge_features = symmetric, antisymmetric
        kinds = [
            "symmetric" if f in symmetric else "antisymmetric" if f in antisymmetric else "free"
            for f in range(self.n_edge_features)
        ]
        self._set_common(
            n_states, n_features, inference_method, class_weights, relaxed, inference_options,
            warm_calls, kinds,
        )

    _PARTS = ("node_features", "edges", "edge_features")

    def _parts(self, x: Any) -> GraphInput:
        nodes, edges, edge_features, *rest = x
        return GraphInput(
            _as_node_array(nodes),
            _as_edges(edges),
            np.asarray(edge_features, dtype=np.float64).reshape(-1, self.n_edge_features),
            rest[0] if rest else None,
        )

    def _check_edge_features(self, x: Any, name: str, edges: np.ndarray) -> tuple[Any, ...]:
        width = self.n_edge_features
        given = x[2] if np.size(x[2]) else np.asarray(x[2], dtype=np.float64).reshape(-1, width)
        edge_features = check_feature_array(
            given, f"{name}[2] (edge features)", ndim=2, n_features=width
        )
        if len(edge_features) != len(edges):
            raise ValueError(
                f"{name}[2] (edge features) has {len(edge_features)} rows but {name}[1] has "
                f"{len(edges)} edges: expected one row per edge"
            )
        return (edge_features,)


def _check_feature_indices(
    indices: Sequence[int], name: str, n_edge_features: int
) -> tuple[int, ...]:
    values = tuple(int(f) for f in np.asarray(indices, dtype=np.int64).ravel())
    if any(f < 0 or f >= n_edge_features for f in values):
        raise ValueError(
            f"{name} must hold edge feature indices in [0, {n_edge_features}), got {list(values)}"
        )
    if len(set(values)) != len(values):
        raise ValueError(f"{name} lists an edge feature twice: {list(values)}")
    return values
