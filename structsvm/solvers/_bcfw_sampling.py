"""Which blocks a pass of block-coordinate Frank–Wolfe visits: gap sampling (Osokin et al. 2016).

With ``order="gap"`` a pass draws n blocks independently, block i with probability
``mixing / n + (1 − mixing) g_i / Σ_j g_j`` from the blocks' last known duality gaps g_i, except
every ``sweep_every``-th pass (from the first), a sweep over all blocks in a random permutation
that refreshes every gap.

References
----------
A. Osokin, J.-B. Alayrac, I. Lukasewitz, P. K. Dokania and S. Lacoste-Julien, "Minding the gaps
for block Frank–Wolfe optimization of structured SVMs", ICML 2016.
"""

from __future__ import annotations

import numpy as np


def gap_probabilities(block_gaps: np.ndarray, mixing: float) -> np.ndarray:
    """Return the probabilities ``mixing / n + (1 − mixing) g_i / Σ_j g_j`` of the blocks.

    Negative gaps (rounding) count as 0; when every gap is 0 the draw is uniform.
    """
    n = len(block_gaps)
    gaps = np.maximum(block_gaps, 0.0)
    total = gaps.sum()
    if not np.isfinite(total) or total <= 0:
        return np.full(n, 1.0 / n)
    probabilities = mixing / n + (1.0 - mixing) * (gaps / total)
    return probabilities / probabilities.sum()


def pass_visits(
    rng: np.random.RandomState,
    n: int,
    iteration: int,
    order: str,
    block_gaps: np.ndarray,
    sweep_every: int,
    mixing: float,
) -> np.ndarray:
    """Return the blocks pass number ``iteration`` visits, in order (int64).

    ``order`` "cyclic" visits ``0 .. n−1``; "random" a random permutation; "gap" a sweep in a
    random permutation on the sweep passes (1, 1 + sweep_every, ...) and otherwise n independent
    draws from :func:`gap_probabilities`.
    """
    if order == "cyclic":
        return np.arange(n)
    if order == "random" or (iteration - 1) % sweep_every == 0:
        return rng.permutation(n)
    return rng.choice(n, size=n, p=gap_probabilities(block_gaps, mixing)).astype(np.int64)
