"""The compiled 1-slack pass of the multiclass task (``MulticlassTask.summed_pass_kernel``).

A pass at ``w`` takes, for every example, the class of largest loss plus score (ties to the
smallest class, as :meth:`tasks.MulticlassTask.loss_augmented_argmax`), and adds its loss, its
slack and φ(x_i, ŷ_i) = e_ŷ ⊗ x_i straight into a dense accumulator, with no per-example
outputs or joint feature rows:

* sparse inputs (:func:`sparse_multiclass_summed_pass`): one Numba call that scores the
  classes with the stored entries of x_i;
* dense inputs (:func:`dense_multiclass_summed_pass`): the class scores of all examples by the
  task's own blocked BLAS product (:func:`tasks._threads.row_blocks_product`, the same bits as
  the task's oracles), then one Numba call for the rest.

The examples are summed in the blocks of :mod:`tasks._summed_blocks`, on Numba's threads if
asked, so the sums do not depend on the number of threads. The kernels compile
:func:`tasks._summed_blocks.block_totals` into themselves: Numba's on-disk cache of them goes
stale when that module changes and this file does not.
"""

from __future__ import annotations

import numba
import numpy as np

from tasks._summed_blocks import block_accumulators, block_totals
from tasks._threads import row_blocks_product


@numba.njit(cache=True)
def _most_violating(scores, truth, loss_matrix):
    """Return the most violating class of one example given its class scores (ties: smallest)."""
    best, best_value = 0, -np.inf
    for label in range(len(scores)):
        value = scores[label] + loss_matrix[truth, label]
        if value > best_value:
            best, best_value = label, value
    return best


@numba.njit(cache=True)
def _sparse_block_pass(
    indptr, columns, values, labels, loss_matrix, weights_by_feature, first_example,
    stop_example, accumulator,
):
    """Make the pass over examples ``first_example:stop_example``; return (losses, slacks).

    Class scores add the stored entries of x_i in their order; φ(x_i, ŷ_i) of every example
    is added into ``accumulator``.
    """
    n_features, n_classes = weights_by_feature.shape
    scores = np.empty(n_classes)
    loss_sum = 0.0
    slack_sum = 0.0
    for i in range(first_example, stop_example):
        begin, end = indptr[i], indptr[i + 1]
        scores[:] = 0.0
        for p in range(begin, end):
            value, by_class = values[p], weights_by_feature[columns[p]]
            for label in range(n_classes):
                scores[label] += value * by_class[label]
        truth = labels[i]
        best = _most_violating(scores, truth, loss_matrix)
        loss = loss_matrix[truth, best]
        loss_sum += loss
        violation = loss - (scores[truth] - scores[best])
        if not violation <= 0.0:  # NaN too: scores that overflow leave the sums not finite
            slack_sum += violation
        offset = best * n_features
        for p in range(begin, end):
            accumulator[offset + columns[p]] += values[p]
    return loss_sum, slack_sum


@numba.njit(cache=True)
def _by_feature(w, n_classes, n_features):
    """Return the class weights as a contiguous (n_features, n_classes) array."""
    return np.ascontiguousarray(w.reshape((n_classes, n_features)).T)


@numba.njit(cache=True, parallel=True)
def sparse_multiclass_summed_pass(data, w):
    """Return ``(Σ φ(x_i, ŷ_i), Σ Δ(y_i, ŷ_i), Σ ξ_i(w))`` of sparse multiclass inputs at ``w``.

    The kernel of :meth:`tasks.MulticlassTask.summed_pass_kernel` for CSR inputs; the blocks of
    examples run on Numba's threads (as many as are set: one, or those of a threaded fit), with
    the same result on any number. Its arrays are made by serial helpers, so that the block
    loop is its only parallel loop.
    """
    indptr, columns, values, labels, loss_matrix, n_features, bounds = data
    weights_by_feature = _by_feature(w, loss_matrix.shape[0], n_features)
    n_blocks = len(bounds) - 1
    accumulators, losses, slacks = block_accumulators(n_blocks, len(w))
    for block in numba.prange(n_blocks):
        loss, slack = _sparse_block_pass(
            indptr, columns, values, labels, loss_matrix, weights_by_feature,
            bounds[block], bounds[block + 1], accumulators[block],
        )
        losses[block] = loss
        slacks[block] = slack
    return block_totals(accumulators, losses, slacks)


@numba.njit(cache=True)
def _dense_block_pass(
    X, scores, w, labels, loss_matrix, first_example, stop_example, accumulator
):
    """Make the pass over rows ``first_example:stop_example`` of ``X`` given their class scores.

    The scores choose ŷ_i; the slack takes the scores of y_i and ŷ_i again, each feature
    added in turn, as the generic pass's product of φ by w does, so that a large C does not
    magnify the rounding of the blocked product. φ(x_i, ŷ_i) of every example is added into
    ``accumulator``; returns (losses, slacks).
    """
    n_features = X.shape[1]
    loss_sum = 0.0
    slack_sum = 0.0
    for i in range(first_example, stop_example):
        truth = labels[i]
        best = _most_violating(scores[i], truth, loss_matrix)
        loss = loss_matrix[truth, best]
        loss_sum += loss
        true_score = 0.0
        best_score = 0.0
        for j in range(n_features):
            true_score += X[i, j] * w[truth * n_features + j]
            best_score += X[i, j] * w[best * n_features + j]
        violation = loss - (true_score - best_score)
        if not violation <= 0.0:  # NaN too: scores that overflow leave the sums not finite
            slack_sum += violation
        offset = best * n_features
        for j in range(n_features):
            accumulator[offset + j] += X[i, j]
    return loss_sum, slack_sum


@numba.njit(cache=True, parallel=True)
def _dense_sums(X, scores, w, labels, loss_matrix, bounds):
    """Return the sums of the pass over dense rows ``X`` given their class scores."""
    n_blocks = len(bounds) - 1
    accumulators, losses, slacks = block_accumulators(n_blocks, len(w))
    for block in numba.prange(n_blocks):
        loss, slack = _dense_block_pass(
            X, scores, w, labels, loss_matrix, bounds[block], bounds[block + 1],
            accumulators[block],
        )
        losses[block] = loss
        slacks[block] = slack
    return block_totals(accumulators, losses, slacks)


def dense_multiclass_summed_pass(
    data: tuple, w: np.ndarray
) -> tuple[np.ndarray, float, float]:
    """Return ``(Σ φ(x_i, ŷ_i), Σ Δ(y_i, ŷ_i), Σ ξ_i(w))`` of dense multiclass inputs at ``w``.

    The kernel of :meth:`tasks.MulticlassTask.summed_pass_kernel` for dense inputs: the class
    scores by :func:`tasks._threads.row_blocks_product` (on Numba's number of threads, the
    same bits on any), then one Numba call, its blocks on Numba's threads.
    """
    X, labels, loss_matrix, bounds = data
    weights = w.reshape(loss_matrix.shape[0], X.shape[1])
    scores = row_blocks_product(X, weights.T)
    return _dense_sums(X, scores, w, labels, loss_matrix, bounds)
