"""Multiclass classification as a structure scored from outside: one score per class."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from structsvm.hinge import Structure


class MulticlassStructure(Structure):
    """One label per example, scored by ``scores[y]``; Δ from a loss matrix (0/1 by default).

    The argmax takes the smallest class among ties, as :class:`tasks.MulticlassTask` does.
    With the 0/1 loss the structured hinge is Crammer and Singer's multiclass hinge.

    Parameters
    ----------
    n_classes : int
        The number of classes K.
    loss_matrix : array-like of shape (K, K), optional
        ``loss_matrix[y, ŷ]``, zero on the diagonal; the 0/1 loss if omitted.

    Notes
    -----
    Score array: ``scores`` (batch, K). Labellings: (batch,) int64; no mask.
    """

    score_names = ("scores",)
    score_ndims = (1,)

    def __init__(self, n_classes: int, loss_matrix: ArrayLike | None = None) -> None:
        if n_classes < 1:
            raise ValueError(f"n_classes must be at least 1, got {n_classes}")
        self.n_classes = int(n_classes)
        if loss_matrix is None:
            loss_matrix = 1.0 - np.eye(self.n_classes)
        self.loss_matrix = np.asarray(loss_matrix, dtype=np.float64)
        if self.loss_matrix.shape != (self.n_classes, self.n_classes):
            raise ValueError(f"loss_matrix must have shape {(self.n_classes,) * 2}")

    def lengths(self, scores: tuple[np.ndarray, ...], mask: np.ndarray | None) -> np.ndarray:
        """Return ones: every example is one label (a mask is refused)."""
        if mask is not None:
            raise ValueError("MulticlassStructure takes no mask")
        return np.ones(len(scores[0]), dtype=np.int64)

    def decode(
        self, scores: tuple[np.ndarray, ...], lengths: np.ndarray, truth: np.ndarray | None
    ) -> np.ndarray:
        """Return the best class of every example (loss-augmented when ``truth`` is given)."""
        (values,) = scores
        if values.shape[1:] != (self.n_classes,):
            raise ValueError(
                f"scores have shape {values.shape}, expected (batch, {self.n_classes})"
            )
        if truth is not None:
            values = values + self.loss_matrix[self._checked(truth)]
        return np.argmax(values, axis=1).astype(np.int64)

    def parts(
        self, labels: np.ndarray, lengths: np.ndarray, shapes: tuple[tuple[int, ...], ...]
    ) -> tuple[np.ndarray, ...]:
        """Return the one-hot class of every labelling."""
        return (np.eye(self.n_classes)[self._checked(labels)],)

    def loss(self, truth: np.ndarray, labels: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return ``loss_matrix[truth, labels]``."""
        return self.loss_matrix[self._checked(truth), self._checked(labels)]

    def _checked(self, labels: np.ndarray) -> np.ndarray:
        """Return ``labels`` as a (batch,) int64 array of classes in range."""
        labels = np.asarray(labels, dtype=np.int64)
        out_of_range = labels.size and (labels.min() < 0 or labels.max() >= self.n_classes)
        if labels.ndim != 1 or out_of_range:
            raise ValueError(
                f"labels must be a (batch,) array of classes 0 .. {self.n_classes - 1}"
            )
        return labels
