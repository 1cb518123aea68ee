"""Structured training sets seen only through a joint kernel, and the multiclass one.

With a joint kernel ``J((x, y), (x', y')) = ⟨φ(x, y), φ(x', y')⟩`` the weights are an expansion
``w = Σ_k α_k ψ_{i_k}(ȳ_k)`` over constraints (Tsochantaridis, Joachims, Hofmann & Altun, JMLR
2005, section 4.2). A :class:`JointKernelProblem` is both the constraint space of a working set
and the training set of :func:`~structsvm.solvers._cutting_plane.cutting_plane`.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from structsvm._task import array_key


@dataclass
class Constraints:
    """Constraints ``w · ψ_i(ȳ) >= Δ(y_i, ȳ) − ξ_i``, each named by its example i (``examples``,
    int array) and output ȳ (``outputs``)."""

    examples: np.ndarray
    outputs: Sequence[Any]

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, selection: np.ndarray) -> Constraints:
        """Return the constraints at an integer index array or a boolean mask."""
        chosen = np.arange(len(self))[selection]
        return Constraints(self.examples[chosen], [self.outputs[k] for k in chosen])


@dataclass
class JointKernelWeights:
    """Weights ``w = Σ_k α_k ψ_{i_k}(ȳ_k)`` as an expansion over the ``constraints`` of
    nonzero coefficient ``alpha``, on the training set ``problem``."""

    problem: JointKernelProblem
    constraints: Constraints
    alpha: np.ndarray

    @functools.cached_property
    def squared_norm(self) -> float:
        """``‖w‖² = αᵀGα`` with G the joint-kernel Gram matrix of the expansion's constraints."""
        gram = self.problem.constraint_gram(self.constraints, self.constraints)
        return float(self.alpha @ gram @ self.alpha)


@dataclass
class JointKernelPass:
    """What one loss-augmented pass found for a kernel expansion: every example's most
    violating output ȳ_i, its loss ``Δ(y_i, ȳ_i)`` and margin ``w · ψ_i(ȳ_i)``."""

    outputs: Sequence[Any]
    losses: np.ndarray
    margins: np.ndarray
    certified: ClassVar[bool] = True

    def output_key(self, i: int) -> Hashable:
        """Return the key of example i's output (its array bytes)."""
        return array_key(self.outputs[i])

    @property
    def slacks(self) -> np.ndarray:
        """``ξ_i = max(0, Δ(y_i, ȳ_i) − w · ψ_i(ȳ_i))``, the exact slack of every example."""
        return np.maximum(self.losses - self.margins, 0.0)

    @property
    def differences(self) -> Constraints:
        """The constraints ψ_i(ȳ_i) of every example, the rows a working set takes."""
        return Constraints(np.arange(len(self.losses), dtype=np.int64), self.outputs)


class JointKernelProblem(ABC):
    """A training set ``(x_i, y_i)``, i < n, of a structured task known through a joint kernel.

    The weights are the expansion ``w = Σ_k α_k ψ_{i_k}(ȳ_k)`` over constraints
    (:class:`JointKernelWeights`). A subclass gives the inner products of constraints and the
    loss-augmented oracle; the rest of the constraint space follows from them.
    """

    n_examples: int

    @abstractmethod
    def constraint_gram(self, rows: Constraints, columns: Constraints) -> np.ndarray:
        """Return the matrix ``⟨ψ_{i_k}(ȳ_k), ψ_{i_l}(ȳ_l)⟩`` of rows k against columns l."""

    @abstractmethod
    def loss_augmented_pass(self, constraints: Constraints, alpha: np.ndarray) -> JointKernelPass:
        """Call the loss-augmented oracle on every training example at the expansion's w."""

    @property
    def space(self) -> JointKernelProblem:
        """The constraint space of a working set on this problem: the problem itself."""
        return self

    def oracle_pass(self, w: JointKernelWeights) -> JointKernelPass:
        """Call the loss-augmented oracle on every training example at ``w``."""
        return self.loss_augmented_pass(w.constraints, w.alpha)

    def zero_weights(self) -> JointKernelWeights:
        """Return the empty expansion, ``w = 0``."""
        return JointKernelWeights(self, self.empty_rows(), np.zeros(0))

    def empty_rows(self) -> Constraints:
        """Return no constraints."""
        return Constraints(np.zeros(0, dtype=np.int64), [])

    def stack(self, rows: Constraints, new: Constraints) -> Constraints:
        """Return the constraints ``rows`` followed by ``new``."""
        return Constraints(
            np.concatenate([rows.examples, new.examples]), [*rows.outputs, *new.outputs]
        )

    def kept(self, rows: Constraints, mask: np.ndarray) -> Constraints:
        """Return the constraints where ``mask`` is true."""
        return rows[mask]

    def inner_products(self, left: Constraints, right: Constraints) -> np.ndarray:
        """Return the joint-kernel inner products (:meth:`constraint_gram`)."""
        return self.constraint_gram(left, right)

    def combination(self, rows: Constraints, alpha: np.ndarray) -> JointKernelWeights:
        """Return the expansion ``Σ_k α_k ψ_k`` over the constraints with nonzero α."""
        support = np.flatnonzero(alpha)
        return JointKernelWeights(self, rows[support], alpha[support].copy())

    def products(self, rows: Constraints, w: JointKernelWeights) -> np.ndarray:
        """Return ``ψ_k · w`` of every constraint in ``rows``."""
        if len(w.alpha) == 0:
            return np.zeros(len(rows))
        return self.constraint_gram(rows, w.constraints) @ w.alpha

    def squared_norm(self, w: JointKernelWeights) -> float:
        """Return ``‖w‖²``."""
        return w.squared_norm

    def explicit_vectors(self, rows: Constraints) -> None:
        """Return None: the constraint vectors are known only through the kernel."""
        return None


class MulticlassJointKernel(JointKernelProblem):
    r"""The multiclass training set under ``J((x, y), (x', y')) = k(x, x') [y = y']``.

    The kernel of Crammer & Singer's ``φ(x, y) = e_y ⊗ φ_k(x)`` (JMLR 2001) with the 0/1 loss:
    ``⟨ψ_i(ȳ), ψ_j(ȳ')⟩ = k(x_i, x_j) (e_{y_i} − e_{ȳ})·(e_{y_j} − e_{ȳ'})``.

    Parameters
    ----------
    gram : ndarray of shape (n, n)
        The input kernel ``k(x_i, x_j)`` of the training set.
    labels : ndarray of shape (n,) of int
        The classes ``y_i`` in ``0 .. n_classes − 1``.
    n_classes : int
        Number of classes.
    """

    def __init__(self, gram: np.ndarray, labels: np.ndarray, n_classes: int) -> None:
        self.gram = gram
        self.labels = labels
        self.n_classes = n_classes
        self.n_examples = len(labels)

    def _differences(self, constraints: Constraints) -> np.ndarray:
        """Return the rows ``e_{y_i} − e_{ȳ}`` of the constraints, shape (m, n_classes)."""
        m = len(constraints)
        rows = np.arange(m)
        differences = np.zeros((m, self.n_classes))
        differences[rows, self.labels[constraints.examples]] += 1.0
        differences[rows, np.asarray(constraints.outputs, dtype=np.int64)] -= 1.0
        return differences

    def constraint_gram(self, rows: Constraints, columns: Constraints) -> np.ndarray:
        """Return ``k(x_{i_k}, x_{i_l}) (e_{y_{i_k}} − e_{ȳ_k})·(e_{y_{i_l}} − e_{ȳ_l})``."""
        inputs = self.gram[np.ix_(rows.examples, columns.examples)]
        return inputs * (self._differences(rows) @ self._differences(columns).T)

    def dual_coef(self, constraints: Constraints, alpha: np.ndarray) -> np.ndarray:
        """Return A of shape (n, n_classes) with ``A[i] = Σ_{k: i_k = i} α_k (e_{y_i} − e_{ȳ_k})``.

        The score of class y for an input x is ``Σ_i k(x_i, x) A[i, y]``.
        """
        coef = np.zeros((self.n_examples, self.n_classes))
        np.add.at(coef, constraints.examples, alpha[:, None] * self._differences(constraints))
        return coef

    def loss_augmented_pass(self, constraints: Constraints, alpha: np.ndarray) -> JointKernelPass:
        """Find ``argmax_y [y ≠ y_i] + score_i(y)`` for every example from the expansion."""
        coef = self.dual_coef(constraints, alpha)
        support = np.flatnonzero(np.any(coef != 0.0, axis=1))
        scores = self.gram[:, support] @ coef[support]
        rows = np.arange(self.n_examples)
        augmented = scores + 1.0
        augmented[rows, self.labels] -= 1.0
        outputs = np.argmax(augmented, axis=1)
        return JointKernelPass(
            outputs=outputs,
            losses=(outputs != self.labels).astype(float),
            margins=scores[rows, self.labels] - scores[rows, outputs],
        )
