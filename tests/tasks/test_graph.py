"""Graph labelling tasks: φ against a loop over nodes and edges, oracles against enumeration,
the full QP, relaxed outputs, grid helpers and validation."""

import numpy as np
import pytest
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning

import structsvm
from structsvm import StructuredSVM
from structsvm.inference import infer
from tasks import (
    EdgeFeatureGraphTask,
    GraphTask,
    RelaxedLabelling,
    WeightedLabels,
    edge_features_from_nodes,
    grid_direction_features,
    grid_edges,
)
from tests.references import (
    graph_brute_force,
    graph_joint_feature,
    solve_full_primal,
    weighted_hamming_loss,
)

TRIANGLE_AND_TAIL = np.array([[0, 1], [1, 2], [2, 0], [2, 3]])


def make_task(kind, n_states=3, n_features=2, method="ilp", class_weights=None, **options):
    if kind == "undirected":
        return GraphTask(
            n_states, n_features, inference_method=method, class_weights=class_weights, **options
        )
    if kind == "directed":
        return GraphTask(
            n_states,
            n_features,
            directed=True,
            inference_method=method,
            class_weights=class_weights,
            **options,
        )
    return EdgeFeatureGraphTask(
        n_states,
        n_features,
        3,
        symmetric_edge_features=[0],
        antisymmetric_edge_features=[2],
        inference_method=method,
        class_weights=class_weights,
        **options,
    )


def make_input(task, rng, edges=TRIANGLE_AND_TAIL, n_nodes=4, node_weights=None):
    parts = [rng.normal(size=(n_nodes, task.n_features)), edges]
    if isinstance(task, EdgeFeatureGraphTask):
        parts.append(rng.normal(size=(len(edges), task.n_edge_features)))
    if node_weights is not None:
        parts.append(node_weights)
    return tuple(parts)


KINDS = ["undirected", "directed", "edge features"]


# ------------------------------------------------------------------------ φ and loss
@pytest.mark.parametrize("kind", KINDS)
def test_joint_feature_matches_the_loop_over_nodes_and_edges(kind):
    rng = np.random.default_rng(0)
    task = make_task(kind)
    for _ in range(5):
        x = make_input(task, rng)
        y = rng.integers(0, task.n_states, 4)
        expected = graph_joint_feature(task, x, y)
        np.testing.assert_allclose(task.joint_feature(x, y), expected, atol=1e-12)
        sparse_x = (scipy.sparse.csr_matrix(x[0]), *x[1:])
        np.testing.assert_allclose(task.joint_feature(sparse_x, y), expected, atol=1e-12)
    assert len(expected) == task.size_joint_feature


def test_symmetric_block_does_not_see_edge_direction_but_directed_does():
    rng = np.random.default_rng(1)
    x = make_input(make_task("undirected"), rng)
    y = np.array([0, 1, 2, 1])
    flipped = (x[0], x[1][:, ::-1])
    undirected, directed = make_task("undirected"), make_task("directed")
    np.testing.assert_array_equal(
        undirected.joint_feature(x, y), undirected.joint_feature(flipped, y)
    )
    assert not np.array_equal(directed.joint_feature(x, y), directed.joint_feature(flipped, y))


def test_weighted_hamming_loss_by_node_and_class():
    rng = np.random.default_rng(2)
    class_weights = np.array([1.0, 2.5, 0.5])
    task = make_task("undirected", class_weights=class_weights)
    node_weights = rng.uniform(0.1, 2.0, 4)
    _, Y = task.check_data([make_input(task, rng, node_weights=node_weights)], [[0, 1, 2, 1]])
    assert isinstance(Y[0], WeightedLabels)
    guess = np.array([1, 1, 0, 0])
    expected = weighted_hamming_loss(Y[0].labels, guess, node_weights, class_weights)
    assert task.loss(Y[0], guess) == pytest.approx(expected)
    assert task.loss(Y[0], Y[0].labels) == 0.0
    assert task.max_loss(Y[0]) == pytest.approx(np.sum(node_weights * class_weights[Y[0].labels]))


# ------------------------------------------------------------------------ oracles
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("method", ["ilp", "brute"])
def test_oracles_reach_the_enumerated_maximum(kind, method):
    rng = np.random.default_rng(3)
    class_weights = rng.uniform(0.5, 2.0, 3)
    task = make_task(kind, method=method, class_weights=class_weights)
    for _ in range(4):
        node_weights = rng.uniform(0.2, 2.0, 4)
        X, Y = task.check_data(
            [make_input(task, rng, node_weights=node_weights)], [rng.integers(0, 3, 4)]
        )
        x, y_true = X[0], Y[0]
        w = rng.normal(scale=2.0, size=task.size_joint_feature)
        best, best_augmented = graph_brute_force(
            task, x, y_true.labels, w, node_weights, class_weights
        )
        assert task.score(x, task.argmax(x, w), w) == pytest.approx(best, abs=1e-7)
        y_hat = task.loss_augmented_argmax(x, y_true, w)
        assert task.loss(y_true, y_hat) + task.score(x, y_hat, w) == pytest.approx(
            best_augmented, abs=1e-7
        )


@pytest.mark.parametrize("kind", KINDS)
def test_check_task_finds_no_problem(kind):
    rng = np.random.default_rng(4)
    task = make_task(kind, method="brute")
    triangle = TRIANGLE_AND_TAIL[:3]
    X = [
        make_input(task, rng, edges=triangle, n_nodes=3, node_weights=rng.uniform(0.5, 1.5, 3))
        for _ in range(3)
    ]
    Y = [rng.integers(0, 3, 3) for _ in range(3)]
    structsvm.check_task(task, X, Y, raise_on_error=True)


def test_n_slack_with_exact_inference_reaches_the_full_qp_optimum():
    rng = np.random.default_rng(5)
    task = make_task("edge features", n_states=2, method="ilp")
    path = np.array([[0, 1], [1, 2]])
    X = [make_input(task, rng, edges=path, n_nodes=3) for _ in range(4)]
    Y = [rng.integers(0, 2, 3) for _ in range(4)]
    X, Y = task.check_data(X, Y)
    _, _, optimum = solve_full_primal(task, X, Y, C=1.0)
    model = StructuredSVM(task, C=1.0, solver="n-slack", tol=1e-6).fit(X, Y)
    assert model.primal_objective_ == pytest.approx(optimum, rel=1e-5)
    assert all(record["certified"] for record in model.history_)


# ------------------------------------------------------------------------ relaxed outputs
def frustrated_triangle_weights(task, strength=4.0):
    """Weights whose pairwise block rewards unequal states on every edge: on an odd cycle with
    two states the local-polytope optimum is then the fractional μ = ½ everywhere."""
    w = np.zeros(task.size_joint_feature)
    block = np.array([[0.0, strength], [strength, 0.0]])
    w[task.n_states * task.n_features :] = [block[0, 0], block[0, 1], block[1, 1]]
    return w


def test_one_hot_marginals_give_the_labels_features_and_loss():
    rng = np.random.default_rng(6)
    for kind in KINDS:
        task = make_task(kind)
        x = make_input(task, rng)
        y, y_true = rng.integers(0, 3, 4), rng.integers(0, 3, 4)
        relaxed = RelaxedLabelling.from_labels(y, x[1], task.n_states)
        np.testing.assert_allclose(task.joint_feature(x, relaxed), task.joint_feature(x, y))
        assert task.loss(y_true, relaxed) == task.loss(y_true, y)


def test_a_labelling_and_a_relaxed_output_are_different_outputs_in_either_order():
    task = make_task("undirected")
    labels = np.array([0, 1, 2, 1])
    relaxed = RelaxedLabelling.from_labels(labels, TRIANGLE_AND_TAIL, task.n_states)
    assert task.outputs_equal(labels, relaxed) is False
    assert task.outputs_equal(relaxed, labels) is False
    assert task.outputs_equal(relaxed, RelaxedLabelling.from_labels(labels, TRIANGLE_AND_TAIL, 3))


def test_fractional_output_of_the_relaxation_has_the_value_of_the_lp():
    task = GraphTask(2, 1, inference_method="lp", relaxed=True)
    x = (np.zeros((3, 1)), np.array([[0, 1], [1, 2], [2, 0]]))
    y_true = np.array([0, 0, 0])
    w = frustrated_triangle_weights(task)
    output = task.loss_augmented_argmax(x, y_true, w)
    assert isinstance(output, RelaxedLabelling) and not task.is_certified(output)
    np.testing.assert_allclose(output.node_marginals, 0.5)
    unary, edges, pairwise = task.potentials(x, w)
    lp = infer(unary + (1 - np.eye(2)[y_true]), edges, pairwise, "lp", relaxed=True)
    value = task.loss(y_true, output) + task.score(x, output, w)
    assert value == pytest.approx(lp.bound, abs=1e-7)
    # Above every labelling: the relaxation's optimum bounds the integer one.
    _, best = graph_brute_force(task, x, y_true, w, np.ones(3), np.ones(2))
    assert value > best + 0.5
    assert task.output_key(output) != task.output_key(y_true)
    assert isinstance(task.argmax(x, w), np.ndarray)


def test_relaxed_training_records_uncertified_passes_and_switches_to_exact_inference():
    rng = np.random.default_rng(7)
    triangle = np.array([[0, 1], [1, 2], [2, 0]])
    X = [(rng.normal(size=(3, 1)), triangle) for _ in range(12)]
    Y = [rng.integers(0, 2, 3) for _ in range(12)]
    task = GraphTask(2, 1, inference_method="lp", relaxed=True)
    model = StructuredSVM(task, C=10.0, solver="n-slack", tol=1e-4, switch_to="ilp").fit(X, Y)
    certified = [record["certified"] for record in model.history_]
    assert not all(certified[: model.switched_at_ + 1])
    assert model.converged_ and certified[-1]
    # The recorded primal objective after the switch is the exact one at the final weights.
    exact = task.with_inference_method("ilp")
    slacks = [
        max(
            0.0,
            graph_brute_force(exact, x, y, model.w_, np.ones(3), np.ones(2))[1]
            - exact.score(x, y, model.w_),
        )
        for x, y in zip(X, Y)
    ]
    primal = 0.5 * model.w_ @ model.w_ + 10.0 * sum(slacks)
    assert model.primal_objective_ == pytest.approx(primal, rel=1e-9)


def test_bcfw_over_relaxed_outputs_keeps_weak_duality_of_the_relaxed_problem():
    rng = np.random.default_rng(7)
    triangle = np.array([[0, 1], [1, 2], [2, 0]])
    X = [(rng.normal(size=(3, 1)), triangle) for _ in range(12)]
    Y = [rng.integers(0, 2, 3) for _ in range(12)]
    task = GraphTask(2, 1, inference_method="lp", relaxed=True)
    with pytest.warns(ConvergenceWarning):
        model = StructuredSVM(task, C=10.0, solver="bcfw", max_iter=3, random_state=0).fit(X, Y)
    # The LP is the exact maximiser over the relaxed outputs: P(w) and D bound the relaxed
    # problem's optimum from both sides, so no gap is negative, though none is certified
    # for the integer problem whenever an output was fractional.
    assert not all(record["certified"] for record in model.history_)
    assert all(record["gap"] >= -1e-9 * record["primal"] for record in model.history_)


def test_switch_to_needs_a_task_that_can_switch(multiclass_problem):
    task, X, Y = multiclass_problem()
    with pytest.raises(TypeError, match="with_inference_method"):
        StructuredSVM(task, switch_to="ilp").fit(X, Y)


# ------------------------------------------------------------------------ grids
@pytest.mark.parametrize("neighborhood", [4, 8])
def test_grid_edges_join_exactly_the_neighbouring_pixels(neighborhood):
    rows, columns = 3, 4
    edges = grid_edges((rows, columns), neighborhood)
    expected = set()
    for r in range(rows):
        for c in range(columns):
            for r2 in range(rows):
                for c2 in range(columns):
                    near = max(abs(r - r2), abs(c - c2)) == 1
                    if neighborhood == 4:
                        near = abs(r - r2) + abs(c - c2) == 1
                    if near and r * columns + c < r2 * columns + c2:
                        expected.add((r * columns + c, r2 * columns + c2))
    assert {tuple(edge) for edge in edges} == expected and len(edges) == len(expected)
    directions = grid_direction_features((rows, columns), neighborhood)
    assert directions.shape == (len(edges), neighborhood // 2)
    steps = {(int(v // columns - u // columns), int(v % columns - u % columns)) for u, v in edges}
    for k in range(neighborhood // 2):
        chosen = edges[directions[:, k] == 1]
        assert (
            len({(v // columns - u // columns, v % columns - u % columns) for u, v in chosen}) == 1
        )
    assert len(steps) == neighborhood // 2


def test_edge_features_from_nodes_put_both_ends_side_by_side():
    nodes = np.arange(12.0).reshape(4, 3)
    edges = np.array([[0, 3], [2, 1]])
    features = edge_features_from_nodes(scipy.sparse.csr_matrix(nodes), edges)
    np.testing.assert_array_equal(features, np.hstack([nodes[[0, 2]], nodes[[3, 1]]]))


# ------------------------------------------------------------------------ validation
def test_bad_inputs_are_named():
    task = make_task("undirected")
    nodes = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"X\[0\]\[1\] \(edges\) must join nodes in \[0, 3\)"):
        task.check_data([(nodes, np.array([[0, 3]]))])
    with pytest.raises(ValueError, match="self-loop"):
        task.check_data([(nodes, np.array([[1, 1]]))])
    with pytest.raises(ValueError, match="n_features=2"):
        task.check_data([(np.zeros((3, 5)), np.array([[0, 1]]))])
    with pytest.raises(ValueError, match=r"Y\[0\] has 2 labels but X\[0\] has 3 nodes"):
        task.check_data([(nodes, np.array([[0, 1]]))], [[0, 1]])
    with pytest.raises(ValueError, match=r"X\[0\]\[2\] \(node weights\) must be non-negative"):
        task.check_data([(nodes, np.array([[0, 1]]), [1.0, -1.0, 1.0])])
    with pytest.raises(ValueError, match="must be a tuple"):
        task.check_data([nodes])
    edge_task = make_task("edge features")
    with pytest.raises(ValueError, match="one row per edge"):
        edge_task.check_data([(nodes, np.array([[0, 1]]), np.zeros((2, 3)))])
    with pytest.raises(ValueError, match="both symmetric and antisymmetric"):
        EdgeFeatureGraphTask(2, 2, 2, symmetric_edge_features=[1], antisymmetric_edge_features=[1])
    with pytest.raises(ValueError, match="inference_method must be one of"):
        GraphTask(2, 2, inference_method="magic")
