"""The working-set QP as its solvers see it: rescaled, with its groups and an interior start.

The dual of a structural SVM over a working set of constraints ``w · ψ_k >= Δ_k − ξ_{g(k)}`` is

    maximise  Δᵀα − ½ αᵀGα  over  α >= 0  with  Σ_{k in g} α_k <= C  for every group g,

with G the Gram matrix of the constraint vectors ψ_k. :func:`rescaled` brings losses and squared
feature norms to order one before it is solved; :func:`interior_point` turns a feasible warm
start into the strictly feasible primal-dual pair an interior-point method starts from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from structsvm.qp._cvxopt import DenseMatrix
from structsvm.qp._feasible_set import group_sums

WARM_START_SHIFT = 0.01
"""How far a warm start is moved into the interior, relative to the rescaled C and losses."""


def dual_objective(alpha: np.ndarray, gram: np.ndarray, offsets: np.ndarray) -> float:
    """Return ``offsetsᵀα − ½ αᵀ gram α``, the objective of the working-set dual."""
    return float(offsets @ alpha - 0.5 * alpha @ gram @ alpha)


@dataclass
class InteriorPoint:
    """A strictly feasible primal-dual pair of the rescaled working-set QP.

    Attributes
    ----------
    alpha : ndarray of shape (m,)
        Dual variables, all positive.
    group_room : ndarray of shape (g,)
        ``C − Σ_{k in g} α_k``, all positive.
    slacks : ndarray of shape (g,)
        Primal slacks ξ_g, all positive.
    margin_room : ndarray of shape (m,)
        ``w · ψ_k + ξ_g − Δ_k`` at ``w = Σ α_k ψ_k``, all positive.
    """

    alpha: np.ndarray
    group_room: np.ndarray
    slacks: np.ndarray
    margin_room: np.ndarray


@dataclass
class WorkingSetQP:
    """The working-set QP rescaled so that losses and squared feature norms are of order one.

    With k the largest diagonal entry of the Gram matrix and δ the largest loss, the constraint
    vectors are multiplied by ``vector_scale`` = 1/√k, the losses divided by δ and C multiplied by
    k/δ; the dual variables of the rescaled problem are ``α · k / δ``. The vectors are kept only
    for the primal form (:meth:`keep_vectors`).
    """

    gram: np.ndarray
    offsets: np.ndarray
    group_index: np.ndarray
    n_groups: int
    C: float
    vector_scale: float
    vectors: DenseMatrix | None = None
    start: InteriorPoint | None = None

    @property
    def n_constraints(self) -> int:
        return len(self.offsets)

    def keep_vectors(self, vectors: np.ndarray | sp.spmatrix) -> None:
        """Keep the constraint vectors ψ_k (rows of ``vectors``), rescaled, for the primal form."""
        self.vectors = DenseMatrix(vectors * self.vector_scale)

    def group_sizes(self) -> np.ndarray:
        """Return the number of constraints in each group."""
        return np.bincount(self.group_index, minlength=self.n_groups)

    def shared_constraints(self) -> np.ndarray:
        """Return the indices of the constraints whose group has other constraints too."""
        return np.flatnonzero(self.group_sizes()[self.group_index] > 1)

    def membership(self) -> sp.csr_matrix:
        """Return the g × m matrix S whose row g has ones at the constraints of group g."""
        m = self.n_constraints
        return sp.csr_matrix(
            (np.ones(m), (self.group_index, np.arange(m))), shape=(self.n_groups, m)
        )

    def group_sums(self, values: np.ndarray) -> np.ndarray:
        """Return the sum of ``values`` over each group."""
        return group_sums(values, self.group_index, self.n_groups)


def rescaled(
    gram: np.ndarray, offsets: np.ndarray, groups: np.ndarray, C: float
) -> tuple[WorkingSetQP, float]:
    """Return the rescaled QP (without vectors) and the factor ``δ / k`` that maps α back.

    Parameters
    ----------
    gram : ndarray of shape (m, m)
        Inner products of the constraint vectors.
    offsets : ndarray of shape (m,)
        The losses of the constraints.
    groups : ndarray of shape (m,) of int
        The group of each constraint, any labels (renumbered ``0 .. n_groups - 1``).
    C : float
        Bound on each group's sum of dual variables.

    Returns
    -------
    problem : WorkingSetQP
    unscale : float
        The factor ``δ / k``: the original problem's α are the rescaled one's times it.
    """
    # All-zero constraint vectors (features that vanish) leave a linear program: no scaling.
    k = float(np.abs(np.diag(gram)).max(initial=0.0)) or 1.0
    delta = max(float(np.abs(offsets).max(initial=0.0)), 1e-300)
    used_groups, group_index = np.unique(groups, return_inverse=True)
    problem = WorkingSetQP(
        gram=gram / k,
        offsets=offsets / delta,
        group_index=group_index.reshape(-1),
        n_groups=len(used_groups),
        C=C * k / delta,
        vector_scale=1.0 / np.sqrt(k),
    )
    return problem, delta / k


def interior_point(problem: WorkingSetQP, alpha: np.ndarray) -> InteriorPoint:
    """Move feasible rescaled dual variables strictly inside the feasible set; pair them with ξ.

    α is blended with the point that spreads half of C evenly over each group, and ξ is set just
    above the largest violation of each group's constraints at ``w = Σ α_k ψ_k``.
    """
    spread = problem.C / (2.0 * problem.group_sizes()[problem.group_index])
    alpha = (1.0 - WARM_START_SHIFT) * alpha + WARM_START_SHIFT * spread
    violations = problem.offsets - problem.gram @ alpha
    slacks = np.zeros(problem.n_groups)
    np.maximum.at(slacks, problem.group_index, violations)
    slacks += WARM_START_SHIFT
    return InteriorPoint(
        alpha=alpha,
        group_room=problem.C - problem.group_sums(alpha),
        slacks=slacks,
        margin_room=slacks[problem.group_index] - violations,
    )
