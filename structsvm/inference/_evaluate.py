"""Compiled evaluation for the message-passing methods: scores of labellings and upper bounds.

:func:`labelling_score` is the objective at an integral labelling. :func:`split_bound` is the
upper bound given by a split of the unary scores over the edges (a reparametrisation).

For any shares φ_{e,u} with Σ_{e ∋ u} φ_{e,u} = θ_u at every node u with edges, the objective
of every labelling y is Σ_{u isolated} θ_u(y_u) + Σ_{e=(u,v)} [θ_e(y_u, y_v) + φ_{e,u}(y_u) +
φ_{e,v}(y_v)], so the sum of the maxima of these terms bounds the maximum from above. This is
the dual of the local-polytope LP in the form of dual decomposition over edges (Sontag, Globerson
& Jaakkola, 2011); the LP optimum is the smallest such bound. Max-product and AD3 both state
their bound through :func:`split_bound`.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def split_bound(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    shares: np.ndarray,
) -> float:
    """Return the bound of the split whose shares are ``shares`` corrected to sum to θ_u.

    ``shares[2 e]`` is the share of edge e's first node, ``shares[2 e + 1]`` that of its second
    node, both of shape (n_states,). Any array is accepted: each node's residual
    θ_u − Σ_e φ_{e,u} is spread evenly over its edges first, which makes the split exact (zero
    shares thus split each unary evenly over the node's edges).
    """
    n_nodes, n_states = unary.shape
    n_edges = edges.shape[0]
    degree = np.zeros(n_nodes, dtype=np.int64)
    residual = unary.copy()
    for e in range(n_edges):
        for end in range(2):
            node = edges[e, end]
            degree[node] += 1
            for a in range(n_states):
                residual[node, a] -= shares[2 * e + end, a]
    second_share = np.empty(n_states)
    bound = 0.0
    for node in range(n_nodes):
        if degree[node] == 0:
            bound += np.max(unary[node])
    for e in range(n_edges):
        first, second = edges[e, 0], edges[e, 1]
        table = tables[e] if per_edge else tables[0]
        for b in range(n_states):
            second_share[b] = shares[2 * e + 1, b] + residual[second, b] / degree[second]
        best = -np.inf
        for a in range(n_states):
            first_share = shares[2 * e, a] + residual[first, a] / degree[first]
            for b in range(n_states):
                best = max(best, table[a, b] + first_share + second_share[b])
        bound += best
    return bound


@numba.njit(cache=True)
def labelling_score(
    unary: np.ndarray, tables: np.ndarray, per_edge: bool, edges: np.ndarray, labels: np.ndarray
) -> float:
    """Return Σ_i unary[i, y_i] + Σ_e θ_e[y_u, y_v] at the labelling ``labels``."""
    score = 0.0
    for node in range(unary.shape[0]):
        score += unary[node, labels[node]]
    for e in range(edges.shape[0]):
        table = tables[e] if per_edge else tables[0]
        score += table[labels[edges[e, 0]], labels[edges[e, 1]]]
    return score
