"""The per-iteration record every structural SVM solver appends to its history."""

from __future__ import annotations

import time
import warnings

from sklearn.exceptions import ConvergenceWarning


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


def stalled(history: list[dict[str, float]], added: int | None, exhaustive: bool) -> bool:
    """Tell whether the last iteration added no constraint and left the dual where it was.

    When the whole working-set QP was solved (``exhaustive``), the next iteration would solve
    the same QP again: the gap cannot shrink further, as the working-set QP is solved only to
    the interior-point method's precision. A warning says so; the fit stops without claiming
    convergence.
    """
    if added != 0 or not exhaustive or len(history) < 2:
        return False
    previous, last = history[-2]["dual"], history[-1]["dual"]
    if last > previous + 1e-12 * max(1.0, abs(previous)):
        return False
    warnings.warn(
        f"the duality gap stopped shrinking at a relative gap of {history[-1]['relative_gap']:.2e}"
        ": no constraint is violated by more than the working set allows and the working-set "
        "QP cannot be solved more precisely; use a larger tol",
        ConvergenceWarning,
        stacklevel=4,
    )
    return True
