"""Kernel formulas against independent computations: explicit feature maps and scikit-learn."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import (
    cosine_similarity,
    euclidean_distances,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)

from structsvm.kernels import (
    CallableKernel,
    LinearKernel,
    NormalizedKernel,
    PolynomialKernel,
    RBFKernel,
    SigmoidKernel,
    check_mercer,
    feature_space_distance,
    gram_matrix,
)
from tests.references import quadratic_features


@pytest.fixture
def points():
    rng = np.random.default_rng(0)
    return rng.normal(size=(7, 3)), rng.normal(size=(5, 3))


def test_linear_kernel_is_the_inner_product(points):
    A, B = points
    np.testing.assert_allclose(gram_matrix(LinearKernel(), A, B), A @ B.T)


def test_degree_two_polynomial_kernel_equals_its_explicit_feature_map(points):
    A, B = points
    expected = quadratic_features(A) @ quadratic_features(B).T
    np.testing.assert_allclose(PolynomialKernel(degree=2, coef0=1.0)(A, B), expected)


@pytest.mark.parametrize("degree, gamma, coef0", [(1, 1.0, 0.0), (3, 0.5, 2.0), (4, 2.0, 0.0)])
def test_polynomial_kernel_matches_sklearn(points, degree, gamma, coef0):
    A, B = points
    kernel = PolynomialKernel(degree=degree, gamma=gamma, coef0=coef0)
    np.testing.assert_allclose(
        kernel(A, B), polynomial_kernel(A, B, degree=degree, gamma=gamma, coef0=coef0)
    )


@pytest.mark.parametrize("gamma", [0.1, 1.0, 5.0])
def test_rbf_kernel_matches_sklearn(points, gamma):
    A, B = points
    np.testing.assert_allclose(RBFKernel(gamma)(A, B), rbf_kernel(A, B, gamma=gamma), atol=1e-14)


def test_sigmoid_kernel_matches_sklearn(points):
    A, B = points
    np.testing.assert_allclose(
        SigmoidKernel(gamma=0.3, coef0=-1.0)(A, B), sigmoid_kernel(A, B, gamma=0.3, coef0=-1.0)
    )


def test_diagonal_agrees_with_the_gram_matrix(points):
    A, _ = points
    kernels = [
        LinearKernel(),
        PolynomialKernel(3, 0.5, 1.0),
        RBFKernel(2.0),
        SigmoidKernel(0.2, 0.1),
        LinearKernel() + RBFKernel(),
        LinearKernel() * PolynomialKernel(),
        2.5 * RBFKernel(),
        NormalizedKernel(PolynomialKernel()),
        CallableKernel(lambda P, Q: (P @ Q.T) ** 2),
    ]
    for kernel in kernels:
        np.testing.assert_allclose(kernel.diagonal(A), np.diag(kernel(A)), err_msg=repr(kernel))


def test_sums_products_and_multiples_combine_pointwise(points):
    A, B = points
    linear, rbf = LinearKernel()(A, B), RBFKernel(0.5)(A, B)
    np.testing.assert_allclose((LinearKernel() + RBFKernel(0.5))(A, B), linear + rbf)
    np.testing.assert_allclose((LinearKernel() * RBFKernel(0.5))(A, B), linear * rbf)
    np.testing.assert_allclose((3 * RBFKernel(0.5))(A, B), 3 * rbf)
    np.testing.assert_allclose((RBFKernel(0.5) * 3)(A, B), 3 * rbf)


def test_product_of_linear_kernels_is_the_homogeneous_quadratic_kernel(points):
    A, B = points
    np.testing.assert_allclose(
        (LinearKernel() * LinearKernel())(A, B), PolynomialKernel(2, coef0=0.0)(A, B)
    )


def test_non_positive_multiples_are_rejected():
    with pytest.raises(ValueError, match="factor"):
        -1 * RBFKernel()
    with pytest.raises(ValueError, match="factor"):
        0 * RBFKernel()


def test_normalised_linear_kernel_is_the_cosine_similarity(points):
    A, B = points
    np.testing.assert_allclose(NormalizedKernel(LinearKernel())(A, B), cosine_similarity(A, B))


def test_normalising_rejects_inputs_of_zero_norm():
    with pytest.raises(ValueError, match="A has an input"):
        NormalizedKernel(LinearKernel())(np.zeros((2, 3)))


def test_feature_space_distance_of_the_linear_kernel_is_euclidean(points):
    A, B = points
    np.testing.assert_allclose(
        feature_space_distance(LinearKernel(), A, B), euclidean_distances(A, B), atol=1e-12
    )


def test_feature_space_distance_of_the_rbf_kernel(points):
    """For the RBF kernel k(x, x) = 1, so the squared distance is 2 − 2k(a, b)."""
    A, B = points
    expected = np.sqrt(2 - 2 * rbf_kernel(A, B, gamma=0.7))
    np.testing.assert_allclose(feature_space_distance(RBFKernel(0.7), A, B), expected)


def test_feature_space_distance_from_a_point_to_itself_is_zero(points):
    A, _ = points
    np.testing.assert_allclose(np.diag(feature_space_distance(RBFKernel(), A)), 0, atol=1e-7)


def test_mercer_check_passes_rbf_and_polynomial_kernels():
    X = np.random.default_rng(1).normal(size=(40, 4))
    for kernel in [RBFKernel(0.5), PolynomialKernel(3, coef0=1.0), LinearKernel() + RBFKernel()]:
        report = check_mercer(kernel, X)
        assert report.symmetric
        assert report.positive_semidefinite, kernel


def test_mercer_check_flags_a_sigmoid_kernel_with_negative_self_similarity():
    """tanh(γ‖x‖² + r) < 0 for x near 0 when r < 0: a negative diagonal entry, so not PSD."""
    X = np.random.default_rng(2).normal(scale=0.3, size=(20, 2))
    report = check_mercer(SigmoidKernel(gamma=1.0, coef0=-1.0), X)
    assert report.symmetric
    assert report.min_eigenvalue < -0.1
    assert not report.positive_semidefinite


def test_mercer_check_flags_a_sigmoid_kernel_with_positive_offset():
    """Even with r > 0 a steep sigmoid saturates into a non-PSD matrix on spread-out data."""
    X = np.random.default_rng(3).normal(size=(30, 2))
    assert not check_mercer(SigmoidKernel(gamma=5.0, coef0=1.0), X).positive_semidefinite


def test_mercer_check_reports_asymmetry():
    X = np.arange(6.0).reshape(3, 2)
    report = check_mercer(CallableKernel(lambda P, Q: P @ (Q + 1).T), X)
    assert not report.symmetric
    assert not report.positive_semidefinite
    assert report.max_asymmetry > 0


def test_callable_kernel_checks_the_shape_it_returns(points):
    A, B = points
    with pytest.raises(ValueError, match="shape"):
        CallableKernel(lambda P, Q: P @ P.T)(A, B)


@pytest.mark.parametrize(
    "make, argument",
    [
        (lambda: RBFKernel(gamma=0.0), "gamma"),
        (lambda: RBFKernel(gamma=-1.0), "gamma"),
        (lambda: PolynomialKernel(degree=0), "degree"),
        (lambda: PolynomialKernel(degree=2.5), "degree"),
        (lambda: SigmoidKernel(coef0=np.nan), "coef0"),
    ],
)
def test_bad_parameters_are_named(make, argument):
    with pytest.raises(ValueError, match=argument):
        make()


def test_inputs_of_different_widths_are_rejected():
    with pytest.raises(ValueError, match="same number of features"):
        RBFKernel()(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="A must be a 2-D array"):
        LinearKernel()(np.ones(3))
