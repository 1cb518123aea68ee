"""The active sets of block-coordinate pairwise Frank–Wolfe (``step="pairwise"``).

Each block i of BCFW's dual is a convex combination ``w_i = C Σ_k α_k ψ_i(y_k)``,
``ℓ_i = C Σ_k α_k Δ(y_i, y_k)`` of corners; the pairwise variant (Osokin et al. 2016) keeps
the labellings ``y_k`` with ``α_k > 0`` (the block's active set) and their masses, which sum to
1. Every block starts with its true labelling, of mass 1 (the block ``w_i = 0``). A step adds at
most one labelling (the oracle's) and may remove one (the away labelling, when it gives up all
its mass), see :func:`structsvm.solvers._bcfw_kernels.shift_mass`.

Storage: the masses of all blocks are one array of shape ``(n, K)`` with ``K`` slots per block,
grown (doubled, at least to what the next pass needs) between passes only, so the compiled pass
never grows them. A compiled pass keeps the labellings in one array of shape
``(K, Σ_i |y_i|)`` (block i's slot k is ``labels[k, positions[i]:positions[i + 1]]``, the labels
of ``np.ravel(y)``), of the narrowest integer type that holds the true labels (one byte per
label for up to 256 labels; int64 from the first labelling of the oracle that it cannot hold);
the Python loop keeps, per block, a list of :class:`Atom` with the sparse φ(x_i, y). Memory is
thus ``K (n + Σ_i |y_i|)`` numbers, where K is at most twice the largest number of slots any
block needed before a pass (its active set plus its visits in that pass); an active set holds
at most one labelling more than the steps taken on its block.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np


@dataclasses.dataclass
class Atom:
    """An active labelling of a block in the Python loop: y, its sparse φ(x_i, y), Δ(y_i, y)."""

    output: Any
    indices: np.ndarray
    values: np.ndarray
    loss: float


@dataclasses.dataclass
class ActiveSets:
    """The active sets of all blocks (see the module docstring).

    Attributes
    ----------
    weights : ndarray of shape (n, K)
        ``weights[i, k]``: the mass of block i's labelling in slot k (zero beyond its count).
    counts : ndarray of shape (n,), int64
        How many slots of each block are active.
    positions : ndarray of shape (n + 1,), int64, or None
        For a compiled pass: where each block's labels start in ``labels``' rows.
    labels : ndarray of shape (K, positions[-1]), integers, or None
        For a compiled pass: the labellings, slot by slot, in the narrowest integer type that
        holds the true labels (the labellings of a block take the labels of its outputs).
    atoms : list of lists of Atom, or None
        For the Python loop: each block's active labellings, slot by slot.
    """

    weights: np.ndarray
    counts: np.ndarray
    positions: np.ndarray | None = None
    labels: np.ndarray | None = None
    atoms: list[list[Atom]] | None = None

    @classmethod
    def for_compiled_pass(cls, Y: Sequence[Any]) -> ActiveSets:
        """Start every block at its true labelling (flat labels), for a compiled pass."""
        flat = [np.ravel(np.asarray(y)) for y in Y]
        positions = np.zeros(len(flat) + 1, dtype=np.int64)
        np.cumsum([len(labels) for labels in flat], out=positions[1:])
        all_labels = np.concatenate(flat).astype(np.int64)
        bounds = (all_labels.min(), all_labels.max()) if len(all_labels) else (0,)
        narrowest = np.result_type(*(np.min_scalar_type(int(bound)) for bound in bounds))
        labels = all_labels.astype(narrowest)[np.newaxis, :]
        return cls(np.ones((len(flat), 1)), np.ones(len(flat), dtype=np.int64), positions, labels)

    @classmethod
    def for_python(cls, true_atoms: list[Atom]) -> ActiveSets:
        """Start every block at its true labelling, for the Python loop."""
        n = len(true_atoms)
        atoms = [[atom] for atom in true_atoms]
        return cls(np.ones((n, 1)), np.ones(n, dtype=np.int64), atoms=atoms)

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
        if self.labels is not None:
            labels = np.zeros((slots, self.labels.shape[1]), dtype=self.labels.dtype)
            labels[: self.labels.shape[0]] = self.labels
            self.labels = labels

    def widen_labels(self) -> None:
        """Keep the labellings of a compiled pass as int64, which holds any label."""
        self.labels = self.labels.astype(np.int64)

    def compiled_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(positions, labels, weights, counts)``, the ``atoms`` of a compiled pass."""
        return self.positions, self.labels, self.weights, self.counts

    def copy(self) -> ActiveSets:
        """Return a copy that later passes leave alone (atoms are never written into)."""
        return dataclasses.replace(
            self,
            weights=self.weights.copy(),
            counts=self.counts.copy(),
            labels=None if self.labels is None else self.labels.copy(),
            atoms=None if self.atoms is None else [list(block) for block in self.atoms],
        )


NO_ACTIVE_SETS = (
    np.zeros(0, dtype=np.int64),
    np.zeros((0, 0), dtype=np.int64),
    np.zeros((0, 0)),
    np.zeros(0, dtype=np.int64),
)
"""The ``atoms`` argument of a compiled pass that takes Frank–Wolfe steps."""
