"""The compiled 1-slack pass of a first-order linear chain (``ChainTask.summed_pass_kernel``).

One call makes the whole pass at ``w``: for every sequence it scores the positions from their
stored entries (the unary product), adds the weighted Hamming loss, decodes by the chain
task's own Viterbi (:func:`tasks._viterbi.decode_sequence`, the same ties), scores the true
and the decoded labelling for the slack, and adds φ(x_i, ŷ_i) straight into a dense
accumulator: no labellings, joint feature rows or per-example arrays are formed. The
sequences are summed in the blocks of :mod:`tasks._summed_blocks`, on Numba's threads if
asked, so the sums do not depend on the number of threads.

The positions are read in CSR form (dense positions are converted once per fit, keeping their
non-zero entries), and every unary score adds its terms in the order of the stored entries,
as :func:`tasks._chain_features.sparse_unary_scores` does.

The kernel compiles the decoder of :mod:`tasks._viterbi`, the weight tables of
:mod:`tasks._chain_features` and the sums of :mod:`tasks._summed_blocks` into itself: Numba's
on-disk cache of it goes stale when those modules change and this file does not (delete the
cache, or touch this file).
"""

from __future__ import annotations

import numba
import numpy as np

from structsvm.solvers._summed_blocks import block_accumulators, block_totals
from tasks._chain_features import chain_weight_tables
from tasks._viterbi import add_hamming_loss, decode_sequence, hamming_loss, labelling_score


@numba.njit(cache=True)
def _block_pass(
    X_indptr, X_indices, X_data, offsets, labels, label_weights, layout, flags, max_length,
    first_example, stop_example, emissions_by_feature, bias, transitions, transitions_by_next,
    start, end, accumulator,
):
    """Make the pass over sequences ``first_example:stop_example``; return (losses, slacks).

    φ(x_i, ŷ_i) of every sequence is added into ``accumulator``. The arguments are arrays and
    scalars only (Numba's parallel loops take no tuples).
    """
    n_features, n_labels = emissions_by_feature.shape
    transitions_at, start_at, end_at, bias_at = layout[0], layout[2], layout[3], layout[4]
    use_transitions, use_start_end, use_bias = flags[0], flags[1], flags[2]
    unary = np.empty((max_length, n_labels))
    augmented = np.empty((max_length, n_labels))
    best_from = np.empty((max_length, n_labels))
    decoded = np.empty(max_length, dtype=np.int64)
    loss_sum = 0.0
    slack_sum = 0.0
    for i in range(first_example, stop_example):
        first, stop = offsets[i], offsets[i + 1]
        length = stop - first
        y_true = labels[first:stop]
        for t in range(length):
            row = unary[t]
            row[:] = 0.0
            for p in range(X_indptr[first + t], X_indptr[first + t + 1]):
                value, by_label = X_data[p], emissions_by_feature[X_indices[p]]
                for label in range(n_labels):
                    row[label] += value * by_label[label]
            if use_bias:
                for label in range(n_labels):
                    row[label] += bias[label]
        augmented[:length] = unary[:length]
        add_hamming_loss(augmented[:length], y_true, label_weights)
        decode_sequence(
            augmented, 0, length, transitions, transitions_by_next, start, end, best_from,
            decoded,
        )
        y_hat = decoded[:length]
        loss = hamming_loss(y_true, y_hat, label_weights)
        true_score = labelling_score(unary[:length], transitions, start, end, y_true)
        decoded_score = labelling_score(unary[:length], transitions, start, end, y_hat)
        loss_sum += loss
        violation = loss - (true_score - decoded_score)
        if not violation <= 0.0:  # NaN too: scores that overflow leave the sums not finite
            slack_sum += violation
        for t in range(length):
            label = decoded[t]
            at = label * n_features
            for p in range(X_indptr[first + t], X_indptr[first + t + 1]):
                accumulator[at + X_indices[p]] += X_data[p]
            if use_bias:
                accumulator[bias_at + label] += 1.0
            if use_transitions and t + 1 < length:
                accumulator[transitions_at + label * n_labels + decoded[t + 1]] += 1.0
        if use_start_end:
            accumulator[start_at + decoded[0]] += 1.0
            accumulator[end_at + decoded[length - 1]] += 1.0
    return loss_sum, slack_sum


@numba.njit(cache=True)
def _pass_weights(w, n_labels, n_features, layout, flags):
    """Return the weights a pass reads, laid out for it (zeros for the blocks that are off).

    Emissions by feature (d, L), bias, transitions, transitions by next label, start, end.
    """
    transitions_at, bias_at = layout[0], layout[4]
    emissions = w[:transitions_at].reshape((n_labels, n_features))
    emissions_by_feature = np.ascontiguousarray(emissions.T)
    transitions, start, end = chain_weight_tables(w, n_labels, layout, flags)
    bias = w[bias_at : bias_at + n_labels].copy() if flags[2] else np.zeros(n_labels)
    return (
        emissions_by_feature, bias, transitions, np.ascontiguousarray(transitions.T), start, end
    )


@numba.njit(cache=True, parallel=True)
def chain_summed_pass(data, w):
    """Return ``(Σ φ(x_i, ŷ_i), Σ Δ(y_i, ŷ_i), Σ ξ_i(w))`` of a chain's training set at ``w``.

    The kernel of :meth:`tasks.ChainTask.summed_pass_kernel`; the blocks of examples run on
    Numba's threads (as many as are set: one, or those of a threaded fit), with the same result
    on any number. Its
    arrays are made by serial helpers: array expressions written here would each become a
    parallel loop of their own, and every parallel loop waits for all the threads.
    """
    (
        X_indptr, X_indices, X_data, offsets, labels, label_weights, n_labels, n_features,
        layout, flags, max_length, bounds,
    ) = data
    emissions_by_feature, bias, transitions, transitions_by_next, start, end = _pass_weights(
        w, n_labels, n_features, layout, flags
    )
    n_blocks = len(bounds) - 1
    accumulators, losses, slacks = block_accumulators(n_blocks, len(w))
    for block in numba.prange(n_blocks):
        loss, slack = _block_pass(
            X_indptr, X_indices, X_data, offsets, labels, label_weights, layout, flags,
            max_length, bounds[block], bounds[block + 1], emissions_by_feature, bias,
            transitions, transitions_by_next, start, end, accumulators[block],
        )
        losses[block] = loss
        slacks[block] = slack
    return block_totals(accumulators, losses, slacks)
