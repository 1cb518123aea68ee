"""The compiled 1-slack pass of the multiclass task (``MulticlassTask.summed_pass_kernel``).

One call makes the whole pass at ``w``: for every example it scores the classes with the
stored entries of x_i, takes the class of largest loss plus score (ties to the smallest class,
as :meth:`tasks.MulticlassTask.loss_augmented_argmax`), and adds its loss, its slack and
φ(x_i, ŷ_i) = e_ŷ ⊗ x_i, straight into a dense accumulator. The examples are summed in the
blocks of :mod:`tasks._summed_blocks`, on Numba's threads if asked, so the sums do not depend
on the number of threads. The kernel compiles :func:`tasks._summed_blocks.block_totals` into
itself: Numba's on-disk cache of it goes stale when that module changes and this file does not.
"""

from __future__ import annotations

import numba
import numpy as np

from tasks._summed_blocks import block_totals


@numba.njit(cache=True)
def _block_pass(
    indptr, columns, values, labels, loss_matrix, n_features, first_example, stop_example, w,
    accumulator,
):
    """Make the pass over examples ``first_example:stop_example``; return (losses, slacks).

    φ(x_i, ŷ_i) of every example is added into ``accumulator``.
    """
    n_classes = loss_matrix.shape[0]
    loss_sum = 0.0
    slack_sum = 0.0
    for i in range(first_example, stop_example):
        begin, end = indptr[i], indptr[i + 1]
        truth = labels[i]
        best, best_value, best_score, true_score = 0, -np.inf, 0.0, 0.0
        for label in range(n_classes):
            offset = label * n_features
            score = 0.0
            for p in range(begin, end):
                score += values[p] * w[offset + columns[p]]
            value = score + loss_matrix[truth, label]
            if value > best_value:
                best, best_value, best_score = label, value, score
            if label == truth:
                true_score = score
        loss = loss_matrix[truth, best]
        loss_sum += loss
        violation = loss - (true_score - best_score)
        if not violation <= 0.0:  # NaN too: scores that overflow leave the sums not finite
            slack_sum += violation
        offset = best * n_features
        for p in range(begin, end):
            accumulator[offset + columns[p]] += values[p]
    return loss_sum, slack_sum


@numba.njit(cache=True, parallel=True)
def multiclass_summed_pass(data, w, threaded):
    """Return ``(Σ φ(x_i, ŷ_i), Σ Δ(y_i, ŷ_i), Σ ξ_i(w))`` of a multiclass training set at ``w``.

    The kernel of :meth:`tasks.MulticlassTask.summed_pass_kernel`; the blocks of examples run
    on Numba's threads if ``threaded``, one after another otherwise, with the same result.
    """
    indptr, columns, values, labels, loss_matrix, n_features, bounds = data
    n_blocks = len(bounds) - 1
    accumulators = np.zeros((n_blocks, loss_matrix.shape[0] * n_features))
    losses = np.zeros(n_blocks)
    slacks = np.zeros(n_blocks)
    if threaded:
        for block in numba.prange(n_blocks):
            loss, slack = _block_pass(
                indptr, columns, values, labels, loss_matrix, n_features, bounds[block],
                bounds[block + 1], w, accumulators[block],
            )
            losses[block] = loss
            slacks[block] = slack
    else:
        for block in range(n_blocks):
            loss, slack = _block_pass(
                indptr, columns, values, labels, loss_matrix, n_features, bounds[block],
                bounds[block + 1], w, accumulators[block],
            )
            losses[block] = loss
            slacks[block] = slack
    return block_totals(accumulators, losses, slacks)
