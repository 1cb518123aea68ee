"""Graph-cut methods: α-expansion, αβ-swap and QPBO, on the compiled max-flow.

The score of a labelling is minus its energy; every move below minimises the energy of a
binary choice per node exactly by a minimum cut (``_maxflow``).

- α-expansion (Boykov, Veksler & Zabih, 2001) lets every node keep its state or take α, for
  each α in turn, until a cycle over the states changes nothing. Each move is a cut when every
  pairwise table satisfies θ(β, α) + θ(α, γ) ≤ θ(α, α) + θ(β, γ) for all states α, β, γ
  (a metric cost, such as Potts or truncated linear, up to a constant per table); the result
  is then within a factor of 2 of the optimum for Potts costs.
- αβ-swap lets the nodes in state α or β exchange these states, for each pair in turn. Each
  move is a cut when θ(α, β) + θ(β, α) ≤ θ(α, α) + θ(β, β) for all α, β (a semi-metric cost,
  such as truncated quadratic).
- QPBO (Kolmogorov & Rother, 2007; roof duality) solves binary models with any pairwise
  tables by a cut on a doubled graph (a node for x_u and one for 1 − x_u); the nodes whose two
  copies agree get their state, which belongs to an optimal labelling (persistency). Its cut
  value gives the roof-duality bound, the local-polytope LP bound. The nodes it leaves open
  (ties, or frustrated cycles) are completed with the labelled ones fixed: exactly, by one more
  cut, when the terms among them are submodular (the labelling is then optimal); otherwise
  they start at their best unary state and ICM (``_local_search``) improves the labelling.

The moves never lower the score. With two states a single move ranges over all labellings, so
expansion (from all zeros) and swap are exact and certified; so is QPBO when it labels every
node or completes the open ones by a cut. Otherwise the bound reported is QPBO's, or for the
moves the even split bound of ``_evaluate``. A method refuses pairwise tables that break its
condition, naming it.

References
----------
Y. Boykov, O. Veksler and R. Zabih. Fast approximate energy minimization via graph cuts.
IEEE TPAMI 23(11), 2001.

V. Kolmogorov and C. Rother. Minimizing nonsubmodular functions with graph cuts — a review.
IEEE TPAMI 29(7), 2007.
"""

from __future__ import annotations

import numba
import numpy as np

from structsvm._utils.validation import check_positive_int
from structsvm.inference._evaluate import labelling_score, split_bound
from structsvm.inference._graph import PairwiseModel
from structsvm.inference._local_search import icm, node_adjacency
from structsvm.inference._maxflow import (
    add_pairwise,
    add_unary,
    clear,
    cut_graph,
    cut_offset,
    max_flow,
)
from structsvm.inference._result import InferenceResult, closes_gap

MAX_CYCLES = 100
"""The default of the option ``max_cycles`` of expansion and swap."""

CONDITION_TOLERANCE = 1e-9
"""Relative slack allowed when checking a method's condition on the pairwise tables."""


def solve_expansion(
    model: PairwiseModel, relaxed: bool, *, max_cycles: int = MAX_CYCLES
) -> InferenceResult:
    """Run α-expansion from the all-zeros labelling; ``max_cycles`` cycles over the states."""
    max_cycles = check_positive_int(max_cycles, "max_cycles")
    violation = _expansion_violation(model.tables, CONDITION_TOLERANCE)
    if violation[0] >= 0:
        t, alpha, beta, gamma = violation
        raise ValueError(
            "method 'expansion' needs pairwise scores with θ(β, α) + θ(α, γ) ≤ θ(α, α) + "
            "θ(β, γ) for all states α, β, γ (a metric cost such as Potts or truncated linear); "
            f"table {t} breaks it at (α, β, γ) = ({alpha}, {beta}, {gamma})"
        )
    labels = np.zeros(model.n_nodes, dtype=np.int64)
    n_cycles = _expansion(
        model.unary, model.tables, model.per_edge, model.edges, labels, max_cycles
    )
    return _move_result(model, labels, "expansion", n_cycles)


def solve_swap(
    model: PairwiseModel, relaxed: bool, *, max_cycles: int = MAX_CYCLES
) -> InferenceResult:
    """Run αβ-swap from the labelling of the best unary states; ``max_cycles`` cycles."""
    max_cycles = check_positive_int(max_cycles, "max_cycles")
    violation = _swap_violation(model.tables, CONDITION_TOLERANCE)
    if violation[0] >= 0:
        t, alpha, beta, _ = violation
        raise ValueError(
            "method 'swap' needs pairwise scores with θ(α, β) + θ(β, α) ≤ θ(α, α) + θ(β, β) "
            "for all states α, β (a semi-metric cost such as Potts or truncated quadratic); "
            f"table {t} breaks it at (α, β) = ({alpha}, {beta})"
        )
    labels = np.argmax(model.unary, axis=1).astype(np.int64)
    n_cycles = _swap(model.unary, model.tables, model.per_edge, model.edges, labels, max_cycles)
    return _move_result(model, labels, "swap", n_cycles)


def solve_qpbo(model: PairwiseModel, relaxed: bool) -> InferenceResult:
    """Run QPBO on a binary model; complete the nodes it leaves open (see the module)."""
    if model.n_states != 2:
        raise ValueError(
            f"method 'qpbo' needs binary models (n_states = 2), got n_states = {model.n_states}"
        )
    labels, energy_bound = _qpbo(model.unary, model.tables, model.per_edge, model.edges)
    optimal = _complete_submodular(model.unary, model.tables, model.per_edge, model.edges, labels)
    if not optimal:
        open_nodes = labels < 0
        labels[open_nodes] = np.argmax(model.unary[open_nodes], axis=1)
        starts, ends = node_adjacency(model.n_nodes, model.edges)
        icm(model.unary, model.tables, model.per_edge, model.edges, starts, ends, labels)
    score = model.score(labels)
    certified = optimal or closes_gap(score, -energy_bound)
    bound = score if certified else max(score, -energy_bound)
    return InferenceResult(labels, score, bound, certified, None, None, "qpbo", 1)


def _move_result(
    model: PairwiseModel, labels: np.ndarray, method: str, n_cycles: int
) -> InferenceResult:
    """The result of a move-making method: exact with two states, else the even split bound."""
    score = model.score(labels)
    if model.n_states <= 2:
        return InferenceResult(labels, score, score, True, None, None, method, n_cycles)
    even = np.zeros((2 * model.n_edges, model.n_states))
    bound = split_bound(model.unary, model.tables, model.per_edge, model.edges, even)
    certified = closes_gap(score, bound)
    bound = score if certified else max(bound, score)
    return InferenceResult(labels, score, bound, certified, None, None, method, n_cycles)


@numba.njit(cache=True)
def _expansion_violation(tables: np.ndarray, tolerance: float) -> tuple[int, int, int, int]:
    """Return (table, α, β, γ) breaking the expansion condition, or (−1, −1, −1, −1)."""
    n_tables, n_states, _ = tables.shape
    for t in range(n_tables):
        table = tables[t]
        slack = tolerance * max(1.0, np.max(np.abs(table)))
        for alpha in range(n_states):
            for beta in range(n_states):
                for gamma in range(n_states):
                    excess = table[beta, alpha] + table[alpha, gamma]
                    excess -= table[alpha, alpha] + table[beta, gamma]
                    if excess > slack:
                        return t, alpha, beta, gamma
    return -1, -1, -1, -1


@numba.njit(cache=True)
def _swap_violation(tables: np.ndarray, tolerance: float) -> tuple[int, int, int, int]:
    """Return (table, α, β, −1) breaking the swap condition, or (−1, −1, −1, −1)."""
    n_tables, n_states, _ = tables.shape
    for t in range(n_tables):
        table = tables[t]
        slack = tolerance * max(1.0, np.max(np.abs(table)))
        for alpha in range(n_states):
            for beta in range(alpha + 1, n_states):
                excess = table[alpha, beta] + table[beta, alpha]
                excess -= table[alpha, alpha] + table[beta, beta]
                if excess > slack:
                    return t, alpha, beta, -1
    return -1, -1, -1, -1


@numba.njit(cache=True)
def _keep_if_better(unary, tables, per_edge, edges, labels, moved, score):
    """Copy the move ``moved`` into ``labels`` if it scores above ``score`` (beyond rounding).

    Returns the score of ``labels`` afterwards and whether the move was kept.
    """
    moved_score = labelling_score(unary, tables, per_edge, edges, moved)
    if moved_score > score + 1e-12 * max(1.0, abs(score)):
        labels[:] = moved
        return moved_score, True
    return score, False


@numba.njit(cache=True)
def _expansion(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    labels: np.ndarray,
    max_cycles: int,
) -> int:
    """Improve ``labels`` in place by expansion moves; return the cycles run."""
    n_nodes, n_states = unary.shape
    graph = cut_graph(n_nodes, edges)
    moved = labels.copy()
    score = labelling_score(unary, tables, per_edge, edges, labels)
    n_cycles = 0
    for cycle in range(max_cycles):
        n_cycles = cycle + 1
        improved = False
        for alpha in range(n_states):
            clear(graph)
            for i in range(n_nodes):
                add_unary(graph, i, -unary[i, labels[i]], -unary[i, alpha])
            for e in range(edges.shape[0]):
                t = e if per_edge else 0
                first, second = labels[edges[e, 0]], labels[edges[e, 1]]
                add_pairwise(
                    graph,
                    e,
                    -tables[t, first, second],
                    -tables[t, first, alpha],
                    -tables[t, alpha, second],
                    -tables[t, alpha, alpha],
                )
            _, sink_side = max_flow(graph)
            for i in range(n_nodes):
                moved[i] = alpha if sink_side[i] else labels[i]
            score, kept = _keep_if_better(unary, tables, per_edge, edges, labels, moved, score)
            improved |= kept
        if not improved:
            break
    return n_cycles


@numba.njit(cache=True)
def _swap(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    labels: np.ndarray,
    max_cycles: int,
) -> int:
    """Improve ``labels`` in place by αβ-swap moves; return the cycles run."""
    n_nodes, n_states = unary.shape
    graph = cut_graph(n_nodes, edges)
    moved = labels.copy()
    score = labelling_score(unary, tables, per_edge, edges, labels)
    n_cycles = 0
    for cycle in range(max_cycles):
        n_cycles = cycle + 1
        improved = False
        for alpha in range(n_states):
            for beta in range(alpha + 1, n_states):
                clear(graph)
                for i in range(n_nodes):
                    if labels[i] == alpha or labels[i] == beta:
                        add_unary(graph, i, -unary[i, alpha], -unary[i, beta])
                for e in range(edges.shape[0]):
                    t = e if per_edge else 0
                    u, v = edges[e, 0], edges[e, 1]
                    first, second = labels[u], labels[v]
                    in_first = first == alpha or first == beta
                    in_second = second == alpha or second == beta
                    if in_first and in_second:
                        add_pairwise(
                            graph,
                            e,
                            -tables[t, alpha, alpha],
                            -tables[t, alpha, beta],
                            -tables[t, beta, alpha],
                            -tables[t, beta, beta],
                        )
                    elif in_first:
                        add_unary(graph, u, -tables[t, alpha, second], -tables[t, beta, second])
                    elif in_second:
                        add_unary(graph, v, -tables[t, first, alpha], -tables[t, first, beta])
                _, sink_side = max_flow(graph)
                for i in range(n_nodes):
                    moved[i] = labels[i]
                    if labels[i] == alpha or labels[i] == beta:
                        moved[i] = beta if sink_side[i] else alpha
                score, kept = _keep_if_better(
                    unary, tables, per_edge, edges, labels, moved, score
                )
                improved |= kept
        if not improved:
            break
    return n_cycles


@numba.njit(cache=True)
def _qpbo(
    unary: np.ndarray, tables: np.ndarray, per_edge: bool, edges: np.ndarray
) -> tuple[np.ndarray, float]:
    """Return QPBO's partial labelling (−1 where open) and its lower bound on the energy.

    Node u has copies u (x_u) and n + u (1 − x_u); the energy ½[E(x) + E(1 − x̄)] is written
    with submodular terms only: a submodular edge joins u–v and ū–v̄, another u–v̄ and ū–v.
    """
    n_nodes = unary.shape[0]
    n_edges = edges.shape[0]
    pairs = np.empty((2 * n_edges, 2), dtype=np.int64)
    submodular = np.empty(n_edges, dtype=np.bool_)
    for e in range(n_edges):
        t = e if per_edge else 0
        u, v = edges[e, 0], edges[e, 1]
        a, b, c, d = -tables[t, 0, 0], -tables[t, 0, 1], -tables[t, 1, 0], -tables[t, 1, 1]
        submodular[e] = a + d <= b + c
        if submodular[e]:
            pairs[2 * e, 0], pairs[2 * e, 1] = u, v
            pairs[2 * e + 1, 0], pairs[2 * e + 1, 1] = n_nodes + u, n_nodes + v
        else:
            pairs[2 * e, 0], pairs[2 * e, 1] = u, n_nodes + v
            pairs[2 * e + 1, 0], pairs[2 * e + 1, 1] = n_nodes + u, v
    graph = cut_graph(2 * n_nodes, pairs)
    for u in range(n_nodes):
        add_unary(graph, u, -0.5 * unary[u, 0], -0.5 * unary[u, 1])
        add_unary(graph, n_nodes + u, -0.5 * unary[u, 1], -0.5 * unary[u, 0])
    for e in range(n_edges):
        t = e if per_edge else 0
        a, b = -0.5 * tables[t, 0, 0], -0.5 * tables[t, 0, 1]
        c, d = -0.5 * tables[t, 1, 0], -0.5 * tables[t, 1, 1]
        if submodular[e]:
            add_pairwise(graph, 2 * e, a, b, c, d)
            add_pairwise(graph, 2 * e + 1, d, c, b, a)
        else:
            add_pairwise(graph, 2 * e, b, a, d, c)
            add_pairwise(graph, 2 * e + 1, c, d, a, b)
    offset = cut_offset(graph)
    flow, sink_side = max_flow(graph)
    labels = np.full(n_nodes, -1, dtype=np.int64)
    for u in range(n_nodes):
        if sink_side[u] != sink_side[n_nodes + u]:
            labels[u] = 1 if sink_side[u] else 0
    return labels, offset + flow


@numba.njit(cache=True)
def _complete_submodular(
    unary: np.ndarray, tables: np.ndarray, per_edge: bool, edges: np.ndarray, labels: np.ndarray
) -> bool:
    """Label the open nodes (−1) of ``labels`` optimally given the others, if a cut can.

    Returns False, leaving ``labels`` alone, when an edge between two open nodes is not
    submodular; True once every node is labelled (at once if none was open).
    """
    n_nodes = unary.shape[0]
    if np.all(labels >= 0):
        return True
    graph = cut_graph(n_nodes, edges)
    for u in range(n_nodes):
        if labels[u] < 0:
            add_unary(graph, u, -unary[u, 0], -unary[u, 1])
    for e in range(edges.shape[0]):
        t = e if per_edge else 0
        u, v = edges[e, 0], edges[e, 1]
        if labels[u] < 0 and labels[v] < 0:
            a, b, c, d = -tables[t, 0, 0], -tables[t, 0, 1], -tables[t, 1, 0], -tables[t, 1, 1]
            if a + d > b + c:
                return False
            add_pairwise(graph, e, a, b, c, d)
        elif labels[u] < 0:
            add_unary(graph, u, -tables[t, 0, labels[v]], -tables[t, 1, labels[v]])
        elif labels[v] < 0:
            add_unary(graph, v, -tables[t, labels[u], 0], -tables[t, labels[u], 1])
    _, sink_side = max_flow(graph)
    for u in range(n_nodes):
        if labels[u] < 0:
            labels[u] = 1 if sink_side[u] else 0
    return True
