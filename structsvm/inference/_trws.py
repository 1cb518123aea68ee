"""TRW-S: sequential tree-reweighted message passing (Kolmogorov, 2006), in compiled code.

The nodes are visited in their order and back. Every edge (u, v) with u < v carries a
forward message m_{u→v} and a backward one m_{v→u}. A node u of n_in earlier and n_out later
neighbours lies on n_u = max(n_in, n_out, 1) monotonic chains and gets the weight
γ_u = 1 / n_u. Visiting u on the way forward it sums its unary scores and all the messages it
receives into θ̂_u and sends to every later neighbour v

    m_{u→v}(b) = max_a [γ_u θ̂_u(a) − m_{v→u}(a) + θ_uv(a, b)] − c_uv,

with c_uv the maximum of the bracket over (a, b); the backward pass is the mirror image. After
a forward pass max_a [γ_u θ̂_u(a) + θ̄_uv(a, b)] = c_uv for every b, where θ̄ is the
reparametrisation by the messages, so dynamic programming along every monotonic chain gives
the bound of the chain decomposition in closed form:

    Σ_{u<v} c_uv + Σ_u (1 − n_out(u) / n_u) max_a θ̂_u(a)

(the chains end at u in n_u − n_out(u) of its slots), and symmetrically after a backward pass
with n_in. This bound on the maximum is the TRW bound, which TRW-S never increases.

Labellings are decoded during both passes as in the paper: a node takes the state that is best
given its unary scores, the edges to the neighbours already labelled in this pass and the
messages from the others. The best labelling met is then improved by iterated conditional modes
(ICM: each node in turn takes its best state given its neighbours, until no node changes), and
it is certified when its score meets the bound. Where the bound is not met (the relaxation is
not tight, as on frustrated grids) and every table meets the condition of α-expansion (metric
costs such as Potts or truncated linear), a cycle of expansion moves from that labelling
(``_graph_cuts``) improves it further: greedy decoding leaves frustrated regions a few per
cent above the optimum, which expansion moves repair.

Tables of the form "one score on the diagonal of each state, one score off it" (Potts and its
generalisations) send their messages in O(n_states) instead of O(n_states²); when no diagonal
score is below the one off it (attractive Potts), the maximum off the diagonal may run over
every state, which needs only the cavity's maximum, found as the cavity is formed.

References: V. Kolmogorov. Convergent tree-reweighted message passing for energy
minimization. IEEE TPAMI 28(10), 2006. Y. Boykov, O. Veksler and R. Zabih. Fast approximate
energy minimization via graph cuts. IEEE TPAMI 23(11), 2001.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numba
import numpy as np

from structsvm._utils.validation import check_positive_float, check_positive_int
from structsvm.inference._evaluate import labelling_score
from structsvm.inference._graph import PairwiseModel
from structsvm.inference._graph_cuts import CONDITION_TOLERANCE, _expansion, _expansion_violation
from structsvm.inference._local_search import icm, node_adjacency, potts_tables
from structsvm.inference._max_product import solve_forest
from structsvm.inference._result import GAP_TOLERANCE, InferenceResult, closes_gap, gap_closed

MAX_ITER, TOL = 100, 1e-7
"""The defaults of the options ``max_iter`` and ``tol``."""

EXPANSION_CYCLES = 1
"""Cycles of α-expansion moves that improve an uncertified labelling under metric costs."""


class TrwsOptions(NamedTuple):
    """The checked options of TRW-S."""

    max_iter: int
    tol: float


def trws_options(*, max_iter: int = MAX_ITER, tol: float = TOL) -> TrwsOptions:
    """Return the options of :func:`solve_trws`, checked; raise ValueError if bad."""
    return TrwsOptions(check_positive_int(max_iter, "max_iter"), check_positive_float(tol, "tol"))


def solve_trws(
    model: PairwiseModel, relaxed: bool, *, max_iter: int = MAX_ITER, tol: float = TOL
) -> InferenceResult:
    """Run TRW-S; stop when the labelling meets the bound or the bound stalls.

    On a forest, max-product's exact pass answers instead. Options: ``max_iter`` round trips
    (forward and backward passes) at most, ``tol`` the relative decrease of the bound over a
    round trip below which it stops.
    """
    max_iter, tol = trws_options(max_iter=max_iter, tol=tol)
    if model.is_forest():
        return dataclasses.replace(solve_forest(model), method="trws")
    messages = np.zeros((model.n_edges, 2, model.n_states))
    labels, bound, n_iter = trws(
        model.unary,
        model.tables,
        model.per_edge,
        model.edges,
        max_iter,
        tol,
        GAP_TOLERANCE,
        messages,
    )
    score = model.score(labels)
    certified = closes_gap(score, bound)
    bound = score if certified else max(bound, score)
    return InferenceResult(labels, score, bound, certified, None, None, "trws", n_iter)


@numba.njit(cache=True)
def trws(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    max_iter: int,
    tol: float,
    gap_tolerance: float,
    messages: np.ndarray,
) -> tuple[np.ndarray, float, int]:
    """Return the best labelling found, the smallest bound and the round trips run.

    The passes start from ``messages`` and leave theirs there (:func:`trws_passes`). The
    labelling is polished by ICM, then, unless the bound certifies it, by
    :data:`EXPANSION_CYCLES` cycles of α-expansion moves when every table meets their
    condition (metric costs).
    """
    starts, ends = node_adjacency(unary.shape[0], edges)
    options = TrwsOptions(max_iter, tol)
    passes = trws_passes(
        unary, tables, per_edge, edges, (starts, ends), options, gap_tolerance, messages
    )
    best_labels, best_bound = passes.labels, passes.bound
    icm(unary, tables, per_edge, edges, starts, ends, best_labels)
    best_score = labelling_score(unary, tables, per_edge, edges, best_labels)
    certified = gap_closed(best_score, best_bound, gap_tolerance)
    if not certified and _expansion_violation(tables, CONDITION_TOLERANCE)[0] < 0:
        _expansion(unary, tables, per_edge, edges, best_labels, EXPANSION_CYCLES)
    return best_labels, best_bound, passes.n_iter


class TrwsPasses(NamedTuple):
    """What the passes of TRW-S leave: the best decoded labelling, the smallest bound, the
    round trips run and the messages (``messages[e, 0]`` from the earlier end of
    edge e into the later one, ``messages[e, 1]`` the other way, by the receiving state)."""

    labels: np.ndarray
    bound: float
    n_iter: int
    messages: np.ndarray


@numba.njit(cache=True)
def trws_passes(
    unary: np.ndarray,
    tables: np.ndarray,
    per_edge: bool,
    edges: np.ndarray,
    adjacency: tuple[np.ndarray, np.ndarray],
    options: TrwsOptions,
    gap_tolerance: float,
    messages: np.ndarray,
) -> TrwsPasses:
    """Run round trips until the decoded labelling meets the bound or the bound stalls.

    ``adjacency`` is (starts, ends) of ``node_adjacency``. The passes start from
    ``messages`` (laid out as :class:`TrwsPasses` says; zeros for a cold start) and update
    them in place. Any messages are a valid start: a pass's bound is the TRW bound of the
    reparametrisation by the messages it leaves, whatever they started from, so the
    messages of an earlier call on a model with other scores (a warm start) are as sound as
    zeros. No local search: the labelling is the best decoded in a pass.
    """
    n_nodes, n_states = unary.shape
    starts, ends = adjacency
    max_iter, tol = options
    neighbours = _neighbours(n_nodes, edges, starts, ends)
    potts, diagonal, off_diagonal = potts_tables(tables)
    attractive = np.empty(potts.size, dtype=np.bool_)
    for t in range(potts.size):
        attractive[t] = potts[t] and np.all(diagonal[t] >= off_diagonal[t])
    belief = np.empty(n_states)
    cavity = np.empty(n_states)
    labels = np.zeros(n_nodes, dtype=np.int64)
    best_labels = np.zeros(n_nodes, dtype=np.int64)
    best_score, best_bound = -np.inf, np.inf
    n_iter = 0
    for iteration in range(max_iter):
        n_iter = iteration + 1
        previous_bound = best_bound
        for backward in (False, True):
            bound = 0.0
            for step in range(n_nodes):
                node = n_nodes - 1 - step if backward else step
                start, stop = starts[node], starts[node + 1]
                # belief: the unary scores and every message received; cavity: the decoding,
                # with the edges to the neighbours labelled in this pass (the earlier ones
                # going forward, the later ones back) at their labels instead of messages.
                for a in range(n_states):
                    belief[a] = unary[node, a]
                    cavity[a] = unary[node, a]
                for p in range(start, stop):
                    e, into = neighbours.edge[p], neighbours.into[p]
                    for a in range(n_states):
                        belief[a] += messages[e, into, a]
                    t = e if per_edge else 0
                    label = labels[neighbours.other[p]]
                    if (into == 1) != backward:
                        for a in range(n_states):
                            cavity[a] += messages[e, into, a]
                    elif neighbours.is_first[p]:
                        for a in range(n_states):
                            cavity[a] += tables[t, a, label]
                    else:
                        for a in range(n_states):
                            cavity[a] += tables[t, label, a]
                labels[node] = np.argmax(cavity)
                # Messages to the neighbours not yet visited in this pass.
                scale = neighbours.gamma[node]
                sending = 0
                for p in range(start, stop):
                    e, into = neighbours.edge[p], neighbours.into[p]
                    if (into == 1) == backward:
                        continue
                    sending += 1
                    t = e if per_edge else 0
                    if attractive[t]:
                        top = _send_attractive_potts(
                            scale,
                            belief,
                            diagonal[t],
                            off_diagonal[t],
                            messages[e, into],
                            messages[e, 1 - into],
                            cavity,
                        )
                    else:
                        for a in range(n_states):
                            cavity[a] = scale * belief[a] - messages[e, into, a]
                        if potts[t]:
                            top = _send_potts(
                                cavity, diagonal, off_diagonal, t, messages, e, 1 - into
                            )
                        else:
                            top = _send(
                                cavity, tables, t, neighbours.is_first[p], messages, e, 1 - into
                            )
                    bound += top
                ending = neighbours.n_chains[node] - sending
                bound += ending * scale * np.max(belief)
            best_bound = min(best_bound, bound)
            score = labelling_score(unary, tables, per_edge, edges, labels)
            if score > best_score:
                best_score = score
                best_labels[:] = labels
        if gap_closed(best_score, best_bound, gap_tolerance):
            break
        if previous_bound - best_bound <= tol * max(1.0, abs(best_bound)):
            break
    return TrwsPasses(best_labels, best_bound, n_iter, messages)


class _Neighbours(NamedTuple):
    """The edge ends at every node, in the order of ``node_adjacency``, and its chain weight.

    Entry p in ``starts[u] .. starts[u + 1] − 1`` of the first four arrays is a neighbour of u:
    ``edge[p]`` joins them, ``other[p]`` is the neighbour, ``into[p]`` indexes the message it
    sends to u (0 if it comes earlier in the node order, 1 if later) and ``is_first[p]`` tells
    whether u is the edge's first node (the rows of its table). u lies on ``n_chains[u]`` =
    max(n_earlier, n_later, 1) monotonic chains; ``gamma[u]`` is 1 / n_chains[u].
    """

    edge: np.ndarray
    other: np.ndarray
    into: np.ndarray
    is_first: np.ndarray
    n_chains: np.ndarray
    gamma: np.ndarray


@numba.njit(cache=True)
def _neighbours(
    n_nodes: int, edges: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> _Neighbours:
    """Return the :class:`_Neighbours` of the nodes, laid out as ``starts`` says."""
    n_ends = ends.size
    edge = np.empty(n_ends, dtype=np.int64)
    other = np.empty(n_ends, dtype=np.int64)
    into = np.empty(n_ends, dtype=np.int64)
    is_first = np.empty(n_ends, dtype=np.bool_)
    n_chains = np.empty(n_nodes, dtype=np.int64)
    gamma = np.empty(n_nodes)
    for node in range(n_nodes):
        n_earlier = 0
        for p in range(starts[node], starts[node + 1]):
            e, k = ends[p] // 2, ends[p] % 2
            edge[p], other[p], is_first[p] = e, edges[e, 1 - k], k == 0
            into[p] = 0 if other[p] < node else 1
            n_earlier += 1 - into[p]
        n_later = starts[node + 1] - starts[node] - n_earlier
        n_chains[node] = max(1, n_earlier, n_later)
        gamma[node] = 1.0 / n_chains[node]
    return _Neighbours(edge, other, into, is_first, n_chains, gamma)


@numba.njit(cache=True)
def _send_attractive_potts(
    scale: float,
    belief: np.ndarray,
    diagonal: np.ndarray,
    off_diagonal: float,
    received: np.ndarray,
    sent: np.ndarray,
    cavity: np.ndarray,
) -> float:
    """Send along an edge whose table has ``diagonal`` ≥ ``off_diagonal`` off it; return c.

    The cavity ``scale · belief − received`` lands in ``cavity``, the message in ``sent``:
    max(cavity[b] + diagonal[b], max_a cavity[a] + off_diagonal) − c, the maximum over a ≠ b
    of :func:`_send_potts` taken over every a, which is the same when the diagonal is no lower.
    """
    first = -np.inf
    for a in range(cavity.size):
        cavity[a] = scale * belief[a] - received[a]
        first = max(first, cavity[a])
    elsewhere = first + off_diagonal
    top = elsewhere
    for b in range(cavity.size):
        sent[b] = max(cavity[b] + diagonal[b], elsewhere)
        top = max(top, sent[b])
    for b in range(cavity.size):
        sent[b] -= top
    return top


@numba.njit(cache=True)
def _send(
    cavity: np.ndarray,
    tables: np.ndarray,
    t: int,
    from_first: bool,
    messages: np.ndarray,
    e: int,
    into: int,
) -> float:
    """Write max_a cavity[a] + θ_t(a, b) − c into ``messages[e, into, b]``; return c.

    a is the sender's state, c the largest value before normalisation; ``from_first`` tells
    whether the sender is the edge's first node (the rows of table t).
    """
    n_states = cavity.size
    top = -np.inf
    for b in range(n_states):
        best = -np.inf
        for a in range(n_states):
            value = cavity[a] + (tables[t, a, b] if from_first else tables[t, b, a])
            if value > best:
                best = value
        messages[e, into, b] = best
        top = max(top, best)
    for b in range(n_states):
        messages[e, into, b] -= top
    return top


@numba.njit(cache=True)
def _send_potts(
    cavity: np.ndarray,
    diagonal: np.ndarray,
    off_diagonal: np.ndarray,
    t: int,
    messages: np.ndarray,
    e: int,
    into: int,
) -> float:
    """:func:`_send` for table t, ``diagonal[t]`` on its diagonal and ``off_diagonal[t]`` off it."""
    first, second, arg = -np.inf, -np.inf, -1
    for a in range(cavity.size):
        if cavity[a] > first:
            first, second, arg = cavity[a], first, a
        elif cavity[a] > second:
            second = cavity[a]
    top = -np.inf
    for b in range(cavity.size):
        elsewhere = second if b == arg else first
        value = max(cavity[b] + diagonal[t, b], elsewhere + off_diagonal[t])
        messages[e, into, b] = value
        top = max(top, value)
    for b in range(cavity.size):
        messages[e, into, b] -= top
    return top
