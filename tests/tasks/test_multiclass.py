"""MulticlassTask: the Crammer–Singer joint feature map and its vectorised oracles."""

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm import StructuredSVM
from tasks import MulticlassTask
from tests.tasks.compiled_checks import assert_optional_functions_agree


@pytest.fixture
def task():
    return MulticlassTask(n_classes=3, n_features=2)


def test_joint_feature_puts_x_in_the_block_of_its_class(task):
    phi = task.joint_feature(np.array([1.0, -2.0]), 2)
    assert phi.tolist() == [0, 0, 0, 0, 1, -2]
    assert phi.shape == (task.size_joint_feature,)


def test_weight_rows_are_class_scores(task):
    rng = np.random.default_rng(0)
    w, X = rng.normal(size=6), rng.normal(size=(20, 2))
    W = w.reshape(3, 2)
    np.testing.assert_array_equal(task.batch_argmax(X, w), np.argmax(X @ W.T, axis=1))


def test_batch_oracles_match_brute_force_enumeration(task):
    rng = np.random.default_rng(1)
    losses = rng.uniform(0.5, 3, size=(3, 3))
    np.fill_diagonal(losses, 0)
    task = MulticlassTask(3, 2, loss_matrix=losses)
    X, Y = rng.normal(size=(50, 2)), rng.integers(0, 3, size=50)
    for _ in range(5):
        w = rng.normal(size=6)
        enumerated = super(MulticlassTask, task)
        assert list(task.batch_argmax(X, w)) == [enumerated.argmax(x, w) for x in X]
        expected = [enumerated.loss_augmented_argmax(x, y, w) for x, y in zip(X, Y)]
        assert list(task.batch_loss_augmented_argmax(X, Y, w)) == expected


def test_batch_joint_feature_and_loss_match_single_examples(task):
    rng = np.random.default_rng(2)
    X, Y, Y_other = rng.normal(size=(7, 2)), rng.integers(0, 3, 7), rng.integers(0, 3, 7)
    np.testing.assert_array_equal(
        task.batch_joint_feature(X, Y).toarray(),
        [task.joint_feature(x, y) for x, y in zip(X, Y)],
    )
    np.testing.assert_array_equal(
        task.batch_loss(Y, Y_other), [task.loss(a, b) for a, b in zip(Y, Y_other)]
    )
    w = rng.normal(size=6)
    np.testing.assert_allclose(task.batch_score(X, Y, w), task.batch_joint_feature(X, Y) @ w)


def test_ties_go_to_the_smallest_class(task):
    assert task.argmax(np.array([1.0, 1.0]), np.zeros(6)) == 0
    assert task.loss_augmented_argmax(np.array([1.0, 1.0]), 0, np.zeros(6)) == 1


@pytest.mark.parametrize(
    ("X", "Y", "message"),
    [
        (np.zeros((3, 2)), [0, 1], "different lengths"),
        (np.zeros((2, 2)), [0, 3], r"outside \[0, 3\)"),
        (np.zeros((2, 2)), [0, -1], r"outside \[0, 3\)"),
        (np.array([[0.0, np.nan], [0, 0]]), [0, 1], "NaN or infinite"),
        (np.zeros((2, 5)), [0, 1], "expected n_features=2"),
        (np.zeros(2), [0], "2-D"),
        (np.zeros((0, 2)), [], "empty"),
        (np.zeros((2, 2)), [0.5, 1], "integer labels"),
    ],
)
def test_bad_data_is_rejected_with_a_message_naming_it(task, X, Y, message):
    with pytest.raises(ValueError, match=message):
        task.check_data(X, Y)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_classes": 1, "n_features": 2}, "n_classes"),
        ({"n_classes": 3, "n_features": 0}, "n_features"),
        ({"n_classes": 2, "n_features": 2, "loss_matrix": np.ones((2, 2))}, "zero diagonal"),
        ({"n_classes": 2, "n_features": 2, "loss_matrix": np.zeros((3, 3))}, "shape"),
        ({"n_classes": 2, "n_features": 2, "loss_matrix": -1 + np.eye(2)}, "non-negative"),
    ],
)
def test_bad_parameters_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MulticlassTask(**kwargs)


def sparse_forms(X):
    """A dense X as a CSR matrix and as a list of one-row CSR matrices."""
    csr = sp.csr_matrix(X)
    return {"csr matrix": csr, "list of csr rows": [csr[i] for i in range(csr.shape[0])]}


@pytest.mark.parametrize("form", ["csr matrix", "list of csr rows"])
def test_sparse_inputs_give_the_same_batches_as_dense_ones(form):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 4)) * (rng.random((30, 4)) < 0.5)
    Y, Y_other = rng.integers(0, 3, 30), rng.integers(0, 3, 30)
    task = MulticlassTask(3, 4)
    sparse_X = sparse_forms(X)[form]
    checked, _ = task.check_data(sparse_X, Y)
    assert sp.issparse(checked) and len(checked) == 30
    w = rng.normal(size=12)
    for inputs in (sparse_X, checked):
        np.testing.assert_array_equal(
            task.batch_joint_feature(inputs, Y_other).toarray(),
            task.batch_joint_feature(X, Y_other).toarray(),
        )
        np.testing.assert_array_equal(task.batch_argmax(inputs, w), task.batch_argmax(X, w))
        np.testing.assert_array_equal(
            task.batch_loss_augmented_argmax(inputs, Y, w),
            task.batch_loss_augmented_argmax(X, Y, w),
        )
        np.testing.assert_allclose(
            task.batch_score(inputs, Y, w), task.batch_score(X, Y, w), rtol=1e-13
        )
    for i in range(3):
        assert task.argmax(checked[i], w) == task.argmax(X[i], w)
        assert task.loss_augmented_argmax(checked[i], Y[i], w) == task.loss_augmented_argmax(
            X[i], Y[i], w
        )
        np.testing.assert_array_equal(
            task.joint_feature(checked[i], 1), task.joint_feature(X[i], 1)
        )


@pytest.mark.parametrize("solver", ["n-slack", "1-slack", "bcfw"])
@pytest.mark.parametrize("form", ["csr matrix", "list of csr rows"])
def test_a_structural_svm_fitted_on_sparse_inputs_matches_the_dense_fit(solver, form):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 5)) * (rng.random((60, 5)) < 0.6)
    Y = np.argmax(X[:, :3] + 0.3 * rng.normal(size=(60, 3)), axis=1)
    task = MulticlassTask(3, 5)
    options = {"C": 1.0, "solver": solver, "tol": 1e-6, "random_state": 0}
    if solver == "bcfw":  # one oracle call per example and step: a few passes are enough here
        options["max_iter"] = 5
    dense = StructuredSVM(task, **options).fit(X, Y)
    sparse = StructuredSVM(task, **options).fit(sparse_forms(X)[form], Y)
    assert sparse.n_iter_ == dense.n_iter_
    np.testing.assert_allclose(sparse.w_, dense.w_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(sparse.predict(sparse_forms(X)[form]), dense.predict(X))
    assert sparse.score(sparse_forms(X)[form], Y) == dense.score(X, Y)


def test_bad_sparse_inputs_are_rejected_with_a_message_naming_them(task):
    with pytest.raises(ValueError, match="expected n_features=2"):
        task.check_data(sp.csr_matrix(np.ones((2, 5))), [0, 1])
    with pytest.raises(ValueError, match="NaN or infinite"):
        task.check_data(sp.csr_matrix(np.array([[np.inf, 0.0], [0.0, 1.0]])), [0, 1])


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_the_compiled_labelling_score_and_add_features_agree_with_features(sparse):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 4)) * (rng.random((6, 4)) < 0.7)
    task = MulticlassTask(3, 4)
    X, Y = task.check_data(sp.csr_matrix(X) if sparse else X, rng.integers(0, 3, 6))
    oracle = task.compiled_oracle(X, Y)
    w = rng.normal(size=task.size_joint_feature)
    for i in range(len(Y)):
        for label in range(3):
            assert_optional_functions_agree(
                oracle, i, np.array([label]), w, task.size_joint_feature
            )
