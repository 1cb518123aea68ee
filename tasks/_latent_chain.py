"""A chain with hidden states: every label owns hidden sub-states, and transitions act on them."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from structsvm._compiled_oracle import CompiledOracle, offsets_of
from structsvm._task import LatentTask, overrides_any
from structsvm._utils.validation import check_feature_array, check_labels, check_positive_int
from tasks._kmeans import kmeans_within_labels
from tasks._latent_chain_oracle import (
    add_off_label,
    batch_substate_scores,
    pair_decode,
    pair_features,
    pair_loss,
    pair_output,
    substate_scores,
)
from tasks._viterbi import batch_viterbi

Pair = tuple[np.ndarray, np.ndarray]


class LatentChainTask(LatentTask):
    """Sequence labelling where every label owns ``n_substates`` hidden sub-states.

    An input x is an array of shape (T, n_features); an output is a pair ``(y, h)`` of int
    arrays of length T: the labels and, at every position, the sub-state of its label. The
    chain runs over the sub-states ``s_t = y_t * n_substates + h_t``: the joint feature map
    holds the inputs summed into the block of their sub-state and the counts of transitions
    between sub-states, so a label's sub-states can model different regimes and the dynamics
    between them (a hidden-state chain, an HMM-like model with several states per label). The
    loss is the Hamming loss on the labels.

    All three oracles are Viterbi over the sub-states (:func:`tasks._viterbi.batch_viterbi`):
    ``argmax`` as it is, ``loss_augmented_argmax`` with the Hamming loss of the labels added
    to the unary scores, ``latent_argmax`` with every sub-state of another label than
    ``y_t`` excluded at position t. Ties go to the lexicographically smallest sequence of
    sub-states.

    Parameters
    ----------
    n_labels : int
        Number of observed labels (at least 2).
    n_substates : int
        Hidden sub-states per label (at least 1; with 1 this is a first-order chain without
        start and end scores).
    n_features : int
        Width of the feature vector of one position.

    Notes
    -----
    Training starts (:meth:`initial_latent`) from k-means clusters of the positions of each
    label, pooled over all sequences.

    References
    ----------
    C.-N. J. Yu and T. Joachims, "Learning structural SVMs with latent variables", ICML 2009.
    S. Petrov and D. Klein, "Discriminative log-linear grammars with latent variables",
    NIPS 2007 (latent sub-states of observed labels).
    """

    def __init__(self, n_labels: int, n_substates: int, n_features: int) -> None:
        self.n_labels = check_positive_int(n_labels, "n_labels", minimum=2)
        self.n_substates = check_positive_int(n_substates, "n_substates")
        self.n_features = check_positive_int(n_features, "n_features")
        self.n_states = self.n_labels * self.n_substates
        self._n_unary = self.n_states * self.n_features
        self.size_joint_feature = self._n_unary + self.n_states**2

    def __repr__(self) -> str:
        return (
            f"LatentChainTask(n_labels={self.n_labels}, n_substates={self.n_substates}, "
            f"n_features={self.n_features})"
        )

    def _states(self, output: Pair) -> np.ndarray:
        y, h = output
        return np.asarray(y, dtype=np.int64) * self.n_substates + np.asarray(h, dtype=np.int64)

    def _pair(self, states: np.ndarray) -> Pair:
        return states // self.n_substates, states % self.n_substates

    # ----------------------------------------------------------------- single examples
    def joint_feature(self, x: np.ndarray, y: Pair) -> np.ndarray:
        """Return the inputs summed by sub-state, then the sub-state transition counts."""
        states = self._states(y)
        unary = np.zeros((self.n_states, self.n_features))
        np.add.at(unary, states, np.asarray(x, dtype=float))
        transitions = np.zeros((self.n_states, self.n_states))
        np.add.at(transitions, (states[:-1], states[1:]), 1.0)
        return np.concatenate([unary.ravel(), transitions.ravel()])

    def loss(self, y_true: Pair, y: Pair) -> float:
        """Return the number of positions whose labels differ (the sub-states do not count)."""
        return float(np.sum(np.asarray(y_true[0]) != np.asarray(y[0])))

    def max_loss(self, y_true: Pair) -> float:
        """Return the length of the sequence."""
        return float(len(y_true[0]))

    def outputs(self, x: np.ndarray) -> Iterator[Pair]:
        """Every sequence of sub-states, in lexicographic order (only for short chains)."""
        for states in itertools.product(range(self.n_states), repeat=len(x)):
            yield self._pair(np.array(states, dtype=np.int64))

    def latent_outputs(self, x: np.ndarray, y: np.ndarray) -> Iterator[np.ndarray]:
        """Every sequence of sub-states of the labels y, in lexicographic order."""
        for hidden in itertools.product(range(self.n_substates), repeat=len(y)):
            yield np.array(hidden, dtype=np.int64)

    def argmax(self, x: np.ndarray, w: np.ndarray) -> Pair:
        """Return the best (labels, sub-states) by Viterbi over the sub-states."""
        return self.batch_argmax([x], w)[0]

    def loss_augmented_argmax(self, x: np.ndarray, y_true: Pair, w: np.ndarray) -> Pair:
        """Return the (labels, sub-states) maximising the Hamming loss of the labels plus score."""
        return self.batch_loss_augmented_argmax([x], [y_true], w)[0]

    def latent_argmax(self, x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Return the best sub-states of the labels y (Viterbi restricted to their sub-states)."""
        return self.batch_latent_argmax([x], [y], w)[0]

    def compiled_oracle(self, X, Y) -> CompiledOracle | None:
        """Return the compiled oracle over completed outputs (:mod:`tasks._latent_chain_oracle`).

        ``Y`` holds pairs (labels, sub-states), as the convex problem of a round of
        :class:`~structsvm.LatentStructuredSVM` has them; a pair's labels are ``y`` followed
        by ``h``. It decodes as :meth:`argmax` and :meth:`loss_augmented_argmax` do. None for
        a subclass that overrides an oracle, the loss or the joint feature.
        """
        if overrides_any(self, LatentChainTask, _COMPILED_METHODS):
            return None
        inputs, offsets = _stacked(X)
        truth = np.concatenate([np.asarray(y, dtype=np.int64) for y, _ in Y])
        return CompiledOracle(
            (inputs, offsets, truth, self.n_substates, self.n_states), substate_scores,
            pair_decode, pair_features, pair_loss, n_examples=len(X),
            batch_scores=batch_substate_scores, to_output=pair_output,
        )

    def check_data(self, X: Sequence[Any], Y: Sequence[Any] | None = None):
        """Return X as (T, n_features) float arrays and Y as int label arrays of matching T."""
        X = [
            check_feature_array(x, f"X[{i}]", ndim=2, n_features=self.n_features)
            for i, x in enumerate(X)
        ]
        if any(len(x) == 0 for x in X):
            raise ValueError("X holds an empty sequence: expected at least one position each")
        if Y is not None:
            Y = [check_labels(y, f"Y[{i}]", n_labels=self.n_labels) for i, y in enumerate(Y)]
            super().check_data(X, Y)
            for i, (x, y) in enumerate(zip(X, Y, strict=True)):
                if len(x) != len(y):
                    raise ValueError(f"Y[{i}] has {len(y)} labels, but X[{i}] has {len(x)} rows")
        return X, Y

    def initial_latent(
        self, X: Sequence[np.ndarray], Y: Sequence[np.ndarray], random_state: int | None = None
    ) -> list[np.ndarray]:
        """Cluster the positions of each label (over all sequences) by k-means into sub-states.

        A label seen at fewer positions than it has sub-states gives each its own sub-state.
        """
        inputs = np.concatenate([np.asarray(x, dtype=float) for x in X])
        labels = np.concatenate([np.asarray(y, dtype=np.int64) for y in Y])
        hidden = kmeans_within_labels(inputs, labels, self.n_substates, random_state)
        return np.split(hidden, np.cumsum([len(y) for y in Y])[:-1])

    # ----------------------------------------------------------------- batches
    def _decode(
        self, X: Sequence[np.ndarray], w: np.ndarray, labels: Sequence[Any] = (),
        off_label: float = 0.0,
    ) -> list[np.ndarray]:
        """Return the best sub-states of every input, a non-zero ``off_label`` added to every
        sub-state of another label than ``labels[k][t]`` (:func:`add_off_label`)."""
        inputs, offsets = _stacked(X)
        weights = w[: self._n_unary].reshape(self.n_states, self.n_features)
        unary = np.ascontiguousarray(inputs @ weights.T)
        if off_label:
            stacked = np.concatenate([np.asarray(y, dtype=np.int64) for y in labels])
            add_off_label(unary, stacked, self.n_substates, off_label)
        transitions = np.ascontiguousarray(
            w[self._n_unary :].reshape(self.n_states, self.n_states), dtype=np.float64
        )
        ends = np.zeros(self.n_states)
        states = batch_viterbi(unary, offsets, transitions, ends, ends)
        return np.split(states, offsets[1:-1])

    def batch_argmax(self, X: Sequence[np.ndarray], w: np.ndarray) -> list[Pair]:
        """Return the best (labels, sub-states) of every input."""
        return [self._pair(states) for states in self._decode(X, w)]

    def batch_loss_augmented_argmax(
        self, X: Sequence[np.ndarray], Y_true: Sequence[Pair], w: np.ndarray
    ) -> list[Pair]:
        """Return the most violating (labels, sub-states) of every example."""
        labels = [y for y, _ in Y_true]
        return [self._pair(states) for states in self._decode(X, w, labels, 1.0)]

    def batch_latent_argmax(
        self, X: Sequence[np.ndarray], Y: Sequence[np.ndarray], w: np.ndarray
    ) -> list[np.ndarray]:
        """Return the best sub-states of every example's labels."""
        return [states % self.n_substates for states in self._decode(X, w, Y, -np.inf)]


def _stacked(X: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Return the positions of all sequences as one float64 array, and where each starts."""
    positions = np.ascontiguousarray(np.concatenate(X), dtype=np.float64)
    return positions, offsets_of([len(x) for x in X])


_COMPILED_METHODS = (
    "joint_feature", "loss", "argmax", "loss_augmented_argmax", "batch_joint_feature",
    "sparse_joint_feature", "batch_loss", "batch_argmax", "batch_loss_augmented_argmax",
    "_decode",
)
