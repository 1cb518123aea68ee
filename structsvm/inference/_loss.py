"""The weighted Hamming loss folded into the unary scores, for loss-augmented inference."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from structsvm._utils.validation import check_feature_array, check_labels


def hamming_augmented_unary(
    unary: ArrayLike,
    y_true: ArrayLike,
    node_weights: ArrayLike | None = None,
    class_weights: ArrayLike | None = None,
) -> np.ndarray:
    """Return the unary scores plus the weighted Hamming loss against ``y_true``.

    The loss Δ(y_true, y) = Σ_i w_i · c_{y_true[i]} · [y_i ≠ y_true[i]] splits over nodes, so
    maximising score plus loss over a pairwise model is the same inference with the unary score
    of every state ``a ≠ y_true[i]`` of node i raised by ``w_i · c_{y_true[i]}`` (Taskar,
    Guestrin & Koller, 2003). The true state keeps its score unchanged.

    Parameters
    ----------
    unary : array-like of shape (n_nodes, n_states)
        Unary scores.
    y_true : array-like of int, shape (n_nodes,)
        The true labelling, states in ``0 .. n_states - 1``.
    node_weights : array-like of shape (n_nodes,), optional
        The weight w_i of each node's error (default 1).
    class_weights : array-like of shape (n_states,), optional
        The weight c_a of an error on a node whose true state is a (default 1).

    Returns
    -------
    ndarray of shape (n_nodes, n_states)
        A new array: ``unary + w_i · c_{y_true[i]} · [a ≠ y_true[i]]``.

    References
    ----------
    B. Taskar, C. Guestrin and D. Koller. Max-margin Markov networks. NIPS 2003.
    """
    unary = check_feature_array(unary, "unary", ndim=2, n_features=None)
    n_nodes, n_states = unary.shape
    y_true = check_labels(y_true, "y_true", n_labels=n_states)
    if len(y_true) != n_nodes:
        raise ValueError(f"y_true has {len(y_true)} labels, expected n_nodes={n_nodes}")
    cost = np.ones(n_nodes)
    if node_weights is not None:
        cost = cost * _nonnegative_vector(node_weights, "node_weights", n_nodes)
    if class_weights is not None:
        cost = cost * _nonnegative_vector(class_weights, "class_weights", n_states)[y_true]
    augmented = unary + cost[:, None]
    augmented[np.arange(n_nodes), y_true] = unary[np.arange(n_nodes), y_true]
    return augmented


def _nonnegative_vector(values: ArrayLike, name: str, size: int) -> np.ndarray:
    array = check_feature_array(values, name, ndim=1, n_features=None)
    if len(array) != size:
        raise ValueError(f"{name} has length {len(array)}, expected {size}")
    if np.any(array < 0):
        raise ValueError(f"{name} must be non-negative, got a minimum of {array.min()}")
    return array
