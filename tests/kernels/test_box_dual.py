"""The box dual shared by the SVMs: its solution, the active-set step and the KKT offset."""

import numpy as np
import pytest

from structsvm.kernels._box_dual import (
    kkt_offset,
    refine_on_active_set,
    solve_box_dual,
)
from structsvm.qp import solve_qp


def random_problem(seed, n=40, upper=1.0):
    """A box dual ``min ½βᵀQβ + pᵀβ, 0 <= β <= upper, zᵀβ = Δ`` with a feasible Δ."""
    rng = np.random.default_rng(seed)
    factor = rng.normal(size=(n, n))
    Q = factor @ factor.T / n
    p = rng.normal(size=n)
    signs = rng.choice([-1.0, 1.0], size=n)
    total = 0.3 * (upper or 1.0) * signs[: n // 2].sum()
    return Q, p, signs, upper, total


def assert_kkt(Q, p, signs, upper, total, beta, offset, tol=1e-9):
    bound = np.inf if upper is None else upper
    assert np.all((beta >= 0) & (beta <= bound))
    assert signs @ beta == pytest.approx(total, abs=1e-9 * max(1.0, abs(total)))
    slack = Q @ beta + p - offset * signs  # >= 0 at 0, = 0 when free, <= 0 at the bound
    scale = tol * max(1.0, np.abs(Q @ beta + p).max())
    free = (beta > 0) & (beta < bound)
    assert np.all(slack[beta == 0] >= -scale)
    assert np.all(np.abs(slack[free]) <= scale)
    assert np.all(slack[beta == bound] <= scale)


@pytest.mark.parametrize("upper", [1.0, 0.1, None])
@pytest.mark.parametrize("seed", range(5))
def test_the_solution_meets_the_kkt_conditions(seed, upper):
    Q, p, signs, upper, total = random_problem(seed, upper=upper)
    if upper is None:  # as the hard margin: p = −1 and Q positive definite
        p = -np.ones(len(p))
        Q += np.eye(len(p))
    solution = solve_box_dual(Q, p, signs, upper, total, 1e-9)
    assert solution.certified
    assert_kkt(Q, p, signs, upper, total, solution.multipliers, solution.offset)
    np.testing.assert_allclose(solution.gradient, Q @ solution.multipliers + p)
    # No worse than the interior-point solution.
    n = len(p)
    G = np.vstack([-np.eye(n), np.eye(n)]) if upper is not None else -np.eye(n)
    h = np.r_[np.zeros(n), np.full(n, upper)] if upper is not None else np.zeros(n)
    interior = solve_qp(Q, p, G, h, signs[None, :], np.array([total]), tol=1e-9)
    beta = solution.multipliers
    assert 0.5 * beta @ Q @ beta + p @ beta <= interior.objective + 1e-9 * abs(interior.objective)


def test_a_wrong_guess_of_the_active_set_is_corrected():
    Q, p, signs, upper, total = random_problem(7, n=60)
    optimum = solve_box_dual(Q, p, signs, upper, total, 1e-9).multipliers
    free = np.flatnonzero((optimum > 0) & (optimum < upper))
    at_zero = np.flatnonzero(optimum == 0)
    assert len(free) >= 2 and len(at_zero) >= 1
    guess = optimum.copy()
    guess[free[0]] = 0.0  # a free multiplier guessed at a bound
    guess[free[1]] = upper
    guess[at_zero[0]] = 0.5 * upper  # a bounded one guessed free
    refined = refine_on_active_set(Q, p, signs, upper, total, guess)
    assert refined is not None
    np.testing.assert_allclose(refined, optimum, atol=1e-10)


def test_a_singular_face_keeps_the_interior_point_solution():
    """With Q = 0 and p = 0 every feasible point is optimal; the face systems are singular,
    so the active-set step gives up and the interior-point solution, on its bounds, is kept."""
    n = 6
    signs = np.ones(n)
    solution = solve_box_dual(np.zeros((n, n)), np.zeros(n), signs, 1.0, 2.5, 1e-9)
    assert not solution.certified
    assert solution.multipliers.sum() == pytest.approx(2.5, abs=1e-6)
    assert np.all((solution.multipliers >= 0) & (solution.multipliers <= 1))


def test_pairs_are_lowered_together_before_the_active_set_step():
    """The regression dual with ε = 0: only α − α* matters, and the interior point leaves both
    of a pair positive; lowered together, one of each pair is 0 and the faces are regular."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = X[:, 0] - X[:, 1] ** 2 + 0.1 * rng.normal(size=30)
    K = X @ X.T + 1.0
    n = len(y)
    Q = np.block([[K, -K], [-K, K]])
    p = np.r_[-y, y]
    signs = np.r_[np.ones(n), -np.ones(n)]
    solution = solve_box_dual(Q, p, signs, 1.0, 0.0, 1e-9, paired=True)
    assert solution.certified
    assert np.all(np.minimum(solution.multipliers[:n], solution.multipliers[n:]) == 0)
    assert_kkt(Q, p, signs, 1.0, 0.0, solution.multipliers, solution.offset)


def test_the_offset_averages_the_free_multipliers():
    gradient = np.array([1.0, 2.0, 4.0, -3.0])
    signs = np.array([1.0, 1.0, 1.0, -1.0])
    multipliers = np.array([0.5, 0.0, 1.0, 0.25])
    # Free: 0 (z G = 1) and 3 (z G = 3).
    assert kkt_offset(gradient, signs, multipliers, 1.0) == pytest.approx(2.0)


def test_without_free_multipliers_the_offset_is_the_midpoint_or_the_finite_end():
    signs = np.array([1.0, 1.0, -1.0, -1.0])
    gradient = np.array([5.0, 1.0, -2.0, -4.0])  # z G = (5, 1, 2, 4)
    # z = +1 at 0 and z = −1 at U bound ρ from above (5 and 4); the others from below (1, 2).
    multipliers = np.array([0.0, 1.0, 0.0, 1.0])
    assert kkt_offset(gradient, signs, multipliers, 1.0) == pytest.approx((2.0 + 4.0) / 2)
    # Every multiplier at its upper bound with z = +1: ρ is only bounded below.
    assert kkt_offset(gradient[:2], signs[:2], np.ones(2), 1.0) == pytest.approx(5.0)
