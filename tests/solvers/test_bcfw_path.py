"""A bcfw run started at another C from an earlier run's dual point (a regularisation path):
the rescaled point's certificate against enumeration, and the optimum the path reaches."""

import warnings

import numpy as np
import pytest

from structsvm import StructuredSVM
from structsvm.solvers import bcfw, start_at_C
from tests.solvers.bcfw_problems import PROBLEMS
from tests.solvers.test_bcfw_pairwise import active_labellings, joint_feature

OPTIONS = {
    "fw, compiled": {},
    "fw, python loop": {"compiled": False},
    "pairwise, compiled": {"step": "pairwise"},
    "pairwise, python loop": {"step": "pairwise", "compiled": False},
    "gap sampling": {"order": "gap"},
    "cache": {"cache_size": 3, "compiled": False},
    "L2 slacks": {"slack_norm": 2, "compiled": False},
}


def enumerated_primal(task, X, Y, C, w, slack_norm=1):
    """The primal objective at w, each slack by enumerating every output."""
    slacks = np.array([
        max(
            task.loss(y, z) + w @ (joint_feature(task, x, z) - joint_feature(task, x, y))
            for z in task.outputs(x)
        )
        for x, y in zip(X, Y)
    ])
    penalty = C * slacks.sum() if slack_norm == 1 else C / 2 * (slacks**2).sum()
    return 0.5 * w @ w + penalty


def blocks(dual):
    """Return Σ_i w_i as a dense vector, Σ_i ℓ_i and the β_i of a BCFW dual."""
    size = max((int(i.max()) + 1 for i in dual.block_indices if len(i)), default=0)
    w = np.zeros(size)
    for indices, values in zip(dual.block_indices, dual.block_values):
        w[indices] += values
    return w, dual.block_losses.sum(), dual.block_sums


def first_state_at(task, X, Y, state, C_before, C, **options):
    """Return the first state of a run at C started from ``state`` of a run at C_before."""
    run = bcfw(task, X, Y, C, tol=0.0, max_iter=5, initial_state=start_at_C(state, C_before, C),
               **options)
    first = next(run)
    run.close()
    return first


@pytest.mark.parametrize("compiled", [True, False])
def test_the_start_at_a_new_C_is_the_same_masses_whose_gap_enumeration_certifies(compiled):
    task, X, Y = PROBLEMS["sparse chain"]()
    old_C, C = 0.5, 4.0
    *_, state = bcfw(
        task, X, Y, old_C, tol=0.0, max_iter=6, random_state=2, compiled=compiled,
        step="pairwise",
    )

    # The dual point at C of the labellings' masses of the run at old_C, from scratch.
    w, losses = np.zeros(task.size_joint_feature), 0.0
    for i, (x, y) in enumerate(zip(X, Y)):
        outputs, masses = active_labellings(state.dual_state.active_sets, i)
        for z, mass in zip(outputs, masses):
            w += C * mass * (joint_feature(task, x, y) - joint_feature(task, x, z))
            losses += C * mass * task.loss(y, z)

    first = first_state_at(task, X, Y, state, old_C, C, compiled=compiled, step="pairwise")
    record = first.history[-1]
    assert record["iteration"] == 0 and len(first.history) == 1
    np.testing.assert_allclose(first.w, w, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(record["dual"], losses - 0.5 * w @ w, rtol=1e-10)
    np.testing.assert_allclose(record["primal"], enumerated_primal(task, X, Y, C, w), rtol=1e-10)
    assert record["certified"] and losses > 0


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
@pytest.mark.parametrize("C", [0.2, 1.5, 40.0])
def test_the_start_at_a_new_C_scales_the_blocks_to_the_best_feasible_dual(options, C):
    task, X, Y = PROBLEMS["sparse chain"]()
    old_C = 0.5
    *_, state = bcfw(task, X, Y, old_C, tol=0.0, max_iter=6, random_state=2, **options)
    w_before, loss_before, sums_before = blocks(state.dual_state)
    iterate = np.zeros(task.size_joint_feature)
    iterate[: len(w_before)] = w_before

    def dual_at(t):
        """The dual at C of every block scaled by t (feasible for t in [0, C / old_C])."""
        w, sums = t * iterate, t * sums_before
        return t * loss_before - 0.5 * w @ w - (sums**2).sum() / (2 * C)

    first = first_state_at(task, X, Y, state, old_C, C, **options)
    record = first.history[-1]
    scales = np.linspace(0.0, C / old_C, 201)
    if "step" in options:
        scales = scales[-1:]  # pairwise steps keep every labelling's mass
    factor = first.w @ iterate / (iterate @ iterate)
    np.testing.assert_allclose(first.w, factor * iterate, rtol=1e-10, atol=1e-12)
    assert -1e-12 <= factor <= C / old_C * (1 + 1e-12)
    np.testing.assert_allclose(record["dual"], dual_at(factor), rtol=1e-10)
    assert record["dual"] >= max(map(dual_at, scales)) - 1e-10 * abs(record["dual"])
    slack_norm = options.get("slack_norm", 1)
    np.testing.assert_allclose(
        record["primal"], enumerated_primal(task, X, Y, C, first.w, slack_norm), rtol=1e-10
    )


def certificate(model):
    """The interval [dual, primal] that holds the optimum, certified by a fit."""
    return model.dual_objective_, model.primal_objective_


ESTIMATOR_OPTIONS = {
    name: options for name, options in OPTIONS.items() if "compiled" not in options
}
ESTIMATOR_OPTIONS["cache"] = {"cache_size": 3}


@pytest.mark.parametrize("options", ESTIMATOR_OPTIONS.values(), ids=ESTIMATOR_OPTIONS.keys())
def test_a_path_fit_reaches_the_optimum_of_a_cold_fit_at_the_new_C(options, chain_problem):
    task, X, Y = chain_problem()
    settings = {"solver": "bcfw", "tol": 1e-3, "max_iter": 3000, "random_state": 0, **options}
    path = StructuredSVM(task, C=0.3, warm_start=True, **settings).fit(X, Y)
    path.set_params(C=1.0).fit(X, Y)
    cold = StructuredSVM(task, C=1.0, **settings).fit(X, Y)

    assert path.converged_ and cold.converged_
    assert path.history_[0]["iteration"] == 0
    path_dual, path_primal = certificate(path)
    cold_dual, cold_primal = certificate(cold)
    # Both intervals hold the one optimum, so they overlap.
    assert path_dual <= cold_primal and cold_dual <= path_primal
    np.testing.assert_allclose(path.w_, cold.w_, atol=0.1 * np.abs(cold.w_).max())
    # At the same C the fit continues as any warm start, numbering on.
    passes = path.n_iter_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path.set_params(tol=1e-9, max_iter=1).fit(X, Y)
    assert path.history_[0]["iteration"] == 0 and path.n_iter_ == passes + 1


@pytest.mark.parametrize("solver", ["n-slack", "1-slack", "dual-cd"])
def test_other_solvers_refuse_a_new_C_by_name(solver, multiclass_problem):
    task, X, Y = multiclass_problem()
    model = StructuredSVM(task, solver=solver, warm_start=True, max_iter=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, Y)
    model.set_params(C=2.0)
    with pytest.raises(
        ValueError,
        match=f"a different C only with solver='bcfw'.*the {solver} fit was at C=1.0, now C=2.0",
    ):
        model.fit(X, Y)


def test_a_new_C_on_other_data_is_refused_as_other_data(multiclass_problem):
    task, X, Y = multiclass_problem()
    model = StructuredSVM(task, solver="bcfw", warm_start=True, max_iter=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, Y)
    model.set_params(C=2.0)
    with pytest.raises(ValueError, match=r"training data \(X, Y\) changed"):
        model.fit(X + 1.0, Y)
