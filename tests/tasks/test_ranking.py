"""RankingTask: pair counting, the oracles against enumeration, and the pairwise SVM optimum."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm import StructuredSVM, check_task
from structsvm._utils.pair_counts import count_pairs, swap_counts
from tasks import RankingTask
from tests.references import (
    brute_force_ranking_oracle,
    pairwise_differences,
    preference_pairs,
    ranking_value,
    solve_pairwise_svm,
)


def _integer_query(rng, m, d=3):
    """A query whose scores under integer weights are integers: ties in grades and scores."""
    x = rng.integers(-2, 3, size=(m, d)).astype(float)
    grades = rng.integers(0, 3, size=m).astype(float)
    return x, grades, rng.integers(-1, 2, size=d).astype(float)


def _queries(seed, sizes, d=4, n_grades=3):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(m, d)) for m in sizes]
    Y = [rng.integers(0, n_grades, size=m) for m in sizes]
    return X, Y


def test_swap_counts_match_counting_pairs_one_by_one():
    rng = np.random.default_rng(0)
    for _ in range(200):
        m = int(rng.integers(1, 12))
        grades = rng.integers(0, 4, m).astype(float)
        upper, lower = rng.integers(0, 5, m).astype(float), rng.integers(0, 5, m).astype(float)
        as_upper, as_lower = swap_counts(grades, upper, lower)
        swapped = [(i, j) for i, j in preference_pairs(grades) if upper[i] <= lower[j]]
        np.testing.assert_array_equal(as_upper, np.bincount([i for i, _ in swapped], minlength=m))
        np.testing.assert_array_equal(as_lower, np.bincount([j for _, j in swapped], minlength=m))
        assert count_pairs(grades) == len(preference_pairs(grades))


def test_loss_augmented_oracle_matches_enumerating_every_sign_assignment():
    rng = np.random.default_rng(1)
    task = RankingTask(3)
    for _ in range(60):
        x, grades, w = _integer_query(rng, int(rng.integers(1, 6)))
        w = w * rng.choice([0.0, 0.5, 1.0, 3.0])
        output = task.loss_augmented_argmax(x, grades, w)
        value = task.loss(grades, output) + task.joint_feature(x, output) @ w
        assert value == pytest.approx(brute_force_ranking_oracle(x, grades, w), abs=1e-9)


def test_loss_augmented_output_swaps_the_pairs_with_margin_at_most_one():
    # Integer scores put many score differences exactly at the margin 1 (swapped, gain 0).
    rng = np.random.default_rng(2)
    task = RankingTask(3)
    for _ in range(50):
        x, grades, w = _integer_query(rng, int(rng.integers(2, 30)))
        scores = x @ w
        signs = [1 if scores[i] - scores[j] > 1 else -1 for i, j in preference_pairs(grades)]
        value, phi, loss = ranking_value(x, grades, w, signs)
        output = task.loss_augmented_argmax(x, grades, w)
        np.testing.assert_allclose(task.joint_feature(x, output), phi, atol=1e-12)
        assert task.loss(grades, output) == loss
        gaps = [scores[i] - scores[j] for i, j in preference_pairs(grades)]
        pair_value = sum(max(d / 2, 1 - d / 2) for d in gaps)
        assert value == pytest.approx(pair_value)


def test_slack_of_a_query_is_the_sum_of_its_pair_hinges():
    rng = np.random.default_rng(3)
    task = RankingTask(4)
    x, grades = rng.normal(size=(25, 4)), rng.integers(0, 4, 25)
    w = rng.normal(size=4)
    output = task.loss_augmented_argmax(x, grades, w)
    psi = task.joint_feature(x, grades) - task.joint_feature(x, output)
    slack = task.loss(grades, output) - w @ psi
    differences = pairwise_differences([x], [grades])
    assert slack == pytest.approx(np.maximum(0, 1 - differences @ w).sum())


def test_argmax_ranks_by_score_with_ties_by_position():
    task = RankingTask(1)
    x = np.array([[1.0], [3.0], [1.0], [2.0]])
    ranks = task.argmax(x, np.array([1.0]))
    np.testing.assert_array_equal(ranks, [1, 3, 0, 2])
    # A full ranking: every pair in order, so φ is ½ Σ over all pairs by rank.
    expected = sum(0.5 * (x[i] - x[j]) for i, j in preference_pairs(ranks))
    np.testing.assert_allclose(task.joint_feature(x, ranks), expected)


def test_oracles_beat_every_ordering_of_a_tiny_query_with_distinct_grades():
    # With distinct grades every permutation of the documents is a training output.
    rng = np.random.default_rng(8)
    task = RankingTask(2)
    for _ in range(20):
        m = int(rng.integers(1, 6))
        x, grades, w = rng.normal(size=(m, 2)), rng.permutation(m), rng.normal(size=2)
        orderings = [np.array(ranks) for ranks in itertools.permutations(range(m))]
        best_score = max(task.joint_feature(x, ranks) @ w for ranks in orderings)
        assert task.joint_feature(x, task.argmax(x, w)) @ w == pytest.approx(best_score)
        augmented = task.loss_augmented_argmax(x, grades, w)
        value = task.loss(grades, augmented) + task.joint_feature(x, augmented) @ w
        best_value = max(task.loss(grades, r) + task.joint_feature(x, r) @ w for r in orderings)
        assert value >= best_value - 1e-9


def test_true_output_has_zero_loss_and_the_pairs_joint_feature():
    rng = np.random.default_rng(4)
    task = RankingTask(2)
    x, grades = rng.normal(size=(9, 2)), rng.integers(0, 3, 9).astype(float)
    assert task.loss(grades, grades) == 0.0
    expected = sum(0.5 * (x[i] - x[j]) for i, j in preference_pairs(grades))
    np.testing.assert_allclose(task.joint_feature(x, grades), expected)
    assert task.max_loss(grades) == len(preference_pairs(grades))


def test_sparse_queries_give_the_dense_joint_features():
    X, Y = _queries(5, [7, 11])
    task = RankingTask(4)
    w = np.random.default_rng(5).normal(size=4)
    for x, y in zip(X, Y, strict=True):
        output = task.loss_augmented_argmax(sp.csr_matrix(x), y, w)
        np.testing.assert_allclose(output, task.loss_augmented_argmax(x, y, w))
        np.testing.assert_allclose(
            task.joint_feature(sp.csr_matrix(x), output), task.joint_feature(x, output)
        )


@pytest.mark.parametrize("sparse", [False, True])
def test_check_task_passes_on_queries_with_distinct_grades(sparse):
    # argmax does not see the grades: its full ranking is an output of the query's pairs only
    # when no two documents share a grade (see the RankingTask docstring).
    rng = np.random.default_rng(6)
    X = [rng.normal(size=(m, 4)) for m in (1, 2, 5, 9, 14)]
    Y = [0.5 * rng.permutation(len(x)) for x in X]
    if sparse:
        X = [sp.csr_matrix(x) for x in X]
    report = check_task(RankingTask(4), X, Y)
    assert report.ok, report


@pytest.mark.parametrize(
    ("X", "Y", "message"),
    [
        ([], None, "empty"),
        ([np.zeros((0, 2))], None, "empty query"),
        ([np.zeros((3, 3))], None, "n_features=2"),
        ([np.array([[np.nan, 0.0]])], None, "NaN"),
        ([np.zeros((3, 2))], [np.zeros(2)], "2 grades for 3 documents"),
        ([np.zeros((3, 2))], [np.zeros(3), np.zeros(3)], "different lengths"),
        ([np.zeros((2, 2))], [np.array([0.0, np.inf])], "NaN or infinite"),
    ],
)
def test_check_data_rejects_malformed_queries(X, Y, message):
    with pytest.raises(ValueError, match=message):
        RankingTask(2).check_data(X, Y)


@pytest.mark.parametrize("solver", ["n-slack", "1-slack"])
def test_structural_svm_optimum_is_the_pairwise_svm_optimum(solver):
    X, Y = _queries(7, [6, 9, 4, 12], d=3, n_grades=4)
    C = 0.3
    _, reference = solve_pairwise_svm(pairwise_differences(X, Y), C)
    svm = StructuredSVM(RankingTask(3), C=C, solver=solver, tol=1e-8).fit(X, Y)
    assert svm.primal_objective_ == pytest.approx(reference, rel=1e-5)
