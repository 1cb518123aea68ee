"""The active-set solution of the working-set QP: exact when it answers, None otherwise."""

import numpy as np
import pytest

import structsvm.qp._active_set as active_set
from structsvm.qp import solve_simplex_dual
from structsvm.qp._active_set import solve_on_active_set
from tests.references import assert_feasible, brute_force_dual, dual_objective


@pytest.fixture
def scaled_problem(random_problem):
    """Factory ``(seed, m, p, n_groups) -> (vectors, offsets, group_index, n_groups)``.

    A random working set scaled as the QP module scales it: diag(G) <= 1, max offset 1.
    """

    def make(seed, m, p, n_groups):
        vectors, offsets, groups = random_problem(seed, m, p, n_groups)
        vectors /= np.sqrt((vectors**2).sum(axis=1).max())
        offsets /= offsets.max()
        _, group_index = np.unique(groups, return_inverse=True)
        return vectors, offsets, group_index.reshape(-1), int(group_index.max()) + 1

    return make


def solve_from(alpha, vectors, offsets, group_index, n_groups, C):
    return solve_on_active_set(vectors @ vectors.T, offsets, group_index, n_groups, C, alpha)


def assert_kkt(alpha, vectors, offsets, group_index, n_groups, C, tol=1e-8):
    """Check the KKT conditions of the QP directly: they certify that α is optimal."""
    assert_feasible(alpha, group_index, C)
    gradient = offsets - vectors @ (vectors.T @ alpha)
    support = alpha > 1e-12
    for g in range(n_groups):
        members = group_index == g
        # The multiplier of the group's bound is the gradient on its support (0 if none).
        multiplier = gradient[members & support].max(initial=0.0)
        assert multiplier >= -tol
        np.testing.assert_allclose(gradient[members & support], multiplier, atol=tol)
        assert gradient[members].max() <= multiplier + tol
        if multiplier > tol:
            assert alpha[members].sum() == pytest.approx(C, rel=1e-9)


@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
@pytest.mark.parametrize(("m", "p", "n_groups"), [(40, 30, 1), (60, 20, 12), (30, 50, 30)])
def test_adding_constraints_to_a_solved_working_set_is_solved_exactly(
    C, m, p, n_groups, scaled_problem
):
    """The cutting-plane situation: the optimum of all but the last constraints, plus zeros."""
    vectors, offsets, group_index, n_groups = scaled_problem(m + p, m, p, n_groups)
    known = m - 3
    earlier = solve_simplex_dual(
        vectors[:known] @ vectors[:known].T,
        offsets[:known],
        group_index[:known],
        C,
        method="generic",
    )
    start = np.concatenate([earlier.alpha, np.zeros(3)])
    reference = solve_simplex_dual(
        vectors @ vectors.T, offsets, group_index, C, method="generic", tol=1e-12
    )

    alpha = solve_from(start, vectors, offsets, group_index, n_groups, C)

    assert alpha is not None
    assert_kkt(alpha, vectors, offsets, group_index, n_groups, C)
    np.testing.assert_allclose(
        dual_objective(alpha, vectors, offsets), reference.objective, rtol=1e-9
    )


def test_an_answer_from_any_start_is_the_brute_force_optimum(scaled_problem):
    """From random starts on problems with dependent vectors it may give up, but never errs."""
    answered = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        m, p = 5, int(rng.integers(2, 7))
        vectors, offsets, group_index, n_groups = scaled_problem(seed, m, p, 2)
        C = float(rng.choice([0.1, 1.0, 10.0]))
        start = rng.uniform(size=m) * C / m

        alpha = solve_from(start, vectors, offsets, group_index, n_groups, C)

        if alpha is not None:
            answered += 1
            assert dual_objective(alpha, vectors, offsets) == pytest.approx(
                brute_force_dual(vectors, offsets, group_index, C), rel=1e-9, abs=1e-12
            )
    assert answered >= 10


def test_it_gives_up_when_the_corrections_run_out(monkeypatch, scaled_problem):
    vectors, offsets, group_index, n_groups = scaled_problem(3, 60, 20, 12)
    start = np.zeros(60)
    monkeypatch.setattr(active_set, "MAX_ROUNDS", 1)

    assert solve_from(start, vectors, offsets, group_index, n_groups, 1.0) is None


@pytest.mark.parametrize("seed", range(4))
def test_duplicated_constraints_sharing_the_optimum_are_solved(seed, scaled_problem):
    """Two copies of a support constraint, each with half its α, make the face singular."""
    vectors, offsets, group_index, n_groups = scaled_problem(seed, 20, 8, 1)
    optimum = solve_simplex_dual(vectors @ vectors.T, offsets, group_index, 1.0, method="generic")
    copied = np.flatnonzero(optimum.alpha > 1e-6)[:2]
    vectors = np.vstack([vectors, vectors[copied]])
    offsets = np.concatenate([offsets, offsets[copied]])
    group_index = np.concatenate([group_index, group_index[copied]])
    start = np.concatenate([optimum.alpha, optimum.alpha[copied] / 2])
    start[copied] /= 2

    alpha = solve_from(start, vectors, offsets, group_index, n_groups, 1.0)

    assert alpha is not None
    assert_kkt(alpha, vectors, offsets, group_index, n_groups, 1.0)
    np.testing.assert_allclose(
        dual_objective(alpha, vectors, offsets), optimum.objective, rtol=1e-8
    )


def test_warm_started_working_set_qps_use_it_and_agree_with_cvxopt(random_problem):
    vectors, offsets, groups = random_problem(11, 50, 30, 10)
    gram = vectors @ vectors.T
    earlier = solve_simplex_dual(gram[:-2, :-2], offsets[:-2], groups[:-2], 1.0)
    reference = solve_simplex_dual(gram, offsets, groups, 1.0, method="generic")

    result = solve_simplex_dual(
        gram, offsets, groups, 1.0, initial_alpha=np.concatenate([earlier.alpha, [0.0, 0.0]])
    )

    assert result.method == "active-set"
    assert result.qp is None
    assert_feasible(result.alpha, groups, 1.0)
    np.testing.assert_allclose(result.objective, reference.objective, rtol=1e-9)


@pytest.fixture
def dependent_problem(scaled_problem):
    """Factory ``(seed) -> (vectors, offsets, group_index, n_groups)``.

    Constraint vectors with many linear dependencies (sums of other constraints' vectors).
    """

    def make(seed):
        vectors, offsets, group_index, n_groups = scaled_problem(seed, 12, 10, 3)
        rng = np.random.default_rng(seed)
        mixes = rng.integers(0, 2, size=(18, 12)) * rng.choice([-1.0, 1.0], size=(18, 12))
        combined = mixes @ vectors
        combined /= np.sqrt((combined**2).sum(axis=1).max())
        vectors = np.vstack([vectors, combined])
        offsets = np.concatenate([offsets, rng.uniform(0.2, 1.0, size=18)])
        group_index = np.concatenate([group_index, rng.integers(0, n_groups, size=18)])
        return vectors, offsets, group_index, n_groups

    return make


@pytest.mark.parametrize("seed", range(4))
def test_a_basic_solution_keeps_w_and_the_group_sums_on_an_independent_support(
    seed, dependent_problem
):
    vectors, offsets, group_index, n_groups = dependent_problem(seed)
    alpha = np.random.default_rng(seed).uniform(0.1, 1.0, size=len(offsets))

    basic = active_set.basic_solution(vectors @ vectors.T, group_index, 100.0, alpha)

    assert np.all(basic >= 0)
    np.testing.assert_allclose(vectors.T @ basic, vectors.T @ alpha, atol=1e-9)
    sums = np.bincount(group_index, weights=basic, minlength=n_groups)
    np.testing.assert_allclose(sums, np.bincount(group_index, weights=alpha), atol=1e-9)
    support = np.flatnonzero(basic > 0)
    with_groups = np.hstack([vectors, np.eye(n_groups)[group_index]])[support]
    assert np.linalg.matrix_rank(with_groups) == len(support)
    assert len(support) < len(alpha)


@pytest.mark.parametrize("seed", range(4))
def test_the_basic_point_of_an_interior_point_optimum_is_optimal(seed, dependent_problem):
    vectors, offsets, group_index, n_groups = dependent_problem(seed)
    gram = vectors @ vectors.T
    optimum = solve_simplex_dual(gram, offsets, group_index, 1.0, method="generic", tol=1e-12)

    basic = active_set.basic_solution(gram, group_index, 1.0, optimum.alpha)

    assert_kkt(basic, vectors, offsets, group_index, n_groups, 1.0, tol=1e-6)
    assert dual_objective(basic, vectors, offsets) == pytest.approx(optimum.objective, rel=1e-9)
