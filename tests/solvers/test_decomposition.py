"""The block decomposition of the n-slack QP: gap split, blocks, and the optimum it reaches."""

import numpy as np
import pytest

from structsvm.solvers import n_slack
from structsvm.solvers._decomposition import example_blocks, example_gaps
from structsvm.solvers._objective import SlackPenalty
from structsvm.solvers._oracle import loss_augmented_pass
from structsvm.solvers._working_set import FeatureSpace, GramWorkingSet, WorkingSet
from tests.references import solve_full_primal


def run_to_convergence(task, X, Y, C, **options):
    *_, state = n_slack(task, X, Y, C, tol=1e-8, **options)
    return state


@pytest.mark.parametrize("max_block_constraints", [1, 4])
def test_small_blocks_reach_the_optimum_of_the_full_qp(full_qp_problem, max_block_constraints):
    task, X, Y = full_qp_problem
    w_star, _, objective_star = solve_full_primal(task, X, Y, 1.0)

    state = run_to_convergence(task, X, Y, 1.0, max_block_constraints=max_block_constraints)

    assert state.converged
    last = state.history[-1]
    np.testing.assert_allclose(last["primal"], objective_star, rtol=1e-6)
    np.testing.assert_allclose(state.w, w_star, atol=1e-4 * max(1.0, np.abs(w_star).max()))
    assert last["dual"] <= objective_star * (1 + 1e-9)


def test_blocks_and_a_single_full_solve_agree(multiclass_problem):
    task, X, Y = multiclass_problem(seed=3)
    blocks = run_to_convergence(task, X, Y, 0.5, max_block_constraints=2)
    whole = run_to_convergence(task, X, Y, 0.5, max_block_constraints=10**6)
    np.testing.assert_allclose(blocks.history[-1]["primal"], whole.history[-1]["primal"], 1e-7)
    np.testing.assert_allclose(blocks.w, whole.w, atol=1e-4)


def test_small_blocks_never_lower_the_dual_beyond_the_qp_accuracy(multiclass_problem):
    task, X, Y = multiclass_problem(seed=1)
    state = run_to_convergence(task, X, Y, 10.0, max_block_constraints=3)
    duals = [record["dual"] for record in state.history]
    assert np.all(np.diff(duals) >= -1e-8 * np.abs(duals[1:]))  # interior-point accuracy


def test_example_gaps_split_the_duality_gap(multiclass_problem):
    task, X, Y = multiclass_problem()
    C = 1.0
    *_, state = n_slack(task, X, Y, C, max_iter=2, max_block_constraints=5)
    working_set = state.working_set
    w = working_set.weights()
    oracle = loss_augmented_pass(task, X, Y, task.batch_joint_feature(X, Y), w)

    gaps = example_gaps(working_set, w, oracle.slacks, C)

    assert np.all(gaps >= -1e-12)
    gap = SlackPenalty().primal(w @ w, oracle.slacks, C) - working_set.dual_objective(C)
    assert gaps.sum() == pytest.approx(gap, rel=1e-10)
    assert gap > 1e-3


def test_example_blocks_respect_the_bound_and_keep_the_order():
    groups = np.array([2, 0, 2, 1, 2, 3, 1, 0])
    examples = np.array([1, 2, 4, 0, 3])

    blocks = list(example_blocks(groups, examples, max_constraints=3))

    sizes = [len(rows) for rows in blocks]
    assert sizes == [2, 3, 3]  # example 2 has three constraints; example 4 has none
    assert [list(np.unique(groups[rows])) for rows in blocks] == [[1], [2], [0, 3]]
    assert sorted(np.concatenate(blocks)) == [0, 1, 2, 3, 4, 5, 6, 7]


def test_gram_of_a_subset_is_the_same_with_or_without_the_cache():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(6, 4))
    plain, cached = WorkingSet(FeatureSpace(4)), GramWorkingSet(FeatureSpace(4))
    for working_set in (plain, cached):
        working_set.add(vectors[:4], np.ones(4), np.arange(4), [(k, k) for k in range(4)])
        working_set.add(vectors[4:], np.ones(2), np.arange(2), [(k, 9) for k in range(2)])
        working_set.keep(np.array([True, False, True, True, True, False]))
    rows = np.array([3, 0, 2])
    np.testing.assert_allclose(plain.gram_of(rows), cached.gram_of(rows))
    kept = vectors[[0, 2, 3, 4]][rows]
    np.testing.assert_allclose(plain.gram_of(rows), kept @ kept.T)
