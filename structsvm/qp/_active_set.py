"""Exact solutions of the working-set QP from a guess of its active set, certified by KKT.

The working-set dual ``max dᵀα − ½ αᵀGα`` over ``α >= 0`` and ``Σ_{k in g} α_k <= C`` for every
group g is solved exactly by a linear system once it is known which α_k are positive (the *free*
constraints F) and which group sums equal C (the *tight* groups T): stationarity on F and the
tight sums give

    [ G_FF   S_TFᵀ ] [ α_F ]   [ d_F ]
    [ S_TF   0     ] [ λ_T ] = [ C   ]

with S_TF the membership of F's constraints in the tight groups and λ_g the multiplier of group
g's bound (0 for the other groups). The solution is optimal if and only if it satisfies the KKT
conditions of the whole QP: ``α_F >= 0``, the other groups' sums at most C, ``λ >= 0``, and no
constraint outside F has a gradient ``d_k − (Gα)_k`` above its group's λ.

Between two iterations of a cutting-plane solver the active set changes little (a new
constraint enters, a few leave), so the previous solution's support plus the newly violated
constraints is usually right or a few corrections away. :func:`solve_on_active_set` makes those
corrections (a primal-dual active-set iteration, after Hintermüller, Ito & Kunisch, SIAM J.
Optim. 2002) for a bounded number of rounds and returns None when they do not end in a
certified optimum, in which case the caller solves the QP by an interior-point method.

Constraint vectors are often linearly dependent, and then the optimum is not unique: an
interior-point method returns α spread over every dependent constraint, a support on which the
face's system is singular and the next guess fails. :func:`basic_solution` moves such an α,
without changing ``w`` or any group sum, to an optimal point whose support is independent.
"""

from __future__ import annotations

import numpy as np

from structsvm.qp._feasible_set import clip_to_feasible, group_sums

MAX_ROUNDS = 6
"""Most active-set corrections before giving up."""

RIDGE = 1e-11
"""Multiple of the identity added to a singular face's Gram block (whose diagonal is <= 1)."""

SUPPORT_THRESHOLD = 1e-6
"""Fraction of C above which a starting α_k is guessed to be positive at the optimum."""

MAX_BASIS_SIZE = 500
"""Largest support :func:`basic_solution` reduces (it decomposes a matrix of that size)."""


def solve_on_active_set(
    gram: np.ndarray,
    offsets: np.ndarray,
    group_index: np.ndarray,
    n_groups: int,
    C: float,
    alpha: np.ndarray,
    *,
    tol: float = 1e-10,
) -> np.ndarray | None:
    """Return the optimal α of the working-set dual, or None if the active-set guess fails.

    Parameters
    ----------
    gram : ndarray of shape (m, m)
        The Gram matrix G of the constraint vectors, scaled so that its diagonal is at most 1.
    offsets : ndarray of shape (m,)
        The losses d, scaled so that the largest is 1.
    group_index : ndarray of shape (m,) of int
        The group of each constraint, numbered ``0 .. n_groups - 1``.
    n_groups : int
    C : float
        Bound on each group's sum (in the same scaling).
    alpha : ndarray of shape (m,)
        A feasible starting point whose support and tight groups are the first guess.
    tol : float, default=1e-10
        How far (in the scaled problem) a KKT condition may be violated.

    Returns
    -------
    ndarray of shape (m,) or None
        Optimal dual variables (clipped to the feasible set), or None.
    """
    gradient = offsets - gram @ alpha
    # An interior-point solution leaves every α slightly positive; only clearly positive ones
    # are guessed free (a wrongly left-out one shows up as a violated gradient and is added).
    free = alpha > SUPPORT_THRESHOLD * C
    tight = group_sums(alpha, group_index, n_groups) >= (1.0 - tol) * C
    multipliers = np.zeros(n_groups)
    np.maximum.at(multipliers, group_index[free], gradient[free])
    free |= gradient > multipliers[group_index] + tol
    for _ in range(MAX_ROUNDS):
        solution = _stationary_point(gram, offsets, group_index, n_groups, C, free, tight)
        if solution is None:
            return None
        alpha, multipliers = solution
        gradient = offsets - gram @ alpha
        sums = group_sums(alpha, group_index, n_groups)
        negative = free & (alpha < -tol * C)
        over = ~tight & (sums > (1.0 + tol) * C)
        slack_bound = tight & (multipliers < -tol)
        violated = ~free & (gradient > multipliers[group_index] + tol)
        if not (negative.any() or over.any() or slack_bound.any() or violated.any()):
            return clip_to_feasible(alpha, group_index, n_groups, C)
        free = (free & ~negative) | violated
        tight = (tight & ~slack_bound) | over
    return None


def _stationary_point(
    gram: np.ndarray,
    offsets: np.ndarray,
    group_index: np.ndarray,
    n_groups: int,
    C: float,
    free: np.ndarray,
    tight: np.ndarray,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Solve the KKT system of the face given by ``free`` and ``tight``; None if it cannot be.

    A tight group without free constraints cannot reach C and is treated as not tight.
    """
    F = np.flatnonzero(free)
    tight = tight & (np.bincount(group_index[F], minlength=n_groups) > 0)
    T = np.flatnonzero(tight)
    position = np.full(n_groups, -1)
    position[T] = np.arange(len(T))
    rows = position[group_index[F]]
    in_tight = rows >= 0
    size = len(F) + len(T)
    kkt = np.zeros((size, size))
    kkt[: len(F), : len(F)] = gram[np.ix_(F, F)]
    kkt[len(F) + rows[in_tight], np.flatnonzero(in_tight)] = 1.0
    kkt[np.flatnonzero(in_tight), len(F) + rows[in_tight]] = 1.0
    rhs = np.concatenate([offsets[F], np.full(len(T), C)])
    solution = _solve_face_system(kkt, rhs, len(F))
    if solution is None:
        return None
    alpha = np.zeros(len(offsets))
    alpha[F] = solution[: len(F)]
    multipliers = np.zeros(n_groups)
    multipliers[T] = solution[len(F) :]
    return alpha, multipliers


def _solve_face_system(kkt: np.ndarray, rhs: np.ndarray, n_free: int) -> np.ndarray | None:
    """Solve the face's KKT system; None if no accurate solution is found.

    Constraint vectors are often linearly dependent (in a chain, changing two positions
    independently gives four outputs whose differences ψ add up to zero), which makes the
    system singular. It is then solved with ``RIDGE`` added to the Gram block, which selects
    one of the face's stationary points; the KKT check of the whole QP decides whether it is
    optimal.
    """
    accuracy = 1e-9 * max(1.0, np.abs(rhs).max(initial=0.0))
    for ridge in (0.0, RIDGE):
        system = kkt
        if ridge:
            system = kkt.copy()
            system[np.diag_indices(n_free)] += ridge
        try:
            solution = np.linalg.solve(system, rhs)
        except np.linalg.LinAlgError:
            continue
        if np.all(np.isfinite(solution)):
            residual = kkt @ solution - rhs
            if np.abs(residual).max(initial=0.0) <= accuracy:
                return solution
    return None


def basic_solution(
    gram: np.ndarray,
    group_index: np.ndarray,
    C: float,
    alpha: np.ndarray,
    *,
    tol: float = 1e-10,
) -> np.ndarray:
    """Return α moved along directions that change neither w nor any group sum, to a basic point.

    When constraint vectors are linearly dependent an optimal α is not unique, and an
    interior-point method returns one in the middle of the optimal face, with every dependent
    constraint positive. The directions v with ``Σ v_k ψ_k = 0`` and zero sum in every group
    leave ``w`` and the bounds alone; moving along one until a component reaches zero removes
    that constraint from the support (Carathéodory's reduction). Repeated over a basis of those
    directions it leaves a support whose vectors, with their groups, are independent — what the
    active-set guess of the next solve needs. Only the linear term of the objective can change,
    by ``d · v``, which is zero at an optimum; callers check the objective.

    Parameters
    ----------
    gram : ndarray of shape (m, m)
        Gram matrix of the constraint vectors, scaled so that its diagonal is at most 1.
    group_index : ndarray of shape (m,) of int
    C : float
        Bound on each group's sum; α_k below ``SUPPORT_THRESHOLD * C`` are set to zero first.
    alpha : ndarray of shape (m,)
        Feasible dual variables.
    tol : float, default=1e-10
        Eigenvalues below ``tol`` times the largest mark the dependent directions.

    Returns
    -------
    ndarray of shape (m,)
        α with a support of independent constraints (non-negative, group sums unchanged up to
        the small α set to zero); α itself if its support has more than ``MAX_BASIS_SIZE``
        constraints.
    """
    support = np.flatnonzero(alpha > SUPPORT_THRESHOLD * C)
    if len(support) > MAX_BASIS_SIZE:
        return alpha
    index = group_index[support]
    same_group = (index[:, None] == index[None, :]).astype(float)
    values, vectors = np.linalg.eigh(gram[np.ix_(support, support)] + same_group)
    directions = vectors[:, values <= tol * max(values[-1], 1.0)] if len(values) else vectors
    reduced = alpha[support].copy()
    kept = np.ones(len(support), dtype=bool)
    for column in range(directions.shape[1]):
        direction = np.where(kept, directions[:, column], 0.0)
        if not np.any(direction > 0):
            direction = -direction
        decreasing = np.flatnonzero(direction > 1e-12 * np.abs(direction).max(initial=0.0))
        if len(decreasing) == 0:
            continue
        ratios = reduced[decreasing] / direction[decreasing]
        leaving = decreasing[np.argmin(ratios)]
        reduced -= ratios.min() * direction
        kept[leaving] = False
        # The remaining directions are made zero at the leaving constraint, so it stays at zero.
        rest = directions[:, column + 1 :]
        rest -= np.outer(direction, rest[leaving] / direction[leaving])
    basic = np.zeros_like(alpha)
    basic[support] = np.where(kept, np.maximum(reduced, 0.0), 0.0)
    return basic
