"""The kernel perceptron against the primal perceptron and Novikoff's mistake bound."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs, make_circles

from structsvm.kernels._binary_svm import BinarySVM
from structsvm.kernels._perceptron import KernelPerceptron
from structsvm.kernels._string import AllSubsequencesKernel
from tests.references import primal_perceptron


def separable_blobs(seed=0):
    return make_blobs(n_samples=40, centers=[[-2, 1], [2, -1]], cluster_std=0.7, random_state=seed)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_linear_kernel_reproduces_the_primal_perceptron(fit_intercept):
    X, y = separable_blobs(seed=1)
    if not fit_intercept:
        X = X - X.mean(axis=0)
    model = KernelPerceptron(fit_intercept=fit_intercept, shuffle=False).fit(X, y)
    signs = np.where(y == model.classes_[1], 1.0, -1.0)
    w, b = primal_perceptron(X, signs, fit_intercept)
    assert model.converged_
    np.testing.assert_allclose((model.dual_coef_ * signs) @ X, w)
    assert model.intercept_ == b
    np.testing.assert_allclose(model.decision_function(X), X @ w + b)


def test_counts_mistakes_per_example():
    X, y = separable_blobs(seed=2)
    model = KernelPerceptron(random_state=0).fit(X, y)
    assert model.n_updates_ == model.dual_coef_.sum() == model.history_[-1]["n_updates"]
    assert model.dual_coef_.dtype.kind == "i"
    np.testing.assert_array_equal(model.support_, np.flatnonzero(model.dual_coef_))
    assert model.history_[-1]["mistakes"] == 0
    assert len(model.history_) == model.n_iter_


def test_updates_obey_novikoffs_bound():
    """With the bias as a constant feature, R² = max ‖x‖² + 1; the hard-margin SVM (w, b) gives
    margins >= 1, so δ >= 1/‖(w, b)‖ and the number of updates is at most R²‖(w, b)‖²."""
    X, y = separable_blobs(seed=3)
    svm = BinarySVM().fit(X, y)
    bound = (np.max(np.sum(X**2, axis=1)) + 1) * (svm.coef_ @ svm.coef_ + svm.intercept_**2)
    for seed in range(5):
        model = KernelPerceptron(random_state=seed).fit(X, y)
        assert model.converged_
        assert model.n_updates_ <= bound


def test_rbf_kernel_separates_concentric_circles():
    X, y = make_circles(n_samples=80, factor=0.4, noise=0.05, random_state=0)
    model = KernelPerceptron(kernel="rbf", gamma=2.0, random_state=0).fit(X, y)
    assert model.converged_
    assert model.score(X, y) == 1.0
    assert KernelPerceptron(max_epochs=20, random_state=0).fit(X, y).converged_ is False


def test_shuffling_is_reproducible():
    X, y = separable_blobs(seed=4)
    first = KernelPerceptron(random_state=7).fit(X, y)
    second = clone(first).fit(X, y)
    np.testing.assert_array_equal(first.dual_coef_, second.dual_coef_)


def test_string_kernel_on_lists_of_strings():
    train = ["ab", "ba", "aab", "bba", "cd", "dc", "ccd", "ddc"]
    labels = [0, 0, 0, 0, 1, 1, 1, 1]
    model = KernelPerceptron(kernel=AllSubsequencesKernel(), fit_intercept=False, shuffle=False)
    model.fit(train, labels)
    assert model.converged_
    np.testing.assert_array_equal(model.predict(["bab", "cdc"]), [0, 1])


@pytest.mark.parametrize(
    "options, message",
    [({"max_epochs": 0}, "max_epochs"), ({"kernel": "laplace"}, "kernel must be one of")],
)
def test_bad_hyper_parameters_are_named(options, message):
    X, y = separable_blobs()
    with pytest.raises(ValueError, match=message):
        KernelPerceptron(**options).fit(X, y)


def test_needs_exactly_two_classes():
    X, _ = separable_blobs()
    with pytest.raises(ValueError, match="exactly two classes"):
        KernelPerceptron().fit(X, np.zeros(len(X)))
