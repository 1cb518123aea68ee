"""TRW-S: its bound against the LP and over iterations, certificates, Potts messages, the
expansion moves that polish its labelling under metric costs."""

import itertools

import numpy as np
import pytest

from structsvm.inference import infer
from structsvm.inference._graph import check_model
from structsvm.inference._local_search import node_adjacency, potts_tables
from structsvm.inference._result import GAP_TOLERANCE, closes_gap
from structsvm.inference._trws import (
    MAX_ITER,
    TOL,
    TrwsOptions,
    _send,
    _send_attractive_potts,
    _send_potts,
    trws,
    trws_passes,
)
from tests.inference.test_inference import (
    CASE_IDS,
    CASES,
    assert_encloses_the_maximum,
    drifting_maxima,
    drifting_models,
    grid,
    make_model,
)
from tests.references import brute_force_map, pairwise_model_score

LOOPY = [(case, name) for case, name in zip(CASES, CASE_IDS, strict=True) if case[1] != "tree"]
LOOPY_CASES, LOOPY_IDS = [case for case, _ in LOOPY], [name for _, name in LOOPY]


def run_trws(unary, edges, pairwise, messages):
    """Return TRW-S's labelling, its score, the bound and the round trips, from ``messages``."""
    model = check_model(unary, edges, pairwise)
    arrays = (model.unary, model.tables, model.per_edge, model.edges)
    labels, bound, n_iter = trws(*arrays, MAX_ITER, TOL, GAP_TOLERANCE, messages)
    return labels, pairwise_model_score(unary, edges, pairwise, labels), bound, n_iter


@pytest.mark.parametrize("case", [case for case, _ in LOOPY], ids=[name for _, name in LOOPY])
def test_the_bound_is_never_below_the_lp_bound_and_never_rises_with_more_round_trips(case):
    model = make_model(case)
    lp_bound = infer(*model, "lp").bound
    bounds = [infer(*model, "trws", max_iter=n, tol=1e-15).bound for n in (1, 2, 5, 20)]
    assert all(bound >= lp_bound - 1e-7 for bound in bounds)
    assert all(later <= earlier + 1e-9 for earlier, later in itertools.pairwise(bounds))


def test_strong_unaries_on_a_potts_grid_are_certified():
    rng = np.random.default_rng(0)
    edges = grid(rng, 8, 8)
    truth = np.repeat(np.arange(4), 16)
    unary = rng.normal(size=(64, 4))
    unary[np.arange(64), truth] += 3.0
    result = infer(unary, edges, 0.5 * np.eye(4), "trws")
    assert result.certified and result.bound == result.score


@pytest.mark.parametrize("from_first", [True, False])
def test_potts_messages_equal_the_general_ones(from_first):
    rng = np.random.default_rng(1)
    tables = np.stack(
        [np.diag(rng.normal(size=5)) + 0.7 * (1 - np.eye(5)), rng.normal(size=(5, 5))]
    )
    potts, diagonal, off_diagonal = potts_tables(tables)
    assert potts.tolist() == [True, False]
    cavity = rng.normal(size=5)
    cavity[3] = cavity[1]  # a tie at the top is handled
    general, fast = np.zeros((1, 2, 5)), np.zeros((1, 2, 5))
    top = _send(cavity, tables, 0, from_first, general, 0, 1)
    assert _send_potts(cavity, diagonal, off_diagonal, 0, fast, 0, 1) == pytest.approx(top)
    np.testing.assert_allclose(fast, general)


@pytest.mark.parametrize("from_first", [True, False])
def test_attractive_potts_messages_equal_the_general_ones(from_first):
    rng = np.random.default_rng(2)
    diagonal = 0.7 + rng.random(5)
    diagonal[2] = 0.7  # a diagonal entry equal to the one off it
    table = np.diag(diagonal) + 0.7 * (1 - np.eye(5))
    scale, belief, received = 0.5, rng.normal(size=5), rng.normal(size=5)
    belief[4] = belief[0]  # a tie at the top of the cavity
    received[4] = received[0]
    general = np.zeros((1, 2, 5))
    top = _send(scale * belief - received, table[None], 0, from_first, general, 0, 1)
    sent, cavity = np.zeros(5), np.zeros(5)
    fast_top = _send_attractive_potts(scale, belief, diagonal, 0.7, received, sent, cavity)
    assert fast_top == top
    np.testing.assert_array_equal(sent, general[0, 1])
    np.testing.assert_array_equal(cavity, scale * belief - received)


def metric_grid(seed, kind):
    """A 3×3 grid with 3 states, uniform integer unary costs and Potts or truncated costs."""
    rng = np.random.default_rng(seed)
    edges = grid(rng, 3, 3)
    unary = -rng.integers(0, 10, size=(9, 3)).astype(float)
    distance = np.abs(np.subtract.outer(np.arange(3), np.arange(3)))
    costs = 6.0 * (distance > 0) if kind == "potts" else 4.0 * np.minimum(distance, 1.5)
    return unary, edges, -costs


@pytest.mark.parametrize(
    ("seed", "kind"), [(2, "potts"), (13, "potts"), (2, "truncated"), (6, "truncated")]
)
def test_an_uncertified_labelling_under_metric_costs_ends_with_an_expansion_move(seed, kind):
    # One round trip leaves the bound loose, so the labelling is polished by a cycle of
    # expansion moves; its last move, on the last state, cannot then be improved upon.
    unary, edges, pairwise = metric_grid(seed, kind)
    result = infer(unary, edges, pairwise, "trws", max_iter=1)
    maximum = brute_force_map(unary, edges, pairwise)[0]
    assert result.score <= maximum + 1e-9 <= result.bound + 2e-9
    assert not result.certified
    last = pairwise.shape[0] - 1
    for expanded in itertools.product([False, True], repeat=len(unary)):
        moved = np.where(expanded, last, result.labels)
        assert pairwise_model_score(unary, edges, pairwise, moved) <= result.score + 1e-9


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_after_the_passes_the_bound_is_a_sum_of_edge_maxima_of_the_reparametrisation(case):
    """After a backward pass, max_b γ_v θ̂_v(b) + θ̄_uv(a, b) is the same for every a (u < v);
    so the chains' bound splits over the edges: (u, v) takes γ_v θ̂_v and an even share of
    the rest of θ̂_u, 1 − n_earlier(u) γ_u, over the edges from u to later nodes."""
    model = check_model(*make_model(case))
    unary, edges, tables = model.unary, model.edges, model.tables
    adjacency = node_adjacency(model.n_nodes, edges)
    options = TrwsOptions(3, 1e-15)
    messages = np.zeros((model.n_edges, 2, model.n_states))
    passes = trws_passes(unary, tables, model.per_edge, edges, adjacency, options, 1e-9, messages)
    earlier, later = edges.min(axis=1), edges.max(axis=1)
    into_later, into_earlier = passes.messages[:, 0], passes.messages[:, 1]
    belief = unary.copy()
    np.add.at(belief, later, into_later)
    np.add.at(belief, earlier, into_earlier)
    n_earlier = np.bincount(later, minlength=model.n_nodes)
    n_later = np.bincount(earlier, minlength=model.n_nodes)
    gamma = 1.0 / np.maximum(1, np.maximum(n_earlier, n_later))
    rest = (1.0 - n_earlier * gamma) / np.maximum(1, n_later)
    bound = sum(
        unary[node].max() for node in range(model.n_nodes) if n_earlier[node] == 0 == n_later[node]
    )
    for e, (first, second) in enumerate(edges):
        table = tables[model.table_of(np.array([e]))[0]]
        if first > second:
            table = table.T  # rows: the earlier node
        u, v = earlier[e], later[e]
        reparametrised = table - into_earlier[e][:, None] - into_later[e][None, :]
        edge = rest[u] * belief[u][:, None] + reparametrised + gamma[v] * belief[v][None, :]
        assert np.ptp((gamma[v] * belief[v][None, :] + reparametrised).max(axis=1)) < 1e-9
        bound += edge.max()
    assert bound == pytest.approx(passes.bound, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("case", LOOPY_CASES, ids=LOOPY_IDS)
def test_messages_left_by_runs_on_other_scores_start_a_sound_run(case):
    """A learner's calls: each run starts from the messages the run before left, on scores
    that have drifted; its labelling and bound still enclose the enumerated maximum."""
    models = drifting_models(case)
    messages = np.zeros((len(models[0][1]), 2, models[0][0].shape[1]))
    for model, maximum in zip(models, drifting_maxima(case), strict=True):
        _, score, bound, _ = run_trws(*model, messages)
        assert_encloses_the_maximum(maximum, score, bound)


@pytest.mark.parametrize("case", LOOPY_CASES, ids=LOOPY_IDS)
def test_a_run_from_its_own_messages_certifies_no_later_than_from_zero(case):
    model = make_model(case)
    messages = np.zeros((len(model[1]), 2, model[0].shape[1]))
    cold = run_trws(*model, messages)
    warm = run_trws(*model, messages)
    assert warm[2] <= cold[2] + 1e-9 * max(1.0, abs(cold[2]))
    if closes_gap(cold[1], cold[2]):
        assert closes_gap(warm[1], warm[2]) and warm[3] <= cold[3]
