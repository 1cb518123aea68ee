"""How an estimator runs an iterative solver: the one place that adopts solver states.

Every iterative estimator (the structural SVMs, the kernel multiclass SVM, the structured
perceptron) trains by a solver generator that yields a
:class:`~structsvm.solvers.SolverState` after every iteration. :class:`IterativeEstimator`
runs it and, for all of them alike, keeps each state on the estimator, draws the progress bar,
logs every iteration, writes checkpoints, warns when the budget runs out before the stopping
rule holds, stops cleanly on KeyboardInterrupt, and continues an earlier fit with
``warm_start=True``.
"""

from __future__ import annotations

import functools
import logging
import os
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator
from numbers import Integral
from typing import Any, ClassVar

import numpy as np

from structsvm._utils.checkpoint import read_checkpoint, write_checkpoint
from structsvm._utils.estimator import not_fitted_error, warn_not_converged
from structsvm._utils.fingerprint import check_same_problem
from structsvm._utils.parallel import compiled_threads
from structsvm._utils.validation import BOOLEAN, PATH, Interval, ParameterConstraints
from structsvm.solvers import SolverState

logger = logging.getLogger("structsvm")


def is_interrupt(error: BaseException) -> bool:
    """Tell whether an exception is a KeyboardInterrupt, also one raised inside compiled code.

    A SIGINT handled while a Numba-compiled function hands back its result surfaces as a
    SystemError ("returned a result with an exception set") caused by the KeyboardInterrupt,
    or by another such SystemError when the function hands back several arrays (each one's
    conversion fails in turn): a chain of SystemErrors that ends in the KeyboardInterrupt.
    """
    seen = set()
    while isinstance(error, SystemError) and id(error) not in seen:
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return isinstance(error, KeyboardInterrupt)


def interruptible_fit(fit: Callable[..., Any]) -> Callable[..., Any]:
    """Make a KeyboardInterrupt at any moment of ``fit`` a clean stop that keeps the model.

    The decorated ``fit`` sets ``interrupted_``; when interrupted it warns and returns the
    estimator, which holds the last completed iteration (see :meth:`IterativeEstimator._adopt`).
    NumPy's floating-point error state is left as the fit found it: an interrupt that lands
    inside NumPy's own error-state context (``np.linalg`` enters one per call) between setting
    it and recording how to restore it would otherwise leave it set for the rest of the process.
    """

    @functools.wraps(fit)
    def interruptible(self: InterruptibleFit, *args: Any, **kwargs: Any) -> Any:
        self.interrupted_ = False
        # Leaving this context restores the error state it entered with, whatever was set since.
        with np.errstate():
            try:
                return fit(self, *args, **kwargs)
            except (KeyboardInterrupt, SystemError) as error:
                if not is_interrupt(error):
                    raise
                self._note_interrupt()
                return self

    return interruptible


def on_threads(
    iterations: Iterator[SolverState], n_jobs: int | None
) -> Iterator[SolverState]:
    """Yield the states of a solver, each computed with the BLAS on the fit's threads.

    As the compiled passes do (:func:`~structsvm._utils.parallel.compiled_threads`; one thread
    for an estimator without ``n_jobs``): a BLAS that spreads a solver's small products over
    cores that other work keeps busy waits far longer than it computes. The limit holds only
    while the solver computes, not while the caller keeps a state.
    """
    while True:
        with compiled_threads(n_jobs):
            state = next(iterations, None)
        if state is None:
            return
        yield state


class InterruptibleFit:
    """Mixin of the estimators whose ``fit`` is decorated with :func:`interruptible_fit`."""

    _interrupted_unit = "iteration"
    """What a fit completes one at a time, as the interrupt warning names it."""

    def _note_interrupt(self) -> None:
        """Record and report that the fit was interrupted."""
        self.interrupted_ = True
        warnings.warn(
            f"{type(self).__name__}.fit was interrupted: keeping the model of the last "
            f"completed {self._interrupted_unit}",
            RuntimeWarning,
            stacklevel=4,
        )


class IterativeEstimator(InterruptibleFit):
    """Mixin of the estimators trained by a solver generator.

    A subclass has the parameters ``warm_start``, ``progress``, ``verbose``, ``checkpoint``
    and ``checkpoint_every`` (their table entries are merged into its own), decorates ``fit``
    with :func:`interruptible_fit`, calls :meth:`_run_solver` from it and implements
    :meth:`_fitted_attributes` to give its own fitted attributes for a state. It sets, on
    every state, ``history_``, ``n_iter_``, ``converged_`` and ``dual_state_``, and
    ``interrupted_`` on every fit.

    A KeyboardInterrupt at any moment of a fit stops it: ``fit`` warns and returns the
    estimator with ``interrupted_ = True`` and the model of the last completed iteration, from
    which ``warm_start=True`` continues exactly. A fresh fit interrupted before its first
    iteration completes leaves the estimator unfitted; a continued fit so interrupted keeps
    the model it continued from.
    """

    _iteration_key = "iteration"
    """The key of a history record that numbers it."""

    _budget = ("max_iter", "iterations")
    """The parameter that bounds the iterations, and what they are called."""

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        "progress": [BOOLEAN],
        "verbose": [Interval(Integral, 0, None, closed="left")],
        "warm_start": [BOOLEAN],
        "checkpoint": [PATH, None],
        "checkpoint_every": [Interval(Integral, 1, None, closed="left")],
    }
    """The parameters every iterative estimator has, merged into its own table."""

    warm_start: bool
    progress: bool
    tol: float
    checkpoint: str | os.PathLike[str] | None

    def _solver_name(self) -> str:
        """Return how progress bars, warnings and logs name the fit."""
        return type(self).__name__

    def _fitted_attributes(self, state: SolverState) -> dict[str, Any]:
        """Return the estimator's own fitted attributes for a solver state."""
        raise NotImplementedError

    def _describe(self, record: dict[str, float]) -> str:
        """Return the log line of one history record."""
        return (
            f"iteration {record['iteration']}: primal {record['primal']:.6g}, "
            f"dual {record['dual']:.6g}, gap {record['gap']:.3g} "
            f"(relative {record['relative_gap']:.3g}), {record['n_constraints']} constraints, "
            f"{record['oracle_calls']} oracle calls, {record['time']:.2f} s"
        )

    def _postfix(self, record: dict[str, float]) -> dict[str, Any]:
        """Return what the progress bar shows of one history record."""
        return {
            "iteration": int(record["iteration"]),
            "primal": f"{record['primal']:.5g}",
            "relative_gap": f"{record['relative_gap']:.2e}",
        }

    def _summary(self, record: dict[str, float]) -> str:
        """Return what the closing log line says of the last record."""
        return f"primal {record['primal']:.6g}, relative gap {record['relative_gap']:.3g}"

    def _shortfall(self, record: dict[str, float]) -> str:
        """Return how far the last record is from the stopping rule, for the budget warning."""
        return f"at a relative duality gap of {record['relative_gap']:.2e}, above tol={self.tol:g}"

    def _continued_state(self, key: dict[str, Any]) -> SolverState | None:
        """Return the state a warm start continues from, or None for a fresh fit.

        ``key`` identifies the training problem, which must be the one of the earlier fit.
        """
        state = getattr(self, "_resumable_state", None)
        if not self.warm_start or state is None:
            return None
        check_same_problem(self._problem_key, key, type(self).__name__)
        return state

    def _run_solver(
        self,
        iterations: Generator[SolverState, None, None],
        *,
        initial_state: SolverState | None,
        max_iter: int,
        verbose: int,
        checkpoint_every: int,
        key: dict[str, Any],
    ) -> SolverState | None:
        """Run a solver generator to its end, keeping every state on the estimator.

        Parameters
        ----------
        iterations : generator of SolverState
            The solver, started (from ``initial_state`` if continuing). It is closed when
            the run ends, however it ends, so that what it holds for the fit (such as a
            training set scattered to a cluster) is released at once.
        initial_state : SolverState or None
            The state it continues from (see :meth:`_continued_state`).
        max_iter : int
            The iterations it may make; the budget warning names it.
        verbose : int
            Log every iteration and a summary at INFO level if positive.
        checkpoint_every : int
            Write ``self.checkpoint`` (if set) after every iteration whose number reaches or
            passes a multiple of this (a solver may skip numbers: bcfw records only the passes
            whose gap it evaluates), and once more at the end.
        key : dict
            What identifies the training problem; kept with the states so that a warm start
            or a resumed checkpoint can tell the problem has not changed.

        Returns
        -------
        SolverState or None
            The last state, or None if the fit stopped before the first one.
        """
        # Imported here: tqdm.auto probes for IPython and widgets, which an import need not do.
        from tqdm.auto import tqdm

        first = (
            int(initial_state.history[-1][self._iteration_key])
            if initial_state and initial_state.history
            else 0
        )
        state = None
        saved = None
        previous = first
        bar = tqdm(
            desc=self._solver_name(),
            initial=first,
            total=first + max_iter,
            unit="iter",
            disable=not (self.progress or verbose),
        )
        if initial_state is None:
            self._forget_fit()
        try:
            with bar:
                for state in on_threads(iterations, getattr(self, "n_jobs", None)):
                    self._adopt(state, key)
                    record = self.history_[-1]
                    number = int(record[self._iteration_key])
                    bar.update(number - bar.n)
                    bar.set_postfix(self._postfix(record))
                    if verbose:
                        logger.info(self._describe(record))
                    due = number // checkpoint_every > previous // checkpoint_every
                    previous = number
                    if self.checkpoint is not None and due:
                        self.save_checkpoint(self.checkpoint)
                        saved = number
        except (KeyboardInterrupt, SystemError) as error:
            if not is_interrupt(error):
                raise
            self._note_interrupt()
        finally:
            iterations.close()
        if state is None:
            return None
        last = self.history_[-1]
        if not self.interrupted_ and not self.converged_ and self.n_iter_ >= first + max_iter:
            budget, unit = self._budget
            warn_not_converged(
                f"{self._solver_name()} stopped after {budget}={max_iter} {unit} "
                f"{self._shortfall(last)}; raise {budget}, or continue the fit with "
                "warm_start=True",
                stacklevel=3,
            )
        if self.checkpoint is not None and saved != self.n_iter_:
            self.save_checkpoint(self.checkpoint)
        if verbose:
            logger.info(
                "%s %s after %d iterations: %s",
                self._solver_name(),
                "converged" if self.converged_ else "stopped",
                self.n_iter_,
                self._summary(last),
            )
        return state

    def _adopt(self, state: SolverState, key: dict[str, Any]) -> None:
        """Keep a solver state on the estimator, and what a warm start continues from.

        Every attribute is set by one dictionary update, which an interrupt cannot split: the
        estimator always holds one whole iteration. The solver goes on changing its state
        object, so the fields are taken as they are now, and the history is copied.
        """
        history = list(state.history)
        attributes = {
            "history_": history,
            "n_iter_": int(history[-1][self._iteration_key]),
            "converged_": state.converged,
            "dual_state_": state.dual_state,
            "_resumable_state": SolverState(
                w=state.w,
                working_set=state.working_set,
                history=history,
                converged=state.converged,
                dual_state=state.dual_state,
            ),
            "_problem_key": key,
            **self._fitted_attributes(state),
        }
        vars(self).update(attributes)

    def _forget_fit(self) -> None:
        """Remove what an earlier fit left, so that a fresh fit interrupted before its first
        iteration leaves the estimator unfitted rather than a mixture of two fits."""
        for name in list(vars(self)):
            if name in self._kept_on_refit:
                continue
            if name in ("_resumable_state", "_problem_key") or (
                name.endswith("_") and not name.endswith("__") and name != "interrupted_"
            ):
                delattr(self, name)

    _kept_on_refit: tuple[str, ...] = ()
    """Fitted attributes a fit sets before its solver starts, which ``_forget_fit`` keeps."""

    _checkpoint_only: tuple[str, ...] = (
        "dual_state_",
        "_resumable_state",
        "_problem_key",
        "working_set_",
    )
    """What only continuing the fit needs: checkpoints keep it, :func:`structsvm.save` does not."""

    def save_checkpoint(self, path: str | os.PathLike[str]) -> None:
        """Write the estimator, with what a fit needs to continue, to ``path`` atomically.

        ``fit`` calls it when ``checkpoint`` is set; it can also be called on a fitted (or
        interrupted) estimator. The file is a model file (see :func:`structsvm.save`) that
        also holds the solver's state; it is written to a temporary file in the same
        directory, synced to disk and renamed over ``path``, so an existing checkpoint is only
        ever replaced by a complete one.
        """
        if getattr(self, "_resumable_state", None) is None:
            raise not_fitted_error(
                f"This {type(self).__name__} has no fit to checkpoint yet: call fit first"
            )
        write_checkpoint(self, path)

    @classmethod
    def load_checkpoint(
        cls, path: str | os.PathLike[str], *, task_classes: Iterable[type] = ()
    ) -> Any:
        """Load an estimator written by :meth:`save_checkpoint` (or a fit's ``checkpoint``).

        The estimator is returned with ``warm_start=True``, so ``fit`` on the same data
        continues the checkpointed fit; it also predicts as it is. Loading runs no code (see
        :func:`structsvm.load`): a task class of your own (and any other class of yours it
        holds) is passed as ``task_classes`` or registered with :func:`structsvm.register`.

        Raises
        ------
        FileNotFoundError, IsADirectoryError, PermissionError
            If there is no readable file at ``path``.
        structsvm.io.ModelFileError
            A ValueError: if the file is not a checkpoint (a model file saved without solver
            state, a foreign, truncated, damaged or altered file).
        TypeError
            If ``path`` is not a str or path-like, or the file holds something other than an
            estimator of this class.
        """
        model = read_checkpoint(path, cls, task_classes)
        model.warm_start = True
        return model
