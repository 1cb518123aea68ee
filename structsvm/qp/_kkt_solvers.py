"""Structured KKT solvers: the working-set QP solved by cvxopt's interior-point ``coneqp``.

Each interior-point iteration solves a KKT system. cvxopt's own KKT solver factors it densely
in all variables; the solvers here eliminate what the structure of the working-set QP allows.
The dual form in α factors an m × m matrix (the Gram matrix plus a diagonal plus a constant
block per group); the primal form in ``(w, ξ)`` factors a p × p matrix and reads α from the
multipliers of the margin constraints. :func:`cheaper_form` picks the one whose systems cost
less. The generic form leaves the dual's KKT systems to cvxopt's own solver.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm.qp._cvxopt import (
    DenseMatrix,
    QPResult,
    as_cvxopt,
    cholesky_factor,
    cholesky_solve,
    cvxopt,
    qp_result,
    solve_qp,
    solve_regularised,
    unsolvable,
    vector_view,
)
from structsvm.qp._working_set_qp import WorkingSetQP, dual_objective


def _dual_bounds(problem: WorkingSetQP) -> np.ndarray:
    """Return h of the dual's constraints ``Gα <= h`` with ``G = [−I; S]``: zeros, then C."""
    return np.concatenate([np.zeros(problem.n_constraints), np.full(problem.n_groups, problem.C)])


def solve_generic_form(
    problem: WorkingSetQP, options: dict[str, Any]
) -> tuple[np.ndarray, QPResult]:
    """Solve the dual with cvxopt's own KKT solver on a dense P and a sparse G.

    Returns the rescaled α and cvxopt's result, as the other forms do.
    """
    m = problem.n_constraints
    G = sp.vstack([-sp.identity(m, format="csr"), problem.membership()]).tocsr()
    result = solve_qp(
        problem.gram,
        -problem.offsets,
        G,
        _dual_bounds(problem),
        tol=options["abstol"],
        max_iter=options["maxiters"],
    )
    return result.x, result


def _dual_operators(problem: WorkingSetQP, ridge: float) -> tuple[Callable, Callable]:
    """Return cvxopt operators for P = gram + ridge·I and G = [−I; S] of the dual.

    S is the membership matrix: row g has ones at the constraints of group g.
    """
    index = problem.group_index
    m = problem.n_constraints
    gram = DenseMatrix(problem.gram)

    def apply_P(x: cvxopt.matrix, y: cvxopt.matrix, alpha: float = 1.0, beta: float = 0.0) -> None:
        u, out = vector_view(x), vector_view(y)
        out[:] = alpha * (gram @ u + ridge * u) + beta * out

    def apply_G(
        x: cvxopt.matrix, y: cvxopt.matrix, trans: str = "N", alpha: float = 1.0, beta: float = 0.0
    ) -> None:
        u, out = vector_view(x), vector_view(y)
        if trans == "N":
            product = np.concatenate([-u, problem.group_sums(u)])
        else:
            product = -u[:m] + u[m:][index]
        out[:] = alpha * product + beta * out

    return apply_P, apply_G


def _dual_kkt_solver(problem: WorkingSetQP, ridge: float) -> Callable:
    """Return a cvxopt KKT solver for the dual, factoring ``gram + diag(e) + Sᵀ diag(c) S``.

    For the scaling ``W = diag(d)`` the reduced KKT matrix is ``P + Gᵀ W⁻² G``; with
    ``G = [−I; S]`` it is the Gram matrix plus a diagonal plus, for each group, a constant block
    over the group's constraints. It is positive definite and factored by a dense Cholesky.
    """
    index = problem.group_index
    m = problem.n_constraints
    # The reduced matrix is assembled in place in one cvxopt matrix, which the Cholesky
    # factorisation then overwrites: no m × m temporaries per interior-point iteration.
    reduced = cvxopt.matrix(0.0, (m, m))
    entries = np.asarray(reduced)
    gram = np.asfortranarray(problem.gram)
    diagonal = np.diag_indices(m)
    if problem.n_groups > 1:
        group_rows, group_columns = np.nonzero(index[:, None] == index[None, :])
        pair_group = index[group_rows]

    def factor(W: dict[str, Any]) -> Callable:
        inverse_squares = vector_view(W["di"]) ** 2
        e, c = inverse_squares[:m], inverse_squares[m:]
        np.copyto(entries, gram)
        if problem.n_groups == 1:
            entries[:] += c[0]
        else:
            entries[group_rows, group_columns] += c[pair_group]
        entries[diagonal] += e + ridge
        cholesky = cholesky_factor(reduced)

        def solve(x: cvxopt.matrix, y: cvxopt.matrix, z: cvxopt.matrix) -> None:
            bx, bz = vector_view(x), vector_view(z)
            weighted = inverse_squares * bz
            ux = cholesky_solve(cholesky, bx - weighted[:m] + weighted[m:][index])
            gx = np.concatenate([-ux, problem.group_sums(ux)])
            bx[:] = ux
            bz[:] = vector_view(W["di"]) * (gx - bz)

        return solve

    return factor


def solve_dual_form(problem: WorkingSetQP, options: dict[str, Any]) -> tuple[np.ndarray, QPResult]:
    """Solve ``min ½ xᵀ gram x − offsetsᵀx  s.t.  x >= 0,  S x <= C`` with a structured KKT."""
    m = problem.n_constraints
    q = as_cvxopt(-problem.offsets)
    h = as_cvxopt(_dual_bounds(problem))
    dims = {"l": m + problem.n_groups, "q": [], "s": []}
    start = problem.start
    initvals = None
    if start is not None:
        initvals = {
            "x": cvxopt.matrix(start.alpha),
            "s": cvxopt.matrix(np.concatenate([start.alpha, start.group_room])),
            "z": cvxopt.matrix(np.concatenate([start.margin_room, start.slacks])),
        }

    def solve(ridge: float) -> dict[str, Any]:
        apply_P, apply_G = _dual_operators(problem, ridge)
        kktsolver = _dual_kkt_solver(problem, ridge)
        return cvxopt.solvers.coneqp(
            apply_P, q, apply_G, h, dims, initvals=initvals, kktsolver=kktsolver, options=options
        )

    solution, ridge = solve_regularised(solve, np.diag(problem.gram))
    x = vector_view(solution["x"]).copy()
    objective = -dual_objective(x, problem.gram, problem.offsets)
    return x, qp_result(solution, objective, ridge)


def _primal_operators(problem: WorkingSetQP) -> tuple[Callable, Callable]:
    """Return cvxopt operators for P = diag(I, 0) and G of the primal in (w, ξ).

    The constraints are ``−Ψw − ξ_{group} <= −offsets`` and ``−ξ <= 0``.
    """
    vectors = problem.vectors
    index = problem.group_index
    m, p = vectors.shape

    def apply_P(x: cvxopt.matrix, y: cvxopt.matrix, alpha: float = 1.0, beta: float = 0.0) -> None:
        u, out = vector_view(x), vector_view(y)
        out *= beta
        out[:p] += alpha * u[:p]

    def apply_G(
        x: cvxopt.matrix, y: cvxopt.matrix, trans: str = "N", alpha: float = 1.0, beta: float = 0.0
    ) -> None:
        u, out = vector_view(x), vector_view(y)
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


def _primal_kkt_solver(problem: WorkingSetQP) -> Callable:
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
    rows = DenseMatrix(np.zeros((len(shared) + problem.n_groups, p)))
    centred, between = rows.array[: len(shared)], rows.array[len(shared) :]

    def factor(W: dict[str, Any]) -> Callable:
        inverse_squares = vector_view(W["di"]) ** 2
        e, c = inverse_squares[:m], inverse_squares[m:]
        sums = problem.group_sums(e)
        r = sums + c
        weighted_sums = DenseMatrix(membership @ (e[:, None] * vectors.array))
        means = weighted_sums.array / sums[:, None]
        np.subtract(vectors.array[shared], means[index[shared]], out=centred)
        np.multiply(centred, np.sqrt(e[shared])[:, None], out=centred)
        np.multiply(np.sqrt(sums * c / r)[:, None], means, out=between)
        schur = rows.cross_products()
        schur[:: p + 1] += 1.0
        cholesky = cholesky_factor(schur)

        def solve(x: cvxopt.matrix, y: cvxopt.matrix, z: cvxopt.matrix) -> None:
            bx, bz = vector_view(x), vector_view(z)
            weighted = inverse_squares * bz
            f_w = bx[:p] - vectors.transpose_times(weighted[:m])
            f_xi = bx[p:] - problem.group_sums(weighted[:m]) - weighted[m:]
            u_w = cholesky_solve(cholesky, f_w - weighted_sums.transpose_times(f_xi / r))
            u_xi = (f_xi - weighted_sums @ u_w) / r
            gx = np.concatenate([-(vectors @ u_w) - u_xi[index], -u_xi])
            bx[:p], bx[p:] = u_w, u_xi
            bz[:] = vector_view(W["di"]) * (gx - bz)

        return solve

    return factor


def solve_primal_form(
    problem: WorkingSetQP, options: dict[str, Any]
) -> tuple[np.ndarray, QPResult]:
    """Solve ``min ½‖w‖² + C Σ ξ_g  s.t.  Ψw >= offsets − ξ_{group},  ξ >= 0``.

    The multipliers of the margin constraints are the dual variables.
    """
    m, p = problem.vectors.shape
    g = problem.n_groups
    q = as_cvxopt(np.concatenate([np.zeros(p), np.full(g, problem.C)]))
    h = as_cvxopt(np.concatenate([-problem.offsets, np.zeros(g)]))
    dims = {"l": m + g, "q": [], "s": []}
    apply_P, apply_G = _primal_operators(problem)
    start = problem.start
    initvals = None
    if start is not None:
        w = problem.vectors.transpose_times(start.alpha)
        initvals = {
            "x": cvxopt.matrix(np.concatenate([w, start.slacks])),
            "s": cvxopt.matrix(np.concatenate([start.margin_room, start.slacks])),
            "z": cvxopt.matrix(np.concatenate([start.alpha, start.group_room])),
        }
    try:
        solution = cvxopt.solvers.coneqp(
            apply_P,
            q,
            apply_G,
            h,
            dims,
            initvals=initvals,
            kktsolver=_primal_kkt_solver(problem),
            options=options,
        )
    except (ArithmeticError, ValueError) as error:  # a start it refuses, a singular system
        raise unsolvable(error) from error
    x = vector_view(solution["x"])
    objective = float(0.5 * x[:p] @ x[:p] + problem.C * x[p:].sum())
    return vector_view(solution["z"])[:m].copy(), qp_result(solution, objective, 0.0)


def cheaper_form(problem: WorkingSetQP, p: int) -> str:
    """Return "primal" if its p × p systems cost less to form and factor than the dual's m × m."""
    m = problem.n_constraints
    primal_flops = (len(problem.shared_constraints()) + problem.n_groups) * p * p + p**3 / 3
    dual_flops = m**3 / 3 + 2 * m * m
    return "primal" if primal_flops < dual_flops else "dual"


FORMS: dict[str, Callable[[WorkingSetQP, dict[str, Any]], tuple[np.ndarray, QPResult]]] = {
    "primal": solve_primal_form,
    "dual": solve_dual_form,
    "generic": solve_generic_form,
}
"""The solver of each form of the working-set QP: rescaled α and cvxopt's result."""
