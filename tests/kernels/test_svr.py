"""Support vector regression against hand-solved problems, its KKT conditions and scikit-learn."""

import numpy as np
import pytest
from sklearn.svm import SVR as ScikitSVR

from structsvm import SVR

# (kernel, C, ε) of the problems solved by both this SVR and scikit-learn's.
PROBLEMS = [
    ("linear", 0.1, 0.1),
    ("linear", 1.0, 0.05),
    ("linear", 10.0, 0.3),
    ("linear", 1.0, 0.0),
    ("rbf", 0.1, 0.1),
    ("rbf", 1.0, 0.05),
    ("rbf", 10.0, 0.3),
    ("rbf", 10.0, 0.0),
    ("poly", 1.0, 0.05),
]


def regression_data(seed=0, n=50):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=n)


def sinc_data(seed=0, n=80):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-4, 4, size=(n, 1))
    return X, np.sinc(X[:, 0]) + 0.05 * rng.normal(size=n)


DATA_SETS = {
    "3-d, 50 points": lambda: regression_data(seed=0),
    "3-d, 70 points": lambda: regression_data(seed=1, n=70),
    "sinc": sinc_data,
}


def all_coefficients(model, n):
    """Return α − α* of every training point (0 off the support)."""
    coef = np.zeros(n)
    coef[model.support_] = np.ravel(model.dual_coef_)
    return coef


def objectives(coef, intercept, gram, y, C, epsilon):
    """Return the primal ``½‖w‖² + C Σ max(0, |y − f| − ε)`` and the dual objective.

    The dual ``½cᵀKc + ε Σ(α + α*) − yᵀc`` is written with ``α + α* = |c|`` for ``c = α − α*``,
    which holds at any optimum with ε > 0 (α_i α*_i = 0 there) and gives the smallest value
    over the α, α* with that difference otherwise; it is minimised, so strong duality makes
    the primal equal to its negative.
    """
    half_norm_squared = 0.5 * coef @ gram @ coef
    residuals = y - (gram @ coef + intercept)
    primal = half_norm_squared + C * np.maximum(0.0, np.abs(residuals) - epsilon).sum()
    dual = half_norm_squared + epsilon * np.abs(coef).sum() - y @ coef
    return primal, dual


def test_two_points_inside_a_tight_tube():
    """x₁ = 0, y₁ = 0 and x₂ = 1, y₂ = 1 with ε = 0.1 and a large C.

    The flattest line with both residuals at most ε is f(x) = 0.8x + 0.1, touching the lower
    edge of the tube at x₁ and its upper edge at x₂. So w = c₂x₂ = 0.8 and Σc = 0 gives
    c = (−0.8, 0.8), both free (|c| < C), and b = y₂ − w − ε = 0.1.
    """
    model = SVR(C=10.0, epsilon=0.1, kernel="linear").fit([[0.0], [1.0]], [0.0, 1.0])
    np.testing.assert_allclose(model.dual_coef_, [-0.8, 0.8], atol=1e-7)
    np.testing.assert_allclose(model.coef_, [0.8], atol=1e-7)
    assert model.intercept_ == pytest.approx(0.1, abs=1e-7)
    np.testing.assert_array_equal(model.support_, [0, 1])


def test_without_free_multipliers_the_intercept_is_the_midpoint():
    """The same two points with C = 0.5 < 0.8: both multipliers sit at the bound, c = (−C, C).

    Then w = 0.5 and the KKT conditions only bound b: α*₁ = C needs y₁ − f(x₁) <= −ε, i.e.
    b >= 0.1, and α₂ = C needs y₂ − f(x₂) >= ε, i.e. b <= 0.4; b is the midpoint 0.25, as
    scikit-learn's.
    """
    X, y = [[0.0], [1.0]], [0.0, 1.0]
    model = SVR(C=0.5, epsilon=0.1, kernel="linear").fit(X, y)
    np.testing.assert_allclose(model.dual_coef_, [-0.5, 0.5], atol=1e-9)
    assert model.intercept_ == pytest.approx(0.25, abs=1e-7)
    theirs = ScikitSVR(C=0.5, epsilon=0.1, kernel="linear", tol=1e-10).fit(X, y)
    assert model.intercept_ == pytest.approx(theirs.intercept_[0], abs=1e-7)


@pytest.mark.parametrize("data", DATA_SETS)
@pytest.mark.parametrize(("kernel", "C", "epsilon"), PROBLEMS)
def test_objectives_and_predictions_match_scikit_learn(kernel, C, epsilon, data):
    X, y = DATA_SETS[data]()
    ours = SVR(C=C, epsilon=epsilon, kernel=kernel, degree=2).fit(X, y)
    theirs = ScikitSVR(C=C, epsilon=epsilon, kernel=kernel, degree=2, tol=1e-10).fit(X, y)
    gram = ours.kernel_(X)
    our_primal, our_dual = objectives(
        all_coefficients(ours, len(y)), ours.intercept_, gram, y, C, epsilon
    )
    their_primal, their_dual = objectives(
        all_coefficients(theirs, len(y)), theirs.intercept_[0], gram, y, C, epsilon
    )
    assert our_dual == pytest.approx(their_dual, rel=1e-6)
    assert our_primal == pytest.approx(-our_dual, rel=1e-6)  # a zero duality gap
    # LIBSVM computes b by the same KKT rule but from kernel values cached in single precision,
    # so its b is off by about 1e-7; the primal is steep in b (slope up to C times the points
    # outside the tube), so its primal may exceed the optimum by a few 1e-6.
    assert our_primal == pytest.approx(their_primal, rel=1e-5)
    assert our_primal <= their_primal * (1 + 1e-9)
    X_test = X[:20] + 0.1
    np.testing.assert_allclose(ours.predict(X_test), theirs.predict(X_test), atol=1e-4)
    np.testing.assert_array_equal(ours.support_, theirs.support_)


@pytest.mark.parametrize(("kernel", "C", "epsilon"), PROBLEMS)
def test_kkt_conditions_hold(kernel, C, epsilon):
    """Residuals r_i = y_i − f(x_i): |r| <= ε off the support; r = ±ε where α (resp. α*) is
    free; r >= ε where α = C and r <= −ε where α* = C. Σ(α − α*) = 0."""
    X, y = regression_data(seed=2)
    model = SVR(C=C, epsilon=epsilon, kernel=kernel).fit(X, y)
    coef = all_coefficients(model, len(y))
    residuals = y - model.predict(X)
    tolerance = 1e-5
    assert abs(coef.sum()) < 1e-5 * C
    assert np.all(np.abs(coef) <= C)
    inside = coef == 0
    free = (coef != 0) & (np.abs(coef) < C)
    at_bound = np.abs(coef) == C
    assert np.all(np.abs(residuals[inside]) <= epsilon + tolerance)
    np.testing.assert_allclose(residuals[free], epsilon * np.sign(coef[free]), atol=tolerance)
    assert np.all(np.sign(coef[at_bound]) * residuals[at_bound] >= epsilon - tolerance)


def test_linear_coef_is_the_expansion_over_support_vectors():
    X, y = regression_data(seed=3)
    model = SVR(C=1.0, kernel="linear").fit(X, y)
    np.testing.assert_allclose(model.coef_, model.dual_coef_ @ model.support_vectors_)
    np.testing.assert_allclose(model.predict(X), X @ model.coef_ + model.intercept_)
    theirs = ScikitSVR(C=1.0, kernel="linear", tol=1e-10).fit(X, y)
    np.testing.assert_allclose(model.coef_, theirs.coef_[0], atol=1e-5)
    with pytest.raises(AttributeError, match="kernel='linear'"):
        _ = SVR().fit(X, y).coef_


def test_precomputed_kernel_gives_the_same_model():
    X, y = regression_data(seed=4)
    model = SVR(C=1.0, gamma=0.5).fit(X, y)
    precomputed = SVR(C=1.0, kernel="precomputed").fit(model.kernel_(X), y)
    np.testing.assert_allclose(precomputed.dual_coef_, model.dual_coef_, atol=1e-9)
    X_test, _ = regression_data(seed=5, n=10)
    np.testing.assert_allclose(
        precomputed.predict(model.kernel_(X_test, X)), model.predict(X_test), atol=1e-9
    )


def test_score_is_the_coefficient_of_determination():
    X, y = regression_data(seed=6)
    model = SVR(C=10.0, epsilon=0.01).fit(X, y)
    residual = ((y - model.predict(X)) ** 2).sum()
    assert model.score(X, y) == pytest.approx(1 - residual / ((y - y.mean()) ** 2).sum())
    assert model.score(X, y) > 0.9


def test_bad_targets_are_named():
    X, y = regression_data(seed=7, n=5)
    with pytest.raises(ValueError, match="y"):
        SVR().fit(X, np.r_[y[:4], np.nan])
    with pytest.raises(ValueError, match="y must hold real numbers"):
        SVR().fit(X, ["a", "b", "c", "d", "e"])
