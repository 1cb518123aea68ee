"""The latent tasks' compiled oracles over completed outputs (y, h): the Python oracles'
outputs, enumeration, and the same fits of a round's solver and of the latent SVM."""

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm import LatentStructuredSVM
from tasks import LatentChainTask, LatentMulticlassTask
from tests.tasks.compiled_checks import (
    assert_same_one_slack_fit,
    compiled_features,
    compiled_loss,
    compiled_output,
    without_compiled_oracle,
)


def integer_draw(rng):
    """Draw integer arrays: the scores of integer weights tie often, and exactly."""
    return lambda shape: rng.integers(-1, 2, shape).astype(float)


def chain_problem(seed, lengths, integer=False):
    """A latent chain task (2 labels, 2 sub-states) with sequences and their completions."""
    rng = np.random.default_rng(seed)
    task = LatentChainTask(2, 2, 3)
    draw = integer_draw(rng) if integer else lambda shape: rng.normal(size=shape)
    X = [draw((length, 3)) for length in lengths]
    Y = [(rng.integers(0, 2, length), rng.integers(0, 2, length)) for length in lengths]
    return task, X, Y, draw(task.size_joint_feature)


def multiclass_problem(seed, n, integer=False, sparse=False):
    """A latent multiclass task (3 classes, 2 sub-classes) with inputs and their completions."""
    rng = np.random.default_rng(seed)
    task = LatentMulticlassTask(3, 2, 4)
    draw = integer_draw(rng) if integer else lambda shape: rng.normal(size=shape)
    X = draw((n, 4)) * (rng.random((n, 4)) < 0.6)
    Y = [(int(y), int(h)) for y, h in zip(rng.integers(0, 3, n), rng.integers(0, 2, n))]
    X, _ = task.check_data(sp.csr_matrix(X) if sparse else X)
    return task, X, Y, draw(task.size_joint_feature)


PROBLEMS = {
    "chain": lambda seed, integer=False: chain_problem(seed, [1, 2, 4, 5], integer),
    "multiclass": lambda seed, integer=False: multiclass_problem(seed, 12, integer),
    "multiclass, sparse": lambda seed, integer=False: multiclass_problem(seed, 12, integer, True),
}


def same_output(a, b):
    return all(np.array_equal(part, other) for part, other in zip(a, b, strict=True))


@pytest.mark.parametrize("kind", PROBLEMS)
@pytest.mark.parametrize("table", [False, True])
def test_decoding_gives_the_python_oracles_outputs_with_their_ties(kind, table):
    task, X, Y, w = PROBLEMS[kind](0, integer=True)
    oracle = task.compiled_oracle(X, Y)
    if table and oracle.batch_scores is None:
        pytest.skip("sparse inputs are scored one at a time")
    for i, y in enumerate(Y):
        for scale in (0.0, 1.0):
            augmented, _ = compiled_output(oracle, i, scale * w, True, table)
            assert same_output(augmented, task.loss_augmented_argmax(X[i], y, scale * w))
            plain, _ = compiled_output(oracle, i, scale * w, False, table)
            assert same_output(plain, task.argmax(X[i], scale * w))


@pytest.mark.parametrize("kind", PROBLEMS)
def test_the_decoded_outputs_reach_the_enumerated_maxima(kind):
    task, X, Y, w = PROBLEMS[kind](1)
    oracle = task.compiled_oracle(X, Y)
    for i, y in enumerate(Y):
        outputs = list(task.outputs(X[i]))
        scores = [task.joint_feature(X[i], output) @ w for output in outputs]
        _, labels = compiled_output(oracle, i, w, True)
        phi = compiled_features(oracle, i, labels, task.size_joint_feature)
        value = compiled_loss(oracle, i, labels) + phi @ w
        best = max(task.loss(y, output) + s for output, s in zip(outputs, scores))
        assert value == pytest.approx(best, abs=1e-9)
        _, labels = compiled_output(oracle, i, w, False)
        phi = compiled_features(oracle, i, labels, task.size_joint_feature)
        assert phi @ w == pytest.approx(max(scores), abs=1e-9)


@pytest.mark.parametrize("kind", PROBLEMS)
def test_features_and_loss_are_the_tasks_and_an_outputs_labels_go_both_ways(kind):
    task, X, Y, w = PROBLEMS[kind](2)
    oracle = task.compiled_oracle(X, Y)
    for i, y in enumerate(Y):
        for augmented in (True, False):
            output, labels = compiled_output(oracle, i, w, augmented)
            np.testing.assert_array_equal(labels, oracle.labels(output))
            np.testing.assert_allclose(
                compiled_features(oracle, i, labels, task.size_joint_feature),
                task.joint_feature(X[i], output),
                atol=1e-12,
            )
            assert compiled_loss(oracle, i, labels) == task.loss(y, output)
        truth = oracle.labels(y)
        np.testing.assert_allclose(
            compiled_features(oracle, i, truth, task.size_joint_feature),
            task.joint_feature(X[i], y),
            atol=1e-12,
        )
        assert compiled_loss(oracle, i, truth) == 0.0


@pytest.mark.parametrize("kind", PROBLEMS)
def test_one_slack_on_the_compiled_pass_finds_the_python_paths_weights(kind):
    task, X, Y, _ = PROBLEMS[kind](3)
    assert_same_one_slack_fit(task, X, Y, C=1.0)


def test_the_latent_svm_fits_the_same_on_the_compiled_passes():
    rng = np.random.default_rng(4)
    task = LatentMulticlassTask(2, 2, 3)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    fits = [
        LatentStructuredSVM(t, C=1.0, tol=1e-5, random_state=0).fit(X, y)
        for t in (task, without_compiled_oracle(task))
    ]
    np.testing.assert_allclose(fits[0].w_, fits[1].w_, rtol=0, atol=1e-8)
    assert fits[0].n_outer_ == fits[1].n_outer_


@pytest.mark.parametrize("task", [LatentChainTask(2, 2, 3), LatentMulticlassTask(2, 2, 3)])
def test_a_subclass_that_changes_the_loss_has_no_compiled_oracle(task):
    class Scaled(type(task)):
        def loss(self, y_true, y):
            return 2 * super().loss(y_true, y)

    scaled = Scaled.__new__(Scaled)
    scaled.__dict__.update(task.__dict__)
    assert scaled.compiled_oracle([np.ones((2, 3))], [([0, 1], [1, 0])]) is None
