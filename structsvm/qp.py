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
import scipy.sparse as sp
from cvxopt import matrix, solvers, spmatrix

ACCEPTABLE_INACCURACY = 1e-6
"""Relative gap and infeasibility below which a solve cvxopt did not call optimal is accepted."""


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


def _as_cvxopt(array: np.ndarray | sp.spmatrix | None) -> matrix | spmatrix | None:
    if array is None:
        return None
    if sp.issparse(array):
        coo = sp.coo_matrix(array)
        return spmatrix(coo.data.astype(np.float64), coo.row.tolist(), coo.col.tolist(), coo.shape)
    array = np.asarray(array, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    return matrix(np.ascontiguousarray(array))


def solve_qp(
    P: np.ndarray,
    q: np.ndarray,
    G: np.ndarray | sp.spmatrix | None = None,
    h: np.ndarray | None = None,
    A: np.ndarray | sp.spmatrix | None = None,
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
    G, h : ndarray or scipy.sparse matrix of shape (m, n), and ndarray of shape (m,), optional
        Inequality constraints.
    A, b : ndarray or scipy.sparse matrix of shape (p, n), and ndarray of shape (p,), optional
        Equality constraints.
    tol : float, default=1e-9
        Tolerance on the duality gap, absolute and relative (cvxopt's ``abstol`` and
        ``reltol``); the feasibility tolerance is ``min(1e-7, tol)``. cvxopt often stops short
        of very small tolerances with the status "unknown"; that result is accepted silently
        when its relative gap and infeasibility are below 1e-6, and warned about otherwise.
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
    relative_gap = solution["gap"] / max(1.0, abs(solution["primal objective"]))
    inexact = max(relative_gap, solution["primal infeasibility"]) > ACCEPTABLE_INACCURACY
    if solution["status"] != "optimal" and inexact:
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


@dataclass
class SimplexDualSolution:
    """Solution of :func:`solve_simplex_dual`: the dual variables and the dual objective."""

    alpha: np.ndarray
    objective: float
    qp: QPResult


def solve_simplex_dual(
    gram: np.ndarray,
    offsets: np.ndarray,
    groups: np.ndarray,
    C: float,
    *,
    tol: float = 1e-9,
    initial_alpha: np.ndarray | None = None,
) -> SimplexDualSolution:
    """Maximise ``offsetsᵀα − ½ αᵀ gram α`` over ``α >= 0`` with ``Σ_{k in group g} α_k <= C``.

    This is the dual of a structural SVM over a working set of constraints
    ``w · ψ_k >= offsets_k − ξ_{groups_k}``: one group (and one slack) per training example in the
    n-slack formulation, a single group in the 1-slack formulation.

    Parameters
    ----------
    gram : ndarray of shape (m, m)
        Inner products ``ψ_k · ψ_l`` of the constraint vectors.
    offsets : ndarray of shape (m,)
        The losses Δ_k of the constraints.
    groups : ndarray of shape (m,) of int
        The slack (example) each constraint belongs to.
    C : float
        Upper bound on each group's sum of dual variables.
    tol : float, default=1e-9
        Tolerance of the interior-point solve.
    initial_alpha : ndarray of shape (m,), optional
        A starting point.

    Returns
    -------
    SimplexDualSolution
        ``alpha`` clipped to the feasible set and the dual objective at it.
    """
    m = len(offsets)
    used_groups, group_index = np.unique(groups, return_inverse=True)
    membership = sp.csr_matrix(
        (np.ones(m), (group_index, np.arange(m))), shape=(len(used_groups), m)
    )
    G = sp.vstack([-sp.identity(m, format="csr"), membership]).tocsr()
    h = np.concatenate([np.zeros(m), np.full(len(used_groups), C)])
    # Solve for x = α · k / δ, with k the largest diagonal entry of the Gram matrix and δ the
    # largest offset, and the objective divided by δ² / k: the quadratic and linear terms are
    # then of order one whatever the magnitudes of the losses and feature vectors.
    k = max(float(np.abs(np.diag(gram)).max(initial=0.0)), 1e-300)
    delta = max(float(np.abs(offsets).max(initial=0.0)), 1e-300)
    result = solve_qp(
        gram / k,
        -offsets / delta,
        G,
        h * (k / delta),
        tol=tol,
        initial_x=None if initial_alpha is None else initial_alpha * (k / delta),
    )
    alpha = np.clip(result.x * (delta / k), 0.0, C)
    group_sums = np.bincount(group_index, weights=alpha, minlength=len(used_groups))
    excess = np.maximum(group_sums / C, 1.0)
    alpha /= excess[group_index]
    objective = float(offsets @ alpha - 0.5 * alpha @ gram @ alpha)
    return SimplexDualSolution(alpha=alpha, objective=objective, qp=result)
