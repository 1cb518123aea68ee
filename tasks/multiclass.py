"""Multiclass classification as a structured task (Crammer & Singer's joint feature map)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from structsvm.task import Task
from structsvm.validation import check_feature_array, check_labels, check_positive_int


class MulticlassTask(Task):
    """Multiclass classification: x is a feature vector, y a class in ``0 .. n_classes - 1``.

    The joint feature map is φ(x, y) = e_y ⊗ x (Crammer & Singer, JMLR 2001): the input copied
    into the block of class y, so ``w.reshape(n_classes, n_features)`` holds one weight row per
    class and the score of class y is ``W[y] · x``. A structural SVM on this task is the
    Crammer–Singer multiclass SVM.

    Parameters
    ----------
    n_classes : int
        Number of classes (at least 2).
    n_features : int
        Width of an input vector x.
    loss_matrix : array of shape (n_classes, n_classes), optional
        ``loss_matrix[y_true, y]`` is the cost of predicting y for class y_true: finite,
        non-negative, with a zero diagonal. Default: the 0/1 loss.

    Notes
    -----
    Ties between classes are broken towards the smallest class index (``numpy.argmax``).
    """

    def __init__(
        self, n_classes: int, n_features: int, loss_matrix: np.ndarray | None = None
    ) -> None:
        self.n_classes = check_positive_int(n_classes, "n_classes", minimum=2)
        self.n_features = check_positive_int(n_features, "n_features")
        self.size_joint_feature = self.n_classes * self.n_features
        if loss_matrix is None:
            self.loss_matrix = 1.0 - np.eye(self.n_classes)
        else:
            self.loss_matrix = _check_loss_matrix(loss_matrix, self.n_classes)

    def __repr__(self) -> str:
        return f"MulticlassTask(n_classes={self.n_classes}, n_features={self.n_features})"

    # ----------------------------------------------------------------- single examples
    def joint_feature(self, x: np.ndarray, y: int) -> np.ndarray:
        """Return e_y ⊗ x, shape (n_classes * n_features,)."""
        phi = np.zeros((self.n_classes, self.n_features))
        phi[y] = x
        return phi.ravel()

    def loss(self, y_true: int, y: int) -> float:
        """Return ``loss_matrix[y_true, y]``."""
        return float(self.loss_matrix[y_true, y])

    def max_loss(self, y_true: int) -> float:
        """Return the largest cost in row ``y_true`` of the loss matrix."""
        return float(self.loss_matrix[y_true].max())

    def outputs(self, x: np.ndarray) -> range:
        """Every class."""
        return range(self.n_classes)

    def argmax(self, x: np.ndarray, w: np.ndarray) -> int:
        """Return the class with the highest score ``W[y] · x``."""
        return int(self.batch_argmax(np.asarray(x)[None, :], w)[0])

    def loss_augmented_argmax(self, x: np.ndarray, y_true: int, w: np.ndarray) -> int:
        """Return the class maximising ``loss_matrix[y_true, y] + W[y] · x``."""
        return int(self.batch_loss_augmented_argmax(np.asarray(x)[None, :], [y_true], w)[0])

    def check_data(self, X, Y=None):
        """Return X as a finite (n, n_features) float array and Y as int labels in range."""
        X = check_feature_array(X, "X", ndim=2, n_features=self.n_features)
        if X.shape[0] == 0:
            raise ValueError("X is empty: expected at least one example")
        if Y is not None:
            Y = check_labels(Y, "Y", n_labels=self.n_classes)
            super().check_data(X, Y)
        return X, Y

    # ----------------------------------------------------------------- vectorised batches
    def _class_scores(self, X: Sequence[np.ndarray], w: np.ndarray) -> np.ndarray:
        return np.asarray(X, dtype=float) @ w.reshape(self.n_classes, self.n_features).T

    def batch_joint_feature(self, X, Y) -> np.ndarray:
        """Return the rows e_{Y[i]} ⊗ X[i], shape (n, n_classes * n_features)."""
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=np.int64)
        phi = np.zeros((X.shape[0], self.n_classes, self.n_features))
        phi[np.arange(X.shape[0]), Y] = X
        return phi.reshape(X.shape[0], -1)

    def batch_loss(self, Y_true, Y) -> np.ndarray:
        """Return ``loss_matrix[Y_true[i], Y[i]]`` for every example."""
        return self.loss_matrix[np.asarray(Y_true, dtype=np.int64), np.asarray(Y, dtype=np.int64)]

    def batch_argmax(self, X, w) -> np.ndarray:
        """Return the best class of every row of X (one matrix product)."""
        return np.argmax(self._class_scores(X, w), axis=1)

    def batch_loss_augmented_argmax(self, X, Y_true, w) -> np.ndarray:
        """Return the most violating class of every example (one matrix product)."""
        augmented = self._class_scores(X, w) + self.loss_matrix[np.asarray(Y_true, dtype=np.int64)]
        return np.argmax(augmented, axis=1)

    def batch_score(self, X, Y, w) -> np.ndarray:
        """Return ``W[Y[i]] · X[i]`` for every example."""
        scores = self._class_scores(X, w)
        return scores[np.arange(scores.shape[0]), np.asarray(Y, dtype=np.int64)]


def _check_loss_matrix(loss_matrix: np.ndarray, n_classes: int) -> np.ndarray:
    matrix = np.asarray(loss_matrix, dtype=float)
    if matrix.shape != (n_classes, n_classes):
        raise ValueError(
            f"loss_matrix must have shape ({n_classes}, {n_classes}), got {matrix.shape}"
        )
    if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
        raise ValueError("loss_matrix must hold finite, non-negative costs")
    if np.any(np.diag(matrix) != 0):
        raise ValueError("loss_matrix must have a zero diagonal (no cost for the true class)")
    return matrix
