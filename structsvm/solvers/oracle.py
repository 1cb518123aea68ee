"""One pass of the loss-augmented oracle over the training set, and the exact primal objective.

For weights ``w`` and example ``i`` the oracle returns ``ŷ_i = argmax_y Δ(y_i, y) + w · φ(x_i, y)``.
With ``ψ_i(y) = φ(x_i, y_i) − φ(x_i, y)`` the slack of example i is
``ξ_i(w) = max(0, Δ(y_i, ŷ_i) − w · ψ_i(ŷ_i))`` and the primal objective is
``P(w) = ½‖w‖² + C Σ_i ξ_i(w)`` (margin rescaling).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm.task import Task

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
    differences : ndarray or sparse matrix of shape (n, size_joint_feature)
        Rows ψ_i(ŷ_i) = φ(x_i, y_i) − φ(x_i, ŷ_i).
    slacks : ndarray of shape (n,)
        ξ_i(w) = max(0, Δ(y_i, ŷ_i) − w · ψ_i(ŷ_i)).
    """

    outputs: Sequence[Any]
    losses: np.ndarray
    differences: FeatureMatrix
    slacks: np.ndarray


def loss_augmented_pass(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    true_features: FeatureMatrix,
    w: np.ndarray,
) -> OraclePass:
    """Call the loss-augmented oracle on every example at weights ``w``.

    ``true_features`` are the rows φ(x_i, y_i), computed once per fit by the caller.
    """
    outputs = task.batch_loss_augmented_argmax(X, Y, w)
    losses = np.asarray(task.batch_loss(Y, outputs), dtype=float)
    differences = true_features - task.batch_joint_feature(X, outputs)
    if sp.issparse(differences):
        differences = sp.csr_matrix(differences)
    violations = losses - np.asarray(differences @ w).ravel()
    return OraclePass(
        outputs=outputs,
        losses=losses,
        differences=differences,
        slacks=np.maximum(violations, 0.0),
    )


def primal_objective(w: np.ndarray, slacks: np.ndarray, C: float) -> float:
    """Return ``½‖w‖² + C Σ slacks``."""
    return float(0.5 * w @ w + C * np.sum(slacks))
