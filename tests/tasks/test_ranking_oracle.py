"""RankingTask's compiled oracle: the Python oracles' outputs, enumeration, and the same fit."""

import numpy as np
import pytest
import scipy.sparse as sp

from tasks import RankingTask
from tests.references import brute_force_ranking_oracle
from tests.tasks.compiled_checks import (
    assert_same_one_slack_fit,
    compiled_features,
    compiled_loss,
    compiled_output,
)


def integer_queries(seed, sizes, d=3):
    """Queries whose scores under integer weights are integers: ties in grades and scores."""
    rng = np.random.default_rng(seed)
    X = [rng.integers(-2, 3, size=(m, d)).astype(float) for m in sizes]
    Y = [rng.integers(0, 3, size=m).astype(float) for m in sizes]
    return X, Y, rng.integers(-1, 2, size=d).astype(float)


def normal_queries(seed, sizes, d=4, sparse=False):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(m, d)) * (rng.random((m, d)) < 0.7) for m in sizes]
    Y = [rng.integers(0, 4, size=m) + 0.5 * rng.integers(0, 2, size=m) for m in sizes]
    return [sp.csr_matrix(x) for x in X] if sparse else X, Y


@pytest.mark.parametrize("augmented", [True, False])
@pytest.mark.parametrize("table", [False, True])
def test_decoding_gives_the_python_oracles_outputs_with_their_ties(augmented, table):
    task = RankingTask(3)
    X, Y, w = integer_queries(0, [1, 2, 4, 6, 9])
    oracle = task.compiled_oracle(*task.check_data(X, Y))
    for i, (x, y) in enumerate(zip(X, Y)):
        for scale in (0.0, 0.5, 1.0, 3.0):
            output, _ = compiled_output(oracle, i, scale * w, augmented, table)
            expected = (
                task.loss_augmented_argmax(x, y, scale * w)
                if augmented
                else task.argmax(x, scale * w)
            )
            assert output.dtype == expected.dtype
            np.testing.assert_array_equal(output, expected)


def test_the_loss_augmented_output_reaches_the_enumerated_maximum():
    task = RankingTask(3)
    X, Y, w = integer_queries(1, [1, 3, 4, 5])
    oracle = task.compiled_oracle(*task.check_data(X, Y))
    for i, (x, y) in enumerate(zip(X, Y)):
        _, labels = compiled_output(oracle, i, w, True)
        value = compiled_loss(oracle, i, labels) + compiled_features(oracle, i, labels, 3) @ w
        assert value == pytest.approx(brute_force_ranking_oracle(x, y, w), abs=1e-9)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("augmented", [True, False])
def test_features_and_loss_are_the_tasks(sparse, augmented):
    task = RankingTask(4)
    X, Y = task.check_data(*normal_queries(2, [1, 5, 12, 30], sparse=sparse))
    oracle = task.compiled_oracle(X, Y)
    w = np.random.default_rng(3).normal(size=4)
    for i, (x, y) in enumerate(zip(X, Y)):
        output, labels = compiled_output(oracle, i, w, augmented)
        np.testing.assert_allclose(
            compiled_features(oracle, i, labels, 4), task.joint_feature(x, output), atol=1e-12
        )
        assert compiled_loss(oracle, i, labels) == task.loss(y, output)


@pytest.mark.parametrize("sparse", [False, True])
def test_one_slack_on_the_compiled_pass_finds_the_python_paths_weights(sparse):
    task = RankingTask(4)
    X, Y = task.check_data(*normal_queries(4, [3, 8, 15, 20], sparse=sparse))
    assert task.compiled_oracle(X, Y) is not None
    assert_same_one_slack_fit(task, X, Y, C=0.5)


def test_a_subclass_that_changes_the_loss_has_no_compiled_oracle():
    class Scaled(RankingTask):
        def loss(self, y_true, y):
            return 2 * super().loss(y_true, y)

    X, Y = normal_queries(5, [3])
    assert Scaled(4).compiled_oracle(X, Y) is None
