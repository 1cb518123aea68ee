"""Graphs of images: the edges of a pixel grid, their directions and features of edges.

Pixels of an image of shape (rows, columns) are the nodes ``0 .. rows * columns − 1`` in
row-major order (pixel (r, c) is node ``r * columns + c``), as ``image.reshape(-1, ...)``
orders them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

GRID_DIRECTIONS = {4: ((0, 1), (1, 0)), 8: ((0, 1), (1, 0), (1, 1), (1, -1))}
"""The steps (Δrow, Δcolumn) from a pixel to its later neighbours, by neighbourhood size."""


def _direction_edges(shape: Sequence[int], neighborhood: int) -> list[np.ndarray]:
    """Return, for every direction of the neighbourhood, its edges (earlier → later pixel)."""
    if neighborhood not in GRID_DIRECTIONS:
        raise ValueError(f"neighborhood must be 4 or 8, got {neighborhood!r}")
    if len(shape) != 2 or any(int(size) < 1 for size in shape):
        raise ValueError(f"shape must be (rows, columns) of positive sizes, got {tuple(shape)}")
    rows, columns = (int(size) for size in shape)
    index = np.arange(rows * columns, dtype=np.int64).reshape(rows, columns)
    blocks = []
    for d_row, d_column in GRID_DIRECTIONS[neighborhood]:
        row_slice = slice(0, rows - d_row)
        start = slice(max(0, -d_column), columns - max(0, d_column))
        stop = slice(max(0, d_column), columns - max(0, -d_column))
        sources = index[row_slice, start]
        targets = index[d_row:, stop]
        blocks.append(np.column_stack([sources.ravel(), targets.ravel()]))
    return blocks


def grid_edges(shape: Sequence[int], neighborhood: int = 4) -> np.ndarray:
    """Return the edges of a pixel grid.

    Parameters
    ----------
    shape : (rows, columns)
    neighborhood : {4, 8}, default=4
        4 joins each pixel to its right and lower neighbours; 8 also to its lower-right and
        lower-left ones.

    Returns
    -------
    ndarray of shape (n_edges, 2), int64
        The edges direction by direction, in the order of ``GRID_DIRECTIONS[neighborhood]``
        (right, down, then down-right and down-left), each from the earlier pixel in row-major
        order to the later one.
    """
    return np.concatenate(_direction_edges(shape, neighborhood))


def grid_direction_features(shape: Sequence[int], neighborhood: int = 4) -> np.ndarray:
    """Return one indicator per direction for the edges of :func:`grid_edges`.

    As edge features of :class:`~tasks.EdgeFeatureGraphTask` they give every direction its own
    pairwise block: a directional grid model.

    Returns
    -------
    ndarray of shape (n_edges, neighborhood // 2)
        Row e has a 1 in the column of edge e's direction.
    """
    blocks = _direction_edges(shape, neighborhood)
    directions = np.repeat(np.arange(len(blocks)), [len(block) for block in blocks])
    return np.eye(len(blocks))[directions]


def edge_features_from_nodes(
    node_features: np.ndarray | sp.spmatrix, edges: np.ndarray
) -> np.ndarray:
    """Return the features of both end nodes of every edge, side by side.

    Row e is ``[node_features[u], node_features[v]]`` for edge e = (u, v), so that pairwise
    blocks can score pairs of states by what both nodes look like (Nowozin et al., ICCV 2011).

    Parameters
    ----------
    node_features : array or scipy.sparse matrix of shape (n_nodes, d)
    edges : array of shape (n_edges, 2), int

    Returns
    -------
    ndarray of shape (n_edges, 2 d)
    """
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    nodes = node_features.toarray() if sp.issparse(node_features) else np.asarray(node_features)
    if nodes.ndim != 2:
        raise ValueError(f"node_features must be a 2-D array, got shape {nodes.shape}")
    if len(edges) and (edges.min() < 0 or edges.max() >= len(nodes)):
        raise ValueError(f"edges refer to nodes outside [0, {len(nodes)})")
    return np.hstack([nodes[edges[:, 0]], nodes[edges[:, 1]]]).astype(np.float64)
