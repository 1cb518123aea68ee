"""Multi-label classification: oracles against enumeration, the Chow–Liu tree against every
spanning tree, the independent model against k binary SVMs, and validation."""

import itertools

import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

import structsvm
from structsvm import StructuredSVM
from tasks import MultiLabelTask, chow_liu_tree, label_mutual_information
from tests.references import (
    binary_hinge_svm_objective,
    maximum_spanning_tree_weight,
    multilabel_brute_force,
    solve_full_primal,
)


def correlated_labels(rng, n, k, d):
    """Inputs and labels drawn from a random linear model plus a chain of copied labels."""
    X = rng.normal(size=(n, d))
    Y = (X @ rng.normal(size=(d, k)) + rng.normal(scale=0.5, size=(n, k)) > 0).astype(int)
    for j in range(1, k, 2):
        flip = rng.random(n) < 0.15
        Y[:, j] = np.where(flip, 1 - Y[:, j - 1], Y[:, j - 1])
    return X, Y


def random_tree(rng, k):
    return np.array([[int(rng.integers(i)), i] for i in range(1, k)]).reshape(-1, 2)


@pytest.mark.parametrize("edges", ["independent", "tree", "full"])
def test_check_task_passes(edges):
    rng = np.random.default_rng(0)
    X, Y = correlated_labels(rng, 12, 4, 3)
    task = MultiLabelTask(4, 3, edges=edges)
    report = structsvm.check_task(task, X, Y)
    assert report.ok, report


@pytest.mark.parametrize("seed", range(4))
def test_tree_oracles_equal_enumeration(seed):
    rng = np.random.default_rng(seed)
    k, d = 6, 3
    edges = random_tree(rng, k)
    task = MultiLabelTask(k, d, edges=edges)
    assert task.inference_method == "max-product"
    X, Y = correlated_labels(rng, 10, k, d)
    w = rng.normal(size=task.size_joint_feature)
    unary_weights = w[: k * d].reshape(k, d)
    pairwise = w[k * d :].reshape(-1, 2, 2)
    predicted = task.batch_argmax(X, w)
    violators = task.batch_loss_augmented_argmax(X, Y, w)
    for x, y, guess, violator in zip(X, Y, predicted, violators, strict=True):
        best, labels = multilabel_brute_force(x, None, unary_weights, pairwise, edges)
        np.testing.assert_array_equal(guess, labels)
        assert task.score(x, guess, w) == pytest.approx(best)
        best, _ = multilabel_brute_force(x, y, unary_weights, pairwise, edges)
        value = task.loss(y, violator) + task.score(x, violator, w)
        assert value == pytest.approx(best)


def test_full_graph_oracle_equals_enumeration():
    rng = np.random.default_rng(5)
    k, d = 5, 2
    task = MultiLabelTask(k, d, edges="full")
    assert task.inference_method == "brute"
    X, Y = correlated_labels(rng, 8, k, d)
    w = rng.normal(size=task.size_joint_feature)
    edges = list(itertools.combinations(range(k), 2))
    for x, y, violator in zip(X, Y, task.batch_loss_augmented_argmax(X, Y, w), strict=True):
        best, _ = multilabel_brute_force(
            x, y, w[: k * d].reshape(k, d), w[k * d :].reshape(-1, 2, 2), edges
        )
        assert task.loss(y, violator) + task.score(x, violator, w) == pytest.approx(best)


def test_joint_feature_layout():
    task = MultiLabelTask(3, 2, edges=np.array([[0, 2], [1, 2]]))
    phi = task.joint_feature(np.array([2.0, -1.0]), np.array([1, 0, 1]))
    np.testing.assert_array_equal(phi[:6], [2.0, -1.0, 0.0, 0.0, 2.0, -1.0])
    # edge (0, 2) in state (1, 1), edge (1, 2) in state (0, 1)
    np.testing.assert_array_equal(phi[6:], [0, 0, 0, 1, 0, 1, 0, 0])


@pytest.mark.parametrize("seed", range(3))
def test_mutual_information_and_chow_liu_tree_against_references(seed):
    rng = np.random.default_rng(seed)
    _, Y = correlated_labels(rng, 60, 5, 3)
    information = label_mutual_information(Y)
    for u, v in itertools.combinations(range(5), 2):
        assert information[u, v] == pytest.approx(mutual_info_score(Y[:, u], Y[:, v]), abs=1e-12)
    tree = chow_liu_tree(Y)
    assert tree.shape == (4, 2)
    assert np.all(tree[:, 0] < tree[:, 1])
    weight = sum(information[u, v] for u, v in tree)
    assert weight == pytest.approx(maximum_spanning_tree_weight(information), abs=1e-12)


def test_chow_liu_tree_spans_labels_without_information():
    Y = np.zeros((10, 4), dtype=int)
    Y[::2, 0] = 1
    Y[:, 1] = Y[:, 0]
    tree = chow_liu_tree(Y)  # labels 2 and 3 are constant: no information about anything
    assert len(tree) == 3
    assert [0, 1] in tree.tolist()
    assert is_connected(tree, 4)


def test_a_label_always_on_carries_no_information():
    Y = np.array([[1, 0, 1], [1, 1, 0], [1, 1, 1]])
    information = label_mutual_information(Y)
    assert np.all(np.isfinite(information))
    np.testing.assert_allclose(information[0], 0.0, atol=1e-15)
    assert len(chow_liu_tree(Y)) == 2


def is_connected(edges, n):
    reached, frontier = {0}, [0]
    while frontier:
        node = frontier.pop()
        for u, v in edges:
            for a, b in ((u, v), (v, u)):
                if a == node and b not in reached:
                    reached.add(b)
                    frontier.append(b)
    return len(reached) == n


def test_check_data_fits_the_tree_once():
    rng = np.random.default_rng(3)
    X, Y = correlated_labels(rng, 40, 4, 2)
    task = MultiLabelTask(4, 2, edges="tree")
    with pytest.raises(ValueError, match="fit_graph"):
        task.joint_feature(X[0], Y[0])
    task.check_data(X, Y)
    np.testing.assert_array_equal(task.edges_, chow_liu_tree(Y))
    fitted = task.edges_
    task.check_data(X[:5], 1 - Y[:5])
    assert task.edges_ is fitted


def test_independent_labels_are_k_binary_svms():
    rng = np.random.default_rng(7)
    k, d, C = 3, 2, 0.5
    X, Y = correlated_labels(rng, 15, k, d)
    svm = StructuredSVM(MultiLabelTask(k, d), C=C, solver="1-slack", tol=1e-7).fit(X, Y)
    separate = sum(binary_hinge_svm_objective(X, 2.0 * Y[:, j] - 1.0, C) for j in range(k))
    assert svm.primal_objective_ == pytest.approx(separate, rel=1e-5)


def test_tree_model_reaches_the_full_qp_optimum():
    rng = np.random.default_rng(8)
    X, Y = correlated_labels(rng, 8, 3, 2)
    task = MultiLabelTask(3, 2, edges="tree")
    X, Y = task.check_data(X, Y)
    _, _, objective = solve_full_primal(task, X, Y, C=1.0)
    svm = StructuredSVM(task, C=1.0, solver="n-slack", tol=1e-7).fit(X, Y)
    assert svm.primal_objective_ == pytest.approx(objective, rel=1e-5)


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"edges": "chain"}, "edges must be one of"),
        ({"edges": np.array([[0, 3]])}, r"edges must join labels in \[0, 3\)"),
        ({"edges": np.array([[1, 1]])}, "self-loop"),
        ({"edges": np.array([0.0, 1.0])}, "shape"),
        ({"inference_method": "gibbs"}, "inference_method"),
    ],
)
def test_bad_parameters_are_named(arguments, match):
    with pytest.raises(ValueError, match=match):
        MultiLabelTask(3, 2, **arguments)


def test_bad_labels_are_named():
    task = MultiLabelTask(3, 2)
    X = np.zeros((2, 2))
    with pytest.raises(ValueError, match="n_labels=3 columns"):
        task.check_data(X, np.zeros((2, 4), dtype=int))
    with pytest.raises(ValueError, match=r"labels outside \[0, 2\)"):
        task.check_data(X, np.full((2, 3), 2))
    with pytest.raises(ValueError, match="X"):
        task.check_data(np.zeros((2, 5)), np.zeros((2, 3), dtype=int))


def test_relaxed_lp_outputs_bound_the_integral_maximum():
    rng = np.random.default_rng(9)
    k, d = 5, 2
    task = MultiLabelTask(k, d, edges="full", inference_method="lp", relaxed=True)
    X, Y = correlated_labels(rng, 10, k, d)
    w = rng.normal(scale=3.0, size=task.size_joint_feature)
    edges = task.edges_
    for x, y, output in zip(X, Y, task.batch_loss_augmented_argmax(X, Y, w), strict=True):
        best, _ = multilabel_brute_force(
            x, y, w[: k * d].reshape(k, d), w[k * d :].reshape(-1, 2, 2), edges
        )
        value = task.loss(y, output) + task.score(x, output, w)
        assert value >= best - 1e-7
        if task.is_certified(output):
            assert value == pytest.approx(best)


def test_default_inference_of_a_large_cyclic_graph_is_ad3():
    assert MultiLabelTask(13, 2, edges="full").inference_method == "ad3"
    assert MultiLabelTask(
        13, 2, edges=random_tree(np.random.default_rng(0), 13)
    ).inference_method == ("max-product")
