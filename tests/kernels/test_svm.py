"""The binary SVM against hand-derived solutions, its own primal QP and scikit-learn's SVC."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.svm import SVC

from structsvm.kernels import LinearKernel, RBFKernel
from structsvm.kernels._binary_svm import BinarySVM, NotSeparableError
from structsvm.kernels._string import AllSubsequencesKernel
from structsvm.qp import QPSolverWarning

FORMULATIONS = ["dual", "primal"]


def separable_blobs(seed=0, n=30):
    X, y = make_blobs(n_samples=n, centers=[[-2, -2], [2, 2]], cluster_std=0.6, random_state=seed)
    return X, y


def overlapping_blobs(seed=0, n=40):
    X, y = make_blobs(n_samples=n, centers=[[-1, 0], [1, 0]], cluster_std=1.0, random_state=seed)
    return X, y


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_two_points_hard_margin(formulation):
    """x₁ = (1, 1) with y = +1 and x₂ = (−1, −1) with y = −1.

    Σ λ_i y_i = 0 forces λ₁ = λ₂ = λ, so w = λ(x₁ − x₂) = (2λ, 2λ). Both points are support
    vectors on the margin: w·x₁ + b = 4λ + b = 1 and w·x₂ + b = −4λ + b = −1, hence b = 0 and
    λ = 1/4, w = (1/2, 1/2). The margin is ρ = 1/‖w‖ = √2, half the distance between the points.
    """
    model = BinarySVM(formulation=formulation).fit([[1, 1], [-1, -1]], [1, -1])
    np.testing.assert_allclose(model.dual_coef_, [0.25, 0.25], atol=1e-7)
    np.testing.assert_allclose(model.coef_, [0.5, 0.5], atol=1e-7)
    assert model.intercept_ == pytest.approx(0.0, abs=1e-7)
    assert model.margin_ == pytest.approx(np.sqrt(2), rel=1e-7)


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_five_points_hard_margin_with_inactive_points(formulation):
    """Positives (2, 0), (2, 2), (4, 1); negatives (0, 1), (−1, 0).

    The negative (0, 1) is closest to the positive segment x = 2, at distance 2 from (2, 1), a
    point inside the segment between (2, 0) and (2, 2); so the widest separator is the line x = 1
    with ρ = 1, i.e. w = (1, 0), b = −1. Then f(2, 0) = f(2, 2) = 1 and f(0, 1) = −1 (support
    vectors) while f(4, 1) = 3 and f(−1, 0) = −2 lie outside the margin, so λ₄ = λ₅ = 0.
    From w = λ₁(2, 0) + λ₂(2, 2) − λ₃(0, 1) = (1, 0) and λ₁ + λ₂ = λ₃:
    2λ₂ = λ₃ and 2(λ₁ + λ₂) = 1, so λ₃ = 1/2 and λ₁ = λ₂ = 1/4.
    Check: Σ λ_i = 1 = ‖w‖² = 1/ρ².
    """
    X = [[2, 0], [2, 2], [0, 1], [4, 1], [-1, 0]]
    y = ["pos", "pos", "neg", "pos", "neg"]
    model = BinarySVM(formulation=formulation).fit(X, y)
    np.testing.assert_allclose(model.dual_coef_, [0.25, 0.25, 0.5, 0, 0], atol=1e-7)
    np.testing.assert_allclose(model.coef_, [1, 0], atol=1e-7)
    assert model.intercept_ == pytest.approx(-1.0, abs=1e-7)
    assert model.margin_ == pytest.approx(1.0, rel=1e-7)
    np.testing.assert_array_equal(model.support_, [0, 1, 2])
    np.testing.assert_array_equal(model.support_vectors_, [[2, 0], [2, 2], [0, 1]])
    np.testing.assert_array_equal(model.classes_, ["neg", "pos"])
    np.testing.assert_array_equal(model.predict([[3, 5], [-3, 5]]), ["pos", "neg"])


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_two_points_soft_margin_with_small_C(formulation):
    """x₁ = (1, 0) with y = +1, x₂ = (−1, 0) with y = −1, C = 0.1.

    The hard margin would need λ = 1/2 > C, so both multipliers sit at the bound λ₁ = λ₂ = C
    and w = C(x₁ − x₂) = (0.2, 0). By symmetry b = 0, so both margins are M = 0.2 and both slacks
    ξ = 0.8. Primal ½‖w‖² + C Σ ξ = 0.02 + 0.16 = 0.18 equals dual Σ λ − ½‖w‖² = 0.2 − 0.02.
    """
    model = BinarySVM(C=0.1, formulation=formulation).fit([[1, 0], [-1, 0]], [1, -1])
    np.testing.assert_allclose(model.dual_coef_, [0.1, 0.1], atol=1e-7)
    np.testing.assert_allclose(model.coef_, [0.2, 0], atol=1e-7)
    assert model.intercept_ == pytest.approx(0.0, abs=1e-6)
    assert model.margin_ == pytest.approx(5.0, rel=1e-6)


@pytest.mark.parametrize("C", [None, 0.5])
def test_primal_and_dual_solvers_agree(C):
    X, y = separable_blobs(seed=3) if C is None else overlapping_blobs(seed=3)
    dual = BinarySVM(C=C, formulation="dual").fit(X, y)
    primal = BinarySVM(C=C, formulation="primal").fit(X, y)
    np.testing.assert_allclose(primal.coef_, dual.coef_, atol=1e-5)
    assert primal.intercept_ == pytest.approx(dual.intercept_, abs=1e-5)
    np.testing.assert_allclose(primal.dual_coef_, dual.dual_coef_, atol=1e-5)
    np.testing.assert_allclose(primal.decision_function(X), dual.decision_function(X), atol=1e-5)


def test_dual_weights_are_the_expansion_over_support_vectors():
    X, y = overlapping_blobs(seed=4)
    model = BinarySVM(C=1.0).fit(X, y)
    signs = np.where(y == model.classes_[1], 1, -1)
    np.testing.assert_allclose(model.coef_, (model.dual_coef_ * signs) @ X)
    np.testing.assert_allclose(model.decision_function(X), X @ model.coef_ + model.intercept_)


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
def test_separable_margin_satisfies_inverse_square_identity(kernel):
    """At the hard-margin optimum Σ λ_i = ‖w‖² = 1/ρ² (multiply the KKT conditions by λ_i)."""
    X, y = separable_blobs(seed=5)
    model = BinarySVM(kernel=kernel, degree=2, coef0=1.0).fit(X, y)
    assert 1 / model.margin_**2 == pytest.approx(model.dual_coef_.sum(), rel=1e-6)


@pytest.mark.parametrize(
    "kernel, options",
    [("rbf", {"gamma": 0.5}), ("poly", {"degree": 3, "gamma": 0.3, "coef0": 1.0}), ("linear", {})],
)
def test_matches_scikit_learn_svc(kernel, options):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=60) > 0, 1, 0)
    ours = BinarySVM(C=1.0, kernel=kernel, **options).fit(X, y)
    theirs = SVC(C=1.0, kernel=kernel, tol=1e-8, **options).fit(X, y)
    X_test = rng.normal(size=(20, 3))
    np.testing.assert_allclose(
        ours.decision_function(X_test), theirs.decision_function(X_test), atol=1e-4
    )
    their_multipliers = np.zeros(len(y))  # SVC keeps y_i λ_i of its support vectors, by class
    their_multipliers[theirs.support_] = np.abs(theirs.dual_coef_[0])
    np.testing.assert_allclose(ours.dual_coef_, their_multipliers, atol=1e-5)
    np.testing.assert_array_equal(ours.support_, np.sort(theirs.support_))


def test_gamma_scale_matches_scikit_learn():
    X, y = overlapping_blobs(seed=7)
    ours = BinarySVM(C=2.0, kernel="rbf").fit(X, y)
    theirs = SVC(C=2.0, kernel="rbf", tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-4)


def test_precomputed_kernel_gives_the_same_model():
    X, y = overlapping_blobs(seed=8)
    X_test = X[:5] + 0.1
    direct = BinarySVM(C=1.0, kernel=RBFKernel(0.8)).fit(X, y)
    precomputed = BinarySVM(C=1.0, kernel="precomputed").fit(RBFKernel(0.8)(X), y)
    np.testing.assert_allclose(
        precomputed.decision_function(RBFKernel(0.8)(X_test, X)),
        direct.decision_function(X_test),
        atol=1e-7,
    )
    assert precomputed.support_vectors_ is None
    with pytest.raises(ValueError, match="X has 3 columns"):
        precomputed.decision_function(np.ones((2, 3)))


def test_callable_kernel():
    X, y = overlapping_blobs(seed=9)
    with_function = BinarySVM(C=1.0, kernel=lambda A, B: (A @ B.T + 1) ** 2).fit(X, y)
    named = BinarySVM(C=1.0, kernel="poly", degree=2, gamma=1.0, coef0=1.0).fit(X, y)
    np.testing.assert_allclose(
        with_function.decision_function(X), named.decision_function(X), atol=1e-6
    )


def test_string_kernel_svm_on_lists_of_strings():
    """Strings made of a/b against strings made of c/d share only the empty subsequence."""
    train = ["ab", "ba", "aab", "bba", "cd", "dc", "ccd", "ddc"]
    labels = ["ab"] * 4 + ["cd"] * 4
    model = BinarySVM(C=10.0, kernel=AllSubsequencesKernel()).fit(train, labels)
    np.testing.assert_array_equal(model.predict(["abab", "dcdc", "a"]), ["ab", "cd", "ab"])
    assert all(isinstance(s, str) for s in model.support_vectors_)


def test_hard_margin_on_non_separable_data_raises():
    X = [[0, 0], [2, 2], [1, 1], [3, 3]]
    y = [1, 1, -1, -1]
    for formulation in FORMULATIONS:
        with pytest.warns(QPSolverWarning), pytest.raises(NotSeparableError, match="set C"):
            BinarySVM(formulation=formulation).fit(X, y)
    BinarySVM(C=1.0).fit(X, y)  # the soft margin copes


def test_rbf_separates_what_a_line_cannot():
    """XOR: hard-margin linear SVM fails, hard-margin RBF SVM fits it."""
    X = [[0, 0], [1, 1], [0, 1], [1, 0]]
    y = [0, 0, 1, 1]
    assert BinarySVM(kernel="rbf", gamma=1.0).fit(X, y).score(X, y) == 1.0
    with pytest.warns(QPSolverWarning), pytest.raises(NotSeparableError):
        BinarySVM(kernel="linear").fit(X, y)


def test_coef_exists_only_for_the_linear_kernel():
    X, y = separable_blobs()
    assert BinarySVM(kernel=LinearKernel()).fit(X, y).coef_.shape == (2,)
    model = BinarySVM(kernel="rbf").fit(X, y)
    with pytest.raises(AttributeError, match="linear"):
        model.coef_  # noqa: B018
    assert not hasattr(model, "coef_")


def test_clones_and_exposes_hyper_parameters():
    model = BinarySVM(C=2.0, kernel="rbf", gamma=0.1)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    X, y = overlapping_blobs()
    assert copy.fit(X, y).score(X, y) > 0.7


@pytest.mark.parametrize(
    "options, message",
    [
        ({"C": -1.0}, "C must be"),
        ({"C": 0}, "C must be"),
        ({"kernel": "cubic"}, "kernel must be one of"),
        ({"kernel": 3}, "kernel must be one of"),
        ({"formulation": "both"}, "formulation must be one of"),
        ({"formulation": "primal", "kernel": "rbf"}, "formulation='primal' needs"),
        ({"kernel": "rbf", "gamma": -2.0}, "gamma must be"),
        ({"kernel": "rbf", "gamma": "auto"}, "gamma must be"),
        ({"tol": 0.0}, "tol must be"),
    ],
)
def test_bad_hyper_parameters_are_named(options, message):
    X, y = overlapping_blobs()
    with pytest.raises(ValueError, match=message):
        BinarySVM(**options).fit(X, y)


def test_bad_data_are_named():
    X, y = overlapping_blobs()
    with pytest.raises(ValueError, match="exactly two classes"):
        BinarySVM(C=1.0).fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="different lengths"):
        BinarySVM(C=1.0).fit(X, y[:-1])
    with pytest.raises(ValueError, match="X contains NaN"):
        BinarySVM(C=1.0).fit(np.where(X > 1, np.nan, X), y)
    with pytest.raises(ValueError, match="y contains NaN"):
        BinarySVM(C=1.0).fit(X, np.where(np.arange(len(y)) == 3, np.nan, y.astype(float)))
    model = BinarySVM(C=1.0).fit(X, y)
    with pytest.raises(ValueError, match="X has 5 features, but BinarySVM is expecting 2"):
        model.predict(np.ones((3, 5)))


def test_zero_weights_give_an_infinite_margin():
    """XOR with the linear kernel and a tiny C: λ = C for all four points, and by symmetry
    w = C Σ y_i x_i = C((0,0) + (1,1) − (0,1) − (1,0)) = 0, so ρ = 1/‖w‖ is infinite."""
    X = [[0, 0], [1, 1], [0, 1], [1, 0]]
    model = BinarySVM(C=0.01).fit(X, [1, 1, -1, -1])
    np.testing.assert_allclose(model.dual_coef_, 0.01)
    np.testing.assert_allclose(model.coef_, 0, atol=1e-9)
    assert model.margin_ == np.inf
