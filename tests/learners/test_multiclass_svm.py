"""MulticlassSVM: the Crammer–Singer SVM on plain arrays with any class labels."""


import numpy as np
import pytest
from sklearn.svm import LinearSVC

from structsvm import MulticlassSVM


@pytest.fixture
def blobs(points_around):
    """Factory ``(n=90, n_classes=3, seed=0) -> (X, codes)`` of 2-D blobs off the origin."""

    def make(n=90, n_classes=3, seed=0):
        centres = np.array([[6.0, 2.0], [2.0, 6.0], [6.0, 6.0]])[:n_classes]  # off the origin
        return points_around(centres, n, 0.8, seed)

    return make


@pytest.mark.parametrize("solver", ["n-slack", "dual-cd"])
def test_it_is_the_crammer_singer_svm_of_liblinear(blobs, solver):
    X, y = blobs()
    reference = LinearSVC(
        multi_class="crammer_singer", fit_intercept=False, C=0.5, tol=1e-8, max_iter=100_000
    ).fit(X, y)
    model = MulticlassSVM(C=0.5, fit_intercept=False, tol=1e-7, solver=solver).fit(X, y)
    np.testing.assert_allclose(model.coef_, reference.coef_, atol=1e-3)
    np.testing.assert_array_equal(model.intercept_, np.zeros(3))


def test_intercepts_are_the_weights_of_a_constant_feature(blobs):
    X, y = blobs()
    with_intercept = MulticlassSVM(C=0.5, tol=1e-7, random_state=0).fit(X, y)
    augmented = MulticlassSVM(C=0.5, fit_intercept=False, tol=1e-7, random_state=0).fit(
        np.hstack([X, np.ones((len(X), 1))]), y
    )
    np.testing.assert_allclose(with_intercept.coef_, augmented.coef_[:, :2])
    np.testing.assert_allclose(with_intercept.intercept_, augmented.coef_[:, 2])


def test_labels_of_any_values_come_back_as_given(blobs):
    X, codes = blobs()
    names = np.array(["setosa", "versicolor", "virginica"])
    model = MulticlassSVM().fit(X, names[codes])
    np.testing.assert_array_equal(model.classes_, names)
    assert model.coef_.shape == (3, 2)
    assert model.decision_function(X).shape == (90, 3)
    np.testing.assert_array_equal(
        model.predict(X), names[np.argmax(model.decision_function(X), axis=1)]
    )
    assert model.score(X, names[codes]) > 0.9


def test_two_classes_give_one_signed_score_per_input(blobs):
    X, codes = blobs(n_classes=2)
    y = np.where(codes == 1, 5, -5)
    model = MulticlassSVM().fit(X, y)
    scores = model.decision_function(X)
    assert scores.shape == (90,)
    np.testing.assert_array_equal(model.predict(X), np.where(scores > 0, 5, -5))


def test_the_loss_matrix_is_indexed_by_the_sorted_classes(blobs):
    X, codes = blobs(seed=3)
    costly = np.array([[0, 1, 1], [1, 0, 1], [20, 20, 0]], dtype=float)
    plain = MulticlassSVM(C=10.0).fit(X, codes)
    weighted = MulticlassSVM(C=10.0, loss_matrix=costly).fit(X, codes)
    missed = {
        name: np.mean(model.predict(X[codes == 2]) != 2)
        for name, model in (("plain", plain), ("weighted", weighted))
    }
    assert missed["weighted"] <= missed["plain"]
    assert weighted.svm_.task.loss(2, 0) == 20.0


def test_bad_loss_matrix_and_a_single_class_are_rejected(blobs):
    X, codes = blobs()
    with pytest.raises(ValueError, match="loss_matrix must have shape"):
        MulticlassSVM(loss_matrix=np.ones((2, 2)) - np.eye(2)).fit(X, codes)
    with pytest.raises(ValueError, match="only one class"):
        MulticlassSVM().fit(X, np.zeros(len(X)))


def test_both_cutting_plane_solvers_reach_the_same_classifier(blobs):
    X, y = blobs()
    n_slack, one_slack = (
        MulticlassSVM(solver=solver, tol=1e-6).fit(X, y) for solver in ("n-slack", "1-slack")
    )
    assert n_slack.svm_.converged_ and one_slack.svm_.converged_
    np.testing.assert_allclose(one_slack.coef_, n_slack.coef_, atol=1e-2)
    np.testing.assert_allclose(one_slack.intercept_, n_slack.intercept_, atol=1e-2)
