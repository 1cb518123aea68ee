"""Exact dual coordinate descent for structural SVMs with few outputs (Keerthi, Sundararajan,
Chang, Hsieh & Lin, "A sequential dual method for large scale multi-class linear SVMs", KDD 2008).

The n-slack dual (L1 slacks, margin rescaling) over ``β_i(y) >= 0``, ``Σ_y β_i(y) = C``, maximised
exactly over one example's simplex at a time (:mod:`structsvm.solvers._dual_cd_block`); after each
pass the task's batch oracle evaluates the primal, and the run stops on the relative duality gap.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from structsvm._task import Task
from structsvm._utils.validation import check_random_state
from structsvm.solvers._cutting_plane import TaskConstraints
from structsvm.solvers._defaults import SOLVER_DEFAULTS
from structsvm.solvers._dual_cd_block import PURPOSE, dual_block_pass, prepare_blocks
from structsvm.solvers._objective import L1_SLACKS, check_objective_options
from structsvm.solvers._oracle import FeatureMatrix
from structsvm.solvers._state import RunCounters, SolverState, converged_on_entry, meets_tolerance

ORDERS = ("random", "cyclic")
"""The orders in which a pass may visit the examples."""

SHRUNK_GAP_FRACTION = 0.1
"""An iteration's passes over the active blocks stop once their gaps add up to this fraction of
the full pass's."""

MAX_SHRUNK_PASSES = 1000
"""Most passes over the active blocks in one iteration."""


@dataclass
class DualCoordinateState:
    """What a dual coordinate-descent run needs to continue after a pass: β (n, n_outputs),
    ``w = Σ_i Σ_y β_i(y) ψ_i(y)`` and the generator of the random order."""

    beta: np.ndarray
    w: np.ndarray
    rng: np.random.RandomState

    def copy(self) -> DualCoordinateState:
        """Return a copy that later passes of a run leave alone."""
        return DualCoordinateState(self.beta.copy(), self.w.copy(), copy.deepcopy(self.rng))


def _visit(data, examples, C, beta, w, free, rng) -> tuple[np.ndarray, np.ndarray]:
    """Solve the subproblems of ``examples`` (in a random order unless ``rng`` is None).

    Return the examples in the order visited and each one's block gap before its step.
    """
    visits = (rng.permutation(examples) if rng is not None else examples).astype(
        np.int64, copy=False
    )
    gaps = np.empty(len(visits))
    dual_block_pass(*data, visits, C, beta, w, gaps, free)
    return visits, gaps


def _sweep(data, C, beta, w, rng, enough: float) -> None:
    """Make one iteration's passes: one over every block, then over the shrunk active set.

    Blocks with a zero gap are left out of the passes that follow, and the others move only the
    outputs with β_i(y) > 0 after the full pass and the true one (Keerthi et al., section 4),
    until the gaps add up to :data:`SHRUNK_GAP_FRACTION` of the full pass's, or to ``enough``.
    """
    n = beta.shape[0]
    free = np.ones(beta.shape, dtype=bool)
    visits, gaps = _visit(data, np.arange(n), C, beta, w, free, rng)
    target = max(SHRUNK_GAP_FRACTION * gaps.sum(), enough)
    np.greater(beta, 0.0, out=free)
    active = np.sort(visits[gaps > 0.0])
    for _ in range(MAX_SHRUNK_PASSES):
        if not len(active):
            return
        visits, gaps = _visit(data, active, C, beta, w, free, rng)
        if gaps.sum() <= target:
            return
        active = np.sort(visits[gaps > 0.0])


def dual_coordinate_descent(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    C: float,
    *,
    tol: float = SOLVER_DEFAULTS["dual-cd"]["tol"],
    max_iter: int = SOLVER_DEFAULTS["dual-cd"]["max_iter"],
    order: str = SOLVER_DEFAULTS["dual-cd"]["order"],
    random_state: int | np.random.RandomState | None = None,
    initial_state: SolverState | None = None,
    n_jobs: int | None = None,
    true_features: FeatureMatrix | None = None,
    rescaling: str = "margin",
    slack_norm: int = 1,
) -> Iterator[SolverState]:
    """Train a structural SVM by exact dual coordinate descent over the examples.

    For tasks whose compiled oracle gives every example the same few outputs
    (:attr:`structsvm.CompiledOracle.n_outputs`) with mutually orthogonal joint features of
    equal norms, such as :class:`~tasks.MulticlassTask` (the sequential dual method of Keerthi
    et al. for the Crammer–Singer SVM). The parameters are
    :func:`~structsvm.solvers._n_slack.n_slack`'s (margin rescaling and L1 slacks only), and:

    Parameters
    ----------
    max_iter : int, default=1000
        Most passes over the data.
    order : {"random", "cyclic"}, default="random"
        Visit the examples in a fresh random permutation each pass, or in index order.
    random_state : int, RandomState or None
        Seed of the random order (a continued run goes on from the generator it kept).
    n_jobs : int or None, default=None
        Workers of the batch oracle that evaluates the duality gap after each pass.

    Yields
    ------
    SolverState
        The state after each pass (``working_set`` is None; the dual variables are in
        ``dual_state``).

    Raises
    ------
    ValueError
        If the task offers no compiled oracle with ``n_outputs``, or outputs without a
        closed-form exact step (:func:`~structsvm.solvers._dual_cd_block.prepare_blocks`), for
        slack rescaling or L2 slacks, or for an unknown ``order``.
    """
    check_objective_options(rescaling, slack_norm)
    if rescaling != "margin" or slack_norm != 1:
        raise ValueError(
            "the dual-cd solver takes margin rescaling with L1 slacks only, got "
            f"rescaling={rescaling!r}, slack_norm={slack_norm!r}"
        )
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    oracle = task.compiled_oracle(X, Y)
    if oracle is None:
        raise ValueError(
            f"{PURPOSE} runs on the task's compiled oracle: {type(task).__name__}"
            ".compiled_oracle returned None"
        )
    data, losses, truths = prepare_blocks(task, oracle, Y)
    n = len(X)
    examples = TaskConstraints(task, X, Y, n_jobs=n_jobs, true_features=true_features)
    done = converged_on_entry(initial_state, tol)
    if done is not None:
        yield done
        return
    counters = RunCounters.resume(initial_state, max_iter)
    if initial_state is None:
        rng = check_random_state(random_state)
        beta = np.zeros(losses.shape)
        beta[np.arange(n), truths] = C
        w = np.zeros(task.size_joint_feature)
    else:
        resume: DualCoordinateState = initial_state.dual_state.copy()
        rng, beta, w = resume.rng, resume.beta, resume.w
    state = SolverState(w=w.copy(), working_set=None, history=counters.history)
    C = float(C)
    for iteration in counters.iterations:
        if iteration > 0:
            # Half the gap that would stop the run: the rest is left for the weights' moves.
            enough = 0.5 * tol * counters.history[-1]["primal"]
            _sweep(data, C, beta, w, rng if order == "random" else None, enough)
        oracle_pass = examples.oracle_pass(w)
        counters.oracle_calls += n
        squared_norm = w @ w
        primal = L1_SLACKS.primal(squared_norm, oracle_pass.slacks, C)
        dual = L1_SLACKS.dual(float(np.sum(beta * losses)), squared_norm, beta.sum(axis=1), C)
        state.w = w.copy()
        counters.record(iteration, primal, dual, certified=oracle_pass.certified)
        state.converged = meets_tolerance(primal, dual, tol)
        # The state's weights are a copy no pass writes into: the dual state shares them.
        state.dual_state = DualCoordinateState(beta.copy(), state.w, copy.deepcopy(rng))
        yield state
        if state.converged:
            return
