"""One pass of the most-violated-constraint oracle over the training set, and the exact slacks.

With ``ψ_i(y) = φ(x_i, y_i) − φ(x_i, y)``, the constraints of example i read, for every output y,

* margin rescaling: ``ξ_i >= Δ(y_i, y) − w · ψ_i(y)``, whose most violated output is
  ``ŷ_i = argmax_y Δ(y_i, y) + w · φ(x_i, y)`` (the task's loss-augmented oracle);
* slack rescaling: ``ξ_i >= Δ(y_i, y) (1 − w · ψ_i(y))``, whose most violated output is
  ``ŷ_i = argmax_y Δ(y_i, y) (1 − w · ψ_i(y))`` (the task's slack-rescaled oracle)
  (Tsochantaridis, Joachims, Hofmann & Altun, JMLR 2005, section 2.2).

Both are linear constraints ``w · v_i(y) >= Δ(y_i, y) − ξ_i`` with the constraint vector
``v_i(y) = ψ_i(y)``, or ``Δ(y_i, y) ψ_i(y)`` under slack rescaling, so the working-set QPs and
the dual are the same for both. The exact slack of example i is the violation of ``ŷ_i``,
``ξ_i(w) = max(0, Δ(y_i, ŷ_i) − w · v_i(ŷ_i))``; the primal objective made of the slacks is
:meth:`structsvm.solvers._objective.SlackPenalty.primal`.
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
        The most violating output of every example.
    losses : ndarray of shape (n,)
        Δ(y_i, ŷ_i), the offsets of the constraints.
    slacks : ndarray of shape (n,)
        ξ_i(w) = max(0, Δ(y_i, ŷ_i) − w · v_i(ŷ_i)).
    true_features, features : ndarray or sparse matrix of shape (n, size_joint_feature)
        Rows φ(x_i, y_i) and φ(x_i, ŷ_i).
    true_feature_sum : ndarray of shape (size_joint_feature,), optional
        ``Σ_i φ(x_i, y_i)``, if the caller keeps it (it does not change during a fit).
    certified : bool, default=True
        Whether the task certified every output as a maximiser (:meth:`Task.is_certified`).
        If not, the slacks are lower bounds of the true ones and so is the primal objective.
    key_of : callable, default=array_key
        The task's :meth:`~structsvm.Task.output_key`.
    rescaling : {"margin", "slack"}, default="margin"
        Which constraints: the constraint vector ``v_i`` is ψ_i, or Δ_i ψ_i for "slack".
    """

    outputs: Sequence[Any]
    losses: np.ndarray
    slacks: np.ndarray
    true_features: FeatureMatrix
    features: FeatureMatrix
    true_feature_sum: np.ndarray | None = None
    certified: bool = True
    key_of: Callable[[Any], Hashable] = array_key
    rescaling: str = "margin"

    def output_key(self, i: int) -> Hashable:
        """Return the key of example i's output (see :meth:`structsvm.Task.output_key`)."""
        return self.key_of(self.outputs[i])

    @functools.cached_property
    def differences(self) -> FeatureMatrix:
        """The constraint vectors ``v_i(ŷ_i)`` as rows (formed on first use).

        ``ψ_i(ŷ_i) = φ(x_i, y_i) − φ(x_i, ŷ_i)``, multiplied by Δ(y_i, ŷ_i) under slack
        rescaling.
        """
        differences = self.true_features - self.features
        if self.rescaling == "slack":
            scales = self.losses[:, None]
            differences = (
                sp.csr_matrix(differences).multiply(scales)
                if sp.issparse(differences)
                else differences * scales
            )
        return sp.csr_matrix(differences) if sp.issparse(differences) else differences

    def difference_sum(self) -> np.ndarray:
        """Return ``Σ_i v_i(ŷ_i)`` without forming the rows."""
        if self.rescaling == "slack":
            return column_sums(self.true_features, self.losses) - column_sums(
                self.features, self.losses
            )
        true_sum = self.true_feature_sum
        if true_sum is None:
            true_sum = column_sums(self.true_features)
        return true_sum - column_sums(self.features)

    def loss_sum(self) -> float:
        """Return ``Σ_i Δ(y_i, ŷ_i)``."""
        return float(self.losses.sum())

    def slack_sum(self) -> float:
        """Return ``Σ_i ξ_i(w)``."""
        return float(self.slacks.sum())


@dataclass
class PassSummary:
    """The sums over the examples of an oracle pass: all that the 1-slack constraint needs.

    A pass over a shard of the training set held by a worker of a cluster is reduced to this
    where it was made, so that only ``size_joint_feature + 2`` numbers travel back, however
    many examples the shard has; the summaries of the shards add up to that of the whole set,
    up to the rounding of float64 additions grouped by shard.

    Attributes
    ----------
    difference_total : ndarray of shape (size_joint_feature,)
        ``Σ_i v_i(ŷ_i)``, as :meth:`OraclePass.difference_sum`.
    loss_total, slack_total : float
        ``Σ_i Δ(y_i, ŷ_i)`` and ``Σ_i ξ_i(w)``.
    certified : bool
        Whether the task certified every output as a maximiser.
    """

    difference_total: np.ndarray
    loss_total: float
    slack_total: float
    certified: bool

    @classmethod
    def of(cls, oracle: OraclePass) -> PassSummary:
        """Return the summary of a pass."""
        return cls(
            oracle.difference_sum(),
            oracle.loss_sum(),
            oracle.slack_sum(),
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

    def difference_sum(self) -> np.ndarray:
        """Return ``Σ_i v_i(ŷ_i)``."""
        return self.difference_total

    def loss_sum(self) -> float:
        """Return ``Σ_i Δ(y_i, ŷ_i)``."""
        return self.loss_total

    def slack_sum(self) -> float:
        """Return ``Σ_i ξ_i(w)``."""
        return self.slack_total


def column_sums(matrix: FeatureMatrix, row_weights: np.ndarray | None = None) -> np.ndarray:
    """Return the sum of the rows of a dense or sparse matrix (one scatter for CSR).

    With ``row_weights``, row k counts ``row_weights[k]`` times.
    """
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
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    true_features: FeatureMatrix,
    w: np.ndarray,
    *,
    true_feature_sum: np.ndarray | None = None,
    n_jobs: int | None = None,
    rescaling: str = "margin",
) -> OraclePass:
    """Call the most-violated-constraint oracle on every example at weights ``w``.

    ``true_features`` are the rows φ(x_i, y_i), computed once per fit by the caller, and
    ``true_feature_sum`` optionally their sum. The oracle, the task's
    ``batch_loss_augmented_argmax`` for ``rescaling="margin"`` and its
    ``batch_slack_rescaled_argmax`` for ``"slack"``, runs on ``n_jobs`` joblib workers, one
    chunk of examples each (:func:`~structsvm._utils.parallel.map_chunks`), or, for a task with
    :attr:`~structsvm.Task.threaded_batches`, on ``n_jobs`` threads, as do the joint features
    of its outputs; losses and joint features are computed here. Outputs the task does not certify
    (:meth:`~structsvm.Task.is_certified`) may lose to the true output; their slacks are
    clipped at 0 like the others, and the pass is marked uncertified.
    """
    oracle = (
        task.batch_slack_rescaled_argmax
        if rescaling == "slack"
        else task.batch_loss_augmented_argmax
    )
    with oracle_threads(task, n_jobs):
        outputs = map_chunks(oracle, (X, Y), w, n_jobs=n_jobs)
        losses = np.asarray(task.batch_loss(Y, outputs), dtype=float)
        features = task.batch_joint_feature(X, outputs)
    check_oracle_results(task, true_features, features, losses)
    score_gaps = np.asarray(true_features @ w).ravel() - np.asarray(features @ w).ravel()
    certified_outputs = np.array([task.is_certified(y) for y in outputs], dtype=bool)
    if rescaling == "slack":
        violations = losses * (1.0 - score_gaps)
        check_violations(np.where(certified_outputs, violations, 0.0), score_gaps, losses)
    else:
        violations = losses - score_gaps
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
        rescaling=rescaling,
    )
