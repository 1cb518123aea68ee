"""The structured perceptron (Collins, EMNLP 2002), plain and averaged."""

from __future__ import annotations

import os
from collections.abc import Sequence
from numbers import Integral
from typing import Any, ClassVar

import numpy as np

from structsvm._task import Task
from structsvm._utils.fingerprint import problem_key
from structsvm._utils.validation import (
    BOOLEAN,
    RANDOM_STATE,
    Interval,
    ParameterConstraints,
    check_targets_given,
    validate_parameters,
)
from structsvm.learners._base import StructuredEstimator
from structsvm.learners._iterative import IterativeEstimator, interruptible_fit
from structsvm.solvers import SolverState
from structsvm.solvers._perceptron import perceptron


class StructuredPerceptron(IterativeEstimator, StructuredEstimator):
    """Structured perceptron: on each mistake, ``w += φ(x, y) − φ(x, ŷ)``.

    Each epoch visits every training example once, predicts ``ŷ = argmax_y w · φ(x, y)`` with
    the current weights and updates them when ``ŷ`` differs from the true output. If some unit
    vector ``u`` separates the data with margin δ (``u · φ(x, y) − u · φ(x, y') >= δ`` for every
    wrong ``y'``) and every difference of joint features has norm at most R, the number of
    updates is at most ``(R / δ)²`` (Collins 2002, after Novikoff 1962); see
    :func:`structsvm.mistake_bound`.

    A task that offers a compiled oracle (:meth:`structsvm.Task.compiled_oracle`) has each
    epoch made by one compiled call, with the same iterates as the Python loop, which runs
    for any other task.

    Parameters
    ----------
    task : structsvm.Task
        The structured prediction task.
    max_epochs : int, default=100
        Most passes over the training data.
    averaged : bool, default=False
        Predict with the average of the weight vectors over all steps (Freund & Schapire 1999;
        Collins 2002) rather than the last one. Training and the update count are unchanged.
    shuffle : bool, default=True
        Visit the examples in a new random order each epoch.
    random_state : int, RandomState or None, default=None
        Seed of the shuffling.
    warm_start : bool, default=False
        If True and the estimator is already fitted (also after an interrupted fit, or when
        loaded by :meth:`load_checkpoint`), ``fit`` continues from the end of the last
        completed epoch: its weights, the averaging sums and the shuffling generator, for up
        to ``max_epochs`` further epochs numbered on from ``history_``, as one uninterrupted
        fit would have gone on. A different task, number of examples or training data raises
        ValueError (the data only if the earlier fit ran with ``warm_start=True`` or a
        ``checkpoint`` and so recorded their digest); ``random_state`` is then not used. A fit
        that has converged stays as it is.
    progress : bool, default=False
        Show a tqdm progress bar over the epochs.
    verbose : int, default=0
        1 or more also logs every epoch and a summary to the ``structsvm`` logger.
    checkpoint : str or path-like, optional
        File to which the estimator is written atomically every ``checkpoint_every`` epochs
        and when fit ends; resume with ``StructuredPerceptron.load_checkpoint(path).fit(X, Y)``.
    checkpoint_every : int, default=10
        Write the checkpoint after every epoch whose number is a multiple of this.

    Attributes
    ----------
    w_ : ndarray of shape (task.size_joint_feature,)
        The weights used for prediction (averaged if ``averaged``).
    n_updates_ : int
        Total number of updates (mistakes) made in training.
    n_iter_ : int
        Number of epochs run.
    converged_ : bool
        Whether the last epoch made no update (the training data are separated). A fit that
        used up ``max_epochs`` without such an epoch warns with a
        :class:`~structsvm.ConvergenceWarning`.
    history_ : list of dict
        One record per epoch: ``epoch``, ``mistakes``, ``n_updates`` (running total), ``time``
        (seconds since fit started).
    interrupted_ : bool
        Whether fit was stopped by KeyboardInterrupt (the weights learned so far are kept; a
        fit with ``warm_start=True`` redoes the interrupted epoch).
    dual_state_ : PerceptronState
        The run's state after the last epoch, from which a warm start continues.

    References
    ----------
    M. Collins, "Discriminative training methods for hidden Markov models: theory and
    experiments with perceptron algorithms", EMNLP 2002.
    """

    _iteration_key = "epoch"
    _budget = ("max_epochs", "epochs")

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        **StructuredEstimator._parameter_constraints,
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "averaged": [BOOLEAN],
        "shuffle": [BOOLEAN],
        "random_state": RANDOM_STATE,
        **IterativeEstimator._parameter_constraints,
    }

    def __init__(
        self,
        task: Task,
        *,
        max_epochs: int = 100,
        averaged: bool = False,
        shuffle: bool = True,
        random_state: int | np.random.RandomState | None = None,
        warm_start: bool = False,
        progress: bool = False,
        verbose: int = 0,
        checkpoint: str | os.PathLike[str] | None = None,
        checkpoint_every: int = 10,
    ) -> None:
        self.task = task
        self.max_epochs = max_epochs
        self.averaged = averaged
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.progress = progress
        self.verbose = verbose
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every

    @interruptible_fit
    def fit(self, X: Sequence[Any], Y: Sequence[Any]) -> StructuredPerceptron:
        """Learn the weights from training inputs X and outputs Y; return self.

        With ``warm_start=True`` on a fitted estimator, continue the earlier fit.
        """
        validate_parameters(self)
        task = self._check_task()
        check_targets_given(Y)
        X, Y = task.check_data(X, Y)
        # The data are fingerprinted only for a continuation to check.
        recorded = self.warm_start or self.checkpoint is not None
        features = task.batch_joint_feature(X, Y) if recorded else None
        key = problem_key("perceptron", self.task, X, Y, features)
        initial = self._continued_state(key)
        self._run_solver(
            perceptron(
                task,
                X,
                Y,
                max_iter=self.max_epochs,
                averaged=bool(self.averaged),
                shuffle=bool(self.shuffle),
                random_state=self.random_state,
                initial_state=initial,
            ),
            initial_state=initial,
            max_iter=self.max_epochs,
            verbose=self.verbose,
            checkpoint_every=self.checkpoint_every,
            key=key,
        )
        return self

    def _fitted_attributes(self, state: SolverState) -> dict[str, Any]:
        return {"w_": state.w, "n_updates_": int(state.history[-1]["n_updates"])}

    def _describe(self, record: dict[str, float]) -> str:
        return (
            f"epoch {record['epoch']}: {record['mistakes']} mistakes, "
            f"{record['n_updates']} updates, {record['time']:.2f} s"
        )

    def _postfix(self, record: dict[str, float]) -> dict[str, Any]:
        return {"epoch": int(record["epoch"]), "mistakes": int(record["mistakes"])}

    def _summary(self, record: dict[str, float]) -> str:
        return f"{record['n_updates']} updates"

    def _shortfall(self, record: dict[str, float]) -> str:
        return f"with {record['mistakes']} mistakes in the last epoch"
