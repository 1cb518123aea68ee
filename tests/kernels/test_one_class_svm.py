"""The one-class SVM against a hand-solved problem, the ν-property and scikit-learn."""

import numpy as np
import pytest
from sklearn.svm import OneClassSVM as ScikitOneClassSVM

from structsvm import OneClassSVM

NUS = [0.05, 0.2, 0.5, 0.9]


def sample(seed=0, n=60):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3))


def uniform_square(seed=1, n=61):
    return np.random.default_rng(seed).uniform(1, 4, size=(n, 2))


def two_clusters(seed=2, n=83):
    rng = np.random.default_rng(seed)
    first = rng.normal(size=(40, 2)) * 0.5 + [2.0, 0.0]
    return np.vstack([first, rng.normal(size=(n - 40, 2)) * 0.5 + [-1.0, 2.0]])


def heavy_tailed(seed=3, n=61):
    return np.random.default_rng(seed).standard_t(3, size=(n, 3)) + 3.0


# 61 and 83 points: νn is no integer for the ν of NUS, so some a_i is fractional, a free
# support vector that fixes the offset (with none, any offset in an interval meets the KKT
# conditions; see test_without_free_support_vectors_the_offset_is_the_midpoint).
DATA_SETS = {
    "gaussian": lambda: sample(n=61) + 1.0,
    "uniform square": uniform_square,
    "two clusters": two_clusters,
    "heavy-tailed": heavy_tailed,
}
KERNELS = {"rbf": ("rbf", {}), "rbf, gamma=2": ("rbf", {"gamma": 2.0}), "linear": ("linear", {})}


def all_multipliers(model, n):
    multipliers = np.zeros(n)
    multipliers[model.support_] = np.ravel(model.dual_coef_)
    return multipliers


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


def assert_matches_scikit_learn(X, nu, kernel, options):
    ours = OneClassSVM(nu=nu, kernel=kernel, **options).fit(X)
    theirs = ScikitOneClassSVM(nu=nu, kernel=kernel, tol=1e-10, **options).fit(X)
    noise = np.random.default_rng(9).normal(size=(20, X.shape[1]))
    X_test = np.vstack([X, X.mean(axis=0) + 1.5 * X.std(axis=0) * noise])
    # LIBSVM takes the offset from kernel values cached in single precision, a relative error
    # of about 1e-7 of the kernel sums; the data here keep those sums small enough for 1e-5.
    np.testing.assert_allclose(
        ours.decision_function(X_test), theirs.decision_function(X_test), atol=1e-5
    )
    np.testing.assert_allclose(ours.score_samples(X_test), theirs.score_samples(X_test), atol=1e-5)
    assert ours.offset_ == pytest.approx(theirs.offset_[0], abs=1e-5)
    if kernel == "rbf":  # K is positive definite, so the multipliers are unique
        np.testing.assert_allclose(
            all_multipliers(ours, len(X)), all_multipliers(theirs, len(X)), atol=1e-5
        )
    clear = np.abs(theirs.decision_function(X_test)) > 1e-5  # not on the boundary
    np.testing.assert_array_equal(ours.predict(X_test)[clear], theirs.predict(X_test)[clear])


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("nu", NUS)
@pytest.mark.parametrize("data", DATA_SETS)
def test_matches_scikit_learn(data, nu, kernel):
    assert_matches_scikit_learn(DATA_SETS[data](), nu, *KERNELS[kernel])


def test_the_free_multipliers_are_exact_although_the_interior_point_is_not():
    """Here the interior-point solution leaves one a_i at 0.99978, whose bound is active at the
    optimum: set onto it, Σa exceeds νn by 2e-4 and the decision function is 1.7e-4 off. Solved
    for with the bounded multipliers fixed, the free ones meet Σa = νn and match LIBSVM."""
    X = np.random.default_rng(2).normal(size=(150, 3)) + 1.0
    model = OneClassSVM(nu=0.9, gamma=2.0).fit(X)
    assert model.dual_coef_.sum() == pytest.approx(0.9 * 150, rel=1e-12)
    assert_matches_scikit_learn(X, 0.9, "rbf", {"gamma": 2.0})


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_without_free_support_vectors_the_offset_is_the_midpoint(kernel):
    """νn = 135 and every a_i is 0 or 1: points with a_i = 1 only bound the offset from below
    (Ka)_i <= offset, points with a_i = 0 from above, and the offset is the middle of that
    interval, as LIBSVM's rule says (lowered by a relative 1e-10). scikit-learn's run starts
    from a_i = νn − ⌊νn⌋, which rounding leaves at about 4e-13 instead of 0, and counts that
    point as free; its offset is another point of the interval."""
    X = np.random.default_rng(2).normal(size=(150, 3)) + 1.0
    ours = OneClassSVM(nu=0.9, kernel=kernel).fit(X)
    theirs = ScikitOneClassSVM(nu=0.9, kernel=kernel, tol=1e-10).fit(X)
    multipliers = all_multipliers(ours, len(X))
    assert set(np.unique(multipliers)) == {0.0, 1.0}
    scores = ours.score_samples(X)
    lowest, highest = scores[multipliers == 1].max(), scores[multipliers == 0].min()
    assert lowest < highest
    midpoint = (lowest + highest) / 2
    lowered = midpoint - 1e-10 * max(1.0, midpoint)  # so that boundary points are inliers
    assert ours.offset_ == pytest.approx(lowered, rel=1e-12)
    assert lowest - 1e-5 <= theirs.offset_[0] <= highest + 1e-5
    np.testing.assert_allclose(ours.score_samples(X), theirs.score_samples(X), rtol=1e-9, atol=1e-5)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("nu", [*NUS, 1.0])
@pytest.mark.parametrize("data", [*DATA_SETS, "gaussian, 80 points"])
def test_nu_bounds_the_outliers_from_above_and_the_support_vectors_from_below(data, nu, kernel):
    """Schölkopf et al. (2001), proposition 4: at most a fraction ν of the training points are
    outliers (decision function < 0) and at least a fraction ν are support vectors."""
    X = sample(seed=2, n=80) if data == "gaussian, 80 points" else DATA_SETS[data]()
    model = OneClassSVM(nu=nu, kernel=kernel).fit(X)
    decision = model.decision_function(X)
    rounding = 1e-9 * max(1.0, abs(model.offset_))
    assert np.mean(decision < -rounding) <= nu
    assert len(model.support_) / len(X) >= nu
    assert model.dual_coef_.sum() == pytest.approx(nu * len(X), rel=1e-9)


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
    # The offset is the largest score, lowered by a relative 1e-10.
    largest = model.score_samples(X).max()
    assert model.decision_function(X).max() == pytest.approx(1e-10 * largest, rel=1e-3)


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


def test_the_boundary_points_are_inliers_whichever_way_rounding_tips_them():
    """Free support vectors lie on the boundary: their decision values are 0 up to rounding,
    which differs between a batch of inputs and each input alone."""
    X = 3 * np.random.default_rng(0).uniform(size=(20, 3))
    model = OneClassSVM(nu=0.5).fit(X)
    free = model.support_[model.dual_coef_ < 1]
    assert len(free) >= 3
    decision = model.decision_function(X[free])
    np.testing.assert_allclose(decision, 1e-10 * max(1.0, model.offset_), rtol=1e-3)
    assert np.all(model.predict(X[free]) == 1)
    assert all(model.predict(X[[i]])[0] == 1 for i in free)
