"""The one-class SVM against a hand-solved problem, the ν-property and scikit-learn."""

import numpy as np
import pytest
from sklearn.svm import OneClassSVM as ScikitOneClassSVM

from structsvm import OneClassSVM

NUS = [0.05, 0.2, 0.5, 0.9]


def sample(seed=0, n=60):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3))


def test_two_points_share_the_weight():
    """Two points, ν = 0.5: the bounds are 0 <= a_i <= 1 with a₁ + a₂ = νn = 1.

    With K = [[1, k], [k, 1]] the objective ½aᵀKa is smallest at a = (½, ½), both free, so the
    offset is (Ka)_i = (1 + k)/2 and both points lie on the boundary.
    """
    X = np.array([[0.0], [1.0]])
    model = OneClassSVM(nu=0.5, gamma=1.0).fit(X)
    k = np.exp(-1.0)
    np.testing.assert_allclose(model.dual_coef_, [0.5, 0.5], atol=1e-8)
    assert model.offset_ == pytest.approx((1 + k) / 2, abs=1e-8)
    assert model.intercept_ == -model.offset_
    np.testing.assert_allclose(model.decision_function(X), 0.0, atol=1e-8)


@pytest.mark.parametrize("nu", NUS)
@pytest.mark.parametrize(
    ("kernel", "options"), [("rbf", {}), ("rbf", {"gamma": 2.0}), ("linear", {})]
)
def test_matches_scikit_learn(nu, kernel, options):
    # νn is no integer, so some a_i is fractional, a free support vector that fixes the offset
    # (with none, any offset in an interval meets the KKT conditions).
    X = sample(n=61) + 1.0
    ours = OneClassSVM(nu=nu, kernel=kernel, **options).fit(X)
    theirs = ScikitOneClassSVM(nu=nu, kernel=kernel, tol=1e-10, **options).fit(X)
    X_test = np.vstack([X, sample(seed=1, n=20) * 1.5])
    np.testing.assert_allclose(
        ours.decision_function(X_test), theirs.decision_function(X_test), atol=1e-5
    )
    np.testing.assert_allclose(ours.score_samples(X_test), theirs.score_samples(X_test), atol=1e-5)
    assert ours.offset_ == pytest.approx(theirs.offset_[0], abs=1e-5)
    if kernel == "rbf":  # K is positive definite, so the multipliers are unique
        their_multipliers = np.zeros(len(X))
        their_multipliers[theirs.support_] = theirs.dual_coef_[0]
        our_multipliers = np.zeros(len(X))
        our_multipliers[ours.support_] = ours.dual_coef_
        np.testing.assert_allclose(our_multipliers, their_multipliers, atol=1e-5)
    clear = np.abs(theirs.decision_function(X_test)) > 1e-5  # not on the boundary
    np.testing.assert_array_equal(ours.predict(X_test)[clear], theirs.predict(X_test)[clear])


@pytest.mark.parametrize("nu", [*NUS, 1.0])
def test_nu_bounds_the_outliers_from_above_and_the_support_vectors_from_below(nu):
    X = sample(seed=2, n=80)
    model = OneClassSVM(nu=nu).fit(X)
    decision = model.decision_function(X)
    assert np.mean(decision < -1e-6) <= nu
    assert len(model.support_) / len(X) >= nu
    assert model.dual_coef_.sum() == pytest.approx(nu * len(X), rel=1e-7)


@pytest.mark.parametrize("nu", NUS)
def test_kkt_conditions_hold(nu):
    """Points with a_i = 0 lie inside or on the boundary (decision >= 0), free support vectors
    on it (= 0), and points with a_i = 1 outside or on it (<= 0)."""
    X = sample(seed=3)
    model = OneClassSVM(nu=nu).fit(X)
    multipliers = np.zeros(len(X))
    multipliers[model.support_] = model.dual_coef_
    decision = model.decision_function(X)
    assert np.all((multipliers >= 0) & (multipliers <= 1))
    assert np.all(decision[multipliers == 0] >= -1e-5)
    free = (multipliers > 0) & (multipliers < 1)
    np.testing.assert_allclose(decision[free], 0.0, atol=1e-5)
    assert np.all(decision[multipliers == 1] <= 1e-5)


def test_nu_one_makes_every_point_a_support_vector_on_or_outside_the_boundary():
    X = sample(seed=4, n=20)
    model = OneClassSVM(nu=1.0).fit(X)
    np.testing.assert_allclose(model.dual_coef_, 1.0)
    assert model.decision_function(X).max() == pytest.approx(0.0, abs=1e-9)


def test_predictions_scores_and_the_linear_weights_agree():
    X = sample(seed=5) + 3.0
    model = OneClassSVM(nu=0.3, kernel="linear").fit(X)
    decision = model.decision_function(X)
    np.testing.assert_array_equal(model.predict(X), np.where(decision >= 0, 1, -1))
    np.testing.assert_allclose(model.score_samples(X) - model.offset_, decision)
    np.testing.assert_allclose(model.coef_, model.dual_coef_ @ model.support_vectors_)
    np.testing.assert_allclose(decision, X @ model.coef_ - model.offset_, atol=1e-9)
    np.testing.assert_array_equal(model.fit_predict(X), model.predict(X))


def test_precomputed_kernel_gives_the_same_model():
    X = sample(seed=6, n=30)
    model = OneClassSVM(nu=0.4, gamma=0.5).fit(X)
    precomputed = OneClassSVM(nu=0.4, kernel="precomputed").fit(model.kernel_(X))
    X_test = sample(seed=7, n=10)
    np.testing.assert_allclose(
        precomputed.decision_function(model.kernel_(X_test, X)),
        model.decision_function(X_test),
        atol=1e-9,
    )
