"""The compiled-BCFW benchmark times both paths on the same iterates."""

import numpy as np

from experiments.bench_bcfw_compiled import digits_problem, row, run


def test_both_paths_of_the_benchmark_give_the_same_weights_and_rows():
    task, X, Y, C = digits_problem()
    X, Y = X[:40], Y[:40]
    compiled_history, compiled_w = run(task, X, Y, C, True, max_iter=3)
    generic_history, generic_w = run(task, X, Y, C, False, max_iter=3)
    np.testing.assert_allclose(compiled_w[-1], generic_w[-1], rtol=0, atol=1e-10)
    for history in (compiled_history, generic_history):
        entry = row("run", history)
        assert entry["passes"] == 3 and entry["per pass [ms]"] > 0
        assert entry["rel. gap"] == history[-1]["relative_gap"]
