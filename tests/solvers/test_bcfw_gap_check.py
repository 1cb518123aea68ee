"""BCFW's gap_check_every: the certified duality gap after every k-th pass only."""

import warnings

import numpy as np
import pytest

from structsvm import StructuredSVM
from structsvm.solvers import bcfw
from tests.interruptions import interrupting
from tests.references import solve_full_primal


def checked(*args, **options):
    """Run bcfw; return the weights and the last record of every state, as yielded."""
    return [(state.w.copy(), dict(state.history[-1])) for state in bcfw(*args, **options)]


def iterations(run):
    return [record["iteration"] for _, record in run]


@pytest.mark.parametrize(
    "options",
    [
        {"averaging": True},
        {"averaging": False, "order": "gap", "gap_sweep_every": 3},
        {"averaging": True, "order": "gap", "cache_size": 2},
    ],
)
def test_checking_every_few_passes_reaches_the_optimum_of_the_full_qp(full_qp_problem, options):
    task, X, Y = full_qp_problem
    C, tol, k = 0.5, 1e-4, 4
    _, _, objective_star = solve_full_primal(task, X, Y, C)
    model = StructuredSVM(
        task, C=C, solver="bcfw", tol=tol, max_iter=3000, random_state=0, gap_check_every=k,
        **options,
    ).fit(X, Y)
    assert model.converged_
    assert objective_star * (1 - 1e-9) <= model.primal_objective_ <= objective_star * (1 + tol)
    assert all(record["iteration"] % k == 0 for record in model.history_)
    for record in model.history_:
        assert record["certified"]
        assert record["primal"] >= objective_star * (1 - 1e-9)
        assert record["dual"] <= objective_star * (1 + 1e-9)


def test_the_default_checks_every_pass_and_k_only_removes_evaluations(chain_problem):
    task, X, Y = chain_problem(n_sequences=15)
    n = len(X)
    default = checked(task, X, Y, 1.0, tol=1e-12, max_iter=6, random_state=3)
    every = checked(task, X, Y, 1.0, tol=1e-12, max_iter=6, random_state=3, gap_check_every=1)
    assert iterations(default) == list(range(7))
    for (w, record), (w_every, record_every) in zip(default, every, strict=True):
        np.testing.assert_array_equal(w, w_every)
        assert {**record, "time": 0} == {**record_every, "time": 0}
    # Without averaging the passes between evaluations leave the iterates' bits alone; the
    # only difference is the n oracle calls of each skipped evaluation.
    for compiled in (True, False):
        runs = {
            k: checked(task, X, Y, 1.0, tol=1e-12, max_iter=6, random_state=3,
                       averaging=False, compiled=compiled, gap_check_every=k)
            for k in (1, 3)
        }
        assert iterations(runs[3]) == [0, 3, 6]
        for w, record in runs[3]:
            w_every, record_every = runs[1][record["iteration"]]
            np.testing.assert_array_equal(w, w_every)
            assert record["primal"] == record_every["primal"]
            skipped = record["iteration"] - record["iteration"] // 3
            assert record["oracle_calls"] == record_every["oracle_calls"] - n * skipped


@pytest.mark.parametrize("compiled", [True, False])
def test_a_budget_between_checks_ends_certified_and_its_continuation_follows_the_whole_run(
    chain_problem, compiled
):
    task, X, Y = chain_problem(n_sequences=15)
    n = len(X)
    options = {
        "gap_check_every": 3, "order": "gap", "gap_sweep_every": 2, "averaging": False,
        "random_state": 2, "compiled": compiled,
    }
    whole = checked(task, X, Y, 1.0, tol=1e-12, max_iter=12, **options)
    first = list(bcfw(task, X, Y, 1.0, tol=1e-12, max_iter=7, **options))
    rest = checked(task, X, Y, 1.0, tol=1e-12, max_iter=5, initial_state=first[-1], **options)
    assert iterations(whole) == [0, 3, 6, 9, 12]
    assert [record["iteration"] for record in first[-1].history] == [0, 3, 6, 7]
    assert iterations(rest) == [9, 12]
    # The cache's acceptance rule goes on comparing with the gap checked on schedule.
    history = first[-1].history
    assert first[-1].dual_state.duality_gap == history[2]["gap"] != history[3]["gap"]
    # The extra evaluation after pass 7 changed neither the gap sampling nor the iterates.
    for (w, record), (w_whole, record_whole) in zip(rest, whole[-2:], strict=True):
        np.testing.assert_allclose(w, w_whole, rtol=1e-12, atol=1e-14)
        assert record["oracle_calls"] == record_whole["oracle_calls"] + n


def test_an_interrupted_fit_keeps_the_last_checked_pass_and_a_warm_start_follows_the_whole_fit(
    multiclass_problem,
):
    task, X, Y = multiclass_problem()
    settings = {"solver": "bcfw", "tol": 1e-3, "random_state": 0, "gap_check_every": 3}
    full = StructuredSVM(task, max_iter=300, **settings).fit(X, Y)
    # The 3rd evaluation is that of pass 6: the fit keeps pass 3.
    model = StructuredSVM(interrupting(task, at=3), max_iter=300, **settings)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        model.fit(X, Y)
    assert model.interrupted_ and model.n_iter_ == 3
    model.set_params(warm_start=True, max_iter=297).fit(X, Y)
    assert model.n_iter_ == full.n_iter_
    assert [r["iteration"] for r in model.history_] == [r["iteration"] for r in full.history_]
    primals = [[r["primal"] for r in m.history_] for m in (model, full)]
    np.testing.assert_allclose(*primals, rtol=1e-9)
    assert model.history_[-1]["oracle_calls"] == full.history_[-1]["oracle_calls"]


def test_checkpoints_are_written_when_a_record_passes_a_multiple_of_checkpoint_every(
    tmp_path, multiclass_problem
):
    task, X, Y = multiclass_problem()
    path = tmp_path / "fit.joblib"
    saved = []
    model = StructuredSVM(
        task, solver="bcfw", tol=1e-12, max_iter=10, random_state=0, gap_check_every=3,
        checkpoint=path, checkpoint_every=4,
    )
    model.save_checkpoint = lambda target: saved.append(model.n_iter_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, Y)
    # Records at 0, 3, 6, 9 and 10: 6 passes 4, 9 passes 8, and the end writes once more.
    assert saved == [6, 9, 10]


@pytest.mark.parametrize("value", [0, -2, 2.5, True, "3"])
def test_a_bad_gap_check_every_raises_naming_it(multiclass_problem, value):
    task, X, Y = multiclass_problem(n=6)
    with pytest.raises(ValueError, match="gap_check_every"):
        StructuredSVM(task, solver="bcfw", gap_check_every=value).fit(X, Y)
    with pytest.raises(ValueError, match="gap_check_every"):
        next(bcfw(task, X, Y, 1.0, gap_check_every=value))
