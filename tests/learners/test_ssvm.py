"""StructuredSVM: both cutting-plane solvers reach the optimum of the full QP and certify it."""

import warnings

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from structsvm import StructuredSVM
from structsvm.solvers._objective import SlackPenalty
from structsvm.solvers._oracle import loss_augmented_pass
from tasks import MulticlassTask
from tests.references import solve_full_primal

CUTTING_PLANE = ["n-slack", "1-slack"]
SOLVERS = [*CUTTING_PLANE, "bcfw"]


@pytest.mark.parametrize("C", [0.1, 10.0])
@pytest.mark.parametrize("solver", CUTTING_PLANE)
def test_cutting_plane_solvers_reach_the_optimum_of_the_full_qp(full_qp_problem, solver, C):
    task, X, Y = full_qp_problem
    w_star, _, objective_star = solve_full_primal(task, X, Y, C)

    model = StructuredSVM(task, C=C, solver=solver, tol=1e-8).fit(X, Y)

    assert model.converged_
    np.testing.assert_allclose(model.primal_objective_, objective_star, rtol=1e-6)
    np.testing.assert_allclose(model.w_, w_star, atol=1e-4 * max(1.0, np.abs(w_star).max()))
    assert model.dual_objective_ <= objective_star * (1 + 1e-9)


@pytest.mark.parametrize("averaging", [True, False])
def test_bcfw_reaches_the_optimum_of_the_full_qp(full_qp_problem, averaging):
    task, X, Y = full_qp_problem
    w_star, _, objective_star = solve_full_primal(task, X, Y, 0.1)

    model = StructuredSVM(
        task, C=0.1, solver="bcfw", tol=1e-5, max_iter=3000, averaging=averaging, random_state=0
    ).fit(X, Y)

    assert model.converged_
    assert objective_star <= model.primal_objective_ <= objective_star * (1 + 1e-5)
    assert model.dual_objective_ <= objective_star * (1 + 1e-9)
    np.testing.assert_allclose(model.w_, w_star, atol=1e-3)


@pytest.mark.parametrize("order", ["random", "cyclic"])
def test_bcfw_gap_certifies_the_objective_while_it_converges(order, multiclass_problem):
    task, X, Y = multiclass_problem()
    _, _, objective_star = solve_full_primal(task, X, Y, 10.0)
    model = StructuredSVM(task, C=10.0, solver="bcfw", max_iter=200, order=order).fit(X, Y)
    for record in model.history_:
        assert record["dual"] <= objective_star * (1 + 1e-9) <= record["primal"] * (1 + 2e-9)
    assert model.history_[-1]["relative_gap"] < 0.05
    assert model.history_[-1]["relative_gap"] < model.history_[1]["relative_gap"] / 10


def test_n_slack_solution_satisfies_the_kkt_conditions(full_qp_problem):
    task, X, Y = full_qp_problem
    C = 1.0
    model = StructuredSVM(task, C=C, solver="n-slack", tol=1e-9).fit(X, Y)
    working_set = model.working_set_
    alpha, groups = working_set.alpha, working_set.groups

    assert np.all(alpha >= 0)
    group_sums = np.bincount(groups, minlength=len(X))
    group_sums = np.bincount(groups, weights=alpha, minlength=len(X))
    assert np.all(group_sums <= C * (1 + 1e-12))
    np.testing.assert_allclose(working_set.weights(), model.w_)

    # Complementary slackness: a constraint with α_k > 0 is tight at the example's slack, and
    # an example whose dual variables sum to less than C has no slack.
    slacks = working_set.slacks(model.w_, len(X))
    violations = working_set.offsets - working_set.vectors @ model.w_
    tight_gap = slacks[groups] - violations
    scale = C * max(1.0, np.abs(working_set.offsets).max())
    assert np.all(alpha * tight_gap <= 1e-6 * scale)
    assert np.all((C - group_sums) * np.maximum(slacks, 0) <= 1e-6 * scale)


@pytest.mark.parametrize("solver", CUTTING_PLANE)
def test_history_records_a_certified_convergence(solver, multiclass_problem):
    task, X, Y = multiclass_problem()
    model = StructuredSVM(task, C=1.0, solver=solver, tol=1e-6).fit(X, Y)
    history = model.history_
    keys = {"iteration", "primal", "dual", "gap", "relative_gap", "n_constraints",
            "oracle_calls", "qp_time", "time", "certified"}
    assert all(set(record) == keys for record in history)
    assert all(record["certified"] for record in history)
    assert [r["iteration"] for r in history] == list(range(len(history)))
    assert history[0]["primal"] == pytest.approx(1.0 * sum(task.max_loss(y) for y in Y))
    assert all(r["gap"] >= -1e-9 * r["primal"] for r in history)
    assert np.all(np.diff([r["dual"] for r in history]) >= -1e-7)
    assert history[-1]["relative_gap"] <= 1e-6
    assert history[-1]["oracle_calls"] == len(history) * len(X)
    # The recorded primal objective is the exact one at the returned weights.
    oracle = loss_augmented_pass(task, X, Y, task.batch_joint_feature(X, Y), model.w_)
    exact = SlackPenalty().primal(model.w_ @ model.w_, oracle.slacks, 1.0)
    assert model.primal_objective_ == pytest.approx(exact)


@pytest.mark.parametrize("solver", CUTTING_PLANE)
def test_multiclass_special_case_is_the_crammer_singer_svm(solver, digits_split):
    X_train, X_test, y_train, y_test = digits_split
    task = MulticlassTask(n_classes=10, n_features=64)
    reference = LinearSVC(
        multi_class="crammer_singer", fit_intercept=False, C=1.0, tol=1e-8, max_iter=100_000
    ).fit(X_train, y_train)
    w_reference = reference.coef_.ravel()
    oracle = loss_augmented_pass(
        task, X_train, y_train, task.batch_joint_feature(X_train, y_train), w_reference
    )
    objective_reference = SlackPenalty().primal(w_reference @ w_reference, oracle.slacks, 1.0)
    assert objective_reference == pytest.approx(83.6726, abs=1e-3)

    model = StructuredSVM(task, C=1.0, solver=solver, tol=1e-5).fit(X_train, y_train)

    assert model.primal_objective_ == pytest.approx(objective_reference, rel=1e-4)
    assert model.score(X_test, y_test) > 0.95


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"C": 0}, "C must be > 0"),
        ({"C": -1.0}, "C must be > 0"),
        ({"C": np.inf}, "C must be a positive finite"),
        ({"tol": 0}, "tol must be > 0"),
        ({"solver": "smo"}, "solver must be one of"),
        ({"max_iter": 0}, "max_iter"),
        ({"solver": "bcfw", "order": "sorted"}, "order must be"),
    ],
)
def test_bad_parameters_are_rejected(params, message, multiclass_problem):
    task, X, Y = multiclass_problem()
    with pytest.raises(ValueError, match=message):
        StructuredSVM(task, **params).fit(X, Y)


def test_keyboard_interrupt_keeps_the_last_iteration(multiclass_problem):
    task, X, Y = multiclass_problem()

    class InterruptedTask(MulticlassTask):
        passes = 0

        def batch_loss_augmented_argmax(self, X, Y, w):
            InterruptedTask.passes += 1
            if InterruptedTask.passes == 4:
                raise KeyboardInterrupt
            return super().batch_loss_augmented_argmax(X, Y, w)

    interrupted = InterruptedTask(3, 3, loss_matrix=task.loss_matrix)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        model = StructuredSVM(interrupted, C=1.0).fit(X, Y)
    assert model.interrupted_
    assert not model.converged_
    assert model.n_iter_ == 2
    assert len(model.history_) == 3
    model.predict(X)


@pytest.mark.parametrize("solver", CUTTING_PLANE)
def test_a_tolerance_below_the_qp_precision_stops_with_a_warning_not_a_loop(solver):
    from sklearn.exceptions import ConvergenceWarning

    task = MulticlassTask(n_classes=2, n_features=1)
    X, Y = np.array([[0.12573022]]), np.array([1])
    # With the bound of its one dual variable active, the QP's solution is snapped onto the
    # bound and the gap may close exactly; otherwise the fit must stop with the warning.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = StructuredSVM(task, C=1 / 64, solver=solver, tol=1e-12).fit(X, Y)
    stalled = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert model.converged_ or any("stopped shrinking" in str(w.message) for w in stalled)
    assert model.n_iter_ <= 5
    assert model.history_[-1]["relative_gap"] < 1e-6


class WorstClassOracle(MulticlassTask):
    """Its loss-augmented oracle returns the lowest-scoring class: not a maximiser."""

    def batch_loss_augmented_argmax(self, X, Y, w):
        return np.argmin(self._class_scores(X, w), axis=1)


class NegativeLoss(MulticlassTask):
    def batch_loss(self, Y_true, Y):
        return super().batch_loss(Y_true, Y) - 2.0


class NaNFeatures(MulticlassTask):
    def batch_joint_feature(self, X, Y):
        features = super().batch_joint_feature(X, Y)
        features[0, 0] = np.nan
        return features


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (WorstClassOracle, "loss_augmented_argmax is not a maximiser"),
        (NegativeLoss, "NegativeLoss.batch_loss must return one finite loss >= 0"),
        (NaNFeatures, "NaNFeatures.batch_joint_feature returned NaN or infinite"),
    ],
)
@pytest.mark.parametrize("solver", SOLVERS)
def test_a_task_that_breaks_its_contract_during_fit_is_named(
    broken, message, solver, multiclass_problem
):
    from structsvm import TaskContractViolation

    _, X, Y = multiclass_problem()
    with pytest.raises(TaskContractViolation, match=message):
        StructuredSVM(broken(3, 3), C=1.0, solver=solver, max_iter=5).fit(X, Y)
