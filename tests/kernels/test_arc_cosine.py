"""The arc-cosine kernels against wide random networks, their closed forms and the learners."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone

from structsvm import (
    ArcCosineKernel,
    BinarySVM,
    KernelMulticlassSVM,
    KernelPerceptron,
    KernelRidge,
    check_mercer,
)

DEGREES = (0, 1, 2)


def random_units(pre_activation, degree):
    """The units Θ(z) z^n of Cho & Saul, with Θ(z) = ½(1 + sign z)."""
    return np.heaviside(pre_activation, 0.5) * np.maximum(pre_activation, 0.0) ** degree


def network_layer(inputs, degree, width, rng):
    """One random layer of ``width`` units: rows of features whose inner products estimate k_n.

    The features ``√(2/width) Θ(w·x)(w·x)^n`` with w ~ N(0, I) have the Monte Carlo estimate
    ``2 · mean_w Θ(w·x)(w·x)^n Θ(w·y)(w·y)^n`` of the kernel as their inner product.
    """
    weights = rng.normal(size=(width, inputs.shape[1]))
    return np.sqrt(2.0 / width) * random_units(inputs @ weights.T, degree)


@pytest.fixture
def pairs():
    """Rows of x and y at angles from near 0 through π/2 to near π, with different norms."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 4))
    y = (
        np.array([0.05, 0.7, 0.0, -0.7, -0.05])[:, None] * x
        + rng.normal(size=(5, 4)) * np.array([0.02, 0.7, 1.0, 0.7, 0.02])[:, None]
    )
    y[2] -= (y[2] @ x[2]) / (x[2] @ x[2]) * x[2]  # orthogonal to x[2]
    return x, y


@pytest.mark.parametrize("degree", DEGREES)
def test_depth_one_equals_a_wide_random_network(pairs, degree):
    """k_n(x, y) = 2 E_w[Θ(w·x)(w·x)^n Θ(w·y)(w·y)^n] over w ~ N(0, I) (Cho & Saul, eq. 1)."""
    x, y = pairs
    rng = np.random.default_rng(degree)
    weights = rng.normal(size=(200_000, x.shape[1]))
    samples = 2.0 * random_units(x @ weights.T, degree) * random_units(y @ weights.T, degree)
    estimate = samples.mean(axis=1)
    standard_error = samples.std(axis=1, ddof=1) / np.sqrt(samples.shape[1])
    exact = np.array([ArcCosineKernel(degree=degree)(a[None], b[None])[0, 0] for a, b in zip(x, y)])
    assert np.all(np.abs(estimate - exact) <= 4.5 * standard_error + 1e-12)


@pytest.mark.parametrize("degree", DEGREES)
def test_depth_two_equals_a_wide_two_layer_random_network(degree):
    """Two random layers: the second layer's units act on the first layer's features.

    Given the first layer's features H (one row per input), the second layer's pre-activations
    ``u·h`` for u ~ N(0, I) are jointly Gaussian with covariance ``H Hᵀ``; with ``Hᵀ = QR`` they
    are ``z R`` for z ~ N(0, I) of the size of the input set, which draws the same numbers as a
    wide second layer without forming its weight matrix. The standard error comes from the
    spread over independent networks, so it covers the randomness of both layers.
    """
    rng = np.random.default_rng(10 + degree)
    X = rng.normal(size=(5, 3))
    X[1] = 0.8 * X[0] + 0.1 * rng.normal(size=3)
    X[4] = 0.0  # its units output Θ(0) 0^n: ½ for n = 0, nonzero input to the second layer
    n_networks, width = 40, 5000
    estimates = []
    for _ in range(n_networks):
        hidden = network_layer(X, degree, width, rng)
        _, triangular = np.linalg.qr(hidden.T)
        pre_activation = rng.normal(size=(width, len(X))) @ triangular
        units = random_units(pre_activation, degree)
        estimates.append(2.0 * units.T @ units / width)
    estimates = np.array(estimates)
    standard_error = estimates.std(axis=0, ddof=1) / np.sqrt(n_networks)
    exact = ArcCosineKernel(degree=degree, depth=2)(X)
    assert np.all(np.abs(estimates.mean(axis=0) - exact) <= 5 * standard_error + 1e-12)


@pytest.mark.parametrize("degree", DEGREES)
@pytest.mark.parametrize("depth", [1, 2, 5])
def test_gram_matrices_are_symmetric_positive_semidefinite(degree, depth):
    X = np.random.default_rng(depth).normal(size=(40, 5))
    X[7] = 0.0
    X[8] = X[9]
    X[10] = 2.5 * X[11]
    kernel = ArcCosineKernel(degree=degree, depth=depth)
    report = check_mercer(kernel, X)
    assert report.symmetric and report.positive_semidefinite
    A, B = X[:10], X[10:]
    np.testing.assert_array_equal(kernel(A, B), kernel(B, A).T)
    np.testing.assert_allclose(kernel.diagonal(X), np.diag(kernel(X)), rtol=1e-12)


def test_closed_forms_at_angles_zero_and_pi():
    """θ = 0: J_0 = π, J_1 = π, J_2 = 3π; θ = π: every J_n vanishes."""
    x = np.array([[0.3, -1.1, 0.7]])
    norm_x, norm_y = np.linalg.norm(x), 2.3 * np.linalg.norm(x)
    parallel, opposite = 2.3 * x, -2.3 * x
    expected_parallel = {0: 1.0, 1: norm_x * norm_y, 2: 3.0 * norm_x**2 * norm_y**2}
    for degree, expected in expected_parallel.items():
        kernel = ArcCosineKernel(degree=degree)
        np.testing.assert_allclose(kernel(x, parallel)[0, 0], expected, rtol=1e-12)
        np.testing.assert_allclose(kernel(x, opposite)[0, 0], 0.0, atol=1e-12)
    # k_0 = 1 − θ/π and k_1 = ‖x‖‖y‖ whenever θ = 0 are fixed points of the recursion.
    np.testing.assert_allclose(ArcCosineKernel(degree=0, depth=4)(x, parallel), [[1.0]])
    np.testing.assert_allclose(
        ArcCosineKernel(degree=1, depth=4)(x, parallel), [[norm_x * norm_y]], rtol=1e-12
    )


def test_degree_zero_is_one_minus_the_angle_over_pi(pairs):
    x, y = pairs
    cosine = np.sum(x * y, axis=1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
    values = np.diag(ArcCosineKernel(degree=0)(x, y))
    np.testing.assert_allclose(values, 1 - np.arccos(cosine) / np.pi, rtol=1e-12)


@pytest.mark.parametrize("depth", [1, 3])
def test_round_off_beyond_a_cosine_of_one_gives_no_nan(depth):
    x = np.random.default_rng(1).normal(size=(200, 7))
    gram = ArcCosineKernel(degree=1, depth=depth)(x, x * np.pi)
    assert np.all(np.isfinite(gram))
    np.testing.assert_allclose(np.diag(gram), np.pi * np.einsum("ij,ij->i", x, x), rtol=1e-10)


def test_zero_vectors_sit_at_a_right_angle_to_everything():
    """With Θ(0) = ½ a zero input gives k_0 = ½ against any vector, itself included; k_n = 0.

    At depth 2 the degree-0 layer sees the zero input's first-layer features, all ½: squared
    norm ½ against 1, inner product ½ with any other input's, so an angle 0 to itself
    (k = 1) and π/4 to the others (k = 1 − ¼).
    """
    X = np.array([[0.0, 0.0], [1.0, 2.0], [-3.0, 0.5]])
    np.testing.assert_allclose(ArcCosineKernel(degree=0)(X)[0], [0.5, 0.5, 0.5])
    np.testing.assert_allclose(ArcCosineKernel(degree=0, depth=2)(X)[0], [1.0, 0.75, 0.75])
    for degree in (1, 2):
        for depth in (1, 3):
            gram = ArcCosineKernel(degree=degree, depth=depth)(X)
            np.testing.assert_array_equal(gram[0], 0.0)
            assert np.all(np.isfinite(gram))


@pytest.mark.parametrize(
    "options", [{"degree": 3}, {"degree": -1}, {"degree": 1.5}, {"depth": 0}, {"depth": 2.0}]
)
def test_rejects_invalid_parameters(options):
    with pytest.raises(ValueError, match=next(iter(options))):
        ArcCosineKernel(**options)


def xor_data(n, seed):
    """Four equal Gaussian blobs at the corners of a square; opposite corners share a label."""
    rng = np.random.default_rng(seed)
    corners = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=float)
    which = np.arange(n) % 4
    return corners[which] + 0.3 * rng.normal(size=(n, 2)), (which >= 2).astype(int)


@pytest.mark.parametrize("degree, depth", [(1, 1), (2, 1), (0, 2), (1, 3)])
def test_svm_learns_xor_that_a_linear_svm_cannot(degree, depth):
    X, y = xor_data(160, seed=0)
    X_test, y_test = xor_data(200, seed=1)
    kernel = ArcCosineKernel(degree=degree, depth=depth)
    assert BinarySVM(C=10.0, kernel=kernel).fit(X, y).score(X_test, y_test) > 0.9
    assert BinarySVM(C=10.0, kernel="linear").fit(X, y).score(X_test, y_test) < 0.8


KERNEL_LEARNERS = [
    BinarySVM(C=1.0),
    KernelPerceptron(random_state=0),
    KernelRidge(alpha=0.5),
    KernelMulticlassSVM(C=1.0),
]


@pytest.mark.parametrize("model", KERNEL_LEARNERS, ids=lambda model: type(model).__name__)
def test_every_kernel_learner_takes_it_like_its_precomputed_gram(model):
    """The kernel object gives the same model as its Gram matrix passed as "precomputed"."""
    X, y = xor_data(60, seed=2)
    X_test, _ = xor_data(20, seed=3)
    kernel = ArcCosineKernel(degree=1, depth=2)
    with_kernel = clone(model).set_params(kernel=kernel).fit(X, y)
    precomputed = clone(model).set_params(kernel="precomputed").fit(kernel(X), y)
    np.testing.assert_allclose(
        precomputed.predict(kernel(X_test, X)), with_kernel.predict(X_test), rtol=1e-6, atol=1e-8
    )


@pytest.mark.parametrize("model", KERNEL_LEARNERS, ids=lambda model: type(model).__name__)
def test_learners_with_it_clone_and_pickle(model):
    """clone keeps the kernel's degree and depth; a pickled fitted model predicts the same."""
    X, y = xor_data(60, seed=4)
    X_test, _ = xor_data(20, seed=5)
    estimator = clone(model).set_params(kernel=ArcCosineKernel(degree=2, depth=3))
    copy = clone(estimator)
    assert isinstance(copy.kernel, ArcCosineKernel) and copy.kernel is not estimator.kernel
    assert (copy.kernel.degree, copy.kernel.depth) == (2, 3)
    fitted = copy.fit(X, y)
    restored = pickle.loads(pickle.dumps(fitted))
    assert (restored.kernel.degree, restored.kernel.depth) == (2, 3)
    np.testing.assert_array_equal(restored.predict(X_test), fitted.predict(X_test))


@pytest.mark.parametrize("degree", [1, 2])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_degree_n_at_depth_l_is_homogeneous_of_degree_n_to_the_l(degree, depth):
    x, y = np.array([[0.3, -1.2, 0.5]]), np.array([[1.0, 0.2, -0.4]])
    kernel = ArcCosineKernel(degree=degree, depth=depth)
    np.testing.assert_allclose(kernel(2 * x, y), 2.0 ** (degree**depth) * kernel(x, y), rtol=1e-12)
