"""The n-slack solver on compiled passes: the iterates of its Python passes, and the optimum."""

import numpy as np
import pytest

from structsvm.solvers import n_slack
from tasks import MulticlassTask
from tests.compiled_tasks import PairTask, multiclass_problem, pair_problem
from tests.references import solve_full_primal


class PythonMulticlass(MulticlassTask):
    """A multiclass task whose passes are the Python ones."""

    def compiled_oracle(self, X, Y):
        return None


class PythonPairs(PairTask):
    """The label pairs task without its compiled oracle."""

    def compiled_oracle(self, X, Y):
        return None


def last_state(task, X, Y, C, tol=1e-6, **options):
    *_, state = n_slack(task, X, Y, C, tol=tol, **options)
    return state


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("slack_norm", [1, 2])
def test_multiclass_fits_are_those_of_the_python_passes(sparse, slack_norm):
    task, X, Y = multiclass_problem(sparse, 60)
    options = {"slack_norm": slack_norm, "tol": 1e-4}
    compiled = last_state(task, X, Y, 0.5, **options)
    python = last_state(PythonMulticlass(4, 5, loss_matrix=task.loss_matrix), X, Y, 0.5, **options)
    assert compiled.converged
    assert [r["primal"] for r in compiled.history] == [r["primal"] for r in python.history]
    np.testing.assert_array_equal(compiled.w, python.w)
    threaded = last_state(task, X, Y, 0.5, n_jobs=2, **options)
    np.testing.assert_array_equal(threaded.w, compiled.w)


def test_a_user_task_fits_as_with_its_python_methods_and_reaches_the_full_qp_optimum():
    task, X, Y = pair_problem(12)
    compiled = last_state(task, X, Y, 1.0)
    python = last_state(PythonPairs(task.d), X, Y, 1.0)
    assert len(compiled.history) == len(python.history)
    np.testing.assert_allclose(compiled.w, python.w, rtol=1e-10, atol=1e-12)
    assert compiled.converged and compiled.history[-1]["certified"]
    w_star, _, objective = solve_full_primal(task, X, Y, 1.0)
    assert compiled.history[-1]["primal"] == pytest.approx(objective, rel=1e-5)
    np.testing.assert_allclose(compiled.w, w_star, atol=1e-3)
