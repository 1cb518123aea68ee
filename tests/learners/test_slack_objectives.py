"""Slack rescaling and squared slacks: every solver against the full QP with every constraint."""

import numpy as np
import pytest

from structsvm import StructuredSVM
from structsvm.solvers import bcfw
from structsvm.solvers._n_slack import n_slack
from structsvm.solvers._one_slack import one_slack
from tasks import ChainTask, MulticlassTask
from tests.references import solve_full_primal

OBJECTIVES = [("slack", 1), ("margin", 2), ("slack", 2)]


def tiny_multiclass():
    rng = np.random.default_rng(0)
    losses = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    X = rng.normal(size=(12, 3))
    return MulticlassTask(3, 3, loss_matrix=losses), X, rng.integers(0, 3, 12)


def tiny_chains():
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(rng.integers(1, 4), 2)) for _ in range(6)]
    Y = [(x[:, 0] + 0.5 * rng.normal(size=len(x)) > 0).astype(int) for x in X]
    return ChainTask(2, 2, start_end=True), X, Y


@pytest.fixture(params=["multiclass", "chains", "pair labelling"])
def problem(request, pair_problem):
    """(task, X, Y): the pair labelling has only the base class's enumerating oracles."""
    if request.param == "pair labelling":
        return pair_problem(n=8)
    return {"multiclass": tiny_multiclass, "chains": tiny_chains}[request.param]()


@pytest.mark.parametrize(("rescaling", "slack_norm"), OBJECTIVES)
@pytest.mark.parametrize("solver", ["n-slack", "1-slack"])
def test_cutting_plane_solvers_reach_the_full_qp_optimum(problem, rescaling, slack_norm, solver):
    task, X, Y = problem
    C = 1.0
    w_star, _, optimum = solve_full_primal(
        task, X, Y, C, rescaling, slack_norm, one_slack=solver == "1-slack"
    )
    model = StructuredSVM(
        task, C=C, solver=solver, rescaling=rescaling, slack_norm=slack_norm, tol=1e-8
    ).fit(X, Y)
    assert model.converged_
    assert model.primal_objective_ == pytest.approx(optimum, rel=1e-6)
    assert all(record["dual"] <= optimum * (1 + 1e-9) for record in model.history_)
    np.testing.assert_allclose(model.w_, w_star, atol=1e-3 * max(1.0, np.abs(w_star).max()))


@pytest.mark.parametrize(("rescaling", "slack_norm"), OBJECTIVES)
def test_bcfw_certifies_a_bracket_of_the_full_qp_optimum(problem, rescaling, slack_norm):
    task, X, Y = problem
    C = 1.0
    _, _, optimum = solve_full_primal(task, X, Y, C, rescaling, slack_norm)
    model = StructuredSVM(
        task,
        C=C,
        solver="bcfw",
        rescaling=rescaling,
        slack_norm=slack_norm,
        tol=1e-2,
        max_iter=400,
        random_state=0,
    ).fit(X, Y)
    # Every pass: the dual is a lower bound and the primal an upper bound of the optimum.
    for record in model.history_:
        assert record["dual"] <= optimum * (1 + 1e-9)
        assert record["primal"] >= optimum * (1 - 1e-9)
    assert model.converged_
    assert model.primal_objective_ <= optimum * (1 + 1e-2)


def test_one_slack_with_squared_slacks_penalises_the_summed_slack():
    task, X, Y = tiny_multiclass()
    one = StructuredSVM(task, solver="1-slack", slack_norm=2, tol=1e-8).fit(X, Y)
    n = StructuredSVM(task, solver="n-slack", slack_norm=2, tol=1e-8).fit(X, Y)
    _, xi, _ = solve_full_primal(task, X, Y, 1.0, slack_norm=2, one_slack=True)
    w = one.w_
    assert one.primal_objective_ == pytest.approx(0.5 * w @ w + 0.5 * xi.sum() ** 2, rel=1e-6)
    assert one.primal_objective_ > n.primal_objective_


@pytest.mark.parametrize("solver", ["n-slack", "1-slack", "bcfw"])
def test_a_change_of_objective_is_refused_when_continuing(solver):
    task, X, Y = tiny_multiclass()
    model = StructuredSVM(task, solver=solver, max_iter=2, warm_start=True)
    with pytest.warns(Warning):
        model.fit(X, Y)
    model.set_params(rescaling="slack")
    with pytest.raises(ValueError, match="the rescaling changed: 'margin' before, 'slack' now"):
        model.fit(X, Y)


def test_squared_slack_sub_qps_over_small_blocks_reach_the_full_qp_optimum(multiclass_problem):
    task, X, Y = multiclass_problem(seed=2, n=20)
    _, _, optimum = solve_full_primal(task, X, Y, 1.0, "slack", 2)
    *_, state = n_slack(
        task, X, Y, 1.0, tol=1e-8, max_block_constraints=3, rescaling="slack", slack_norm=2
    )
    assert state.converged
    assert state.history[-1]["primal"] == pytest.approx(optimum, rel=1e-6)


@pytest.mark.parametrize("solver", [n_slack, one_slack, bcfw])
@pytest.mark.parametrize(
    ("option", "value"), [("rescaling", "slak"), ("slack_norm", 3), ("slack_norm", True)]
)
def test_solvers_name_a_bad_objective_option(solver, option, value):
    task, X, Y = tiny_multiclass()
    with pytest.raises(ValueError, match=f"{option} must be one of"):
        next(solver(task, X, Y, 1.0, **{option: value}))
