"""ε-insensitive support vector regression, trained by its dual quadratic program.

Support vector regression (Smola & Schölkopf, "A tutorial on support vector regression",
Statistics and Computing 14, 2004) fits ``f(x) = ⟨w, φ(x)⟩ + b`` by the primal problem

    min_{w, b}  ½‖w‖² + C Σ_i max(0, |y_i − f(x_i)| − ε),

which ignores residuals up to ε. Its Lagrange dual, in minimisation form, is

    min_{α, α*}  ½(α − α*)ᵀK(α − α*) + ε Σ_i (α_i + α*_i) − Σ_i y_i (α_i − α*_i)
    s.t.  0 <= α_i, α*_i <= C,  Σ_i (α_i − α*_i) = 0,

and at its optimum ``w = Σ_i (α_i − α*_i) φ(x_i)``. Stacking β = (α, α*) gives the box dual of
:mod:`structsvm.kernels._box_dual` with ``Q = [[K, −K], [−K, K]]``, ``p = (ε − y, ε + y)`` and
signs ``z = (+1, …, +1, −1, …, −1)``; its offset ρ is −b.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, ClassVar

import numpy as np

from structsvm._utils.estimator import RegressorMixin
from structsvm._utils.validation import (
    Interval,
    ParameterConstraints,
    check_consistent_length,
    check_real_targets,
)
from structsvm.kernels._box_dual import solve_box_dual
from structsvm.kernels._kernels import Kernel, LinearKernel
from structsvm.kernels._machine import KernelMachine, LinearWeights


class SVR(LinearWeights, RegressorMixin, KernelMachine):
    """ε-insensitive support vector regression with any kernel.

    Trained by solving the dual QP with cvxopt through :func:`structsvm.qp.solve_qp` and
    finishing on its active set.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the penalty ``C Σ max(0, |y_i − f(x_i)| − ε)`` on residuals beyond ε.
    epsilon : float, default=0.1
        Half-width ε >= 0 of the tube inside which residuals cost nothing.
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
        The coefficients ``α_i − α*_i`` of the support vectors, within [−C, C]. scikit-learn's
        ``SVR.dual_coef_`` holds the same numbers with shape (1, n_support).
    support_ : ndarray of int
        Indices of the support vectors (``α_i − α*_i ≠ 0``).
    support_vectors_ : inputs of the support vectors (None when kernel="precomputed")
    intercept_ : float
        The offset b, from the KKT conditions: a free ``α_i`` (0 < α_i < C) puts point i on the
        upper edge of the tube, ``b = y_i − Σ_j (α_j − α*_j) K_ji − ε``, a free ``α*_i`` on the
        lower edge, ``b = y_i − Σ_j (α_j − α*_j) K_ji + ε``; these values are averaged. Without
        free multipliers, each point only bounds b from one side (inside the tube, on it or
        beyond it as its multipliers say), and b is the midpoint of the interval they leave.
    coef_ : ndarray of shape (n_features,)
        The weights w (linear kernel only; AttributeError otherwise).
    qp_status_ : str
        The QP solver's status ("optimal" or "unknown").

    Notes
    -----
    ``predict(X)`` returns ``f(x) = Σ_i (α_i − α*_i) k(x_i, x) + b``. The interior-point
    solution of the dual is finished on its active set
    (:func:`~structsvm.kernels._box_dual.solve_box_dual`): each α_i and α*_i is exactly 0,
    exactly C or strictly between, at most one of each pair is positive, and the free ones solve
    the KKT conditions up to rounding (unless the problem is so degenerate that the linear
    systems of its active set are singular; then the interior-point solution, with its
    multipliers set onto their bounds, is kept). scikit-learn's b follows the same rule from
    kernel values that LIBSVM caches in single precision, so it agrees to about a relative 1e-7
    of the kernel sums.

    References
    ----------
    A. J. Smola and B. Schölkopf, "A tutorial on support vector regression", Statistics and
    Computing 14(3), 2004.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        **KernelMachine._parameter_constraints,
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        C: float = 1.0,
        epsilon: float = 0.1,
        kernel: str | Kernel | Any = "rbf",
        degree: int = 3,
        gamma: float | str = "scale",
        coef0: float = 0.0,
        tol: float = 1e-9,
    ) -> None:
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol

    def fit(self, X: Any, y: Any) -> SVR:
        """Fit to inputs X and real targets y of shape (n_samples,); return self."""
        inputs, gram = self._fit_gram(X)
        check_consistent_length(gram, y)
        targets = check_real_targets(y)
        C, epsilon = float(self.C), float(self.epsilon)
        n = len(targets)
        signs = np.r_[np.ones(n), -np.ones(n)]
        Q = np.block([[gram, -gram], [-gram, gram]])
        linear = np.r_[epsilon - targets, epsilon + targets]
        solution = solve_box_dual(Q, linear, signs, C, 0.0, float(self.tol), paired=True)
        coef = solution.multipliers[:n] - solution.multipliers[n:]
        support = np.flatnonzero(coef)
        self.dual_coef_ = coef[support]
        self.qp_status_ = solution.status
        self._weights = coef @ inputs if isinstance(self.kernel_, LinearKernel) else None
        self._store_expansion(inputs, n, support, coef, -solution.offset)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Return ``f(x) = Σ_i (α_i − α*_i) k(x_i, x) + b`` for every input in X."""
        return self._expansion(X)
