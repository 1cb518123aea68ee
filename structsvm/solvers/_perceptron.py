"""The structured perceptron (Collins, EMNLP 2002) as a solver: one epoch per iteration.

Each epoch visits every training example once, predicts ``ŷ = argmax_y w · φ(x, y)`` with the
current weights and, when ``ŷ`` differs from the true output, updates ``w += φ(x, y) − φ(x, ŷ)``.
The averaged perceptron (Freund & Schapire 1999; Collins 2002) reports the average of the
weights over all steps, kept without storing them: ``w_avg = w − Σ_t t·Δ_t / T`` (Daumé III,
"A course in machine learning", 2012).

A task that offers a compiled oracle (:meth:`structsvm.Task.compiled_oracle`) has each epoch
made by one compiled call (:mod:`structsvm.solvers._perceptron_epoch`), with the same iterates.
"""

from __future__ import annotations

import copy
import functools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from structsvm._compiled_oracle import find_compiled_oracle
from structsvm._task import Task
from structsvm.solvers._perceptron_epoch import compiled_epochs
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
        task offers one, True to require it, False for the Python loop (see
        :func:`~structsvm._compiled_oracle.find_compiled_oracle`). The iterates are the same.

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
        size = task.size_joint_feature
        run = PerceptronState(
            np.zeros(size), np.zeros(size), 1, 0, check_random_state(random_state)
        )
    else:
        run = initial_state.dual_state.copy()
    state = SolverState(
        w=run.reported_weights(averaged), working_set=None, history=counters.history
    )
    oracle = find_compiled_oracle(task, X, Y, compiled=compiled, purpose="perceptron epochs")
    if oracle is None:
        steps = functools.partial(_python_epoch, task, X, Y)
    else:
        steps = compiled_epochs(oracle, Y)
    n = len(X)
    for epoch in counters.iterations:
        mistakes = steps(run.rng.permutation(n) if shuffle else np.arange(n), run)
        run.n_updates += mistakes
        counters.history.append(
            {
                "epoch": epoch,
                "mistakes": mistakes,
                "n_updates": run.n_updates,
                "time": time.perf_counter() - counters.start,
            }
        )
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
