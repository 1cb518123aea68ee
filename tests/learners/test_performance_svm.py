"""PerformanceSVM: Joachims' SVM for multivariate measures as a flat binary classifier."""

import numpy as np
import pytest
from sklearn.metrics import f1_score, roc_auc_score
from sklearn.svm import LinearSVC

from structsvm import PerformanceSVM, StructuredSVM
from tasks import MultivariateTask


@pytest.fixture
def imbalanced():
    """Two overlapping classes, one in ten examples positive, with string labels."""
    rng = np.random.default_rng(0)
    positive = np.arange(300) % 10 == 0
    X = rng.normal(size=(300, 4)) + np.where(positive, 1.5, 0.0)[:, None]
    return X, np.where(positive, "rare", "common")


def test_fit_learns_the_rare_class(imbalanced):
    X, y = imbalanced
    model = PerformanceSVM(C=100.0).fit(X, y)
    assert list(model.classes_) == ["common", "rare"]
    assert model.svm_.converged_
    assert f1_score(y, model.predict(X), pos_label="rare") > 0.6


def test_decision_function_is_the_linear_score(imbalanced):
    X, y = imbalanced
    model = PerformanceSVM(C=10.0).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), X @ model.coef_ + model.intercept_)
    assert model.coef_.shape == (4,)


@pytest.mark.parametrize(("loss", "k"), [("precision@k", 30), ("prbep", None), ("roc_area", None)])
def test_ranking_measures_rank_the_rare_class_first(imbalanced, loss, k):
    X, y = imbalanced
    model = PerformanceSVM(loss=loss, k=k, C=100.0).fit(X, y)
    assert roc_auc_score(y == "rare", model.decision_function(X)) > 0.8


def test_roc_area_leaves_the_intercept_at_zero(imbalanced):
    X, y = imbalanced
    assert PerformanceSVM(loss="roc_area", C=10.0).fit(X, y).intercept_ == pytest.approx(0.0)


def test_precision_at_k_needs_k(imbalanced):
    with pytest.raises(ValueError, match="needs k"):
        PerformanceSVM(loss="precision@k").fit(*imbalanced)


def test_more_than_two_classes_are_rejected():
    X, y = np.zeros((6, 2)), np.arange(6) % 3
    with pytest.raises(ValueError, match="binary"):
        PerformanceSVM().fit(X, y)


class _ErrorRate(MultivariateTask):
    """The error rate as Δ, whose loss-augmented oracle flips each example on its own."""

    def loss(self, y_true, y):
        return float(np.mean(np.asarray(y) != np.asarray(y_true)))

    def loss_augmented_argmax(self, x, y_true, w):
        y_true = np.asarray(y_true)
        flip = 1.0 / len(y_true) - 2.0 * y_true * (x @ w) > 0
        return np.where(flip, -y_true, y_true).astype(np.int8)


def test_with_the_error_rate_the_scaled_problem_is_the_hinge_loss_svm_with_c_over_n():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = np.where(X @ [1.0, -1.0, 0.5] + rng.normal(size=60) > 0, 1, -1)
    C, scale = 5.0, PerformanceSVM()._feature_scale(y)
    assert scale == 1 / (2 * len(y))
    model = StructuredSVM(_ErrorRate(3), C=C, solver="1-slack", tol=1e-8)
    model.fit([X * scale], [y.astype(np.int8)])
    reference = LinearSVC(C=C / len(y), loss="hinge", fit_intercept=False, tol=1e-10)
    reference.set_params(max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(model.w_, reference.coef_.ravel(), rtol=1e-4, atol=1e-6)
