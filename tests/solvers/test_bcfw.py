"""BCFW with sparse blocks and a lazy average: the dense textbook steps, on sparse chain data."""

import importlib
import time
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning

from structsvm import StructuredSVM
from structsvm.solvers import bcfw
from tasks import ChainTask
from tests.references import dense_bcfw_passes, solve_full_primal


def sparse_chain_problem(seed=0, n=12, n_features=4):
    rng = np.random.default_rng(seed)
    task = ChainTask(2, n_features, start_end=True)
    lengths = rng.integers(1, 4, n)
    X = [rng.normal(size=(t, n_features)) * (rng.random((t, n_features)) < 0.5) for t in lengths]
    Y = [(x[:, 0] + 0.3 * rng.normal(size=len(x)) > 0).astype(int) for x in X]
    return task, X, Y


def assert_sparse_steps_and_lazy_average_equal_dense_steps(task, X, Y, averaging, order):
    C, n_passes = 1.0, 15
    reference = list(dense_bcfw_passes(task, X, Y, C, n_passes, averaging, order, 3))
    states = bcfw(
        task,
        X,
        Y,
        C,
        tol=1e-12,
        max_iter=n_passes,
        averaging=averaging,
        order=order,
        random_state=3,
    )
    for (w_ref, loss_ref), state in zip(reference, states, strict=True):
        np.testing.assert_allclose(state.w, w_ref, rtol=1e-10, atol=1e-12)
        dual_ref = loss_ref - 0.5 * w_ref @ w_ref
        assert state.history[-1]["dual"] == pytest.approx(dual_ref, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("averaging", [True, False])
@pytest.mark.parametrize("order", ["random", "cyclic"])
def test_sparse_steps_and_lazy_average_equal_dense_steps_and_explicit_average(
    full_qp_problem, averaging, order
):
    assert_sparse_steps_and_lazy_average_equal_dense_steps(*full_qp_problem, averaging, order)


@pytest.mark.parametrize("averaging", [True, False])
@pytest.mark.parametrize("order", ["random", "cyclic"])
def test_sparse_steps_and_lazy_average_equal_dense_steps_on_sparse_chains(averaging, order):
    task, X, Y = sparse_chain_problem()
    X, Y = task.check_data([scipy.sparse.coo_matrix(x) for x in X], Y)
    assert_sparse_steps_and_lazy_average_equal_dense_steps(task, X, Y, averaging, order)


@pytest.mark.parametrize("averaging", [True, False])
def test_bcfw_on_sparse_chain_data_reaches_the_optimum_of_the_full_qp(averaging):
    task, X, Y = sparse_chain_problem()
    w_star, _, objective_star = solve_full_primal(task, X, Y, 0.1)

    X_sparse = [scipy.sparse.csr_matrix(x) for x in X]
    model = StructuredSVM(
        task,
        C=0.1,
        solver="bcfw",
        tol=1e-5,
        max_iter=3000,
        averaging=averaging,
        random_state=0,
    ).fit(X_sparse, Y)

    assert model.converged_
    assert objective_star * (1 - 1e-9) <= model.primal_objective_ <= objective_star * (1 + 1e-5)
    assert model.dual_objective_ <= objective_star * (1 + 1e-9)
    np.testing.assert_allclose(model.w_, w_star, atol=1e-3)


def test_the_lazy_average_is_unchanged_by_folding_its_scale_into_the_offset(
    monkeypatch, multiclass_problem
):
    # σ = 2 / (k (k + 1)) after k steps; the solver folds σ into z when σ gets tiny. Make that
    # happen every few steps: the average must not change.
    module = importlib.import_module("structsvm.solvers._bcfw_steps")
    monkeypatch.setattr(module, "SMALLEST_SCALE", 0.05)
    task, X, Y = multiclass_problem(n=10)
    reference = list(dense_bcfw_passes(task, X, Y, 1.0, 5, True, "cyclic", 0))
    for compiled in (True, False):
        states = bcfw(task, X, Y, 1.0, tol=1e-12, max_iter=5, order="cyclic", compiled=compiled)
        for (w_ref, _), state in zip(reference, states, strict=True):
            np.testing.assert_allclose(state.w, w_ref, rtol=1e-10, atol=1e-12)


def test_bcfw_trains_a_chain_with_a_million_weights_without_dense_blocks():
    rng = np.random.default_rng(0)
    n_labels, n_features, n = 20, 50_000, 200
    task = ChainTask(n_labels, n_features)
    X, Y = [], []
    for _ in range(n):
        length = int(rng.integers(5, 20))
        columns = rng.integers(0, n_features, (length, 10))
        rows = np.repeat(np.arange(length), 10)
        X.append(
            scipy.sparse.csr_matrix(
                (np.ones(rows.size), (rows, columns.ravel())), shape=(length, n_features)
            )
        )
        Y.append(columns[:, 0] % n_labels)
    size_bytes = 8 * task.size_joint_feature
    # Compile the sparse chain's passes first, on the whole batch so that the passes for
    # large batches compile too: the time bound is for the training itself.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        StructuredSVM(task, C=1.0, solver="bcfw", max_iter=1, random_state=0).fit(X, Y)
    tracemalloc.start()
    begin = time.perf_counter()
    model = StructuredSVM(task, C=1.0, solver="bcfw", max_iter=3, random_state=0).fit(X, Y)
    seconds = time.perf_counter() - begin
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert model.n_iter_ == 3 or model.converged_
    # Dense blocks would take n size-length vectors; the solver needs a handful.
    assert peak < 12 * size_bytes, f"peak {peak / 2**20:.0f} MiB"
    assert seconds < 8, f"{seconds:.1f} s"
    assert model.history_[-1]["primal"] < model.history_[0]["primal"]


@pytest.mark.parametrize("compiled", [True, False])
def test_a_state_keeps_one_vector_of_the_weights_size_and_blocks_without_zeros(compiled):
    task, X, Y = sparse_chain_problem(n=20)
    X, Y = task.check_data([scipy.sparse.csr_matrix(x) for x in X], Y)
    size = task.size_joint_feature
    for state in bcfw(task, X, Y, 1.0, tol=0.0, max_iter=4, random_state=0, compiled=compiled):
        dual = state.dual_state
        sizes = [np.size(value) for value in vars(dual).values() if isinstance(value, np.ndarray)]
        assert size not in sizes
        assert all(np.all(values != 0) for values in dual.block_values)
        # The blocks sum to the iterate, and with the offset rebuild the reported average.
        iterate, offset = dual.iterate_and_offset(state.w)
        np.testing.assert_allclose(iterate + dual.average_scale * offset, state.w, atol=1e-12)
