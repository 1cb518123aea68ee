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

Everything a step touches is sparse: φ(x_i, ŷ) comes from ``task.sparse_joint_feature`` as
sorted indices and values, each block ``w_i`` is kept in the same form (its support is the union
of the supports of the ψ_i(y) visited), and only ``w`` is dense. The weighted average of the
iterates, ``w̄_{k+1} = (1 − ρ) w̄_k + ρ w_{k+1}`` with ``ρ = 2 / (k + 2)`` after k steps, is kept
lazily as ``w̄ = w + σ z``: a step ``w_{k+1} = w_k + γ d`` gives
``w̄_{k+1} − w_{k+1} = (1 − ρ)(σ z − γ d)``, that is ``z ← z − (γ / σ) d`` on the support of d
and ``σ ← (1 − ρ) σ``. A step thus costs time in proportion to the stored entries of the block
and of ψ_i(ŷ), not to ``size_joint_feature``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from structsvm._task import Task
from structsvm.solvers._defaults import SOLVER_DEFAULTS
from structsvm.solvers._oracle import FeatureMatrix, loss_augmented_pass, primal_objective
from structsvm.solvers._state import (
    RunCounters,
    SolverState,
    converged_on_entry,
    meets_tolerance,
)

# Below this scale the lazy average folds σ into z, so that z cannot overflow.
_SMALLEST_SCALE = 1e-100


@numba.njit(cache=True)
def _merge(
    a_indices: np.ndarray,
    a_values: np.ndarray,
    a_scale: float,
    b_indices: np.ndarray,
    b_values: np.ndarray,
    b_scale: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``a_scale * a + b_scale * b`` of two sparse vectors with sorted indices.

    The result is stored on the union of the two supports, in sorted order.
    """
    n_a, n_b = len(a_indices), len(b_indices)
    indices = np.empty(n_a + n_b, dtype=np.int64)
    values = np.empty(n_a + n_b, dtype=np.float64)
    p = q = n = 0
    while p < n_a or q < n_b:
        if q == n_b or (p < n_a and a_indices[p] < b_indices[q]):
            indices[n] = a_indices[p]
            values[n] = a_scale * a_values[p]
            p += 1
        elif p == n_a or b_indices[q] < a_indices[p]:
            indices[n] = b_indices[q]
            values[n] = b_scale * b_values[q]
            q += 1
        else:
            indices[n] = a_indices[p]
            values[n] = a_scale * a_values[p] + b_scale * b_values[q]
            p += 1
            q += 1
        n += 1
    return indices[:n], values[:n]


@numba.njit(cache=True)
def _block_step(
    true_indices: np.ndarray,
    true_values: np.ndarray,
    hat_indices: np.ndarray,
    hat_values: np.ndarray,
    block_indices: np.ndarray,
    block_values: np.ndarray,
    w: np.ndarray,
    C: float,
    loss_gain: float,
    average_offset: np.ndarray,
    average_scale: float,
    averaging: bool,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Move block i towards the corner ``s = C (φ(x_i, y_i) − φ(x_i, ŷ))`` by line search.

    ``loss_gain`` is ``ℓ_s − ℓ_i``. With ``d = s − w_i`` the step is
    ``γ = clip((loss_gain − w · d) / ‖d‖², 0, 1)``; ``w`` and, if ``averaging``, the lazy
    average's ``z = average_offset`` (``σ = average_scale``) are updated in place on the
    support of d. Returns the new block's indices and values, and γ.
    """
    corner_indices, corner_values = _merge(
        true_indices, true_values, C, hat_indices, hat_values, -C
    )
    indices, direction = _merge(
        corner_indices, corner_values, 1.0, block_indices, block_values, -1.0
    )
    score_change = 0.0
    curvature = 0.0
    for n in range(len(indices)):
        score_change += w[indices[n]] * direction[n]
        curvature += direction[n] * direction[n]
    gap = loss_gain - score_change
    step = 0.0
    if curvature > 0:
        step = min(max(gap / curvature, 0.0), 1.0)
    elif gap > 0:
        # A zero direction leaves w alone: the dual gains gap · γ, so the full step is exact.
        step = 1.0
    values = np.empty(len(indices))
    p = 0
    for n in range(len(indices)):
        values[n] = step * direction[n]
        if p < len(block_indices) and block_indices[p] == indices[n]:
            values[n] += block_values[p]
            p += 1
        w[indices[n]] += step * direction[n]
        if averaging:
            average_offset[indices[n]] -= (step / average_scale) * direction[n]
    return indices, values, step


def _sparse_rows(matrix: FeatureMatrix) -> sp.csr_matrix:
    """Return joint features as CSR rows with sorted, distinct int64 column indices."""
    rows = sp.csr_matrix(matrix, dtype=np.float64)
    if not rows.has_canonical_format:
        rows = rows.copy()
        rows.sum_duplicates()
    return rows


@dataclass
class BCFWDual:
    """What a block-coordinate Frank–Wolfe run needs to continue after a pass.

    Attributes
    ----------
    block_indices, block_values : lists of n ndarrays
        The dual blocks ``w_i`` as sparse vectors (sorted indices, values); ``w = Σ_i w_i``.
        A step replaces a block's arrays and never writes into them.
    block_losses : ndarray of shape (n,)
        The blocks' ``ℓ_i``; ``total_loss = Σ_i ℓ_i``.
    w : ndarray
        The current (not averaged) iterate.
    total_loss : float
        ``Σ_i ℓ_i``.
    average_offset, average_scale, average_loss : ndarray, float and float
        The weighted average of the iterates, ``w + average_scale * average_offset``, and of
        ``Σ_i ℓ_i`` (unused when not averaging).
    steps : int
        Steps taken so far (the averaging weights depend on it).
    rng : RandomState
        The generator of the random order, at the state the next pass starts from.
    averaging : bool
        Whether the run averages its iterates.
    """

    block_indices: list[np.ndarray]
    block_values: list[np.ndarray]
    block_losses: np.ndarray
    w: np.ndarray
    total_loss: float
    average_offset: np.ndarray
    average_scale: float
    average_loss: float
    steps: int
    rng: np.random.RandomState
    averaging: bool

    def copy(self) -> BCFWDual:
        """Return a copy that later passes of a run leave alone."""
        return BCFWDual(
            list(self.block_indices),
            list(self.block_values),
            self.block_losses.copy(),
            self.w.copy(),
            self.total_loss,
            self.average_offset.copy(),
            self.average_scale,
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
    tol: float = SOLVER_DEFAULTS["bcfw"]["tol"],
    max_iter: int = SOLVER_DEFAULTS["bcfw"]["max_iter"],
    averaging: bool = SOLVER_DEFAULTS["bcfw"]["averaging"],
    order: str = SOLVER_DEFAULTS["bcfw"]["order"],
    random_state: int | np.random.RandomState | None = None,
    initial_state: SolverState | None = None,
    n_jobs: int | None = None,
    true_features: FeatureMatrix | None = None,
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
    n_jobs : int or None, default=None
        joblib workers for the duality-gap evaluation after each pass, one chunk of examples
        each (None: 1 unless a joblib context says otherwise). The steps themselves are
        sequential; the iterates do not depend on ``n_jobs``.
    true_features : ndarray or sparse matrix of shape (n, size_joint_feature), optional
        The rows φ(x_i, y_i) of the training data, if the caller has computed them already.

    Yields
    ------
    SolverState
        The state after each pass (``working_set`` is None: BCFW keeps its dual in blocks,
        in ``dual_state``).

    Notes
    -----
    Memory: ``w`` and the lazy average hold ``size_joint_feature`` floats each; the blocks hold
    the union of the supports of the ψ_i(y) visited. Nothing of size ``n × size`` is stored.
    """
    n, size = len(X), task.size_joint_feature
    if true_features is None:
        true_features = task.batch_joint_feature(X, Y)
    true_rows = _sparse_rows(true_features)
    true_indptr = true_rows.indptr
    true_indices = true_rows.indices.astype(np.int64, copy=False)
    true_values = true_rows.data
    done = converged_on_entry(initial_state, tol)
    if done is not None:
        yield done
        return
    counters = RunCounters.resume(initial_state, max_iter)
    if initial_state is None:
        rng = check_random_state(random_state)
        block_indices = [np.empty(0, dtype=np.int64)] * n
        block_values = [np.empty(0)] * n
        block_losses = np.zeros(n)
        w = np.zeros(size)
        total_loss = 0.0
        # The averaged iterate is w + average_scale * average_offset.
        average_offset, average_scale, average_loss = np.zeros(size), 1.0, 0.0
        steps = 0
        state = SolverState(w=w.copy(), working_set=None, history=counters.history)
    else:
        resume: BCFWDual = initial_state.dual_state.copy()
        if resume.averaging != bool(averaging):
            raise ValueError(
                f"cannot continue a run with averaging={resume.averaging} with "
                f"averaging={bool(averaging)}"
            )
        rng, block_losses, w = resume.rng, resume.block_losses, resume.w
        block_indices, block_values = resume.block_indices, resume.block_values
        total_loss, steps = resume.total_loss, resume.steps
        average_offset, average_scale = resume.average_offset, resume.average_scale
        average_loss = resume.average_loss
        state = SolverState(
            w=initial_state.w.copy(), working_set=None, history=counters.history
        )
    for iteration in counters.iterations:
        if iteration > 0:
            for i in rng.permutation(n) if order == "random" else range(n):
                y_hat = task.loss_augmented_argmax(X[i], Y[i], w)
                hat_indices, hat_values = task.sparse_joint_feature(X[i], y_hat)
                corner_loss = C * task.loss(Y[i], y_hat)
                begin, end = true_indptr[i], true_indptr[i + 1]
                block_indices[i], block_values[i], step = _block_step(
                    true_indices[begin:end],
                    true_values[begin:end],
                    hat_indices,
                    hat_values,
                    block_indices[i],
                    block_values[i],
                    w,
                    C,
                    corner_loss - block_losses[i],
                    average_offset,
                    average_scale,
                    averaging,
                )
                loss_change = step * (corner_loss - block_losses[i])
                block_losses[i] += loss_change
                total_loss += loss_change
                steps += 1
                if averaging:
                    weight = 2.0 / (steps + 1)
                    average_scale *= 1 - weight
                    average_loss = (1 - weight) * average_loss + weight * total_loss
                    if average_scale < _SMALLEST_SCALE:
                        # The first step (weight 1) sets the average to w: the offset is 0.
                        average_offset *= average_scale
                        average_scale = 1.0
            counters.oracle_calls += n
        # A fresh array: the state keeps it, and later steps change w in place.
        reported_w, reported_loss = w.copy(), total_loss
        if averaging and steps:
            reported_w += average_scale * average_offset
            reported_loss = average_loss
        oracle = loss_augmented_pass(task, X, Y, true_features, reported_w, n_jobs=n_jobs)
        counters.oracle_calls += n
        primal = primal_objective(reported_w @ reported_w, oracle.slacks, C)
        dual = reported_loss - 0.5 * reported_w @ reported_w
        state.w = reported_w
        counters.record(iteration, primal, dual, certified=oracle.certified)
        state.converged = meets_tolerance(primal, dual, tol)
        state.dual_state = BCFWDual(
            block_indices,
            block_values,
            block_losses,
            w,
            total_loss,
            average_offset,
            average_scale,
            average_loss,
            steps,
            rng,
            bool(averaging),
        ).copy()
        yield state
        if state.converged:
            return
