"""The structured perceptron (Collins, EMNLP 2002), plain and averaged."""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from structsvm._task import Task
from structsvm._utils.fingerprint import check_same_problem, problem_key
from structsvm._utils.validation import check_positive_int, check_targets_given
from structsvm.learners._base import StructuredEstimator, interruptible


class StructuredPerceptron(StructuredEstimator):
    """Structured perceptron: on each mistake, ``w += φ(x, y) − φ(x, ŷ)``.

    Each epoch visits every training example once, predicts ``ŷ = argmax_y w · φ(x, y)`` with
    the current weights and updates them when ``ŷ`` differs from the true output. If some unit
    vector ``u`` separates the data with margin δ (``u · φ(x, y) − u · φ(x, y') >= δ`` for every
    wrong ``y'``) and every difference of joint features has norm at most R, the number of
    updates is at most ``(R / δ)²`` (Collins 2002, after Novikoff 1962); see
    :func:`structsvm.mistake_bound`.

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
        If True and the estimator is already fitted (also after an interrupted fit), ``fit``
        continues from the end of the last completed epoch: its weights, the averaging sums and
        the shuffling generator, for up to ``max_epochs`` further epochs numbered on from
        ``history_``, as one uninterrupted fit would have gone on. A different task, number
        of examples or training data raises ValueError (the data only if the earlier fit ran
        with ``warm_start=True`` and so recorded their digest); ``random_state`` is then not
        used. A fit that has converged stays as it is.

    Attributes
    ----------
    w_ : ndarray of shape (task.size_joint_feature,)
        The weights used for prediction (averaged if ``averaged``).
    n_updates_ : int
        Total number of updates (mistakes) made in training.
    n_iter_ : int
        Number of epochs run.
    converged_ : bool
        Whether the last epoch made no update (the training data are separated).
    history_ : list of dict
        One record per epoch: ``epoch``, ``mistakes``, ``n_updates`` (running total), ``time``
        (seconds since fit started).
    interrupted_ : bool
        Whether fit was stopped by KeyboardInterrupt (the weights learned so far are kept; a
        fit with ``warm_start=True`` redoes the interrupted epoch).
    """

    def __init__(
        self,
        task: Task,
        max_epochs: int = 100,
        averaged: bool = False,
        shuffle: bool = True,
        random_state: int | np.random.RandomState | None = None,
        warm_start: bool = False,
    ) -> None:
        self.task = task
        self.max_epochs = max_epochs
        self.averaged = averaged
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start

    def fit(self, X: Sequence[Any], Y: Sequence[Any]) -> StructuredPerceptron:
        """Learn the weights from training inputs X and outputs Y; return self.

        With ``warm_start=True`` on a fitted estimator, continue the earlier fit.
        """
        task = self._check_task()
        max_epochs = check_positive_int(self.max_epochs, "max_epochs")
        check_targets_given(Y)
        X, Y = task.check_data(X, Y)
        n = len(X)
        # The data are fingerprinted only for a continuation to check.
        features = task.batch_joint_feature(X, Y) if self.warm_start else None
        key = problem_key("perceptron", self.task, X, Y, features)
        resume = getattr(self, "_epoch_state", None) if self.warm_start else None
        if resume is not None:
            check_same_problem(self._problem_key, key, type(self).__name__)
            if self.converged_:
                return self
            w, weighted_updates, step, rng = copy.deepcopy(resume)
            first = self.n_iter_ + 1
            history = list(self.history_)
            start = time.perf_counter() - (history[-1]["time"] if history else 0.0)
        else:
            rng = check_random_state(self.random_state)
            w = np.zeros(task.size_joint_feature)
            # Averaging without storing every w: w_avg = w − Σ_t t·Δ_t / T (Daumé's trick).
            weighted_updates = np.zeros_like(w)
            step = 1
            first = 1
            history = []
            start = time.perf_counter()
            self.w_ = w
            self.n_updates_ = 0
            self.n_iter_ = 0
            self.converged_ = False
        self.history_: list[dict[str, float]] = history
        self._problem_key = key
        self._epoch_state = copy.deepcopy((w, weighted_updates, step, rng))
        with interruptible(self):
            for epoch in range(first, first + max_epochs):
                order = rng.permutation(n) if self.shuffle else np.arange(n)
                mistakes = 0
                for i in order:
                    y_hat = task.argmax(X[i], w)
                    if not task.outputs_equal(y_hat, Y[i]):
                        update = task.joint_feature(X[i], Y[i]) - task.joint_feature(X[i], y_hat)
                        w += update
                        weighted_updates += step * update
                        mistakes += 1
                    step += 1
                self.n_updates_ += mistakes
                self.n_iter_ = epoch
                self.history_.append(
                    {
                        "epoch": epoch,
                        "mistakes": mistakes,
                        "n_updates": self.n_updates_,
                        "time": time.perf_counter() - start,
                    }
                )
                self._epoch_state = copy.deepcopy((w, weighted_updates, step, rng))
                if mistakes == 0:
                    self.converged_ = True
                    break
        self.w_ = w - weighted_updates / step if self.averaged else w
        return self
