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

The edge subproblem is solved exactly by an active-set method, as in the paper (a primal
active-set method for convex QPs; Nocedal & Wright, Numerical Optimization, 2006, ch. 16),
warm started from the previous solution: q_e is kept as a few weighted pairs of states (its
support), the quadratic programme restricted to the support is solved from its KKT system, a
support weight that would turn negative leaves the support, and otherwise the pair of states
with the most negative reduced gradient — the MAP of the edge under the current gradient —
enters it. The matrix of the restricted problem is singular when the support, seen as edges
between the states of u and the states of v, holds a cycle; a pair of states that would close
one instead moves the weights along that cycle (a direction in which the objective is linear
and decreasing) until a weight on it reaches zero and leaves, so the support stays a forest and
its KKT system stays regular.

The bound needs no exactness: for any multipliers, the split of the unary scores θ_u / d_u +
λ_{e,u} bounds the maximum (``_evaluate.split_bound``), and the smallest bound met is reported;
it is evaluated with the rounding, every ``ROUNDING_INTERVAL`` iterations and at the last one,
which keeps their cost small beside that of the edge subproblems. The step η follows the
residual-balancing rule of Boyd et al. (Foundations and Trends in Machine Learning 3(1), 2011,
§3.4.1): it doubles when the primal residual is ten times the dual one and halves in the
opposite case; it starts at the scale of the pairwise scores. The labelling is the argmax of p
improved by local search (ICM, ``_local_search``), the best one rounded over the iterations; it
is certified when its score meets the bound.

By default AD3 starts from a few round trips of TRW-S (``_trws``): its messages reparametrise
the model, and the reparametrised unary scores, split evenly over the edges, give the first
multipliers; p and q start on TRW-S's labelling, and TRW-S's labelling (improved by ICM) and
bound are the first ones kept. Where TRW-S's bound is nearly tight the iterations only close the
remaining gap; without the start, p starts uniform and the multipliers at zero.

A run can also start where an earlier run on the same graph ended (``Ad3State``: TRW-S's
messages, p, q, the multipliers and the step), as a learner's calls on one training graph do:
TRW-S's passes then start from the kept messages, and AD3 from the kept multipliers unless
TRW-S's start splits to a lower bound. Multipliers that sum to zero at every node bound the
maximum whatever the scores, so the bounds stay valid.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from structsvm._utils.validation import check_flag, check_positive_float, check_positive_int
from structsvm.inference._evaluate import labelling_score, split_bound
from structsvm.inference._graph import PairwiseModel
from structsvm.inference._local_search import icm, node_adjacency, potts_tables
from structsvm.inference._result import GAP_TOLERANCE, InferenceResult, closes_gap, gap_closed
from structsvm.inference._trws import TOL, TrwsOptions, TrwsPasses, trws_passes


class Ad3Options(NamedTuple):
    """The checked options of AD3; ``eta`` is NaN for the default step (:func:`default_eta`)."""

    max_iter: int
    eta: float
    tol: float
    warm_start: bool


MAX_ITER, TOL_RESIDUALS = 1000, 1e-6
"""The defaults of the options ``max_iter`` and ``tol``."""


def ad3_options(
    *,
    max_iter: int = MAX_ITER,
    eta: float | None = None,
    tol: float = TOL_RESIDUALS,
    warm_start: bool = True,
) -> Ad3Options:
    """Return the options of :func:`solve_ad3`, checked; raise ValueError if bad."""
    return Ad3Options(
        check_positive_int(max_iter, "max_iter"),
        np.nan if eta is None else check_positive_float(eta, "eta"),
        check_positive_float(tol, "tol"),
        check_flag(warm_start, "warm_start"),
    )


class Ad3State(NamedTuple):
    """What AD3 leaves for its next run on a model of the same graph (a warm start).

    ``messages`` (n_edges, 2, n_states): TRW-S's, which start its passes when AD3 starts
    from TRW-S (as :class:`~structsvm.inference._trws.TrwsPasses` lays them out);
    ``multipliers`` (2 n_edges, n_states): λ_{e,u} of the first end of edge e in row 2e, of
    its second in row 2e + 1; ``p`` (n_nodes, n_states) the node distributions; q_e is
    ``support[e, :support_size[e]]`` (pairs of states a·n_states + b, −1 past the end, among
    2 n_states slots) with weights ``weight[e]``; ``eta[0]`` the step reached;
    ``started[0]`` whether p, q, the multipliers and the step hold a run's end. Multipliers
    that sum to zero at every node bound the maximum of any model of the graph
    (``_evaluate.split_bound``), and any messages start TRW-S soundly, so a state left by a
    run on other scores is a feasible dual start.
    """

    messages: np.ndarray
    multipliers: np.ndarray
    p: np.ndarray
    support: np.ndarray
    weight: np.ndarray
    support_size: np.ndarray
    eta: np.ndarray
    started: np.ndarray


@numba.njit(cache=True)
def ad3_state(n_nodes: int, n_edges: int, n_states: int) -> Ad3State:
    """Return the state of a model that AD3 has not run on yet."""
    return Ad3State(
        np.zeros((n_edges, 2, n_states)),
        np.zeros((2 * n_edges, n_states)),
        np.zeros((n_nodes, n_states)),
        np.full((n_edges, 2 * n_states), -1, dtype=np.int64),
        np.zeros((n_edges, 2 * n_states)),
        np.zeros(n_edges, dtype=np.int64),
        np.zeros(1),
        np.zeros(1, dtype=np.bool_),
    )


def solve_ad3(
    model: PairwiseModel,
    relaxed: bool,
    *,
    max_iter: int = MAX_ITER,
    eta: float | None = None,
    tol: float = TOL_RESIDUALS,
    warm_start: bool = True,
) -> InferenceResult:
    """Run AD3; stop when the labelling meets the bound or both residuals fall below ``tol``.

    With ``relaxed`` it stops on the residuals only and returns p and q as the marginals.

    Options: ``max_iter`` iterations at most, ``eta`` the initial step (penalty) of the
    augmented Lagrangian (by default the mean spread max − min of the pairwise tables, 1 if
    they are all constant: the step then matches the scale of the scores), ``tol`` the
    residual tolerance (root mean square over the node marginals of the edges),
    ``warm_start`` whether to start from TRW-S's messages and labelling (else from uniform
    node distributions and zero multipliers); a start that TRW-S's bound already certifies
    is returned after 0 iterations.
    """
    options = ad3_options(max_iter=max_iter, eta=eta, tol=tol, warm_start=warm_start)
    state = ad3_state(model.n_nodes, model.n_edges, model.n_states)
    labels, bound, n_iter = ad3(
        model.unary,
        model.tables,
        model.per_edge,
        model.edges,
        options,
        GAP_TOLERANCE,
        not relaxed,
        state,
    )
    score = model.score(labels)
    certified = closes_gap(score, bound)
    bound = score if certified else max(bound, score)
    node_marginals = edge_marginals = None
    if relaxed:
        n_states = model.n_states
        support, weight = state.support, state.weight
        edge_marginals = np.zeros((model.n_edges, n_states * n_states))
        edge_ids = np.broadcast_to(np.arange(model.n_edges)[:, None], support.shape)
        in_support = support >= 0
        np.add.at(edge_marginals, (edge_ids[in_support], support[in_support]), weight[in_support])
        edge_marginals = edge_marginals.reshape(-1, n_states, n_states)
        node_marginals = state.p
    return InferenceResult(
        labels, score, bound, certified, node_marginals, edge_marginals, "ad3", n_iter
    )


@numba.njit(cache=True)
def default_eta(tables: np.ndarray) -> float:
    """Return AD3's default first step: the mean spread max − min of the tables, 1 if none
    has any."""
    total, spread_any = 0.0, False
    for t in range(tables.shape[0]):
        spread = np.max(tables[t]) - np.min(tables[t])
        total += spread
        spread_any = spread_any or spread > 0.0
    return total / tables.shape[0] if spread_any else 1.0


ROUNDING_INTERVAL = 10
"""AD3 rounds p and evaluates its bound every this many iterations (and when it stops)."""

OPTIMALITY_TOLERANCE = 1e-9
"""A reduced gradient above −this counts as non-negative in the edge subproblem."""


@numba.njit(cache=True)
def ad3(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    options: Ad3Options,
    gap_tolerance: float,
    stop_when_certified: bool,
    state: Ad3State,
) -> tuple[np.ndarray, float, int]:
    """Return the best labelling, the smallest bound and the iterations run.

    With ``options.warm_start``, TRW-S's passes run first, from ``state.messages``, and their
    labelling (after ICM) and bound are the first kept. A ``state`` that holds a run's end
    (``started``) adds the rounding of its p and the bound of its multipliers, and the run
    starts from its p, q, multipliers and step unless TRW-S's start
    (:func:`_start_from_trws`) has a lower bound (its multipliers' split); without a kept
    end the start is TRW-S's, or the cold one (:func:`_cold_start`). A start whose bound
    certifies a labelling returns after 0 iterations. The run leaves its end in ``state``.
    Unless ``stop_when_certified``, it runs on after the labelling meets the bound, until
    the residuals are small, so that p and q solve the relaxation.
    """
    n_nodes, n_states = unary.shape
    n_edges = edges.shape[0]
    max_iter, eta, tol, warm_start = options
    starts, ends = node_adjacency(n_nodes, edges)
    potts = potts_tables(tables)[0]
    degree = np.zeros(n_nodes, dtype=np.int64)
    for e in range(n_edges):
        degree[edges[e, 0]] += 1
        degree[edges[e, 1]] += 1
    labels = np.empty(n_nodes, dtype=np.int64)
    best_labels = np.empty(n_nodes, dtype=np.int64)
    best_score, best_bound = -np.inf, np.inf
    if warm_start:  # TRW-S's labelling, improved by ICM, and its bound
        passes = trws_passes(
            unary,
            tables,
            per_edge,
            edges,
            (starts, ends),
            TrwsOptions(WARM_START_ROUND_TRIPS, TOL),
            gap_tolerance,
            state.messages,
        )
        best_labels[:] = passes.labels
        icm(unary, tables, per_edge, edges, starts, ends, best_labels)
        best_score = labelling_score(unary, tables, per_edge, edges, best_labels)
        best_bound = passes.bound
        if gap_closed(best_score, best_bound, gap_tolerance) and stop_when_certified:
            return best_labels, best_bound, 0
    resumed = state.started[0]
    kept_bound = np.inf
    if resumed:  # the rounding of the kept p and the bound of the kept multipliers
        best_score = _rounding(
            unary, tables, per_edge, edges, starts, ends, state.p, labels, best_labels, best_score
        )
        kept_bound = split_bound(unary, tables, per_edge, edges, state.multipliers)
        best_bound = min(best_bound, kept_bound)
        if gap_closed(best_score, best_bound, gap_tolerance) and stop_when_certified:
            return best_labels, best_bound, 0
        eta = state.eta[0]
    if warm_start:  # TRW-S's start, unless the kept multipliers bound the maximum lower
        start = ad3_state(n_nodes, n_edges, n_states)
        _start_from_trws(unary, edges, degree, passes, start)
        start_bound = split_bound(unary, tables, per_edge, edges, start.multipliers)
        if not resumed or start_bound < kept_bound:
            _copy_start(start, state)
            resumed = False
    elif not resumed:
        _cold_start(unary, edges, degree, tables, per_edge, state)
    if not resumed:
        eta = default_eta(tables) if np.isnan(eta) else eta
    state.started[0] = True
    state.eta[0] = eta
    p, multipliers = state.p, state.multipliers
    support, weight, support_size = state.support, state.weight, state.support_size
    unary_share = np.empty((n_nodes, n_states))  # θ_u / d_u
    for node in range(n_nodes):
        unary_share[node] = unary[node] / max(1, degree[node])
    previous_p = np.empty((n_nodes, n_states))
    first_marginal = np.zeros((n_edges, n_states))
    second_marginal = np.zeros((n_edges, n_states))
    target_first = np.empty(n_states)
    target_second = np.empty(n_states)
    scratch = _scratch(n_states)
    max_steps = 2 * n_states * n_states + 10
    n_iter = 0
    for iteration in range(max_iter):
        n_iter = iteration + 1
        # 1. Edge subproblems.
        inverse_eta = 1.0 / eta
        for e in range(n_edges):
            first, second = edges[e, 0], edges[e, 1]
            table = tables[e] if per_edge else tables[0]
            for a in range(n_states):
                target_first[a] = (
                    p[first, a] + (unary_share[first, a] + multipliers[2 * e, a]) * inverse_eta
                )
                target_second[a] = (
                    p[second, a]
                    + (unary_share[second, a] + multipliers[2 * e + 1, a]) * inverse_eta
                )
            support_size[e] = _edge_qp(
                support[e],
                weight[e],
                support_size[e],
                table,
                potts[e if per_edge else 0],
                eta,
                target_first,
                target_second,
                max_steps,
                scratch,
            )
            first_marginal[e] = 0.0
            second_marginal[e] = 0.0
            for k in range(support_size[e]):
                a, b = divmod(support[e, k], n_states)
                first_marginal[e, a] += weight[e, k]
                second_marginal[e, b] += weight[e, k]
        # 2. Node distributions: the mean of the edges' marginals.
        previous_p[:] = p
        for e in range(n_edges):
            p[edges[e, 0]] = 0.0
            p[edges[e, 1]] = 0.0
        for e in range(n_edges):
            first, second = edges[e, 0], edges[e, 1]
            for a in range(n_states):
                p[first, a] += first_marginal[e, a] / degree[first]
                p[second, a] += second_marginal[e, a] / degree[second]
        dual_residual = 0.0
        for node in range(n_nodes):
            for a in range(n_states):
                dual_residual += degree[node] * (p[node, a] - previous_p[node, a]) ** 2
        # 3. Multipliers.
        primal_residual = 0.0
        for e in range(n_edges):
            first, second = edges[e, 0], edges[e, 1]
            for a in range(n_states):
                gap_first = first_marginal[e, a] - p[first, a]
                gap_second = second_marginal[e, a] - p[second, a]
                multipliers[2 * e, a] -= eta * gap_first
                multipliers[2 * e + 1, a] -= eta * gap_second
                primal_residual += gap_first**2 + gap_second**2
        scale = max(1, 2 * n_edges * n_states)
        primal_residual = np.sqrt(primal_residual / scale)
        dual_residual = np.sqrt(dual_residual / scale)
        converged = primal_residual < tol and dual_residual < tol
        if converged or iteration % ROUNDING_INTERVAL == 0 or iteration == max_iter - 1:
            best_score = _rounding(
                unary, tables, per_edge, edges, starts, ends, p, labels, best_labels, best_score
            )
            bound = split_bound(unary, tables, per_edge, edges, multipliers)
            best_bound = min(best_bound, bound)
            certified = gap_closed(best_score, best_bound, gap_tolerance)
            if certified and stop_when_certified:
                break
        if converged:
            break
        # The dual residual of the method of multipliers carries the step η.
        if primal_residual > 10.0 * eta * dual_residual:
            eta *= 2.0
        elif eta * dual_residual > 10.0 * primal_residual:
            eta /= 2.0
        state.eta[0] = eta
    return best_labels, best_bound, n_iter


@numba.njit(cache=True)
def _rounding(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    p: np.ndarray,
    labels: np.ndarray,
    best_labels: np.ndarray,
    best_score: float,
) -> float:
    """Round p by local search (ICM) from its argmax, in ``labels``; return the better of its
    score and ``best_score``, the better labelling being left in ``best_labels``."""
    for node in range(p.shape[0]):
        labels[node] = np.argmax(p[node])
    icm(unary, tables, per_edge, edges, starts, ends, labels)
    score = labelling_score(unary, tables, per_edge, edges, labels)
    if score > best_score:
        best_labels[:] = labels
        return score
    return best_score


@numba.njit(cache=True)
def _cold_start(
    unary: np.ndarray,
    edges: np.ndarray,
    degree: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    state: Ad3State,
) -> None:
    """Put into ``state`` uniform p (one-hot at the best state of an isolated node) and zero
    multipliers.

    Each q_e is put on the best pair of states of its edge under the even split of the unary
    scores (``support[e, 0]``).
    """
    n_nodes, n_states = unary.shape
    p, support = state.p, state.support
    _single_pairs(state)
    p[:] = 1.0 / n_states
    for node in range(n_nodes):
        if degree[node] == 0:
            p[node] = 0.0
            p[node, np.argmax(unary[node])] = 1.0
    for e in range(edges.shape[0]):
        first, second = edges[e, 0], edges[e, 1]
        table = tables[e] if per_edge else tables[0]
        best = -np.inf
        for a in range(n_states):
            for b in range(n_states):
                value = table[a, b] + unary[first, a] / degree[first]
                value += unary[second, b] / degree[second]
                if value > best:
                    best, support[e, 0] = value, a * n_states + b
    state.multipliers[:] = 0.0


WARM_START_ROUND_TRIPS = 10
"""Round trips of TRW-S at most before AD3 starts from its messages."""


@numba.njit(cache=True)
def _start_from_trws(
    unary: np.ndarray,
    edges: np.ndarray,
    degree: np.ndarray,
    passes: TrwsPasses,
    state: Ad3State,
) -> None:
    """Put into ``state`` p and the multipliers of a start from TRW-S's passes.

    TRW-S's messages m reparametrise the model: θ̂_u = θ_u + Σ_w m_{w→u} and θ̄_uv(a, b) =
    θ_uv(a, b) − m_{v→u}(a) − m_{u→v}(b) score every labelling as θ does. Splitting θ̂_u evenly
    over the d_u edges at u gives the edge (u, v) the unary scores θ̂_u / d_u − m_{v→u}, that
    is the multipliers λ_{e,u} = Σ_w m_{w→u} / d_u − m_{v→u}, which sum to zero at u. p is put
    on TRW-S's labelling and each q_e on its pair of states (``support[e, 0]``).
    """
    n_nodes, n_states = unary.shape
    n_edges = edges.shape[0]
    messages, labels = passes.messages, passes.labels
    multipliers, p, support = state.multipliers, state.p, state.support
    _single_pairs(state)
    received = np.zeros((n_nodes, n_states))  # Σ_w m_{w→u}
    for e in range(n_edges):
        earlier, later = min(edges[e, 0], edges[e, 1]), max(edges[e, 0], edges[e, 1])
        received[later] += messages[e, 0]
        received[earlier] += messages[e, 1]
    for e in range(n_edges):
        first, second = edges[e, 0], edges[e, 1]
        for end in range(2):
            node = edges[e, end]
            into = 0 if node == max(first, second) else 1
            multipliers[2 * e + end] = received[node] / degree[node] - messages[e, into]
        support[e, 0] = labels[first] * n_states + labels[second]
    p[:] = 0.0
    for node in range(n_nodes):
        p[node, labels[node]] = 1.0


@numba.njit(cache=True)
def _single_pairs(state: Ad3State) -> None:
    """Make every q_e a single pair of states of weight 1 (the pair left to the caller)."""
    state.support[:] = -1
    state.weight[:] = 0.0
    state.support_size[:] = 1
    state.weight[:, 0] = 1.0


@numba.njit(cache=True)
def _copy_start(start: Ad3State, state: Ad3State) -> None:
    """Copy p, q and the multipliers of ``start`` into ``state`` (not its messages or step)."""
    state.multipliers[:] = start.multipliers
    state.p[:] = start.p
    state.support[:] = start.support
    state.weight[:] = start.weight
    state.support_size[:] = start.support_size


@numba.njit(cache=True)
def _scratch(n_states: int) -> tuple:
    """Work arrays of the edge subproblem, allocated once per run.

    (kkt, solution, rows, columns) for the restricted KKT system and the gradient, then
    (reached, through, came_from, queue) for the search of a path in the support.
    """
    most = 2 * n_states
    return (
        np.empty((most + 1, most + 1)),
        np.empty(most + 1),
        np.empty(n_states),
        np.empty(n_states),
        np.empty(most, dtype=np.bool_),
        np.empty(most, dtype=np.int64),
        np.empty(most, dtype=np.int64),
        np.empty(most, dtype=np.int64),
    )


@numba.njit(cache=True, inline="always")
def _edge_qp(
    support: np.ndarray,
    weight: np.ndarray,
    size: int,
    table: np.ndarray,
    potts: bool,
    eta: float,
    target_first: np.ndarray,
    target_second: np.ndarray,
    max_steps: int,
    scratch: tuple,
) -> int:
    """Solve the edge subproblem by active set, warm started; return the new support size.

    Minimises ½‖rows(q) − target_first‖² + ½‖columns(q) − target_second‖² − ⟨table, q⟩ / η
    over the simplex, q given and returned as ``support[:size]`` with ``weight[:size]``.
    """
    n_states = target_first.size
    solution, rows, columns = scratch[1], scratch[2], scratch[3]
    for _ in range(max_steps):
        _solve_on_support(support, size, n_states, table, eta, target_first, target_second, scratch)
        # A weight turning negative blocks the step; it leaves the support.
        step, blocking = 1.0, -1
        for k in range(size):
            if solution[k] < 0.0:
                ratio = weight[k] / (weight[k] - solution[k])
                if ratio < step:
                    step, blocking = ratio, k
        if blocking >= 0:
            for k in range(size):
                weight[k] += step * (solution[k] - weight[k])
            size -= 1
            support[blocking], weight[blocking] = support[size], weight[size]
            support[size], weight[size] = -1, 0.0
            continue
        weight[:size] = solution[:size]
        # Optimal on the support; optimal on the simplex unless a pair has a reduced gradient
        # below −τ, the multiplier of Σ q = 1.
        tau = solution[size]
        rows[:] = 0.0
        columns[:] = 0.0
        for k in range(size):
            a, b = divmod(support[k], n_states)
            rows[a] += weight[k]
            columns[b] += weight[k]
        for a in range(n_states):
            rows[a] -= target_first[a]
            columns[a] -= target_second[a]
        if potts:
            lowest, entering = _potts_entering(rows, columns, table, eta)
        else:
            lowest, entering = np.inf, -1
            for a in range(n_states):
                for b in range(n_states):
                    gradient = rows[a] + columns[b] - table[a, b] / eta
                    if gradient < lowest:
                        lowest, entering = gradient, a * n_states + b
        if lowest + tau >= -OPTIMALITY_TOLERANCE:
            break
        size = _enter(support, weight, size, entering, n_states, scratch)
    return size


@numba.njit(cache=True, inline="always")
def _potts_entering(
    rows: np.ndarray, columns: np.ndarray, table: np.ndarray, eta: float
) -> tuple[float, int]:
    """Return the lowest rows[a] + columns[b] − table[a, b] / η and its pair a·n + b.

    For a table whose off-diagonal entries are all equal: the diagonal in O(n_states), and
    off it the two smallest entries of ``rows`` and of ``columns``.
    """
    n_states = rows.size
    lowest, entering = np.inf, -1
    for a in range(n_states):
        gradient = rows[a] + columns[a] - table[a, a] / eta
        if gradient < lowest:
            lowest, entering = gradient, a * n_states + a
    if n_states < 2:
        return lowest, entering
    row_first, row_second = _two_smallest(rows)
    column_first, column_second = _two_smallest(columns)
    off = table[0, 1] / eta
    for a in (row_first, row_second):
        for b in (column_first, column_second):
            if a != b and rows[a] + columns[b] - off < lowest:
                lowest, entering = rows[a] + columns[b] - off, a * n_states + b
    return lowest, entering


@numba.njit(cache=True, inline="always")
def _two_smallest(values: np.ndarray) -> tuple[int, int]:
    """Return the indices of the smallest and the second smallest entry (at least two)."""
    first, second = (0, 1) if values[0] <= values[1] else (1, 0)
    for k in range(2, values.size):
        if values[k] < values[first]:
            first, second = k, first
        elif values[k] < values[second]:
            second = k
    return first, second


@numba.njit(cache=True, inline="always")
def _solve_on_support(
    support: np.ndarray,
    size: int,
    n_states: int,
    table: np.ndarray,
    eta: float,
    target_first: np.ndarray,
    target_second: np.ndarray,
    scratch: tuple,
) -> None:
    """Solve the KKT system of the subproblem restricted to the support (and Σ q = 1).

    The weights land in ``solution[:size]`` and the multiplier τ in
    ``solution[size]``. Gaussian elimination with partial pivoting; the system is
    regular because the support is a forest.
    """
    matrix, solution = scratch[0], scratch[1]
    m = size + 1
    for k in range(size):
        a_k, b_k = divmod(support[k], n_states)
        for j in range(size):
            a_j, b_j = divmod(support[j], n_states)
            matrix[k, j] = (1.0 if a_k == a_j else 0.0) + (1.0 if b_k == b_j else 0.0)
        matrix[k, size] = 1.0
        matrix[size, k] = 1.0
        solution[k] = target_first[a_k] + target_second[b_k] + table[a_k, b_k] / eta
    matrix[size, size] = 0.0
    solution[size] = 1.0
    for column in range(m):
        pivot = column
        for row in range(column + 1, m):
            if abs(matrix[row, column]) > abs(matrix[pivot, column]):
                pivot = row
        if pivot != column:
            for j in range(column, m):
                matrix[column, j], matrix[pivot, j] = matrix[pivot, j], matrix[column, j]
            solution[column], solution[pivot] = solution[pivot], solution[column]
        for row in range(column + 1, m):
            factor = matrix[row, column] / matrix[column, column]
            if factor != 0.0:
                for j in range(column, m):
                    matrix[row, j] -= factor * matrix[column, j]
                solution[row] -= factor * solution[column]
    for row in range(m - 1, -1, -1):
        value = solution[row]
        for j in range(row + 1, m):
            value -= matrix[row, j] * solution[j]
        solution[row] = value / matrix[row, row]


@numba.njit(cache=True)
def _enter(
    support: np.ndarray,
    weight: np.ndarray,
    size: int,
    entering: int,
    n_states: int,
    scratch: tuple,
) -> int:
    """Bring the pair ``entering`` into the support, keeping it a forest; return its size.

    Vertices 0 .. n_states − 1 are the states of the edge's first node, n_states .. 2 n_states
    − 1 those of its second; a pair (a, b) of the support joins a and n_states + b. If a path
    already joins the entering pair's ends, the cycle it closes carries weight +1 on the
    entering pair and alternately −1, +1, ... along the path from its second end; the weights
    move along it until one of the −1 ones reaches zero, and the entering pair takes its place.
    """
    start, goal = entering // n_states, n_states + entering % n_states
    reached, through, came_from, queue = scratch[4], scratch[5], scratch[6], scratch[7]
    reached[:] = False
    reached[start] = True
    queue[0] = start
    head, tail = 0, 1
    while head < tail and not reached[goal]:
        vertex = queue[head]
        head += 1
        for k in range(size):
            a, b = divmod(support[k], n_states)
            if vertex < n_states and a == vertex:
                other = n_states + b
            elif vertex >= n_states and b == vertex - n_states:
                other = a
            else:
                continue
            if not reached[other]:
                reached[other] = True
                through[other], came_from[other] = k, vertex
                queue[tail] = other
                tail += 1
    if not reached[goal]:
        support[size], weight[size] = entering, 0.0
        return size + 1
    step, leaving = np.inf, -1
    vertex, sign = goal, -1.0
    while vertex != start:
        k = through[vertex]
        if sign < 0.0 and weight[k] < step:
            step, leaving = weight[k], k
        vertex, sign = came_from[vertex], -sign
    vertex, sign = goal, -1.0
    while vertex != start:
        k = through[vertex]
        weight[k] += sign * step
        vertex, sign = came_from[vertex], -sign
    support[leaving], weight[leaving] = entering, step
    return size
