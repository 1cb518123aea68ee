"""MultivariateTask's compiled oracle: the Python oracles' outputs, enumeration, the same fit."""

import numpy as np
import pytest

from tasks import MultivariateTask
from tasks._multivariate_oracle import best_table, table_loss
from tests.tasks.compiled_checks import (
    assert_same_one_slack_fit,
    compiled_features,
    compiled_loss,
    compiled_output,
)

LOSSES = [("f1", None), ("precision@k", 3), ("recall@k", 2), ("prbep", None), ("roc_area", None)]


def tied_data_sets(seed, sizes, d=3):
    """Data sets of small integer features and their labels, with integer weights: ties."""
    rng = np.random.default_rng(seed)
    X = [rng.integers(-2, 3, size=(n, d)).astype(float) for n in sizes]
    Y = [np.resize([1, -1], n)[rng.permutation(n)] for n in sizes]
    return X, Y, rng.integers(-2, 3, size=d).astype(float)


def full_table_search(positive_scores, negative_scores, code, k):
    """Algorithm 2 without skipping: the first (a, b) of the largest value, in Python."""
    n_pos, n_neg = len(positive_scores), len(negative_scores)
    pos_sums = np.concatenate([[0.0], np.cumsum(positive_scores)])
    neg_sums = np.concatenate([[0.0], np.cumsum(negative_scores)])
    best, best_table_found = -np.inf, (0, 0)
    for a in range(n_pos + 1):
        positive_part = 2.0 * pos_sums[a] - pos_sums[n_pos]
        for b in range(n_neg + 1):
            loss = table_loss(code, k, a, b, n_pos - a, n_neg - b)
            value = loss + positive_part + 2.0 * neg_sums[b] - neg_sums[n_neg]
            if value > best:
                best, best_table_found = value, (a, b)
    return best_table_found


def value(oracle, i, labels, w):
    return compiled_loss(oracle, i, labels) + compiled_features(oracle, i, labels, len(w)) @ w


@pytest.mark.parametrize(("loss", "k"), LOSSES)
@pytest.mark.parametrize("table", [False, True])
def test_decoding_gives_the_python_oracles_outputs_with_their_ties(loss, k, table):
    task = MultivariateTask(3, loss, k)
    X, Y, w = tied_data_sets(0, [2, 5, 9, 14])
    X, Y = task.check_data(X, Y)
    oracle = task.compiled_oracle(X, Y)
    for i, (x, y) in enumerate(zip(X, Y)):
        for scale in (0.0, 0.3, 1.0):
            augmented, _ = compiled_output(oracle, i, scale * w, True, table)
            np.testing.assert_array_equal(augmented, task.loss_augmented_argmax(x, y, scale * w))
            plain, _ = compiled_output(oracle, i, scale * w, False, table)
            np.testing.assert_array_equal(plain, task.argmax(x, scale * w))
            assert augmented.dtype == plain.dtype == np.int8


@pytest.mark.parametrize(("loss", "k"), LOSSES)
def test_the_decoded_outputs_reach_the_enumerated_maxima(loss, k):
    task = MultivariateTask(3, loss, k)
    X, Y, w = tied_data_sets(1, [1, 3, 4, 6])
    X, Y = task.check_data(X, Y)
    oracle = task.compiled_oracle(X, Y)
    for i, (x, y) in enumerate(zip(X, Y)):
        outputs = list(task.outputs(x))
        scores = [task.joint_feature(x, output) @ w for output in outputs]
        best = max(task.loss(y, output) + s for output, s in zip(outputs, scores))
        _, labels = compiled_output(oracle, i, w, True)
        assert value(oracle, i, labels, w) == pytest.approx(best, abs=1e-9)
        _, labels = compiled_output(oracle, i, w, False)
        phi = compiled_features(oracle, i, labels, 3)
        assert phi @ w == pytest.approx(max(scores), abs=1e-9)


def test_the_table_search_finds_the_full_searchs_table_ties_included():
    rng = np.random.default_rng(5)
    for trial in range(300):
        n_pos, n_neg = rng.integers(0, 9, size=2)
        if trial % 2:
            scores = [rng.integers(-3, 4, n).astype(float) * 0.5 for n in (n_pos, n_neg)]
        else:
            scores = [rng.normal(scale=rng.choice([0.01, 1.0]), size=n) for n in (n_pos, n_neg)]
        positive_scores, negative_scores = (-np.sort(-part) for part in scores)
        for code in range(4):
            k = int(rng.integers(1, 5))
            assert best_table(positive_scores, negative_scores, code, k) == full_table_search(
                positive_scores, negative_scores, code, k
            )


@pytest.mark.parametrize(("loss", "k"), LOSSES)
def test_features_and_loss_are_the_tasks(loss, k):
    rng = np.random.default_rng(2)
    task = MultivariateTask(4, loss, k)
    X = [rng.normal(size=(n, 4)) for n in (6, 40)]
    X, Y = task.check_data(X, [np.where(rng.random(len(x)) < 0.3, 1, -1) for x in X])
    oracle = task.compiled_oracle(X, Y)
    w = rng.normal(size=4)
    for i, (x, y) in enumerate(zip(X, Y)):
        for augmented in (True, False):
            output, labels = compiled_output(oracle, i, w, augmented)
            np.testing.assert_allclose(
                compiled_features(oracle, i, labels, 4), task.joint_feature(x, output), atol=1e-12
            )
            assert compiled_loss(oracle, i, labels) == task.loss(y, output)


@pytest.mark.parametrize(("loss", "k"), LOSSES)
def test_one_slack_on_the_compiled_pass_finds_the_python_paths_weights(loss, k):
    rng = np.random.default_rng(3)
    task = MultivariateTask(4, loss, k)
    rows = rng.normal(size=(40, 4))
    labels = np.where(rows[:, 0] + rng.normal(size=40) > 0.8, 1, -1)
    X, Y = task.check_data([rows], [labels])
    assert task.compiled_oracle(X, Y) is not None
    assert_same_one_slack_fit(task, X, Y, C=10.0, tol=1e-3)


def test_pair_orderings_of_as_many_pairs_keep_their_shapes():
    task = MultivariateTask(2, "roc_area")
    X = [(np.ones((2, 2)), np.zeros((3, 2))), (np.ones((3, 2)), np.zeros((2, 2)))]
    Y = [np.ones((2, 3), dtype=np.int8), np.ones((3, 2), dtype=np.int8)]
    oracle = task.compiled_oracle(X, Y)
    for y in Y:
        np.testing.assert_array_equal(oracle.output(oracle.labels(y)), y)


def test_a_subclass_that_changes_the_oracle_has_no_compiled_oracle():
    class Greedy(MultivariateTask):
        def loss_augmented_argmax(self, x, y_true, w):
            return self.argmax(x, w)

    task = Greedy(2)
    assert task.compiled_oracle(*task.check_data([np.ones((3, 2))], [[1, -1, 1]])) is None
