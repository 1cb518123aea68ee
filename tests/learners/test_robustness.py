"""Every solver copes with extreme C and degenerate training sets, and says so when it cannot.

Against the full QP of :mod:`tests.references`: a fit that converged is within its ``tol`` of the
optimum; one that did not warns with a ConvergenceWarning and keeps an exact history (finite
weights, a recorded primal objective that is the one of the returned weights, a recorded dual
objective below the optimum and a recorded gap above ``tol``).
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from structsvm import StructuredSVM
from structsvm.solvers._objective import SlackPenalty
from structsvm.solvers._oracle import loss_augmented_pass
from tasks import ChainTask, MulticlassTask
from tests.references import solve_full_primal

SOLVERS = ["n-slack", "1-slack", "bcfw"]
TOL = 1e-4
# Above the optimum by the allowed gap, plus what the reference QP's own precision allows.
ABSOLUTE = 1e-9


@pytest.fixture
def small_multiclass(ordinal_classes):
    return MulticlassTask(3, 3), *ordinal_classes(n=12)


@pytest.fixture
def small_chain(label_sequences):
    return ChainTask(3, 3), *label_sequences(8, 3, (1, 3), 0.7, seed=3)


@pytest.fixture(params=["multiclass", "chain"])
def problem(request, small_multiclass, small_chain):
    return {"multiclass": small_multiclass, "chain": small_chain}[request.param]


def fit(task, X, Y, solver, C, **params):
    """Fit, returning the model and the ConvergenceWarnings it raised."""
    params = {"tol": TOL, "random_state": 0, **params}
    if solver == "bcfw":
        params.setdefault("max_iter", 100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = StructuredSVM(task, C=C, solver=solver, **params).fit(X, Y)
    return model, [w for w in caught if issubclass(w.category, ConvergenceWarning)]


def assert_matches_the_full_qp(model, warned, task, X, Y, C):
    _, _, optimum = solve_full_primal(task, X, Y, C)
    assert np.all(np.isfinite(model.w_))
    last = model.history_[-1]
    # The history is exact whether or not the fit converged.
    oracle = loss_augmented_pass(task, X, Y, task.batch_joint_feature(X, Y), model.w_)
    exact = SlackPenalty().primal(model.w_ @ model.w_, oracle.slacks, C)
    # The passes sum the slacks in their own order (a compiled pass in blocks): each slack's
    # rounding, a few ulps of the scores, counts C times.
    assert last["primal"] == pytest.approx(exact, rel=1e-12, abs=C * len(X) * 1e-14)
    assert last["primal"] >= optimum * (1 - 1e-6) - ABSOLUTE
    assert all(r["dual"] <= optimum * (1 + 1e-6) + ABSOLUTE for r in model.history_)
    if model.converged_:
        assert not warned
        assert last["relative_gap"] <= TOL
        assert last["primal"] <= optimum * (1 + TOL) + ABSOLUTE
    else:
        assert warned, "a fit that stopped short of tol must warn"
        assert last["relative_gap"] > TOL


@pytest.mark.parametrize("C", [1e-6, 1e-3, 1.0, 1e3, 1e6])
@pytest.mark.parametrize("solver", SOLVERS)
def test_extreme_C_is_solved_or_reported(problem, solver, C):
    task, X, Y = problem
    model, warned = fit(task, X, Y, solver, C)
    assert_matches_the_full_qp(model, warned, task, X, Y, C)
    if solver != "bcfw":
        # The cutting planes certify the optimum at every C on these problems (1-slack at
        # C = 1e6 on chains only to the QP's precision, with a warning that says so).
        assert model.converged_ or (solver == "1-slack" and C == 1e6)


def test_bcfw_at_a_huge_C_warns_that_max_iter_ran_out(small_multiclass):
    task, X, Y = small_multiclass
    with pytest.warns(ConvergenceWarning, match="stopped after max_iter=20 iterations"):
        model = StructuredSVM(task, C=1e6, solver="bcfw", max_iter=20, random_state=0).fit(X, Y)
    assert not model.converged_ and model.n_iter_ == 20


@pytest.fixture
def degenerate(small_multiclass, small_chain):
    """Factory ``(kind) -> (task, X, Y)`` of the degenerate training set named ``kind``."""

    def make(kind):
        task, X, Y = small_multiclass
        if kind == "constant features":
            return task, np.full_like(X, 0.7), Y
        if kind == "all-zero features":
            return task, np.zeros_like(X), Y
        if kind == "a single class in Y":
            return task, X, np.zeros_like(Y)
        if kind == "a single example":
            return task, X[:1], Y[:1]
        if kind == "duplicate examples":
            return task, np.vstack([X, X, X[:3]]), np.concatenate([Y, Y, Y[:3]])
        chain, X, Y = small_chain
        if kind == "sequences of length 1":
            return chain, [x[:1] for x in X], [y[:1] for y in Y]
        if kind == "one sequence of length 1":
            return chain, [X[0][:1]], [Y[0][:1]]
        if kind == "duplicate sequences":
            return chain, X + X, Y + Y
        raise ValueError(kind)

    return make


DEGENERATE = [
    "constant features",
    "all-zero features",
    "a single class in Y",
    "a single example",
    "duplicate examples",
    "sequences of length 1",
    "one sequence of length 1",
    "duplicate sequences",
]


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("kind", DEGENERATE)
def test_degenerate_training_sets_are_solved(kind, solver, degenerate):
    task, X, Y = degenerate(kind)
    C = 1.0
    model, warned = fit(task, X, Y, solver, C, **({"max_iter": 300} if solver == "bcfw" else {}))
    assert_matches_the_full_qp(model, warned, task, X, Y, C)
    if solver != "bcfw":
        assert model.converged_
    model.predict(X)


def test_bcfw_certifies_the_optimum_in_one_pass_when_the_features_vanish(degenerate):
    # Every direction is zero: the line search takes the full step to the most violating
    # output, so the blocks' losses reach the primal objective in a single pass.
    task, X, Y = degenerate("all-zero features")
    model, _ = fit(task, X, Y, "bcfw", 1.0, max_iter=1, averaging=False)
    assert model.converged_


@pytest.mark.parametrize("solver", SOLVERS)
def test_all_zero_features_give_zero_weights_and_the_whole_loss(solver, degenerate):
    task, X, Y = degenerate("all-zero features")
    model, _ = fit(task, X, Y, solver, 1.0)
    np.testing.assert_array_equal(model.w_, 0.0)
    worst = sum(task.max_loss(y) for y in Y)
    assert model.primal_objective_ == pytest.approx(worst)


@pytest.mark.parametrize("solver", ["n-slack", "1-slack"])
def test_duplicate_examples_double_the_dual_variables_not_the_weights(solver, small_multiclass):
    task, X, Y = small_multiclass
    once, _ = fit(task, X, Y, solver, 1.0, tol=1e-8)
    twice, _ = fit(task, np.vstack([X, X]), np.concatenate([Y, Y]), solver, 0.5, tol=1e-8)
    # Two copies at C/2: ½‖w‖² + (C/2)·2·Σξ is ½‖w‖² + C·Σξ, the same problem, though each
    # working set holds every constraint twice.
    np.testing.assert_allclose(twice.w_, once.w_, atol=1e-5)
    assert twice.primal_objective_ == pytest.approx(once.primal_objective_, rel=1e-6)
