"""The structured perceptron (Collins, EMNLP 2002) as a solver: one epoch per iteration.

On a mistake ``ŷ = argmax_y w · φ(x, y) ≠ y`` the update is ``w += φ(x, y) − φ(x, ŷ)``; the
averaged perceptron reports ``w_avg = w − Σ_t t·Δ_t / T`` (Daumé III, "A course in machine
learning", 2012). An epoch is a Python loop over the task's methods, or one compiled call
through its compiled oracle, with the same iterates.
"""

from __future__ import annotations

import copy
import functools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import find_compiled_oracle
from structsvm._task import Task
from structsvm._utils.validation import check_random_state
from structsvm.solvers._compiled_arrays import same_labels
from structsvm.solvers._example_oracle import stacked_labels
from structsvm.solvers._state import RunCounters, SolverState


@dataclass
class PerceptronState:
    """What a perceptron run needs to continue after an epoch.

    Attributes
    ----------
    w : ndarray
        The current (not averaged) weights.
    weighted_updates : ndarray
        ``Σ_t t·Δ_t`` over the updates Δ_t made at step t.
    step : int
        The number of the next step (steps so far plus one).
    n_updates : int
        Updates made so far.
    rng : RandomState
        The generator of the shuffling, at the state the next epoch starts from.
    """

    w: np.ndarray
    weighted_updates: np.ndarray
    step: int
    n_updates: int
    rng: np.random.RandomState

    def copy(self) -> PerceptronState:
        """Return a copy that later epochs of a run leave alone."""
        return copy.deepcopy(self)

    def reported_weights(self, averaged: bool) -> np.ndarray:
        """Return the averaged weights, or a copy of the current ones."""
        return self.w - self.weighted_updates / self.step if averaged else self.w.copy()


def perceptron(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    *,
    max_iter: int = 100,
    averaged: bool = False,
    shuffle: bool = True,
    random_state: int | np.random.RandomState | None = None,
    initial_state: SolverState | None = None,
    compiled: bool | None = None,
) -> Iterator[SolverState]:
    """Train the structured perceptron, yielding the state after every epoch.

    Parameters
    ----------
    task : Task
    X, Y : sequences of training inputs and outputs (already validated by the task)
    max_iter : int, default=100
        Most epochs (passes over the data).
    averaged : bool, default=False
        Report the average of the weights over all steps rather than the last ones.
    shuffle : bool, default=True
        Visit the examples in a new random order each epoch.
    random_state : int, RandomState or None
        Seed of the shuffling (not used when continuing).
    initial_state : SolverState, optional
        A state yielded by an earlier run on the same task and data: continue from its
        weights, sums and generator for up to ``max_iter`` further epochs. A state whose last
        epoch made no update is yielded back as it is.
    compiled : bool or None, default=None
        Make each epoch one compiled call through the task's compiled oracle: None where the
        task offers one, True to require it, False for the Python loop; same iterates.

    Yields
    ------
    SolverState
        The state after each epoch: ``w`` the reported weights, one history record per epoch
        (``epoch``, ``mistakes``, ``n_updates`` running total, ``time``), ``converged`` when an
        epoch made no update, ``dual_state`` a :class:`PerceptronState`.
    """
    if initial_state is not None and initial_state.converged:
        yield initial_state
        return
    counters = RunCounters.resume(initial_state, max_iter, first=1, number="epoch")
    if initial_state is None:
        zeros = np.zeros(task.size_joint_feature)
        run = PerceptronState(zeros, zeros.copy(), 1, 0, check_random_state(random_state))
    else:
        run = initial_state.dual_state.copy()
    state = SolverState(run.reported_weights(averaged), None, counters.history)
    oracle = find_compiled_oracle(task, X, Y, compiled=compiled, purpose="perceptron epochs")
    if oracle is None:
        steps = functools.partial(_python_epoch, task, X, Y)
    else:
        labels = stacked_labels(oracle, Y)
        fns = oracle.functions(("scores", "decode", "features"))
        steps = functools.partial(_compiled_epoch, fns, oracle.data, *labels)
    n = len(X)
    for epoch in counters.iterations:
        mistakes = steps(run.rng.permutation(n) if shuffle else np.arange(n), run)
        run.n_updates += mistakes
        counters.history.append({
            "epoch": epoch, "mistakes": mistakes, "n_updates": run.n_updates,
            "time": time.perf_counter() - counters.start,
        })
        state.w = run.reported_weights(averaged)
        state.converged = mistakes == 0
        state.dual_state = run.copy()
        yield state
        if state.converged:
            return


def _python_epoch(
    task: Task, X: Sequence[Any], Y: Sequence[Any], order: np.ndarray, run: PerceptronState
) -> int:
    """Make the steps of ``order`` with the task's Python methods; return the mistakes."""
    mistakes = 0
    for i in order:
        y_hat = task.argmax(X[i], run.w)
        if not task.outputs_equal(y_hat, Y[i]):
            update = task.joint_feature(X[i], Y[i]) - task.joint_feature(X[i], y_hat)
            if sp.issparse(update):  # a task may return φ as one sparse row
                update = update.toarray().ravel()
            run.w += update
            run.weighted_updates += run.step * update
            mistakes += 1
        run.step += 1
    return mistakes


def _compiled_epoch(
    fns: tuple, data: Any, true_labels: np.ndarray, label_offsets: np.ndarray,
    order: np.ndarray, run: PerceptronState,
) -> int:
    """Make the steps of ``order`` in one call of :func:`perceptron_epoch`; return the mistakes."""
    mistakes, step = perceptron_epoch(
        fns, data, order.astype(np.int64, copy=False), true_labels, label_offsets,
        run.w, run.weighted_updates, run.step,
    )
    run.step = int(step)
    return int(mistakes)


@numba.njit(cache=True)
def perceptron_epoch(fns, data, order, true_labels, label_offsets, w, weighted_updates, step):
    """Make the perceptron steps of ``order``; return the mistakes and the next step's number.

    On a mistake at step t, every column j of φ(x_i, y_i) or φ(x_i, ŷ) gets
    ``u_j = φ_j(x_i, y_i) − φ_j(x_i, ŷ)`` (a missing entry counts 0): ``w[j] += u_j`` and
    ``weighted_updates[j] += t u_j``.
    """
    mistakes = 0
    for k in range(len(order)):
        i = order[k]
        found = fns[1](data, i, w, fns[0](data, i, w), False)
        truth = true_labels[label_offsets[i] : label_offsets[i + 1]]
        if not same_labels(found, truth):
            true_indices, true_values = fns[2](data, i, truth)
            found_indices, found_values = fns[2](data, i, found)
            p = q = 0
            while p < len(true_indices) or q < len(found_indices):
                if q == len(found_indices) or (
                    p < len(true_indices) and true_indices[p] < found_indices[q]
                ):
                    column, update = true_indices[p], true_values[p] - 0.0
                    p += 1
                elif p == len(true_indices) or found_indices[q] < true_indices[p]:
                    column, update = found_indices[q], 0.0 - found_values[q]
                    q += 1
                else:
                    column, update = true_indices[p], true_values[p] - found_values[q]
                    p += 1
                    q += 1
                w[column] += update
                weighted_updates[column] += step * update
            mistakes += 1
        step += 1
    return mistakes, step
