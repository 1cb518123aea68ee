"""AD3: alternating directions dual decomposition over the edges of a pairwise model.

AD3 (Martins, Figueiredo, Aguiar, Smith & Xing, 2015) solves the local-polytope LP by the
alternating direction method of multipliers. Each edge e = (u, v) keeps its own joint
distribution q_e over pairs of states; each node u keeps a distribution p_u; multipliers
λ_{e,u} price the disagreement between the marginal of q_e at u and p_u. One iteration

1. updates every q_e by maximising θ_e·q_e + Σ_{u∈e} (θ_u / d_u + λ_{e,u})·M_u q_e
   − η/2 Σ_{u∈e} ‖M_u q_e − p_u‖² over the simplex (M_u q_e is the marginal at u, d_u the
   degree of u) — a small quadratic programme;
2. sets p_u to the mean of the marginals M_u q_e over the edges at u;
3. moves λ_{e,u} by −η (M_u q_e − p_u), which keeps Σ_e λ_{e,u} = 0.

The edge subproblem is solved by accelerated projected gradient (Beck & Teboulle, 2009) warm
started from the previous q_e, up to ``inner_iter`` steps or until a step moves no entry by more
than a thousandth of ``tol``; the published method solves it exactly by an active-set method, so
this is AD3 with inexact subproblems. The bound needs no exactness: for any multipliers, the
split of the unary scores θ_u / d_u + λ_{e,u} bounds the maximum (``_evaluate.split_bound``),
and the smallest bound met is reported. The step η adapts as in the paper: it doubles when the
primal residual is ten times the dual one and halves in the opposite case. The labelling is the
argmax of p, the best one seen over the iterations; it is certified when its score meets the
bound.
"""

from __future__ import annotations

import numba
import numpy as np

from structsvm._utils.validation import check_positive_float, check_positive_int
from structsvm.inference._evaluate import labelling_score, split_bound
from structsvm.inference._graph import PairwiseModel
from structsvm.inference._result import GAP_TOLERANCE, InferenceResult, closes_gap


def solve_ad3(
    model: PairwiseModel,
    relaxed: bool,
    *,
    max_iter: int = 1000,
    eta: float = 0.1,
    tol: float = 1e-6,
    inner_iter: int = 50,
) -> InferenceResult:
    """Run AD3; stop when the labelling meets the bound or both residuals fall below ``tol``.

    With ``relaxed`` it stops on the residuals only and returns p and q as the marginals.

    Options: ``max_iter`` iterations at most, ``eta`` the initial step (penalty) of the
    augmented Lagrangian, ``tol`` the residual tolerance (root mean square over the node
    marginals of the edges), ``inner_iter`` the most gradient steps per edge subproblem.
    """
    max_iter = check_positive_int(max_iter, "max_iter")
    eta = check_positive_float(eta, "eta")
    tol = check_positive_float(tol, "tol")
    inner_iter = check_positive_int(inner_iter, "inner_iter")
    labels, bound, n_iter, node_marginals, edge_marginals = _ad3(
        model.unary,
        model.tables,
        model.per_edge,
        model.edges,
        max_iter,
        eta,
        tol,
        inner_iter,
        GAP_TOLERANCE,
        not relaxed,
    )
    score = model.score(labels)
    certified = closes_gap(score, bound)
    bound = score if certified else max(bound, score)
    if not relaxed:
        node_marginals = edge_marginals = None
    return InferenceResult(
        labels, score, bound, certified, node_marginals, edge_marginals, "ad3", n_iter
    )


@numba.njit(cache=True)
def _ad3(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    max_iter: int,
    eta: float,
    tol: float,
    inner_iter: int,
    gap_tolerance: float,
    stop_when_certified: bool,
) -> tuple[np.ndarray, float, int, np.ndarray, np.ndarray]:
    """Return the best labelling, the smallest bound, iterations and the final p and q.

    Unless ``stop_when_certified``, it runs on after the labelling meets the bound, until the
    residuals are small, so that p and q solve the relaxation.
    """
    n_nodes, n_states = unary.shape
    n_edges = edges.shape[0]
    degree = np.zeros(n_nodes, dtype=np.int64)
    for e in range(n_edges):
        degree[edges[e, 0]] += 1
        degree[edges[e, 1]] += 1
    p = np.full((n_nodes, n_states), 1.0 / n_states)
    for node in range(n_nodes):
        if degree[node] == 0:
            p[node] = 0.0
            p[node, np.argmax(unary[node])] = 1.0
    q = np.full((n_edges, n_states, n_states), 1.0 / n_states**2)
    multipliers = np.zeros((2 * n_edges, n_states))
    marginal_sum = np.zeros((n_nodes, n_states))
    target_first = np.empty(n_states)
    target_second = np.empty(n_states)
    labels = np.empty(n_nodes, dtype=np.int64)
    best_labels = np.empty(n_nodes, dtype=np.int64)
    best_score, best_bound = -np.inf, np.inf
    current = np.empty((n_states, n_states))
    previous = np.empty((n_states, n_states))
    n_iter = 0
    for iteration in range(max_iter):
        n_iter = iteration + 1
        # 1. Edge subproblems.
        for e in range(n_edges):
            first, second = edges[e, 0], edges[e, 1]
            table = tables[e] if per_edge else tables[0]
            for a in range(n_states):
                target_first[a] = (
                    p[first, a] + (unary[first, a] / degree[first] + multipliers[2 * e, a]) / eta
                )
                target_second[a] = (
                    p[second, a]
                    + (unary[second, a] / degree[second] + multipliers[2 * e + 1, a]) / eta
                )
            _edge_qp(
                q[e],
                table,
                eta,
                target_first,
                target_second,
                inner_iter,
                tol * 1e-3,
                current,
                previous,
            )
        # 2. Node distributions: the mean of the edges' marginals.
        marginal_sum[:] = 0.0
        for e in range(n_edges):
            for a in range(n_states):
                marginal_sum[edges[e, 0], a] += q[e, a].sum()
                marginal_sum[edges[e, 1], a] += q[e, :, a].sum()
        dual_residual = 0.0
        for node in range(n_nodes):
            if degree[node] > 0:
                for a in range(n_states):
                    updated = marginal_sum[node, a] / degree[node]
                    dual_residual += degree[node] * (updated - p[node, a]) ** 2
                    p[node, a] = updated
        # 3. Multipliers.
        primal_residual = 0.0
        for e in range(n_edges):
            first, second = edges[e, 0], edges[e, 1]
            for a in range(n_states):
                gap_first = q[e, a].sum() - p[first, a]
                gap_second = q[e, :, a].sum() - p[second, a]
                multipliers[2 * e, a] -= eta * gap_first
                multipliers[2 * e + 1, a] -= eta * gap_second
                primal_residual += gap_first**2 + gap_second**2
        # Rounding and bound.
        for node in range(n_nodes):
            labels[node] = np.argmax(p[node])
        score = labelling_score(unary, tables, per_edge, edges, labels)
        if score > best_score:
            best_score = score
            best_labels[:] = labels
        best_bound = min(best_bound, split_bound(unary, tables, per_edge, edges, multipliers))
        certified = best_bound - best_score <= gap_tolerance * max(1.0, abs(best_score))
        if certified and stop_when_certified:
            break
        scale = max(1, 2 * n_edges * n_states)
        primal_residual = np.sqrt(primal_residual / scale)
        dual_residual = np.sqrt(dual_residual / scale)
        if primal_residual < tol and dual_residual < tol:
            break
        # The dual residual of the method of multipliers carries the step η.
        if primal_residual > 10.0 * eta * dual_residual:
            eta *= 2.0
        elif eta * dual_residual > 10.0 * primal_residual:
            eta /= 2.0
    return best_labels, best_bound, n_iter, p, q


@numba.njit(cache=True)
def _edge_qp(
    q: np.ndarray,
    table: np.ndarray,
    eta: float,
    target_first: np.ndarray,
    target_second: np.ndarray,
    max_steps: int,
    step_tol: float,
    current: np.ndarray,
    previous: np.ndarray,
) -> None:
    """Improve ``q`` in place towards the minimiser over the simplex of
    ½‖row sums − target_first‖² + ½‖column sums − target_second‖² − ⟨table, q⟩ / η.

    Accelerated projected gradient from ``q``; the gradient is (2 n_states)-Lipschitz.
    ``current`` and ``previous`` are scratch arrays of q's shape.
    """
    n_states = q.shape[0]
    step = 1.0 / (2.0 * n_states)
    point = q.copy()
    current[:] = q
    momentum = 1.0
    for _ in range(max_steps):
        rows = point.sum(axis=1) - target_first
        columns = point.sum(axis=0) - target_second
        previous[:] = current
        for a in range(n_states):
            for b in range(n_states):
                gradient = rows[a] + columns[b] - table[a, b] / eta
                current[a, b] = point[a, b] - step * gradient
        _project_to_simplex(current.reshape(-1))
        move = np.max(np.abs(current - previous))
        next_momentum = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * momentum**2))
        point[:] = current + ((momentum - 1.0) / next_momentum) * (current - previous)
        momentum = next_momentum
        if move < step_tol:
            break
    q[:] = current


@numba.njit(cache=True)
def _project_to_simplex(values: np.ndarray) -> None:
    """Replace ``values`` by its Euclidean projection onto the probability simplex.

    The sort-based algorithm of Held, Wolfe & Crowder (1974), as in Duchi et al. (2008).
    """
    ordered = np.sort(values)[::-1]
    total, threshold = 0.0, 0.0
    for j in range(ordered.size):
        total += ordered[j]
        candidate = (total - 1.0) / (j + 1)
        if ordered[j] - candidate > 0.0:
            threshold = candidate
    for i in range(values.size):
        values[i] = max(values[i] - threshold, 0.0)
