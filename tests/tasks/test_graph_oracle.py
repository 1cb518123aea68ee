"""The graph tasks' compiled oracle: decoding against the Python oracles and enumeration, φ and
loss against the task's, the 1-slack pass it makes, and when it is offered."""

import warnings

import numpy as np
import pytest
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning

from structsvm import StructuredSVM
from structsvm.solvers._oracle import PassSummary, loss_augmented_pass
from structsvm.solvers._summed_pass import CompiledSummedPasses
from tasks import EdgeFeatureGraphTask, GraphTask
from tests.references import graph_brute_force

FORESTS = {
    "path": (4, np.array([[0, 1], [1, 2], [3, 2]])),
    "two trees": (5, np.array([[1, 0], [0, 2], [4, 3]])),
    "no edges": (3, np.zeros((0, 2), dtype=np.int64)),
}
CYCLIC = {
    "triangle and tail": (4, np.array([[0, 1], [1, 2], [2, 0], [2, 3]])),
    "square": (4, np.array([[0, 1], [1, 3], [3, 2], [2, 0]])),
}
KINDS = ["undirected", "directed", "edge features"]


def make_task(kind, method="max-product", **options):
    class_weights = np.array([1.0, 2.5, 0.5])
    if kind == "edge features":
        return EdgeFeatureGraphTask(
            3,
            2,
            3,
            symmetric_edge_features=[0],
            antisymmetric_edge_features=[2],
            inference_method=method,
            class_weights=class_weights,
            **options,
        )
    return GraphTask(
        3,
        2,
        directed=kind == "directed",
        inference_method=method,
        class_weights=class_weights,
        **options,
    )


def training_set(task, graph, rng, n_graphs=3, sparse=False):
    """Return checked (X, Y) of graphs of one shape, with node weights and random parts."""
    n_nodes, edges = graph
    X, Y = [], []
    for _ in range(n_graphs):
        nodes = rng.normal(size=(n_nodes, task.n_features))
        nodes[rng.random(nodes.shape) < 0.3] = 0.0
        parts = [scipy.sparse.csr_matrix(nodes) if sparse else nodes, edges]
        if isinstance(task, EdgeFeatureGraphTask):
            parts.append(rng.normal(size=(len(edges), task.n_edge_features)))
        parts.append(rng.uniform(0.2, 2.0, n_nodes))
        X.append(tuple(parts))
        Y.append(rng.integers(0, task.n_states, n_nodes))
    return task.check_data(X, Y)


def compiled_decode(oracle, i, w, augmented):
    scores, decode = oracle.functions()[:2]
    return decode(oracle.data, i, w, scores(oracle.data, i, w), augmented)


def python_labels(output):
    """The labelling of a Python oracle's output (the rounding of a relaxed one)."""
    return np.asarray(getattr(output, "labels", output))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("graph", list(FORESTS))
@pytest.mark.parametrize("sparse", [False, True])
def test_decode_on_forests_is_the_python_oracle_and_the_enumerated_maximum(kind, graph, sparse):
    rng = np.random.default_rng(0)
    task = make_task(kind)
    X, Y = training_set(task, FORESTS[graph], rng, sparse=sparse)
    oracle = task.compiled_oracle(X, Y)
    assert oracle.exact and oracle.n_examples == len(X)
    for _ in range(3):
        w = rng.normal(size=task.size_joint_feature)
        for i, (x, y) in enumerate(zip(X, Y, strict=True)):
            best, best_augmented = graph_brute_force(
                task, x, y.labels, w, y.node_weights, task.class_weights
            )
            labels = compiled_decode(oracle, i, w, False)
            np.testing.assert_array_equal(labels, task.argmax(x, w))
            assert task.score(x, labels, w) == pytest.approx(best)
            labels = compiled_decode(oracle, i, w, True)
            np.testing.assert_array_equal(labels, task.loss_augmented_argmax(x, y, w))
            value = task.score(x, labels, w) + task.loss(y, labels)
            assert value == pytest.approx(best_augmented)


LOOPY_OPTIONS = [{"max_iter": 20, "damping": 0.3}, {"schedule": "serial", "damping": 0.0}]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("graph", list(CYCLIC))
@pytest.mark.parametrize("options", LOOPY_OPTIONS)
def test_decode_on_cycles_is_loopy_max_product_and_not_exact(kind, graph, options):
    rng = np.random.default_rng(1)
    task = make_task(kind, inference_options=options)
    X, Y = training_set(task, CYCLIC[graph], rng)
    oracle = task.compiled_oracle(X, Y)
    assert not oracle.exact
    for _ in range(3):
        w = rng.normal(size=task.size_joint_feature)
        for i, (x, y) in enumerate(zip(X, Y, strict=True)):
            np.testing.assert_array_equal(compiled_decode(oracle, i, w, False), task.argmax(x, w))
            np.testing.assert_array_equal(
                compiled_decode(oracle, i, w, True),
                python_labels(task.loss_augmented_argmax(x, y, w)),
            )


@pytest.mark.parametrize("method", ["trws", "ad3"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("graph", [*FORESTS.values(), *CYCLIC.values()])
def test_decode_with_trws_or_ad3_afresh_is_the_python_oracles(kind, graph, method):
    rng = np.random.default_rng(6)
    options = {"max_iter": 30}
    task = make_task(kind, method=method, inference_options=options, warm_calls=False)
    X, Y = training_set(task, graph, rng)
    oracle = task.compiled_oracle(X, Y)
    for _ in range(3):
        w = rng.normal(size=task.size_joint_feature)
        for i, (x, y) in enumerate(zip(X, Y, strict=True)):
            np.testing.assert_array_equal(compiled_decode(oracle, i, w, False), task.argmax(x, w))
            np.testing.assert_array_equal(
                compiled_decode(oracle, i, w, True),
                python_labels(task.loss_augmented_argmax(x, y, w)),
            )


def drifting_weights(task, rng, n_steps=4):
    """Weights that drift by small random steps, as a learner's do from one call to the next."""
    w = rng.normal(size=task.size_joint_feature)
    return [w + 0.1 * k * rng.normal(size=w.size) for k in range(n_steps)]


@pytest.mark.parametrize("method", ["trws", "ad3"])
@pytest.mark.parametrize("graph", list(CYCLIC))
def test_warm_calls_depend_on_their_graphs_own_calls_and_find_the_enumerated_maximum(
    graph, method
):
    """Each graph starts from where its own previous call ended: decoding the graphs in
    another order gives the same labellings; on these small graphs every call still finds
    the enumerated maximum of loss plus score."""
    rng = np.random.default_rng(7)
    task = make_task("edge features", method=method)
    X, Y = training_set(task, CYCLIC[graph], rng)
    forward, backward = task.compiled_oracle(X, Y), task.compiled_oracle(X, Y)
    for w in drifting_weights(task, rng):
        found = [compiled_decode(forward, i, w, True) for i in range(len(X))]
        found_backward = [compiled_decode(backward, i, w, True) for i in reversed(range(len(X)))]
        for i, (x, y) in enumerate(zip(X, Y, strict=True)):
            np.testing.assert_array_equal(found[i], found_backward[len(X) - 1 - i])
            best_augmented = graph_brute_force(
                task, x, y.labels, w, y.node_weights, task.class_weights
            )[1]
            value = task.score(x, found[i], w) + task.loss(y, found[i])
            assert value == pytest.approx(best_augmented)


@pytest.mark.parametrize("method", ["trws", "ad3"])
def test_a_fit_with_warm_calls_reaches_the_objective_of_one_without(method):
    """Both fits' primal and dual objectives enclose the same optimum: neither interval
    [dual, primal] lies above the other."""
    rng = np.random.default_rng(8)
    X, Y = [], []
    for graph in CYCLIC.values():
        X_part, Y_part = training_set(make_task("edge features"), graph, rng, n_graphs=3)
        X += X_part
        Y += Y_part
    last = {}
    for warm_calls in (True, False):
        task = make_task("edge features", method=method, warm_calls=warm_calls)
        model = StructuredSVM(task, solver="n-slack", tol=1e-4, max_iter=50)
        model.fit(X, Y)
        last[warm_calls] = model.history_[-1]
    assert last[True]["dual"] <= last[False]["primal"] + 1e-6
    assert last[False]["dual"] <= last[True]["primal"] + 1e-6
    assert last[True]["gap"] <= 1e-3 * abs(last[True]["primal"])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("graph", [*FORESTS.values(), *CYCLIC.values()])
@pytest.mark.parametrize("sparse", [False, True])
def test_features_and_loss_are_the_tasks(kind, graph, sparse):
    rng = np.random.default_rng(2)
    task = make_task(kind)
    X, Y = training_set(task, graph, rng, sparse=sparse)
    oracle = task.compiled_oracle(X, Y)
    features, loss = oracle.functions()[2:4]
    for i, (x, y) in enumerate(zip(X, Y, strict=True)):
        for labels in [y.labels, *rng.integers(0, task.n_states, (4, len(y.labels)))]:
            indices, values = features(oracle.data, i, labels)
            expected_indices, expected_values = task.sparse_joint_feature(x, labels)
            np.testing.assert_array_equal(indices, expected_indices)
            np.testing.assert_allclose(values, expected_values, rtol=1e-12, atol=1e-12)
            assert loss(oracle.data, i, labels) == pytest.approx(task.loss(y, labels))


@pytest.mark.parametrize(("graphs", "exact"), [(FORESTS, True), (CYCLIC, False)])
def test_one_slack_pass_sums_as_the_python_pass_and_is_certified_only_when_exact(graphs, exact):
    rng = np.random.default_rng(3)
    task = make_task("edge features")
    X, Y = [], []
    for graph in graphs.values():
        X_part, Y_part = training_set(task, graph, rng, n_graphs=2)
        X += X_part
        Y += Y_part
    passes = CompiledSummedPasses.prepare(task, X, Y, compiled=True)
    w = rng.normal(size=task.size_joint_feature)
    summary = passes.oracle_pass(w)
    expected = PassSummary.of(loss_augmented_pass(task, X, Y, passes.true_features, w))
    np.testing.assert_allclose(summary.difference_total, expected.difference_total, atol=1e-9)
    assert summary.loss_total == pytest.approx(expected.loss_total)
    assert summary.slack_total == pytest.approx(expected.slack_total)
    assert summary.certified is exact


@pytest.mark.parametrize("solver", ["bcfw", "n-slack"])
@pytest.mark.parametrize(("graphs", "exact"), [(FORESTS, True), (CYCLIC, False)])
def test_every_solver_certifies_its_gaps_only_when_the_compiled_decoding_is_exact(
    solver, graphs, exact
):
    rng = np.random.default_rng(4)
    task = make_task("edge features")
    X, Y = [], []
    for graph in graphs.values():
        X_part, Y_part = training_set(task, graph, rng, n_graphs=2)
        X += X_part
        Y += Y_part
    model = StructuredSVM(task, solver=solver, max_iter=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, Y)
    assert all(record["certified"] is exact for record in model.history_)


class CostlierMistakes(GraphTask):
    def loss(self, y_true, y):
        return 2.0 * super().loss(y_true, y)


@pytest.mark.parametrize("method", ["ilp", "lp", "brute"])
def test_offered_to_message_passing_and_ad3_only_and_never_to_a_subclass_that_changes_the_loss(
    method,
):
    rng = np.random.default_rng(4)
    X, Y = training_set(make_task("undirected"), FORESTS["path"], rng)
    assert make_task("undirected", method=method).compiled_oracle(X, Y) is None
    assert CostlierMistakes(3, 2).compiled_oracle(X, Y) is None
    assert make_task("undirected").compiled_oracle(X, Y) is not None
    assert make_task("undirected", method="ad3").compiled_oracle(X, Y) is not None


def test_not_offered_to_relaxed_ad3_whose_fractional_outputs_are_not_labels():
    rng = np.random.default_rng(4)
    X, Y = training_set(make_task("undirected"), FORESTS["path"], rng)
    assert make_task("undirected", method="ad3", relaxed=True).compiled_oracle(X, Y) is None


def test_bad_inference_options_are_named_when_the_oracle_is_prepared():
    rng = np.random.default_rng(5)
    task = make_task("undirected", inference_options={"damping": 1.5})
    X, Y = training_set(task, CYCLIC["square"], rng)
    with pytest.raises(ValueError, match="damping"):
        task.compiled_oracle(X, Y)
