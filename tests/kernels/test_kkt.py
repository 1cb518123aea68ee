"""The KKT report: objectives, duality gap, complementary slackness and the three point sets."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from structsvm.kernels._binary_svm import BinarySVM
from structsvm.kernels._kkt import kkt_report


def test_hard_margin_report_on_a_hand_solved_problem():
    """The five-point problem of test_svm: w = (1, 0), b = −1, λ = (1/4, 1/4, 1/2, 0, 0).

    Primal ½‖w‖² = 1/2; dual Σ λ − ½‖w‖² = 1 − 1/2 = 1/2; margins (1, 1, 1, 3, 2).
    """
    X = np.array([[2, 0], [2, 2], [0, 1], [4, 1], [-1, 0]])
    y = np.array([1, 1, -1, 1, -1])
    report = kkt_report(BinarySVM().fit(X, y), X, y)
    assert report.primal_objective == pytest.approx(0.5, abs=1e-7)
    assert report.dual_objective == pytest.approx(0.5, abs=1e-7)
    assert abs(report.duality_gap) < 1e-7
    np.testing.assert_allclose(report.margins, [1, 1, 1, 3, 2], atol=1e-7)
    np.testing.assert_array_equal(report.on_margin, [0, 1, 2])
    np.testing.assert_array_equal(report.outside_margin, [3, 4])
    assert report.margin_violators.size == 0
    assert report.primal_infeasibility < 1e-7


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_soft_margin_slack_identities(C):
    X, y = make_blobs(n_samples=60, centers=[[-1, 0], [1, 0]], cluster_std=1.2, random_state=1)
    model = BinarySVM(C=C, kernel="rbf", gamma=0.5).fit(X, y)
    report = kkt_report(model, X, y)
    lam = model.dual_coef_

    assert abs(report.duality_gap) < 1e-5 * max(1.0, report.primal_objective)
    assert report.complementary_slackness_violation < 1e-5
    assert report.equality_violation < 1e-6 * C
    np.testing.assert_allclose(report.slacks, np.maximum(0, 1 - report.margins))
    # only points at the bound C may violate the margin, by ξ = 1 − M
    violating = report.slacks > 1e-5
    assert np.all(lam[violating] == C)
    assert set(np.flatnonzero(violating)) <= set(report.margin_violators)
    # free support vectors lie on the margin; inactive points outside it
    np.testing.assert_allclose(report.margins[report.on_margin], 1.0, atol=1e-5)
    assert np.all(report.margins[report.outside_margin] >= 1 - 1e-5)
    # the three sets partition the training set
    together = np.concatenate([report.on_margin, report.margin_violators, report.outside_margin])
    np.testing.assert_array_equal(np.sort(together), np.arange(len(y)))


def test_report_of_a_suboptimal_model_shows_a_gap():
    """The same λ and b judged with a larger C: the slack term grows, so P > D."""
    X, y = make_blobs(n_samples=40, centers=[[-1, 0], [1, 0]], cluster_std=1.5, random_state=2)
    model = BinarySVM(C=1.0).fit(X, y)
    model.C = 5.0
    assert kkt_report(model, X, y).duality_gap > 0.1


def test_rejects_data_other_than_the_training_set():
    X, y = make_blobs(n_samples=20, centers=2, random_state=3)
    model = BinarySVM(C=1.0).fit(X, y)
    with pytest.raises(ValueError, match="training examples"):
        kkt_report(model, X[:10], y[:10])
    with pytest.raises(ValueError, match="not seen in fit"):
        kkt_report(model, X, y + 5)
    with pytest.raises(TypeError, match="model must be a BinarySVM"):
        kkt_report(object(), X, y)
