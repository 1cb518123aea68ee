"""The n-slack cutting-plane structural SVM (Tsochantaridis, Joachims, Hofmann & Altun, JMLR 2005).

One slack ξ_i per example, the dual constrained by ``Σ_{k ∈ S_i} α_k <= C`` (L1 slacks), improved
by sub-QPs over blocks of examples (:mod:`structsvm.solvers._decomposition`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from structsvm._task import Task
from structsvm.solvers._cluster import training_set
from structsvm.solvers._cutting_plane import FullQP, NewConstraints, OracleResult, cutting_plane
from structsvm.solvers._decomposition import BlockDecomposition
from structsvm.solvers._defaults import SOLVER_DEFAULTS
from structsvm.solvers._joint_kernel import JointKernelProblem
from structsvm.solvers._objective import SlackPenalty, check_objective_options
from structsvm.solvers._oracle import FeatureMatrix
from structsvm.solvers._state import SolverState, is_violated
from structsvm.solvers._working_set import WorkingSet


class PerExampleConstraints:
    """Add, for every example, its most violated output unless the working set covers it."""

    def new_constraints(
        self, oracle: OracleResult, working_set: WorkingSet, w: Any
    ) -> NewConstraints:
        n = len(oracle.losses)
        allowed = working_set.slacks(w, n)
        violated = np.flatnonzero(is_violated(oracle.slacks, allowed))
        keys = [(int(i), oracle.output_key(i)) for i in violated]
        fresh = [k for k, key in enumerate(keys) if key not in working_set]
        chosen = violated[fresh]
        return NewConstraints(
            vectors=oracle.differences[chosen],
            offsets=oracle.losses[chosen],
            groups=chosen.astype(np.int64),
            keys=[keys[k] for k in fresh],
        )

    def slacks(self, oracle: OracleResult) -> np.ndarray:
        """Return every example's slack ξ_i(w)."""
        return oracle.slacks


def n_slack(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    C: float,
    *,
    tol: float = SOLVER_DEFAULTS["n-slack"]["tol"],
    max_iter: int = SOLVER_DEFAULTS["n-slack"]["max_iter"],
    inactive_window: int = SOLVER_DEFAULTS["n-slack"]["inactive_window"],
    max_block_constraints: int = SOLVER_DEFAULTS["n-slack"]["max_block_constraints"],
    initial_state: SolverState | None = None,
    n_jobs: int | None = None,
    true_features: FeatureMatrix | None = None,
    rescaling: str = "margin",
    slack_norm: int = 1,
) -> Iterator[SolverState]:
    """Train a structural SVM by the n-slack cutting-plane algorithm.

    Parameters
    ----------
    task : Task
    X, Y : sequences of training inputs and outputs (already validated by the task)
    C : float
        Weight of the slacks in ``½‖w‖² + C Σ ξ_i`` (``½‖w‖² + (C/2) Σ ξ_i²`` for
        ``slack_norm=2``).
    tol : float, default=1e-3
        Stop when the duality gap is at most ``tol`` times the primal objective.
    max_iter : int, default=200
        Most iterations (oracle passes each followed by a round of sub-QPs).
    inactive_window : int, default=1
        Drop a constraint whose dual variable stayed zero for this many iterations (the
        oracle finds it again if needed).
    max_block_constraints : int, default=150
        Most constraints in one sub-QP of the decomposition (see
        :class:`~structsvm.solvers._decomposition.BlockDecomposition`).
    initial_state : SolverState, optional
        A state yielded by an earlier run on the same task, data and C: continue from it for
        up to ``max_iter`` further iterations (see
        :func:`~structsvm.solvers._cutting_plane.cutting_plane`).
    n_jobs : int or None, default=None
        Workers of the oracle passes (:func:`~structsvm.solvers._cluster.training_set`: a Dask
        cluster's, compiled threads or joblib's); the iterates do not depend on it.
    true_features : ndarray or sparse matrix of shape (n, size_joint_feature), optional
        The rows φ(x_i, y_i) of the training data, if the caller has computed them already.
    rescaling : {"margin", "slack"}, default="margin"
        The constraints (see :mod:`structsvm.solvers._oracle`).
    slack_norm : {1, 2}, default=1
        Penalise the slacks by ``C Σ ξ_i`` or by ``(C/2) Σ ξ_i²``.

    Yields
    ------
    SolverState
        The state after each iteration (weights, working set, history, and the dual state
        a later run can continue from).
    """
    check_objective_options(rescaling, slack_norm)
    optimiser = BlockDecomposition(max_block_constraints, SlackPenalty(slack_norm))
    with training_set(
        task, X, Y, n_jobs=n_jobs, true_features=true_features, rescaling=rescaling
    ) as source:
        yield from cutting_plane(
            source, C, PerExampleConstraints(), optimiser, tol=tol, max_iter=max_iter,
            inactive_window=inactive_window, initial_state=initial_state,
        )


def joint_kernel_n_slack(
    problem: JointKernelProblem,
    C: float,
    *,
    tol: float = SOLVER_DEFAULTS["n-slack"]["tol"],
    max_iter: int = SOLVER_DEFAULTS["n-slack"]["max_iter"],
    inactive_window: int = SOLVER_DEFAULTS["n-slack"]["inactive_window"],
    qp_tol: float = 1e-9,
    initial_state: SolverState | None = None,
) -> Iterator[SolverState]:
    """Train a structural SVM known through a joint kernel by the n-slack algorithm.

    The loop of :func:`n_slack` on a :class:`~structsvm.solvers._joint_kernel.JointKernelProblem`
    (Tsochantaridis, Joachims, Hofmann & Altun, JMLR 2005, section 4.2): the weights are the
    expansion ``w = Σ_k α_k ψ_k`` over the working set, whose Gram matrix is kept and extended
    by the joint kernel, and each iteration solves the whole working-set QP.

    Parameters
    ----------
    problem : JointKernelProblem
        The training set, seen through its joint kernel.
    C, tol, max_iter, inactive_window, initial_state
        As for :func:`n_slack`.
    qp_tol : float, default=1e-9
        Tolerance of each working-set QP.

    Yields
    ------
    SolverState
        The state after each iteration; its ``w`` is a
        :class:`~structsvm.solvers._joint_kernel.JointKernelWeights` expansion.
    """
    yield from cutting_plane(
        problem, C, PerExampleConstraints(), FullQP(warm_start=False, tol=qp_tol), tol=tol,
        max_iter=max_iter, inactive_window=inactive_window, initial_state=initial_state,
    )
