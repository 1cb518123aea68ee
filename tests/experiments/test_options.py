"""The solver options the benchmark scripts share: a seeded row is the same run each time."""

import numpy as np
import pytest

from experiments._options import FAST_BCFW, solver_and_options
from structsvm.solvers import SOLVERS


@pytest.mark.parametrize("name", ["bcfw", "bcfw pairwise", "dual-cd"])
def test_a_seeded_sampling_solvers_row_is_the_same_run_each_time(one_hot_multiclass, name):
    task, X, y = one_hot_multiclass(n=30, noise=0.8)
    solver, options = solver_and_options(name, seed=3)
    assert options["random_state"] == 3
    *_, first = SOLVERS[solver](task, X, y, 1.0, tol=1e-6, max_iter=4, **options)
    *_, second = SOLVERS[solver](task, X, y, 1.0, tol=1e-6, max_iter=4, **options)
    np.testing.assert_array_equal(first.w, second.w)


def test_rows_take_their_solver_at_its_defaults_and_only_samplers_take_a_seed():
    assert solver_and_options("bcfw pairwise") == ("bcfw", FAST_BCFW)
    assert solver_and_options("n-slack", seed=0) == ("n-slack", {})
    assert solver_and_options("1-slack") == ("1-slack", {})
