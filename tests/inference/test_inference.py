"""Graph inference against enumeration: exactness, bounds and certificates of every method."""

import functools
import zlib

import numpy as np
import pytest

from structsvm.inference import (
    INFERENCE_METHODS,
    InferenceResult,
    hamming_augmented_unary,
    infer,
    infer_many,
)
from structsvm.inference._result import closes_gap
from tests.references import (
    brute_force_map,
    pairwise_model_score,
    weighted_hamming_loss,
)

TIGHT = 1e-7  # exact methods and certificates
GRAPH_CUTS = ("expansion", "swap", "qpbo")  # tables of a kind only: tests/inference/test_graph_cuts
ANY_TABLE = tuple(method for method in INFERENCE_METHODS if method not in GRAPH_CUTS)
AD3_TOLERANCE = 1e-6  # AD3's bound on trees after convergence


# ------------------------------------------------------------------------ random models
def random_tree(rng, n_nodes):
    """Edges of a random tree, each oriented at random."""
    edges = np.array([[rng.integers(i), i] for i in range(1, n_nodes)], dtype=np.int64)
    return _shuffle_orientation(rng, edges.reshape(-1, 2))


def random_forest(rng, n_nodes):
    """A random tree with about half of its edges removed (isolated nodes included)."""
    edges = random_tree(rng, n_nodes)
    return edges[rng.random(len(edges)) < 0.5]


def tree_with_a_repeated_edge(rng, n_nodes):
    """A random tree plus a second edge between the ends of one of its edges: a 2-cycle."""
    edges = random_tree(rng, n_nodes)
    return np.vstack([edges, edges[rng.integers(len(edges))][::-1]])


def cycle(rng, n_nodes):
    edges = np.array([[i, (i + 1) % n_nodes] for i in range(n_nodes)], dtype=np.int64)
    return _shuffle_orientation(rng, edges)


def grid(rng, height, width):
    """The 4-neighbourhood grid, nodes numbered row by row."""
    index = np.arange(height * width).reshape(height, width)
    right = np.column_stack([index[:, :-1].ravel(), index[:, 1:].ravel()])
    down = np.column_stack([index[:-1].ravel(), index[1:].ravel()])
    return _shuffle_orientation(rng, np.vstack([right, down]))


def _shuffle_orientation(rng, edges):
    flip = rng.random(len(edges)) < 0.5
    edges = edges.copy()
    edges[flip] = edges[flip][:, ::-1]
    return edges


# (name, graph kind, n_nodes or (height, width), n_states)
SHAPES = [
    ("tree-7x3", "tree", 7, 3),
    ("tree-6x4", "tree", 6, 4),
    ("tree-9x2", "tree", 9, 2),
    ("forest-8x3", "forest", 8, 3),
    ("forest-7x4", "forest", 7, 4),
    ("repeated-6x3", "repeated", 6, 3),
    ("cycle-6x3", "cycle", 6, 3),
    ("cycle-5x4", "cycle", 5, 4),
    ("grid-2x3x3", "grid", (2, 3), 3),
    ("grid-3x3x2", "grid", (3, 3), 2),
    ("grid-3x3x3", "grid", (3, 3), 3),
]
CASES = [(*shape, shared) for shape in SHAPES for shared in (False, True)]
CASE_IDS = [f"{case[0]}-{'shared' if case[4] else 'per-edge'}" for case in CASES]
FOREST_CASES = [case for case in CASES if case[1] in ("tree", "forest")]
FOREST_IDS = [name for name, case in zip(CASE_IDS, CASES) if case[1] in ("tree", "forest")]
GRAPHS = {
    "tree": random_tree,
    "forest": random_forest,
    "repeated": tree_with_a_repeated_edge,
    "cycle": cycle,
}


def make_model(case):
    """Return (unary, edges, pairwise) of a case, the same on every call.

    Pairwise scores are strong (scale 2) against unit unaries, so the edges matter.
    """
    name, kind, size, n_states, shared = case
    rng = np.random.default_rng(zlib.crc32(f"{name}-{shared}".encode()))
    edges = grid(rng, *size) if kind == "grid" else GRAPHS[kind](rng, size)
    n_nodes = int(np.prod(size))
    unary = rng.normal(size=(n_nodes, n_states))
    shape = (n_states, n_states) if shared else (len(edges), n_states, n_states)
    return unary, edges, 2.0 * rng.normal(size=shape)


def drifting_models(case, n_models=4, step=0.1):
    """Return models of a case's graph whose scores drift by ``step``-sized random steps, as
    a learner's weights drift from one call to the next; the first is the case's."""
    unary, edges, pairwise = make_model(case)
    rng = np.random.default_rng(len(unary))
    models = [(unary, edges, pairwise)]
    for _ in range(n_models - 1):
        unary = unary + step * rng.normal(size=unary.shape)
        pairwise = pairwise + step * rng.normal(size=pairwise.shape)
        models.append((unary, edges, pairwise))
    return models


@functools.cache
def reference_maximum(case):
    return brute_force_map(*make_model(case))[0]


def assert_consistent(result, case, maximum):
    """What every answer of every method must satisfy against the enumerated maximum."""
    unary, edges, pairwise = make_model(case)
    assert isinstance(result, InferenceResult)
    assert result.labels.dtype == np.int64 and result.labels.shape == (len(unary),)
    expected = pairwise_model_score(unary, edges, pairwise, result.labels)
    assert result.score == pytest.approx(expected)
    assert result.score <= maximum + TIGHT
    assert result.bound >= maximum - TIGHT
    if result.certified:
        assert result.score == pytest.approx(maximum, abs=TIGHT)
        assert result.bound == result.score


@functools.cache
def drifting_maxima(case):
    """The enumerated maxima of :func:`drifting_models` of a case."""
    return tuple(brute_force_map(*model)[0] for model in drifting_models(case))


def assert_encloses_the_maximum(maximum, score, bound):
    """Score ≤ the enumerated maximum ≤ bound, and a closed gap only at the maximum."""
    assert score <= maximum + TIGHT and bound >= maximum - TIGHT
    if closes_gap(score, bound):
        assert score == pytest.approx(maximum, abs=TIGHT)


# ------------------------------------------------------------------------ ground truth
@pytest.mark.parametrize("method", ANY_TABLE)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_every_answer_is_bounded_and_certified_only_when_optimal(case, method):
    result = infer(*make_model(case), method)
    assert result.method == method
    assert_consistent(result, case, reference_maximum(case))


@pytest.mark.parametrize("method", ["brute", "ilp"])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_exact_methods_reach_the_enumerated_maximum(case, method):
    result = infer(*make_model(case), method)
    assert result.certified
    assert result.score == pytest.approx(reference_maximum(case), abs=TIGHT)


@pytest.mark.parametrize("case", FOREST_CASES, ids=FOREST_IDS)
def test_relaxations_and_max_product_are_exact_on_trees_and_forests(case):
    maximum = reference_maximum(case)
    for method in ("max-product", "lp", "ad3", "trws"):
        result = infer(*make_model(case), method)
        assert result.score == pytest.approx(maximum, abs=TIGHT), method
        assert result.bound == pytest.approx(maximum, abs=AD3_TOLERANCE), method
        assert result.certified, method


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("damping", [0.0, 0.5])
def test_serial_max_product_bounds_the_maximum_and_certifies_only_it(case, damping):
    maximum = reference_maximum(case)
    result = infer(*make_model(case), "max-product", schedule="serial", damping=damping)
    assert result.score <= maximum + TIGHT and result.bound >= maximum - TIGHT
    if result.certified or case in FOREST_CASES:
        assert result.score == pytest.approx(maximum, abs=TIGHT)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_ad3_bound_is_close_to_the_lp_bound(case):
    model = make_model(case)
    assert infer(*model, "ad3").bound == pytest.approx(infer(*model, "lp").bound, abs=1e-3)


@pytest.mark.parametrize("case", CASES[::3], ids=CASE_IDS[::3])
def test_loss_augmented_inference_against_enumeration(case):
    unary, edges, pairwise = make_model(case)
    rng = np.random.default_rng(7)
    n_nodes, n_states = unary.shape
    y_true = rng.integers(n_states, size=n_nodes)
    node_weights, class_weights = rng.random(n_nodes), 1.0 + rng.random(n_states)
    augmented = hamming_augmented_unary(unary, y_true, node_weights, class_weights)
    maximum, _ = brute_force_map(
        unary,
        edges,
        pairwise,
        loss=lambda y: weighted_hamming_loss(y_true, y, node_weights, class_weights),
    )
    on_forests = ["max-product", "lp", "ad3", "trws"]
    exact = ["brute", "ilp"] + (on_forests if case in FOREST_CASES else [])
    for method in ANY_TABLE:
        result = infer(augmented, edges, pairwise, method)
        assert result.score <= maximum + TIGHT and result.bound >= maximum - TIGHT, method
        if method in exact or result.certified:
            assert result.score == pytest.approx(maximum, abs=TIGHT), method


def test_hamming_augmented_unary_adds_the_weighted_hamming_loss():
    rng = np.random.default_rng(3)
    unary = rng.normal(size=(5, 3))
    y_true = np.array([0, 2, 1, 1, 0])
    node_weights, class_weights = rng.random(5), rng.random(3)
    augmented = hamming_augmented_unary(unary, y_true, node_weights, class_weights)
    no_edges = np.zeros((0, 2), dtype=int)
    for labels in rng.integers(3, size=(20, 5)):
        gained = pairwise_model_score(augmented, no_edges, np.zeros((3, 3)), labels)
        plain = pairwise_model_score(unary, no_edges, np.zeros((3, 3)), labels)
        loss = weighted_hamming_loss(y_true, labels, node_weights, class_weights)
        assert gained - plain == pytest.approx(loss)
    assert np.array_equal(augmented[np.arange(5), y_true], unary[np.arange(5), y_true])
    unweighted = hamming_augmented_unary(unary, y_true)
    assert np.allclose(unweighted - unary, (np.arange(3) != y_true[:, None]).astype(float))


# ------------------------------------------------------------------------ particular graphs
SERIAL = {"schedule": "serial", "damping": 0.0}
FRUSTRATED_TRIANGLE = (np.zeros((3, 2)), [[0, 1], [1, 2], [2, 0]], np.array([[0.0, 1], [1, 0]]))


def test_a_frustrated_cycle_is_never_certified_by_a_relaxation():
    """Three nodes rewarded for disagreeing: at most two edges can, the LP takes all halves."""
    assert infer(*FRUSTRATED_TRIANGLE, "ilp").score == 2.0
    lp = infer(*FRUSTRATED_TRIANGLE, "lp", relaxed=True)
    assert lp.bound == pytest.approx(3.0) and not lp.certified
    assert np.allclose(lp.node_marginals, 0.5)
    for method, options in [
        ("ad3", {}),
        ("max-product", {}),
        ("max-product", SERIAL),
        ("trws", {}),
        ("qpbo", {}),
    ]:
        result = infer(*FRUSTRATED_TRIANGLE, method, **options)
        assert not result.certified and result.bound >= 3.0 - 1e-4, method


@pytest.mark.parametrize("method", INFERENCE_METHODS)
def test_a_graph_without_edges_takes_each_node_argmax(method):
    n_states = 2 if method == "qpbo" else 4
    unary = np.random.default_rng(0).normal(size=(6, n_states))
    result = infer(unary, np.zeros((0, 2), dtype=int), np.zeros((n_states, n_states)), method)
    assert np.array_equal(result.labels, unary.argmax(axis=1))
    assert result.certified and result.bound == result.score


@pytest.mark.parametrize("method", ANY_TABLE)
def test_a_shared_table_gives_the_answer_of_its_copies(method):
    unary, edges, table = make_model(CASES[-1])
    shared = infer(unary, edges, table, method)
    copied = infer(unary, edges, np.broadcast_to(table, (len(edges), *table.shape)), method)
    assert np.array_equal(shared.labels, copied.labels)
    assert shared.bound == pytest.approx(copied.bound)


@pytest.mark.parametrize("method", ["lp", "ad3"])
def test_relaxed_marginals_lie_in_the_local_polytope_and_attain_the_bound(method):
    unary, edges, pairwise = make_model(CASES[-2])
    result = infer(unary, edges, pairwise, method, relaxed=True)
    nodes, pairs = result.node_marginals, result.edge_marginals
    atol = 1e-6 if method == "lp" else 1e-3
    assert nodes.shape == unary.shape and pairs.shape == (len(edges), *pairwise.shape[1:])
    assert np.all(nodes >= -1e-9) and np.allclose(nodes.sum(axis=1), 1.0)
    assert np.allclose(pairs.sum(axis=2), nodes[edges[:, 0]], atol=atol)
    assert np.allclose(pairs.sum(axis=1), nodes[edges[:, 1]], atol=atol)
    value = np.sum(unary * nodes) + np.sum(pairwise * pairs)
    assert value == pytest.approx(result.bound, abs=1e2 * atol)
    assert infer(unary, edges, pairwise, method).node_marginals is None


# ------------------------------------------------------------------------ bad input
UNARY, EDGES, PAIRWISE = np.zeros((3, 2)), np.array([[0, 1], [1, 2]]), np.zeros((2, 2))


@pytest.mark.parametrize(
    ("arguments", "options", "message"),
    [
        ((np.zeros(3), EDGES, PAIRWISE), {}, "unary must be a 2-D array"),
        ((np.zeros((3, 0)), EDGES, PAIRWISE), {}, "unary must have at least one node"),
        ((np.array([[0, np.nan]] * 3), EDGES, PAIRWISE), {}, "unary contains NaN"),
        ((UNARY, EDGES.astype(float), PAIRWISE), {}, "edges must be an integer array"),
        ((UNARY, np.array([0, 1, 2]), PAIRWISE), {}, r"edges must have shape \(n_edges, 2\)"),
        ((UNARY, np.array([[0, 3]]), PAIRWISE), {}, r"edges must hold node indices in \[0, 3\)"),
        ((UNARY, np.array([[1, 1]]), PAIRWISE), {}, "edges must join two different nodes"),
        ((UNARY, EDGES, np.zeros((3, 2, 2))), {}, "pairwise must have shape"),
        ((UNARY, EDGES, np.zeros((2, 3))), {}, "pairwise must have shape"),
        ((UNARY, EDGES, np.full((2, 2), np.inf)), {}, "pairwise contains NaN or infinite"),
        ((UNARY, EDGES, PAIRWISE), {"method": "gibbs"}, "method must be one of 'brute', 'ilp'"),
        ((UNARY, EDGES, PAIRWISE), {"method": "lp", "max_iter": 3}, "'lp' takes no option"),
        ((UNARY, EDGES, PAIRWISE), {"damping": 0.5}, "'trws' takes no option 'damping'"),
        ((UNARY, EDGES, PAIRWISE), {"method": "max-product", "damping": 1.0}, "damping must be"),
        (
            (UNARY, EDGES, PAIRWISE),
            {"method": "max-product", "schedule": "random"},
            "schedule must be one of",
        ),
        ((UNARY, EDGES, PAIRWISE), {"method": "ad3", "eta": 0}, "eta must be > 0"),
        (
            (UNARY, EDGES, PAIRWISE),
            {"method": "ad3", "warm_start": "yes"},
            "warm_start must be True or False",
        ),
        ((UNARY, EDGES, PAIRWISE), {"method": "ilp", "time_limit": -1}, "time_limit must be"),
        ((UNARY, EDGES, PAIRWISE), {"method": "trws", "max_iter": 0}, "max_iter must be"),
        ((UNARY, EDGES, PAIRWISE), {"method": "swap", "max_cycles": 0}, "max_cycles must be"),
        ((UNARY, EDGES, 1 - np.eye(2)), {"method": "expansion"}, "'expansion' needs pairwise"),
        ((UNARY, EDGES, 1 - np.eye(2)), {"method": "swap"}, "'swap' needs pairwise"),
        ((np.zeros((3, 3)), EDGES, np.zeros((3, 3))), {"method": "qpbo"}, "'qpbo' needs binary"),
        (
            (np.zeros((30, 2)), np.zeros((0, 2), dtype=int), PAIRWISE),
            {"method": "brute"},
            "more than max_labellings",
        ),
    ],
)
def test_bad_input_is_refused_by_name(arguments, options, message):
    with pytest.raises(ValueError, match=message):
        infer(*arguments, **options)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((UNARY, [0, 1]), "y_true has 2 labels, expected n_nodes=3"),
        ((UNARY, [0, 1, 2]), r"y_true has labels outside \[0, 2\)"),
        ((UNARY, [0, 1, 1], [1, -1, 1]), "node_weights must be non-negative"),
        ((UNARY, [0, 1, 1], None, [1, 1, 1]), "class_weights has length 3, expected 2"),
    ],
)
def test_bad_loss_arguments_are_refused_by_name(arguments, message):
    with pytest.raises(ValueError, match=message):
        hamming_augmented_unary(*arguments)


# ------------------------------------------------------------------------ many models at once
@pytest.mark.parametrize(
    ("graph", "method"),
    [
        ("tree", "max-product"),
        ("forest", "max-product"),
        ("forest", "trws"),
        ("cycle", "max-product"),
        ("tree", "brute"),
        ("cycle", "brute"),
        ("cycle", "lp"),
    ],
)
def test_infer_many_equals_infer_model_by_model(graph, method):
    rng = np.random.default_rng(zlib.crc32(f"{graph}{method}".encode()))
    n_nodes, n_states = 6, 3
    edges = {"tree": random_tree, "forest": random_forest, "cycle": cycle}[graph](rng, n_nodes)
    pairwise = rng.normal(size=(len(edges), n_states, n_states))
    # Integer scores make ties common: both must pick the same maximiser.
    unaries = rng.integers(-2, 3, size=(40, n_nodes, n_states)).astype(float)
    results = infer_many(unaries, edges, pairwise, method)
    assert len(results) == len(unaries)
    for unary, result in zip(unaries, results, strict=True):
        single = infer(unary, edges, pairwise, method)
        np.testing.assert_array_equal(result.labels, single.labels)
        assert result.score == pytest.approx(single.score, abs=TIGHT)
        assert result.certified == single.certified
        if method != "lp":
            best, _ = brute_force_map(unary, edges, pairwise)
            assert result.score == pytest.approx(best, abs=TIGHT)


def test_infer_many_rejects_a_single_model_and_unknown_options():
    unary = np.zeros((3, 2))
    with pytest.raises(ValueError, match="unaries"):
        infer_many(unary, np.zeros((0, 2), dtype=int), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="max_iter"):
        infer_many(unary[None], np.zeros((0, 2), dtype=int), np.zeros((2, 2)), "brute", max_iter=3)
    with pytest.raises(ValueError, match="damping"):
        infer_many(
            unary[None], np.zeros((0, 2), dtype=int), np.zeros((2, 2)), "max-product", damping=2.0
        )
