"""The compiled 1-slack pass: one call over the training set through the task's compiled oracle.

The 1-slack solver needs from a pass only its sums
(:class:`~structsvm.solvers._oracle.PassSummary`); on a task with a compiled oracle each pass is
one call of :func:`summed_pass` on ``n_jobs`` threads. Float additions in another
order round differently, so the examples are cut into consecutive blocks fixed by the data alone
(:func:`example_blocks`), each summed in example order into its own accumulator, and the blocks
added in their order: the sums are the same bits on any number of threads.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from structsvm._compiled_oracle import CompiledOracle
from structsvm._utils.parallel import run_in_parts
from structsvm.solvers._example_oracle import decode_keeping_scores, sparse_dot
from structsvm.solvers._example_pass import CompiledTrainingSet
from structsvm.solvers._oracle import PassSummary

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


@numba.njit(cache=True, nogil=True)
def block_sums(
    fns, data, w, true_scores, bounds, first, stop, keep, table, offsets, features, losses, slacks
):
    """Sum blocks ``first:stop`` of the pass at ``w``, each into its own row of the arrays.

    Block b adds φ(x_i, ŷ_i) of its examples ``bounds[b]:bounds[b + 1]``, in example order,
    into ``features[b]``, and writes Σ Δ(y_i, ŷ_i) into ``losses[b]`` and Σ ξ_i into
    ``slacks[b]``. ``ŷ_i`` is the compiled oracle's loss-augmented output and ``true_scores[i]
    = w · φ(x_i, y_i)``; φ is added by the oracle's ``add_features`` and ``w · φ`` taken by its
    ``labelling_score`` where the task offers them (``keep``:
    :attr:`structsvm.CompiledOracle.offers_labelling_score`), from φ's sparse entries
    otherwise. Releases the GIL, so that blocks run on threads.
    """
    for block in range(first, stop):
        accumulator = features[block]
        loss_sum = slack_sum = 0.0
        for i in range(bounds[block], bounds[block + 1]):
            labels, scores = decode_keeping_scores(fns, data, i, w, table, offsets, True, keep)
            loss = fns[3](data, i, labels)
            hat_score = fns[4](data, i, w, scores, labels)
            added = fns[5](data, i, labels, 1.0, accumulator)
            if not added or not keep:
                indices, values = fns[2](data, i, labels)
                if not added:
                    for p in range(len(indices)):
                        accumulator[indices[p]] += values[p]
                if not keep:
                    hat_score = sparse_dot(w, indices, values)
            loss_sum += loss
            slack_sum += max(loss - true_scores[i] + hat_score, 0.0)
        losses[block] = loss_sum
        slacks[block] = slack_sum


def summed_pass(
    fns: tuple, data: tuple, w: np.ndarray, true_scores: np.ndarray, bounds: np.ndarray,
    keep: bool, table: np.ndarray, offsets: np.ndarray,
) -> tuple[np.ndarray, float, float]:
    """Return ``(Σ φ(x_i, ŷ_i), Σ Δ(y_i, ŷ_i), Σ ξ_i(w))`` over the examples at ``w``.

    ``bounds`` are the blocks of :func:`example_blocks`, summed by :func:`block_sums` in runs
    of consecutive blocks on Numba's number of threads (:func:`numba.get_num_threads`), then
    added in block order.
    """
    n_blocks = len(bounds) - 1
    features = np.zeros((n_blocks, len(w)))
    losses, slacks = np.zeros(n_blocks), np.zeros(n_blocks)

    def run(first: int, stop: int) -> None:
        block_sums(
            fns, data, w, true_scores, bounds, first, stop, keep, table, offsets, features,
            losses, slacks,
        )

    run_in_parts(run, n_blocks)
    for block in range(1, n_blocks):
        features[0] += features[block]
    # Running sums add the blocks' sums one after the other, in block order.
    return features[0], float(np.add.accumulate(losses)[-1]), float(np.add.accumulate(slacks)[-1])


class CompiledSummedPasses(CompiledTrainingSet):
    """A training set whose 1-slack passes are each one call of :func:`summed_pass` (build it
    with :meth:`~structsvm.solvers._example_pass.CompiledTrainingSet.prepare`)."""

    purpose = "1-slack (margin rescaling)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, summed=True, **kwargs)
        self.bounds = example_blocks(self.n_examples, self.task.size_joint_feature)

    @classmethod
    def uncalled(cls, oracle: CompiledOracle) -> tuple[str, ...]:
        """Return the base class's, and ``features`` where the oracle offers both shortcuts
        (:func:`block_sums` adds φ and takes ``w · φ`` by them)."""
        both = oracle.offers_labelling_score and oracle.offers_add_features
        return (*super().uncalled(oracle), *(("features",) if both else ()))

    def oracle_pass(self, w: np.ndarray) -> PassSummary:
        """Make the pass at ``w`` in one compiled call; return its sums."""
        feature_sum, loss_sum, slack_sum = self.call(
            summed_pass, w, self.bounds, self.oracle.offers_labelling_score
        )
        if not np.isfinite(loss_sum + slack_sum + feature_sum.sum()):
            return super().oracle_pass(w)
        return PassSummary(
            self.true_feature_sum - feature_sum, loss_sum, slack_sum, self.oracle.exact
        )
