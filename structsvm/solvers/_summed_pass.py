"""The compiled 1-slack pass: one call over the training set through the task's compiled oracle.

The 1-slack solver needs from an oracle pass only its sums
(:class:`~structsvm.solvers._oracle.PassSummary`). A task that offers a compiled oracle
(:meth:`structsvm.Task.compiled_oracle`) prepares its data once per fit, here, and every pass
is then one call of :func:`summed_pass`, on ``n_jobs`` of Numba's threads, in place of the
oracle, the losses, the joint features and their sums of
:func:`~structsvm.solvers._oracle.loss_augmented_pass`. The examples are summed in blocks fixed
by the data (:mod:`structsvm.solvers._summed_blocks`), so the sums are the same bits on any
number of threads.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from structsvm._utils.parallel import compiled_threads
from structsvm.solvers._compiled_training_set import CompiledTrainingSet
from structsvm.solvers._example_oracle import NO_TABLE, decode_keeping_scores, sparse_dot
from structsvm.solvers._oracle import (
    PassSummary,
    column_sums,
    loss_augmented_pass,
)
from structsvm.solvers._summed_blocks import block_accumulators, block_totals, example_blocks


@numba.njit(cache=True)
def _block_sums(fns, data, w, true_scores, begin, stop, table, offsets, keep, accumulator):
    """Add φ(x_i, ŷ_i) of examples ``begin:stop`` into ``accumulator``; return Σ Δ and Σ ξ.

    φ is added by the oracle's ``add_features`` and ``w · φ`` taken by its
    ``labelling_score`` where the task offers them, from φ's sparse entries otherwise.
    """
    loss_sum = slack_sum = 0.0
    for i in range(begin, stop):
        labels, scores = decode_keeping_scores(fns, data, i, w, table, offsets, True, keep)
        loss = fns[3](data, i, labels)
        hat_score = fns[4](data, i, w, scores, labels)
        added = fns[5](data, i, labels, 1.0, accumulator)
        if not added or np.isnan(hat_score):
            indices, values = fns[2](data, i, labels)
            if not added:
                for p in range(len(indices)):
                    accumulator[indices[p]] += values[p]
            if np.isnan(hat_score):
                hat_score = sparse_dot(w, indices, values)
        loss_sum += loss
        slack_sum += max(loss - true_scores[i] + hat_score, 0.0)
    return loss_sum, slack_sum


@numba.njit(cache=True, parallel=True)
def summed_pass(fns, data, w, true_scores, bounds, table, offsets, keep):
    """Return ``(Σ φ(x_i, ŷ_i), Σ Δ(y_i, ŷ_i), Σ ξ_i(w))`` over the examples at ``w``.

    ``ŷ_i`` is the compiled oracle's loss-augmented output, ``true_scores[i] = w · φ(x_i,
    y_i)`` and ``bounds`` the blocks of :func:`~structsvm.solvers._summed_blocks.example_blocks`,
    each summed by one of Numba's threads (the arrays are made by serial helpers: an array
    expression here would be a parallel loop of its own). ``keep`` says whether the oracle
    offers ``labelling_score`` (:attr:`structsvm.CompiledOracle.offers_labelling_score`).
    """
    n_blocks = len(bounds) - 1
    accumulators, losses, slacks = block_accumulators(n_blocks, len(w))
    for block in numba.prange(n_blocks):
        loss, slack = _block_sums(
            fns, data, w, true_scores, bounds[block], bounds[block + 1], table, offsets, keep,
            accumulators[block],
        )
        losses[block] = loss
        slacks[block] = slack
    return block_totals(accumulators, losses, slacks)


class CompiledSummedPasses(CompiledTrainingSet):
    """A training set whose 1-slack passes are each one call of :func:`summed_pass`.

    A :class:`~structsvm.solvers._cutting_plane.ConstraintSource` whose
    :meth:`oracle_pass` returns a :class:`~structsvm.solvers._oracle.PassSummary`. Build it
    with :meth:`prepare`, which returns None when the task has no compiled oracle.

    The parameters are :class:`~structsvm.solvers._compiled_training_set.CompiledTrainingSet`'s.
    """

    purpose = "1-slack (margin rescaling)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.true_feature_sum = column_sums(self.true_features)
        self.bounds = example_blocks(self.n_examples, self.task.size_joint_feature)

    def oracle_pass(self, w: np.ndarray) -> PassSummary:
        """Make the pass at ``w`` in one compiled call; return its sums.

        Scores that overflow make the sums not finite: the pass is then made again by
        :func:`~structsvm.solvers._oracle.loss_augmented_pass`, whose checks say what is wrong.
        """
        oracle = self.oracle
        true_scores = np.asarray(self.true_features @ w, dtype=np.float64).ravel()
        with compiled_threads(self.n_jobs):
            table = NO_TABLE if oracle.batch_scores is None else oracle.batch_scores(oracle.data, w)
            feature_sum, loss_sum, slack_sum = summed_pass(
                self.functions, oracle.data, w, true_scores, self.bounds, *table,
                oracle.offers_labelling_score,
            )
        if not np.isfinite(loss_sum + slack_sum + feature_sum.sum()):
            return PassSummary.of(
                loss_augmented_pass(self.task, self.X, self.Y, self.true_features, w)
            )
        return PassSummary(
            self.true_feature_sum - feature_sum, loss_sum, slack_sum, oracle.exact
        )
