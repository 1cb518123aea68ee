"""The thin layer over cvxopt, and the general convex QP solved with it.

Converts between NumPy and cvxopt's matrices, factors and multiplies with cvxopt's
single-threaded LAPACK and BLAS, and sets its solver options per call (cvxopt's global
``solvers.options`` are never touched, so its output stays silent). A KKT system that cvxopt
finds singular, which degenerate problems (duplicate constraints, a rank-deficient P) produce,
is retried with a growing multiple of the identity added to P and a warning; a solve that stops
short of its tolerances is reported by a warning and by the ``status`` field of its
:class:`QPResult`.

:func:`solve_qp` solves ``minimise ½ xᵀPx + qᵀx  subject to  Gx <= h,  Ax = b`` with cvxopt's
``solvers.qp``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp


class _Cvxopt:
    """The ``cvxopt`` package, imported when first used: a fit whose QPs never reach it (the
    1-slack solver's active-set solves, the perceptron, BCFW) does not load its libraries."""

    def __getattr__(self, name: str) -> Any:
        import cvxopt

        value = getattr(cvxopt, name)
        setattr(self, name, value)  # later uses in the QP loops read it without this call
        return value


cvxopt = _Cvxopt()

ACCEPTABLE_INACCURACY = 1e-6
"""Relative gap and infeasibility below which a solve cvxopt did not call optimal is accepted."""


class QPSolverWarning(RuntimeWarning):
    """cvxopt stopped short of optimality or needed regularising; the result may be inexact."""


class QPSolverError(RuntimeError, ValueError):
    """cvxopt could not solve a QP, even regularised: its data are too badly scaled.

    The QPs of the estimators are built from their inputs X and C (and a kernel's parameters),
    so the error is a ValueError about those values as well as a RuntimeError of the solver.
    """


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


def as_cvxopt(array: np.ndarray | sp.spmatrix | None) -> cvxopt.matrix | cvxopt.spmatrix | None:
    """Return a copy of an array as a cvxopt matrix (a vector as a column), sparse if it is."""
    if array is None:
        return None
    if sp.issparse(array):
        coo = sp.coo_matrix(array)
        values = coo.data.astype(np.float64)
        return cvxopt.spmatrix(values, coo.row.tolist(), coo.col.tolist(), coo.shape)
    array = np.asarray(array, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    return cvxopt.matrix(np.ascontiguousarray(array))


def vector_view(vector: cvxopt.matrix) -> np.ndarray:
    """Return a writable 1-D NumPy view of a cvxopt column vector."""
    return np.asarray(vector).reshape(-1)


def cholesky_factor(symmetric: np.ndarray | cvxopt.matrix) -> cvxopt.matrix:
    """Return the lower Cholesky factor of a positive definite matrix (its lower triangle used).

    Raises ArithmeticError if the matrix is not numerically positive definite. The factorisations
    here use cvxopt's single-threaded LAPACK, whose speed does not depend on how busy the other
    cores are.
    """
    factor = symmetric if isinstance(symmetric, cvxopt.matrix) else cvxopt.matrix(symmetric)
    cvxopt.lapack.potrf(factor)
    return factor


def cholesky_solve(factor: cvxopt.matrix, rhs: np.ndarray) -> np.ndarray:
    """Solve ``L Lᵀ x = rhs`` for the lower Cholesky factor L."""
    solution = cvxopt.matrix(rhs)
    cvxopt.lapack.potrs(factor, solution)
    return vector_view(solution)


class DenseMatrix:
    """A dense matrix in cvxopt's storage, multiplied by cvxopt's BLAS.

    cvxopt's BLAS is single-threaded, so the many small products of an interior-point solve do
    not slow down when other processes keep the cores busy. :attr:`array` is a writable NumPy
    view of the matrix.

    Parameters
    ----------
    array : ndarray or sparse matrix of shape (n, p)
        The initial contents (copied).
    """

    def __init__(self, array: np.ndarray | sp.spmatrix) -> None:
        if sp.issparse(array):
            array = array.toarray()
        self._matrix = cvxopt.matrix(np.asfortranarray(array, dtype=np.float64))
        self.array = np.asarray(self._matrix)

    @property
    def shape(self) -> tuple[int, int]:
        return self._matrix.size

    def __matmul__(self, vector: np.ndarray) -> np.ndarray:
        product = cvxopt.matrix(0.0, (self.shape[0], 1))
        cvxopt.blas.gemv(self._matrix, cvxopt.matrix(vector), product)
        return vector_view(product)

    def transpose_times(self, vector: np.ndarray) -> np.ndarray:
        """Return ``Aᵀ vector``."""
        product = cvxopt.matrix(0.0, (self.shape[1], 1))
        cvxopt.blas.gemv(self._matrix, cvxopt.matrix(vector), product, trans="T")
        return vector_view(product)

    def cross_products(self) -> cvxopt.matrix:
        """Return ``Aᵀ A`` (its lower triangle) as a cvxopt matrix."""
        product = cvxopt.matrix(0.0, (self.shape[1], self.shape[1]))
        cvxopt.blas.syrk(self._matrix, product, trans="T")
        return product


def solver_options(tol: float, max_iter: int) -> dict[str, Any]:
    """Return cvxopt's options for a silent solve to ``tol`` in at most ``max_iter`` iterations."""
    return {
        "show_progress": False,
        "abstol": tol,
        "reltol": tol,
        "feastol": min(1e-7, tol),
        "maxiters": max_iter,
    }


def unsolvable(error: Exception) -> QPSolverError:
    """Return the QPSolverError for cvxopt's ``error`` on a QP it could not solve."""
    return QPSolverError(
        f"cvxopt could not solve the QP ({error}): its data are too badly scaled. They come "
        "from the inputs X and C (and the kernel's parameters); scale X or bring C closer to "
        "1, or train a structural SVM with solver='bcfw', which solves no QP"
    )


def solve_regularised(
    solve: Callable[[float], dict[str, Any]], diagonal: np.ndarray
) -> tuple[dict[str, Any], float]:
    """Call ``solve(ridge)`` with ridge 0, then with growing ridges while it fails.

    The ridges are growing multiples of the largest entry of P's ``diagonal`` (at least 1).
    Returns cvxopt's solution and the ridge that worked; warns if the ridge is not 0. Raises
    :class:`QPSolverError` if every ridge fails.
    """
    scale = max(1.0, float(np.abs(diagonal).max(initial=0.0)))
    ridge = 0.0
    for attempt in range(6):
        try:
            solution = solve(ridge)
            break
        except (ArithmeticError, ValueError) as error:  # singular or rank-deficient KKT system
            if attempt == 5:
                raise unsolvable(error) from error
            ridge = scale * 10.0 ** (attempt - 10)
    if ridge > 0:
        warnings.warn(
            f"the QP's KKT system was singular; solved with {ridge:.1e}·I added to P",
            QPSolverWarning,
            stacklevel=3,
        )
    return solution, ridge


def qp_result(solution: dict[str, Any], objective: float, ridge: float) -> QPResult:
    """Package cvxopt's solution, warning if it stopped short of the tolerances."""
    relative_gap = solution["gap"] / max(1.0, abs(solution["primal objective"]))
    inexact = max(relative_gap, solution["primal infeasibility"]) > ACCEPTABLE_INACCURACY
    if solution["status"] != "optimal" and inexact:
        warnings.warn(
            f"cvxopt stopped with status {solution['status']!r} after {solution['iterations']} "
            f"iterations (gap {solution['gap']:.2e}); the solution may be inexact",
            QPSolverWarning,
            stacklevel=3,
        )
    z = solution["z"]
    y = solution.get("y")
    return QPResult(
        x=np.array(solution["x"]).ravel(),
        inequality_duals=np.zeros(0) if z is None else np.array(z).ravel(),
        equality_duals=np.zeros(0) if y is None else np.array(y).ravel(),
        objective=objective,
        status=str(solution["status"]),
        iterations=int(solution["iterations"]),
        ridge=ridge,
    )


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
    options = solver_options(tol, max_iter)
    initvals = None if initial_x is None else {"x": as_cvxopt(initial_x)}
    cvxopt_args = [as_cvxopt(v) for v in (q, G, h, A, b)]

    def solve(ridge: float) -> dict[str, Any]:
        regularised = as_cvxopt(P + ridge * np.eye(P.shape[0]))
        return cvxopt.solvers.qp(regularised, *cvxopt_args, initvals=initvals, options=options)

    solution, ridge = solve_regularised(solve, np.diag(P))
    x = np.array(solution["x"]).ravel()
    objective = float(0.5 * x @ P @ x + np.asarray(q, dtype=float) @ x)
    return qp_result(solution, objective, ridge)
