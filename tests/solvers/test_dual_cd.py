"""Exact dual coordinate descent: its optimum, its certified gap, and the tasks it takes."""

import numpy as np
import pytest
import scipy.sparse
from sklearn.svm import LinearSVC

from structsvm import StructuredSVM
from structsvm.solvers import dual_coordinate_descent, n_slack
from tasks import ChainTask, MulticlassTask
from tests.compiled_tasks import (
    ASYMMETRIC_LOSS,
    SharedInputClasses,
    interleaved_problem,
    pair_problem,
)
from tests.references import solve_full_primal


def dual_cd_problem(loss_matrix=None, sparse=False, n=30, zero_rows=0):
    rng = np.random.default_rng(3)
    Y = rng.integers(0, 4, n)
    X = rng.normal(size=(n, 5)) + 1.5 * np.eye(4, 5)[Y]
    X[rng.random(X.shape) < 0.2] = 0.0
    X[:zero_rows] = 0.0
    task = MulticlassTask(4, 5, loss_matrix=loss_matrix)
    return (task, *task.check_data(scipy.sparse.csr_matrix(X) if sparse else X, Y))


def run(task, X, Y, C, tol=1e-10, **options):
    """Return the last state of a dual-cd run."""
    *_, last = dual_coordinate_descent(task, X, Y, C, tol=tol, random_state=0, **options)
    return last


def primal_by_hand(X, Y, w, C, loss_matrix):
    """½‖W‖² + C Σ_i max_y (Δ(y_i, y) + W[y]·x_i − W[y_i]·x_i), from the definition."""
    X = X.toarray() if scipy.sparse.issparse(X) else np.asarray(X)
    W = w.reshape(loss_matrix.shape[0], X.shape[1])
    scores = X @ W.T
    margins = loss_matrix[Y] + scores - scores[np.arange(len(Y)), Y][:, None]
    return 0.5 * w @ w + C * margins.max(axis=1).sum()


@pytest.mark.parametrize("loss_matrix", [None, ASYMMETRIC_LOSS])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("C", [0.1, 2.0])
def test_reaches_the_optimum_of_the_full_qp(loss_matrix, sparse, C):
    task, X, Y = dual_cd_problem(loss_matrix, sparse, zero_rows=2)
    state = run(task, X, Y, C)
    dense = X.toarray() if sparse else X
    w_ref, _, objective = solve_full_primal(task, list(dense), list(Y), C)
    record = state.history[-1]
    assert state.converged and record["certified"]
    assert record["relative_gap"] <= 1e-10
    np.testing.assert_allclose(record["primal"], objective, rtol=1e-8)
    np.testing.assert_allclose(state.w, w_ref, atol=1e-5)


def test_certified_gap_is_valid_at_every_pass():
    """Each record's primal is the objective at w recomputed by hand, and gap >= 0 with the
    dual below the optimum of the full QP."""
    task, X, Y = dual_cd_problem(ASYMMETRIC_LOSS, n=40)
    C = 1.0
    _, _, optimum = solve_full_primal(task, list(X), list(Y), C)
    records = 0
    for state in dual_coordinate_descent(task, X, Y, C, tol=1e-9, random_state=1):
        record = state.history[-1]
        by_hand = primal_by_hand(X, Y, state.w, C, task.loss_matrix)
        np.testing.assert_allclose(record["primal"], by_hand, rtol=1e-12)
        assert record["gap"] >= 0.0
        assert record["dual"] <= optimum * (1 + 1e-9)
        assert record["primal"] >= optimum * (1 - 1e-9)
        beta = state.dual_state.beta
        assert np.all(beta >= 0.0)
        np.testing.assert_allclose(beta.sum(axis=1), C, rtol=1e-12)
        records += 1
    assert state.converged and records > 2


def test_agrees_with_n_slack():
    task, X, Y = dual_cd_problem(ASYMMETRIC_LOSS, n=60)
    states = list(n_slack(task, X, Y, 0.5, tol=1e-8))
    state = run(task, X, Y, 0.5, tol=1e-8)
    np.testing.assert_allclose(
        state.history[-1]["primal"], states[-1].history[-1]["primal"], rtol=1e-7
    )
    np.testing.assert_allclose(state.w, states[-1].w, atol=1e-3)


def test_linear_svc_crammer_singer_solves_the_same_problem_with_the_same_C():
    """LinearSVC's ``C`` multiplies the summed hinge losses, as structsvm's does."""
    task, X, Y = dual_cd_problem(n=50)
    C = 0.7
    state = run(task, X, Y, C, tol=1e-10)
    reference = LinearSVC(
        multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-10, max_iter=1_000_000
    ).fit(X, Y)
    reference_w = reference.coef_.ravel()
    reference_primal = primal_by_hand(X, Y, reference_w, C, task.loss_matrix)
    np.testing.assert_allclose(state.history[-1]["primal"], reference_primal, rtol=1e-6)
    np.testing.assert_allclose(state.w, reference_w, atol=1e-3)


def test_cyclic_order_and_continuing_a_run():
    task, X, Y = dual_cd_problem(n=40)
    whole = run(task, X, Y, 1.0, tol=0.0, max_iter=6, order="cyclic")
    first = run(task, X, Y, 1.0, tol=0.0, max_iter=3, order="cyclic")
    rest = run(task, X, Y, 1.0, tol=0.0, max_iter=3, order="cyclic", initial_state=first)
    np.testing.assert_array_equal(rest.w, whole.w)
    assert [r["iteration"] for r in rest.history] == list(range(7))
    assert len(first.history) == 4  # the continued run left it alone


def test_structured_svm_takes_the_solver():
    task, X, Y = dual_cd_problem(n=40)
    model = StructuredSVM(task, C=1.0, solver="dual-cd", tol=1e-6, random_state=0).fit(X, Y)
    assert model.converged_
    _, _, objective = solve_full_primal(task, list(X), list(Y), 1.0)
    np.testing.assert_allclose(model.history_[-1]["primal"], objective, rtol=1e-5)
    model.set_params(warm_start=True, tol=1e-9).fit(X, Y)
    assert model.history_[-1]["relative_gap"] <= 1e-9


def test_refuses_tasks_and_options_it_cannot_solve():
    task, X, Y = dual_cd_problem(n=10)
    with pytest.raises(ValueError, match="margin rescaling with L1 slacks"):
        run(task, X, Y, 1.0, slack_norm=2)
    with pytest.raises(ValueError, match="margin rescaling with L1 slacks"):
        run(task, X, Y, 1.0, rescaling="slack")
    with pytest.raises(ValueError, match="order must be one of"):
        run(task, X, Y, 1.0, order="sorted")

    class OwnLoss(MulticlassTask):
        def loss(self, y_true, y):
            return 2.0 * float(y_true != y)

    with pytest.raises(ValueError, match=r"OwnLoss\.compiled_oracle returned None"):
        run(OwnLoss(4, 5), X, Y, 1.0)
    chain = ChainTask(2, 3)
    chain_X, chain_Y = chain.check_data([np.ones((2, 3))], [np.array([0, 1])])
    chain_refusal = r"ChainTask\.compiled_oracle (returned None|does not set n_outputs)"
    with pytest.raises(ValueError, match=chain_refusal):
        run(chain, chain_X, chain_Y, 1.0)
    pair, pair_X, pair_Y = pair_problem(5)
    with pytest.raises(ValueError, match=r"PairTask\.compiled_oracle does not set n_outputs"):
        run(pair, pair_X, pair_Y, 1.0)


def test_refuses_outputs_without_a_closed_form_step():
    _, X, Y = interleaved_problem(10)
    task = SharedInputClasses(ASYMMETRIC_LOSS, 5)
    with pytest.raises(ValueError, match="mutually orthogonal with equal norms"):
        run(task, X, Y, 1.0)


@pytest.mark.parametrize("signs", [(1.0, 1.0, 1.0, 1.0), (1.0, -1.0, 1.0, -1.0)])
def test_a_user_task_with_orthogonal_outputs_reaches_the_optimum_of_the_full_qp(signs):
    """Classes laid out by the task (φ(x, y)[j K + y] = s_y x[j]), some of other values."""
    task, X, Y = interleaved_problem(30, signs=signs)
    state = run(task, X, Y, 0.5)
    w_ref, _, objective = solve_full_primal(task, list(X), list(Y), 0.5)
    assert state.converged and state.history[-1]["certified"]
    np.testing.assert_allclose(state.history[-1]["primal"], objective, rtol=1e-8)
    np.testing.assert_allclose(state.w, w_ref, atol=1e-5)
