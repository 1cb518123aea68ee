"""How the slacks of the structural SVM are penalised: linearly (L1) or squared (L2).

With constraints ``w · v_k >= Δ_k − ξ_{g_k}`` and ``β_g = Σ_{k ∈ g} α_k``, the primal is
``½‖w‖² + Σ_g p(ξ_g)`` and the dual ``Σ α_k Δ_k − ½‖Σ α_k v_k‖² − Σ_g q(β_g)``, with ``p(ξ) = C ξ``,
``q = 0``, ``β_g <= C`` (L1) or ``p(ξ) = C ξ² / 2``, ``q(β) = β² / (2C)`` (L2: a hard-margin dual
in ``[v_k, e_{g_k} / √C]``; Tsochantaridis, Joachims, Hofmann & Altun, JMLR 2005, section 4). The
L2 QPs take the group bound ``2 C (Σ_g m_g²)^½`` (m_g: group g's largest offset), never reached.
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
    """The penalty of the slacks (``norm`` 1: ``C Σ_g ξ_g``, 2: ``(C/2) Σ_g ξ_g²``) and its dual
    term."""

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
        """Return ``D(α) = Σ α_k Δ_k − ½‖w‖² − Σ_g q(β_g)`` from its terms and the ``β_g``."""
        return float(linear - 0.5 * squared_norm - np.sum(self.dual_penalties(group_sums, C)))

    def group_gaps(
        self, slacks: np.ndarray, group_sums: np.ndarray, weighted_violations: np.ndarray, C: float
    ) -> np.ndarray:
        """Return each group's share ``p(ξ_g) + q(β_g) − Σ_{k ∈ g} α_k (Δ_k − w · v_k)`` of the
        duality gap at ``w = Σ α_k v_k``, given the last sums (``weighted_violations``)."""
        return (
            self.penalties(slacks, C)
            + self.dual_penalties(group_sums, C)
            - np.asarray(weighted_violations, dtype=float)
        )

    def solve(
        self, gram: np.ndarray, offsets: np.ndarray, groups: np.ndarray, C: float, *,
        vectors: np.ndarray | sp.spmatrix | None, tol: float,
        initial_alpha: np.ndarray | None = None,
    ) -> SimplexDualSolution:
        """Solve the working-set dual QP for this penalty (the parameters of
        :func:`~structsvm.qp.solve_simplex_dual`); return α and the dual objective."""
        options = dict(tol=tol, initial_alpha=initial_alpha)
        if self.norm == 1:
            return solve_simplex_dual(gram, offsets, groups, C, vectors=vectors, **options)
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
                (np.full(len(groups), 1.0 / np.sqrt(C)), (np.arange(len(groups)), group_index)),
                shape=(len(groups), len(labels)),
            )
            augmented = (
                sp.hstack([sp.csr_matrix(vectors), indicator], format="csr")
                if sp.issparse(vectors)
                else np.hstack([np.asarray(vectors), indicator.toarray()])
            )
        return solve_simplex_dual(
            gram + same_group / C, offsets, groups, bound, vectors=augmented, **options
        )


L1_SLACKS = SlackPenalty(1)
"""The default penalty, ``C Σ_g ξ_g``."""
