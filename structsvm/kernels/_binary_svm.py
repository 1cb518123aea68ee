"""The binary support vector machine, trained by a quadratic program.

For labels ``y_i ∈ {−1, +1}`` the soft-margin SVM (Cortes & Vapnik, "Support-vector networks",
Machine Learning 20, 1995) solves the primal problem

    min_{w, b, ξ}  ½‖w‖² + C Σ_i ξ_i   s.t.  y_i(⟨w, φ(x_i)⟩ + b) >= 1 − ξ_i,  ξ_i >= 0,

whose Lagrange dual depends on the data only through the kernel ``K_ij = k(x_i, x_j)``:

    max_λ  Σ_i λ_i − ½ Σ_ij λ_i λ_j y_i y_j K_ij   s.t.  0 <= λ_i <= C,  Σ_i λ_i y_i = 0.

The hard-margin SVM is the case C = ∞ (no slack, no upper bound on λ). At the optimum
``w = Σ_i λ_i y_i φ(x_i)``; points with λ_i > 0 are the support vectors.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, ClassVar

import numpy as np

from structsvm._utils.validation import (
    Interval,
    Options,
    ParameterConstraints,
    check_binary_labels,
    check_consistent_length,
)
from structsvm.kernels._box_dual import snap_to_bounds, solve_box_dual
from structsvm.kernels._kernels import Kernel, LinearKernel
from structsvm.kernels._machine import BinaryKernelClassifier, KernelMachine, LinearWeights
from structsvm.qp._cvxopt import solve_qp

FORMULATIONS = ("dual", "primal")


class NotSeparableError(ValueError):
    """A hard-margin SVM was asked to separate data that no hyperplane separates."""


class BinarySVM(LinearWeights, BinaryKernelClassifier):
    """Two-class support vector machine, hard or soft margin, with any kernel.

    Trained by solving the dual QP (any kernel) or the primal QP over (w, b, ξ) (linear kernel
    only) with cvxopt through :func:`structsvm.qp.solve_qp`. Both give the same model; the
    primal one is there to check the other and is cheaper when there are few features and
    many examples.

    Parameters
    ----------
    C : float or None, default=None
        Weight of the slack penalty ``C Σ ξ_i`` (soft margin); None for the hard margin, which
        requires the data to be separable in the kernel's feature space.
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, Kernel or callable, \
default="linear"
        The kernel; see :class:`~structsvm.kernels._machine.KernelMachine`. A Kernel object such
        as :class:`~structsvm.AllSubsequencesKernel` lets X be a list of strings.
    degree : int, default=3
        Degree p of the "poly" kernel ``(γ⟨x, z⟩ + r)^p``.
    gamma : float or "scale", default="scale"
        γ of the "poly", "rbf" and "sigmoid" kernels; "scale" means ``1 / (n_features · X.var())``.
    coef0 : float, default=0.0
        The offset r of the "poly" and "sigmoid" kernels.
    formulation : {"dual", "primal"}, default="dual"
        Which QP to solve; "primal" needs the linear kernel.
    tol : float, default=1e-9
        Tolerance of the QP solver on the duality gap.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class (y = +1).
    dual_coef_ : ndarray of shape (n_samples,)
        The multipliers λ_i of every training point (0 <= λ_i <= C), each exactly on a bound
        or strictly between: the dual QP's interior-point solution is finished on its active
        set (:func:`~structsvm.kernels._box_dual.solve_box_dual`). For formulation="primal",
        the margin constraints' multipliers, set onto a bound when within a relative 1e-6.
    support_ : ndarray of int
        Indices of the support vectors (λ_i > 0).
    support_vectors_ : inputs of the support vectors (None when kernel="precomputed")
    intercept_ : float
        The offset b. The average of ``y_i − Σ_j λ_j y_j K_ji`` over the free support vectors
        (0 < λ_i < C), where the KKT conditions make the margin exactly 1; without free support
        vectors, the midpoint of the interval of b that the KKT conditions allow. For
        formulation="primal", the solver's b.
    coef_ : ndarray of shape (n_features,)
        The weights w (linear kernel only; AttributeError otherwise).
    margin_ : float
        The half-width ρ = 1/‖w‖ of the margin, with ``‖w‖² = Σ_ij λ_i λ_j y_i y_j K_ij``
        (infinite if w = 0, which a soft margin with small C can give).
    qp_status_ : str
        The QP solver's status ("optimal" or "unknown").

    Notes
    -----
    ``decision_function(X)`` returns ``f(x) = Σ_i λ_i y_i k(x_i, x) + b``, positive for
    ``classes_[1]``.

    References
    ----------
    C. Cortes and V. Vapnik, "Support-vector networks", Machine Learning 20(3), 1995.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        "C": [Interval(Real, 0, None, closed="neither"), None],
        **KernelMachine._parameter_constraints,
        "formulation": [Options(*FORMULATIONS)],
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        C: float | None = None,
        kernel: str | Kernel | Any = "linear",
        degree: int = 3,
        gamma: float | str = "scale",
        coef0: float = 0.0,
        formulation: str = "dual",
        tol: float = 1e-9,
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.formulation = formulation
        self.tol = tol

    def fit(self, X: Any, y: Any) -> BinarySVM:
        """Train on inputs X and labels y (exactly two distinct values); return self.

        Raises
        ------
        NotSeparableError
            For the hard margin (C=None) when the data are not separable.
        """
        inputs, gram = self._fit_gram(X)
        C = None if self.C is None else float(self.C)
        tol = float(self.tol)
        check_consistent_length(gram, y)
        self.classes_, signs = check_binary_labels(y)
        if self.formulation == "primal":
            if not isinstance(self.kernel_, LinearKernel):
                raise ValueError("formulation='primal' needs kernel='linear'")
            weights, intercept, multipliers, status = _solve_primal(inputs, signs, C, tol)
            multipliers = snap_to_bounds(multipliers, C)
            signed = multipliers * signs
        else:
            Q = np.outer(signs, signs) * gram
            solution = solve_box_dual(Q, -np.ones(len(signs)), signs, C, 0.0, tol)
            multipliers, status = solution.multipliers, solution.status
            signed = multipliers * signs
            intercept = -solution.offset
            weights = signed @ inputs if isinstance(self.kernel_, LinearKernel) else None
        margins = signs * (gram @ signed + intercept)
        if C is None and (status != "optimal" or margins.min() < 1 - 1e-4):
            raise NotSeparableError(
                "the hard-margin SVM found no separating hyperplane (smallest margin "
                f"{margins.min():.3g} < 1, QP status {status!r}): the data are not separable "
                "in the kernel's feature space; set C for a soft margin"
            )
        self.dual_coef_ = multipliers
        self.qp_status_ = status
        self._weights = weights
        norm_squared = float(signed @ gram @ signed)
        self.margin_ = 1.0 / np.sqrt(norm_squared) if norm_squared > 0 else np.inf
        self._store_expansion(inputs, len(signs), np.flatnonzero(multipliers), signed, intercept)
        return self


def _solve_primal(
    X: np.ndarray, signs: np.ndarray, C: float | None, tol: float
) -> tuple[np.ndarray, float, np.ndarray, str]:
    """Solve the primal QP over z = (w, b, ξ); return w, b, the multipliers λ and the status.

    The margin constraints ``−y_i(⟨w, x_i⟩ + b) − ξ_i <= −1`` come first, so their Lagrange
    multipliers are the first n inequality duals; ``−ξ_i <= 0`` follow (soft margin only).
    """
    n, d = X.shape
    n_slack = 0 if C is None else n
    P = np.zeros((d + 1 + n_slack, d + 1 + n_slack))
    P[:d, :d] = np.eye(d)
    q = np.r_[np.zeros(d + 1), np.full(n_slack, C if C is not None else 0.0)]
    margin_rows = np.hstack([-signs[:, None] * X, -signs[:, None], -np.eye(n)[:, :n_slack]])
    slack_rows = np.hstack([np.zeros((n_slack, d + 1)), -np.eye(n_slack)])
    G = np.vstack([margin_rows, slack_rows])
    h = np.r_[-np.ones(n), np.zeros(n_slack)]
    result = solve_qp(P, q, G, h, tol=tol)
    return result.x[:d], float(result.x[d]), result.inequality_duals[:n], result.status
