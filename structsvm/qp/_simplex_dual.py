"""The dual QP of a cutting-plane working set: how it is solved and how its solution is polished.

:func:`solve_simplex_dual` maximises ``Δᵀα − ½ αᵀGα`` over ``α >= 0`` with each group's sum at
most C. Warm-started from the previous solution, it is first tried by
:func:`structsvm.qp._active_set.solve_on_active_set`, whose answers are certified optimal by the
QP's KKT conditions; whenever that attempt gives up, the rescaled QP is solved by cvxopt's
interior-point method in its dual or its primal form (:mod:`structsvm.qp._kkt_solvers`),
whichever has the smaller linear systems. Its solution is then polished: moved to a basic
optimal point (:func:`structsvm.qp._active_set.basic_solution`) for the next attempt if that is
as good, and groups that stopped just short of their bound are scaled up to it if that is better.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from structsvm.qp._active_set import basic_solution, solve_on_active_set
from structsvm.qp._cvxopt import QPResult, QPSolverError, solver_options
from structsvm.qp._feasible_set import clip_to_feasible
from structsvm.qp._kkt_solvers import FORMS, cheaper_form
from structsvm.qp._working_set_qp import WorkingSetQP, dual_objective, interior_point, rescaled

SIMPLEX_METHODS = ("auto", *FORMS)
"""Ways :func:`solve_simplex_dual` can solve its QP."""

SNAP_TOLERANCE = 1e-5
"""Relative distance below C from which a group's sum is scaled up to C (if that is better)."""


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


def _snap_to_bound(
    alpha: np.ndarray,
    objective: float,
    gram: np.ndarray,
    offsets: np.ndarray,
    problem: WorkingSetQP,
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
    snapped_objective = dual_objective(snapped, gram, offsets)
    if snapped_objective > objective:
        return snapped, snapped_objective
    return alpha, objective


def _basic_if_as_good(
    scaled_alpha: np.ndarray,
    problem: WorkingSetQP,
    unscaled: Callable[[np.ndarray], tuple[np.ndarray, float]],
    tol: float,
) -> tuple[np.ndarray, float]:
    """Return the interior-point solution, or a basic one of it, with the dual objective.

    An interior-point solution of a QP with dependent constraint vectors spreads α over all of
    them; :func:`~structsvm.qp._active_set.basic_solution` moves it to a basic point with the same
    ``w``, which the next warm-started solve's active-set guess can use. The basic point is
    kept if its objective is within ``tol`` (the interior-point tolerance) of the original.
    ``unscaled`` maps α of the rescaled ``problem`` back to the original problem.
    """
    alpha, objective = unscaled(scaled_alpha)
    basic, basic_objective = unscaled(
        basic_solution(problem.gram, problem.group_index, problem.C, scaled_alpha)
    )
    if basic_objective >= objective - tol * max(1.0, abs(objective)):
        return basic, basic_objective
    return alpha, objective


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
    problem, unscale = rescaled(gram, offsets, groups, C)

    def unscaled(scaled_alpha: np.ndarray) -> tuple[np.ndarray, float]:
        """Return α mapped back, clipped to the feasible set, and the original objective at it."""
        alpha = clip_to_feasible(scaled_alpha * unscale, problem.group_index, problem.n_groups, C)
        return alpha, dual_objective(alpha, gram, offsets)

    automatic = method == "auto"
    if automatic:
        method = "dual" if vectors is None else cheaper_form(problem, vectors.shape[1])
    if method == "primal":
        problem.keep_vectors(vectors)
    if initial_alpha is not None:
        feasible = clip_to_feasible(
            np.asarray(initial_alpha, dtype=float), problem.group_index, problem.n_groups, C
        )
        scaled_start = feasible / unscale
        if automatic:
            exact = solve_on_active_set(
                problem.gram,
                problem.offsets,
                problem.group_index,
                problem.n_groups,
                problem.C,
                scaled_start,
            )
            if exact is not None:
                alpha, objective = unscaled(exact)
                return SimplexDualSolution(alpha, objective, qp=None, method="active-set")
        problem.start = interior_point(problem, scaled_start)
    solve = FORMS[method]
    options = solver_options(tol, 200)
    solution = None
    if problem.start is not None:
        # An interior-point method can stall from a start far from its central path, or
        # refuse a start that rounding left on the boundary; a warm start that does not reach
        # optimality is discarded and the problem solved cold.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                solution = solve(problem, options)
            except QPSolverError:
                solution = None
        if solution is None or solution[1].status != "optimal" or caught:
            problem.start = solution = None
    scaled_alpha, result = solution or solve(problem, options)
    alpha, objective = _basic_if_as_good(scaled_alpha, problem, unscaled, tol)
    alpha, objective = _snap_to_bound(alpha, objective, gram, offsets, problem, C)
    return SimplexDualSolution(alpha=alpha, objective=objective, qp=result, method=method)
