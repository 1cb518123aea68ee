"""The groups of examples a compiled 1-slack pass sums, fixed by the data, not by the threads.

A compiled pass (:func:`structsvm.solvers._summed_pass.summed_pass`) sums ``φ(x_i, ŷ_i)``, the
losses and the slacks over the examples. Float additions in another order round differently, so the
examples are cut into consecutive blocks chosen from the number of examples and the length of
φ only (:func:`example_blocks`): each block is summed in example order into its own dense
accumulator, by one thread, whichever thread that is, and the blocks are then added in their
order (:func:`block_totals`). The sums are therefore the same bits on any number of threads.
"""

from __future__ import annotations

import numba
import numpy as np

#: The most blocks a pass is cut into (more than the threads of any one machine it runs on).
MAX_BLOCKS = 16

#: The fewest examples a block holds, so that a small pass starts few threads.
MIN_EXAMPLES_PER_BLOCK = 16

#: The most accumulator entries of all blocks together (32 MB of float64): a long φ gets
#: fewer blocks.
MAX_ACCUMULATED = 1 << 22


def example_blocks(n_examples: int, size_joint_feature: int) -> np.ndarray:
    """Return the bounds (n_blocks + 1,) int64 of the blocks of consecutive examples.

    Block b holds examples ``bounds[b]:bounds[b + 1]``; every block holds at least one.
    """
    n_blocks = min(
        MAX_BLOCKS,
        -(-n_examples // MIN_EXAMPLES_PER_BLOCK),
        max(1, MAX_ACCUMULATED // size_joint_feature),
    )
    return np.linspace(0, n_examples, n_blocks + 1).astype(np.int64)


@numba.njit(cache=True)
def block_accumulators(n_blocks: int, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return zeroed per-block accumulators (n_blocks, size), losses and slacks (n_blocks,)."""
    return np.zeros((n_blocks, size)), np.zeros(n_blocks), np.zeros(n_blocks)


@numba.njit(cache=True)
def block_totals(
    accumulators: np.ndarray, losses: np.ndarray, slacks: np.ndarray
) -> tuple[np.ndarray, float, float]:
    """Return the sums of the blocks' accumulators (rows), losses and slacks, in block order."""
    feature_sum = accumulators[0].copy()
    loss_sum, slack_sum = losses[0], slacks[0]
    for block in range(1, accumulators.shape[0]):
        feature_sum += accumulators[block]
        loss_sum += losses[block]
        slack_sum += slacks[block]
    return feature_sum, loss_sum, slack_sum
