"""Segmentation with a semi-Markov model: labelled segments of at most L tokens."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import scipy.sparse

from structsvm._compiled_oracle import CompiledOracle
from structsvm._task import Task, overrides_any
from structsvm._utils.validation import (
    check_examples,
    check_feature_array,
    check_labels,
    check_positive_int,
    check_weights,
)
from tasks._semi_markov_oracle import (
    SegmentData,
    segment_decode,
    segment_features,
    segment_loss,
    segment_scores,
)

_COMPILED_METHODS = (
    "joint_feature",
    "batch_joint_feature",
    "sparse_joint_feature",
    "loss",
    "argmax",
    "loss_augmented_argmax",
)


class SemiMarkovTask(Task):
    """Divide a sequence into labelled segments of at most L tokens: a semi-Markov model.

    An input ``x`` is a float array or a ``scipy.sparse`` matrix of shape (T, n_features), one
    row per token. An output is a segmentation held as one code per token, an int array of
    shape (T,): ``k`` where a segment of label k begins and ``n_labels + k`` on its other
    tokens (``B-k`` and ``I-k`` of the BIO scheme), so two neighbouring segments of one label
    stay apart. With K labels, d features and segments of at most L tokens, the weights are, in
    this order:

    * first-token emissions, ``w[:K*d].reshape(K, d)``: row k scores the first token of a
      segment of label k;
    * every-token emissions, ``w[K*d:2*K*d].reshape(K, d)``, for each token of the segment;
    * last-token emissions, ``w[2*K*d:3*K*d].reshape(K, d)``;
    * segment lengths, ``w[3*K*d:3*K*d + K*L].reshape(K, L)[k, length - 1]``;
    * transitions between the labels of consecutive segments, K×K (row: previous segment).

    The score of a segmentation is the sum of its segments' scores and transitions (Sarawagi &
    Cohen, NIPS 2004): the segment-level features (length, first and last token) are what a
    linear chain over tokens cannot weigh. Both oracles run semi-Markov Viterbi, compiled with
    Numba, in O(T·L·K²) time (O(T·K²) for the transitions and O(T·L·K) for the segments). The
    loss is the Hamming loss over the token codes (``loss="hamming"``, the BIO tags' token
    error), or the number of segments in one segmentation but not in the other
    (``loss="segments"``, the sum of the false positives and false negatives of entity
    scoring); both decompose over segments, so loss-augmented decoding is exact.

    ``max_lengths`` constrains the segments of each label, for example to 1 for an outside
    label: its tokens are then single segments, as in the entity models of Sarawagi & Cohen.

    Parameters
    ----------
    n_labels : int
        Number of segment labels K (at least 2).
    n_features : int
        Width d of one token's feature vector.
    max_length : int, default=4
        The longest segment L.
    max_lengths : array of shape (n_labels,) of int, optional
        The longest segment of each label (at most ``max_length``). Default: ``max_length``.
    loss : {"hamming", "segments"}, default="hamming"
        The loss: wrong token codes, or segments of one segmentation missing from the other.

    Notes
    -----
    Ties between segmentations of equal score go to the segment that ends the sequence with the
    smallest label, then, backwards, to the shortest segment and to the smallest previous label.

    References
    ----------
    S. Sarawagi and W. W. Cohen. Semi-Markov conditional random fields for information
    extraction. In *NIPS*, 2004.

    I. Tsochantaridis, T. Joachims, T. Hofmann and Y. Altun. Large margin methods for
    structured and interdependent output variables. *JMLR*, 6:1453–1484, 2005.
    """

    def __init__(
        self,
        n_labels: int,
        n_features: int,
        max_length: int = 4,
        max_lengths: Sequence[int] | np.ndarray | None = None,
        loss: str = "hamming",
    ) -> None:
        self.n_labels = check_positive_int(n_labels, "n_labels", minimum=2)
        self.n_features = check_positive_int(n_features, "n_features")
        self.max_length = check_positive_int(max_length, "max_length")
        if max_lengths is None:
            lengths = np.full(self.n_labels, self.max_length, dtype=np.int64)
        else:
            lengths = np.asarray(max_lengths)
            if (
                lengths.shape != (self.n_labels,)
                or not np.issubdtype(lengths.dtype, np.integer)
                or np.any(lengths < 1)
                or np.any(lengths > self.max_length)
            ):
                raise ValueError(
                    f"max_lengths must hold n_labels={self.n_labels} integers from 1 to "
                    f"max_length={self.max_length}, got {max_lengths!r}"
                )
        self.max_lengths = lengths.astype(np.int64)
        if loss not in ("hamming", "segments"):
            raise ValueError(f"loss must be 'hamming' or 'segments', got {loss!r}")
        self.loss_name = loss
        K, d, L = self.n_labels, self.n_features, self.max_length
        self.size_joint_feature = 3 * K * d + K * L + K * K

    # ------------------------------------------------------------------ data and outputs
    def check_data(self, X: Sequence[Any], Y: Sequence[Any] | None = None):
        """Return X as CSR float64 matrices (T_k, n_features) and Y as valid code arrays."""
        check_examples(X, "X", of="sequences")
        if len(X) == 0:
            raise ValueError("X is empty: expected at least one sequence")
        X = [self._check_input(x, f"X[{k}]") for k, x in enumerate(X)]
        if Y is not None:
            super().check_data(X, Y)
            Y = [
                self._check_codes(y, x.shape[0], f"Y[{k}]")
                for k, (x, y) in enumerate(zip(X, Y, strict=True))
            ]
        return X, Y

    def _check_input(self, x: Any, name: str) -> scipy.sparse.csr_matrix:
        if scipy.sparse.issparse(x):
            x = scipy.sparse.csr_matrix(x, dtype=np.float64)
            check_feature_array(x.data, name, ndim=1, n_features=None)
            if x.ndim != 2 or x.shape[1] != self.n_features:
                raise ValueError(
                    f"{name} must have shape (T, n_features={self.n_features}), got {x.shape}"
                )
            x = x.copy() if not x.has_canonical_format else x
            x.sum_duplicates()
        else:
            x = scipy.sparse.csr_matrix(
                check_feature_array(x, name, ndim=2, n_features=self.n_features)
            )
        if x.shape[0] == 0:
            raise ValueError(f"{name} is an empty sequence: expected at least one token")
        return x

    def _check_codes(self, y: Any, length: int, name: str) -> np.ndarray:
        """Return y as int64 codes of a valid segmentation of ``length`` tokens, or raise."""
        K = self.n_labels
        codes = check_labels(y, name, n_labels=2 * K)
        if len(codes) != length:
            raise ValueError(f"{name} has {len(codes)} codes for a sequence of {length} tokens")
        if codes[0] >= K or np.any((codes[1:] >= K) & (codes[1:] % K != codes[:-1] % K)):
            raise ValueError(
                f"{name} continues a segment (code n_labels + k) that no segment of label k "
                "begins before"
            )
        for s, e, k in self.segments(codes):
            if e - s > self.max_lengths[k]:
                raise ValueError(
                    f"{name} has a segment of label {k} from token {s} to {e - 1}, longer than "
                    f"{self.max_lengths[k]} tokens"
                )
        return codes

    def segments(self, y: Any) -> list[tuple[int, int, int]]:
        """Return the segments of an output as ``(start, stop, label)``, tokens start..stop-1."""
        codes = np.asarray(y)
        starts = np.flatnonzero(codes < self.n_labels)
        stops = np.append(starts[1:], len(codes))
        return [(int(s), int(e), int(codes[s])) for s, e in zip(starts, stops, strict=True)]

    def codes(self, segments: Sequence[tuple[int, int, int]], length: int) -> np.ndarray:
        """Return the codes of ``(start, stop, label)`` segments covering ``length`` tokens."""
        codes = np.full(length, -1, dtype=np.int64)
        for start, stop, label in segments:
            codes[start] = label
            codes[start + 1 : stop] = self.n_labels + label
        return codes

    def outputs(self, x: Any) -> Iterator[np.ndarray]:
        """Enumerate every segmentation of x (for tests and tiny inputs)."""
        length = x.shape[0]

        def extend(start: int, prefix: list[tuple[int, int, int]]):
            if start == length:
                yield self.codes(prefix, length)
                return
            for label in range(self.n_labels):
                for size in range(1, min(self.max_lengths[label], length - start) + 1):
                    yield from extend(start + size, [*prefix, (start, start + size, label)])

        return extend(0, [])

    # ------------------------------------------------------------------ the contract
    def _data(self, X: Sequence[Any], Y: Sequence[np.ndarray]) -> SegmentData:
        rows = scipy.sparse.vstack(X, format="csr", dtype=np.float64)
        rows.sort_indices()
        offsets = np.zeros(len(X) + 1, dtype=np.int64)
        np.cumsum([x.shape[0] for x in X], out=offsets[1:])
        return SegmentData(
            rows.indptr.astype(np.int64),
            rows.indices.astype(np.int64),
            rows.data.astype(np.float64),
            offsets,
            np.concatenate([np.asarray(y, dtype=np.int64) for y in Y]),
            self.n_labels,
            self.n_features,
            self.max_lengths,
            self.max_length,
            self.loss_name == "segments",
        )

    def _example(self, x: Any, y: Any = None) -> SegmentData:
        (x,), _ = self.check_data([x])
        codes = np.zeros(x.shape[0], dtype=np.int64) if y is None else y
        return self._data([x], [codes])

    def sparse_joint_feature(self, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return φ(x, y) as sorted distinct indices and values."""
        data = self._example(x)
        codes = self._check_codes(y, data.offsets[1], "y")
        return segment_features(data, 0, codes)

    def batch_joint_feature(
        self, X: Sequence[Any], Y: Sequence[Any]
    ) -> scipy.sparse.csr_matrix:
        """Return φ(X[k], Y[k]) for every example as the rows of a CSR matrix."""
        X, Y = self.check_data(X, Y)
        data = self._data(X, Y)
        rows = [segment_features(data, i, y) for i, y in enumerate(Y)]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(indices) for indices, _ in rows], out=indptr[1:])
        return scipy.sparse.csr_matrix(
            (
                np.concatenate([values for _, values in rows]),
                np.concatenate([indices for indices, _ in rows]),
                indptr,
            ),
            shape=(len(rows), self.size_joint_feature),
        )

    def joint_feature(self, x: Any, y: Any) -> np.ndarray:
        """Return φ(x, y): the emissions, lengths and transitions of y's segments."""
        phi = np.zeros(self.size_joint_feature)
        indices, values = self.sparse_joint_feature(x, y)
        phi[indices] = values
        return phi

    def loss(self, y_true: Any, y: Any) -> float:
        """Return the Hamming loss over token codes, or the segments not shared."""
        y_true = np.asarray(y_true, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        if self.loss_name == "hamming":
            return float(np.sum(y_true != y))
        true, predicted = set(self.segments(y_true)), set(self.segments(y))
        return float(len(true ^ predicted))

    def max_loss(self, y_true: Any) -> float:
        """Return T (Hamming), or T plus the true segments (segment loss)."""
        length = len(y_true)
        return float(length if self.loss_name == "hamming" else length + len(self.segments(y_true)))

    def argmax(self, x: Any, w: np.ndarray) -> np.ndarray:
        """Return the codes of the segmentation of highest score (semi-Markov Viterbi)."""
        w = check_weights(w, self.size_joint_feature)
        data = self._example(x)
        return segment_decode(data, 0, w, segment_scores(data, 0, w), False)

    def loss_augmented_argmax(self, x: Any, y_true: Any, w: np.ndarray) -> np.ndarray:
        """Return the codes maximising loss plus score."""
        w = check_weights(w, self.size_joint_feature)
        data = self._example(x)
        y_true = self._check_codes(y_true, data.offsets[1], "y_true")
        data = data._replace(codes=y_true)
        return segment_decode(data, 0, w, segment_scores(data, 0, w), True)

    def compiled_oracle(self, X: Sequence[Any], Y: Sequence[Any]) -> CompiledOracle | None:
        """Return the compiled oracle over (X, Y); None for a subclass overriding a method."""
        if overrides_any(self, SemiMarkovTask, _COMPILED_METHODS):
            return None
        return CompiledOracle(
            self._data(X, Y),
            segment_scores,
            segment_decode,
            segment_features,
            segment_loss,
            len(X),
        )
