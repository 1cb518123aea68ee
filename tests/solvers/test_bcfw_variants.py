"""BCFW's gap sampling and multi-plane cache against the full QP and against the default BCFW."""

import importlib

import numba
import numpy as np
import pytest

from structsvm import StructuredSVM
from structsvm.solvers import bcfw
from structsvm.solvers._bcfw_cache import PlaneCache
from structsvm.solvers._bcfw_sampling import gap_probabilities
from tests.references import solve_full_primal

VARIANTS = {
    "gap sampling": {"order": "gap", "gap_sweep_every": 3},
    "cache": {"cache_size": 3},
    "gap sampling and cache": {"order": "gap", "gap_sweep_every": 4, "cache_size": 2},
}


# (variant, averaging, tol): the cache runs the Python loop, so it gets the looser tolerances.
RUNS = [
    ("gap sampling", True, 1e-4),
    ("gap sampling", False, 1e-4),
    ("cache", True, 1e-3),
    ("cache", False, 1e-3),
    ("gap sampling and cache", True, 1e-3),
    ("gap sampling and cache", False, 1e-4),
]


@pytest.mark.parametrize(("variant", "averaging", "tol"), RUNS)
def test_variants_reach_the_optimum_of_the_full_qp_with_valid_certificates(
    full_qp_problem, variant, averaging, tol
):
    task, X, Y = full_qp_problem
    C = 0.5
    _, _, objective_star = solve_full_primal(task, X, Y, C)
    model = StructuredSVM(
        task,
        C=C,
        solver="bcfw",
        tol=tol,
        max_iter=3000,
        averaging=averaging,
        random_state=0,
        **VARIANTS[variant],
    ).fit(X, Y)
    assert model.converged_
    assert objective_star * (1 - 1e-9) <= model.primal_objective_ <= objective_star * (1 + tol)
    for record in model.history_:
        assert record["primal"] - record["dual"] >= -1e-9 * record["primal"]
        assert record["primal"] >= objective_star * (1 - 1e-9)
        assert record["dual"] <= objective_star * (1 + 1e-9)


def test_the_cache_under_slack_rescaling_reaches_the_optimum_of_the_full_qp(multiclass_problem):
    task, X, Y = multiclass_problem()
    _, _, objective_star = solve_full_primal(task, X, Y, 0.5, rescaling="slack")
    model = StructuredSVM(
        task, C=0.5, rescaling="slack", solver="bcfw", tol=1e-4, max_iter=3000,
        averaging=False, random_state=0, order="gap", cache_size=3,
    ).fit(X, Y)
    assert model.converged_
    assert objective_star * (1 - 1e-9) <= model.primal_objective_ <= objective_star * (1 + 1e-4)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("averaging", [True, False])
def test_gap_sampling_that_sweeps_every_pass_takes_the_steps_of_the_random_order(
    chain_problem, compiled, averaging
):
    task, X, Y = chain_problem(n_sequences=15)
    runs = [
        list(bcfw(task, X, Y, 1.0, tol=1e-12, max_iter=6, averaging=averaging,
                  random_state=4, compiled=compiled, **options))
        for options in ({}, {"order": "gap", "gap_sweep_every": 1})
    ]
    for default, sampled in zip(*runs, strict=True):
        np.testing.assert_array_equal(sampled.w, default.w)
        assert sampled.history[-1]["dual"] == default.history[-1]["dual"]


def test_compiled_and_python_gap_sampling_take_the_same_steps(chain_problem):
    task, X, Y = chain_problem(n_sequences=15)
    runs = [
        list(bcfw(task, X, Y, 1.0, tol=1e-12, max_iter=8, random_state=1, compiled=compiled,
                  order="gap", gap_sweep_every=3, averaging=False))
        for compiled in (True, False)
    ]
    for compiled_state, python_state in zip(*runs, strict=True):
        np.testing.assert_allclose(compiled_state.w, python_state.w, rtol=1e-10, atol=1e-12)


def test_gap_probabilities_mix_the_gaps_with_the_uniform_draw():
    probabilities = gap_probabilities(np.array([3.0, 1.0, 0.0, -1e-17]), 0.2)
    np.testing.assert_allclose(probabilities, [0.05 + 0.6, 0.05 + 0.2, 0.05, 0.05])
    np.testing.assert_allclose(gap_probabilities(np.zeros(4), 0.2), 0.25)
    np.testing.assert_allclose(gap_probabilities(np.full(4, np.inf), 0.2), 0.25)


@numba.njit(cache=True)
def iterate_and_sums(dual):
    """Return the ``w`` and ``sums`` arrays of a step's dual record."""
    return dual.w, dual.sums


def test_cached_steps_never_lower_the_dual_and_save_oracle_calls(monkeypatch, chain_problem):
    task, X, Y = chain_problem()
    module = importlib.import_module("structsvm.solvers._bcfw")
    changes = []

    def checked_step(*args):
        w, sums = iterate_and_sums(args[-1])
        before, loss_before = w @ w, sums[0]
        result = visit_block(*args)
        # The dual Σ ℓ_i − ½‖w‖² changes by that of Σ ℓ_i less ½ (‖w_new‖² − ‖w‖²).
        changes.append(sums[0] - loss_before - 0.5 * (w @ w - before))
        return result

    accepted = []

    def recorded_accepts(cache, i, gap, duality_gap):
        verdict = cache_accepts(cache, i, gap, duality_gap)
        accepted.append(verdict)
        return verdict

    visit_block = module.visit_block
    cache_accepts = PlaneCache.accepts
    monkeypatch.setattr(module, "visit_block", checked_step)
    monkeypatch.setattr(PlaneCache, "accepts", recorded_accepts)
    states = list(bcfw(task, X, Y, 1.0, tol=1e-12, max_iter=20, averaging=False,
                       random_state=0, cache_size=4))
    assert sum(accepted) > 0
    assert min(changes) >= -1e-12
    plain = list(bcfw(task, X, Y, 1.0, tol=1e-12, max_iter=20, averaging=False, random_state=0))
    n = len(X)
    assert [record["oracle_calls"] for record in plain[-1].history] == [
        n + 2 * n * k for k in range(21)
    ]
    calls = states[-1].history[-1]["oracle_calls"]
    assert calls == plain[-1].history[-1]["oracle_calls"] - sum(accepted)


def test_the_cache_refuses_corners_without_a_positive_gap():
    cache = PlaneCache.empty(2, size=2, timeout=1)
    cache.exact_gaps[:] = 0.0
    assert not cache.accepts(0, 0.0, 0.0)
    assert not cache.accepts(0, -1e-3, 0.0)
    assert cache.accepts(0, 1e-3, 0.0)
    cache.exact_gaps[0] = 1.0
    assert not cache.accepts(0, 0.2, 0.0)
    assert cache.accepts(0, 0.25, 0.0)


def test_the_cache_keeps_at_most_size_corners_and_drops_those_timed_out():
    cache = PlaneCache.empty(1, size=2, timeout=2)
    for k in range(3):
        cache.add(0, np.array([k]), np.array([1.0]), 1.0, 1.0, k, 1.0)
    assert [plane.indices[0] for plane in cache.planes[0]] == [1, 2]
    cache.add(0, np.array([1]), np.array([1.0]), 1.0, 1.0, 5, 1.0)
    assert len(cache.planes[0]) == 2
    cache.expire(5)
    assert [plane.indices[0] for plane in cache.planes[0]] == [1]


def test_a_continued_run_with_both_options_follows_the_uninterrupted_one(chain_problem):
    task, X, Y = chain_problem(n_sequences=15)
    options = {"order": "gap", "gap_sweep_every": 2, "cache_size": 2, "random_state": 2}
    whole = list(bcfw(task, X, Y, 1.0, tol=1e-12, max_iter=6, **options))
    first = list(bcfw(task, X, Y, 1.0, tol=1e-12, max_iter=3, **options))
    rest = list(bcfw(task, X, Y, 1.0, tol=1e-12, max_iter=3, initial_state=first[-1], **options))
    # A continued run rebuilds w and the average's offset from the state: equal to rounding.
    np.testing.assert_allclose(rest[-1].w, whole[-1].w, rtol=1e-12, atol=1e-14)
    assert rest[-1].history[-1]["oracle_calls"] == whole[-1].history[-1]["oracle_calls"]


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"order": "sometimes"}, "order"),
        ({"gap_sweep_every": 0}, "gap_sweep_every"),
        ({"gap_sweep_every": 2.5}, "gap_sweep_every"),
        ({"gap_mixing": 0.0}, "gap_mixing"),
        ({"gap_mixing": 1.5}, "gap_mixing"),
        ({"cache_size": -1}, "cache_size"),
        ({"cache_size": True}, "cache_size"),
        ({"cache_timeout": 0}, "cache_timeout"),
    ],
)
def test_bad_variant_options_raise_naming_them(multiclass_problem, options, name):
    task, X, Y = multiclass_problem(n=6)
    with pytest.raises(ValueError, match=name):
        StructuredSVM(task, solver="bcfw", **options).fit(X, Y)
    with pytest.raises(ValueError, match=name):
        next(bcfw(task, X, Y, 1.0, **options))


@pytest.mark.parametrize("options", [{"order": "gap"}, {"cache_size": 2}])
def test_gap_sampling_and_the_cache_refuse_l2_slacks(multiclass_problem, options):
    task, X, Y = multiclass_problem(n=6)
    with pytest.raises(ValueError, match="slack_norm=1"):
        next(bcfw(task, X, Y, 1.0, slack_norm=2, **options))
