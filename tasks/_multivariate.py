"""Multivariate performance measures as a structured task (Joachims, ICML 2005)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from structsvm._compiled_oracle import CompiledOracle, offsets_of
from structsvm._task import Task, overrides_any
from structsvm._utils.validation import (
    Options,
    check_consistent_length,
    check_examples,
    check_feature_array,
    check_positive_int,
    check_value,
    check_weights,
)
from tasks._multivariate_oracle import (
    TABLE_LOSSES,
    batch_row_scores,
    best_labelling,
    contingency_loss,
    labelling_decode,
    labelling_features,
    labelling_loss,
    labelling_output,
    ordering_decode,
    ordering_features,
    ordering_labels,
    ordering_loss,
    ordering_output,
    pair_ordering,
    row_scores,
)

LOSSES = (*TABLE_LOSSES, "roc_area")
"""The losses the task offers, by name."""

_NEEDS_K = ("precision@k", "recall@k")


class MultivariateTask(Task):
    r"""Learning a multivariate performance measure (Joachims, ICML 2005).

    One example is a whole data set. For the measures computed from the contingency table
    (``"f1"``, ``"precision@k"``, ``"recall@k"``, ``"prbep"``) x is an (n, d) array and
    ``y ∈ {−1, +1}^n`` labels its rows, φ(x, y) = Σ_i y_i x_i: ``argmax`` is the sign of
    ``w·x_i`` (0 goes to −1), the loss 1 − the measure of y against y_true, and the
    loss-augmented oracle the paper's Algorithm 2 over every contingency table (O(n²)).

    For ``"roc_area"`` y is a (P, N) matrix with ``y[i, j] = +1`` when positive i is ranked
    above negative j and −1 otherwise, φ(x, y) = Σ_ij y_ij (x⁺_i − x⁻_j), the true output all
    +1 and the loss the fraction of swapped pairs. ``check_data`` turns an (n, d) array and its
    labels into the pair ``(positives, negatives)`` and the all-(+1) ordering. ``argmax``
    orders each pair by its scores (ties: +1); the loss-augmented oracle is the paper's
    sort-and-count (O(n log n), plus writing out the P × N matrix).

    Parameters
    ----------
    n_features : int
        Width d of a row of x.
    loss : {"f1", "precision@k", "recall@k", "prbep", "roc_area"}, default="f1"
        1 − F1 = 1 − 2a / (2a + b + c) (with ``a`` true positives, ``b`` false positives,
        ``c`` false negatives; 0 when there is nothing to find and nothing is predicted);
        1 − precision@k = 1 − a / k and 1 − recall@k = 1 − a / (a + c) for labellings with
        ``a + b = k`` positives; 1 − PRBEP = 1 − a / (a + c) for labellings with as many
        predicted as true positives (where precision equals recall); 1 − ROC area. Every
        other labelling has loss 0 for precision@k, recall@k and the PRBEP.
    k : int, optional
        The k of precision@k and recall@k (required for them, unused otherwise).

    Notes
    -----
    Among tied maximisers the loss-augmented oracle of the contingency-table losses returns
    the first table in the order of increasing true positives, then false positives, labelling
    +1 the best-scoring rows of each class (ties in scores: the earlier row). ``outputs``
    enumerates every labelling (every ordering for the ROC area) for small inputs.

    References
    ----------
    T. Joachims. A support vector method for multivariate performance measures. In
    Proceedings of the 22nd International Conference on Machine Learning (ICML), 2005.
    """

    def __init__(self, n_features: int, loss: str = "f1", k: int | None = None) -> None:
        self.n_features = check_positive_int(n_features, "n_features")
        check_value(loss, "loss", [Options(*LOSSES)])
        if loss in _NEEDS_K:
            if k is None:
                raise ValueError(f"loss={loss!r} needs k, the number of predicted positives")
            k = check_positive_int(k, "k")
        self.loss_name = loss
        self.k = k
        self.size_joint_feature = self.n_features

    def __repr__(self) -> str:
        k = "" if self.k is None else f", k={self.k}"
        return f"MultivariateTask(n_features={self.n_features}, loss={self.loss_name!r}{k})"

    @property
    def _ranks_pairs(self) -> bool:
        return self.loss_name == "roc_area"

    @property
    def _code(self) -> int:
        return TABLE_LOSSES.index(self.loss_name)

    def joint_feature(self, x: Any, y: np.ndarray) -> np.ndarray:
        """Return Σ_i y_i x_i, or Σ_ij y_ij (x⁺_i − x⁻_j) for the ROC area."""
        if self._ranks_pairs:
            positives, negatives = x
            ordering = np.asarray(y, dtype=np.float64)
            return ordering.sum(axis=1) @ positives - ordering.sum(axis=0) @ negatives
        return np.asarray(y, dtype=np.float64) @ x

    def loss(self, y_true: np.ndarray, y: np.ndarray) -> float:
        """Return 1 − the measure of y against y_true."""
        y = np.asarray(y)
        if self._ranks_pairs:
            return float(np.count_nonzero(y != 1) / y.size) if y.size else 0.0
        truth = np.asarray(y_true)
        if y.shape != truth.shape:
            raise ValueError(f"y has shape {y.shape} but y_true has shape {truth.shape}")
        return float(contingency_loss(truth, y, self._code, self.k or 0))

    def max_loss(self, y_true: np.ndarray) -> float:
        """Return 1, the loss bound of every measure (reached when the measure is 0)."""
        return 1.0

    def outputs(self, x: Any) -> Iterator[np.ndarray]:
        """Every labelling of the n rows, or every (P, N) ordering for the ROC area."""
        shape = (len(x[0]), len(x[1])) if self._ranks_pairs else (len(x),)
        for signs in itertools.product((-1, 1), repeat=int(np.prod(shape))):
            yield np.array(signs, dtype=np.int8).reshape(shape)

    def argmax(self, x: Any, w: np.ndarray) -> np.ndarray:
        """Return sign(w·x_i) for every row (0 → −1); for the ROC area, order pairs by score."""
        w = check_weights(w, self.size_joint_feature)
        if self._ranks_pairs:
            positives, negatives = x
            return pair_ordering(positives @ w, negatives @ w, False)
        return np.where(x @ w > 0, 1, -1).astype(np.int8)

    def loss_augmented_argmax(self, x: Any, y_true: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Return an output maximising Δ(y_true, y) + w·φ(x, y) (Joachims 2005, Sec. 4)."""
        w = check_weights(w, self.size_joint_feature)
        if self._ranks_pairs:
            positives, negatives = x
            return pair_ordering(positives @ w, negatives @ w, True)
        truth = np.asarray(y_true, dtype=np.int64)
        return best_labelling(x @ w, truth, self._code, self.k or 0).astype(np.int8)

    def compiled_oracle(self, X, Y) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        A labelling's labels are its entries; a (P, N) pair ordering's are P, N and its entries
        row by row. None for a subclass that overrides an oracle, the loss or the joint feature.
        """
        if overrides_any(self, MultivariateTask):
            return None
        parts = [np.vstack(x) for x in X] if self._ranks_pairs else list(X)
        offsets = offsets_of([len(part) for part in parts])
        rows = np.ascontiguousarray(np.concatenate(parts), dtype=np.float64)
        if self._ranks_pairs:
            n_positives = np.array([len(positives) for positives, _ in X], dtype=np.int64)
            data = (rows, offsets, n_positives)
            functions = (row_scores, ordering_decode, ordering_features, ordering_loss)
            outputs = {
                "to_output": ordering_output,
                "to_labels": lambda y: ordering_labels(np.asarray(y, dtype=np.int64)),
            }
        else:
            truth = np.concatenate([np.asarray(y, dtype=np.int64) for y in Y])
            data = (rows, offsets, truth, self._code, self.k or 0)
            functions = (row_scores, labelling_decode, labelling_features, labelling_loss)
            outputs = {"to_output": labelling_output}
        return CompiledOracle(
            data, *functions, n_examples=len(X), batch_scores=batch_row_scores, **outputs
        )

    def check_data(self, X: Sequence[Any], Y: Sequence[Any] | None = None):
        """Return the data sets as float arrays and their labels as ±1 int8 vectors.

        For the ROC area an (n, d) array with its labels becomes the pair ``(positives,
        negatives)`` and the all-(+1) ordering; inputs already split are kept, with orderings
        as outputs.

        Raises
        ------
        ValueError
            If a data set is not a finite (n, n_features) array with n >= 1, if its labels
            are not in {−1, +1} or of the wrong length, or if the ROC area gets unsplit inputs
            without labels.
        """
        super().check_data(X)
        X = list(X)
        if Y is not None:
            # One example per data set: the label vectors may differ in length.
            check_examples(Y, "Y", of="label vectors")
            Y = list(Y)
            check_consistent_length(X, np.empty(len(Y)), "Y")
        if self._ranks_pairs:
            return self._check_split(X, Y)
        X = [self._check_rows(x, f"X[{i}]") for i, x in enumerate(X)]
        if Y is not None:
            Y = [_check_signs(y, f"Y[{i}]", (len(X[i]),)) for i, y in enumerate(Y)]
        return X, Y

    def _check_rows(self, x: Any, name: str) -> np.ndarray:
        """Return one data set as a finite (n, n_features) float array with n >= 1."""
        rows = check_feature_array(x, name, ndim=2, n_features=self.n_features)
        if len(rows) == 0:
            raise ValueError(f"{name} is an empty data set: expected at least one row")
        return rows

    def _check_split(self, X: list[Any], Y: list[Any] | None):
        """Return ROC-area inputs as (positives, negatives) pairs and outputs as orderings."""
        inputs, outputs = [], []
        for i, x in enumerate(X):
            if isinstance(x, tuple):
                pair = tuple(
                    check_feature_array(part, f"X[{i}][{j}]", ndim=2, n_features=self.n_features)
                    for j, part in enumerate(x)
                )
                if len(pair) != 2:
                    raise ValueError(f"X[{i}] must be a pair (positives, negatives)")
                inputs.append(pair)
                if Y is not None:
                    outputs.append(_check_signs(Y[i], f"Y[{i}]", (len(pair[0]), len(pair[1]))))
                continue
            if Y is None:
                raise ValueError(
                    "loss='roc_area' orders the pairs of a positive and a negative example: "
                    f"X[{i}] must be a pair (positives, negatives), or come with its labels"
                )
            rows = self._check_rows(x, f"X[{i}]")
            positive = _check_signs(Y[i], f"Y[{i}]", (len(rows),)) > 0
            inputs.append((rows[positive], rows[~positive]))
            outputs.append(np.ones((positive.sum(), (~positive).sum()), dtype=np.int8))
        return inputs, (None if Y is None else outputs)


def _check_signs(y: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Return y as an int8 array of the given shape holding only −1 and +1."""
    array = np.asarray(y)
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {array.shape}")
    if not np.all((array == 1) | (array == -1)):
        raise ValueError(f"{name} must hold only -1 and +1")
    return array.astype(np.int8)
