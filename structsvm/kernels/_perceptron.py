"""The kernel perceptron: the perceptron in dual form, counting its mistakes on each example.

The primal perceptron adds ``y_i x_i`` to w on every mistake, so after training
``w = Σ_i α_i y_i x_i`` where α_i counts the mistakes made on example i. Replacing the inner
product by a kernel gives ``f(x) = Σ_i α_i y_i k(x_i, x) + b``: the method of potential functions
of Aizerman, Braverman & Rozonoer (1964), analysed as a large-margin classifier by Freund &
Schapire (1999).
"""

from __future__ import annotations

import time
from numbers import Integral
from typing import Any, ClassVar

import numpy as np

from structsvm._utils.validation import (
    BOOLEAN,
    RANDOM_STATE,
    Interval,
    ParameterConstraints,
    check_binary_labels,
    check_consistent_length,
    check_random_state,
)
from structsvm.kernels._kernels import Kernel
from structsvm.kernels._machine import BinaryKernelClassifier, KernelMachine


class KernelPerceptron(BinaryKernelClassifier):
    """Two-class perceptron in dual form with any kernel.

    Each epoch visits every training example once; when ``y_i f(x_i) <= 0`` (a mistake, which
    includes a zero score) it adds one to α_i and, with ``fit_intercept``, ``y_i`` to b. The bias
    is the weight of a constant feature 1, so with the linear kernel the model equals the primal
    perceptron on inputs extended by a 1, visited in the same order. If the data are separable in
    feature space with margin δ and ``k(x, x) (+1 for the bias) <= R²``, there are at most
    ``(R/δ)²`` updates (Novikoff 1962).

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, Kernel or callable, \
default="linear"
        The kernel; see :class:`~structsvm.kernels._machine.KernelMachine`.
    degree, gamma, coef0
        Parameters of the named kernels, as in :class:`~structsvm.BinarySVM`.
    fit_intercept : bool, default=True
        Learn the offset b.
    max_epochs : int, default=100
        Most passes over the training data.
    shuffle : bool, default=True
        Visit the examples in a new random order each epoch.
    random_state : int, RandomState or None, default=None
        Seed of the shuffling.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class.
    dual_coef_ : ndarray of int, shape (n_samples,)
        α_i, the number of mistakes made on each training example.
    support_ : ndarray of int
        Indices of the examples with α_i > 0.
    support_vectors_ : inputs of those examples (None when kernel="precomputed")
    intercept_ : float
        The offset b (0 without ``fit_intercept``).
    n_updates_ : int
        Total number of mistakes, ``Σ α_i``.
    n_iter_ : int
        Number of epochs run.
    converged_ : bool
        Whether the last epoch made no mistake (the training data are separated).
    history_ : list of dict
        One record per epoch: ``epoch``, ``mistakes``, ``n_updates`` (running total), ``time``
        (seconds since fit started).

    References
    ----------
    M. A. Aizerman, E. M. Braverman and L. I. Rozonoer, "Theoretical foundations of the potential
    function method in pattern recognition learning", Automation and Remote Control 25, 1964.
    Y. Freund and R. E. Schapire, "Large margin classification using the perceptron algorithm",
    Machine Learning 37(3), 1999.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        **KernelMachine._parameter_constraints,
        "fit_intercept": [BOOLEAN],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "shuffle": [BOOLEAN],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        *,
        kernel: str | Kernel | Any = "linear",
        degree: int = 3,
        gamma: float | str = "scale",
        coef0: float = 0.0,
        fit_intercept: bool = True,
        max_epochs: int = 100,
        shuffle: bool = True,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> KernelPerceptron:
        """Train on inputs X and labels y (exactly two distinct values); return self."""
        inputs, gram = self._fit_gram(X)
        check_consistent_length(gram, y)
        self.classes_, signs = check_binary_labels(y)
        rng = check_random_state(self.random_state)
        n = len(signs)

        mistake_counts = np.zeros(n, dtype=np.int64)
        intercept = 0.0
        self.converged_ = False
        self.history_: list[dict[str, float]] = []
        start = time.perf_counter()
        for epoch in range(1, self.max_epochs + 1):
            order = rng.permutation(n) if self.shuffle else np.arange(n)
            mistakes = 0
            for i in order:
                score = (mistake_counts * signs) @ gram[:, i] + intercept
                if signs[i] * score <= 0:
                    mistake_counts[i] += 1
                    if self.fit_intercept:
                        intercept += signs[i]
                    mistakes += 1
            self.history_.append(
                {
                    "epoch": epoch,
                    "mistakes": mistakes,
                    "n_updates": int(mistake_counts.sum()),
                    "time": time.perf_counter() - start,
                }
            )
            if mistakes == 0:
                self.converged_ = True
                break
        self.n_iter_ = epoch
        self.n_updates_ = int(mistake_counts.sum())
        self.dual_coef_ = mistake_counts
        self._store_expansion(
            inputs, n, np.flatnonzero(mistake_counts), mistake_counts * signs, intercept
        )
        return self
