"""What every solver shares: its state, its history records, the stopping rule and resuming.

A solver is a generator that yields a :class:`SolverState` after every iteration; a run given an
``initial_state`` continues an earlier one (:meth:`RunCounters.resume`, :func:`converged_on_entry`).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from structsvm._utils.estimator import warn_not_converged

VIOLATION_TOLERANCE = 1e-12
"""Relative margin by which a constraint must be violated beyond what is allowed to count."""


def is_violated(violations: np.ndarray, allowed: np.ndarray | float) -> np.ndarray:
    """Tell which violations ``Δ − w · ψ`` exceed the ``allowed`` slack by more than
    ``VIOLATION_TOLERANCE · (1 + allowed)``."""
    return violations > allowed + VIOLATION_TOLERANCE * (1.0 + allowed)


def below_dual(primal: float, dual: float, tol: float) -> bool:
    """Tell whether a primal objective lies below the dual by more than ``tol · |P|``.

    The dual objective bounds the optimum from below, so such a primal objective comes from an
    oracle that missed a better labelling (an approximate one): it bounds nothing.
    """
    return primal - dual < -tol * abs(primal)


def meets_tolerance(primal: float, dual: float, tol: float) -> bool:
    """The stopping rule of every solver: the duality gap ``P − D`` is at most ``tol · P``,
    and the primal objective is not below the dual (:func:`below_dual`): a pass that missed a
    labelling certifies nothing, and the solver goes on.
    """
    return not below_dual(primal, dual, tol) and primal - dual <= tol * primal


@dataclass
class SolverState:
    """The state of a solver after an iteration; what a fit keeps if it is interrupted.

    Attributes
    ----------
    w : ndarray or object
        Current weights (for a joint-kernel problem, their expansion over constraints).
    working_set : object or None
        Constraints with their dual variables α (None for solvers that keep no working set).
    history : list of dict
        One record per iteration (see :meth:`RunCounters.record`).
    converged : bool
        Whether the run met its stopping rule.
    dual_state : object or None
        A snapshot of what the solver needs to continue from this iteration: passed back as
        ``initial_state``, the run continues as if it had never stopped.
    """

    w: Any
    working_set: Any
    history: list[dict[str, float]] = field(default_factory=list)
    converged: bool = False
    dual_state: Any = None


@dataclass
class RunCounters:
    """The records so far (a copy of a resumed run's), the iteration numbers this run may make,
    its clock (moved back by the seconds already recorded), oracle calls and QP seconds."""

    history: list[dict[str, float]]
    iterations: range
    start: float
    oracle_calls: int = 0
    qp_time: float = 0.0

    @classmethod
    def resume(
        cls, initial_state: SolverState | None, max_iter: int, *, first: int = 0,
        number: str = "iteration",
    ) -> RunCounters:
        """Start counting for a fresh run (iterations ``first .. max_iter``; also from a state
        with no history, a starting point) or make up to ``max_iter`` more, numbered on from
        the last record's ``number``."""
        if initial_state is None or not initial_state.history:
            return cls([], range(first, max_iter + 1), time.perf_counter())
        history = list(initial_state.history)
        last = history[-1]
        first = int(last[number]) + 1
        return cls(
            history,
            range(first, first + max_iter),
            time.perf_counter() - last["time"],
            int(last.get("oracle_calls", 0)),
            float(last.get("qp_time", 0.0)),
        )

    def record(
        self, iteration: int, primal: float, dual: float, n_constraints: int = 0,
        certified: bool = True,
    ) -> dict[str, float]:
        """Append the record of an iteration to the history and return it.

        ``primal`` is exact at the iteration's weights, ``dual`` a lower bound on the optimum;
        ``certified`` says whether the oracle certified every output of the pass (else the gap
        is an estimate). The record also holds ``gap``, ``relative_gap``, ``n_constraints`` (the
        working-set size), ``oracle_calls``, ``qp_time`` and ``time`` so far.
        """
        gap = primal - dual
        record = {
            "iteration": iteration,
            "primal": primal,
            "dual": dual,
            "gap": gap,
            "relative_gap": gap / primal if primal > 0 else 0.0,
            "n_constraints": n_constraints,
            "oracle_calls": self.oracle_calls,
            "qp_time": self.qp_time,
            "time": time.perf_counter() - self.start,
            "certified": bool(certified),
        }
        self.history.append(record)
        return record


def converged_on_entry(initial_state: SolverState | None, tol: float) -> SolverState | None:
    """Return a copy of a state marked converged if its last record is certified and meets
    ``tol``, else None (also for a state with no history, whose gap is not known)."""
    if initial_state is None or not initial_state.history:
        return None
    last = initial_state.history[-1]
    if not last.get("certified", True) or not meets_tolerance(last["primal"], last["dual"], tol):
        return None
    return dataclasses.replace(initial_state, history=list(initial_state.history), converged=True)


def stalled(history: list[dict[str, float]], found: int, exhaustive: bool) -> bool:
    """Tell, with a warning, whether an iteration that added no constraint stalls: it solved
    the whole working-set QP (``exhaustive``) and left the dual where it was, and the pass it
    made ``found`` no constraint to add either: the gap cannot shrink."""
    if found != 0 or not exhaustive or len(history) < 2:
        return False
    previous, last = history[-2]["dual"], history[-1]["dual"]
    if last > previous + VIOLATION_TOLERANCE * max(1.0, abs(previous)):
        return False
    warn_not_converged(
        f"the duality gap stopped shrinking at a relative gap of {history[-1]['relative_gap']:.2e}"
        ": no constraint is violated by more than the working set allows and the working-set "
        "QP cannot be solved more precisely; use a larger tol",
        stacklevel=4,
    )
    return True
