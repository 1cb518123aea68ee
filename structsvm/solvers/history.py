"""The per-iteration record every structural SVM solver appends to its history."""

from __future__ import annotations

import time


def iteration_record(
    iteration: int,
    primal: float,
    dual: float,
    *,
    n_constraints: int,
    oracle_calls: int,
    qp_time: float,
    start: float,
) -> dict[str, float]:
    """Return the history record of one iteration.

    Parameters
    ----------
    iteration : int
        Iteration number (0 evaluates the starting weights).
    primal, dual : float
        The exact primal objective at the iteration's weights and the dual objective at the
        solver's feasible dual variables (a lower bound on the optimum).
    n_constraints : int
        Working-set size (0 for solvers without one).
    oracle_calls : int
        Loss-augmented oracle calls so far.
    qp_time : float
        Seconds spent in QP solves so far.
    start : float
        ``time.perf_counter()`` when the fit started.

    Returns
    -------
    dict
        ``iteration``, ``primal``, ``dual``, ``gap``, ``relative_gap`` (gap / primal),
        ``n_constraints``, ``oracle_calls``, ``qp_time`` and ``time`` (seconds since start).
    """
    gap = primal - dual
    return {
        "iteration": iteration,
        "primal": primal,
        "dual": dual,
        "gap": gap,
        "relative_gap": gap / primal if primal > 0 else 0.0,
        "n_constraints": n_constraints,
        "oracle_calls": oracle_calls,
        "qp_time": qp_time,
        "time": time.perf_counter() - start,
    }
