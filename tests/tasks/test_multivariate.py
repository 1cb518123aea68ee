"""MultivariateTask: Joachims' oracles against brute force, and its losses against scikit-learn."""

import numpy as np
import pytest
from sklearn.metrics import f1_score, roc_auc_score

from structsvm import StructuredSVM, check_task
from tasks import MultivariateTask

TABLE_LOSSES = [("f1", None), ("precision@k", 3), ("recall@k", 2), ("prbep", None)]
ALL_LOSSES = [*TABLE_LOSSES, ("roc_area", None)]


def _labels(rng, n):
    """Random ±1 labels with at least one of each."""
    y = rng.choice([-1, 1], size=n)
    y[:2] = [1, -1]
    return rng.permutation(y)


def _data_with_ties(rng, n, d=3):
    """Small integer features, so that scores of integer weights tie often."""
    return rng.integers(-2, 3, size=(n, d)).astype(float)


def _weights(rng, d=3):
    """Integer weights half of the time (exact ties), real ones otherwise."""
    if rng.random() < 0.5:
        return rng.integers(-2, 3, size=d).astype(float)
    return rng.normal(scale=rng.choice([0.01, 0.3, 3.0]), size=d)


def _assert_oracles_reach_brute_force(task, x, y_true, w):
    """Both oracles' values equal the maxima found by enumerating every output of x."""
    outputs = list(task.outputs(x))
    scores = [task.joint_feature(x, y) @ w for y in outputs]
    augmented = [task.loss(y_true, y) + score for y, score in zip(outputs, scores, strict=True)]
    y = task.loss_augmented_argmax(x, y_true, w)
    value = task.loss(y_true, y) + task.joint_feature(x, y) @ w
    assert value == pytest.approx(max(augmented), abs=1e-9)
    score = task.joint_feature(x, task.argmax(x, w)) @ w
    assert score == pytest.approx(max(scores), abs=1e-9)


@pytest.mark.parametrize(("loss", "k"), TABLE_LOSSES)
def test_contingency_oracles_equal_brute_force_over_all_labellings(loss, k):
    task = MultivariateTask(3, loss, k)
    rng = np.random.default_rng(0)
    for trial in range(40):
        n = 1 + trial % 10
        x, y_true = _data_with_ties(rng, n), rng.choice([-1, 1], size=n)
        _assert_oracles_reach_brute_force(task, x, y_true, _weights(rng))


def test_roc_area_oracles_equal_brute_force_over_all_pair_orderings():
    task = MultivariateTask(3, "roc_area")
    rng = np.random.default_rng(1)
    for trial in range(30):
        n_pos, n_neg = 1 + trial % 3, 1 + (trial // 3) % 4
        rows = _data_with_ties(rng, n_pos + n_neg)
        [x], [y_true] = task.check_data([rows], [np.repeat([1, -1], [n_pos, n_neg])])
        for w in (_weights(rng), np.zeros(3)):
            _assert_oracles_reach_brute_force(task, x, y_true, w)


def test_argmax_is_the_sign_of_the_scores():
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=(50, 4)), rng.normal(size=4)
    y = MultivariateTask(4).argmax(x, w)
    np.testing.assert_array_equal(y, np.where(x @ w > 0, 1, -1))


def test_f1_loss_equals_scikit_learn():
    task = MultivariateTask(1, "f1")
    rng = np.random.default_rng(4)
    for _ in range(100):
        n = rng.integers(1, 15)
        y_true, y = rng.choice([-1, 1], size=n), rng.choice([-1, 1], size=n)
        expected = 1.0 - f1_score(y_true, y, pos_label=1, zero_division=1.0)
        assert task.loss(y_true, y) == pytest.approx(expected)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_precision_and_recall_at_k_equal_their_definitions(k):
    precision, recall = MultivariateTask(1, "precision@k", k), MultivariateTask(1, "recall@k", k)
    rng = np.random.default_rng(5)
    for _ in range(50):
        scores = rng.normal(size=12)
        y_true = _labels(rng, 12)
        top_k = np.argsort(-scores)[:k]
        y = np.full(12, -1)
        y[top_k] = 1
        hits = np.count_nonzero(y_true[top_k] == 1)
        assert precision.loss(y_true, y) == pytest.approx(1 - hits / k)
        assert recall.loss(y_true, y) == pytest.approx(1 - hits / np.count_nonzero(y_true == 1))


def test_prbep_loss_is_one_minus_precision_at_the_number_of_positives():
    task = MultivariateTask(1, "prbep")
    rng = np.random.default_rng(6)
    for _ in range(50):
        y_true, scores = _labels(rng, 12), rng.normal(size=12)
        n_pos = np.count_nonzero(y_true == 1)
        top = np.argsort(-scores)[:n_pos]
        y = np.full(12, -1)
        y[top] = 1
        assert task.loss(y_true, y) == pytest.approx(1 - np.mean(y_true[top] == 1))


def test_roc_area_loss_equals_scikit_learn():
    task = MultivariateTask(2, "roc_area")
    rng = np.random.default_rng(7)
    for _ in range(50):
        rows, labels, w = rng.normal(size=(15, 2)), _labels(rng, 15), rng.normal(size=2)
        [x], [y_true] = task.check_data([rows], [labels])
        ranking = task.argmax(x, w)
        expected = 1.0 - roc_auc_score(labels, rows @ w)
        assert task.loss(y_true, ranking) == pytest.approx(expected)


def test_losses_outside_the_defined_labellings_are_zero():
    y_true = np.array([1, 1, -1, -1])
    assert MultivariateTask(1, "precision@k", 1).loss(y_true, np.array([1, -1, 1, -1])) == 0
    assert MultivariateTask(1, "prbep").loss(y_true, np.array([1, 1, 1, -1])) == 0


@pytest.mark.parametrize(("loss", "k"), ALL_LOSSES)
def test_check_task_passes(loss, k):
    rng = np.random.default_rng(8)
    sizes = [(4, 3), (3, 3)] if loss == "roc_area" else [(5, 4), (4, 6)]
    X = [_data_with_ties(rng, n_pos + n_neg) for n_pos, n_neg in sizes]
    Y = [rng.permutation(np.repeat([1, -1], size)) for size in sizes]
    report = check_task(MultivariateTask(3, loss, k), X, Y)
    assert report.ok, str(report)
    assert report.n_enumerated == len(X)


def test_roc_area_needs_labels_or_split_inputs():
    task = MultivariateTask(2, "roc_area")
    with pytest.raises(ValueError, match="pair"):
        task.check_data([np.zeros((3, 2))])
    rows, labels = np.arange(8.0).reshape(4, 2), np.array([1, -1, 1, -1])
    X, Y = task.check_data([rows], [labels])
    assert task.check_data(X)[0][0][0].shape == (2, 2)
    assert Y[0].shape == (2, 2) and np.all(Y[0] == 1)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"loss": "accuracy"}, "loss must be"),
        ({"loss": "precision@k"}, "needs k"),
        ({"loss": "recall@k", "k": 0}, "k must be"),
    ],
)
def test_invalid_parameters_are_rejected(arguments, message):
    with pytest.raises(ValueError, match=message):
        MultivariateTask(2, **arguments)


def test_labels_are_checked():
    task = MultivariateTask(2)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        task.check_data([np.zeros((3, 2))], [np.array([0, 1, 1])])
    with pytest.raises(ValueError, match="shape"):
        task.check_data([np.zeros((3, 2))], [np.array([1, 1])])


@pytest.mark.parametrize(("loss", "k"), ALL_LOSSES)
def test_a_structural_svm_learns_a_separable_problem(loss, k):
    rng = np.random.default_rng(9)
    labels = np.repeat([1, -1], [6, 14])
    rows = np.column_stack([labels * 2.0 + rng.normal(scale=0.3, size=20), np.ones(20)])
    model = StructuredSVM(MultivariateTask(2, loss, k or 6), C=100.0, solver="1-slack")
    model.fit([rows], [labels])
    assert model.converged_
    scores = rows @ model.w_
    assert scores[labels == 1].min() > scores[labels == -1].max()
