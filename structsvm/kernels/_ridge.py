"""Kernel ridge regression: least squares with a squared-norm penalty, in dual form.

Ridge regression minimises ``‖y − Φw‖² + λ‖w‖²``. Its solution lies in the span of the
training features, ``w = Φᵀa``, with ``a = (K + λI)⁻¹ y`` for the Gram matrix ``K = ΦΦᵀ``, so
predictions ``f(x) = Σ_i a_i k(x_i, x)`` need only the kernel (Saunders, Gammerman & Vovk,
"Ridge regression learning algorithm in dual variables", ICML 1998).
"""

from __future__ import annotations

from numbers import Real
from typing import Any, ClassVar

import numpy as np

from structsvm._utils.estimator import RegressorMixin
from structsvm._utils.validation import Interval, ParameterConstraints, check_consistent_length
from structsvm.kernels._kernels import Kernel
from structsvm.kernels._machine import KernelMachine


class KernelRidge(RegressorMixin, KernelMachine):
    """Kernel ridge regression, ``a = (K + λI)⁻¹ y``.

    There is no offset: centre y (and, for the linear kernel, X) first if the data need one.

    Parameters
    ----------
    alpha : float, default=1.0
        The regularisation weight λ > 0.
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, Kernel or callable, \
default="linear"
        The kernel; see :class:`~structsvm.kernels._machine.KernelMachine`.
    degree, gamma, coef0
        Parameters of the named kernels, as in :class:`~structsvm.BinarySVM`.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The dual coefficients a.
    support_ : ndarray of int
        All training indices (every example enters the expansion).
    support_vectors_ : the training inputs (None when kernel="precomputed")
    intercept_ : float
        Always 0.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        "alpha": [Interval(Real, 0, None, closed="neither")],
        **KernelMachine._parameter_constraints,
    }

    def __init__(
        self,
        *,
        alpha: float = 1.0,
        kernel: str | Kernel | Any = "linear",
        degree: int = 3,
        gamma: float | str = "scale",
        coef0: float = 0.0,
    ) -> None:
        self.alpha = alpha
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0

    def fit(self, X: Any, y: Any) -> KernelRidge:
        """Fit to inputs X and real targets y of shape (n,) or (n, n_targets); return self."""
        # Imported here: scipy.linalg costs about 8 MB, which most fits do not need.
        from scipy.linalg import solve

        inputs, gram = self._fit_gram(X)
        check_consistent_length(gram, y)
        try:
            targets = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"y must hold real numbers: {error}") from None
        if targets.ndim not in (1, 2) or not np.all(np.isfinite(targets)):
            raise ValueError(f"y must be a finite 1-D or 2-D array, got shape {targets.shape}")
        n = len(targets)
        try:
            self.dual_coef_ = solve(gram + self.alpha * np.eye(n), targets, assume_a="sym")
        except np.linalg.LinAlgError as error:
            raise ValueError(
                f"the kernel matrix of X plus alpha·I is singular to working precision "
                f"({error}): the kernel values of X dwarf alpha={self.alpha:g}; scale X or "
                "raise alpha"
            ) from error
        self._store_expansion(inputs, n, np.arange(n), self.dual_coef_, 0.0)
        return self

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def predict(self, X: Any) -> np.ndarray:
        """Return ``f(x) = Σ_i a_i k(x_i, x)`` for every input in X."""
        return self._expansion(X)
