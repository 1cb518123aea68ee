"""Minimum s-t cuts by the Boykov–Kolmogorov max-flow algorithm, and binary energies as cuts.

A :class:`CutGraph` holds the arcs of a fixed graph (arc 2 a and arc 2 a + 1 are the two
directions of pair a) with their residual capacities, and the terminal capacity of every
node: ``terminal[i] > 0`` is a residual capacity from the source to i, ``terminal[i] < 0`` one
from i to the sink. :func:`add_unary` and :func:`add_pairwise` write a binary energy
Σ_i E_i(x_i) + Σ E_ij(x_i, x_j) into it (x_i = 0 on the source side, 1 on the sink side), the
pairwise terms submodular (E(0,0) + E(1,1) ≤ E(0,1) + E(1,0)); :func:`max_flow` then finds a
minimum cut, whose value plus :func:`cut_offset` is the minimum energy.

The max-flow algorithm grows a search tree from the source and one from the sink, augments
along the path where they meet, and re-attaches the nodes cut off by saturated arcs (orphans)
to their tree through other arcs or frees them (Boykov & Kolmogorov, 2004). Both trees are
kept from one augmenting path to the next, which makes it fast on the grid graphs of vision.

Reference: Y. Boykov and V. Kolmogorov. An experimental comparison of min-cut/max-flow
algorithms for energy minimization in vision. IEEE TPAMI 26(9), 2004.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

FREE, TERMINAL, ORPHAN = -1, -2, -3
"""Parents of nodes outside both trees, at the root of a tree, and cut off from their tree."""

NO_DISTANCE = 1 << 60


class CutGraph(NamedTuple):
    """A graph for :func:`max_flow`: arcs as linked lists, residual and terminal capacities.

    Attributes
    ----------
    first : ndarray of int64, shape (n_nodes,)
        The first arc out of each node (−1 for none); ``following[a]`` the next one.
    following, head : ndarray of int64, shape (n_arcs,)
        The next arc out of the same node, and the node each arc points to.
    capacity : ndarray of float64, shape (n_arcs,)
        Residual capacities; arc a ^ 1 is the reverse of arc a.
    terminal : ndarray of float64, shape (n_nodes,)
        Residual terminal capacities, positive from the source, negative to the sink.
    offset : ndarray of float64, shape (1,)
        The constant of the energy written into the graph.
    """

    first: np.ndarray
    following: np.ndarray
    head: np.ndarray
    capacity: np.ndarray
    terminal: np.ndarray
    offset: np.ndarray


@numba.njit(cache=True)
def cut_graph(n_nodes: int, pairs: np.ndarray) -> CutGraph:
    """Return a graph with no capacities on ``n_nodes`` nodes and an arc pair per row of ``pairs``.

    Pair a joins ``pairs[a, 0]`` (tail of arc 2 a) and ``pairs[a, 1]`` (tail of arc 2 a + 1).
    """
    n_arcs = 2 * pairs.shape[0]
    first = np.full(n_nodes, -1, dtype=np.int64)
    following = np.empty(n_arcs, dtype=np.int64)
    head = np.empty(n_arcs, dtype=np.int64)
    for a in range(pairs.shape[0]):
        for k in range(2):
            arc, tail = 2 * a + k, pairs[a, k]
            head[arc] = pairs[a, 1 - k]
            following[arc] = first[tail]
            first[tail] = arc
    return CutGraph(first, following, head, np.zeros(n_arcs), np.zeros(n_nodes), np.zeros(1))


@numba.njit(cache=True)
def clear(graph: CutGraph) -> None:
    """Set every capacity and the offset to zero."""
    graph.capacity[:] = 0.0
    graph.terminal[:] = 0.0
    graph.offset[0] = 0.0


@numba.njit(cache=True)
def add_unary(graph: CutGraph, node: int, cost_0: float, cost_1: float) -> None:
    """Add E(x_node) with E(0) = ``cost_0`` and E(1) = ``cost_1``."""
    graph.terminal[node] += cost_1 - cost_0
    graph.offset[0] += cost_0


@numba.njit(cache=True)
def add_pairwise(graph: CutGraph, pair: int, a: float, b: float, c: float, d: float) -> None:
    """Add E(x_i, x_j) = a, b, c, d at (0, 0), (0, 1), (1, 0), (1, 1) on arc pair ``pair``.

    i is the tail of arc 2·pair, j its head. The term must be submodular (a + d ≤ b + c, up
    to rounding, which is clipped).
    """
    i, j = graph.head[2 * pair + 1], graph.head[2 * pair]
    graph.offset[0] += a
    graph.terminal[i] += c - a
    graph.terminal[j] += d - c
    graph.capacity[2 * pair] += max(0.0, b + c - a - d)


@numba.njit(cache=True)
def cut_offset(graph: CutGraph) -> float:
    """Return the energy of the cut of value 0: the offset plus the negative terminal terms.

    Call it before :func:`max_flow`, which changes the terminal capacities.
    """
    total = graph.offset[0]
    for value in graph.terminal:
        total += min(value, 0.0)
    return total


@numba.njit(cache=True)
def max_flow(graph: CutGraph) -> tuple[float, np.ndarray]:
    """Return the maximum flow and the nodes on the sink side of a minimum cut (x = 1).

    The nodes left in neither search tree at the end go to the source side. The capacities
    are left residual.
    """
    first, following, head = graph.first, graph.following, graph.head
    capacity, terminal = graph.capacity, graph.terminal
    n_nodes = first.size
    parent = np.full(n_nodes, FREE, dtype=np.int64)
    in_sink = np.zeros(n_nodes, dtype=np.bool_)
    stamp = np.zeros(n_nodes, dtype=np.int64)
    distance = np.zeros(n_nodes, dtype=np.int64)
    # Active nodes: a circular queue with membership flags.
    queue = np.empty(n_nodes + 1, dtype=np.int64)
    queued = np.zeros(n_nodes, dtype=np.bool_)
    front, back = 0, 0
    orphans = np.empty(n_nodes, dtype=np.int64)
    for i in range(n_nodes):
        if terminal[i] != 0.0:
            in_sink[i] = terminal[i] < 0.0
            parent[i] = TERMINAL
            distance[i] = 1
            queue[back] = i
            back += 1
            queued[i] = True
    flow, time, current = 0.0, 0, -1
    while True:
        # The next active node (the current one first, while it is in a tree).
        i = current
        if i < 0 or parent[i] == FREE:
            i = -1
            while front != back:
                candidate = queue[front]
                front = (front + 1) % (n_nodes + 1)
                queued[candidate] = False
                if parent[candidate] != FREE:
                    i = candidate
                    break
            if i < 0:
                break
        current = -1
        # Growth: the first arc to the other tree found from i, oriented source to sink.
        middle = -1
        arc = first[i]
        while arc >= 0:
            j = head[arc]
            open_arc = capacity[arc] > 0.0 if not in_sink[i] else capacity[arc ^ 1] > 0.0
            if open_arc:
                if parent[j] == FREE:
                    in_sink[j] = in_sink[i]
                    parent[j] = arc ^ 1
                    stamp[j] = stamp[i]
                    distance[j] = distance[i] + 1
                    if not queued[j]:
                        queue[back] = j
                        back = (back + 1) % (n_nodes + 1)
                        queued[j] = True
                elif in_sink[j] != in_sink[i]:
                    middle = arc if not in_sink[i] else arc ^ 1
                    break
                elif stamp[j] <= stamp[i] and distance[j] > distance[i]:
                    parent[j] = arc ^ 1
                    stamp[j] = stamp[i]
                    distance[j] = distance[i] + 1
            arc = following[arc]
        if middle < 0:
            continue
        current = i
        time += 1
        bottleneck, n_orphans = _augment(graph, parent, middle, orphans)
        flow += bottleneck
        # Adoption: every orphan finds a new parent in its tree, or becomes free.
        k = 0
        while k < n_orphans:
            orphan = orphans[k]
            k += 1
            sink = in_sink[orphan]
            best_arc, best_distance = -1, NO_DISTANCE
            arc = first[orphan]
            while arc >= 0:
                j = head[arc]
                # The arc from the candidate parent j into the orphan (or out, in the sink tree).
                usable = capacity[arc] > 0.0 if sink else capacity[arc ^ 1] > 0.0
                if usable and parent[j] != FREE and in_sink[j] == sink:
                    steps = _root_distance(parent, stamp, distance, head, j, time)
                    if steps < NO_DISTANCE:
                        if steps < best_distance:
                            best_arc, best_distance = arc, steps
                        # Mark the path checked, with its distances, for this round.
                        node, d = j, steps
                        while stamp[node] != time:
                            stamp[node] = time
                            distance[node] = d
                            d -= 1
                            node = head[parent[node]]
                arc = following[arc]
            if best_arc >= 0:
                parent[orphan] = best_arc
                stamp[orphan] = time
                distance[orphan] = best_distance + 1
                continue
            parent[orphan] = FREE
            arc = first[orphan]
            while arc >= 0:
                j = head[arc]
                up = parent[j]
                if up != FREE and in_sink[j] == sink:
                    usable = capacity[arc] > 0.0 if sink else capacity[arc ^ 1] > 0.0
                    if usable and not queued[j]:
                        queue[back] = j
                        back = (back + 1) % (n_nodes + 1)
                        queued[j] = True
                    if up >= 0 and head[up] == orphan:
                        parent[j] = ORPHAN
                        orphans[n_orphans] = j
                        n_orphans += 1
                arc = following[arc]
    sink_side = np.zeros(n_nodes, dtype=np.bool_)
    for i in range(n_nodes):
        sink_side[i] = parent[i] != FREE and in_sink[i]
    return flow, sink_side


@numba.njit(cache=True)
def _augment(
    graph: CutGraph, parent: np.ndarray, middle: int, orphans: np.ndarray
) -> tuple[float, int]:
    """Push the bottleneck along the path through arc ``middle``; return it and the orphans.

    The nodes whose arc to their parent (or to their terminal) is saturated become orphans,
    listed in ``orphans``.
    """
    head, capacity, terminal = graph.head, graph.capacity, graph.terminal
    bottleneck = capacity[middle]
    node = head[middle ^ 1]
    while parent[node] != TERMINAL:
        arc = parent[node]
        bottleneck = min(bottleneck, capacity[arc ^ 1])
        node = head[arc]
    bottleneck = min(bottleneck, terminal[node])
    node = head[middle]
    while parent[node] != TERMINAL:
        arc = parent[node]
        bottleneck = min(bottleneck, capacity[arc])
        node = head[arc]
    bottleneck = min(bottleneck, -terminal[node])
    capacity[middle ^ 1] += bottleneck
    capacity[middle] -= bottleneck
    n_orphans = 0
    for side in range(2):
        node = head[middle ^ 1] if side == 0 else head[middle]
        while parent[node] != TERMINAL:
            arc = parent[node]
            # Toward the sink: parent to node in the source tree, node to parent in the sink's.
            forward = arc ^ 1 if side == 0 else arc
            capacity[forward] -= bottleneck
            capacity[forward ^ 1] += bottleneck
            following_node = head[arc]
            if capacity[forward] <= 0.0:
                parent[node] = ORPHAN
                orphans[n_orphans] = node
                n_orphans += 1
            node = following_node
        if side == 0:
            terminal[node] -= bottleneck
            saturated = terminal[node] <= 0.0
        else:
            terminal[node] += bottleneck
            saturated = terminal[node] >= 0.0
        if saturated:
            parent[node] = ORPHAN
            orphans[n_orphans] = node
            n_orphans += 1
    return bottleneck, n_orphans


@numba.njit(cache=True)
def _root_distance(
    parent: np.ndarray,
    stamp: np.ndarray,
    distance: np.ndarray,
    head: np.ndarray,
    node: int,
    time: int,
) -> int:
    """Return the number of arcs from ``node`` to its terminal, or NO_DISTANCE via an orphan.

    Distances stamped with ``time`` are trusted and end the walk early.
    """
    steps = 0
    while True:
        if stamp[node] == time:
            return steps + distance[node]
        up = parent[node]
        steps += 1
        if up == TERMINAL:
            stamp[node] = time
            distance[node] = 1
            return steps
        if up == ORPHAN or up == FREE:
            return NO_DISTANCE
        node = head[up]
