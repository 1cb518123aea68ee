"""The one place that talks to cvxopt: convex quadratic programs in dense NumPy form.

Solves ``minimise ½ xᵀPx + qᵀx  subject to  Gx <= h,  Ax = b`` with cvxopt's interior-point
``solvers.qp``. Solver output is silenced per call (cvxopt's global ``solvers.options`` are never
touched). A singular KKT system, which degenerate problems (duplicate constraints, a rank-deficient
P) can produce, is retried with a growing multiple of the identity added to P and a warning; a
solve that stops short of its tolerances is reported by a warning and by the ``status`` field.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from cvxopt import matrix, solvers


class QPSolverWarning(RuntimeWarning):
    """cvxopt stopped short of optimality or needed regularising; the result may be inexact."""


@dataclass
class QPResult:
    """Solution of a QP.

    Attributes
    ----------
    x : ndarray
        The primal solution.
    inequality_duals : ndarray
        Lagrange multipliers of ``Gx <= h`` (empty without inequalities).
    equality_duals : ndarray
        Lagrange multipliers of ``Ax = b`` (empty without equalities).
    objective : float
        ``½ xᵀPx + qᵀx`` at ``x`` (for the P that was given, without regularisation).
    status : str
        cvxopt's status: "optimal" or "unknown".
    iterations : int
        Interior-point iterations.
    ridge : float
        Multiple of the identity added to P to make the KKT system solvable (0 if none).
    """

    x: np.ndarray
    inequality_duals: np.ndarray
    equality_duals: np.ndarray
    objective: float
    status: str
    iterations: int
    ridge: float


def _as_cvxopt(array: np.ndarray | None) -> matrix | None:
    if array is None:
        return None
    array = np.asarray(array, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    return matrix(np.ascontiguousarray(array))


def solve_qp(
    P: np.ndarray,
    q: np.ndarray,
    G: np.ndarray | None = None,
    h: np.ndarray | None = None,
    A: np.ndarray | None = None,
    b: np.ndarray | None = None,
    *,
    tol: float = 1e-9,
    max_iter: int = 200,
    initial_x: np.ndarray | None = None,
) -> QPResult:
    """Solve ``min ½ xᵀPx + qᵀx  s.t.  Gx <= h,  Ax = b`` with cvxopt.

    Parameters
    ----------
    P : ndarray of shape (n, n)
        Symmetric positive semi-definite matrix.
    q : ndarray of shape (n,)
    G, h : ndarray of shape (m, n) and (m,), optional
        Inequality constraints.
    A, b : ndarray of shape (p, n) and (p,), optional
        Equality constraints.
    tol : float, default=1e-9
        Absolute tolerance on the duality gap (cvxopt's ``abstol``); ``reltol`` and ``feastol``
        are set from it too.
    max_iter : int, default=200
        Most interior-point iterations.
    initial_x : ndarray of shape (n,), optional
        A starting point (cvxopt uses it only if it is strictly feasible).

    Returns
    -------
    QPResult
    """
    P = np.asarray(P, dtype=np.float64)
    P = 0.5 * (P + P.T)
    options = {
        "show_progress": False,
        "abstol": tol,
        "reltol": tol,
        "feastol": min(1e-7, tol),
        "maxiters": max_iter,
    }
    scale = max(1.0, float(np.abs(np.diag(P)).max(initial=0.0)))
    ridge = 0.0
    initvals = None if initial_x is None else {"x": _as_cvxopt(initial_x)}
    for attempt in range(6):
        try:
            solution = solvers.qp(
                _as_cvxopt(P + ridge * np.eye(P.shape[0])),
                _as_cvxopt(q),
                _as_cvxopt(G),
                _as_cvxopt(h),
                _as_cvxopt(A),
                _as_cvxopt(b),
                initvals=initvals,
                options=options,
            )
            break
        except (ArithmeticError, ValueError) as error:  # singular or rank-deficient KKT system
            if attempt == 5:
                raise RuntimeError(f"cvxopt could not solve the QP: {error}") from error
            ridge = scale * 10.0 ** (attempt - 10)
    if ridge > 0:
        warnings.warn(
            f"the QP's KKT system was singular; solved with {ridge:.1e}·I added to P",
            QPSolverWarning,
            stacklevel=2,
        )
    x = np.array(solution["x"]).ravel()
    if solution["status"] != "optimal":
        warnings.warn(
            f"cvxopt stopped with status {solution['status']!r} after {solution['iterations']} "
            f"iterations (gap {solution['gap']:.2e}); the solution may be inexact",
            QPSolverWarning,
            stacklevel=2,
        )
    z = solution["z"]
    y = solution["y"]
    return QPResult(
        x=x,
        inequality_duals=np.zeros(0) if z is None else np.array(z).ravel(),
        equality_duals=np.zeros(0) if y is None else np.array(y).ravel(),
        objective=float(0.5 * x @ P @ x + np.asarray(q, dtype=float) @ x),
        status=str(solution["status"]),
        iterations=int(solution["iterations"]),
        ridge=ridge,
    )
