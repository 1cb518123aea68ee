"""Compiled helpers shared by the iterative methods: adjacency, Potts tables, local search.

:func:`node_adjacency` lists the edge ends at every node, :func:`potts_tables` recognises
tables with one score per state on the diagonal and one score off it (Potts models), and
:func:`icm` improves a labelling by iterated conditional modes (Besag, 1986): each node in turn
takes its best state given its neighbours' states, until a sweep changes nothing. ICM never
lowers the score, so it is a safe last step after rounding.

Reference: J. Besag. On the statistical analysis of dirty pictures. JRSS B 48(3), 1986.
"""

from __future__ import annotations

import numba
import numpy as np

MAX_ICM_SWEEPS = 50
"""Sweeps of :func:`icm` at most (each strictly raises the score, so this is rarely reached)."""


@numba.njit(cache=True)
def node_adjacency(n_nodes: int, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (starts, ends): the ends of the edges at node u are ``ends[starts[u]:starts[u+1]]``.

    End 2 e + k is node ``edges[e, k]`` of edge e.
    """
    n_edges = edges.shape[0]
    starts = np.zeros(n_nodes + 1, dtype=np.int64)
    for e in range(n_edges):
        starts[edges[e, 0] + 1] += 1
        starts[edges[e, 1] + 1] += 1
    starts = np.cumsum(starts)
    ends = np.empty(2 * n_edges, dtype=np.int64)
    filled = starts[:-1].copy()
    for e in range(n_edges):
        for k in range(2):
            node = edges[e, k]
            ends[filled[node]] = 2 * e + k
            filled[node] += 1
    return starts, ends


@numba.njit(cache=True)
def potts_tables(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return per table: are its off-diagonal entries all equal, its diagonal, that entry.

    Exact comparison: a table qualifies only if its off-diagonal entries are the same float.
    """
    n_tables, n_states, _ = tables.shape
    potts = np.ones(n_tables, dtype=np.bool_)
    diagonal = np.empty((n_tables, n_states))
    off_diagonal = np.zeros(n_tables)
    for t in range(n_tables):
        table = tables[t]
        for a in range(n_states):
            diagonal[t, a] = table[a, a]
        if n_states > 1:
            off_diagonal[t] = table[0, 1]
        for a in range(n_states):
            for b in range(n_states):
                if a != b and table[a, b] != off_diagonal[t]:
                    potts[t] = False
    return potts, diagonal, off_diagonal


@numba.njit(cache=True)
def icm(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    labels: np.ndarray,
) -> None:
    """Improve ``labels`` in place by iterated conditional modes; a node moves only to gain.

    The sweeps visit the nodes in order but skip a node none of whose neighbours moved since
    its last visit (it would stay), so a sweep costs little once few nodes move; the result is
    that of full sweeps.
    """
    n_nodes, n_states = unary.shape
    local = np.empty(n_states)
    pending = np.ones(n_nodes, dtype=np.bool_)
    for _ in range(MAX_ICM_SWEEPS):
        changed = False
        for node in range(n_nodes):
            if not pending[node]:
                continue
            pending[node] = False
            local[:] = unary[node]
            for p in range(starts[node], starts[node + 1]):
                e, k = ends[p] // 2, ends[p] % 2
                other = labels[edges[e, 1 - k]]
                table = tables[e] if per_edge else tables[0]
                for a in range(n_states):
                    local[a] += table[other, a] if k == 1 else table[a, other]
            best = np.argmax(local)
            if local[best] > local[labels[node]]:
                labels[node] = best
                changed = True
                for p in range(starts[node], starts[node + 1]):
                    pending[edges[ends[p] // 2, 1 - ends[p] % 2]] = True
        if not changed:
            break
