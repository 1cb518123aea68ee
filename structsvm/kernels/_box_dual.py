"""The dual QP that the support vector machines share: a box, one equality, and its offset.

The duals of the binary SVM, of ε-insensitive regression and of the one-class SVM all have the
form (Chang & Lin, "LIBSVM: a library for support vector machines", ACM TIST 2(3), 2011)

    min_β  ½ βᵀQβ + pᵀβ   s.t.  0 <= β_i <= U,  Σ_i z_i β_i = Δ,   z_i ∈ {−1, +1},

and a decision function ``Σ_i (coefficient of β_i) k(x_i, x) − ρ`` whose offset ρ is the Lagrange
multiplier of the equality. With the gradient ``G = Qβ + p``, the KKT conditions say that
``z_i G_i = ρ`` where 0 < β_i < U, ``z_i G_i >= ρ`` where (z_i = +1, β_i = 0) or
(z_i = −1, β_i = U), and ``z_i G_i <= ρ`` where (z_i = −1, β_i = 0) or (z_i = +1, β_i = U).

:func:`solve_box_dual` solves it with cvxopt's interior-point method, whose solution lies
strictly inside the box and is exact only up to the solver's tolerance: a multiplier that
belongs on a bound sits a little inside it, and one that is free but close to a bound can look
as if it belonged on it. It then finishes on the active set (:func:`refine_on_active_set`):
once it is known which multipliers are at 0, which at U and which are free, the optimum is the
solution of a linear system, exact up to rounding and certified by the KKT conditions above.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from structsvm.qp._cvxopt import solve_qp

BOUND_TOLERANCE = 1e-6
"""Fraction of their range within which multipliers of the interior point go onto a bound."""

KKT_TOLERANCE = 1e-9
"""Relative violation of a bound or of a KKT sign condition that certification allows."""

MAX_ROUNDS = 10
"""Most corrections of the active set before the interior-point solution is kept."""


@dataclass
class BoxDualSolution:
    """A solution of the box dual.

    Attributes
    ----------
    multipliers : ndarray of shape (n,)
        β, each one exactly 0, exactly U or strictly between.
    gradient : ndarray of shape (n,)
        ``Qβ + p``.
    offset : float
        ρ from the KKT conditions (:func:`kkt_offset`).
    status : str
        The interior-point solver's status ("optimal" or "unknown").
    certified : bool
        Whether the active-set step found β and certified it optimal by the KKT conditions;
        if not, β is the interior-point solution with its multipliers set onto their bounds.
    """

    multipliers: np.ndarray
    gradient: np.ndarray
    offset: float
    status: str
    certified: bool


def solve_box_dual(
    Q: np.ndarray,
    p: np.ndarray,
    signs: np.ndarray,
    upper: float | None,
    total: float,
    tol: float,
    *,
    paired: bool = False,
) -> BoxDualSolution:
    """Solve ``min ½βᵀQβ + pᵀβ  s.t.  0 <= β <= upper,  signsᵀβ = total``.

    Parameters
    ----------
    Q : ndarray of shape (n, n)
        Symmetric positive semi-definite.
    p : ndarray of shape (n,)
    signs : ndarray of shape (n,)
        The signs z_i ∈ {−1, +1} of the equality.
    upper : float or None
        The upper bound U; None leaves β unbounded above.
    total : float
        Δ, the right-hand side of the equality.
    tol : float
        Tolerance of the interior-point solver on the duality gap.
    paired : bool, default=False
        Whether β is ``(α, α*)`` with ``Q = [[K, −K], [−K, K]]`` and ``z = (+1, −1)``, as in
        regression: lowering α_i and α*_i together changes neither Qβ nor zᵀβ and, when
        ``p_i + p_{n+i} >= 0``, does not raise the objective; each pair is lowered until one
        of the two is 0 before the active-set step, whose linear system would otherwise be
        singular in pairs with both free.

    Returns
    -------
    BoxDualSolution

    Notes
    -----
    Each multiplier of the interior-point solution is first set onto the bound whose
    constraint the solution shows to be active, that is, whose Lagrange multiplier exceeds the
    multiplier's distance to it (strict complementarity), or that it is within a relative
    ``BOUND_TOLERANCE`` of. That guess of the active set is then corrected by
    :func:`refine_on_active_set`; if that fails (a degenerate problem whose linear systems are
    singular), the guess is kept.
    """
    n = len(p)
    box = -sp.identity(n, format="csc")
    h = np.zeros(n)
    if upper is not None:
        box = sp.vstack([box, sp.identity(n, format="csc")], format="csc")
        h = np.r_[h, np.full(n, upper)]
    result = solve_qp(Q, p, box, h, signs[None, :], np.array([total]), tol=tol)
    multipliers = np.where(result.x < result.inequality_duals[:n], 0.0, result.x)
    if upper is not None:
        at_upper = upper - result.x < result.inequality_duals[n:]
        multipliers = np.where(at_upper, upper, multipliers)
    multipliers = snap_to_bounds(multipliers, upper)
    if paired:
        half = n // 2
        common = np.minimum(multipliers[:half], multipliers[half:])
        common = np.where(p[:half] + p[half:] >= 0, common, 0.0)
        multipliers = multipliers - np.r_[common, common]
    refined = refine_on_active_set(Q, p, signs, upper, total, multipliers)
    if refined is not None:
        multipliers = refined
    gradient = Q @ multipliers + p
    return BoxDualSolution(
        multipliers=multipliers,
        gradient=gradient,
        offset=kkt_offset(gradient, signs, multipliers, upper),
        status=result.status,
        certified=refined is not None,
    )


def snap_to_bounds(multipliers: np.ndarray, upper: float | None) -> np.ndarray:
    """Clip β into [0, upper] and set values within a relative tolerance of a bound onto it.

    The tolerance is ``BOUND_TOLERANCE`` (1e-6) of ``upper``, or of the largest multiplier when
    ``upper`` is None.
    """
    scale = upper if upper is not None else max(float(multipliers.max(initial=0.0)), 0.0)
    threshold = BOUND_TOLERANCE * scale
    snapped = np.where(multipliers <= threshold, 0.0, multipliers)
    if upper is not None:
        snapped = np.where(snapped >= upper - threshold, upper, snapped)
    return snapped


def refine_on_active_set(
    Q: np.ndarray,
    p: np.ndarray,
    signs: np.ndarray,
    upper: float | None,
    total: float,
    multipliers: np.ndarray,
) -> np.ndarray | None:
    """Return the optimal β of the box dual from a guess of its active set, or None.

    The guess is read from ``multipliers``: those equal to 0 are at the lower bound, those
    equal to ``upper`` at the upper bound, the others free (F). With the bounded ones fixed,
    stationarity on F and the equality form the linear system

        [ Q_FF   z_F ] [ β_F ]   [ −p_F − Q_FB β_B ]
        [ z_Fᵀ   0   ] [ −ρ  ] = [ Δ − z_Bᵀ β_B    ],

    whose solution is optimal if and only if it meets the KKT conditions of the whole problem:
    β_F within the box, ``G_i − ρ z_i >= 0`` at the lower bound and ``<= 0`` at the upper one.
    Free multipliers that left the box go onto the bound they crossed and bounded ones whose
    sign condition fails become free (a primal-dual active-set iteration, after Hintermüller,
    Ito & Kunisch, SIAM J. Optim. 13(3), 2002), for at most ``MAX_ROUNDS`` rounds.

    Parameters
    ----------
    Q, p, signs, upper, total
        The problem, as in :func:`solve_box_dual`.
    multipliers : ndarray of shape (n,)
        A feasible point whose bounded multipliers are exactly on their bounds.

    Returns
    -------
    ndarray of shape (n,) or None
        The optimal β, certified within a relative ``KKT_TOLERANCE``; None if no round ends in
        a certified optimum or a linear system is singular.
    """
    bound = np.inf if upper is None else float(upper)
    at_lower = multipliers <= 0
    at_upper = multipliers >= bound
    beta_tolerance = KKT_TOLERANCE * (bound if upper is not None else max(1.0, multipliers.max()))
    gradient_tolerance = KKT_TOLERANCE * max(1.0, float(np.abs(Q @ multipliers + p).max()))
    for _ in range(MAX_ROUNDS):
        free = np.flatnonzero(~(at_lower | at_upper))
        beta = np.where(at_upper, bound, 0.0)
        remainder = total - signs[at_upper] @ beta[at_upper]
        if len(free) == 0:
            if abs(remainder) > beta_tolerance:
                return None
            gradient = Q @ beta + p
            offset = kkt_offset(gradient, signs, beta, upper)
        else:
            solution = _solve_face(Q, p, signs, free, beta, remainder)
            if solution is None:
                return None
            beta[free] = solution[:-1]
            offset = -solution[-1]
            gradient = Q @ beta + p
        slack = gradient - offset * signs  # >= 0 needed at the lower bound, <= 0 at the upper
        is_free = ~(at_lower | at_upper)
        below = is_free & (beta < -beta_tolerance)
        above = is_free & (beta > bound + beta_tolerance)
        leave_lower = at_lower & (slack < -gradient_tolerance)
        leave_upper = at_upper & (slack > gradient_tolerance)
        if not (below.any() or above.any() or leave_lower.any() or leave_upper.any()):
            return np.clip(beta, 0.0, bound)
        at_lower = (at_lower & ~leave_lower) | below
        at_upper = (at_upper & ~leave_upper) | above
    return None


def _solve_face(
    Q: np.ndarray,
    p: np.ndarray,
    signs: np.ndarray,
    free: np.ndarray,
    beta: np.ndarray,
    remainder: float,
) -> np.ndarray | None:
    """Solve the KKT system of the face with ``free`` free; return ``(β_F, −ρ)`` or None."""
    size = len(free)
    system = np.zeros((size + 1, size + 1))
    system[:size, :size] = Q[np.ix_(free, free)]
    system[:size, size] = signs[free]
    system[size, :size] = signs[free]
    rhs = np.r_[-(p[free] + Q[free] @ beta), remainder]
    try:
        solution = np.linalg.solve(system, rhs)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(solution)):
        return None
    residual = np.abs(system @ solution - rhs).max()
    if residual > KKT_TOLERANCE * max(1.0, float(np.abs(rhs).max())):
        return None
    return solution


def kkt_offset(
    gradient: np.ndarray, signs: np.ndarray, multipliers: np.ndarray, upper: float | None
) -> float:
    """Return the offset ρ that the KKT conditions give for a solution β of the box dual.

    Parameters
    ----------
    gradient : ndarray of shape (n,)
        ``G = Qβ + p`` at the solution.
    signs : ndarray of shape (n,)
        The signs z_i of the equality constraint.
    multipliers : ndarray of shape (n,)
        β, snapped onto its bounds.
    upper : float or None
        The upper bound U (None for none).

    Returns
    -------
    float
        The average of ``z_i G_i`` over the free multipliers (0 < β_i < U). Without free ones,
        the multipliers at a bound only bound ρ from one side each, and ρ is the midpoint of
        the interval they leave (its finite end if it is unbounded on one side), as in LIBSVM.
    """
    signed_gradient = signs * gradient
    free = (multipliers > 0) & (multipliers < (np.inf if upper is None else upper))
    if np.any(free):
        return float(np.mean(signed_gradient[free]))
    bounds_from_above = (signs > 0) == (multipliers == 0)
    lower = signed_gradient[~bounds_from_above].max(initial=-np.inf)
    upper_end = signed_gradient[bounds_from_above].min(initial=np.inf)
    if np.isfinite(lower) and np.isfinite(upper_end):
        return float(0.5 * (lower + upper_end))
    return float(lower if np.isfinite(lower) else upper_end)
