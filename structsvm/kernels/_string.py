"""The all-subsequences string kernel, computed by a compiled dynamic program.

The feature map of a string s has one coordinate per string u: the number of index sets
``i₁ < … < i_k`` with ``s[i₁] … s[i_k] = u`` (the occurrences of u as a subsequence, gaps
allowed). The kernel ``K(s, t)`` is then the number of pairs of equal subsequences of s and t,
the empty subsequence included, so ``K(s, t) >= 1``. Shawe-Taylor & Cristianini, *Kernel
Methods for Pattern Analysis* (2004), Section 11.3, give the recursion used here::

    K(s, ε) = K(ε, t) = 1
    K(sa, t) = K(s, t) + Σ_{j : t_j = a} K(s, t[:j])

which a running sum over j evaluates in O(|s|·|t|) time and O(|t|) memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numba
import numpy as np

from structsvm.kernels._kernels import Kernel


@numba.njit(cache=True)
def _all_subsequences(s: np.ndarray, t: np.ndarray) -> float:
    """K(s, t) for integer code arrays s and t."""
    previous = np.ones(len(t) + 1)  # previous[j] = K(s[:i-1], t[:j])
    current = np.ones(len(t) + 1)
    for i in range(len(s)):
        running = 0.0  # Σ over j' <= j with t[j'] == s[i] of K(s[:i], t[:j'])
        for j in range(len(t)):
            if s[i] == t[j]:
                running += previous[j]
            current[j + 1] = previous[j + 1] + running
        previous, current = current, previous
    return previous[len(t)]


@numba.njit(cache=True)
def _all_subsequences_gram(
    codes_a: np.ndarray,
    offsets_a: np.ndarray,
    codes_b: np.ndarray,
    offsets_b: np.ndarray,
    symmetric: bool,
) -> np.ndarray:
    """Gram matrix of strings packed as concatenated codes with start offsets (length n + 1)."""
    n, m = len(offsets_a) - 1, len(offsets_b) - 1
    gram = np.empty((n, m))
    for i in range(n):
        s = codes_a[offsets_a[i] : offsets_a[i + 1]]
        for j in range(i if symmetric else 0, m):
            gram[i, j] = _all_subsequences(s, codes_b[offsets_b[j] : offsets_b[j + 1]])
            if symmetric:
                gram[j, i] = gram[i, j]
    return gram


def _pack(strings: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate the strings' code points into one array; return it and the start offsets."""
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(s) for s in strings])
    codes = np.frombuffer("".join(strings).encode("utf-32-le"), dtype=np.uint32)
    return codes.astype(np.int64), offsets


class AllSubsequencesKernel(Kernel):
    """The all-subsequences kernel: the number of pairs of equal subsequences of two strings.

    Inputs are sequences of ``str`` (a list, tuple or 1-D array of strings). Counts grow fast
    (two equal strings of length L share C(2L, L) pairs), so values are floats; wrap the kernel
    in :class:`~structsvm.kernels.NormalizedKernel` to compare strings of different lengths.

    References
    ----------
    J. Shawe-Taylor and N. Cristianini, *Kernel Methods for Pattern Analysis*, Cambridge
    University Press, 2004, Section 11.3.
    """

    def check_input(self, X: Any, name: str = "X") -> list[str]:
        if isinstance(X, str) or not isinstance(X, Sequence | np.ndarray):
            raise TypeError(f"{name} must be a sequence of strings, got {type(X).__name__}")
        strings = list(X)
        for index, item in enumerate(strings):
            if not isinstance(item, str):
                raise TypeError(
                    f"{name} must hold only strings; item {index} is {type(item).__name__}"
                )
        return strings

    def _gram(self, A: list[str], B: list[str]) -> np.ndarray:
        codes_a, offsets_a = _pack(A)
        codes_b, offsets_b = (codes_a, offsets_a) if B is A else _pack(B)
        return _all_subsequences_gram(codes_a, offsets_a, codes_b, offsets_b, B is A)

    def diagonal(self, A: Any) -> np.ndarray:
        A = self.check_input(A, "A")
        codes, offsets = _pack(A)
        return np.array(
            [
                _all_subsequences(codes[start:stop], codes[start:stop])
                for start, stop in pairwise(offsets)
            ]
        )
