"""Slack-rescaled oracle of first-order chains: Viterbi with a dimension for the loss so far.

It returns ``argmax_y Δ(y_true, y) (1 + score(y) − score(y_true))`` (Tsochantaridis et al., JMLR
2005) as Sarawagi & Gupta (ICML 2008) do: the best score of each reachable loss, then the loss
maximising the product. Loss states: the loss in units when every label weight is a whole
multiple of one (``T + 1`` states for the Hamming loss), else a mixed-radix count of errors per
distinct weight. Ties: the smallest state, then the lexicographically smallest labelling.
"""

from __future__ import annotations

import numba
import numpy as np

from tasks._viterbi import best_label


def loss_states(
    label_weights: np.ndarray, Y_true: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Number the loss states of every sequence (see the module docstring).

    Returns
    -------
    steps : ndarray of shape (N,), int64
        How far a wrong label at each position (of all sequences) moves the state.
    state_offsets : ndarray of shape (n_sequences + 1,), int64
        Sequence k's states have their losses at ``state_losses[state_offsets[k]:...[k + 1]]``.
    state_losses : ndarray
        The loss of every state of every sequence, concatenated.
    """
    # The loss unit: one of which every weight is a whole multiple (None if there is none).
    positive = label_weights[label_weights > 0]
    if len(positive) == 0 or np.all(positive == positive[0]):
        unit = float(positive[0]) if len(positive) else 1.0
    else:
        unit = 1.0 if np.all(label_weights == np.round(label_weights)) else None
    steps, losses = [], []
    for y_true in Y_true:
        weights = label_weights[y_true]
        if unit is not None:
            step = np.round(weights / unit).astype(np.int64)
            losses.append(unit * np.arange(1 + step.sum()))
        else:
            values, group = np.unique(weights, return_inverse=True)
            counts = np.bincount(group, minlength=len(values))
            strides = np.concatenate([[1], np.cumprod(counts + 1)[:-1]]).astype(np.int64)
            step = strides[group]
            state = np.arange(np.prod(counts + 1))
            losses.append(((state[:, None] // strides) % (counts + 1)) @ values)
        steps.append(step)
    state_offsets = np.concatenate([[0], np.cumsum([len(loss) for loss in losses])])
    steps, losses = np.concatenate(steps).astype(np.int64), np.concatenate(losses)
    return steps, state_offsets.astype(np.int64), losses.astype(np.float64)


@numba.njit(cache=True)
def _decode_sequence(
    unary: np.ndarray, begin: int, stop: int, transitions: np.ndarray, start: np.ndarray,
    end: np.ndarray, y_true: np.ndarray, position_costs: np.ndarray, state_losses: np.ndarray,
    true_score: float, labels: np.ndarray,
) -> None:
    """Write the slack-rescaled best labelling of rows ``begin:stop`` into ``labels``.

    ``best_from[τ, k, i]`` is the best score of positions τ..T−1 (from ``begin``) with label i
    at τ and loss state k reached by the errors on those positions; ``position_costs[t]`` is
    the step of a mistake at t and ``state_losses[k]`` the loss of state k.
    """
    n_labels = unary.shape[1]
    length = stop - begin
    n_losses = len(state_losses)
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
        value = state_losses[k] * (1.0 + total - true_score)
        if value > best_value:
            best_value = value
            best_loss = k

    remaining = best_loss
    into = start
    for t in range(begin, stop):
        labels[t] = best_label(into, best_from[t - begin, remaining])
        remaining -= 0 if labels[t] == y_true[t] else position_costs[t]
        into = transitions[labels[t]]


@numba.njit(cache=True)
def batch_slack_rescaled_viterbi(
    unary: np.ndarray, offsets: np.ndarray, transitions: np.ndarray, start: np.ndarray,
    end: np.ndarray, y_true: np.ndarray, position_costs: np.ndarray, state_offsets: np.ndarray,
    state_losses: np.ndarray, true_scores: np.ndarray,
) -> np.ndarray:
    """Return the slack-rescaled best labelling of every chain in a batch, concatenated.

    Parameters
    ----------
    unary, offsets, transitions, start, end
        The chains and their scores, as for :func:`tasks._viterbi.batch_viterbi`.
    y_true : ndarray of shape (N,), int64
        The true labels of every position.
    position_costs, state_offsets, state_losses : ndarrays
        The loss states of every sequence, as :func:`loss_states` returns them.
    true_scores : ndarray of shape (n_sequences,)
        The score of every true labelling.

    Returns
    -------
    ndarray of shape (N,), int64
        The labels of every position (ties as the module docstring states).
    """
    labels = np.empty(unary.shape[0], dtype=np.int64)
    for k in range(offsets.shape[0] - 1):
        losses = state_losses[state_offsets[k] : state_offsets[k + 1]]
        _decode_sequence(
            unary, offsets[k], offsets[k + 1], transitions, start, end, y_true, position_costs,
            losses, true_scores[k], labels,
        )
    return labels
