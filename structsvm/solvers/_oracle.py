"""One pass of the most-violated-constraint oracle over the training set, and the exact slacks.

Constraints read ``w · v_i(y) >= Δ(y_i, y) − ξ_i`` with ``v_i(y) = ψ_i(y) = φ(x_i, y_i) − φ(x_i,
y)`` (margin rescaling) or ``Δ(y_i, y) ψ_i(y)`` (slack rescaling; Tsochantaridis, Joachims,
Hofmann & Altun, JMLR 2005, section 2.2); ``ξ_i(w) = max(0, Δ(y_i, ŷ_i) − w · v_i(ŷ_i))``.
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
from structsvm._utils.parallel import map_chunks, oracle_threads

FeatureMatrix = np.ndarray | sp.csr_matrix


@dataclass
class OraclePass:
    """What one pass of the most-violated-constraint oracle over the data found at ``w``.

    Attributes
    ----------
    outputs : sequence
        The most violating output ŷ_i of every example.
    losses, slacks : ndarray of shape (n,)
        Δ(y_i, ŷ_i), the offsets of the constraints, and ξ_i(w).
    true_features, features : ndarray or sparse matrix of shape (n, size_joint_feature)
        Rows φ(x_i, y_i) and φ(x_i, ŷ_i).
    certified : bool, default=True
        Whether the task certified every output as a maximiser (:meth:`Task.is_certified`);
        if not, the slacks, and the primal objective, are lower bounds.
    key_of : callable, default=array_key
        The task's :meth:`~structsvm.Task.output_key`.
    rescaling : {"margin", "slack"}, default="margin"
        Whether ``v_i`` is ψ_i or Δ_i ψ_i.
    """

    outputs: Sequence[Any]
    losses: np.ndarray
    slacks: np.ndarray
    true_features: FeatureMatrix
    features: FeatureMatrix
    certified: bool = True
    key_of: Callable[[Any], Hashable] = array_key
    rescaling: str = "margin"

    def output_key(self, i: int) -> Hashable:
        """Return the key of example i's output (see :meth:`structsvm.Task.output_key`)."""
        return self.key_of(self.outputs[i])

    @property
    def scales(self) -> np.ndarray | None:
        """The factors Δ_i of the rows ψ_i under slack rescaling, None under margin rescaling."""
        return self.losses if self.rescaling == "slack" else None

    @functools.cached_property
    def differences(self) -> FeatureMatrix:
        """The constraint vectors ``v_i(ŷ_i)`` as rows (formed on first use)."""
        differences = self.true_features - self.features
        if self.scales is not None:
            scales = self.scales[:, None]
            differences = (
                sp.csr_matrix(differences).multiply(scales)
                if sp.issparse(differences)
                else differences * scales
            )
        return sp.csr_matrix(differences) if sp.issparse(differences) else differences


@dataclass
class PassSummary:
    """The sums over the examples of an oracle pass, all that the 1-slack constraint needs:
    ``Σ_i v_i(ŷ_i)``, ``Σ_i Δ(y_i, ŷ_i)``, ``Σ_i ξ_i(w)``, and whether all outputs are certified."""

    difference_total: np.ndarray
    loss_total: float
    slack_total: float
    certified: bool

    @classmethod
    def of(cls, oracle: OraclePass, true_feature_sum: np.ndarray | None = None) -> PassSummary:
        """Return the summary of a pass; ``true_feature_sum`` is ``Σ_i φ(x_i, y_i)`` if kept."""
        scales = oracle.scales
        if true_feature_sum is None or scales is not None:
            true_feature_sum = column_sums(oracle.true_features, scales)
        return cls(
            true_feature_sum - column_sums(oracle.features, scales),
            float(oracle.losses.sum()),
            float(oracle.slacks.sum()),
            oracle.certified,
        )

    @classmethod
    def combined(cls, parts: Sequence[PassSummary]) -> PassSummary:
        """Return the summary of the union of disjoint sets of examples, given theirs."""
        return cls(
            functools.reduce(np.add, (part.difference_total for part in parts)),
            sum(part.loss_total for part in parts),
            sum(part.slack_total for part in parts),
            all(part.certified for part in parts),
        )


def column_sums(matrix: FeatureMatrix, row_weights: np.ndarray | None = None) -> np.ndarray:
    """Return the sum of the rows of a dense or sparse matrix, row k weighted by
    ``row_weights[k]`` if given."""
    if sp.issparse(matrix):
        csr = sp.csr_matrix(matrix)
        data = csr.data
        if row_weights is not None:
            data = data * np.repeat(row_weights, np.diff(csr.indptr))
        return np.bincount(csr.indices, weights=data, minlength=csr.shape[1])
    if row_weights is not None:
        return row_weights @ np.asarray(matrix)
    return np.asarray(matrix).sum(axis=0)


def loss_augmented_pass(
    task: Task, X: Sequence[Any], Y: Sequence[Any], true_features: FeatureMatrix, w: np.ndarray,
    *, n_jobs: int | None = None, rescaling: str = "margin",
) -> OraclePass:
    """Call the most-violated-constraint oracle on every example at weights ``w``.

    ``true_features`` are the rows φ(x_i, y_i). The task's batch oracle and joint features run
    on ``n_jobs`` workers (:func:`~structsvm._utils.parallel.map_chunks`); the results are
    checked by :mod:`structsvm._contract`, and uncertified outputs mark the pass uncertified.
    """
    slack = rescaling == "slack"
    oracle = task.batch_slack_rescaled_argmax if slack else task.batch_loss_augmented_argmax
    with oracle_threads(task, n_jobs):
        outputs = map_chunks(oracle, (X, Y), w, n_jobs=n_jobs)
        losses = np.asarray(task.batch_loss(Y, outputs), dtype=float)
        features = task.batch_joint_feature(X, outputs)
    check_oracle_results(task, true_features, features, losses)
    score_gaps = np.asarray(true_features @ w).ravel() - np.asarray(features @ w).ravel()
    certified_outputs = np.array([task.is_certified(y) for y in outputs], dtype=bool)
    violations = losses * (1.0 - score_gaps) if slack else losses - score_gaps
    check_violations(
        np.where(certified_outputs, violations, 0.0), score_gaps, losses if slack else None
    )
    return OraclePass(
        outputs, losses, np.maximum(violations, 0.0), true_features, features,
        bool(certified_outputs.all()), task.output_key, rescaling,
    )
