"""What estimators that see their inputs only through a kernel share.

Such an estimator predicts with a kernel expansion ``f(x) = Σ_{i ∈ S} c_i k(x_i, x) + b`` over a
set S of training inputs (its support). :class:`KernelMachine` validates the hyper-parameters,
turns ``kernel``, ``degree``, ``gamma`` and ``coef0`` into a :class:`~structsvm.kernels.Kernel`,
computes the training Gram matrix, stores the expansion and evaluates it.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np

from structsvm._utils.estimator import BaseEstimator, ClassifierMixin, check_is_fitted
from structsvm._utils.validation import (
    Callables,
    InstancesOf,
    Interval,
    Options,
    ParameterConstraints,
    errors_naming,
    take,
    validate_parameters,
)
from structsvm.kernels._kernels import (
    CallableKernel,
    Kernel,
    LinearKernel,
    PolynomialKernel,
    RBFKernel,
    SigmoidKernel,
)

KERNEL_NAMES = ("linear", "poly", "rbf", "sigmoid", "precomputed")


class KernelMachine(BaseEstimator):
    """Base of kernel estimators: kernel hyper-parameters and the kernel expansion.

    Subclasses store ``kernel``, ``degree``, ``gamma`` and ``coef0`` in ``__init__``, declare
    their other hyper-parameters in a ``_parameter_constraints`` table merged with this class's
    (see :mod:`structsvm._utils.validation`), call :meth:`_fit_gram` first in ``fit`` (it
    validates every hyper-parameter of the table) and :meth:`_store_expansion` once the
    coefficients are known.

    The hyper-parameters mean:

    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, Kernel or callable
        A name of a vector kernel; a :class:`~structsvm.kernels.Kernel` object (which also
        admits non-vector inputs such as strings); a function ``f(A, B)`` returning the Gram
        matrix of two arrays; or "precomputed", when ``fit`` receives the training Gram matrix
        of shape (n, n) and prediction the matrix of shape (m, n) of test against training inputs.
    degree, gamma, coef0
        Parameters of the named kernels: poly ``(γ⟨x, z⟩ + r)^p``, rbf ``exp(−γ‖x − z‖²)``,
        sigmoid ``tanh(γ⟨x, z⟩ + r)``, with p = degree and r = coef0. gamma="scale" takes
        ``γ = 1 / (n_features · X.var())`` from the training inputs.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        "kernel": [
            Options(*KERNEL_NAMES),
            InstancesOf(Kernel, "a structsvm Kernel"),
            Callables(),
        ],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="neither"), Options("scale")],
        "coef0": [Interval(Real, None, None, closed="neither")],
    }

    kernel: str | Kernel | Any
    degree: int
    gamma: float | str
    coef0: float

    def _resolve_kernel(self, X: np.ndarray) -> Kernel:
        """Return the kernel the (validated) hyper-parameters name, other than "precomputed"."""
        kernel = self.kernel
        if isinstance(kernel, Kernel):
            return kernel
        if callable(kernel):
            return CallableKernel(kernel)
        if kernel == "linear":
            return LinearKernel()
        gamma = self._resolve_gamma(X)
        if kernel == "rbf":
            return RBFKernel(gamma)
        if kernel == "poly":
            return PolynomialKernel(self.degree, gamma, self.coef0)
        return SigmoidKernel(gamma, self.coef0)

    def _resolve_gamma(self, X: np.ndarray) -> float:
        if isinstance(self.gamma, str):  # "scale", the only name allowed
            variance = float(X.var())
            if not np.isfinite(variance):
                raise ValueError(
                    "X is too large for gamma='scale': the variance of its values overflows; "
                    "scale X or give gamma a number"
                )
            return 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0
        return float(self.gamma)

    def _check_inputs(self, X: Any) -> Any:
        """Return X checked by the kernel object, or as a float array for the named kernels."""
        return (
            self.kernel.check_input(X, "X")
            if isinstance(self.kernel, Kernel)
            else _check_vectors(X)
        )

    def _fit_gram(self, X: Any) -> tuple[Any, np.ndarray]:
        """Validate the hyper-parameters and the training inputs, fix ``kernel_``.

        Returns
        -------
        inputs : the checked training inputs (None for kernel="precomputed")
        gram : ndarray of shape (n_samples, n_samples)
            Their Gram matrix.

        Raises
        ------
        InvalidParameterError
            If a hyper-parameter breaks the class's ``_parameter_constraints`` table.
        """
        validate_parameters(self)
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            gram = _check_vectors(X)
            if gram.shape[0] != gram.shape[1]:
                raise ValueError(
                    f"X must be the square training Gram matrix for kernel='precomputed', "
                    f"got shape {gram.shape}"
                )
            self.kernel_ = None
            return None, gram
        inputs = self._check_inputs(X)
        self.kernel_ = self._resolve_kernel(inputs)
        if isinstance(inputs, np.ndarray):
            self.n_features_in_ = inputs.shape[1]
        with errors_naming("X"):
            return inputs, self.kernel_._checked_gram(inputs, inputs, "X")

    def _store_expansion(
        self, inputs: Any, n_samples: int, support: np.ndarray, coef: np.ndarray, intercept: float
    ) -> None:
        """Keep the support inputs and the coefficients ``c_i`` of the kernel expansion."""
        vars(self).update(expansion_attributes(inputs, n_samples, support, coef, intercept))

    def _kernel_to_support(self, X: Any) -> np.ndarray:
        """Return the kernel values ``k(x_i, x)`` of every input x in X against the support."""
        check_is_fitted(self, "_expansion_coef_")
        if self.kernel_ is None:
            gram = _check_vectors(X)
            if gram.shape[1] != self._n_fit_samples_:
                raise ValueError(
                    f"X has {gram.shape[1]} columns, expected one per training example "
                    f"({self._n_fit_samples_}) for kernel='precomputed'"
                )
            return gram[:, self.support_]
        X = self._check_inputs(X)
        if isinstance(X, np.ndarray) and X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input"
            )
        with errors_naming("X"):
            return self.kernel_._checked_gram(X, self.support_vectors_, "X")

    def _expansion(self, X: Any) -> np.ndarray:
        """Return ``f(x) = Σ_{i ∈ support} c_i k(x_i, x) + b`` for every input x in X."""
        return self._kernel_to_support(X) @ self._expansion_coef_ + self.intercept_


class LinearWeights:
    """The ``coef_`` of a kernel machine: its weights w in input space, for the linear kernel.

    For the linear kernel the expansion is ``⟨w, x⟩ + b`` with ``w = Σ_i c_i x_i``; ``fit`` stores
    w in ``_weights`` (None for other kernels).
    """

    _weights: np.ndarray | None

    @property
    def coef_(self) -> np.ndarray:
        """The weight vector w (linear kernel only)."""
        if getattr(self, "_weights", None) is None:
            raise AttributeError(
                f"coef_ exists only for a fitted {type(self).__name__} with kernel='linear'"
            )
        return self._weights


class BinaryKernelClassifier(ClassifierMixin, KernelMachine):
    """A two-class kernel machine: the sign of the kernel expansion picks one of ``classes_``.

    Subclasses set ``classes_`` (two labels, ``classes_[1]`` the positive one) in ``fit``.
    """

    classes_: np.ndarray

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def decision_function(self, X: Any) -> np.ndarray:
        """Return the kernel expansion f(x) for every input; positive means ``classes_[1]``."""
        return self._expansion(X)

    def predict(self, X: Any) -> np.ndarray:
        """Return the predicted label of every input in X."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def signed_labels(self, y: Any) -> np.ndarray:
        """Return labels y as ±1 (+1 for ``classes_[1]``); raise ValueError for unknown labels."""
        check_is_fitted(self, "classes_")
        y = np.asarray(y)
        unknown = ~np.isin(y, self.classes_)
        if np.any(unknown):
            raise ValueError(f"y holds labels not seen in fit: {np.unique(y[unknown])}")
        return np.where(y == self.classes_[1], 1.0, -1.0)


def _check_vectors(X: Any) -> np.ndarray:
    """Return X as a dense, finite, non-empty 2-D float64 array (errors name X)."""
    # Imported here: scikit-learn's validation brings in much of scikit-learn.
    from sklearn.utils.validation import check_array

    with errors_naming("X"):
        return check_array(X, dtype=np.float64, input_name="X")


def expansion_attributes(
    inputs: Any, n_samples: int, support: np.ndarray, coef: np.ndarray, intercept: float
) -> dict[str, Any]:
    """Return the fitted attributes of a kernel expansion ``Σ_{i ∈ support} c_i k(x_i, ·) + b``."""
    return {
        "support_": support,
        "support_vectors_": None if inputs is None else take(inputs, support),
        "intercept_": float(intercept),
        "_expansion_coef_": coef[support],
        "_n_fit_samples_": n_samples,
    }
