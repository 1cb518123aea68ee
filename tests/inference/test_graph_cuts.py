"""Graph cuts against enumeration: max-flow, α-expansion, αβ-swap and QPBO."""

import itertools
import zlib

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_flow

from structsvm.inference import infer
from structsvm.inference._graph_cuts import _expansion, _qpbo
from structsvm.inference._maxflow import add_pairwise, add_unary, cut_graph, cut_offset, max_flow
from tests.inference.test_inference import grid, random_tree
from tests.references import brute_force_map, pairwise_model_score

TIGHT = 1e-7


def distances(n_states):
    return np.abs(np.subtract.outer(np.arange(n_states), np.arange(n_states))).astype(float)


# Pairwise scores (minus costs) of the kinds graph cuts take, as functions of n_states.
TABLES = {
    "potts": lambda k: -1.5 * (1.0 - np.eye(k)),
    "truncated-linear": lambda k: -np.minimum(distances(k), 2.0),
    "truncated-quadratic": lambda k: -np.minimum(distances(k) ** 2, 4.0),  # not a metric
    "potts-with-diagonal": lambda k: np.diag(np.linspace(0.5, 1.0, k)) - 1.0,
}
METRIC = ["potts", "truncated-linear", "potts-with-diagonal"]


def small_model(name, kind, n_states, per_edge_scale=False):
    """A 3×3 grid (or a 7-node tree) with normal unaries and the tables of ``kind``."""
    rng = np.random.default_rng(zlib.crc32(f"{name}{kind}{n_states}".encode()))
    edges = grid(rng, 3, 3) if name == "grid" else random_tree(rng, 7)
    n_nodes = int(edges.max()) + 1
    unary = rng.normal(size=(n_nodes, n_states))
    table = TABLES[kind](n_states)
    if per_edge_scale:  # a different positive multiple on every edge keeps the kind
        return unary, edges, rng.uniform(0.2, 2.0, size=(len(edges), 1, 1)) * table
    return unary, edges, table


def assert_consistent(result, model):
    maximum, _ = brute_force_map(*model)
    assert result.score == pytest.approx(pairwise_model_score(*model, result.labels))
    assert result.score <= maximum + TIGHT
    assert result.bound >= maximum - TIGHT
    if result.certified:
        assert result.score == pytest.approx(maximum, abs=TIGHT)
    return maximum


# ------------------------------------------------------------------------ max-flow
@pytest.mark.parametrize("seed", range(5))
def test_max_flow_equals_scipys_and_its_cut_has_that_value(seed):
    rng = np.random.default_rng(seed)
    n_nodes = 30
    pairs = rng.integers(n_nodes, size=(80, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    capacities = rng.integers(0, 10, size=(len(pairs), 2)).astype(float)
    terminal = rng.integers(-12, 13, size=n_nodes).astype(float)
    graph = cut_graph(n_nodes, pairs)
    graph.capacity[0::2], graph.capacity[1::2] = capacities[:, 0], capacities[:, 1]
    graph.terminal[:] = terminal
    flow, sink_side = max_flow(graph)
    source, sink = n_nodes, n_nodes + 1
    nodes = np.arange(n_nodes)
    rows = np.concatenate([pairs[:, 0], pairs[:, 1], np.full(n_nodes, source), nodes])
    columns = np.concatenate([pairs[:, 1], pairs[:, 0], nodes, np.full(n_nodes, sink)])
    values = np.concatenate(
        [capacities[:, 0], capacities[:, 1], np.maximum(terminal, 0), np.maximum(-terminal, 0)]
    )
    matrix = csr_matrix((values.astype(np.int32), (rows, columns)), shape=(n_nodes + 2,) * 2)
    assert flow == maximum_flow(matrix, source, sink).flow_value
    crossing = sink_side[pairs[:, 1]] & ~sink_side[pairs[:, 0]]
    backward = sink_side[pairs[:, 0]] & ~sink_side[pairs[:, 1]]
    cut = capacities[crossing, 0].sum() + capacities[backward, 1].sum()
    cut += np.maximum(terminal, 0)[sink_side].sum() + np.maximum(-terminal, 0)[~sink_side].sum()
    assert cut == flow


@pytest.mark.parametrize("seed", range(20))
def test_a_submodular_binary_energy_is_minimised_exactly_by_one_cut(seed):
    rng = np.random.default_rng(seed)
    n_nodes = 7
    pairs = rng.integers(n_nodes, size=(12, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    unary = rng.normal(size=(n_nodes, 2))
    terms = rng.normal(size=(len(pairs), 4))
    excess = terms[:, 0] + terms[:, 3] - terms[:, 1] - terms[:, 2]
    terms[:, 0] -= np.maximum(excess, 0.0)  # now a + d ≤ b + c
    graph = cut_graph(n_nodes, pairs)
    for node in range(n_nodes):
        add_unary(graph, node, *unary[node])
    for pair, term in enumerate(terms):
        add_pairwise(graph, pair, *term)
    offset = cut_offset(graph)
    flow, sink_side = max_flow(graph)

    def energy(x):
        pairwise = terms[np.arange(len(pairs)), 2 * x[pairs[:, 0]] + x[pairs[:, 1]]].sum()
        return unary[np.arange(n_nodes), x].sum() + pairwise

    minimum = min(energy(np.array(x)) for x in itertools.product([0, 1], repeat=n_nodes))
    assert energy(sink_side.astype(np.int64)) == pytest.approx(minimum)
    assert offset + flow == pytest.approx(minimum)


# ------------------------------------------------------------------------ moves
@pytest.mark.parametrize("per_edge", [False, True])
@pytest.mark.parametrize("kind", list(TABLES))
@pytest.mark.parametrize("graph", ["grid", "tree"])
@pytest.mark.parametrize("method", ["expansion", "swap"])
def test_moves_are_bounded_and_certified_only_when_optimal(method, graph, kind, per_edge):
    model = small_model(graph, kind, 3, per_edge)
    if method == "expansion" and kind not in METRIC:
        with pytest.raises(ValueError, match="'expansion' needs pairwise scores"):
            infer(*model, method)
        return
    result = infer(*model, method)
    assert result.method == method
    maximum = assert_consistent(result, model)
    # Moves are strong: on these small models they reach the maximum or come close.
    assert result.score >= maximum - 0.25 * abs(maximum)


@pytest.mark.parametrize("kind", METRIC)
@pytest.mark.parametrize("method", ["expansion", "swap", "qpbo"])
def test_graph_cuts_are_exact_on_submodular_binary_models(method, kind):
    model = small_model("grid", kind, 2, per_edge_scale=True)
    result = infer(*model, method)
    assert result.certified and result.bound == result.score
    assert result.score == pytest.approx(brute_force_map(*model)[0], abs=TIGHT)


@pytest.mark.parametrize("seed", range(4))
def test_qpbo_is_exact_on_submodular_models_full_of_ties(seed):
    rng = np.random.default_rng(seed)
    edges = grid(rng, 3, 4)
    unary = rng.integers(0, 3, size=(12, 2)).astype(float)  # ties leave nodes open
    model = (unary, edges, 2.0 * np.eye(2))
    result = infer(*model, "qpbo")
    assert result.certified
    assert result.score == pytest.approx(brute_force_map(*model)[0])


@pytest.mark.parametrize("seed", range(4))
def test_an_expansion_cycle_never_lowers_the_score_and_beats_every_single_move(seed):
    rng = np.random.default_rng(seed)
    unary, edges, table = small_model("grid", "truncated-linear", 3)
    start = rng.integers(3, size=len(unary))
    labels = start.copy()
    _expansion(unary, table[None], False, edges, labels, 1)
    after = pairwise_model_score(unary, edges, table, labels)
    # Every expansion move from the start, enumerated: each node keeps its state or takes α.
    best_move = max(
        pairwise_model_score(unary, edges, table, np.where(np.array(mask, bool), alpha, start))
        for alpha in range(3)
        for mask in itertools.product([0, 1], repeat=len(unary))
    )
    assert after >= best_move - TIGHT >= pairwise_model_score(unary, edges, table, start) - TIGHT


# ------------------------------------------------------------------------ QPBO
@pytest.mark.parametrize("seed", range(12))
def test_qpbo_labels_part_of_an_optimum_and_bounds_by_roof_duality(seed):
    rng = np.random.default_rng(seed)
    edges = grid(rng, 3, 3)
    unary = rng.normal(size=(9, 2))
    pairwise = 1.5 * rng.normal(size=(len(edges), 2, 2))  # mixed submodular and not
    model = (unary, edges, pairwise)
    result = infer(*model, "qpbo")
    maximum = assert_consistent(result, model)
    assert result.bound == pytest.approx(infer(*model, "lp").bound, abs=1e-6)
    partial, _ = _qpbo(unary, pairwise, True, edges)
    fixed = partial >= 0
    best_agreeing = max(
        pairwise_model_score(*model, np.array(y))
        for y in itertools.product([0, 1], repeat=9)
        if np.array_equal(np.array(y)[fixed], partial[fixed])
    )
    assert best_agreeing == pytest.approx(maximum, abs=TIGHT)


# ------------------------------------------------------------------------ against gco
@pytest.mark.parametrize("seed", range(3))
def test_expansion_reaches_gcos_energy_on_binary_potts_grids(seed):
    gco = pytest.importorskip("gco")
    rng = np.random.default_rng(seed)
    height = width = 12
    index = np.arange(height * width).reshape(height, width)
    edges = np.vstack(
        [
            np.column_stack([index[:, :-1].ravel(), index[:, 1:].ravel()]),
            np.column_stack([index[:-1].ravel(), index[1:].ravel()]),
        ]
    )
    costs = rng.integers(0, 20, size=(height * width, 2)).astype(np.int32)
    smooth = (7 * (1 - np.eye(2))).astype(np.int32)
    cutter = gco.GCO()
    cutter.create_general_graph(height * width, 2, False)
    cutter.set_data_cost(costs)
    cutter.set_all_neighbors(edges[:, 0], edges[:, 1], np.ones(len(edges), dtype=np.int32))
    cutter.set_smooth_cost(smooth)
    cutter.expansion(-1)
    theirs = cutter.get_labels().astype(np.int64)
    cutter.destroy_graph()
    for method in ("expansion", "swap", "qpbo", "trws"):
        ours = infer(-costs.astype(float), edges, -smooth.astype(float), method)
        their_score = pairwise_model_score(-costs, edges, -smooth, theirs)
        assert ours.score == pytest.approx(their_score), method
