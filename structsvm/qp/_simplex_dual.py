"""The one place that talks to cvxopt: convex quadratic programs in dense NumPy form.

Solves ``minimise ½ xᵀPx + qᵀx  subject to  Gx <= h,  Ax = b`` with cvxopt's interior-point
``solvers.qp``. Solver output is silenced per call (cvxopt's global ``solvers.options`` are never
touched). A singular KKT system, which degenerate problems (duplicate constraints, a rank-deficient
P) can produce, is retried with a growing multiple of the identity added to P and a warning; a
solve that stops short of its tolerances is reported by a warning and by the ``status`` field.

The working-set QP of the cutting-plane solvers (:func:`solve_simplex_dual`) is solved by
``solvers.coneqp`` with KKT solvers that exploit its structure, in its dual form or in its primal
form, whichever has the smaller linear systems. Warm-started from the previous solution, it is
first tried by :func:`structsvm.qp._active_set.solve_on_active_set`, whose answers are certified
optimal by the QP's KKT conditions; cvxopt solves it whenever that attempt gives up, and its
solution is moved to a basic optimal point (:func:`structsvm.qp._active_set.basic_solution`) for
the next attempt.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from cvxopt import blas, lapack, matrix, solvers, spmatrix

from structsvm.qp._active_set import basic_solution, solve_on_active_set

ACCEPTABLE_INACCURACY = 1e-6
"""Relative gap and infeasibility below which a solve cvxopt did not call optimal is accepted."""

SIMPLEX_METHODS = ("auto", "primal", "dual", "generic")
"""Ways :func:`solve_simplex_dual` can solve its QP."""


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


def _view(vector: matrix) -> np.ndarray:
    """Return a writable 1-D NumPy view of a cvxopt column vector."""
    return np.asarray(vector).reshape(-1)


def _cholesky(symmetric: np.ndarray | matrix) -> matrix:
    """Return the lower Cholesky factor of a positive definite matrix (its lower triangle used).

    Raises ArithmeticError if the matrix is not numerically positive definite. The factorisations
    here use cvxopt's single-threaded LAPACK, whose speed does not depend on how busy the other
    cores are.
    """
    factor = symmetric if isinstance(symmetric, matrix) else matrix(symmetric)
    lapack.potrf(factor)
    return factor


def _cholesky_solve(factor: matrix, rhs: np.ndarray) -> np.ndarray:
    """Solve ``L Lᵀ x = rhs`` for the lower Cholesky factor L."""
    solution = matrix(rhs)
    lapack.potrs(factor, solution)
    return _view(solution)


class _DenseMatrix:
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
        self._matrix = matrix(np.asfortranarray(array, dtype=np.float64))
        self.array = np.asarray(self._matrix)

    @property
    def shape(self) -> tuple[int, int]:
        return self._matrix.size

    def __matmul__(self, vector: np.ndarray) -> np.ndarray:
        product = matrix(0.0, (self.shape[0], 1))
        blas.gemv(self._matrix, matrix(vector), product)
        return _view(product)

    def transpose_times(self, vector: np.ndarray) -> np.ndarray:
        """Return ``Aᵀ vector``."""
        product = matrix(0.0, (self.shape[1], 1))
        blas.gemv(self._matrix, matrix(vector), product, trans="T")
        return _view(product)

    def cross_products(self) -> matrix:
        """Return ``Aᵀ A`` (its lower triangle) as a cvxopt matrix."""
        product = matrix(0.0, (self.shape[1], self.shape[1]))
        blas.syrk(self._matrix, product, trans="T")
        return product


def _solver_options(tol: float, max_iter: int) -> dict[str, Any]:
    return {
        "show_progress": False,
        "abstol": tol,
        "reltol": tol,
        "feastol": min(1e-7, tol),
        "maxiters": max_iter,
    }


def _solve_regularised(
    solve: Callable[[float], dict[str, Any]], scale: float
) -> tuple[dict[str, Any], float]:
    """Call ``solve(ridge)`` with ridge 0, then growing multiples of ``scale`` while it fails.

    Returns cvxopt's solution and the ridge that worked; warns if the ridge is not 0.
    """
    ridge = 0.0
    for attempt in range(6):
        try:
            solution = solve(ridge)
            break
        except (ArithmeticError, ValueError) as error:  # singular or rank-deficient KKT system
            if attempt == 5:
                raise RuntimeError(f"cvxopt could not solve the QP: {error}") from error
            ridge = scale * 10.0 ** (attempt - 10)
    if ridge > 0:
        warnings.warn(
            f"the QP's KKT system was singular; solved with {ridge:.1e}·I added to P",
            QPSolverWarning,
            stacklevel=3,
        )
    return solution, ridge


def _result(solution: dict[str, Any], objective: float, ridge: float) -> QPResult:
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
    options = _solver_options(tol, max_iter)
    initvals = None if initial_x is None else {"x": _as_cvxopt(initial_x)}
    cvxopt_args = [_as_cvxopt(v) for v in (q, G, h, A, b)]

    def solve(ridge: float) -> dict[str, Any]:
        regularised = _as_cvxopt(P + ridge * np.eye(P.shape[0]))
        return solvers.qp(regularised, *cvxopt_args, initvals=initvals, options=options)

    scale = max(1.0, float(np.abs(np.diag(P)).max(initial=0.0)))
    solution, ridge = _solve_regularised(solve, scale)
    x = np.array(solution["x"]).ravel()
    objective = float(0.5 * x @ P @ x + np.asarray(q, dtype=float) @ x)
    return _result(solution, objective, ridge)


@dataclass
class SimplexDualSolution:
    """Solution of :func:`solve_simplex_dual`: the dual variables and the dual objective.

    Attributes
    ----------
    alpha : ndarray of shape (m,)
        Feasible dual variables.
    objective : float
        The dual objective at ``alpha``.
    qp : QPResult or None
        cvxopt's result for the rescaled problem it solved (dual or primal form); None if the
        active-set solution from the warm start was optimal and cvxopt was not called.
    method : str
        How it was solved: "primal", "dual", "generic" or "active-set".
    """

    alpha: np.ndarray
    objective: float
    qp: QPResult | None
    method: str


@dataclass
class _InteriorPoint:
    """A strictly feasible primal-dual pair of the rescaled working-set QP.

    Attributes
    ----------
    alpha : ndarray of shape (m,)
        Dual variables, all positive.
    group_room : ndarray of shape (g,)
        ``C − Σ_{k in g} α_k``, all positive.
    slacks : ndarray of shape (g,)
        Primal slacks ξ_g, all positive.
    margin_room : ndarray of shape (m,)
        ``w · ψ_k + ξ_g − Δ_k`` at ``w = Σ α_k ψ_k``, all positive.
    """

    alpha: np.ndarray
    group_room: np.ndarray
    slacks: np.ndarray
    margin_room: np.ndarray


WARM_START_SHIFT = 0.01
"""How far a warm start is moved into the interior, relative to the rescaled C and losses."""


@dataclass
class _WorkingSetQP:
    """The working-set QP rescaled so that losses and squared feature norms are of order one.

    With k the largest diagonal entry of the Gram matrix and δ the largest loss, the constraint
    vectors are multiplied by ``vector_scale`` = 1/√k, the losses divided by δ and C multiplied by
    k/δ; the dual variables of the rescaled problem are ``α · k / δ``. The vectors are kept only
    for the primal form.
    """

    gram: np.ndarray
    offsets: np.ndarray
    group_index: np.ndarray
    n_groups: int
    C: float
    vector_scale: float
    vectors: _DenseMatrix | None = None
    start: _InteriorPoint | None = None

    @property
    def n_constraints(self) -> int:
        return len(self.offsets)

    def shared_constraints(self) -> np.ndarray:
        """Return the indices of the constraints whose group has other constraints too."""
        return np.flatnonzero(np.bincount(self.group_index)[self.group_index] > 1)

    def membership(self) -> sp.csr_matrix:
        """Return the g × m matrix S whose row g has ones at the constraints of group g."""
        m = self.n_constraints
        return sp.csr_matrix(
            (np.ones(m), (self.group_index, np.arange(m))), shape=(self.n_groups, m)
        )

    def group_sums(self, values: np.ndarray) -> np.ndarray:
        """Return the sum of ``values`` over each group."""
        return np.bincount(self.group_index, weights=values, minlength=self.n_groups)


def _rescaled(
    gram: np.ndarray, offsets: np.ndarray, groups: np.ndarray, C: float
) -> tuple[_WorkingSetQP, float]:
    """Return the rescaled QP (without vectors) and the factor ``δ / k`` that maps α back."""
    # All-zero constraint vectors (features that vanish) leave a linear program: no scaling.
    k = float(np.abs(np.diag(gram)).max(initial=0.0)) or 1.0
    delta = max(float(np.abs(offsets).max(initial=0.0)), 1e-300)
    used_groups, group_index = np.unique(groups, return_inverse=True)
    problem = _WorkingSetQP(
        gram=gram / k,
        offsets=offsets / delta,
        group_index=group_index.reshape(-1),
        n_groups=len(used_groups),
        C=C * k / delta,
        vector_scale=1.0 / np.sqrt(k),
    )
    return problem, delta / k


def _solve_generic(problem: _WorkingSetQP, options: dict[str, Any]) -> tuple[np.ndarray, QPResult]:
    """Solve the dual with cvxopt's own KKT solver on a dense P and a sparse G."""
    m = problem.n_constraints
    G = sp.vstack([-sp.identity(m, format="csr"), problem.membership()]).tocsr()
    h = np.concatenate([np.zeros(m), np.full(problem.n_groups, problem.C)])
    result = solve_qp(
        problem.gram, -problem.offsets, G, h, tol=options["abstol"], max_iter=options["maxiters"]
    )
    return result.x, result


def _dual_operators(problem: _WorkingSetQP, ridge: float) -> tuple[Callable, Callable]:
    """Return cvxopt operators for P = gram + ridge·I and G = [−I; S] of the dual.

    S is the membership matrix: row g has ones at the constraints of group g.
    """
    index = problem.group_index
    m = problem.n_constraints
    gram = _DenseMatrix(problem.gram)

    def apply_P(x: matrix, y: matrix, alpha: float = 1.0, beta: float = 0.0) -> None:
        u, out = _view(x), _view(y)
        out[:] = alpha * (gram @ u + ridge * u) + beta * out

    def apply_G(
        x: matrix, y: matrix, trans: str = "N", alpha: float = 1.0, beta: float = 0.0
    ) -> None:
        u, out = _view(x), _view(y)
        if trans == "N":
            product = np.concatenate([-u, problem.group_sums(u)])
        else:
            product = -u[:m] + u[m:][index]
        out[:] = alpha * product + beta * out

    return apply_P, apply_G


def _dual_kkt_solver(problem: _WorkingSetQP, ridge: float) -> Callable:
    """Return a cvxopt KKT solver for the dual, factoring ``gram + diag(e) + Sᵀ diag(c) S``.

    For the scaling ``W = diag(d)`` the reduced KKT matrix is ``P + Gᵀ W⁻² G``; with
    ``G = [−I; S]`` it is the Gram matrix plus a diagonal plus, for each group, a constant block
    over the group's constraints. It is positive definite and factored by a dense Cholesky.
    """
    index = problem.group_index
    m = problem.n_constraints
    # The reduced matrix is assembled in place in one cvxopt matrix, which the Cholesky
    # factorisation then overwrites: no m × m temporaries per interior-point iteration.
    reduced = matrix(0.0, (m, m))
    entries = np.asarray(reduced)
    gram = np.asfortranarray(problem.gram)
    diagonal = np.diag_indices(m)
    if problem.n_groups > 1:
        group_rows, group_columns = np.nonzero(index[:, None] == index[None, :])
        pair_group = index[group_rows]

    def factor(W: dict[str, Any]) -> Callable:
        inverse_squares = _view(W["di"]) ** 2
        e, c = inverse_squares[:m], inverse_squares[m:]
        np.copyto(entries, gram)
        if problem.n_groups == 1:
            entries[:] += c[0]
        else:
            entries[group_rows, group_columns] += c[pair_group]
        entries[diagonal] += e + ridge
        cholesky = _cholesky(reduced)

        def solve(x: matrix, y: matrix, z: matrix) -> None:
            bx, bz = _view(x), _view(z)
            weighted = inverse_squares * bz
            ux = _cholesky_solve(cholesky, bx - weighted[:m] + weighted[m:][index])
            gx = np.concatenate([-ux, problem.group_sums(ux)])
            bx[:] = ux
            bz[:] = _view(W["di"]) * (gx - bz)

        return solve

    return factor


def _solve_dual(problem: _WorkingSetQP, options: dict[str, Any]) -> tuple[np.ndarray, QPResult]:
    """Solve ``min ½ xᵀ gram x − offsetsᵀx  s.t.  x >= 0,  S x <= C`` with a structured KKT."""
    m = problem.n_constraints
    q = _as_cvxopt(-problem.offsets)
    h = _as_cvxopt(np.concatenate([np.zeros(m), np.full(problem.n_groups, problem.C)]))
    dims = {"l": m + problem.n_groups, "q": [], "s": []}
    start = problem.start
    initvals = None
    if start is not None:
        initvals = {
            "x": matrix(start.alpha),
            "s": matrix(np.concatenate([start.alpha, start.group_room])),
            "z": matrix(np.concatenate([start.margin_room, start.slacks])),
        }

    def solve(ridge: float) -> dict[str, Any]:
        apply_P, apply_G = _dual_operators(problem, ridge)
        kktsolver = _dual_kkt_solver(problem, ridge)
        return solvers.coneqp(
            apply_P, q, apply_G, h, dims, initvals=initvals, kktsolver=kktsolver, options=options
        )

    scale = max(1.0, float(np.abs(np.diag(problem.gram)).max(initial=0.0)))
    solution, ridge = _solve_regularised(solve, scale)
    x = _view(solution["x"]).copy()
    objective = float(0.5 * x @ problem.gram @ x - problem.offsets @ x)
    return x, _result(solution, objective, ridge)


def _primal_operators(problem: _WorkingSetQP) -> tuple[Callable, Callable]:
    """Return cvxopt operators for P = diag(I, 0) and G of the primal in (w, ξ).

    The constraints are ``−Ψw − ξ_{group} <= −offsets`` and ``−ξ <= 0``.
    """
    vectors = problem.vectors
    index = problem.group_index
    m, p = vectors.shape

    def apply_P(x: matrix, y: matrix, alpha: float = 1.0, beta: float = 0.0) -> None:
        u, out = _view(x), _view(y)
        out *= beta
        out[:p] += alpha * u[:p]

    def apply_G(
        x: matrix, y: matrix, trans: str = "N", alpha: float = 1.0, beta: float = 0.0
    ) -> None:
        u, out = _view(x), _view(y)
        if trans == "N":
            w, xi = u[:p], u[p:]
            product = np.concatenate([-(vectors @ w) - xi[index], -xi])
        else:
            margin, slack = u[:m], u[m:]
            product = np.concatenate(
                [-vectors.transpose_times(margin), -problem.group_sums(margin) - slack]
            )
        out[:] = alpha * product + beta * out

    return apply_P, apply_G


def _primal_kkt_solver(problem: _WorkingSetQP) -> Callable:
    """Return a cvxopt KKT solver for the primal that eliminates the slacks.

    For the scaling ``W = diag(d)``, with ``e = d⁻²`` on the margin constraints and ``c = d⁻²``
    on the slack bounds, the reduced KKT matrix in (w, ξ) is
    ``[[I + ΨᵀEΨ, ΨᵀESᵀ], [SEΨ, diag(r)]]`` with ``r_g = Σ_{k in g} e_k + c_g``. Eliminating ξ
    leaves the p × p Schur complement, assembled without cancellation as
    ``I + Σ_k e_k (ψ_k − ψ̄_g)(ψ_k − ψ̄_g)ᵀ + Σ_g (s_g c_g / r_g) ψ̄_g ψ̄_gᵀ``, where ``s_g`` is
    the group's sum of e and ``ψ̄_g`` its e-weighted mean vector; it is at least I. The centred
    vectors of groups with a single constraint are zero and left out.
    """
    vectors = problem.vectors
    index = problem.group_index
    m, p = vectors.shape
    membership = problem.membership()
    shared = problem.shared_constraints()
    rows = _DenseMatrix(np.zeros((len(shared) + problem.n_groups, p)))
    centred, between = rows.array[: len(shared)], rows.array[len(shared) :]

    def factor(W: dict[str, Any]) -> Callable:
        inverse_squares = _view(W["di"]) ** 2
        e, c = inverse_squares[:m], inverse_squares[m:]
        sums = problem.group_sums(e)
        r = sums + c
        weighted_sums = _DenseMatrix(membership @ (e[:, None] * vectors.array))
        means = weighted_sums.array / sums[:, None]
        np.subtract(vectors.array[shared], means[index[shared]], out=centred)
        np.multiply(centred, np.sqrt(e[shared])[:, None], out=centred)
        np.multiply(np.sqrt(sums * c / r)[:, None], means, out=between)
        schur = rows.cross_products()
        schur[:: p + 1] += 1.0
        cholesky = _cholesky(schur)

        def solve(x: matrix, y: matrix, z: matrix) -> None:
            bx, bz = _view(x), _view(z)
            weighted = inverse_squares * bz
            f_w = bx[:p] - vectors.transpose_times(weighted[:m])
            f_xi = bx[p:] - problem.group_sums(weighted[:m]) - weighted[m:]
            u_w = _cholesky_solve(cholesky, f_w - weighted_sums.transpose_times(f_xi / r))
            u_xi = (f_xi - weighted_sums @ u_w) / r
            gx = np.concatenate([-(vectors @ u_w) - u_xi[index], -u_xi])
            bx[:p], bx[p:] = u_w, u_xi
            bz[:] = _view(W["di"]) * (gx - bz)

        return solve

    return factor


def _solve_primal(problem: _WorkingSetQP, options: dict[str, Any]) -> tuple[np.ndarray, QPResult]:
    """Solve ``min ½‖w‖² + C Σ ξ_g  s.t.  Ψw >= offsets − ξ_{group},  ξ >= 0``.

    The multipliers of the margin constraints are the dual variables.
    """
    m, p = problem.vectors.shape
    g = problem.n_groups
    q = _as_cvxopt(np.concatenate([np.zeros(p), np.full(g, problem.C)]))
    h = _as_cvxopt(np.concatenate([-problem.offsets, np.zeros(g)]))
    dims = {"l": m + g, "q": [], "s": []}
    apply_P, apply_G = _primal_operators(problem)
    start = problem.start
    initvals = None
    if start is not None:
        w = problem.vectors.transpose_times(start.alpha)
        initvals = {
            "x": matrix(np.concatenate([w, start.slacks])),
            "s": matrix(np.concatenate([start.margin_room, start.slacks])),
            "z": matrix(np.concatenate([start.alpha, start.group_room])),
        }
    solution = solvers.coneqp(
        apply_P,
        q,
        apply_G,
        h,
        dims,
        initvals=initvals,
        kktsolver=_primal_kkt_solver(problem),
        options=options,
    )
    x = _view(solution["x"])
    objective = float(0.5 * x[:p] @ x[:p] + problem.C * x[p:].sum())
    return _view(solution["z"])[:m].copy(), _result(solution, objective, 0.0)


def _cheaper_form(problem: _WorkingSetQP, p: int) -> str:
    """Return "primal" if its p × p systems cost less to form and factor than the dual's m × m."""
    m = problem.n_constraints
    primal_flops = (len(problem.shared_constraints()) + problem.n_groups) * p * p + p**3 / 3
    dual_flops = m**3 / 3 + 2 * m * m
    return "primal" if primal_flops < dual_flops else "dual"


SNAP_TOLERANCE = 1e-5


def _feasible(alpha: np.ndarray, problem: _WorkingSetQP, C: float) -> np.ndarray:
    """Clip α to ``α >= 0`` and scale each group down so that its sum is at most C."""
    alpha = np.clip(alpha, 0.0, C)
    excess = np.maximum(problem.group_sums(alpha) / C, 1.0)
    return alpha / excess[problem.group_index]


def _snap_to_bound(
    alpha: np.ndarray,
    objective: float,
    gram: np.ndarray,
    offsets: np.ndarray,
    problem: _WorkingSetQP,
    C: float,
) -> tuple[np.ndarray, float]:
    """Scale groups whose sum is within ``SNAP_TOLERANCE`` of C up to C, if that is better.

    An interior-point solution stays strictly inside the bound ``Σ α_k <= C``. When the bound
    is active and the linear part of the objective dominates (short constraint vectors, small
    C), the distance left is a relative error of the dual objective that no later iteration
    removes; a cutting-plane fit then stalls above a tight ``tol``. Returns α and its objective,
    the snapped ones only if they raise the objective.
    """
    sums = problem.group_sums(alpha)
    near = (sums >= (1.0 - SNAP_TOLERANCE) * C) & (sums < C) & (sums > 0)
    if not np.any(near):
        return alpha, objective
    scale = np.ones_like(sums)
    scale[near] = C / sums[near]
    snapped = np.minimum(alpha * scale[problem.group_index], C)
    snapped_objective = float(offsets @ snapped - 0.5 * snapped @ gram @ snapped)
    if snapped_objective > objective:
        return snapped, snapped_objective
    return alpha, objective


def _basic_if_as_good(
    scaled_alpha: np.ndarray,
    problem: _WorkingSetQP,
    unscale: float,
    gram: np.ndarray,
    offsets: np.ndarray,
    C: float,
    tol: float,
) -> tuple[np.ndarray, float]:
    """Return the interior-point solution, or a basic one of it, with the dual objective.

    An interior-point solution of a QP with dependent constraint vectors spreads α over all of
    them; :func:`~structsvm.qp._active_set.basic_solution` moves it to a basic point with the same
    ``w``, which the next warm-started solve's active-set guess can use. The basic point is
    kept if its objective is within ``tol`` (the interior-point tolerance) of the original.
    """

    def unscaled(scaled: np.ndarray) -> tuple[np.ndarray, float]:
        alpha = _feasible(scaled * unscale, problem, C)
        return alpha, float(offsets @ alpha - 0.5 * alpha @ gram @ alpha)

    alpha, objective = unscaled(scaled_alpha)
    basic, basic_objective = unscaled(
        basic_solution(problem.gram, problem.group_index, problem.C, scaled_alpha)
    )
    if basic_objective >= objective - tol * max(1.0, abs(objective)):
        return basic, basic_objective
    return alpha, objective


def _interior_point(problem: _WorkingSetQP, alpha: np.ndarray) -> _InteriorPoint:
    """Move feasible rescaled dual variables strictly inside the feasible set; pair them with ξ.

    α is blended with the point that spreads half of C evenly over each group, and ξ is set just
    above the largest violation of each group's constraints at ``w = Σ α_k ψ_k``.
    """
    sizes = np.bincount(problem.group_index, minlength=problem.n_groups)
    spread = problem.C / (2.0 * sizes[problem.group_index])
    alpha = (1.0 - WARM_START_SHIFT) * alpha + WARM_START_SHIFT * spread
    violations = problem.offsets - problem.gram @ alpha
    slacks = np.zeros(problem.n_groups)
    np.maximum.at(slacks, problem.group_index, violations)
    slacks += WARM_START_SHIFT
    return _InteriorPoint(
        alpha=alpha,
        group_room=problem.C - problem.group_sums(alpha),
        slacks=slacks,
        margin_room=slacks[problem.group_index] - violations,
    )


def solve_simplex_dual(
    gram: np.ndarray,
    offsets: np.ndarray,
    groups: np.ndarray,
    C: float,
    *,
    vectors: np.ndarray | sp.spmatrix | None = None,
    tol: float = 1e-9,
    method: str = "auto",
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
    vectors : ndarray or sparse matrix of shape (m, p), optional
        The constraint vectors ψ_k (``gram = vectors @ vectors.T``); needed for the primal form.
    tol : float, default=1e-9
        Tolerance of the interior-point solve.
    method : {"auto", "primal", "dual", "generic"}, default="auto"
        "dual" solves the dual with a KKT solver that factors an m × m matrix; "primal" solves
        the primal in ``(w, ξ)`` with one that factors a p × p matrix, and reads α from the
        multipliers of the margin constraints; "auto" picks the cheaper of the two (the dual
        if ``vectors`` is not given); "generic" solves the dual with cvxopt's own KKT solver.
    initial_alpha : ndarray of shape (m,), optional
        Dual variables to start from, for instance the previous solution with zeros for new
        constraints. With ``method="auto"`` their support and saturated groups are the first
        guess of :func:`~structsvm.qp._active_set.solve_on_active_set` (a few active-set
        corrections, each one linear system); if it does not reach a point that satisfies the
        KKT conditions, the interior-point solve starts from them, moved strictly inside the
        feasible set. Ignored by "generic".

    Returns
    -------
    SimplexDualSolution
        ``alpha`` clipped to the feasible set and the dual objective at it.
    """
    if method not in SIMPLEX_METHODS:
        raise ValueError(f"method must be one of {SIMPLEX_METHODS}, got {method!r}")
    if method == "primal" and vectors is None:
        raise ValueError("method='primal' needs the constraint vectors")
    problem, unscale = _rescaled(gram, offsets, groups, C)
    automatic = method == "auto"
    if automatic:
        method = "dual" if vectors is None else _cheaper_form(problem, vectors.shape[1])
    if method == "primal":
        problem.vectors = _DenseMatrix(vectors * problem.vector_scale)
    if initial_alpha is not None:
        feasible = _feasible(np.asarray(initial_alpha, dtype=float), problem, C)
        if automatic:
            exact = solve_on_active_set(
                problem.gram,
                problem.offsets,
                problem.group_index,
                problem.n_groups,
                problem.C,
                feasible / unscale,
            )
            if exact is not None:
                alpha = _feasible(exact * unscale, problem, C)
                objective = float(offsets @ alpha - 0.5 * alpha @ gram @ alpha)
                return SimplexDualSolution(alpha, objective, qp=None, method="active-set")
        problem.start = _interior_point(problem, feasible / unscale)
    solve = {"primal": _solve_primal, "dual": _solve_dual, "generic": _solve_generic}[method]
    options = _solver_options(tol, 200)
    solution = None
    if problem.start is not None:
        # An interior-point method can stall from a start far from its central path; a warm
        # start that does not reach optimality is discarded and the problem solved cold.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            solution = solve(problem, options)
        if solution[1].status != "optimal" or caught:
            problem.start = solution = None
    scaled_alpha, result = solution or solve(problem, options)
    alpha, objective = _basic_if_as_good(scaled_alpha, problem, unscale, gram, offsets, C, tol)
    alpha, objective = _snap_to_bound(alpha, objective, gram, offsets, problem, C)
    return SimplexDualSolution(alpha=alpha, objective=objective, qp=result, method=method)
