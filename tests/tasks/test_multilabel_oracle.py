"""The multi-label task's compiled oracle: decoding against the Python oracles and enumeration,
φ and loss against the task's, the batched scores, and when it is offered."""

import itertools

import numpy as np
import pytest

from tasks import MultiLabelTask
from tests.references import multilabel_brute_force

K, D = 5, 3
FOREST = np.array([[0, 1], [3, 1], [2, 4]])
CYCLE = np.array([[0, 1], [1, 2], [2, 0], [3, 4]])
EXACT = [
    ("independent", None),
    ("tree", None),
    (FOREST, None),
    ("full", None),  # brute force, the default on graphs with cycles
    (CYCLE, "brute"),
]


def training_set(task, rng, n=6):
    X = rng.normal(size=(n, D))
    X[rng.random(X.shape) < 0.3] = 0.0
    return task.check_data(X, (rng.random((n, K)) < 0.4).astype(np.int64))


def compiled_decode(oracle, i, w, augmented):
    scores, decode = oracle.functions()[:2]
    return decode(oracle.data, i, w, scores(oracle.data, i, w), augmented)


@pytest.mark.parametrize(("edges", "method"), EXACT)
def test_exact_decode_is_the_python_oracle_and_the_enumerated_maximum(edges, method):
    rng = np.random.default_rng(0)
    task = MultiLabelTask(K, D, edges=edges, inference_method=method)
    X, Y = training_set(task, rng)
    oracle = task.compiled_oracle(X, Y)
    assert oracle.exact and oracle.n_examples == len(X)
    edge_list = task.edges_
    for w in [np.zeros(task.size_joint_feature), *rng.normal(size=(3, task.size_joint_feature))]:
        unary_weights, pairwise = w[: K * D].reshape(K, D), w[K * D :].reshape(-1, 2, 2)
        predicted = task.batch_argmax(X, w)
        violators = task.batch_loss_augmented_argmax(X, Y, w)
        for i, (x, y) in enumerate(zip(X, Y, strict=True)):
            labels = compiled_decode(oracle, i, w, False)
            np.testing.assert_array_equal(labels, predicted[i])
            best, _ = multilabel_brute_force(x, None, unary_weights, pairwise, edge_list)
            assert task.score(x, labels, w) == pytest.approx(best)
            labels = compiled_decode(oracle, i, w, True)
            np.testing.assert_array_equal(labels, violators[i])
            best, _ = multilabel_brute_force(x, y, unary_weights, pairwise, edge_list)
            assert task.score(x, labels, w) + task.loss(y, labels) == pytest.approx(best)


@pytest.mark.parametrize("schedule", ["parallel", "serial"])
def test_max_product_on_a_cyclic_label_graph_is_loopy_and_not_exact(schedule):
    rng = np.random.default_rng(1)
    task = MultiLabelTask(
        K, D, edges=CYCLE, inference_method="max-product", inference_options={"schedule": schedule}
    )
    X, Y = training_set(task, rng)
    oracle = task.compiled_oracle(X, Y)
    assert not oracle.exact
    for w in rng.normal(size=(3, task.size_joint_feature)):
        violators = task.batch_loss_augmented_argmax(X, Y, w)
        for i, x in enumerate(X):
            np.testing.assert_array_equal(compiled_decode(oracle, i, w, False), task.argmax(x, w))
            expected = getattr(violators[i], "labels", violators[i])
            np.testing.assert_array_equal(compiled_decode(oracle, i, w, True), expected)


@pytest.mark.parametrize(("edges", "method"), EXACT)
def test_features_loss_and_batched_scores_are_the_tasks(edges, method):
    rng = np.random.default_rng(2)
    task = MultiLabelTask(K, D, edges=edges, inference_method=method)
    X, Y = training_set(task, rng)
    oracle = task.compiled_oracle(X, Y)
    scores, _, features, loss = oracle.functions()[:4]
    w = rng.normal(size=task.size_joint_feature)
    table = oracle.batch_scores(oracle.data, w)
    for i, (x, y) in enumerate(zip(X, Y, strict=True)):
        np.testing.assert_allclose(
            table.scores[table.offsets[i] : table.offsets[i + 1]], scores(oracle.data, i, w)
        )
        for labels in itertools.islice(itertools.product((0, 1), repeat=K), 0, None, 5):
            labels = np.array(labels, dtype=np.int64)
            indices, values = features(oracle.data, i, labels)
            expected_indices, expected_values = task.sparse_joint_feature(x, labels)
            np.testing.assert_array_equal(indices, expected_indices)
            np.testing.assert_array_equal(values, expected_values)
            assert loss(oracle.data, i, labels) == task.loss(y, labels)


class CostlierMistakes(MultiLabelTask):
    def loss(self, y_true, y):
        return 2.0 * super().loss(y_true, y)


def test_offered_for_max_product_and_brute_force_within_its_limit_only():
    rng = np.random.default_rng(3)
    X, Y = training_set(MultiLabelTask(K, D), rng)
    for method in ("ilp", "lp", "ad3"):
        assert MultiLabelTask(K, D, "full", inference_method=method).compiled_oracle(X, Y) is None
    too_many = MultiLabelTask(K, D, "full", inference_options={"max_labellings": 2**K - 1})
    assert too_many.compiled_oracle(X, Y) is None
    assert CostlierMistakes(K, D).compiled_oracle(X, Y) is None
