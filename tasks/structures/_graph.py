"""A pairwise graph as a structure scored from outside: unary and per-edge pairwise scores."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from structsvm.hinge import Structure
from structsvm.inference import hamming_augmented_unary, infer


class GraphStructure(Structure):
    """Node labellings of one graph scored by unary and pairwise scores over its edges.

    ``s(y) = Σ_n unary[n, y_n] + Σ_e pairwise[e, y_u, y_v]`` for edges e = (u, v); Δ is the
    Hamming loss. Decoding is :func:`structsvm.inference.infer` (loss-augmented through
    :func:`~structsvm.inference.hamming_augmented_unary`): with the default max-product, exact
    on trees and forests. On a graph with cycles choose an exact method (``"ilp"``) for a true
    hinge; an approximate argmax gives a lower bound of it.

    Parameters
    ----------
    edges : array-like of int, shape (E, 2)
        The edges, shared by every example.
    n_states : int
        The number of states K of a node.
    method : str, default="max-product"
        The inference method (:data:`structsvm.INFERENCE_METHODS`).
    **options
        Options of the method.

    Notes
    -----
    Score arrays: ``unary`` (batch, N, K) and ``pairwise`` (E, K, K) shared by the batch or
    (batch, E, K, K). Labellings: (batch, N) int64; no mask.
    """

    score_names = ("unary", "pairwise")
    score_ndims = (2, 3)

    def __init__(
        self, edges: ArrayLike, n_states: int, method: str = "max-product", **options: Any
    ) -> None:
        self.edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        self.n_states = int(n_states)
        self.method = method
        self.options = options

    def lengths(self, scores: tuple[np.ndarray, ...], mask: np.ndarray | None) -> np.ndarray:
        """Return every example's number of nodes (a mask is refused)."""
        if mask is not None:
            raise ValueError("GraphStructure takes no mask")
        return np.full(len(scores[0]), scores[0].shape[1], dtype=np.int64)

    def decode(
        self, scores: tuple[np.ndarray, ...], lengths: np.ndarray, truth: np.ndarray | None
    ) -> np.ndarray:
        """Return the inference method's labelling of every example."""
        unary, pairwise = scores
        labels = np.empty(unary.shape[:2], dtype=np.int64)
        for k in range(len(unary)):
            node_scores = unary[k] if truth is None else hamming_augmented_unary(unary[k], truth[k])
            edge_scores = pairwise if pairwise.ndim == 3 else pairwise[k]
            result = infer(node_scores, self.edges, edge_scores, self.method, **self.options)
            labels[k] = result.labels
        return labels

    def parts(
        self, labels: np.ndarray, lengths: np.ndarray, shapes: tuple[tuple[int, ...], ...]
    ) -> tuple[np.ndarray, ...]:
        """Return the one-hot node states and edge state pairs of every labelling."""
        (n_nodes, n_states), (n_edges, _, _) = shapes
        labels = np.asarray(labels, dtype=np.int64)
        if labels.shape != (len(lengths), n_nodes) or (
            labels.size and (labels.min() < 0 or labels.max() >= n_states)
        ):
            raise ValueError(f"labellings must be (batch, {n_nodes}) states 0 .. {n_states - 1}")
        batch = len(labels)
        unary = np.zeros((batch, n_nodes, n_states))
        unary[np.arange(batch)[:, None], np.arange(n_nodes), labels] = 1.0
        pairwise = np.zeros((batch, n_edges, n_states, n_states))
        first, second = labels[:, self.edges[:, 0]], labels[:, self.edges[:, 1]]
        pairwise[np.arange(batch)[:, None], np.arange(n_edges), first, second] = 1.0
        return unary, pairwise

    def loss(self, truth: np.ndarray, labels: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return the Hamming loss of every labelling."""
        return (truth != labels).sum(axis=1).astype(np.float64)
