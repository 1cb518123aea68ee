"""The active sets of block-coordinate pairwise Frank–Wolfe (``step="pairwise"``, Osokin et al.
2016): for every block ``w_i = C Σ_k α_k ψ_i(y_k)`` the labellings with ``α_k > 0`` and their
masses, starting from the true labelling with mass 1. The slots (K per block) grow between passes
only; memory is ``K (n + Σ_i |y_i|)`` numbers.
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
    """The active sets of all blocks: masses ``weights`` (n, K), active ``counts`` (n,), losses
    (n, K) and sparse φ (``features``) of each slot's labelling; a compiled pass keeps the
    labellings in ``labels`` (K, Σ_i |y_i|), block i's at ``positions[i]:positions[i + 1]``, in
    the narrowest integer type that holds the true labels; the Python loop keeps each block's
    active ``outputs`` instead."""

    weights: np.ndarray
    counts: np.ndarray
    positions: np.ndarray
    labels: np.ndarray
    losses: np.ndarray
    features: SparsePool
    outputs: list[list[Any]] | None = None

    @classmethod
    def start(
        cls, true_labels: Sequence[np.ndarray], true_rows: sp.csr_matrix,
        index_type: type[np.signedinteger], outputs: Sequence[Any] | None = None,
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
        self.weights, self.losses = _wider(self.weights, slots), _wider(self.losses, slots)
        self.labels = _wider(self.labels.T, slots).T.copy()
        self.features.starts = _wider(self.features.starts, slots)
        self.features.lengths = _wider(self.features.lengths, slots)

    def widen_labels(self) -> None:
        """Keep the labellings of a compiled pass as int64, which holds any label."""
        self.labels = self.labels.astype(np.int64)

    def as_atoms(self) -> Atoms:
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

