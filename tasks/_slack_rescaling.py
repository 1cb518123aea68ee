"""The slack-rescaled oracle of linear chains: Viterbi with a dimension for the loss.

Slack rescaling (Tsochantaridis, Joachims, Hofmann & Altun, JMLR 2005) asks for
``argmax_y Δ(y_true, y) (1 + score(y) − score(y_true))``. The product does not split over
positions, so plain Viterbi does not solve it; but for a fixed loss ℓ the value grows with the
score. Following Sarawagi & Gupta ("Accurate max-margin training for structured output
spaces", ICML 2008), a Viterbi pass with one more dimension, the loss accumulated so far, finds
for every loss value ℓ the best score ``best_ℓ`` of a labelling with exactly that loss; the
oracle's answer is a best labelling of the ℓ maximising ``ℓ (1 + best_ℓ − score(y_true))``.

The (weighted) Hamming loss counts ``label_weights[y_true[t]]`` for every wrong position t. The
dynamic programme runs over the loss in whole units: every weight must be an integer multiple
of one unit (all weights equal, or all integers), and it costs ``O(T · K · L²)`` time for a
chain of T positions, L labels and ``K = 1 + Σ_t weight_t / unit`` loss values (``K = T + 1``
for the plain Hamming loss).

Ties: the smallest maximising loss value, then, among the labellings with that loss and the
best score, the lexicographically smallest (the forward read-out takes the smallest label that
still completes such a labelling, as :mod:`tasks._viterbi` does).
"""

from __future__ import annotations

import numba
import numpy as np


def loss_units(label_weights: np.ndarray) -> tuple[float, np.ndarray]:
    """Return the loss unit and every label's weight in units (int64).

    Raises
    ------
    ValueError
        If the weights are not all integer multiples of one unit: equal (positive) weights, or
        integers.
    """
    positive = label_weights[label_weights > 0]
    if len(positive) == 0 or np.all(positive == positive[0]):
        unit = float(positive[0]) if len(positive) else 1.0
    elif np.all(label_weights == np.round(label_weights)):
        unit = 1.0
    else:
        raise ValueError(
            "the slack-rescaled oracle of ChainTask counts the loss in whole units, so "
            "label_weights must be all equal or all integers; got "
            f"{label_weights.tolist()}"
        )
    return unit, np.round(label_weights / unit).astype(np.int64)


@numba.njit(cache=True)
def _decode_sequence(
    unary: np.ndarray,
    begin: int,
    stop: int,
    transitions: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    y_true: np.ndarray,
    position_costs: np.ndarray,
    unit: float,
    true_score: float,
    labels: np.ndarray,
) -> None:
    """Write the slack-rescaled best labelling of rows ``begin:stop`` into ``labels``.

    ``best_from[τ, k, i]`` is the best score of positions τ..T−1 (from ``begin``) with label i
    at τ and k loss units on those positions; ``position_costs[t]`` is the units of a mistake
    at t.
    """
    n_labels = unary.shape[1]
    length = stop - begin
    n_losses = 1
    for t in range(begin, stop):
        n_losses += position_costs[t]
    best_from = np.full((length, n_losses, n_labels), -np.inf)
    last = stop - 1
    for i in range(n_labels):
        cost = 0 if i == y_true[last] else position_costs[last]
        best_from[length - 1, cost, i] = unary[last, i] + end[i]
    for tau in range(length - 2, -1, -1):
        t = begin + tau
        following = best_from[tau + 1]
        for i in range(n_labels):
            cost = 0 if i == y_true[t] else position_costs[t]
            for k in range(cost, n_losses):
                best = -np.inf
                for j in range(n_labels):
                    value = transitions[i, j] + following[k - cost, j]
                    if value > best:
                        best = value
                best_from[tau, k, i] = unary[t, i] + best

    best_loss = 0
    best_value = -np.inf
    for k in range(n_losses):
        total = -np.inf
        for i in range(n_labels):
            total = max(total, start[i] + best_from[0, k, i])
        if total == -np.inf:
            continue
        value = k * unit * (1.0 + total - true_score)
        if value > best_value:
            best_value = value
            best_loss = k

    remaining = best_loss
    best_label = 0
    best_value = -np.inf
    for i in range(n_labels):
        value = start[i] + best_from[0, remaining, i]
        if value > best_value:
            best_value = value
            best_label = i
    labels[begin] = best_label
    remaining -= 0 if best_label == y_true[begin] else position_costs[begin]
    for tau in range(1, length):
        t = begin + tau
        previous = labels[t - 1]
        best_label = 0
        best_value = -np.inf
        for j in range(n_labels):
            value = transitions[previous, j] + best_from[tau, remaining, j]
            if value > best_value:
                best_value = value
                best_label = j
        labels[t] = best_label
        remaining -= 0 if best_label == y_true[t] else position_costs[t]


@numba.njit(cache=True)
def batch_slack_rescaled_viterbi(
    unary: np.ndarray,
    offsets: np.ndarray,
    transitions: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    y_true: np.ndarray,
    position_costs: np.ndarray,
    unit: float,
    true_scores: np.ndarray,
) -> np.ndarray:
    """Return the slack-rescaled best labelling of every chain in a batch, concatenated.

    Parameters
    ----------
    unary, offsets, transitions, start, end
        The chains and their scores, as for :func:`tasks._viterbi.batch_viterbi`.
    y_true : ndarray of shape (N,), int64
        The true labels of every position.
    position_costs : ndarray of shape (N,), int64
        The loss, in units, of a wrong label at every position.
    unit : float
        The loss of one unit.
    true_scores : ndarray of shape (n_sequences,)
        The score of every true labelling.

    Returns
    -------
    ndarray of shape (N,), int64
        The labels of every position, maximising ``Δ (1 + score(y) − score(y_true))``; ties as
        the module docstring states.
    """
    labels = np.empty(unary.shape[0], dtype=np.int64)
    for k in range(offsets.shape[0] - 1):
        _decode_sequence(
            unary,
            offsets[k],
            offsets[k + 1],
            transitions,
            start,
            end,
            y_true,
            position_costs,
            unit,
            true_scores[k],
            labels,
        )
    return labels
