"""Block-coordinate Frank–Wolfe for the structural SVM (Lacoste-Julien, Jaggi, Schmidt &
Pletscher, "Block-coordinate Frank–Wolfe optimization for structural SVMs", ICML 2013).

In this package's scaling (``½‖w‖² + C Σ ξ_i``) the dual keeps, for every example i, a block
``w_i ∈ C · conv{ψ_i(y)}`` and ``ℓ_i ∈ C · conv{Δ(y_i, y)}`` (both start at 0, the true output);
``w = Σ_i w_i`` and the dual objective is ``D = Σ_i ℓ_i − ½‖w‖²``. A step on block i calls the
loss-augmented oracle at the current w for ``ŷ``, takes the corner ``s = C ψ_i(ŷ)``,
``ℓ_s = C Δ(y_i, ŷ)`` and moves towards it by the exact line search
``γ = clip(g_i / ‖w_i − s‖², 0, 1)``, where ``g_i = ℓ_s − ℓ_i − w · (s − w_i)`` is the block's
duality gap. Summed over the blocks at one w these gaps are exactly ``P(w) − D``; after every
pass the solver evaluates that gap with one batch oracle call, so the stopping rule is the same
certified one as the cutting-plane solvers'.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from structsvm.solvers.cutting_plane import SolverState, converged_on_entry, resumed_history
from structsvm.solvers.history import iteration_record
from structsvm.solvers.oracle import FeatureMatrix, loss_augmented_pass, primal_objective
from structsvm.task import Task


def _add_row(target: np.ndarray, matrix: FeatureMatrix, i: int, scale: float) -> None:
    """Add ``scale`` times row i of a dense or CSR matrix to ``target`` in place."""
    if sp.issparse(matrix):
        begin, end = matrix.indptr[i], matrix.indptr[i + 1]
        target[matrix.indices[begin:end]] += scale * matrix.data[begin:end]
    else:
        target += scale * matrix[i]


@dataclass
class BCFWDual:
    """What a block-coordinate Frank–Wolfe run needs to continue after a pass.

    Attributes
    ----------
    blocks : ndarray of shape (n, size_joint_feature)
        The dual blocks ``w_i``; ``w = Σ_i w_i``.
    block_losses : ndarray of shape (n,)
        The blocks' ``ℓ_i``; ``total_loss = Σ_i ℓ_i``.
    w : ndarray
        The current (not averaged) iterate.
    total_loss : float
        ``Σ_i ℓ_i``.
    average_w, average_loss : ndarray and float
        The weighted average of the iterates (zero when not averaging).
    steps : int
        Steps taken so far (the averaging weights depend on it).
    rng : RandomState
        The generator of the random order, at the state the next pass starts from.
    averaging : bool
        Whether the run averages its iterates.
    """

    blocks: np.ndarray
    block_losses: np.ndarray
    w: np.ndarray
    total_loss: float
    average_w: np.ndarray
    average_loss: float
    steps: int
    rng: np.random.RandomState
    averaging: bool

    def copy(self) -> BCFWDual:
        """Return a copy that later passes of a run leave alone."""
        return BCFWDual(
            self.blocks.copy(),
            self.block_losses.copy(),
            self.w.copy(),
            self.total_loss,
            self.average_w.copy(),
            self.average_loss,
            self.steps,
            copy.deepcopy(self.rng),
            self.averaging,
        )


def bcfw(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    C: float,
    *,
    tol: float = 1e-3,
    max_iter: int = 500,
    averaging: bool = True,
    order: str = "random",
    random_state: int | np.random.RandomState | None = None,
    initial_state: SolverState | None = None,
) -> Iterator[SolverState]:
    """Train a structural SVM by block-coordinate Frank–Wolfe.

    Parameters
    ----------
    task : Task
    X, Y : sequences of training inputs and outputs (already validated by the task)
    C : float
        Weight of the summed slacks in ``½‖w‖² + C Σ ξ_i`` (BCFW's λ is ``1 / (C n)``).
    tol : float, default=1e-3
        Stop when the duality gap is at most ``tol`` times the primal objective.
    max_iter : int, default=500
        Most passes over the data.
    averaging : bool, default=True
        Report the weighted average of the iterates (weights proportional to the step count),
        which converges faster in practice; the gap is certified for the reported weights.
    order : {"random", "cyclic"}, default="random"
        Visit the blocks in a fresh random permutation each pass, or in index order.
    random_state : int, RandomState or None
        Seed of the random order (not used when continuing: the order goes on from the
        generator state kept in ``initial_state``).
    initial_state : SolverState, optional
        A state yielded by an earlier run on the same task, data and C with the same
        ``averaging``: continue from its blocks, average, step count and random generator
        for up to ``max_iter`` further passes, numbering them on from its history, exactly as
        the earlier run would have gone on. A state that already meets ``tol`` is yielded
        back, marked converged, without a new pass. ``initial_state`` is left unchanged.

    Yields
    ------
    SolverState
        The state after each pass (``working_set`` is None: BCFW keeps its dual in blocks,
        in ``dual_state``).
    """
    if order not in ("random", "cyclic"):
        raise ValueError(f"order must be 'random' or 'cyclic', got {order!r}")
    n, size = len(X), task.size_joint_feature
    true_features = task.batch_joint_feature(X, Y)
    if initial_state is None:
        rng = check_random_state(random_state)
        blocks = np.zeros((n, size))
        block_losses = np.zeros(n)
        w = np.zeros(size)
        total_loss = 0.0
        average_w, average_loss = np.zeros(size), 0.0
        steps = 0
        state = SolverState(w=w.copy(), working_set=None)
        start = time.perf_counter()
        oracle_calls = 0
        first, last_iteration = 0, max_iter
    else:
        done = converged_on_entry(initial_state, tol)
        if done is not None:
            yield done
            return
        resume: BCFWDual = initial_state.dual_state.copy()
        if resume.averaging != bool(averaging):
            raise ValueError(
                f"cannot continue a run with averaging={resume.averaging} with "
                f"averaging={bool(averaging)}"
            )
        rng, blocks, block_losses, w = resume.rng, resume.blocks, resume.block_losses, resume.w
        total_loss, steps = resume.total_loss, resume.steps
        average_w, average_loss = resume.average_w, resume.average_loss
        history, last, start = resumed_history(initial_state)
        state = SolverState(w=initial_state.w.copy(), working_set=None, history=history)
        oracle_calls = int(history[-1]["oracle_calls"])
        first, last_iteration = last + 1, last + max_iter
    for iteration in range(first, last_iteration + 1):
        if iteration > 0:
            for i in rng.permutation(n) if order == "random" else range(n):
                y_hat = task.loss_augmented_argmax(X[i], Y[i], w)
                corner = -C * task.joint_feature(X[i], y_hat)
                _add_row(corner, true_features, i, C)
                corner_loss = C * task.loss(Y[i], y_hat)
                direction = corner - blocks[i]
                block_gap = corner_loss - block_losses[i] - w @ direction
                curvature = direction @ direction
                step = 0.0 if curvature <= 0 else min(max(block_gap / curvature, 0.0), 1.0)
                blocks[i] += step * direction
                w += step * direction
                loss_change = step * (corner_loss - block_losses[i])
                block_losses[i] += loss_change
                total_loss += loss_change
                steps += 1
                if averaging:
                    weight = 2.0 / (steps + 1)
                    average_w *= 1 - weight
                    average_w += weight * w
                    average_loss = (1 - weight) * average_loss + weight * total_loss
            oracle_calls += n
        reported_w, reported_loss = (w, total_loss)
        if averaging and steps:
            reported_w, reported_loss = average_w, average_loss
        oracle = loss_augmented_pass(task, X, Y, true_features, reported_w)
        oracle_calls += n
        primal = primal_objective(reported_w, oracle.slacks, C)
        dual = reported_loss - 0.5 * reported_w @ reported_w
        state.w = reported_w.copy()
        state.history.append(
            iteration_record(
                iteration,
                primal,
                dual,
                n_constraints=0,
                oracle_calls=oracle_calls,
                qp_time=0.0,
                start=start,
            )
        )
        state.converged = primal - dual <= tol * primal
        state.dual_state = BCFWDual(
            blocks,
            block_losses,
            w,
            total_loss,
            average_w,
            average_loss,
            steps,
            rng,
            bool(averaging),
        ).copy()
        yield state
        if state.converged:
            return
