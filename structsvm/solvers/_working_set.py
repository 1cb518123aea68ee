"""The working set of a cutting-plane solver: constraints found so far and their dual variables.

Each constraint reads ``w · ψ_k >= Δ_k − ξ_{g_k}`` (row ψ_k, offset Δ_k, slack group g_k). The
rows live in a :class:`ConstraintSpace`: explicit vectors (:class:`FeatureSpace`) or constraints
known through a joint kernel (:class:`~structsvm.solvers._joint_kernel.JointKernelProblem`).
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Sequence
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp

from structsvm.solvers._objective import L1_SLACKS, SlackPenalty
from structsvm.solvers._oracle import FeatureMatrix
from structsvm.solvers._row_storage import appended, selected

#: A constraint's key: its group and what tells it from the group's others.
ConstraintKey = tuple[int, Hashable]

DENSE_PRODUCT_DENSITY = 0.01
"""Fraction of stored entries above which sparse constraint vectors are multiplied densely."""

DENSE_PRODUCT_SIZE = 1 << 22
"""Most entries of a block of constraint vectors that is made dense for a product."""


def _dense(matrix: FeatureMatrix) -> np.ndarray:
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


def inner_products(left: FeatureMatrix, right: FeatureMatrix) -> np.ndarray:
    """Return the dense matrix ``left @ right.T`` of inner products of constraint vectors.

    Sparse vectors that are not very sparse (ψ of a chain or multiclass task stores a few
    percent of its entries or more) are multiplied as dense blocks, which is several times
    faster than a sparse product; very sparse or very long ones stay sparse. A Gram matrix
    (``right is left``) is made dense once and multiplied by its own transpose, which NumPy
    computes as a symmetric product.
    """
    if not (sp.issparse(left) or sp.issparse(right)):
        return np.asarray(left) @ np.asarray(right).T
    blocks = (left,) if right is left else (left, right)
    entries = sum(m.shape[0] for m in blocks) * left.shape[1]
    stored = sum(m.nnz if sp.issparse(m) else m.size for m in blocks)
    if entries <= DENSE_PRODUCT_SIZE and stored > DENSE_PRODUCT_DENSITY * entries:
        dense_left = _dense(left)
        dense_right = dense_left if right is left else _dense(right)
        return dense_left @ dense_right.T
    return _dense(left @ right.T)


class ConstraintSpace(Protocol):
    """Where the rows ψ_k of a working set live, and the weights ``w = Σ α_k ψ_k`` they make.

    Rows are a collection that supports ``len`` and indexing by an integer array or a mask.
    """

    def zero_weights(self) -> Any:
        """Return ``w = 0``."""

    def empty_rows(self) -> Any:
        """Return a collection of no rows."""

    def stack(self, rows: Any, new: Any) -> Any:
        """Return the rows ``rows`` followed by ``new``, leaving ``rows`` unchanged."""

    def kept(self, rows: Any, mask: np.ndarray) -> Any:
        """Return the rows where ``mask`` is true, leaving ``rows`` unchanged."""

    def inner_products(self, left: Any, right: Any) -> np.ndarray:
        """Return the dense matrix ``ψ_k · ψ_l`` of ``left`` against ``right``."""

    def combination(self, rows: Any, alpha: np.ndarray) -> Any:
        """Return the weights ``Σ_k α_k ψ_k``."""

    def products(self, rows: Any, w: Any) -> np.ndarray:
        """Return ``ψ_k · w`` of every row."""

    def squared_norm(self, w: Any) -> float:
        """Return ``‖w‖²``."""

    def explicit_vectors(self, rows: Any) -> FeatureMatrix | None:
        """Return the rows as a matrix of vectors, or None if they are known only by kernel."""


class FeatureSpace:
    """Constraint vectors as the rows of a dense array or a CSR matrix of ``size`` columns."""

    def __init__(self, size: int) -> None:
        self.size = size

    def zero_weights(self) -> np.ndarray:
        """Return ``w = 0``."""
        return np.zeros(self.size)

    def empty_rows(self) -> FeatureMatrix:
        """Return an array of no rows."""
        return np.zeros((0, self.size))

    def stack(self, rows: FeatureMatrix, new: FeatureMatrix) -> FeatureMatrix:
        """Stack two blocks of rows (sparse if either is), writing ``new`` into spare storage
        after ``rows`` where it can (:func:`~structsvm.solvers._row_storage.appended`)."""
        return appended(rows, new)

    def kept(self, rows: FeatureMatrix, mask: np.ndarray) -> FeatureMatrix:
        """Return the rows where ``mask`` is true, in storage with room to append."""
        return selected(rows, mask)

    def inner_products(self, left: FeatureMatrix, right: FeatureMatrix) -> np.ndarray:
        """Return ``left @ right.T`` (see :func:`inner_products`)."""
        return inner_products(left, right)

    def combination(self, rows: FeatureMatrix, alpha: np.ndarray) -> np.ndarray:
        """Return ``Σ_k α_k ψ_k``."""
        return np.asarray(rows.T @ alpha).ravel()

    def products(self, rows: FeatureMatrix, w: np.ndarray) -> np.ndarray:
        """Return ``rows @ w``."""
        return np.asarray(rows @ w).ravel()

    def squared_norm(self, w: np.ndarray) -> float:
        """Return ``w · w``."""
        return float(w @ w)

    def explicit_vectors(self, rows: FeatureMatrix) -> FeatureMatrix:
        """Return the rows themselves."""
        return rows


class WorkingSet:
    """Constraints ``w · ψ_k >= Δ_k − ξ_{g_k}``: rows ``vectors`` of the ``space``, arrays
    ``offsets``, ``groups``, dual variables ``alpha`` and ``idle`` counts, ``keys``."""

    def __init__(self, space: ConstraintSpace) -> None:
        self.space = space
        self.vectors: Any = space.empty_rows()
        self.offsets = np.zeros(0)
        self.groups = np.zeros(0, dtype=np.int64)
        self.keys: list[ConstraintKey] = []
        self._key_set: set[ConstraintKey] = set()
        self.alpha = np.zeros(0)
        self.idle = np.zeros(0, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.offsets)

    def __contains__(self, key: ConstraintKey) -> bool:
        return key in self._key_set

    def copy(self) -> WorkingSet:
        """Return a copy that later changes to this working set leave alone (the constraint
        arrays, only ever replaced or appended to beyond the rows a copy sees, are shared)."""
        clone = copy.copy(self)
        clone.alpha = self.alpha.copy()
        clone.idle = self.idle.copy()
        clone.keys = list(self.keys)
        clone._key_set = set(self._key_set)
        return clone

    def add(
        self, vectors: Any, offsets: np.ndarray, groups: np.ndarray, keys: Sequence[ConstraintKey]
    ) -> None:
        """Append constraints with zero dual variables."""
        self.vectors = self.space.stack(self.vectors, vectors)
        self.offsets = np.concatenate([self.offsets, offsets])
        self.groups = np.concatenate([self.groups, groups])
        self.keys.extend(keys)
        self._key_set.update(keys)
        self.alpha = np.concatenate([self.alpha, np.zeros(len(offsets))])
        self.idle = np.concatenate([self.idle, np.zeros(len(offsets), dtype=np.int64)])

    def keep(self, mask: np.ndarray) -> None:
        """Keep only the constraints where ``mask`` is true."""
        self.vectors = self.space.kept(self.vectors, mask)
        self.offsets = self.offsets[mask]
        self.groups = self.groups[mask]
        self.keys = [key for key, kept in zip(self.keys, mask, strict=True) if kept]
        self._key_set = set(self.keys)
        self.alpha = self.alpha[mask]
        self.idle = self.idle[mask]

    def gram_of(self, rows: np.ndarray) -> np.ndarray:
        """Return the dense Gram matrix ``ψ_k · ψ_l`` of the constraints at indices ``rows``."""
        rows_kept = self.vectors[rows]
        return self.space.inner_products(rows_kept, rows_kept)

    def weights(self) -> Any:
        """Return ``w = Σ_k α_k ψ_k``."""
        return self.space.combination(self.vectors, self.alpha)

    def violations(self, w: Any) -> np.ndarray:
        """Return ``Δ_k − w · ψ_k`` of every constraint."""
        return self.offsets - self.space.products(self.vectors, w)

    def slacks(self, w: Any, n_groups: int) -> np.ndarray:
        """Return the smallest slack of each group that satisfies its constraints at ``w``."""
        slacks = np.zeros(n_groups)
        np.maximum.at(slacks, self.groups, self.violations(w))
        return slacks

    def group_sums(self) -> np.ndarray:
        """Return every group's sum of dual variables ``β_g = Σ_{k ∈ g} α_k``."""
        return np.bincount(self.groups, weights=self.alpha)

    def dual_objective(self, C: float, penalty: SlackPenalty = L1_SLACKS) -> float:
        """Return the dual objective at α (see :mod:`structsvm.solvers._objective`)."""
        return penalty.dual(
            float(self.offsets @ self.alpha), self.space.squared_norm(self.weights()),
            self.group_sums(), C,
        )


class GramWorkingSet(WorkingSet):
    """A working set that keeps the Gram matrix of all its constraints up to date, extended and
    shrunk with them (for QPs over the whole working set; memory grows with its square)."""

    def __init__(self, space: ConstraintSpace) -> None:
        super().__init__(space)
        self.gram = np.zeros((0, 0))

    def add(
        self, vectors: Any, offsets: np.ndarray, groups: np.ndarray, keys: Sequence[ConstraintKey]
    ) -> None:
        """Append constraints, extending the Gram matrix by their inner products."""
        cross = self.space.inner_products(vectors, self.vectors)
        own = self.space.inner_products(vectors, vectors)
        self.gram = np.block([[self.gram, cross.T], [cross, own]])
        super().add(vectors, offsets, groups, keys)

    def keep(self, mask: np.ndarray) -> None:
        """Keep only the constraints where ``mask`` is true."""
        self.gram = self.gram[np.ix_(mask, mask)]
        super().keep(mask)

    def gram_of(self, rows: np.ndarray) -> np.ndarray:
        """Return the Gram matrix of the constraints at indices ``rows`` (from the cache)."""
        return self.gram[np.ix_(rows, rows)]


def prune_inactive(working_set: WorkingSet, C: float, inactive_window: int) -> None:
    """Drop the constraints whose dual variable has been zero for ``inactive_window`` solves."""
    active = working_set.alpha > 1e-9 * C
    working_set.idle = np.where(active, 0, working_set.idle + 1)
    kept = working_set.idle < inactive_window
    if not kept.all():  # keeping everything would only copy the working set
        working_set.keep(kept)
