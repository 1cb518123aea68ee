"""KernelMulticlassSVM: the Crammer–Singer structural SVM with a kernel (n-slack)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from structsvm import KernelMulticlassSVM, RBFKernel, StructuredSVM
from tasks import MulticlassTask
from tests.references import multiclass_dual_scores, solve_full_multiclass_dual


def rings(n, seed):
    """Three concentric rings of radii 1, 2, 3 around the origin: no line separates them."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    radius = 1.0 + y + rng.normal(scale=0.15, size=n)
    angle = rng.uniform(0.0, 2 * np.pi, n)
    return np.c_[radius * np.cos(angle), radius * np.sin(angle)], y


@pytest.mark.parametrize("C", [0.1, 10.0])
def test_linear_kernel_reproduces_the_linear_n_slack_solver(C, ordinal_classes):
    X, Y = ordinal_classes()
    linear = StructuredSVM(MulticlassTask(3, 3), C=C, solver="n-slack", tol=1e-8).fit(X, Y)

    model = KernelMulticlassSVM(C=C, kernel="linear", tol=1e-8).fit(X, Y)

    assert model.converged_
    np.testing.assert_allclose(model.primal_objective_, linear.primal_objective_, rtol=1e-6)
    W = linear.w_.reshape(3, 3)
    X_new, _ = ordinal_classes(seed=1, n=20)
    np.testing.assert_allclose(model.decision_function(X_new), X_new @ W.T, atol=1e-4)


@pytest.mark.parametrize("C", [0.5, 5.0])
def test_rbf_objective_matches_the_full_dual_qp_over_every_constraint(C, ordinal_classes):
    X, Y = ordinal_classes(seed=2, n=15)  # overlapping classes: some examples keep a positive slack
    kernel = RBFKernel(gamma=0.5)
    alpha, pairs, optimum = solve_full_multiclass_dual(kernel, X, Y, 3, C)

    model = KernelMulticlassSVM(C=C, kernel=kernel, tol=1e-8).fit(X, Y)

    assert model.converged_
    np.testing.assert_allclose(model.primal_objective_, optimum, rtol=1e-6)
    np.testing.assert_allclose(model.dual_objective_, optimum, rtol=1e-6)
    X_new, _ = ordinal_classes(seed=3, n=10)
    expected = multiclass_dual_scores(kernel, X, Y, alpha, pairs, 3, X_new)
    np.testing.assert_allclose(model.decision_function(X_new), expected, atol=1e-4)


def test_rbf_kernel_separates_concentric_rings_that_defeat_the_linear_kernel():
    X, Y = rings(150, seed=0)
    X_test, Y_test = rings(300, seed=1)

    linear = KernelMulticlassSVM(C=10.0, kernel="linear").fit(X, Y)
    rbf = KernelMulticlassSVM(C=10.0, kernel="rbf", gamma=1.0).fit(X, Y)

    assert rbf.score(X_test, Y_test) >= 0.95
    assert linear.score(X_test, Y_test) <= 0.6
    assert len(rbf.support_) < len(X)


def test_history_records_every_iteration_and_stops_on_the_relative_gap():
    X, Y = rings(60, seed=4)
    C, tol = 2.0, 1e-4

    model = KernelMulticlassSVM(C=C, gamma=1.0, tol=tol).fit(X, Y)

    history = model.history_
    assert [record["iteration"] for record in history] == list(range(len(history)))
    assert history[0]["primal"] == pytest.approx(C * len(X))  # w = 0: every slack is 1
    assert [record["oracle_calls"] for record in history] == [
        len(X) * (t + 1) for t in range(len(history))
    ]
    for record in history:
        assert record["primal"] >= record["dual"] - 1e-9 * record["primal"]
        assert record["relative_gap"] == pytest.approx(record["gap"] / record["primal"])
    assert all(record["relative_gap"] > tol for record in history[:-1])
    assert model.converged_ and history[-1]["relative_gap"] <= tol
    assert model.n_iter_ == history[-1]["iteration"]
    assert model.duality_gap_ == history[-1]["gap"]


def test_max_iter_stops_before_convergence():
    X, Y = rings(60, seed=4)

    model = KernelMulticlassSVM(gamma=1.0, tol=1e-12, max_iter=1).fit(X, Y)

    assert not model.converged_
    assert model.n_iter_ == 1
    assert len(model.history_) == 2


def test_prediction_uses_only_the_support_vectors():
    X, Y = rings(60, seed=5)
    model = KernelMulticlassSVM(C=1.0, kernel="rbf", gamma=1.0).fit(X, Y)
    X_new, _ = rings(25, seed=6)

    assert np.all(np.any(model.dual_coef_ != 0, axis=1))
    np.testing.assert_array_equal(model.support_vectors_, X[model.support_])
    # each constraint adds α(e_{y_i} − e_ȳ), so every row of coefficients sums to zero
    np.testing.assert_allclose(model.dual_coef_.sum(axis=1), 0.0, atol=1e-12)
    expected = RBFKernel(1.0)(X_new, model.support_vectors_) @ model.dual_coef_
    np.testing.assert_allclose(model.decision_function(X_new), expected)
    np.testing.assert_array_equal(model.predict(X_new), np.argmax(expected, axis=1))


def test_labels_of_any_type_are_predicted_as_given():
    X, Y = rings(45, seed=7)
    names = np.array(["inner", "middle", "outer"])[Y]

    model = KernelMulticlassSVM(gamma=1.0).fit(X, names)

    np.testing.assert_array_equal(model.classes_, ["inner", "middle", "outer"])
    assert set(model.predict(X)) <= set(names)
    assert model.score(X, names) == pytest.approx(
        KernelMulticlassSVM(gamma=1.0).fit(X, Y).score(X, Y)
    )


def test_precomputed_kernel_gives_the_same_model():
    X, Y = rings(40, seed=8)
    X_new, _ = rings(10, seed=9)
    kernel = RBFKernel(gamma=0.5)

    direct = KernelMulticlassSVM(kernel=kernel).fit(X, Y)
    precomputed = KernelMulticlassSVM(kernel="precomputed").fit(kernel(X), Y)

    np.testing.assert_allclose(
        precomputed.decision_function(kernel(X_new, X)), direct.decision_function(X_new)
    )


def test_two_classes_give_one_decision_value_per_input_as_in_scikit_learn():
    X, Y = rings(40, seed=10)
    binary = Y == 2

    model = KernelMulticlassSVM(gamma=1.0).fit(X, binary)

    scores = model.class_scores(X)
    np.testing.assert_allclose(model.decision_function(X), scores[:, 1] - scores[:, 0])
    np.testing.assert_array_equal(model.predict(X), model.decision_function(X) > 0)
    assert model.score(X, binary) >= 0.95


def test_clone_keeps_the_hyper_parameters_and_no_fitted_state():
    model = KernelMulticlassSVM(C=3.0, kernel="poly", degree=2, tol=1e-4).fit(*rings(30, seed=1))

    copy = clone(model)

    assert copy.get_params() == model.get_params()
    assert not hasattr(copy, "dual_coef_")


def test_predicting_before_fit_raises_not_fitted():
    with pytest.raises(NotFittedError):
        KernelMulticlassSVM().predict(np.zeros((2, 2)))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"C": 0.0}, "C must be > 0"),
        ({"C": -1.0}, "C must be > 0"),
        ({"C": np.inf}, "C must be a positive finite number"),
        ({"tol": 0.0}, "tol must be > 0"),
        ({"max_iter": 0}, "max_iter must be an integer >= 1"),
        ({"max_iter": 2.5}, "max_iter must be an integer >= 1"),
        ({"inactive_window": 0}, "inactive_window must be an integer >= 1"),
        ({"kernel": "cubic"}, "kernel must be one of"),
        ({"gamma": -1.0}, "gamma must be > 0"),
        ({"gamma": "auto"}, "gamma must be a positive number or 'scale'"),
    ],
)
def test_bad_hyper_parameters_are_rejected_by_name(params, message):
    X, Y = rings(20, seed=0)
    with pytest.raises(ValueError, match=message):
        KernelMulticlassSVM(**params).fit(X, Y)


def test_bad_data_is_rejected():
    X, Y = rings(20, seed=0)
    with pytest.raises(ValueError, match="at least two classes"):
        KernelMulticlassSVM().fit(X, np.zeros(20, dtype=int))
    with pytest.raises(ValueError, match="different lengths"):
        KernelMulticlassSVM().fit(X, Y[:-1])
    with pytest.raises(ValueError, match="NaN"):
        KernelMulticlassSVM().fit(np.where(X > 2, np.nan, X), Y)
    with pytest.raises(ValueError, match="y contains NaN"):
        KernelMulticlassSVM().fit(X, np.where(np.arange(20) == 3, np.nan, Y))


def test_a_tolerance_below_the_qp_precision_stops_with_a_warning_not_a_loop():
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(ConvergenceWarning, match="stopped shrinking"):
        model = KernelMulticlassSVM(C=1.0, kernel="rbf", tol=1e-14, max_iter=200).fit(X, y)
    assert not model.converged_
    assert model.n_iter_ < 20


# ------------------------------------------- one cutting-plane loop: what it brings the kernel SVM

# Ten iterations on ordinal_classes(n=80): enough to stop, continue and resume in between.
SLOW_SETTINGS = {"C": 10.0, "kernel": "poly", "degree": 2, "tol": 1e-6}


def test_a_fit_that_runs_out_of_max_iter_warns(ordinal_classes):
    X, Y = ordinal_classes(n=80)
    with pytest.warns(ConvergenceWarning, match=r"KernelMulticlassSVM stopped after max_iter=2"):
        model = KernelMulticlassSVM(**SLOW_SETTINGS, max_iter=2).fit(X, Y)
    assert not model.converged_ and model.n_iter_ == 2


def test_a_warm_start_follows_the_iterates_of_one_uninterrupted_fit(ordinal_classes):
    X, Y = ordinal_classes(n=80)
    settings = SLOW_SETTINGS
    full = KernelMulticlassSVM(**settings).fit(X, Y)
    model = KernelMulticlassSVM(**settings, max_iter=3)
    with pytest.warns(ConvergenceWarning):
        model.fit(X, Y)
    model.set_params(warm_start=True, max_iter=200).fit(X, Y)
    assert model.converged_ and model.n_iter_ == full.n_iter_
    assert [r["iteration"] for r in model.history_] == list(range(model.n_iter_ + 1))
    np.testing.assert_allclose(
        [r["primal"] for r in model.history_], [r["primal"] for r in full.history_], rtol=1e-9
    )
    np.testing.assert_array_equal(model.support_, full.support_)
    np.testing.assert_allclose(model.dual_coef_, full.dual_coef_, rtol=1e-9, atol=1e-12)


def test_a_warm_start_on_other_labels_is_refused(ordinal_classes):
    X, Y = ordinal_classes()
    model = KernelMulticlassSVM(kernel="rbf", gamma=1.0, warm_start=True).fit(X, Y)
    with pytest.raises(ValueError, match=r"training data \(X, Y\) changed"):
        model.fit(X, np.roll(Y, 1))


def test_a_checkpoint_resumes_the_fit_and_predicts_as_saved(ordinal_classes, tmp_path):
    X, Y = ordinal_classes(n=80)
    settings = SLOW_SETTINGS
    full = KernelMulticlassSVM(**settings).fit(X, Y)
    path = tmp_path / "kernel.ckpt"
    model = KernelMulticlassSVM(**settings, max_iter=3, checkpoint=path, checkpoint_every=2)
    with pytest.warns(ConvergenceWarning):
        model.fit(X, Y)
    loaded = KernelMulticlassSVM.load_checkpoint(path)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    loaded.set_params(max_iter=200, checkpoint=None).fit(X, Y)
    assert loaded.n_iter_ == full.n_iter_
    np.testing.assert_allclose(loaded.primal_objective_, full.primal_objective_, rtol=1e-9)


def test_progress_draws_a_bar(ordinal_classes, capsys):
    X, Y = ordinal_classes()
    model = KernelMulticlassSVM(kernel="rbf", gamma=1.0, progress=True).fit(X, Y)
    final_line = capsys.readouterr().err.strip().split("\r")[-1]
    assert "KernelMulticlassSVM" in final_line and f"iteration={model.n_iter_}" in final_line
