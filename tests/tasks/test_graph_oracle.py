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


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("graph", [*FORESTS.values(), *CYCLIC.values()])
def test_decode_with_trws_is_the_python_oracles(kind, graph):
    rng = np.random.default_rng(6)
    task = make_task(kind, method="trws", inference_options={"max_iter": 30})
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


@pytest.mark.parametrize("method", ["ilp", "lp", "ad3", "brute"])
def test_offered_with_max_product_only_and_never_to_a_subclass_that_changes_the_loss(method):
    rng = np.random.default_rng(4)
    X, Y = training_set(make_task("undirected"), FORESTS["path"], rng)
    assert make_task("undirected", method=method).compiled_oracle(X, Y) is None
    assert CostlierMistakes(3, 2).compiled_oracle(X, Y) is None
    assert make_task("undirected").compiled_oracle(X, Y) is not None


def test_bad_inference_options_are_named_when_the_oracle_is_prepared():
    rng = np.random.default_rng(5)
    task = make_task("undirected", inference_options={"damping": 1.5})
    X, Y = training_set(task, CYCLIC["square"], rng)
    with pytest.raises(ValueError, match="damping"):
        task.compiled_oracle(X, Y)
