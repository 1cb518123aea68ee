"""The 1-slack solver's in-out smoothing: oracle calls between the best weights and the QP's."""

import itertools

import numpy as np
import pytest

from structsvm.solvers._one_slack import one_slack
from tests.references import solve_full_primal


@pytest.mark.parametrize("smoothing", [0.3, 1.0])
def test_smoothed_and_plain_1_slack_reach_the_full_qp_optimum(full_qp_problem, smoothing):
    task, X, Y = full_qp_problem
    w_star, _, objective_star = solve_full_primal(task, X, Y, 1.0)
    *_, state = one_slack(task, X, Y, 1.0, tol=1e-8, smoothing=smoothing)
    assert state.converged
    last = state.history[-1]
    np.testing.assert_allclose(last["primal"], objective_star, rtol=1e-6)
    np.testing.assert_allclose(state.w, w_star, atol=1e-4 * max(1.0, np.abs(w_star).max()))
    assert last["dual"] <= objective_star * (1 + 1e-9)


def test_with_smoothing_the_reported_primal_is_that_of_the_best_weights_so_far(
    multiclass_problem,
):
    task, X, Y = multiclass_problem(seed=1, n=60)
    primals = [state.history[-1]["primal"] for state in one_slack(task, X, Y, 1.0, tol=1e-6)]
    assert all(later <= earlier for earlier, later in itertools.pairwise(primals))


def test_smoothing_needs_fewer_iterations_on_digits(digits_split):
    from tasks import MulticlassTask

    X, _, y, _ = digits_split
    X, y = X[:400], y[:400]
    task = MulticlassTask(10, 64)
    iterations = {}
    for smoothing in (0.3, 1.0):
        *_, state = one_slack(task, X, y, 1.0, tol=1e-3, smoothing=smoothing)
        assert state.converged
        iterations[smoothing] = state.history[-1]["iteration"]
    assert iterations[0.3] < iterations[1.0]
