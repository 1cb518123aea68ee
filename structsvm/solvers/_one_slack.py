"""The 1-slack cutting-plane structural SVM (Joachims, Finley & Yu, Machine Learning 2009).

One slack ξ shared by aggregated constraints ``w · Σ_i v_i(ȳ_i) >= Σ_i Δ(y_i, ȳ_i) − ξ``, one
added per iteration. With L1 slacks the optimum is n-slack's; with L2 slacks the summed slack is
squared, which is not n-slack's L2 objective.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from structsvm._task import Task
from structsvm.solvers._cluster import training_set
from structsvm.solvers._cutting_plane import FullQP, NewConstraints, cutting_plane
from structsvm.solvers._defaults import SOLVER_DEFAULTS
from structsvm.solvers._objective import SlackPenalty, check_objective_options
from structsvm.solvers._oracle import FeatureMatrix, PassSummary
from structsvm.solvers._state import SolverState, is_violated
from structsvm.solvers._working_set import WorkingSet


class AggregatedConstraint:
    """Add the sum of every example's most violated constraint, if it is violated.

    The violation test alone keeps repeats out; constraints are keyed by their order of adding.
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

    Parameters and yields are those of :func:`structsvm.solvers._n_slack.n_slack`, with more
    iterations and longer-kept constraints by default. ``smoothing`` μ places the oracle call at
    ``w_best + μ (w_ws − w_best)`` (1: at ``w_ws``, as Joachims, Finley & Yu; see
    :func:`~structsvm.solvers._cutting_plane.cutting_plane`). ``slack_norm=2`` minimises
    ``½‖w‖² + (C/2) ξ²`` with ``ξ = Σ_i ξ_i(w)``.
    """
    check_objective_options(rescaling, slack_norm)
    optimiser = FullQP(warm_start=True, penalty=SlackPenalty(slack_norm))
    with training_set(
        task, X, Y, n_jobs=n_jobs, true_features=true_features, rescaling=rescaling, summed=True
    ) as source:
        yield from cutting_plane(
            source, C, AggregatedConstraint(), optimiser, tol=tol, max_iter=max_iter,
            inactive_window=inactive_window, smoothing=smoothing, initial_state=initial_state,
        )
