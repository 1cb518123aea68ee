"""The arc-cosine kernels of Cho & Saul: infinite random networks of threshold-type units.

For degree n the kernel is the inner product of the hidden layers of a network with infinitely
many units ``Θ(w·x)(w·x)^n`` and Gaussian weights w ~ N(0, I),

    k_n(x, y) = 2 ∫ dw e^{−‖w‖²/2} (2π)^{−d/2} Θ(w·x) Θ(w·y) (w·x)^n (w·y)^n
              = (1/π) ‖x‖^n ‖y‖^n J_n(θ),

with θ the angle between x and y and

    J_0(θ) = π − θ,
    J_1(θ) = sin θ + (π − θ) cos θ,
    J_2(θ) = 3 sin θ cos θ + (π − θ)(1 + 2 cos² θ).

The units are the step function (n = 0), the ramp max(0, z) (n = 1) and the quarter-pipe
max(0, z)² (n = 2). Stacking ℓ such layers gives the kernel of depth ℓ: the same formula applied
to the previous layer's kernel values, with ``‖x‖² = k(x, x)`` and
``cos θ = k(x, y) / √(k(x, x) k(y, y))``.

Θ(z) = ½(1 + sign z), so a zero input sits at the angle π/2 to every input, itself included.
For n >= 1 its units all output 0, and its kernel values vanish at every depth. For n = 0 its
units all output ½: its first-layer kernel values are ½, and deeper layers see a nonzero vector (at
depth 2, k(0, 0) = 1 and k(0, y) = ¾ for y ≠ 0).
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from structsvm._utils.validation import Interval, check_positive_int, check_value
from structsvm.kernels._kernels import VectorKernel

# Pairs of inputs whose |cos θ| exceeds this get their angle from the differences of the unit
# vectors: arccos would turn a round-off ε in cos θ near ±1 into an error √(2ε) in θ.
_NEAR_PARALLEL = 1.0 - 1e-4
# Pairs handled at once by that correction, bounding its memory to this many rows of inputs.
_PAIRS_PER_CHUNK = 4096


def _angular_part(degree: int, theta: np.ndarray) -> np.ndarray:
    """Return J_n(θ)."""
    cosine, sine = np.cos(theta), np.sin(theta)
    if degree == 0:
        return np.pi - theta
    if degree == 1:
        return sine + (np.pi - theta) * cosine
    return 3.0 * sine * cosine + (np.pi - theta) * (1.0 + 2.0 * cosine**2)


def _layer(
    degree: int, theta: np.ndarray, squares_a: np.ndarray, squares_b: np.ndarray
) -> np.ndarray:
    """Return ``(1/π) (k(a, a) k(b, b))^{n/2} J_n(θ)`` from the previous layer's values.

    ``squares_a`` and ``squares_b`` are the previous ``k(a, a)`` and ``k(b, b)`` (squared norms
    in its feature space) and θ the angle there; all three broadcast against each other.
    """
    return np.sqrt(squares_a * squares_b) ** degree * _angular_part(degree, theta) / np.pi


def _kernel_angle(cross: np.ndarray, squares_a: np.ndarray, squares_b: np.ndarray) -> np.ndarray:
    """Return the angle θ with ``cos θ = k(a, b) / √(k(a, a) k(b, b))``, clipped to [−1, 1].

    Where a norm is zero the angle is π/2, as Θ(0) = ½ makes it.
    """
    norms = np.sqrt(squares_a * squares_b)
    shape = np.broadcast(cross, norms).shape
    cosine = np.divide(cross, norms, out=np.zeros(shape), where=norms > 0)
    return np.arccos(np.clip(cosine, -1.0, 1.0))


def _input_angles(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Return the angles between the rows of A and of B (π/2 against a zero row).

    Nearly parallel or opposite pairs take ``θ = 2 atan2(‖â − b̂‖, ‖â + b̂‖)``, exact to
    round-off in θ itself, so that equal rows are at angle 0 exactly.
    """
    unit_a, unit_b = _unit_rows(A), _unit_rows(B)
    cosine = np.clip(unit_a @ unit_b.T, -1.0, 1.0)
    theta = np.arccos(cosine)
    rows, columns = np.nonzero(np.abs(cosine) > _NEAR_PARALLEL)
    for start in range(0, len(rows), _PAIRS_PER_CHUNK):
        i, j = rows[start : start + _PAIRS_PER_CHUNK], columns[start : start + _PAIRS_PER_CHUNK]
        difference = np.linalg.norm(unit_a[i] - unit_b[j], axis=1)
        total = np.linalg.norm(unit_a[i] + unit_b[j], axis=1)
        theta[i, j] = 2.0 * np.arctan2(difference, total)
    return theta


def _unit_rows(X: np.ndarray) -> np.ndarray:
    """Return the rows of X divided by their norms; zero rows stay zero."""
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)


class ArcCosineKernel(VectorKernel):
    """The arc-cosine kernel of degree n and depth ℓ (Cho & Saul, 2009).

    ``k(x, y) = (1/π) ‖x‖^n ‖y‖^n J_n(θ)``, the kernel of an infinitely wide layer of random
    units ``max(0, w·x)^n`` (the step for n = 0, the rectifier for n = 1), composed ℓ times for
    a deep network. It is positive semi-definite for every degree and depth. Degree 0 depends
    only on the angle (``k_0 = 1 − θ/π``); degree n >= 1 at depth ℓ scales like
    ``‖x‖^m ‖y‖^m`` with ``m = n^ℓ`` (1 for the rectifier at every depth, 2^ℓ for degree 2), so
    inputs on a common scale (for instance standardised) suit it, and deep kernels of degree 2
    overflow for inputs far from unit norm.

    Parameters
    ----------
    degree : {0, 1, 2}, default=1
        The degree n of the units.
    depth : int, default=1
        The number ℓ >= 1 of layers.

    Raises
    ------
    ValueError
        If ``degree`` is not the integer 0, 1 or 2, or ``depth`` not an integer >= 1; the
        message names the argument.

    Examples
    --------
    Degree 0 is ``1 − θ/π``: 1 at angle 0, ½ at a right angle, 0 at opposite vectors.

    >>> from structsvm import ArcCosineKernel
    >>> ArcCosineKernel(degree=0)([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    array([[1. , 0.5, 0. ]])

    References
    ----------
    Y. Cho and L. K. Saul, "Kernel methods for deep learning", Advances in Neural Information
    Processing Systems 22 (NIPS 2009), pp. 342-350.
    """

    def __init__(self, degree: int = 1, depth: int = 1) -> None:
        check_value(degree, "degree", [Interval(Integral, 0, 2, closed="both")])
        self.degree = int(degree)
        self.depth = check_positive_int(depth, "depth")

    def _gram(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        squares_a = np.einsum("ij,ij->i", A, A)[:, None]
        squares_b = np.einsum("ij,ij->i", B, B)[None, :]
        theta = _input_angles(A, B)
        for _ in range(self.depth - 1):
            cross = _layer(self.degree, theta, squares_a, squares_b)
            squares_a, squares_b = self._next_squares(squares_a), self._next_squares(squares_b)
            theta = _kernel_angle(cross, squares_a, squares_b)
        return _layer(self.degree, theta, squares_a, squares_b)

    def diagonal(self, A: Any) -> np.ndarray:
        A = self.check_input(A, "A")
        squares = np.einsum("ij,ij->i", A, A)
        for _ in range(self.depth):
            squares = self._next_squares(squares)
        return squares

    def _next_squares(self, squares: np.ndarray) -> np.ndarray:
        """Return the next layer's ``k(x, x)`` from this layer's (angle 0, or π/2 if zero)."""
        return _layer(self.degree, _kernel_angle(squares, squares, squares), squares, squares)
