"""BCFW's pairwise steps (BCPFW): the full-QP optimum, valid certificates, active sets that
reproduce the blocks, and compiled passes that take the Python loop's steps."""

import numpy as np
import pytest
import scipy.sparse

from structsvm import StructuredSVM
from structsvm.solvers import SolverState, bcfw
from structsvm.solvers._bcfw_active_sets import ActiveSets
from structsvm.solvers._bcfw_steps import away_atom, shift_mass
from tests.references import solve_full_primal
from tests.solvers.bcfw_problems import PROBLEMS, passes
from tests.tasks.compiled_checks import without_optional_functions


def active_labellings(active_sets, i):
    """Return block i's active labellings (as arrays or outputs) and their masses."""
    count = int(active_sets.counts[i])
    if active_sets.outputs is None:
        begin, end = active_sets.positions[i], active_sets.positions[i + 1]
        outputs = [active_sets.labels[k, begin:end] for k in range(count)]
    else:
        outputs = active_sets.outputs[i]
    return outputs, active_sets.weights[i, :count]


def joint_feature(task, x, y):
    """φ(x, y) as a dense vector, for dense or sparse inputs."""
    indices, values = task.sparse_joint_feature(x, y)
    phi = np.zeros(task.size_joint_feature)
    phi[indices] = values
    return phi


def assert_active_sets_reproduce_the_blocks(task, X, Y, C, w, dual):
    """Each block is C Σ_k α_k ψ_i(y_k) and ℓ_i = C Σ_k α_k Δ(y_i, y_k); w = Σ_i w_i."""
    total = np.zeros(task.size_joint_feature)
    for i, (x, y_true) in enumerate(zip(X, Y)):
        outputs, masses = active_labellings(dual.active_sets, i)
        assert np.all(masses > 0)
        np.testing.assert_allclose(masses.sum(), 1.0, rtol=0, atol=1e-12)
        outputs = [np.reshape(y, np.shape(y_true)) for y in outputs]
        phi_true = joint_feature(task, x, y_true)
        expected = sum(
            a * C * (phi_true - joint_feature(task, x, y)) for a, y in zip(masses, outputs)
        )
        block = np.zeros(task.size_joint_feature)
        block[dual.block_indices[i]] = dual.block_values[i]
        np.testing.assert_allclose(block, expected, rtol=0, atol=1e-10)
        losses = sum(a * C * task.loss(y_true, y) for a, y in zip(masses, outputs))
        np.testing.assert_allclose(dual.block_losses[i], losses, rtol=0, atol=1e-10)
        total += block
    np.testing.assert_allclose(w, total, rtol=0, atol=1e-10)


@pytest.mark.parametrize("order", ["random", "gap"])
def test_pairwise_steps_reach_the_full_qp_optimum_with_valid_certificates(full_qp_problem, order):
    task, X, Y = full_qp_problem
    C, tol = 0.5, 1e-6
    _, _, objective_star = solve_full_primal(task, X, Y, C)
    history, state = [], None
    for state in bcfw(task, X, Y, C, tol=tol, max_iter=2000, averaging=False, order=order,
                      step="pairwise", random_state=0):
        history = state.history
    assert state.converged
    for record in history:
        assert record["primal"] >= objective_star * (1 - 1e-9)
        assert record["dual"] <= objective_star * (1 + 1e-9)
    assert history[-1]["primal"] <= objective_star * (1 + tol)
    assert_active_sets_reproduce_the_blocks(task, X, Y, C, state.w, state.dual_state)


def test_compiled_pairwise_steps_reach_the_full_qp_optimum_of_a_chain(chain_problem):
    task, X, Y = chain_problem(n_sequences=12)
    X, Y = task.check_data(X, Y)
    C, tol = 0.5, 1e-6
    _, _, objective_star = solve_full_primal(task, X, Y, C)
    for state in bcfw(task, X, Y, C, tol=tol, max_iter=2000, averaging=False, order="gap",
                      step="pairwise", random_state=0, keep_best=True):
        record = state.history[-1]
        assert record["primal"] >= objective_star * (1 - 1e-9)
        assert record["dual"] <= objective_star * (1 + 1e-9)
    assert state.converged
    assert state.dual_state.active_sets.outputs is None  # the compiled pass ran


@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize(("averaging", "order", "n_passes"),
                         [(True, "random", 8), (False, "cyclic", 8), (False, "gap", 4)])
def test_compiled_pairwise_passes_take_the_steps_of_the_python_loop(
    problem, averaging, order, n_passes
):
    # A pairwise step's exact line search leaves ŷ and the away labelling with equal scores,
    # so a block visited again before any other step (gap sampling draws with replacement)
    # meets an exact tie in its oracle, which each path's rounding breaks its own way: with
    # gap sampling the paths agree over the first passes only.
    task, X, Y = PROBLEMS[problem]()
    options = {"averaging": averaging, "order": order, "step": "pairwise", "n_passes": n_passes}
    compiled = passes(task, X, Y, True, **options)
    generic = passes(task, X, Y, False, **options)
    for (w, record, dual), (w_ref, record_ref, dual_ref) in zip(compiled, generic, strict=True):
        np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-10)
        np.testing.assert_allclose(record["dual"], record_ref["dual"], rtol=1e-10)
        np.testing.assert_allclose(record["primal"], record_ref["primal"], rtol=1e-10)
        for i in range(len(X)):
            outputs, masses = active_labellings(dual.active_sets, i)
            outputs_ref, masses_ref = active_labellings(dual_ref.active_sets, i)
            assert [np.ravel(y).tolist() for y in outputs] == [
                np.ravel(y).tolist() for y in outputs_ref
            ]
            np.testing.assert_allclose(masses, masses_ref, rtol=0, atol=1e-10)
        if order == "gap":
            np.testing.assert_allclose(dual.block_gaps, dual_ref.block_gaps, rtol=0, atol=1e-10)
    w, _, dual = compiled[-1]
    if not averaging:
        assert_active_sets_reproduce_the_blocks(task, X, Y, 0.5, w, dual)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_compiled_pairwise_passes_are_the_same_without_the_optional_oracle_functions(problem):
    task, X, Y = PROBLEMS[problem]()
    options = {"averaging": False, "order": "cyclic", "step": "pairwise", "n_passes": 6}
    shortcuts = passes(task, X, Y, True, **options)
    plain = passes(without_optional_functions(task), X, Y, True, **options)
    for (w, record, _), (w_ref, record_ref, _) in zip(shortcuts, plain, strict=True):
        np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-10)
        np.testing.assert_allclose(record["primal"], record_ref["primal"], rtol=1e-10)


def test_shift_mass_moves_mass_and_drops_an_emptied_labelling():
    weights = np.array([0.25, 0.75, 0.0, 0.0])
    assert shift_mass(weights, 2, 2, 0, 0.25) == (2, True)  # ŷ joins, the away one leaves
    np.testing.assert_array_equal(weights, [0.25, 0.75, 0.0, 0.0])
    assert shift_mass(weights, 2, 0, 1, 0.5) == (2, False)
    np.testing.assert_array_equal(weights, [0.75, 0.25, 0.0, 0.0])
    assert shift_mass(weights, 2, 2, 1, 0.0) == (2, False)  # no step: ŷ does not join
    assert away_atom(np.array([3.0, 1.0, 1.0 + 1e-14, 0.5 + 2.0]), 4) == 1


@pytest.mark.parametrize(
    ("Y", "dtype"),
    [
        ([np.array([0, 25, 3]), np.array([1])], np.uint8),
        ([np.array([0, 300])], np.uint16),
        ([np.array([-1, 3])], np.int16),
    ],
)
def test_compiled_active_sets_keep_labels_in_the_narrowest_type_that_holds_them(Y, dtype):
    true_rows = scipy.sparse.csr_matrix(np.eye(len(Y), 4))
    active_sets = ActiveSets.start(Y, true_rows, np.int32)
    assert active_sets.labels.dtype == dtype
    np.testing.assert_array_equal(active_sets.labels[0], np.concatenate(Y))
    active_sets.make_room(np.zeros(3, dtype=np.int64))
    assert active_sets.labels.shape[0] == 4
    assert active_sets.labels.dtype == dtype
    np.testing.assert_array_equal(active_sets.labels[0], np.concatenate(Y))


def test_pairwise_options_are_checked(pair_problem):
    task, X, Y = pair_problem()
    with pytest.raises(ValueError, match="step must be 'fw' or 'pairwise'"):
        next(bcfw(task, X, Y, 1.0, step="away"))
    with pytest.raises(ValueError, match="step='pairwise' needs rescaling='margin'"):
        next(bcfw(task, X, Y, 1.0, step="pairwise", rescaling="slack"))
    state = next(bcfw(task, X, Y, 1.0, tol=0.0, max_iter=1, step="pairwise"))
    with pytest.raises(ValueError, match="cannot continue this run with step='fw'"):
        next(bcfw(task, X, Y, 1.0, initial_state=state))


def test_structured_svm_passes_the_pairwise_options_on(full_qp_problem):
    task, X, Y = full_qp_problem
    C, tol = 0.5, 1e-5
    _, _, objective_star = solve_full_primal(task, X, Y, C)
    model = StructuredSVM(
        task, C=C, solver="bcfw", tol=tol, max_iter=2000, random_state=0, step="pairwise",
        keep_best=True, order="gap", averaging=False, gap_check_every=5,
    ).fit(X, Y)
    assert model.converged_
    assert objective_star * (1 - 1e-9) <= model.primal_objective_ <= objective_star * (1 + tol)
    assert "evaluated_primal" in model.history_[-1]


def assert_the_pool_holds_each_labellings_features(task, X, Y, active_sets):
    """The compiled active sets keep φ(x_i, y_k) and Δ(y_i, y_k) of every active labelling."""
    pool = active_sets.features
    for i, (x, y_true) in enumerate(zip(X, Y)):
        outputs, _ = active_labellings(active_sets, i)
        for k, y in enumerate(outputs):
            y = np.reshape(y, np.shape(y_true)).astype(np.int64)
            begin, length = pool.starts[i, k], pool.lengths[i, k]
            phi = np.zeros(task.size_joint_feature)
            phi[pool.indices[begin : begin + length]] = pool.values[begin : begin + length]
            np.testing.assert_allclose(phi, joint_feature(task, x, y), rtol=0, atol=1e-12)
            assert active_sets.losses[i, k] == task.loss(y_true, y)


def test_a_compiled_pairwise_run_continues_exactly_and_leaves_the_states_of_the_first_run():
    task, X, Y = PROBLEMS["sparse multiclass"]()
    options = {"step": "pairwise", "averaging": False}
    straight = passes(task, X, Y, True, **options)
    # The states of passes 2 and 3 share their pool of φ; continue from the first of them.
    first = [
        SolverState(state.w, None, list(state.history), dual_state=state.dual_state)
        for state in bcfw(task, X, Y, 0.5, tol=0.0, max_iter=3, random_state=2, **options)
    ]
    later = list(bcfw(task, X, Y, 0.5, tol=0.0, max_iter=4, initial_state=first[2], **options))
    np.testing.assert_allclose(later[-1].w, straight[-1][0], rtol=0, atol=1e-12)
    for state in (first[2], first[3], later[-1]):
        assert_the_pool_holds_each_labellings_features(task, X, Y, state.dual_state.active_sets)
