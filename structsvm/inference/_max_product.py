"""Max-product message passing: exact on trees and forests, damped loopy updates otherwise.

On a forest (Pearl, 1988) one upward pass from the leaves to a root of every component and one
downward pass of back-pointers find a best labelling exactly. The schedule — a breadth-first
order of all components, each node's parent and the edge to it — is built with SciPy's graph
routines; the passes run in one compiled call.

On a graph with cycles, loopy max-product (Weiss & Freeman, 2001) updates the messages with
damping, decodes the argmax of the node beliefs after every sweep and keeps the best labelling
seen. A sweep updates all messages in parallel from those of the previous sweep, or, with
``schedule="serial"``, visits the nodes in their order and back, each sending on all its edges
from the messages it has just received, which carries information across the graph in one
sweep and usually needs far fewer sweeps. It comes with no guarantee; the bound it reports is
the split bound (``_evaluate.split_bound``) of the reparametrisation by its final messages or
of the even split of the unary scores, whichever is smaller, and the labelling is certified
only if its score reaches that bound.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numba
import numpy as np
import scipy.sparse

from structsvm._utils.validation import (
    Interval,
    check_positive_float,
    check_positive_int,
    check_value,
)
from structsvm.inference._evaluate import labelling_score, split_bound
from structsvm.inference._graph import PairwiseModel
from structsvm.inference._local_search import node_adjacency
from structsvm.inference._result import InferenceResult, closes_gap

MAX_ITER, DAMPING, TOL, SCHEDULE = 100, 0.5, 1e-6, "parallel"
"""The defaults of the loopy options ``max_iter``, ``damping``, ``tol`` and ``schedule``."""

SCHEDULES = ("parallel", "serial")


class LoopyOptions(NamedTuple):
    """The checked options of loopy max-product (unused on forests)."""

    max_iter: int
    damping: float
    tol: float
    serial: bool


def loopy_options(
    *,
    max_iter: int = MAX_ITER,
    damping: float = DAMPING,
    tol: float = TOL,
    schedule: str = SCHEDULE,
) -> LoopyOptions:
    """Return the options of :func:`solve_max_product`, checked; raise ValueError if bad."""
    max_iter = check_positive_int(max_iter, "max_iter")
    check_value(damping, "damping", [Interval(numbers.Real, 0, 1, closed="left")])
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    return LoopyOptions(
        max_iter, float(damping), check_positive_float(tol, "tol"), schedule == "serial"
    )


def solve_max_product(
    model: PairwiseModel,
    relaxed: bool,
    *,
    max_iter: int = MAX_ITER,
    damping: float = DAMPING,
    tol: float = TOL,
    schedule: str = SCHEDULE,
) -> InferenceResult:
    """Run max-product; exact on forests, loopy and damped on graphs with cycles.

    Options (used on graphs with cycles only): ``max_iter`` sweeps at most, ``damping`` in
    [0, 1) (the weight kept from the previous message), ``tol`` (stop when no message entry
    changes by more than it in a sweep) and ``schedule``, ``"parallel"`` or ``"serial"``.
    """
    options = loopy_options(max_iter=max_iter, damping=damping, tol=tol, schedule=schedule)
    if model.is_forest():
        return solve_forest(model)
    labels, n_iter, messages = _loopy_max_product(
        model.unary, model.tables, model.per_edge, model.edges, *options
    )
    score = model.score(labels)
    # The share of each end of an edge is minus the message into it (messages[2 e + 1] into
    # the first node, messages[2 e] into the second); zero shares split the unaries evenly.
    into_each_end = messages.reshape(-1, 2, model.n_states)[:, ::-1].reshape(messages.shape)
    bound = min(
        split_bound(model.unary, model.tables, model.per_edge, model.edges, -into_each_end),
        split_bound(
            model.unary, model.tables, model.per_edge, model.edges, np.zeros_like(messages)
        ),
    )
    certified = closes_gap(score, bound)
    bound = score if certified else max(bound, score)
    return InferenceResult(labels, score, bound, certified, None, None, "max-product", n_iter)


def solve_forest(model: PairwiseModel) -> InferenceResult:
    """Return the exact answer of max-product on the forest ``model``, certified."""
    order, parent, parent_edge, child_is_second = _forest_schedule(model)
    labels = _forest_max_product(
        model.unary, model.tables, model.per_edge, order, parent, parent_edge, child_is_second
    )
    score = model.score(labels)
    return InferenceResult(labels, score, score, True, None, None, "max-product", 1)


def forest_labellings(
    model: PairwiseModel,
    unaries: np.ndarray,
    *,
    max_iter: int = MAX_ITER,
    damping: float = DAMPING,
    tol: float = TOL,
    schedule: str = SCHEDULE,
) -> np.ndarray:
    """Return a best labelling of the forest ``model`` under each of many unary score arrays.

    ``unaries`` has shape (n_models, n_nodes, n_states) and takes the place of
    ``model.unary``; the schedule is built once and the passes of every model run in one
    compiled call. The labellings are those :func:`solve_max_product` returns model by model.
    The options of :func:`solve_max_product` are checked alike, and unused on a forest.
    """
    loopy_options(max_iter=max_iter, damping=damping, tol=tol, schedule=schedule)
    order, parent, parent_edge, child_is_second = _forest_schedule(model)
    return _forest_max_product_many(
        np.ascontiguousarray(unaries, dtype=np.float64),
        model.tables,
        model.per_edge,
        order,
        parent,
        parent_edge,
        child_is_second,
    )


class GraphSchedule(NamedTuple):
    """How max-product visits a graph: on a forest, its breadth-first schedule.

    Attributes
    ----------
    forest : bool
        Whether the graph has no cycle (max-product is then exact).
    order, parent, parent_edge : ndarray of shape (n_nodes,), int64
    child_is_second : ndarray of shape (n_nodes,), bool
        The schedule of the forest passes (see :func:`_forest_schedule`); on a graph with
        cycles, every node a root in the order of the nodes (unused by the loopy updates).
    """

    forest: bool
    order: np.ndarray
    parent: np.ndarray
    parent_edge: np.ndarray
    child_is_second: np.ndarray


def graph_schedule(n_nodes: int, edges: np.ndarray) -> GraphSchedule:
    """Return the schedule of max-product on the graph of ``n_nodes`` nodes and ``edges``.

    ``edges`` is an (n_edges, 2) int64 array of distinct node pairs, as :func:`check_model`
    returns it.
    """
    model = PairwiseModel(np.zeros((n_nodes, 1)), edges, np.zeros((1, 1, 1)), False)
    if model.is_forest():
        return GraphSchedule(True, *_forest_schedule(model))
    roots = np.full(n_nodes, -1, dtype=np.int64)
    return GraphSchedule(
        False, np.arange(n_nodes, dtype=np.int64), roots, roots, np.zeros(n_nodes, dtype=np.bool_)
    )


@numba.njit(cache=True)
def max_product_labels(
    unary: np.ndarray,
    tables: np.ndarray,
    edges: np.ndarray,
    forest: bool,
    order: np.ndarray,
    parent: np.ndarray,
    parent_edge: np.ndarray,
    child_is_second: np.ndarray,
    max_iter: int,
    damping: float,
    tol: float,
    serial: bool,
) -> np.ndarray:
    """Return the labelling :func:`solve_max_product` finds, in compiled code.

    ``tables`` holds one (n_states, n_states) table per edge; ``forest`` and the schedule are
    those of :func:`graph_schedule`, the last four arguments the :class:`LoopyOptions`.
    """
    if forest:
        return _forest_max_product(unary, tables, True, order, parent, parent_edge, child_is_second)
    return _loopy_max_product(unary, tables, True, edges, max_iter, damping, tol, serial)[0]


def _forest_schedule(model: PairwiseModel) -> tuple[np.ndarray, ...]:
    """Return a breadth-first order of all nodes, each node's parent and edge to it.

    A virtual node joined to the first node of every component makes one search reach the
    whole forest. Roots get parent −1. ``child_is_second[v]`` tells whether v is the second
    node of the edge to its parent.
    """
    n_nodes = model.n_nodes
    _, component = model.components()
    _, roots = np.unique(component, return_index=True)
    virtual = n_nodes
    first = np.concatenate([model.edges[:, 0], np.full(roots.size, virtual)])
    second = np.concatenate([model.edges[:, 1], roots])
    # Entry (u, v) stores the number of the edge joining u and v plus one (all entries > 0).
    numbers = np.arange(1, first.size + 1)
    adjacency = scipy.sparse.csr_matrix(
        (
            np.concatenate([numbers, numbers]),
            (np.concatenate([first, second]), np.concatenate([second, first])),
        ),
        shape=(n_nodes + 1, n_nodes + 1),
    )
    # Imported here: SciPy's graph routines load scipy.linalg, about 11 MB, unused by most fits.
    from scipy.sparse.csgraph import breadth_first_order

    order, predecessors = breadth_first_order(
        adjacency, virtual, directed=True, return_predecessors=True
    )
    order = order[1:].astype(np.int64)
    parent = predecessors[:n_nodes].astype(np.int64)
    parent[parent == virtual] = -1
    children = np.flatnonzero(parent >= 0)
    parent_edge = np.full(n_nodes, -1, dtype=np.int64)
    if children.size:
        parent_edge[children] = np.asarray(adjacency[parent[children], children]).ravel() - 1
    child_is_second = np.zeros(n_nodes, dtype=np.bool_)
    child_is_second[children] = model.edges[parent_edge[children], 1] == children
    return order, parent, parent_edge, child_is_second


@numba.njit(cache=True)
def _forest_max_product(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    order: np.ndarray,
    parent: np.ndarray,
    parent_edge: np.ndarray,
    child_is_second: np.ndarray,
) -> np.ndarray:
    """Return a best labelling of a forest given its breadth-first schedule."""
    n_nodes, n_states = unary.shape
    belief = unary.copy()
    best_state = np.zeros((n_nodes, n_states), dtype=np.int64)
    for k in range(n_nodes - 1, -1, -1):
        child = order[k]
        up = parent[child]
        if up < 0:
            continue
        edge = parent_edge[child]
        table = tables[edge] if per_edge else tables[0]
        for a in range(n_states):
            best, arg = -np.inf, 0
            for b in range(n_states):
                pair = table[a, b] if child_is_second[child] else table[b, a]
                value = belief[child, b] + pair
                if value > best:
                    best, arg = value, b
            belief[up, a] += best
            best_state[child, a] = arg
    labels = np.empty(n_nodes, dtype=np.int64)
    for k in range(n_nodes):
        node = order[k]
        if parent[node] < 0:
            labels[node] = np.argmax(belief[node])
        else:
            labels[node] = best_state[node, labels[parent[node]]]
    return labels


@numba.njit(cache=True)
def _forest_max_product_many(
    unaries: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    order: np.ndarray,
    parent: np.ndarray,
    parent_edge: np.ndarray,
    child_is_second: np.ndarray,
) -> np.ndarray:
    """Run :func:`_forest_max_product` on every unary array of a (n_models, ...) stack."""
    labels = np.empty(unaries.shape[:2], dtype=np.int64)
    for m in range(unaries.shape[0]):
        labels[m] = _forest_max_product(
            unaries[m], tables, per_edge, order, parent, parent_edge, child_is_second
        )
    return labels


@numba.njit(cache=True)
def _loopy_max_product(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    max_iter: int,
    damping: float,
    tol: float,
    serial: bool,
) -> tuple[np.ndarray, int, np.ndarray]:
    """Run damped loopy max-product; return the best labelling seen, sweeps and messages.

    ``messages[2 e]`` is the message from edge e's first node into its second node,
    ``messages[2 e + 1]`` from the second into the first; both are normalised to a maximum of 0.
    """
    if serial:
        return _serial_max_product(unary, tables, per_edge, edges, max_iter, damping, tol)
    return _parallel_max_product(unary, tables, per_edge, edges, max_iter, damping, tol)


@numba.njit(cache=True)
def _serial_max_product(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    max_iter: int,
    damping: float,
    tol: float,
) -> tuple[np.ndarray, int, np.ndarray]:
    """Run serial max-product, as :func:`_loopy_max_product`.

    A sweep visits the nodes 0, 1, …, n − 1 and back; a visited node sums its unary scores
    and the messages it receives, and sends on each of its edges the maximum over its states
    of that belief minus the message received on the edge, plus the edge's table.
    """
    n_nodes, n_states = unary.shape
    n_edges = edges.shape[0]
    starts, ends = node_adjacency(n_nodes, edges)
    messages = np.zeros((2 * n_edges, n_states))
    belief = np.empty(n_states)
    cavity = np.empty(n_states)
    sent = np.empty(n_states)
    labels = np.empty(n_nodes, dtype=np.int64)
    best_labels = np.zeros(n_nodes, dtype=np.int64)
    best_score = -np.inf
    n_iter = 0
    for sweep in range(max_iter + 1):
        for node in range(n_nodes):
            _node_belief(unary, messages, ends, starts, node, belief)
            labels[node] = np.argmax(belief)
        score = labelling_score(unary, tables, per_edge, edges, labels)
        if score > best_score:
            best_score = score
            best_labels[:] = labels
        if sweep == max_iter:
            break
        n_iter = sweep + 1
        change = 0.0
        for step in range(2 * n_nodes):
            node = step if step < n_nodes else 2 * n_nodes - 1 - step
            _node_belief(unary, messages, ends, starts, node, belief)
            for p in range(starts[node], starts[node + 1]):
                e, k = ends[p] // 2, ends[p] % 2
                # Received on end k: message 2 e + 1 at the first node, 2 e at the second.
                received = messages[2 * e + 1 - k]
                table = tables[e] if per_edge else tables[0]
                for a in range(n_states):
                    cavity[a] = belief[a] - received[a]
                # sent[b] = max over a of cavity[a] + the table at (a, b), row by row.
                if k == 0:
                    sent[:] = -np.inf
                    for a in range(n_states):
                        for b in range(n_states):
                            sent[b] = max(sent[b], cavity[a] + table[a, b])
                else:
                    for b in range(n_states):
                        best = -np.inf
                        for a in range(n_states):
                            best = max(best, cavity[a] + table[b, a])
                        sent[b] = best
                change = max(change, _damp(sent, messages[2 * e + k], damping))
                messages[2 * e + k] = sent
        if change < tol:
            break
    return best_labels, n_iter, messages


@numba.njit(cache=True)
def _node_belief(unary, messages, ends, starts, node, belief):
    """Write the unary scores of ``node`` plus the messages it receives into ``belief``."""
    belief[:] = unary[node]
    for p in range(starts[node], starts[node + 1]):
        e, k = ends[p] // 2, ends[p] % 2
        belief += messages[2 * e + 1 - k]


@numba.njit(cache=True)
def _parallel_max_product(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    max_iter: int,
    damping: float,
    tol: float,
) -> tuple[np.ndarray, int, np.ndarray]:
    """Run damped parallel max-product, as :func:`_loopy_max_product`.

    Every sweep computes all messages from the beliefs and messages of the previous sweep.
    """
    n_nodes, n_states = unary.shape
    n_edges = edges.shape[0]
    messages = np.zeros((2 * n_edges, n_states))
    previous = np.zeros((2 * n_edges, n_states))
    cavity_first = np.empty(n_states)
    cavity_second = np.empty(n_states)
    belief = np.empty((n_nodes, n_states))
    labels = np.empty(n_nodes, dtype=np.int64)
    best_labels = np.empty(n_nodes, dtype=np.int64)
    best_score = -np.inf
    n_iter = 0
    for sweep in range(max_iter + 1):
        belief[:] = unary
        for e in range(n_edges):
            belief[edges[e, 1]] += messages[2 * e]
            belief[edges[e, 0]] += messages[2 * e + 1]
        for node in range(n_nodes):
            labels[node] = np.argmax(belief[node])
        score = labelling_score(unary, tables, per_edge, edges, labels)
        if score > best_score:
            best_score = score
            best_labels[:] = labels
        if sweep == max_iter:
            break
        n_iter = sweep + 1
        previous[:] = messages
        change = 0.0
        for e in range(n_edges):
            first, second = edges[e, 0], edges[e, 1]
            table = tables[e] if per_edge else tables[0]
            into_second, into_first = messages[2 * e], messages[2 * e + 1]
            for a in range(n_states):
                cavity_first[a] = belief[first, a] - previous[2 * e + 1, a]
                cavity_second[a] = belief[second, a] - previous[2 * e, a]
                into_second[a] = -np.inf
            for a in range(n_states):
                best = -np.inf
                for b in range(n_states):
                    value = table[a, b]
                    best = max(best, cavity_second[b] + value)
                    into_second[b] = max(into_second[b], cavity_first[a] + value)
                into_first[a] = best
            change = max(change, _damp(into_second, previous[2 * e], damping))
            change = max(change, _damp(into_first, previous[2 * e + 1], damping))
        if change < tol:
            break
    return best_labels, n_iter, messages


@numba.njit(cache=True)
def _damp(message: np.ndarray, previous: np.ndarray, damping: float) -> float:
    """Normalise ``message`` to a maximum of 0, mix in ``previous``; return the largest change."""
    top = np.max(message)
    change = 0.0
    for a in range(message.size):
        value = (1.0 - damping) * (message[a] - top) + damping * previous[a]
        change = max(change, abs(value - previous[a]))
        message[a] = value
    return change
