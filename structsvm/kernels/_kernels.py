"""Kernels on vectors: Gram matrices, combinations, normalisation and a Mercer check.

A kernel ``k(x, z) = ⟨φ(x), φ(z)⟩`` is an inner product in some feature space. Every kernel here
is a :class:`Kernel` object; calling it on two collections of inputs returns their Gram matrix
``K[i, j] = k(A[i], B[j])``. Kernels combine by operators into new kernels: ``k1 + k2`` and
``k1 * k2`` (sum and pointwise product, both again kernels) and ``c * k`` for ``c > 0``
(Shawe-Taylor & Cristianini, *Kernel Methods for Pattern Analysis*, 2004, Proposition 3.22).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from structsvm._utils.validation import (
    check_feature_array,
    check_finite_float,
    check_positive_float,
    check_positive_int,
)


class Kernel:
    """Base class of kernels: ``kernel(A, B)`` is the Gram matrix of A against B.

    Subclasses implement ``_gram(A, B)`` on inputs already checked by ``check_input`` and may
    override ``diagonal`` with something cheaper than the full Gram matrix.
    """

    # NumPy arrays leave the arithmetic with a kernel to the kernel's operators, so that
    # ``array * kernel`` is refused as ``kernel * array`` is, not made an array of kernels.
    __array_ufunc__ = None

    def check_input(self, X: Any, name: str = "X") -> Any:
        """Return the inputs X in the form the kernel computes on, or raise naming ``name``."""
        raise NotImplementedError(f"{type(self).__name__} must implement check_input")

    def _gram(self, A: Any, B: Any) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} must implement _gram")

    def __call__(self, A: Any, B: Any | None = None) -> np.ndarray:
        """Return the Gram matrix ``K[i, j] = k(A[i], B[j])`` (B defaults to A).

        Parameters
        ----------
        A, B : inputs the kernel accepts (for vector kernels, arrays of shape (n, d) and (m, d))

        Returns
        -------
        ndarray of shape (len(A), len(B))
        """
        A = self.check_input(A, "A")
        B = A if B is None else self.check_input(B, "B")
        return self._checked_gram(A, B, "A" if B is A else "A and B")

    def _checked_gram(self, A: Any, B: Any, names: str) -> np.ndarray:
        """Return the Gram matrix of inputs that passed ``check_input``, finite.

        Raises ValueError naming the arguments, ``names`` (such as ``"A and B"``), if the
        inputs have different numbers of features or a kernel value is not finite.
        """
        if isinstance(A, np.ndarray) and isinstance(B, np.ndarray) and A.shape[1:] != B.shape[1:]:
            raise ValueError(
                f"{names} must have the same number of features, "
                f"got {A.shape[1:]} and {B.shape[1:]}"
            )
        gram = self._gram(A, B)
        if not np.all(np.isfinite(gram)):
            raise ValueError(
                f"the kernel values of {names} are not finite: the values of {names} are too "
                "large for this kernel; scale them"
            )
        return gram

    def diagonal(self, A: Any) -> np.ndarray:
        """Return ``k(a, a)`` for every input a in A."""
        A = self.check_input(A, "A")
        return np.array([self._gram(A[i : i + 1], A[i : i + 1])[0, 0] for i in range(len(A))])

    def __add__(self, other: Kernel) -> Kernel:
        if not isinstance(other, Kernel):
            return NotImplemented
        return SumKernel(self, other)

    def __mul__(self, other: Kernel | float) -> Kernel:
        if isinstance(other, Kernel):
            return ProductKernel(self, other)
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return ScaledKernel(self, other)
        raise TypeError(
            f"a kernel multiplies a kernel or a positive number (a factor), "
            f"got {type(other).__name__}"
        )

    __rmul__ = __mul__

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={value!r}" for key, value in vars(self).items())
        return f"{type(self).__name__}({fields})"


class VectorKernel(Kernel):
    """A kernel on real vectors: inputs are 2-D arrays, one example per row."""

    def check_input(self, X: Any, name: str = "X") -> np.ndarray:
        return check_feature_array(X, name, ndim=2, n_features=None)


class LinearKernel(VectorKernel):
    """The linear kernel ``k(x, z) = ⟨x, z⟩``."""

    def _gram(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return A @ B.T

    def diagonal(self, A: Any) -> np.ndarray:
        A = self.check_input(A, "A")
        return np.einsum("ij,ij->i", A, A)


class PolynomialKernel(VectorKernel):
    """The polynomial kernel ``k(x, z) = (γ⟨x, z⟩ + r)^p``.

    Parameters
    ----------
    degree : int, default=2
        The power p (>= 1).
    gamma : float, default=1.0
        Scale γ > 0 of the inner product.
    coef0 : float, default=1.0
        The offset r. For r >= 0 the kernel is positive semi-definite; r = 0 gives the
        homogeneous kernel, whose features are the monomials of degree exactly p.
    """

    def __init__(self, degree: int = 2, gamma: float = 1.0, coef0: float = 1.0) -> None:
        self.degree = check_positive_int(degree, "degree")
        self.gamma = check_positive_float(gamma, "gamma")
        self.coef0 = check_finite_float(coef0, "coef0")

    def _gram(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return (self.gamma * (A @ B.T) + self.coef0) ** self.degree

    def diagonal(self, A: Any) -> np.ndarray:
        A = self.check_input(A, "A")
        return (self.gamma * np.einsum("ij,ij->i", A, A) + self.coef0) ** self.degree


class RBFKernel(VectorKernel):
    """The Gaussian (radial basis function) kernel ``k(x, z) = exp(−γ‖x − z‖²)``.

    Parameters
    ----------
    gamma : float, default=1.0
        The width parameter γ > 0.
    """

    def __init__(self, gamma: float = 1.0) -> None:
        self.gamma = check_positive_float(gamma, "gamma")

    def _gram(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        norms_a, norms_b = np.einsum("ij,ij->i", A, A), np.einsum("ij,ij->i", B, B)
        squared = norms_a[:, None] + norms_b[None, :] - 2 * A @ B.T
        return np.exp(-self.gamma * np.maximum(squared, 0.0))

    def diagonal(self, A: Any) -> np.ndarray:
        return np.ones(len(self.check_input(A, "A")))


class SigmoidKernel(VectorKernel):
    """The sigmoid kernel ``k(x, z) = tanh(γ⟨x, z⟩ + r)``.

    It is not positive semi-definite for many choices of γ and r (for instance whenever
    ``γ‖x‖² + r < 0`` for some x, since then k(x, x) < 0); :func:`check_mercer` tells.

    Parameters
    ----------
    gamma : float, default=1.0
        Scale γ > 0 of the inner product.
    coef0 : float, default=0.0
        The offset r.
    """

    def __init__(self, gamma: float = 1.0, coef0: float = 0.0) -> None:
        self.gamma = check_positive_float(gamma, "gamma")
        self.coef0 = check_finite_float(coef0, "coef0")

    def _gram(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return np.tanh(self.gamma * (A @ B.T) + self.coef0)

    def diagonal(self, A: Any) -> np.ndarray:
        A = self.check_input(A, "A")
        return np.tanh(self.gamma * np.einsum("ij,ij->i", A, A) + self.coef0)


class CallableKernel(VectorKernel):
    """A kernel on real vectors given as a function ``f(A, B)`` returning the Gram matrix.

    Parameters
    ----------
    function : callable
        Takes arrays of shape (n, d) and (m, d) and returns an array of shape (n, m).
    """

    def __init__(self, function: Any) -> None:
        if not callable(function):
            raise TypeError(f"function must be callable, got {type(function).__name__}")
        self.function = function

    def _gram(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        gram = np.asarray(self.function(A, B), dtype=np.float64)
        if gram.shape != (len(A), len(B)):
            raise ValueError(
                f"the kernel function returned shape {gram.shape}, expected {(len(A), len(B))}"
            )
        return gram


class _CombinedKernel(Kernel):
    """A kernel built from two others; inputs must suit both."""

    def __init__(self, first: Kernel, second: Kernel) -> None:
        self.first = first
        self.second = second

    def check_input(self, X: Any, name: str = "X") -> Any:
        return self.second.check_input(self.first.check_input(X, name), name)


class SumKernel(_CombinedKernel):
    """The sum ``k₁(x, z) + k₂(x, z)``: the kernel of the concatenated feature maps."""

    def _gram(self, A: Any, B: Any) -> np.ndarray:
        return self.first._gram(A, B) + self.second._gram(A, B)

    def diagonal(self, A: Any) -> np.ndarray:
        A = self.check_input(A, "A")
        return self.first.diagonal(A) + self.second.diagonal(A)


class ProductKernel(_CombinedKernel):
    """The product ``k₁(x, z) · k₂(x, z)``: the kernel of the tensor product of feature maps."""

    def _gram(self, A: Any, B: Any) -> np.ndarray:
        return self.first._gram(A, B) * self.second._gram(A, B)

    def diagonal(self, A: Any) -> np.ndarray:
        A = self.check_input(A, "A")
        return self.first.diagonal(A) * self.second.diagonal(A)


class ScaledKernel(Kernel):
    """A positive multiple ``c · k(x, z)`` of a kernel (c > 0)."""

    def __init__(self, kernel: Kernel, factor: float) -> None:
        self.kernel = kernel
        self.factor = check_positive_float(factor, "factor")

    def check_input(self, X: Any, name: str = "X") -> Any:
        return self.kernel.check_input(X, name)

    def _gram(self, A: Any, B: Any) -> np.ndarray:
        return self.factor * self.kernel._gram(A, B)

    def diagonal(self, A: Any) -> np.ndarray:
        return self.factor * self.kernel.diagonal(A)


class NormalizedKernel(Kernel):
    """The normalised kernel ``k(x, z) / √(k(x, x) k(z, z))``: the cosine of the feature vectors.

    Every input then has unit norm in feature space, so long and short inputs weigh alike.

    Parameters
    ----------
    kernel : Kernel
        The kernel to normalise; every input must have ``k(x, x) > 0``.
    """

    def __init__(self, kernel: Kernel) -> None:
        _check_kernel(kernel)
        self.kernel = kernel

    def check_input(self, X: Any, name: str = "X") -> Any:
        X = self.kernel.check_input(X, name)
        if np.any(self.kernel.diagonal(X) <= 0):
            raise ValueError(f"{name} has an input x with k(x, x) <= 0; it cannot be normalised")
        return X

    def _gram(self, A: Any, B: Any) -> np.ndarray:
        norms_a = np.sqrt(self.kernel.diagonal(A))
        norms_b = norms_a if B is A else np.sqrt(self.kernel.diagonal(B))
        return self.kernel._gram(A, B) / np.outer(norms_a, norms_b)

    def diagonal(self, A: Any) -> np.ndarray:
        return np.ones(len(self.check_input(A, "A")))


def gram_matrix(kernel: Kernel, A: Any, B: Any | None = None) -> np.ndarray:
    """Return the Gram matrix ``K[i, j] = k(A[i], B[j])`` (B defaults to A).

    Parameters
    ----------
    kernel : Kernel
    A, B : inputs the kernel accepts

    Returns
    -------
    ndarray of shape (len(A), len(B))
    """
    _check_kernel(kernel)
    return kernel(A, B)


def _check_kernel(kernel: Any) -> None:
    """Raise TypeError unless ``kernel`` is a :class:`Kernel` object."""
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be a Kernel, got {type(kernel).__name__}")


def feature_space_distance(kernel: Kernel, A: Any, B: Any | None = None) -> np.ndarray:
    """Return ``‖φ(a) − φ(b)‖ = √(k(a, a) − 2k(a, b) + k(b, b))`` for every pair.

    Parameters
    ----------
    kernel : Kernel
    A, B : inputs the kernel accepts (B defaults to A)

    Returns
    -------
    ndarray of shape (len(A), len(B))
        Round-off below zero under the root is clipped to zero.
    """
    _check_kernel(kernel)
    A = kernel.check_input(A, "A")
    B = A if B is None else kernel.check_input(B, "B")
    gram = kernel._checked_gram(A, B, "A" if B is A else "A and B")
    squared = kernel.diagonal(A)[:, None] - 2 * gram + kernel.diagonal(B)
    return np.sqrt(np.maximum(squared, 0.0))


@dataclass
class MercerReport:
    """Whether a Gram matrix is a valid kernel matrix (symmetric positive semi-definite).

    Attributes
    ----------
    symmetric : bool
        ``max |K − Kᵀ| <= tol · scale``.
    max_asymmetry : float
        ``max |K[i, j] − K[j, i]|``.
    min_eigenvalue : float
        Smallest eigenvalue of the symmetric part ``(K + Kᵀ) / 2``.
    max_eigenvalue : float
        Largest eigenvalue of the symmetric part.
    positive_semidefinite : bool
        Symmetric and ``min_eigenvalue >= −tol · scale``, where scale is ``max(1, max |λ|)``.
    """

    symmetric: bool
    max_asymmetry: float
    min_eigenvalue: float
    max_eigenvalue: float
    positive_semidefinite: bool


def check_mercer(kernel: Kernel, X: Any, tol: float = 1e-10) -> MercerReport:
    """Check Mercer's condition on a sample: is the Gram matrix of X symmetric and PSD?

    A function is a kernel exactly when every finite Gram matrix it forms is symmetric positive
    semi-definite; a negative eigenvalue on one sample proves it is not a kernel.

    Parameters
    ----------
    kernel : Kernel
    X : inputs the kernel accepts
        The sample whose Gram matrix is checked.
    tol : float, default=1e-10
        Relative tolerance for round-off in symmetry and eigenvalues.

    Returns
    -------
    MercerReport
    """
    tol = check_positive_float(tol, "tol")
    _check_kernel(kernel)
    X = kernel.check_input(X, "X")
    gram = kernel._checked_gram(X, X, "X")
    if len(gram) == 0:
        raise ValueError("X is empty: check_mercer needs at least one input")
    try:
        eigenvalues = np.linalg.eigvalsh(0.5 * (gram + gram.T))
    except np.linalg.LinAlgError as error:
        raise ValueError(
            f"the Gram matrix of X has no computable eigenvalues ({error}); scale X"
        ) from None
    scale = max(1.0, float(np.abs(eigenvalues).max(initial=0.0)))
    max_asymmetry = float(np.abs(gram - gram.T).max(initial=0.0))
    symmetric = max_asymmetry <= tol * scale
    return MercerReport(
        symmetric=symmetric,
        max_asymmetry=max_asymmetry,
        min_eigenvalue=float(eigenvalues[0]),
        max_eigenvalue=float(eigenvalues[-1]),
        positive_semidefinite=symmetric and bool(eigenvalues[0] >= -tol * scale),
    )
