"""The multi-plane cache of block-coordinate Frank–Wolfe (Shah, Kolmogorov & Lampert 2015).

Per block, up to ``size`` corners the oracle returned (φ(x_i, ŷ), Δ(y_i, ŷ) and the corner's
scale). A step first takes the cached corner of largest block gap g and uses it instead of the
oracle when ``g >= max(FACTOR · g_i, NU · G / n)`` (Osokin et al. 2016), g_i being the block's
gap at its last oracle call and G the last duality gap evaluated on schedule. Corners unused for
more than ``timeout`` passes are dropped, and a full cache drops its least recently used one.

References
----------
N. Shah, V. Kolmogorov and C. H. Lampert, "A multi-plane block-coordinate Frank–Wolfe algorithm
for training structural SVMs with a costly max-oracle", CVPR 2015.

A. Osokin, J.-B. Alayrac, I. Lukasewitz, P. K. Dokania and S. Lacoste-Julien, "Minding the gaps
for block Frank–Wolfe optimization of structured SVMs", ICML 2016.
"""

from __future__ import annotations

import dataclasses

import numpy as np

FACTOR = 0.25
"""A cached corner must reach this fraction of the block's last exact gap (Osokin et al.'s F)."""

NU = 0.01
"""... and this fraction of the average block gap ``G / n`` (Osokin et al.'s ν)."""


@dataclasses.dataclass(eq=False)
class Plane:
    """A cached corner of block i: φ(x_i, ŷ) (sorted sparse), Δ(y_i, ŷ), its scale, last use."""

    indices: np.ndarray
    values: np.ndarray
    loss: float
    scale: float
    last_used: int


@dataclasses.dataclass
class PlaneCache:
    """The cached corners of every block, and each block's gap at its last oracle call.

    Attributes
    ----------
    size : int
        Most corners kept per block.
    timeout : int
        Passes a corner may go unused before it is dropped.
    planes : list of n lists of Plane
    exact_gaps : ndarray of shape (n,)
        The block gaps of the steps that last called the oracle (infinite before the first).
    """

    size: int
    timeout: int
    planes: list[list[Plane]]
    exact_gaps: np.ndarray

    @classmethod
    def empty(cls, n: int, size: int, timeout: int) -> PlaneCache:
        """Return a cache of n blocks with no corners."""
        return cls(size, timeout, [[] for _ in range(n)], np.full(n, np.inf))

    def copy(self) -> PlaneCache:
        """Return a copy that later steps leave alone (the planes' arrays are never written)."""
        planes = [[dataclasses.replace(plane) for plane in block] for block in self.planes]
        return PlaneCache(self.size, self.timeout, planes, self.exact_gaps.copy())

    def best_plane(
        self, i: int, w: np.ndarray, true_score: float, block_value: float, C: float,
        iteration: int,
    ) -> tuple[Plane | None, float]:
        """Return block i's cached corner of largest gap at w, and that gap (None, −inf if none).

        ``true_score`` is ``w · φ(x_i, y_i)`` and ``block_value`` is ``ℓ_i − w · w_i``. The
        corner returned is marked used at pass ``iteration``.
        """
        best, best_gap = None, -np.inf
        for plane in self.planes[i]:
            margin = true_score - w[plane.indices] @ plane.values
            gap = C * (plane.loss - plane.scale * margin) - block_value
            if gap > best_gap:
                best, best_gap = plane, gap
        if best is not None:
            best.last_used = iteration
        return best, best_gap

    def accepts(self, i: int, gap: float, duality_gap: float) -> bool:
        """Tell whether a cached corner of block gap ``gap`` may replace the oracle for block i.

        ``duality_gap`` is the last certified gap ``P − D`` (infinite before the first).
        """
        n = len(self.planes)
        return gap > 0 and gap >= max(FACTOR * self.exact_gaps[i], NU * duality_gap / n)

    def add(
        self, i: int, indices: np.ndarray, values: np.ndarray, loss: float, scale: float,
        iteration: int, gap: float,
    ) -> None:
        """Record the oracle's corner for block i (at gap ``gap``), used at pass ``iteration``.

        A corner already cached is only marked used; a full cache drops its least recently
        used corner first.
        """
        self.exact_gaps[i] = gap
        block = self.planes[i]
        for plane in block:
            if (
                plane.loss == loss
                and np.array_equal(plane.indices, indices)
                and np.array_equal(plane.values, values)
            ):
                plane.last_used = iteration
                return
        if len(block) >= self.size:
            del block[min(range(len(block)), key=lambda k: block[k].last_used)]
        block.append(Plane(indices, values, float(loss), float(scale), iteration))

    def expire(self, iteration: int) -> None:
        """Drop the corners unused for more than ``timeout`` passes by the end of ``iteration``."""
        oldest = iteration - self.timeout
        for k, block in enumerate(self.planes):
            if any(plane.last_used < oldest for plane in block):
                self.planes[k] = [plane for plane in block if plane.last_used >= oldest]
