"""One pass of the loss-augmented oracle over the training set, and the exact primal objective.

For weights ``w`` and example ``i`` the oracle returns ``ŷ_i = argmax_y Δ(y_i, y) + w · φ(x_i, y)``.
With ``ψ_i(y) = φ(x_i, y_i) − φ(x_i, y)`` the slack of example i is
``ξ_i(w) = max(0, Δ(y_i, ŷ_i) − w · ψ_i(ŷ_i))`` and the primal objective is
``P(w) = ½‖w‖² + C Σ_i ξ_i(w)`` (margin rescaling).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm._contract import check_oracle_results, check_violations
from structsvm._task import Task, array_key
from structsvm._utils.parallel import map_chunks

FeatureMatrix = np.ndarray | sp.csr_matrix


@dataclass
class OraclePass:
    """What one loss-augmented pass over the data found at weights ``w``.

    Attributes
    ----------
    outputs : sequence
        The most violating output of every example.
    losses : ndarray of shape (n,)
        Δ(y_i, ŷ_i).
    slacks : ndarray of shape (n,)
        ξ_i(w) = max(0, Δ(y_i, ŷ_i) − w · ψ_i(ŷ_i)).
    true_features, features : ndarray or sparse matrix of shape (n, size_joint_feature)
        Rows φ(x_i, y_i) and φ(x_i, ŷ_i).
    true_feature_sum : ndarray of shape (size_joint_feature,), optional
        ``Σ_i φ(x_i, y_i)``, if the caller keeps it (it does not change during a fit).
    certified : bool, default=True
        Whether the task certified every output as a maximiser (:meth:`Task.is_certified`).
        If not, the slacks are lower bounds of the true ones and so is the primal objective.
    key_of : callable, default=array_key
        The task's :meth:`~structsvm.Task.output_key`.
    """

    outputs: Sequence[Any]
    losses: np.ndarray
    slacks: np.ndarray
    true_features: FeatureMatrix
    features: FeatureMatrix
    true_feature_sum: np.ndarray | None = None
    certified: bool = True
    key_of: Callable[[Any], Hashable] = array_key

    def output_key(self, i: int) -> Hashable:
        """Return the key of example i's output (see :meth:`structsvm.Task.output_key`)."""
        return self.key_of(self.outputs[i])

    @functools.cached_property
    def differences(self) -> FeatureMatrix:
        """Rows ψ_i(ŷ_i) = φ(x_i, y_i) − φ(x_i, ŷ_i) (formed on first use)."""
        differences = self.true_features - self.features
        return sp.csr_matrix(differences) if sp.issparse(differences) else differences

    def difference_sum(self) -> np.ndarray:
        """Return ``Σ_i ψ_i(ŷ_i)`` without forming the rows ψ_i."""
        true_sum = self.true_feature_sum
        if true_sum is None:
            true_sum = column_sums(self.true_features)
        return true_sum - column_sums(self.features)


def column_sums(matrix: FeatureMatrix) -> np.ndarray:
    """Return the sum of the rows of a dense or sparse matrix (one scatter for CSR)."""
    if sp.issparse(matrix):
        csr = sp.csr_matrix(matrix)
        return np.bincount(csr.indices, weights=csr.data, minlength=csr.shape[1])
    return np.asarray(matrix).sum(axis=0)


def loss_augmented_pass(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    true_features: FeatureMatrix,
    w: np.ndarray,
    *,
    true_feature_sum: np.ndarray | None = None,
    n_jobs: int | None = None,
) -> OraclePass:
    """Call the loss-augmented oracle on every example at weights ``w``.

    ``true_features`` are the rows φ(x_i, y_i), computed once per fit by the caller, and
    ``true_feature_sum`` optionally their sum. The oracle runs on ``n_jobs`` joblib workers,
    one chunk of examples each (:func:`~structsvm._utils.parallel.map_chunks`); losses and
    joint features of its outputs are computed here. Outputs the task does not certify
    (:meth:`~structsvm.Task.is_certified`) may lose to the true output; their slacks are
    clipped at 0 like the others, and the pass is marked uncertified.
    """
    outputs = map_chunks(task.batch_loss_augmented_argmax, (X, Y), w, n_jobs=n_jobs)
    losses = np.asarray(task.batch_loss(Y, outputs), dtype=float)
    features = task.batch_joint_feature(X, outputs)
    check_oracle_results(task, true_features, features, losses)
    score_gaps = np.asarray(true_features @ w).ravel() - np.asarray(features @ w).ravel()
    violations = losses - score_gaps
    certified_outputs = np.array([task.is_certified(y) for y in outputs], dtype=bool)
    check_violations(np.where(certified_outputs, violations, 0.0), score_gaps)
    return OraclePass(
        outputs=outputs,
        losses=losses,
        slacks=np.maximum(violations, 0.0),
        true_features=true_features,
        features=features,
        true_feature_sum=true_feature_sum,
        certified=bool(certified_outputs.all()),
        key_of=task.output_key,
    )


def primal_objective(squared_norm: float, slacks: np.ndarray, C: float) -> float:
    """Return ``P(w) = ½‖w‖² + C Σ slacks`` from ``‖w‖²`` and the slacks at w."""
    return float(0.5 * squared_norm + C * np.sum(slacks))
