"""The all-subsequences kernel against brute-force enumeration of subsequences."""

from math import comb

import numpy as np
import pytest

from structsvm.kernels import NormalizedKernel, check_mercer
from structsvm.kernels._string import AllSubsequencesKernel
from tests.references import brute_force_subsequence_kernel


def random_strings(rng, n, alphabet="abc", max_length=7):
    lengths = rng.integers(0, max_length + 1, size=n)
    return ["".join(rng.choice(list(alphabet), size=length)) for length in lengths]


def test_small_cases_by_hand():
    """'ab' has subsequences ε, a, b, ab; 'aab' has ε, a, a, b, aa, ab, ab, aab.

    Pairs of equal ones: ε·1 + a·2 + b·1 + ab·2 = 6; the empty string shares only ε.
    """
    kernel = AllSubsequencesKernel()
    np.testing.assert_array_equal(kernel(["ab", "aab", ""], ["ab"]), [[4.0], [6.0], [1.0]])


def test_agrees_with_brute_force_enumeration():
    rng = np.random.default_rng(0)
    A, B = random_strings(rng, 12), random_strings(rng, 9)
    expected = np.array([[brute_force_subsequence_kernel(s, t) for t in B] for s in A])
    np.testing.assert_array_equal(AllSubsequencesKernel()(A, B), expected)


def test_symmetric_gram_agrees_with_brute_force_and_its_diagonal():
    rng = np.random.default_rng(1)
    A = random_strings(rng, 10, alphabet="xyzw")
    gram = AllSubsequencesKernel()(A)
    expected = np.array([[brute_force_subsequence_kernel(s, t) for t in A] for s in A])
    np.testing.assert_array_equal(gram, expected)
    np.testing.assert_array_equal(AllSubsequencesKernel().diagonal(A), np.diag(expected))


def test_string_of_distinct_letters_with_itself_counts_its_subsets():
    """With distinct letters each subset of positions is its own subsequence: K = 2^L."""
    assert AllSubsequencesKernel()(["abcdefghij"])[0, 0] == 2**10


def test_repeated_letter_with_itself_is_a_central_binomial():
    """a^L has C(L, k) copies of a^k, so K(a^L, a^L) = Σ_k C(L, k)² = C(2L, L)."""
    assert AllSubsequencesKernel()(["a" * 20])[0, 0] == comb(40, 20)


def test_unicode_letters_are_distinct_symbols():
    assert AllSubsequencesKernel()(["é"], ["e"])[0, 0] == 1.0


def test_normalised_kernel_is_one_on_the_diagonal_and_at_most_one_elsewhere():
    rng = np.random.default_rng(2)
    A = [s for s in random_strings(rng, 15) if s] + [""]
    gram = NormalizedKernel(AllSubsequencesKernel())(A)
    np.testing.assert_allclose(np.diag(gram), 1.0)
    assert np.all(gram <= 1 + 1e-12)
    assert np.all(gram > 0)


def test_gram_matrix_is_positive_semidefinite():
    rng = np.random.default_rng(3)
    A = random_strings(rng, 25, max_length=6)
    assert check_mercer(NormalizedKernel(AllSubsequencesKernel()), A).positive_semidefinite


@pytest.mark.parametrize("bad", ["abc", ["ab", 3], 5])
def test_rejects_inputs_that_are_not_sequences_of_strings(bad):
    with pytest.raises(TypeError, match="A must"):
        AllSubsequencesKernel()(bad)
