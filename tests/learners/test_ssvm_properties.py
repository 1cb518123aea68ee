"""Property-based checks: on any small problem the solvers reach the optimum of the full QP."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from structsvm import StructuredSVM
from tasks import ChainTask, MulticlassTask
from tests.references import solve_full_primal


@st.composite
def multiclass_problems(draw):
    n_classes = draw(st.integers(2, 4))
    n_features = draw(st.integers(1, 3))
    n_examples = draw(st.integers(1, 8))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_examples, n_features))
    Y = rng.integers(0, n_classes, n_examples)
    return MulticlassTask(n_classes, n_features), X, Y


@st.composite
def chain_problems(draw):
    n_labels = draw(st.integers(2, 3))
    n_features = draw(st.integers(1, 2))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 4, size=draw(st.integers(1, 4)))
    X = [rng.normal(size=(length, n_features)) for length in lengths]
    Y = [rng.integers(0, n_labels, length) for length in lengths]
    return ChainTask(n_labels, n_features), X, Y


@settings(max_examples=100, deadline=None)
@given(
    problem=st.one_of(multiclass_problems(), chain_problems()),
    C=st.floats(1e-2, 1e2),
    solver=st.sampled_from(["n-slack", "1-slack"]),
)
def test_the_solvers_reach_the_full_qp_optimum(problem, C, solver):
    task, X, Y = problem
    _, _, objective_star = solve_full_primal(task, X, Y, C)

    model = StructuredSVM(task, C=C, solver=solver, tol=1e-6).fit(X, Y)

    assert model.converged_
    assert abs(model.primal_objective_ - objective_star) <= 1e-5 * max(1.0, objective_star)
    assert model.dual_objective_ <= objective_star + 1e-7 * max(1.0, objective_star)
