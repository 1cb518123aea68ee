"""The dual QP that the support vector machines share: a box, one equality, and its offset.

The duals of the binary SVM, of ε-insensitive regression and of the one-class SVM all have the
form (Chang & Lin, "LIBSVM: a library for support vector machines", ACM TIST 2(3), 2011)

    min_β  ½ βᵀQβ + pᵀβ   s.t.  0 <= β_i <= U,  Σ_i z_i β_i = Δ,   z_i ∈ {−1, +1},

and a decision function ``Σ_i (coefficient of β_i) k(x_i, x) − ρ`` whose offset ρ is the Lagrange
multiplier of the equality. With the gradient ``G = Qβ + p``, the KKT conditions say that
``z_i G_i = ρ`` where 0 < β_i < U, ``z_i G_i >= ρ`` where (z_i = +1, β_i = 0) or
(z_i = −1, β_i = U), and ``z_i G_i <= ρ`` where (z_i = −1, β_i = 0) or (z_i = +1, β_i = U).
"""

from __future__ import annotations

import numpy as np

from structsvm.qp._cvxopt import solve_qp

# Multipliers within this fraction of their range from a bound are set onto the bound.
BOUND_TOLERANCE = 1e-6


def solve_box_dual(
    Q: np.ndarray, p: np.ndarray, signs: np.ndarray, upper: float | None, total: float, tol: float
) -> tuple[np.ndarray, str]:
    """Solve ``min ½βᵀQβ + pᵀβ  s.t.  0 <= β <= upper,  signsᵀβ = total`` with cvxopt.

    ``upper=None`` leaves β unbounded above. An interior-point solution lies strictly inside
    the box; each multiplier is set onto the bound whose constraint the solution shows to be
    active, that is, whose Lagrange multiplier exceeds the multiplier's distance to it (strict
    complementarity). Returns β and the solver's status.
    """
    n = len(p)
    G, h = -np.eye(n), np.zeros(n)
    if upper is not None:
        G, h = np.vstack([G, np.eye(n)]), np.r_[h, np.full(n, upper)]
    result = solve_qp(Q, p, G, h, signs[None, :], np.array([total]), tol=tol)
    multipliers = np.where(result.x < result.inequality_duals[:n], 0.0, result.x)
    if upper is not None:
        at_upper = upper - result.x < result.inequality_duals[n:]
        multipliers = np.where(at_upper, upper, multipliers)
    return multipliers, result.status


def snap_to_bounds(multipliers: np.ndarray, upper: float | None) -> np.ndarray:
    """Clip β into [0, upper] and set values within a relative tolerance of a bound onto it.

    The tolerance is 1e-6 of ``upper``, or of the largest multiplier when ``upper`` is None.
    """
    scale = upper if upper is not None else max(float(multipliers.max()), 0.0)
    threshold = BOUND_TOLERANCE * scale
    snapped = np.where(multipliers <= threshold, 0.0, multipliers)
    if upper is not None:
        snapped = np.where(snapped >= upper - threshold, upper, snapped)
    return snapped


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
        the interval they leave (its finite end if it is unbounded on one side).
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
