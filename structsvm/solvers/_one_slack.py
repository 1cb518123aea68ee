"""The 1-slack cutting-plane structural SVM (Joachims, Finley & Yu, Machine Learning 2009).

A single slack ξ shared by aggregated constraints ``w · Σ_i v_i(ȳ_i) >= Σ_i Δ(y_i, ȳ_i) − ξ``
(``v_i`` as in :mod:`structsvm.solvers._oracle`), one added per iteration from the most violated
output of every example; the dual has one simplex, ``α >= 0, Σ_k α_k <= C``. With L1 slacks the
optimum is n-slack's (ξ = Σ_i ξ_i); with L2 slacks the objective squares the summed slack, which
is not n-slack's L2 objective.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from structsvm._task import Task
from structsvm.solvers._cluster import task_cutting_plane
from structsvm.solvers._cutting_plane import FullQP, NewConstraints
from structsvm.solvers._defaults import SOLVER_DEFAULTS
from structsvm.solvers._objective import SlackPenalty, check_objective_options
from structsvm.solvers._oracle import FeatureMatrix, PassSummary
from structsvm.solvers._state import SolverState, is_violated
from structsvm.solvers._working_set import WorkingSet


class AggregatedConstraint:
    """Add the sum of every example's most violated constraint, if it is violated.

    A constraint already in the working set is never violated by more than the working set
    allows, so the violation test alone keeps repeats out; constraints are keyed by the order
    in which they were added.
    """

    def __init__(self) -> None:
        self.n_added = 0

    def new_constraints(
        self, oracle: PassSummary, working_set: WorkingSet, w: np.ndarray
    ) -> NewConstraints:
        vector = oracle.difference_total.reshape(1, -1)
        offset = oracle.loss_total
        allowed = working_set.slacks(w, 1)[0]
        if not is_violated(offset - (vector @ w).item(), allowed):
            return NewConstraints(vector[:0], np.zeros(0), np.zeros(0, dtype=np.int64), [])
        self.n_added += 1
        key = (0, self.n_added)
        return NewConstraints(vector, np.array([offset]), np.zeros(1, dtype=np.int64), [key])

    def slacks(self, oracle: PassSummary) -> np.ndarray:
        """Return the one slack, ``ξ = Σ_i ξ_i(w)``."""
        return np.array([oracle.slack_total])


def one_slack(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    C: float,
    *,
    tol: float = SOLVER_DEFAULTS["1-slack"]["tol"],
    max_iter: int = SOLVER_DEFAULTS["1-slack"]["max_iter"],
    inactive_window: int = SOLVER_DEFAULTS["1-slack"]["inactive_window"],
    smoothing: float = SOLVER_DEFAULTS["1-slack"]["smoothing"],
    initial_state: SolverState | None = None,
    n_jobs: int | None = None,
    true_features: FeatureMatrix | None = None,
    rescaling: str = "margin",
    slack_norm: int = 1,
) -> Iterator[SolverState]:
    """Train a structural SVM by the 1-slack cutting-plane algorithm.

    Parameters are those of :func:`structsvm.solvers._n_slack.n_slack`; by default more
    iterations are allowed (each adds one constraint) and constraints stay longer.
    ``smoothing`` μ places the oracle call at ``w_best + μ (w_ws − w_best)`` (see
    :func:`~structsvm.solvers._cutting_plane.cutting_plane`; 1 calls it at ``w_ws``, as
    Joachims, Finley & Yu). ``slack_norm=2`` minimises ``½‖w‖² + (C/2) ξ²`` with the one slack
    ``ξ = Σ_i ξ_i(w)``.

    Yields
    ------
    SolverState
        The state after each iteration (weights, working set, history, and the dual state
        a later run can continue from).
    """
    check_objective_options(rescaling, slack_norm)
    yield from task_cutting_plane(
        task, X, Y, C, AggregatedConstraint(),
        FullQP(warm_start=True, penalty=SlackPenalty(slack_norm)),
        n_jobs=n_jobs, true_features=true_features, rescaling=rescaling, summed=True,
        tol=tol, max_iter=max_iter, inactive_window=inactive_window, smoothing=smoothing,
        initial_state=initial_state,
    )
