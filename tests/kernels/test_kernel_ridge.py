"""Kernel ridge regression against the closed-form linear ridge and scikit-learn."""

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SklearnKernelRidge

from structsvm.kernels import NormalizedKernel
from structsvm.kernels._ridge import KernelRidge
from structsvm.kernels._string import AllSubsequencesKernel


@pytest.fixture
def regression():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=30)
    return X, y, rng.normal(size=(10, 4))


def test_linear_kernel_equals_primal_ridge(regression):
    """Primal ridge: w = (XᵀX + λI)⁻¹Xᵀy, so f(x) = ⟨w, x⟩ must match the dual predictions."""
    X, y, X_test = regression
    alpha = 0.7
    w = np.linalg.solve(X.T @ X + alpha * np.eye(X.shape[1]), X.T @ y)
    model = KernelRidge(alpha=alpha).fit(X, y)
    np.testing.assert_allclose(model.predict(X_test), X_test @ w)
    np.testing.assert_allclose(model.dual_coef_ @ X, w)


@pytest.mark.parametrize(
    "kernel, options",
    [
        ("rbf", {"gamma": 0.3}),
        ("poly", {"degree": 2, "gamma": 0.5, "coef0": 1.0}),
        ("sigmoid", {"gamma": 0.1, "coef0": 0.5}),
    ],
)
def test_matches_scikit_learn(regression, kernel, options):
    X, y, X_test = regression
    ours = KernelRidge(alpha=0.5, kernel=kernel, **options).fit(X, y)
    theirs = SklearnKernelRidge(alpha=0.5, kernel=kernel, **options).fit(X, y)
    np.testing.assert_allclose(ours.predict(X_test), theirs.predict(X_test), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=1e-7, atol=1e-9)


def test_several_targets_at_once(regression):
    X, y, X_test = regression
    targets = np.column_stack([y, -3 * y])
    model = KernelRidge(alpha=1.0, kernel="rbf", gamma=0.2).fit(X, targets)
    single = KernelRidge(alpha=1.0, kernel="rbf", gamma=0.2).fit(X, y)
    np.testing.assert_allclose(model.predict(X_test)[:, 1], -3 * single.predict(X_test))


def test_precomputed_kernel(regression):
    X, y, X_test = regression
    direct = KernelRidge(alpha=0.5, kernel="rbf", gamma=0.3).fit(X, y)
    precomputed = KernelRidge(alpha=0.5, kernel="precomputed").fit(direct.kernel_(X), y)
    np.testing.assert_allclose(
        precomputed.predict(direct.kernel_(X_test, X)), direct.predict(X_test)
    )


def test_regression_on_strings():
    """Regress the number of a's of a string on the normalised all-subsequences kernel."""
    words = ["a", "aa", "aaa", "b", "bb", "ab", "ba", "aab", "bba", "abab"]
    counts = [w.count("a") for w in words]
    model = KernelRidge(alpha=1e-3, kernel=NormalizedKernel(AllSubsequencesKernel()))
    np.testing.assert_allclose(model.fit(words, counts).predict(words), counts, atol=0.05)


def test_bad_input_is_named(regression):
    X, y, _ = regression
    with pytest.raises(ValueError, match="alpha"):
        KernelRidge(alpha=0.0).fit(X, y)
    with pytest.raises(ValueError, match="y must"):
        KernelRidge().fit(X, np.full(len(y), np.nan))
    with pytest.raises(ValueError, match="different lengths"):
        KernelRidge().fit(X, y[:-2])
