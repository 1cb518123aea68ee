"""The one-class support vector machine: the ν dual that estimates the support of a distribution.

Schölkopf, Platt, Shawe-Taylor, Smola & Williamson ("Estimating the support of a
high-dimensional distribution", Neural Computation 13, 2001) separate the training data from
the origin in feature space with the widest margin, allowing a fraction of them to fall on the
wrong side. The dual of their problem is

    min_α  ½ αᵀKα   s.t.  0 <= α_i <= 1/(νn),  Σ_i α_i = 1,

with the decision function ``f(x) = Σ_i α_i k(x_i, x) − ρ``, positive inside the estimated
support. Here the problem is solved scaled by νn, as LIBSVM and scikit-learn do:

    min_a  ½ aᵀKa   s.t.  0 <= a_i <= 1,  Σ_i a_i = νn,

so that ``a = νn·α``, and the offset and the decision function are νn times those of the
paper; their signs, and so the support vectors, the outliers and the predictions, are the same.
This is the box dual of :mod:`structsvm.kernels._box_dual` with Q = K, p = 0, all signs +1
and Δ = νn.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, ClassVar

import numpy as np

from structsvm._utils.estimator import OutlierMixin
from structsvm._utils.validation import Interval, ParameterConstraints
from structsvm.kernels._box_dual import solve_box_dual
from structsvm.kernels._kernels import Kernel, LinearKernel
from structsvm.kernels._machine import KernelMachine, LinearWeights

BOUNDARY_ROUNDING = 1e-10
"""Fraction of the offset by which it is lowered, so that boundary points are inliers."""


class OneClassSVM(LinearWeights, OutlierMixin, KernelMachine):
    """The ν one-class SVM, an outlier detector, with any kernel.

    Trained by solving its dual QP with cvxopt through :func:`structsvm.qp.solve_qp`. At most a
    fraction ν of the training points are outliers (decision function < 0) and at least a
    fraction ν are support vectors.

    Parameters
    ----------
    nu : float, default=0.5
        ν in (0, 1]: an upper bound on the fraction of training outliers and a lower bound on
        the fraction of support vectors.
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, Kernel or callable, \
default="rbf"
        The kernel; see :class:`~structsvm.kernels.KernelMachine`.
    degree : int, default=3
        Degree p of the "poly" kernel ``(γ⟨x, z⟩ + r)^p``.
    gamma : float or "scale", default="scale"
        γ of the "poly", "rbf" and "sigmoid" kernels; "scale" means ``1 / (n_features · X.var())``.
    coef0 : float, default=0.0
        The offset r of the "poly" and "sigmoid" kernels.
    tol : float, default=1e-9
        Tolerance of the interior-point QP solver on the duality gap.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_support,)
        The coefficients ``a_i = νn·α_i`` of the support vectors, in (0, 1] and summing to νn,
        as scikit-learn's ``OneClassSVM.dual_coef_`` (whose shape is (1, n_support)).
    support_ : ndarray of int
        Indices of the support vectors (a_i > 0).
    support_vectors_ : inputs of the support vectors (None when kernel="precomputed")
    offset_ : float
        The offset νn·ρ, from the KKT conditions: the average of ``Σ_j a_j K_ji`` over the free
        support vectors (0 < a_i < 1), which lie on the boundary. Without free ones, points with
        a_i = 0 bound it from above and points with a_i = 1 from below, and it is the midpoint
        of the interval they leave, or its finite end (for ν = 1 every a_i is 1 and the offset
        is the largest score, so that no training point lies strictly inside). It is then
        lowered by a relative ``BOUNDARY_ROUNDING`` (1e-10): the free support vectors lie on
        the boundary, and rounding tips their decision values to either side of 0 by a few
        units in the last place, differently for different batches of inputs; lowered, they
        are inliers whichever way.
    intercept_ : float
        ``−offset_``.
    coef_ : ndarray of shape (n_features,)
        The weights ``w = Σ_i a_i x_i`` (linear kernel only; AttributeError otherwise).
    qp_status_ : str
        The QP solver's status ("optimal" or "unknown").

    Notes
    -----
    ``score_samples(X)`` is ``Σ_i a_i k(x_i, x)`` and ``decision_function(X)`` is
    ``score_samples(X) − offset_``, both as in scikit-learn. The interior-point solution of the
    dual is finished on its active set (:func:`~structsvm.kernels._box_dual.solve_box_dual`):
    each a_i is exactly 0, exactly 1 or strictly between, and the free ones solve the KKT
    conditions up to rounding (unless the problem is so degenerate that the linear systems of
    its active set are singular, as when, for the linear kernel, the origin is a convex
    combination of the inputs with weights at most 1/(νn) and w = 0; then the interior-point
    solution, with its multipliers set onto their bounds, is kept).

    scikit-learn's offset agrees up to the single precision of LIBSVM's kernel cache (a
    relative 1e-7 of the scores) whenever a free support vector fixes it, as it does when νn is
    no integer. When νn is an integer every a_i may be 0 or 1; LIBSVM's run then starts from
    one a_i = νn − ⌊νn⌋, which rounding can leave at about 1e-13 instead of 0, and takes that
    point's score as the offset: another point of the interval whose midpoint is used here.

    References
    ----------
    B. Schölkopf, J. C. Platt, J. Shawe-Taylor, A. J. Smola and R. C. Williamson, "Estimating the
    support of a high-dimensional distribution", Neural Computation 13(7), 2001.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        "nu": [Interval(Real, 0, 1, closed="right")],
        **KernelMachine._parameter_constraints,
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        nu: float = 0.5,
        kernel: str | Kernel | Any = "rbf",
        degree: int = 3,
        gamma: float | str = "scale",
        coef0: float = 0.0,
        tol: float = 1e-9,
    ) -> None:
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol

    def fit(self, X: Any, y: Any = None) -> OneClassSVM:
        """Fit to inputs X; y is ignored. Return self."""
        inputs, gram = self._fit_gram(X)
        n = len(gram)
        solution = solve_box_dual(
            gram, np.zeros(n), np.ones(n), 1.0, float(self.nu) * n, float(self.tol)
        )
        multipliers = solution.multipliers
        self.offset_ = solution.offset - BOUNDARY_ROUNDING * max(1.0, abs(solution.offset))
        support = np.flatnonzero(multipliers)
        self.dual_coef_ = multipliers[support]
        self.qp_status_ = solution.status
        self._weights = multipliers @ inputs if isinstance(self.kernel_, LinearKernel) else None
        self._store_expansion(inputs, n, support, multipliers, -self.offset_)
        return self

    def score_samples(self, X: Any) -> np.ndarray:
        """Return ``Σ_i a_i k(x_i, x)`` for every input in X (larger means more normal)."""
        return self._kernel_to_support(X) @ self._expansion_coef_

    def decision_function(self, X: Any) -> np.ndarray:
        """Return ``score_samples(X) − offset_``: positive inside the estimated support."""
        return self._expansion(X)

    def predict(self, X: Any) -> np.ndarray:
        """Return +1 for inliers (decision function >= 0) and −1 for outliers."""
        return np.where(self.decision_function(X) >= 0, 1, -1)
