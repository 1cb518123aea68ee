"""Compiled perceptron epochs: the iterates of the Python loop, on shipped and user tasks."""

import numpy as np
import pytest

from structsvm.solvers._perceptron import perceptron
from tests.compiled_tasks import PairTask, interleaved_problem, multiclass_problem, pair_problem
from tests.references import perceptron_iterates

PROBLEMS = {
    "multiclass dense": lambda: multiclass_problem(False, 80),
    "multiclass sparse": lambda: multiclass_problem(True, 80),
    "label pairs (user task)": lambda: pair_problem(60),
    "interleaved classes (user task)": lambda: interleaved_problem(60),
}


def run(task, X, Y, compiled, **options):
    """Return every state's (w, history record, current weights) of a 4-epoch run."""
    return [
        (state.w.copy(), dict(state.history[-1], time=0.0), state.dual_state.w.copy())
        for state in perceptron(task, X, Y, max_iter=4, compiled=compiled, **options)
    ]


@pytest.mark.parametrize("averaged", [False, True])
@pytest.mark.parametrize("name", PROBLEMS)
def test_compiled_epochs_make_the_iterates_of_the_python_loop(name, averaged):
    task, X, Y = PROBLEMS[name]()
    compiled = run(task, X, Y, True, averaged=averaged, random_state=0)
    python = run(task, X, Y, False, averaged=averaged, random_state=0)
    assert len(compiled) == len(python)
    for (w, record, current), (w_ref, record_ref, current_ref) in zip(compiled, python):
        assert record == record_ref
        np.testing.assert_array_equal(current, current_ref)
        np.testing.assert_array_equal(w, w_ref)


def test_compiled_epochs_in_order_are_the_textbook_perceptron():
    task, X, Y = pair_problem(20)
    snapshots = perceptron_iterates(task, X, Y, epochs=2)
    states = list(perceptron(task, X, Y, max_iter=2, shuffle=False, averaged=True))
    np.testing.assert_allclose(states[-1].dual_state.w, snapshots[-1])
    np.testing.assert_allclose(states[-1].w, np.mean(snapshots, axis=0))


def test_a_continued_compiled_run_goes_on_as_one_run():
    task, X, Y = interleaved_problem(40)
    *_, whole = perceptron(task, X, Y, max_iter=4, random_state=1, averaged=True)
    *_, first = perceptron(task, X, Y, max_iter=2, random_state=1, averaged=True)
    *_, rest = perceptron(task, X, Y, max_iter=2, averaged=True, initial_state=first)
    np.testing.assert_array_equal(rest.w, whole.w)
    counts = [(r["epoch"], r["mistakes"], r["n_updates"]) for r in rest.history]
    assert counts == [(r["epoch"], r["mistakes"], r["n_updates"]) for r in whole.history]


def test_compiled_true_needs_a_compiled_oracle():
    class PythonOnly(PairTask):
        def compiled_oracle(self, X, Y):
            return None

    _, X, Y = pair_problem(5)
    with pytest.raises(ValueError, match="compiled=True cannot be met"):
        next(perceptron(PythonOnly(3), X, Y, compiled=True))
