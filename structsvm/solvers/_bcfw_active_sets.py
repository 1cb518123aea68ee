"""The active sets of block-coordinate pairwise Frank–Wolfe (``step="pairwise"``).

Each block i of BCFW's dual is a convex combination ``w_i = C Σ_k α_k ψ_i(y_k)``,
``ℓ_i = C Σ_k α_k Δ(y_i, y_k)`` of corners; the pairwise variant (Osokin et al. 2016) keeps
the labellings ``y_k`` with ``α_k > 0`` (the block's active set) and their masses, which sum to
1. Every block starts with its true labelling, of mass 1 (the block ``w_i = 0``). A step adds at
most one labelling (the oracle's) and may remove one (the away labelling, when it gives up all
its mass), see :func:`structsvm.solvers._bcfw_steps.shift_mass`.

Storage: the masses of all blocks are one array of shape ``(n, K)`` with ``K`` slots per block,
grown (doubled, at least to what the next pass needs) between passes only, so that no step grows
them; so are the labellings' losses and the places of their sparse φ(x_i, y) in one pool. A
compiled pass keeps the labellings in one array of shape ``(K, Σ_i |y_i|)`` (block i's slot k is
``labels[k, positions[i]:positions[i + 1]]``, the labels of ``np.ravel(y)``), of the narrowest
integer type that holds the true labels (int64 from the first labelling of the oracle that it
cannot hold); the Python loop keeps, per block, the list of its outputs. Memory is thus
``K (n + Σ_i |y_i|)`` numbers, where K is at most twice the largest number of slots any block
needed before a pass (its active set plus its visits in that pass).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm.solvers._bcfw_steps import Atoms, SparsePool, atoms


@dataclasses.dataclass
class ActiveSets:
    """The active sets of all blocks (see the module docstring).

    Attributes
    ----------
    weights : ndarray of shape (n, K)
        ``weights[i, k]``: the mass of block i's labelling in slot k (zero beyond its count).
    counts : ndarray of shape (n,), int64
        How many slots of each block are active.
    positions : ndarray of shape (n + 1,), int64
        Where each block's labels start in ``labels``' rows (all zero for the Python loop).
    labels : ndarray of shape (K, positions[-1]), integers
        For a compiled pass: the labellings, slot by slot, in the narrowest integer type that
        holds the true labels (the labellings of a block take the labels of its outputs).
    losses : ndarray of shape (n, K)
        ``Δ(y_i, y_k)`` of each slot's labelling.
    features : SparsePool
        The sparse φ(x_i, y_k) of each slot's labelling.
    outputs : list of n lists, or None
        For the Python loop: each block's active outputs, slot by slot.
    """

    weights: np.ndarray
    counts: np.ndarray
    positions: np.ndarray
    labels: np.ndarray
    losses: np.ndarray
    features: SparsePool
    outputs: list[list[Any]] | None = None

    @classmethod
    def start(
        cls,
        true_labels: Sequence[np.ndarray],
        true_rows: sp.csr_matrix,
        index_type: type[np.signedinteger],
        outputs: Sequence[Any] | None = None,
    ) -> ActiveSets:
        """Start every block at its true labelling.

        ``true_labels`` are the true outputs' labels for a compiled pass
        (:meth:`structsvm.CompiledOracle.labels`), empty arrays for the Python loop, which
        gives the true ``outputs`` instead; ``true_rows`` are the rows φ(x_i, y_i) (sorted,
        distinct column indices), which the feature pool keeps with indices of ``index_type``.
        """
        flat = list(true_labels)
        n = len(flat)
        positions = np.zeros(n + 1, dtype=np.int64)
        np.cumsum([len(labels) for labels in flat], out=positions[1:])
        all_labels = np.concatenate(flat).astype(np.int64)
        bounds = (all_labels.min(), all_labels.max()) if len(all_labels) else (0,)
        narrowest = np.result_type(*(np.min_scalar_type(int(bound)) for bound in bounds))
        labels = all_labels.astype(narrowest)[np.newaxis, :]
        rows = true_rows.indptr[1:-1]
        features = SparsePool.of(
            np.split(true_rows.indices, rows), np.split(true_rows.data, rows), index_type
        )
        features.starts, features.lengths = features.starts[:, None], features.lengths[:, None]
        return cls(
            np.ones((n, 1)), np.ones(n, dtype=np.int64), positions, labels, np.zeros((n, 1)),
            features, None if outputs is None else [[y] for y in outputs],
        )

    def make_room(self, visits: np.ndarray) -> None:
        """Grow the slots so that every block can gain one labelling per visit of a pass."""
        needed = int((self.counts + np.bincount(visits, minlength=len(self.counts))).max())
        slots = self.weights.shape[1]
        if needed <= slots:
            return
        slots = max(2 * slots, needed)
        weights = np.zeros((len(self.counts), slots))
        weights[:, : self.weights.shape[1]] = self.weights
        self.weights = weights
        labels = np.zeros((slots, self.labels.shape[1]), dtype=self.labels.dtype)
        labels[: self.labels.shape[0]] = self.labels
        self.labels = labels
        self.losses = _wider(self.losses, slots)
        self.features.starts = _wider(self.features.starts, slots)
        self.features.lengths = _wider(self.features.lengths, slots)

    def widen_labels(self) -> None:
        """Keep the labellings of a compiled pass as int64, which holds any label."""
        self.labels = self.labels.astype(np.int64)

    def compiled_arrays(self) -> Atoms:
        """Return the active sets as the steps take them: an :class:`Atoms` on their arrays, slot
        k of block i being vector ``i K + k`` of the feature pool."""
        return atoms(
            self.positions, self.labels, self.weights, self.counts, self.losses,
            *self.features.record_fields(),
        )

    def copy(self) -> ActiveSets:
        """Return a copy that later passes leave alone."""
        return dataclasses.replace(
            self,
            weights=self.weights.copy(),
            counts=self.counts.copy(),
            labels=self.labels.copy(),
            losses=self.losses.copy(),
            features=self.features.copy(),
            outputs=None if self.outputs is None else [list(block) for block in self.outputs],
        )


def _wider(array: np.ndarray, slots: int) -> np.ndarray:
    """Return an (n, K) array widened to ``slots`` columns, the new ones zero."""
    wider = np.zeros((array.shape[0], slots), dtype=array.dtype)
    wider[:, : array.shape[1]] = array
    return wider

