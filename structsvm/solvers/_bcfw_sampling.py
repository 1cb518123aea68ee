"""Which blocks a pass of block-coordinate Frank–Wolfe visits: gap sampling (Osokin et al. 2016).

With ``order="gap"`` the solver keeps every block's last known duality gap ``g_i`` (the gap of
the block's last step, at the iterate of that step; or, without averaging, the exact gap at the
iterate after the last pass, which the certified-gap evaluation gives for free). A pass then
draws its n blocks independently, block i with probability

    ``p_i = mixing / n + (1 − mixing) g_i / Σ_j g_j``,

so blocks far from their optimum are visited more often, while the uniform share ``mixing / n``
keeps every block from starving (its stale gap is refreshed when it is drawn). Every
``sweep_every``-th pass (the first, then every ``sweep_every`` passes after it) is instead a
sweep over all blocks in a random permutation, as the default order takes: it refreshes every
block's gap. With ``sweep_every=1`` every pass is a sweep and the iterates are those of
``order="random"``.

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
