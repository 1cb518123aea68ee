"""The contract of an output structure whose part scores come from outside (a network)."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class Structure(ABC):
    """An output structure scored by arrays of part scores, decoded by a compiled decoder.

    A labelling y of one example selects parts of each score array; its score is
    ``s(y) = Σ_k <scores[k], parts(y)[k]>`` (parts are counts, usually 0 or 1). A batch
    passes every score array either with a leading batch axis or, shared by the whole batch,
    without one (its number of axes then equals ``score_ndims[k]``). Labellings are int64
    arrays with the batch axis first; where an example is shorter than the batch's longest
    (``lengths``), the padding positions are ignored.

    Attributes
    ----------
    score_names : tuple of str
        The names of the score arrays, in the order they are passed.
    score_ndims : tuple of int
        The number of axes of each score array of a single example.
    """

    score_names: tuple[str, ...]
    score_ndims: tuple[int, ...]

    @abstractmethod
    def decode(
        self, scores: tuple[np.ndarray, ...], lengths: np.ndarray, truth: np.ndarray | None
    ) -> np.ndarray:
        """Return the best labelling of every example of the batch.

        ``scores`` are float64 arrays (batched or shared); with ``truth`` the decoding is
        loss-augmented: the argmax of ``Δ(truth, y) + s(y)``. Exact unless the structure
        says otherwise; ``scores`` are left unchanged.
        """

    @abstractmethod
    def parts(
        self, labels: np.ndarray, lengths: np.ndarray, shapes: tuple[tuple[int, ...], ...]
    ) -> tuple[np.ndarray, ...]:
        """Return the part counts of every labelling, one batched float64 array per score array.

        ``shapes`` are the shapes of one example's score arrays; each returned array has
        shape ``(batch,) + shapes[k]``, so that ``s(y) = Σ_k <scores[k], parts[k]>``.
        """

    @abstractmethod
    def loss(self, truth: np.ndarray, labels: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return Δ(truth, labels) of every example, shape (batch,)."""

    def lengths(self, scores: tuple[np.ndarray, ...], mask: np.ndarray | None) -> np.ndarray:
        """Return each example's length: from the prefix ``mask`` (batch, T) if given.

        Without a mask, every example has the full length of the first score array's first
        per-example axis. A structure without variable lengths returns ones.
        """
        first = scores[0]
        batch = batch_size(self, scores)
        if mask is None:
            return np.full(batch, first.shape[1], dtype=np.int64)
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (batch, first.shape[1]):
            raise ValueError(
                f"mask has shape {mask.shape}, expected {(batch, first.shape[1])}"
            )
        lengths = mask.sum(axis=1).astype(np.int64)
        if not np.array_equal(mask, np.arange(first.shape[1]) < lengths[:, None]):
            raise ValueError("mask must be a prefix mask: True then False along each row")
        if np.any(lengths == 0):
            raise ValueError("every example needs at least one unmasked position")
        return lengths


def batch_size(structure: Structure, scores: tuple[np.ndarray, ...]) -> int:
    """Return the batch size: the leading axis of the first batched score array."""
    for array, ndim in zip(scores, structure.score_ndims, strict=True):
        if array.ndim == ndim + 1:
            return array.shape[0]
    raise ValueError("at least one score array needs a leading batch axis")
