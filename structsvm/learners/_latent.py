"""The latent structural SVM, trained by the concave–convex procedure (Yu & Joachims 2009)."""

from __future__ import annotations

import collections
import time
from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np

from structsvm._task import LatentTask
from structsvm._utils.parallel import map_chunks
from structsvm._utils.validation import (
    N_JOBS,
    RANDOM_STATE,
    Interval,
    Options,
    ParameterConstraints,
    check_targets_given,
    validate_parameters,
)
from structsvm.learners._base import StructuredEstimator
from structsvm.learners._iterative import InterruptibleFit, interruptible_fit
from structsvm.solvers import SOLVERS, SolverState


def latent_objective(
    task: LatentTask, X: Sequence[Any], Y: Sequence[Any], w: np.ndarray, C: float
) -> tuple[float, list[Any]]:
    r"""Return the latent structural SVM's primal objective at ``w`` and the completions there.

    .. math:: f(w) = \tfrac12 \|w\|^2 + C \sum_i \Big[\max_{y, h} \big(\Delta(y_i, y)
              + w\cdot\phi(x_i, y, h)\big) - \max_h w\cdot\phi(x_i, y_i, h)\Big]

    Parameters
    ----------
    task : LatentTask
    X, Y : sequences
        Inputs and observed outputs (already checked by the task).
    w : ndarray of shape (task.size_joint_feature,)
    C : float

    Returns
    -------
    objective : float
        f(w).
    completions : list
        ``latent_argmax(x_i, y_i, w)`` of every example: the h attaining the second maximum.
    """
    completions = list(task.batch_latent_argmax(X, Y, w))
    truths = list(zip(Y, completions, strict=True))
    violators = task.batch_loss_augmented_argmax(X, truths, w)
    slacks = (
        task.batch_loss(truths, violators)
        + task.batch_score(X, violators, w)
        - task.batch_score(X, truths, w)
    )
    return 0.5 * float(w @ w) + C * float(np.sum(slacks)), completions


class LatentStructuredSVM(InterruptibleFit, StructuredEstimator):
    r"""Structural SVM with latent variables, trained by the concave–convex procedure.

    The task (a :class:`~structsvm.LatentTask`) scores pairs ``(y, h)`` of an observed output y
    and a hidden completion h; only y is given for training. The estimator minimises the
    non-convex primal objective (:func:`latent_objective`)

    .. math:: f(w) = \tfrac12 \|w\|^2 + C \sum_i \Big[\max_{y, h} \big(\Delta(y_i, y)
              + w\cdot\phi(x_i, y, h)\big) - \max_h w\cdot\phi(x_i, y_i, h)\Big]

    by the concave–convex procedure (CCCP) of Yu & Joachims: each outer round completes every
    example with ``h_i = task.latent_argmax(x_i, y_i, w)``, which makes the concave part
    linear, and solves the resulting convex structural SVM, whose true outputs are the pairs
    ``(y_i, h_i)``, with one of :class:`~structsvm.StructuredSVM`'s solvers. The convex
    problem of a round bounds f from above and touches it at the round's starting weights, so
    f never increases; a round whose weights would raise f (possible only through the
    solver's tolerance) is not kept, and the fit stops.

    The first round starts from ``task.initial_latent(X, Y, random_state)`` (the ready-made
    tasks cluster each label's inputs by k-means). Every round's solver starts from ``w = 0``:
    the working set of constraints (and bcfw's blocks) hold the true joint features
    φ(x_i, y_i, h_i), which the new completions change, so no solver's state carries over.

    Parameters
    ----------
    task : LatentTask
        The problem, with outputs ``(y, h)``.
    C : float, default=1.0
        Weight of the slacks (the convention of :class:`~structsvm.StructuredSVM`).
    solver : {"n-slack", "1-slack", "bcfw"}, default="1-slack"
        The solver of the convex problem of each round (margin rescaling, L1 slacks).
    tol : float, default=1e-3
        The tolerance of each round's solver (relative duality gap) and of the outer loop: stop
        when a round lowers f by at most ``tol · f``.
    max_outer : int, default=20
        Most outer rounds.
    max_iter : int, optional
        Most iterations of the solver in each round (the solver's default if None).
    random_state : int, RandomState or None, default=None
        Seed of ``initial_latent`` and of bcfw's order.
    n_jobs : int or None, default=None
        Workers of the solvers' oracle passes and of ``predict`` (see
        :class:`~structsvm.StructuredSVM`).

    Attributes
    ----------
    w_ : ndarray of shape (task.size_joint_feature,)
        Learned weights (those of the last completed round).
    latent_ : list
        The completions ``latent_argmax(x_i, y_i, w_)`` of the training examples.
    objective_ : float
        f(``w_``).
    history_ : list of dict
        One record per completed round: ``round``, ``objective`` (f at the round's weights),
        ``inner_objective`` (the round's convex objective there, an upper bound on f),
        ``inner_iterations``, ``inner_converged``, ``changed`` (examples whose completion at
        the round's weights differs from the one the round trained with) and ``time``
        (cumulative seconds).
    n_outer_ : int
        Completed rounds.
    converged_ : bool
        Whether the outer loop stopped by its rule (no completion changed, or f decreased by
        at most ``tol · f``) rather than by ``max_outer``.
    interrupted_ : bool
        Whether fit was stopped by KeyboardInterrupt; the model of the last completed round is
        kept (none if the first round did not complete).

    Notes
    -----
    ``predict`` returns the observed part y of ``task.argmax(x, w_)`` only; ``predict_latent``
    returns the pairs ``(y, h)``.

    References
    ----------
    C.-N. J. Yu and T. Joachims, "Learning structural SVMs with latent variables", ICML 2009.
    A. L. Yuille and A. Rangarajan, "The concave-convex procedure", Neural Computation 15(4),
    2003.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        **StructuredEstimator._parameter_constraints,
        "C": [Interval(Real, 0, None, closed="neither")],
        "solver": [Options(*sorted(SOLVERS))],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_outer": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
    }

    _interrupted_unit = "round"

    def __init__(
        self,
        task: LatentTask,
        *,
        C: float = 1.0,
        solver: str = "1-slack",
        tol: float = 1e-3,
        max_outer: int = 20,
        max_iter: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
    ) -> None:
        self.task = task
        self.C = C
        self.solver = solver
        self.tol = tol
        self.max_outer = max_outer
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_task(self) -> LatentTask:
        task = super()._check_task()
        if not isinstance(task, LatentTask):
            raise TypeError(
                f"task must be a structsvm.LatentTask (outputs (y, h) with latent_argmax), "
                f"got {type(task).__name__}"
            )
        return task

    def _solve_round(self, task: LatentTask, X: Any, truths: list[Any]) -> SolverState:
        """Solve the convex structural SVM whose true outputs are ``truths``; return its end."""
        options: dict[str, Any] = {"tol": float(self.tol), "n_jobs": self.n_jobs}
        if self.max_iter is not None:
            options["max_iter"] = self.max_iter
        if self.solver == "bcfw":
            options["random_state"] = self.random_state
        states = SOLVERS[self.solver](task, X, truths, float(self.C), **options)
        return collections.deque(states, maxlen=1)[0]

    @interruptible_fit
    def fit(self, X: Sequence[Any], Y: Sequence[Any]) -> LatentStructuredSVM:
        """Learn the weights from inputs X and observed outputs Y; return self.

        Raises
        ------
        ValueError
            For invalid parameters or data.
        TypeError
            If the task is not a :class:`~structsvm.LatentTask`.
        """
        validate_parameters(self)
        task = self._check_task()
        check_targets_given(Y)
        X, Y = task.check_data(X, Y)
        for name in ("w_", "latent_", "objective_", "history_", "n_outer_", "converged_"):
            vars(self).pop(name, None)
        start = time.perf_counter()
        completions = list(task.initial_latent(X, Y, self.random_state))
        objective, history = np.inf, []
        converged = False
        for number in range(1, self.max_outer + 1):
            state = self._solve_round(task, X, list(zip(Y, completions, strict=True)))
            new_objective, new_completions = latent_objective(
                task, X, Y, state.w, float(self.C)
            )
            if new_objective > objective:
                converged = True
                break
            changed = sum(
                not np.array_equal(np.asarray(h), np.asarray(old))
                for h, old in zip(new_completions, completions, strict=True)
            )
            decrease = objective - new_objective
            converged = changed == 0 or decrease <= self.tol * new_objective
            history.append(
                {
                    "round": number,
                    "objective": new_objective,
                    "inner_objective": state.history[-1]["primal"],
                    "inner_iterations": len(state.history),
                    "inner_converged": state.converged,
                    "changed": changed,
                    "time": time.perf_counter() - start,
                }
            )
            vars(self).update(
                {
                    "w_": state.w,
                    "latent_": new_completions,
                    "objective_": new_objective,
                    "history_": list(history),
                    "n_outer_": number,
                    "converged_": converged,
                }
            )
            objective, completions = new_objective, new_completions
            if converged:
                break
        self.converged_ = converged
        return self

    def predict_latent(self, X: Sequence[Any]) -> list[Any]:
        """Return the pairs ``(y, h)`` of ``task.argmax(x, w_)`` for every input."""
        task = self._check_task()
        self._check_fitted()
        X, _ = task.check_data(X)
        return map_chunks(task.batch_argmax, (X,), self.w_, n_jobs=self.n_jobs)

    def predict(self, X: Sequence[Any]) -> list[Any]:
        """Return the observed outputs y of ``task.argmax(x, w_)`` (without their h)."""
        return [y for y, _ in self.predict_latent(X)]

    def score(self, X: Sequence[Any], Y: Sequence[Any]) -> float:
        """Return ``1 - Σ Δ(Y[i], ŷ_i) / Σ max_loss(Y[i])`` (the accuracy for the 0/1 loss)."""
        task = self._check_task()
        X, Y = task.check_data(X, Y)
        predicted = self.predict_latent(X)
        truths = [(y, h) for y, (_, h) in zip(Y, predicted, strict=True)]
        losses = task.batch_loss(truths, predicted)
        worst = sum(task.max_loss(truth) for truth in truths)
        return float(1.0 - np.sum(losses) / worst) if worst > 0 else 1.0
