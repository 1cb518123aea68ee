"""How the slacks of the structural SVM are penalised: linearly (L1) or squared (L2).

With constraints ``w · v_k >= Δ_k − ξ_{g_k}`` (one slack per group: per example for n-slack,
one for all examples for 1-slack) and ``β_g = Σ_{k ∈ g} α_k``:

* L1 slacks: primal ``½‖w‖² + C Σ_g ξ_g``, dual ``max Σ α_k Δ_k − ½‖Σ α_k v_k‖²`` over
  ``α >= 0``, ``β_g <= C``;
* L2 slacks (SVM^struct's ``-p 2``): primal ``½‖w‖² + (C/2) Σ_g ξ_g²``, dual
  ``max Σ α_k Δ_k − ½‖Σ α_k v_k‖² − Σ_g β_g² / (2C)`` over ``α >= 0`` (stationarity gives
  ``w = Σ α_k v_k`` and ``C ξ_g = β_g``): a hard-margin dual in the vectors
  ``[v_k, e_{g_k} / √C]`` (Tsochantaridis, Joachims, Hofmann & Altun, JMLR 2005, section 4).

At ``w = Σ α_k v_k`` the duality gap is ``Σ_g [p(ξ_g) + q(β_g) − Σ_{k ∈ g} α_k (Δ_k − w · v_k)]``
with ``p(ξ) = C ξ``, ``q = 0`` (L1) or ``p(ξ) = C ξ² / 2``, ``q(β) = β² / (2C)`` (L2), every
term >= 0. The L2 working-set QPs are solved with a group bound ``2 C (Σ_g m_g²)^½`` (m_g the
largest positive offset of group g), which the optimum never reaches, since ``(C/2) ξ_g²`` is at
most the primal at ``w = 0``: any α within it is feasible, so the dual stays a certified bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from structsvm.qp import solve_simplex_dual
from structsvm.qp._simplex_dual import SimplexDualSolution

SLACK_NORMS = (1, 2)
"""The slack norms a solver takes."""

RESCALINGS = ("margin", "slack")
"""The constraint rescalings a solver takes (see :mod:`structsvm.solvers._oracle`)."""


def check_objective_options(rescaling: str, slack_norm: int) -> None:
    """Raise ValueError unless ``rescaling`` and ``slack_norm`` are ones a solver takes."""
    if rescaling not in RESCALINGS:
        raise ValueError(f"rescaling must be one of {RESCALINGS}, got {rescaling!r}")
    if isinstance(slack_norm, bool) or slack_norm not in SLACK_NORMS:
        raise ValueError(f"slack_norm must be one of {SLACK_NORMS}, got {slack_norm!r}")


@dataclass(frozen=True)
class SlackPenalty:
    """The penalty of the slacks in the primal objective and its term in the dual.

    Parameters
    ----------
    norm : {1, 2}, default=1
        1: ``C Σ_g ξ_g``; 2: ``(C/2) Σ_g ξ_g²``.
    """

    norm: int = 1

    def penalties(self, slacks: np.ndarray, C: float) -> np.ndarray:
        """Return the primal penalty of every slack: ``C ξ`` or ``C ξ² / 2``."""
        slacks = np.asarray(slacks, dtype=float)
        return C * slacks if self.norm == 1 else 0.5 * C * slacks**2

    def dual_penalties(self, group_sums: np.ndarray, C: float) -> np.ndarray:
        """Return the dual term of every group: 0 for L1, ``β_g² / (2C)`` for L2."""
        group_sums = np.asarray(group_sums, dtype=float)
        return np.zeros_like(group_sums) if self.norm == 1 else group_sums**2 / (2.0 * C)

    def primal(self, squared_norm: float, slacks: np.ndarray, C: float) -> float:
        """Return ``P(w) = ½‖w‖² + Σ_g p(ξ_g)`` from ``‖w‖²`` and the exact slacks at w."""
        return float(0.5 * squared_norm + np.sum(self.penalties(slacks, C)))

    def dual(self, linear: float, squared_norm: float, group_sums: np.ndarray, C: float) -> float:
        """Return ``D(α) = Σ α_k Δ_k − ½‖w‖² − Σ_g q(β_g)``.

        ``linear`` is ``Σ α_k Δ_k``, ``squared_norm`` is ``‖Σ α_k v_k‖²`` and ``group_sums``
        are the ``β_g``.
        """
        return float(linear - 0.5 * squared_norm - np.sum(self.dual_penalties(group_sums, C)))

    def group_gaps(
        self,
        slacks: np.ndarray,
        group_sums: np.ndarray,
        weighted_violations: np.ndarray,
        C: float,
    ) -> np.ndarray:
        """Return each group's share of the duality gap (see the module docstring).

        ``weighted_violations`` are the group sums of ``α_k (Δ_k − w · v_k)``.
        """
        return (
            self.penalties(slacks, C)
            + self.dual_penalties(group_sums, C)
            - np.asarray(weighted_violations, dtype=float)
        )

    def solve(
        self,
        gram: np.ndarray,
        offsets: np.ndarray,
        groups: np.ndarray,
        C: float,
        *,
        vectors: np.ndarray | sp.spmatrix | None,
        tol: float,
        initial_alpha: np.ndarray | None = None,
    ) -> SimplexDualSolution:
        """Solve the working-set dual QP for this penalty; return α and the dual objective.

        Parameters are those of :func:`~structsvm.qp.solve_simplex_dual` (``gram`` the inner
        products ``v_k · v_l``). For L2 slacks the QP is solved in the augmented vectors
        ``[v_k, e_{g_k} / √C]`` with a group bound that is never active at the optimum (see the
        module docstring), so the returned objective is the L2 dual objective.
        """
        if self.norm == 1:
            return solve_simplex_dual(
                gram, offsets, groups, C, vectors=vectors, tol=tol, initial_alpha=initial_alpha
            )
        labels, group_index = np.unique(groups, return_inverse=True)
        same_group = group_index[:, None] == group_index[None, :]
        largest = np.zeros(len(labels))
        np.maximum.at(largest, group_index, np.asarray(offsets, dtype=float))
        bound = 2.0 * C * float(np.sqrt(np.sum(largest**2)))
        if bound <= 0.0:  # no positive offset: α = 0 is optimal, and any bound keeps it
            bound = C
        augmented = None
        if vectors is not None:
            indicator = sp.csr_matrix(
                (
                    np.full(len(groups), 1.0 / np.sqrt(C)),
                    (np.arange(len(groups)), group_index),
                ),
                shape=(len(groups), len(labels)),
            )
            augmented = (
                sp.hstack([sp.csr_matrix(vectors), indicator], format="csr")
                if sp.issparse(vectors)
                else np.hstack([np.asarray(vectors), indicator.toarray()])
            )
        return solve_simplex_dual(
            gram + same_group / C,
            offsets,
            groups,
            bound,
            vectors=augmented,
            tol=tol,
            initial_alpha=initial_alpha,
        )


L1_SLACKS = SlackPenalty(1)
"""The default penalty, ``C Σ_g ξ_g``."""
