"""BCFW's keep_best: the certificate from the best primal and dual evaluated so far."""

import copy

import numpy as np
import pytest

from structsvm.solvers import bcfw
from tests.references import solve_full_primal


def enumerated_primal(task, X, Y, C, w):
    """``½‖w‖² + C Σ_i max_y (Δ(y_i, y) − w · ψ_i(y))⁺`` with every output enumerated."""
    slacks = []
    for x, y_true in zip(X, Y):
        true_score = w @ task.joint_feature(x, y_true)
        slacks.append(
            max(
                max(task.loss(y_true, y) - true_score + w @ task.joint_feature(x, y), 0.0)
                for y in task.outputs(x)
            )
        )
    return 0.5 * w @ w + C * sum(slacks)


@pytest.mark.parametrize("averaging", [True, False])
def test_best_bounds_are_valid_and_the_weights_achieve_the_primal(full_qp_problem, averaging):
    task, X, Y = full_qp_problem
    C = 0.5
    _, _, objective_star = solve_full_primal(task, X, Y, C)
    options = {"averaging": averaging, "order": "gap", "random_state": 0, "max_iter": 12}
    best = [(s.w.copy(), dict(s.history[-1])) for s in bcfw(task, X, Y, C, tol=0.0,
                                                             keep_best=True, **options)]
    last = [(s.w.copy(), dict(s.history[-1])) for s in bcfw(task, X, Y, C, tol=0.0, **options)]
    assert len(best) == len(last)
    lowest, highest = np.inf, -np.inf
    for (w, record), (_, plain) in zip(best, last, strict=True):
        # The same evaluations as without keep_best, and the certificate is their best.
        assert record["evaluated_primal"] == plain["primal"] == plain["evaluated_primal"]
        assert record["evaluated_dual"] == plain["dual"] == plain["evaluated_dual"]
        lowest = min(lowest, plain["primal"])
        highest = max(highest, plain["dual"])
        assert (record["primal"], record["dual"]) == (lowest, highest)
        assert record["primal"] >= objective_star * (1 - 1e-9)
        assert record["dual"] <= objective_star * (1 + 1e-9)
        np.testing.assert_allclose(enumerated_primal(task, X, Y, C, w), record["primal"],
                                   rtol=1e-10)


def test_a_run_continued_from_an_earlier_best_takes_the_uninterrupted_steps(pair_problem):
    task, X, Y = pair_problem()
    options = {"averaging": True, "random_state": 0, "keep_best": True, "tol": 0.0}
    straight = [copy.deepcopy(s) for s in bcfw(task, X, Y, 5.0, max_iter=30, **options)]
    # A state whose weights are an earlier evaluation's keeps the evaluated average apart.
    resumable = next(s for s in straight if s.dual_state.evaluated_w is not None)
    first = resumable.history[-1]["iteration"]
    later = [copy.deepcopy(s) for s in bcfw(task, X, Y, 5.0, max_iter=30 - first,
                                            initial_state=resumable, **options)]
    assert len(later) == 30 - first
    for resumed, uninterrupted in zip(later, straight[first + 1:], strict=True):
        np.testing.assert_allclose(resumed.history[-1]["evaluated_primal"],
                                   uninterrupted.history[-1]["evaluated_primal"], rtol=1e-10)
        np.testing.assert_allclose(resumed.w, uninterrupted.w, rtol=1e-10, atol=1e-12)

