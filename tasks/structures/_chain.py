"""The linear chain as a structure scored from outside: unary and transition scores."""

from __future__ import annotations

import numpy as np

from structsvm.hinge import Structure
from tasks._viterbi import add_hamming_loss, batch_viterbi


class ChainStructure(Structure):
    """Label sequences scored by per-position unary and label-to-label transition scores.

    ``s(y) = Σ_t unary[t, y_t] + Σ_t transitions[y_t, y_{t+1}]`` over an example's positions
    ``t < length``; Δ is the Hamming loss. Decoding is the chain tasks' compiled Viterbi
    (:mod:`tasks._viterbi`), loss-augmented by adding the Hamming loss to the unary scores;
    ties go to the lexicographically smallest labelling.

    Parameters
    ----------
    n_labels : int
        The number of labels K.

    Notes
    -----
    Score arrays: ``unary`` (batch, T, K) and ``transitions`` (K, K) shared by the batch or
    (batch, K, K). Labellings: (batch, T) int64; a ``mask`` (batch, T) marks each sequence's
    positions (a prefix).
    """

    score_names = ("unary", "transitions")
    score_ndims = (2, 2)

    def __init__(self, n_labels: int) -> None:
        if n_labels < 1:
            raise ValueError(f"n_labels must be at least 1, got {n_labels}")
        self.n_labels = int(n_labels)

    def decode(
        self, scores: tuple[np.ndarray, ...], lengths: np.ndarray, truth: np.ndarray | None
    ) -> np.ndarray:
        """Return Viterbi's labellings (loss-augmented when ``truth`` is given)."""
        unary, transitions = self._checked(scores, len(lengths))
        valid = _positions(lengths, unary.shape[1])
        stacked = unary[valid]
        if truth is not None:
            add_hamming_loss(stacked, truth[valid], np.ones(self.n_labels))
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        no_ends = np.zeros(self.n_labels)
        if transitions.ndim == 2:
            flat = batch_viterbi(stacked, offsets, transitions, no_ends, no_ends)
        else:
            flat = np.concatenate([
                batch_viterbi(
                    stacked[offsets[k] : offsets[k + 1]], offsets[k : k + 2] - offsets[k],
                    np.ascontiguousarray(transitions[k]), no_ends, no_ends,
                )
                for k in range(len(lengths))
            ])
        labels = np.zeros(valid.shape, dtype=np.int64)
        labels[valid] = flat
        return labels

    def parts(
        self, labels: np.ndarray, lengths: np.ndarray, shapes: tuple[tuple[int, ...], ...]
    ) -> tuple[np.ndarray, ...]:
        """Return the one-hot unary parts and the transition counts of every labelling."""
        length, n_labels = shapes[0]
        valid = _positions(lengths, length)
        labels = self._checked_labels(labels, valid)
        examples, positions = np.nonzero(valid)
        unary = np.zeros((len(lengths), length, n_labels))
        unary[examples, positions, labels[examples, positions]] = 1.0
        transitions = np.zeros((len(lengths), n_labels, n_labels))
        examples, positions = np.nonzero(valid[:, 1:])
        np.add.at(
            transitions,
            (examples, labels[examples, positions], labels[examples, positions + 1]),
            1.0,
        )
        return unary, transitions

    def loss(self, truth: np.ndarray, labels: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return the Hamming loss of every labelling over its sequence's positions."""
        valid = _positions(lengths, truth.shape[1])
        return ((truth != labels) & valid).sum(axis=1).astype(np.float64)

    def _checked(
        self, scores: tuple[np.ndarray, ...], batch: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return the unary scores (batch, T, K), C-contiguous, and the transitions."""
        unary, transitions = scores
        if unary.ndim == 2:
            unary = np.broadcast_to(unary, (batch, *unary.shape))
        if unary.shape[2] != self.n_labels or transitions.shape[-2:] != (
            self.n_labels,
            self.n_labels,
        ):
            raise ValueError(
                f"unary {unary.shape} and transitions {transitions.shape} do not have "
                f"n_labels={self.n_labels} labels"
            )
        return np.ascontiguousarray(unary), np.ascontiguousarray(transitions)

    def _checked_labels(self, labels: np.ndarray, valid: np.ndarray) -> np.ndarray:
        """Return ``labels`` (batch, T) int64 after checking its labels at valid positions."""
        labels = np.asarray(labels, dtype=np.int64)
        if labels.shape != valid.shape:
            raise ValueError(f"labellings have shape {labels.shape}, expected {valid.shape}")
        used = labels[valid]
        if used.size and (used.min() < 0 or used.max() >= self.n_labels):
            raise ValueError(f"labels must lie in 0 .. {self.n_labels - 1}")
        return labels


def _positions(lengths: np.ndarray, length: int) -> np.ndarray:
    """Return the (batch, length) mask of each sequence's positions."""
    return np.arange(length) < lengths[:, None]
