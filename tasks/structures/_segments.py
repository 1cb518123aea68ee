"""Labelled segments as a structure scored from outside: token, length and transition scores."""

from __future__ import annotations

import itertools

import numpy as np

from structsvm.hinge import Structure
from tasks._semi_markov_oracle import SegmentData, segment_decode, segment_loss


class SegmentStructure(Structure):
    """Segmentations of sequences into labelled segments of at most L tokens (semi-Markov).

    A labelling is one code per token, as :class:`tasks.SemiMarkovTask` writes it: ``k`` where
    a segment of label k begins, ``K + k`` inside it. A segment of label k over tokens s … e−1
    scores ``tokens[s, k] + Σ_t tokens[t, K + k] + tokens[e − 1, 2K + k] + lengths[k, e − s −
    1]``, and consecutive segments of labels k′, k add ``transitions[k′, k]``. Δ is the Hamming
    loss over the codes or, with ``segment_loss``, the number of segments in one labelling and
    not the other. Decoding is the task's compiled semi-Markov Viterbi, exact for both losses.

    Parameters
    ----------
    n_labels : int
        The number of segment labels K.
    max_length : int
        The longest segment L.
    segment_loss : bool, default=False

    Notes
    -----
    Score arrays: ``tokens`` (batch, T, 3K) (first-token, every-token and last-token scores of
    each label), ``lengths`` (K, L) and ``transitions`` (K, K), either shared by the batch or
    with a leading batch axis. Labellings: codes (batch, T) int64, with a prefix ``mask``
    (batch, T) for shorter sequences.
    """

    score_names = ("tokens", "lengths", "transitions")
    score_ndims = (2, 2, 2)

    def __init__(self, n_labels: int, max_length: int, segment_loss: bool = False) -> None:
        if n_labels < 1 or max_length < 1:
            raise ValueError(
                f"n_labels and max_length must be at least 1, got {n_labels} and {max_length}"
            )
        self.n_labels, self.max_length = int(n_labels), int(max_length)
        self.segment_loss = bool(segment_loss)

    def decode(
        self, scores: tuple[np.ndarray, ...], lengths: np.ndarray, truth: np.ndarray | None
    ) -> np.ndarray:
        """Return the best segmentation of every sequence (loss-augmented given ``truth``)."""
        tokens, per_length, transitions = self._checked(scores, len(lengths))
        codes = np.zeros((len(lengths), tokens.shape[1]), dtype=np.int64)
        for k, n in enumerate(lengths):
            reference = np.zeros(n, dtype=np.int64) if truth is None else truth[k, :n]
            weights = np.concatenate([per_length[k].ravel(), transitions[k].ravel()])
            codes[k, :n] = segment_decode(
                self._data(reference), 0, weights, np.array(tokens[k, :n], dtype=np.float64),
                truth is not None,
            )
        return codes

    def parts(
        self, labels: np.ndarray, lengths: np.ndarray, shapes: tuple[tuple[int, ...], ...]
    ) -> tuple[np.ndarray, ...]:
        """Return each labelling's token indicators, segment-length and transition counts."""
        K = self.n_labels
        labels = np.asarray(labels, dtype=np.int64)
        tokens = np.zeros((len(lengths), *shapes[0]))
        per_length = np.zeros((len(lengths), K, self.max_length))
        transitions = np.zeros((len(lengths), K, K))
        for k, n in enumerate(lengths):
            previous = -1
            for start, stop, label in self._segments(labels[k, :n]):
                tokens[k, start, label] += 1.0
                tokens[k, start:stop, K + label] += 1.0
                tokens[k, stop - 1, 2 * K + label] += 1.0
                per_length[k, label, stop - start - 1] += 1.0
                if previous >= 0:
                    transitions[k, previous, label] += 1.0
                previous = label
        return tokens, per_length, transitions

    def loss(self, truth: np.ndarray, labels: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return Δ(truth, labels) of every sequence over its tokens."""
        return np.array([
            segment_loss(
                self._data(np.ascontiguousarray(truth[k, :n], dtype=np.int64)), 0,
                np.ascontiguousarray(labels[k, :n], dtype=np.int64),
            )
            for k, n in enumerate(lengths)
        ])

    def _data(self, reference: np.ndarray) -> SegmentData:
        """Return the decoder's data for one sequence whose true codes are ``reference``."""
        n = len(reference)
        return SegmentData(
            np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0),
            np.array([0, n], dtype=np.int64), reference, self.n_labels, 0,
            np.full(self.n_labels, self.max_length, dtype=np.int64), self.max_length,
            self.segment_loss,
        )

    def _segments(self, codes: np.ndarray) -> list[tuple[int, int, int]]:
        """Return the (start, stop, label) of every segment of ``codes``, checking them."""
        K = self.n_labels
        if len(codes) and (codes.min() < 0 or codes.max() >= 2 * K or codes[0] >= K):
            raise ValueError(
                f"codes must lie in 0 .. {2 * K - 1} and a sequence must begin a segment"
            )
        starts = [t for t, code in enumerate(codes) if code < K] + [len(codes)]
        segments = []
        for start, stop in itertools.pairwise(starts):
            label = int(codes[start])
            if np.any(codes[start + 1 : stop] != K + label) or stop - start > self.max_length:
                raise ValueError(
                    f"tokens {start}..{stop - 1} are not one segment of label {label} of at "
                    f"most {self.max_length} tokens"
                )
            segments.append((start, stop, label))
        return segments

    def _checked(
        self, scores: tuple[np.ndarray, ...], batch: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the three score arrays with a batch axis each, after checking their shapes."""
        K, L = self.n_labels, self.max_length
        expected = ((3 * K,), (K, L), (K, K))
        arrays = []
        for name, array, tail in zip(self.score_names, scores, expected, strict=True):
            if array.shape[-len(tail) :] != tail:
                raise ValueError(f"{name} has shape {array.shape}, expected (..., {tail})")
            if array.ndim == 2:  # shared by the batch
                array = np.broadcast_to(array, (batch, *array.shape))
            arrays.append(array)
        return arrays[0], arrays[1], arrays[2]
