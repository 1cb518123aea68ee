"""Multiclass classification as a structured task (Crammer & Singer's joint feature map)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import CompiledOracle, csr_arrays
from structsvm._task import ORACLE_METHODS, Task, overrides_any
from structsvm._utils.validation import (
    check_feature_array,
    check_labels,
    check_positive_int,
    check_weights,
)
from tasks._multiclass_oracle import (
    dense_class_scores,
    multiclass_add_features,
    multiclass_decode,
    multiclass_features,
    multiclass_labelling_score,
    multiclass_loss,
    multiclass_scores,
)
from tasks._threads import row_blocks_product


class SparseRows(sp.csr_matrix):
    """A CSR matrix of inputs, one row per example, whose ``len`` is its number of rows."""

    def __len__(self) -> int:
        return self.shape[0]


def _is_sparse_input(X: Any) -> bool:
    """Tell whether X is a sparse matrix or a list of sparse rows."""
    if sp.issparse(X):
        return True
    return isinstance(X, list | tuple) and len(X) > 0 and sp.issparse(X[0])


def _as_csr(X: Any) -> sp.csr_matrix:
    """Return sparse inputs (a sparse matrix or a list of one-row sparse matrices) as CSR."""
    if sp.issparse(X):
        return sp.csr_matrix(X, dtype=np.float64)
    return sp.csr_matrix(sp.vstack([sp.csr_matrix(x).reshape(1, -1) for x in X]), dtype=np.float64)


def _summed_csr(X: Any) -> sp.csr_matrix:
    """Return sparse inputs as CSR with the entries of one position summed."""
    inputs = _as_csr(X)
    inputs.sum_duplicates()
    return inputs


def check_rows(X: Any, name: str, n_features: int) -> np.ndarray | sp.csr_matrix:
    """Return rows of ``n_features`` finite features as a float64 array, or CSR if sparse."""
    if not _is_sparse_input(X):
        return check_feature_array(X, name, ndim=2, n_features=n_features)
    try:
        csr = _as_csr(X)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"{name} must be numeric sparse rows; could not convert them: {error}"
        ) from None
    if csr.shape[1] != n_features:
        raise ValueError(
            f"{name} has {csr.shape[1]} features per row, expected n_features={n_features}"
        )
    if not np.all(np.isfinite(csr.data)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return csr


class MulticlassTask(Task):
    """Multiclass classification: x is a feature vector, y a class in ``range(n_classes)``.

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
    Ties between classes go to the smallest class index. The batch methods score dense inputs
    by :func:`~tasks._threads.row_blocks_product` (``threaded_batches``), the same scores on
    any number of threads.
    """

    threaded_batches = True

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

    def joint_feature(self, x: np.ndarray, y: int) -> np.ndarray:
        """Return e_y ⊗ x, shape (n_classes * n_features,) (dense, also for a sparse x)."""
        phi = np.zeros((self.n_classes, self.n_features))
        phi[y] = x.toarray().ravel() if sp.issparse(x) else x
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
        return int(self.batch_argmax(_one_row(x), w)[0])

    def loss_augmented_argmax(self, x: np.ndarray, y_true: int, w: np.ndarray) -> int:
        """Return the class maximising ``loss_matrix[y_true, y] + W[y] · x``."""
        return int(self.batch_loss_augmented_argmax(_one_row(x), [y_true], w)[0])

    def slack_rescaled_argmax(self, x: np.ndarray, y_true: int, w: np.ndarray) -> int:
        """Return the class maximising ``loss_matrix[y_true, y] (1 + W[y]·x − W[y_true]·x)``."""
        return int(self.batch_slack_rescaled_argmax(_one_row(x), [y_true], w)[0])

    def check_data(self, X, Y=None):
        """Return X as a finite (n, n_features) float array and Y as int labels in range.

        Sparse inputs (a scipy.sparse matrix, or a list of one-row sparse matrices) are returned
        as a :class:`SparseRows` CSR matrix.
        """
        X = check_rows(X, "X", self.n_features)
        X = SparseRows(X) if sp.issparse(X) else X
        if X.shape[0] == 0:
            raise ValueError("X is empty: expected at least one example")
        if Y is not None:
            Y = check_labels(Y, "Y", n_labels=self.n_classes)
            super().check_data(X, Y)
        return X, Y

    def compiled_oracle(self, X, Y) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        Its φ(x_i, y) has the entries of :meth:`batch_joint_feature`. None for a subclass that
        overrides an oracle, the loss or the joint feature.
        """
        if overrides_any(self, MulticlassTask, (*ORACLE_METHODS, "_class_scores")):
            return None
        sparse = _is_sparse_input(X)
        indptr, columns, values = csr_arrays(_summed_csr(X) if sparse else X)
        labels = np.asarray(Y, dtype=np.int64)
        dense = np.zeros((0, 0)) if sparse else np.ascontiguousarray(X, dtype=np.float64)
        data = (indptr, columns, values, labels, self.loss_matrix, self.n_features, dense)
        functions = (multiclass_scores, multiclass_decode, multiclass_features, multiclass_loss)
        return CompiledOracle(
            data, *functions, n_examples=len(labels), n_outputs=self.n_classes,
            batch_scores=None if sparse else dense_class_scores, to_output=_class_of,
            labelling_score=multiclass_labelling_score, add_features=multiclass_add_features,
        )

    def _class_scores(self, X: Any, w: np.ndarray) -> np.ndarray:
        """Return the (n, n_classes) scores ``W[y] · X[i]`` (a blocked product if dense)."""
        w = check_weights(w, self.size_joint_feature, finite=False)
        weights = w.reshape(self.n_classes, self.n_features)
        if _is_sparse_input(X):
            scores = np.asarray(_as_csr(X) @ np.ascontiguousarray(weights.T))
        else:
            scores = row_blocks_product(np.asarray(X, dtype=float), weights.T)
        if not np.all(np.isfinite(scores)):
            check_weights(w, self.size_joint_feature)
            raise ValueError("the scores of X under w overflow: they are not finite")
        return scores

    def batch_joint_feature(self, X, Y) -> sp.csr_matrix:
        """Return the rows e_{Y[i]} ⊗ X[i] as a CSR matrix, shape (n, n_classes * n_features).

        Row i holds the stored entries of X[i] (all of them for a dense X), moved to the
        columns of block Y[i].
        """
        Y = np.asarray(Y, dtype=np.int64)
        if not _is_sparse_input(X):
            dense = np.asarray(X, dtype=float)
            large = max(dense.size, self.size_joint_feature) >= np.iinfo(np.int32).max
            index_type = np.int64 if large else np.int32
            indices = (Y * self.n_features)[:, None] + np.arange(self.n_features)
            indptr = np.arange(0, dense.size + 1, self.n_features, dtype=index_type)
            return sp.csr_matrix(
                (dense.ravel().copy(), indices.ravel().astype(index_type), indptr),
                shape=(len(dense), self.size_joint_feature),
            )
        inputs = _summed_csr(X)
        offsets = np.repeat(Y * self.n_features, np.diff(inputs.indptr))
        return sp.csr_matrix(
            (inputs.data.astype(float, copy=True), inputs.indices + offsets, inputs.indptr.copy()),
            shape=(inputs.shape[0], self.size_joint_feature),
        )

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

    def batch_slack_rescaled_argmax(self, X, Y_true, w) -> np.ndarray:
        """Return the class maximising ``loss_matrix[y_true, y] (1 + W[y]·x − W[y_true]·x)``
        for every example (ties to the smallest class)."""
        Y_true = np.asarray(Y_true, dtype=np.int64)
        scores = self._class_scores(X, w)
        true_scores = scores[np.arange(len(Y_true)), Y_true]
        values = self.loss_matrix[Y_true] * (1.0 + scores - true_scores[:, None])
        return np.argmax(values, axis=1)

    def batch_score(self, X, Y, w) -> np.ndarray:
        """Return ``W[Y[i]] · X[i]`` for every example."""
        scores = self._class_scores(X, w)
        return scores[np.arange(scores.shape[0]), np.asarray(Y, dtype=np.int64)]


def _class_of(labels: np.ndarray) -> int:
    """Return the class whose labels (one entry) are ``labels``."""
    return int(labels[0])


def _one_row(x: Any) -> Any:
    """Return a single input as a batch of one: a (1, n_features) array or one-row CSR."""
    return sp.csr_matrix(x).reshape(1, -1) if sp.issparse(x) else np.asarray(x)[None, :]


def _check_loss_matrix(loss_matrix: np.ndarray, n_classes: int) -> np.ndarray:
    matrix = check_feature_array(loss_matrix, "loss_matrix", ndim=2, n_features=None, finite=False)
    if matrix.shape != (n_classes, n_classes):
        raise ValueError(
            f"loss_matrix must have shape ({n_classes}, {n_classes}), got {matrix.shape}"
        )
    if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
        raise ValueError("loss_matrix must hold finite, non-negative costs")
    if np.any(np.diag(matrix) != 0):
        raise ValueError("loss_matrix must have a zero diagonal (no cost for the true class)")
    return matrix
