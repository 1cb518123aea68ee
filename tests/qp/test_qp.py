"""The working-set QP: structured KKT solvers against cvxopt's own and against brute force."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm.qp import solve_simplex_dual
from tests.references import assert_feasible, brute_force_dual, dual_objective

STRUCTURED = ["primal", "dual"]


def solve(vectors, offsets, groups, C, method, **options):
    return solve_simplex_dual(
        vectors @ vectors.T, offsets, groups, C, vectors=vectors, method=method, **options
    )


@pytest.mark.parametrize("method", STRUCTURED)
@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
@pytest.mark.parametrize(
    ("m", "p", "n_groups"),
    [(60, 8, 12), (60, 8, 1), (25, 70, 25), (120, 30, 40), (40, 40, 3)],
)
def test_structured_kkt_solvers_match_cvxopts_own(method, C, m, p, n_groups, random_problem):
    vectors, offsets, groups = random_problem(m + p + n_groups, m, p, n_groups)
    reference = solve(vectors, offsets, groups, C, "generic")

    result = solve(vectors, offsets, groups, C, method)

    assert result.method == method
    assert_feasible(result.alpha, groups, C)
    np.testing.assert_allclose(result.objective, reference.objective, rtol=1e-9)
    np.testing.assert_allclose(result.alpha, reference.alpha, atol=1e-6 * C)
    assert result.objective == pytest.approx(dual_objective(result.alpha, vectors, offsets))


@pytest.mark.parametrize("method", [*STRUCTURED, "generic"])
@pytest.mark.parametrize("seed", range(4))
def test_tiny_problems_reach_the_brute_force_optimum(method, seed, random_problem):
    rng = np.random.default_rng(seed)
    m, p = 5, int(rng.integers(2, 7))
    vectors, offsets, groups = random_problem(seed, m, p, n_groups=2)
    C = float(rng.choice([0.1, 1.0, 10.0]))

    result = solve(vectors, offsets, groups, C, method)

    assert_feasible(result.alpha, groups, C)
    assert result.objective == pytest.approx(
        brute_force_dual(vectors, offsets, groups, C), rel=1e-8, abs=1e-12
    )


@pytest.mark.parametrize("method", STRUCTURED)
def test_repeated_constraints_and_sparse_vectors(method, random_problem):
    vectors, offsets, groups = random_problem(7, 50, 12, 10, duplicates=15)
    gram = vectors @ vectors.T
    reference = solve_simplex_dual(gram, offsets, groups, 1.0, method="generic")

    result = solve_simplex_dual(
        gram, offsets, groups, 1.0, vectors=sp.csr_matrix(vectors), method=method
    )

    np.testing.assert_allclose(result.objective, reference.objective, rtol=1e-8)


def test_losses_and_features_of_any_magnitude(random_problem):
    vectors, offsets, groups = random_problem(3, 40, 10, 8)
    unit = solve(vectors, offsets, groups, 1.0, "primal")
    # Scaling ψ by s and Δ by t scales the optimal α by t/s² and C must scale alike.
    s, t = 1e3, 1e-2
    scaled = solve(s * vectors, t * offsets, groups, t / s**2, "primal")

    np.testing.assert_allclose(scaled.alpha, unit.alpha * t / s**2, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("method", STRUCTURED)
def test_warm_start_reaches_the_same_optimum_in_fewer_iterations(method, random_problem):
    # A 1-slack working set that has just gained one constraint, started from the previous
    # solution.
    vectors, offsets, groups = random_problem(11, 200, 40, 1)
    cold = solve(vectors, offsets, groups, 1.0, method)
    earlier = solve(vectors[:-1], offsets[:-1], groups[:-1], 1.0, method)
    previous = np.append(earlier.alpha, 0.0)

    warm = solve(vectors, offsets, groups, 1.0, method, initial_alpha=previous)

    np.testing.assert_allclose(warm.objective, cold.objective, rtol=1e-9)
    np.testing.assert_allclose(warm.alpha, cold.alpha, atol=1e-6)
    assert warm.qp.iterations < cold.qp.iterations


@pytest.mark.parametrize("method", STRUCTURED)
def test_infeasible_starting_point_is_made_feasible(method, random_problem):
    vectors, offsets, groups = random_problem(5, 30, 10, 6)
    cold = solve(vectors, offsets, groups, 0.5, method)

    warm = solve(vectors, offsets, groups, 0.5, method, initial_alpha=np.full(30, 3.0))

    np.testing.assert_allclose(warm.objective, cold.objective, rtol=1e-9)


@pytest.mark.parametrize(
    ("m", "p", "given", "expected"),
    [(500, 20, True, "primal"), (20, 500, True, "dual"), (500, 20, False, "dual")],
)
def test_auto_solves_the_form_with_the_smaller_systems(m, p, given, expected, random_problem):
    vectors, offsets, groups = random_problem(0, m, p, 30)
    result = solve_simplex_dual(
        vectors @ vectors.T, offsets, groups, 1.0, vectors=vectors if given else None
    )
    assert result.method == expected


def test_bad_method_is_rejected(random_problem):
    vectors, offsets, groups = random_problem(0, 5, 3, 2)
    gram = vectors @ vectors.T
    with pytest.raises(ValueError, match="method must be one of"):
        solve_simplex_dual(gram, offsets, groups, 1.0, method="smo")
    with pytest.raises(ValueError, match="needs the constraint vectors"):
        solve_simplex_dual(gram, offsets, groups, 1.0, method="primal")


def test_a_warm_start_that_stalls_falls_back_to_a_cold_solve():
    # From α = 0 moved into the interior, cvxopt's iterations stall on this one-variable QP.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solution = solve_simplex_dual(
            np.array([[1.37776931]]),
            np.array([2.0]),
            np.array([0]),
            12.0,
            initial_alpha=np.array([0.0]),
        )
    np.testing.assert_allclose(solution.alpha, [2.0 / 1.37776931], rtol=1e-7)


def test_an_active_bound_is_reached_exactly_when_the_linear_part_dominates():
    # One constraint with a short vector: the optimum is α = C, which an interior-point
    # solution only approaches; the returned α is snapped onto the bound.
    vector = np.array([[0.02047334, -0.02047334]])
    solution = solve_simplex_dual(
        vector @ vector.T, np.array([1.0]), np.array([0]), 0.0625, vectors=vector
    )
    assert solution.alpha[0] == pytest.approx(0.0625, rel=1e-15)
