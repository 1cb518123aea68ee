"""MultiLabelSVM: k LinearSVCs without edges, the fitted label graph, its validation."""

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from structsvm import MultiLabelSVM
from tasks import chow_liu_tree


def label_sets(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    noisy = X + rng.normal(scale=0.7, size=X.shape)
    on = noisy[:, :2] > 0
    return X, np.column_stack([on, on[:, 0] & on[:, 1], noisy[:, 2] > 0.5]).astype(int)


def test_independent_labels_match_one_linear_svc_per_label():
    X, Y = label_sets(60, seed=0)
    model = MultiLabelSVM(C=0.5, tol=1e-8).fit(X, Y)
    for j in range(Y.shape[1]):
        reference = LinearSVC(C=0.5, loss="hinge", tol=1e-10, max_iter=100_000).fit(X, Y[:, j])
        np.testing.assert_allclose(model.coef_[j], reference.coef_[0], atol=2e-3)
        assert model.intercept_[j] == pytest.approx(reference.intercept_[0], abs=2e-3)
    assert model.edges_.shape == (0, 2)
    assert model.pairwise_.shape == (0, 2, 2)


@pytest.mark.parametrize("edges", ["tree", "full"])
def test_label_graphs_are_fitted_and_predict_indicators(edges):
    X, Y = label_sets(60, seed=1)
    model = MultiLabelSVM(C=1.0, edges=edges).fit(X, Y)
    expected = chow_liu_tree(Y) if edges == "tree" else None
    if expected is not None:
        np.testing.assert_array_equal(model.edges_, expected)
    else:
        assert len(model.edges_) == 6
    assert model.pairwise_.shape == (len(model.edges_), 2, 2)
    predicted = model.predict(X)
    assert predicted.shape == Y.shape
    assert set(np.unique(predicted)) <= {0, 1}
    assert np.mean(predicted == Y) > 0.8


@pytest.mark.parametrize(
    ("Y", "match"),
    [
        (np.arange(10) % 2, "2-D 0/1 indicator"),
        (np.full((10, 2), 2), "only 0 and 1"),
        (np.random.default_rng(0).normal(size=(10, 2)), "Unknown label type"),
    ],
)
def test_fit_rejects_targets_that_are_not_indicators(Y, match):
    with pytest.raises(ValueError, match=match):
        MultiLabelSVM().fit(np.zeros((10, 2)), Y)
