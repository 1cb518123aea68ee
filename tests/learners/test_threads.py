"""Compiled tasks run their batch methods on threads: the results are the serial ones."""

import joblib
import numba
import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_info

from structsvm import StructuredSVM
from structsvm._utils.parallel import map_chunks, n_threads, oracle_threads
from structsvm.solvers._oracle import loss_augmented_pass
from structsvm.solvers._working_set import FeatureSpace
from tasks import ChainTask, MulticlassTask
from tasks._threads import (
    PARALLEL_FROM,
    ROWS_PER_BLOCK,
    row_blocks_product,
    stacked_rows,
    use_threads,
)

CHAIN_TASKS = {
    "first order": dict(),
    "second order, start/end, bias": dict(order=2, start_end=True, bias=True),
    "constrained": dict(forbidden_transitions=[(0, 1)], forbidden_first=[2]),
}


def chain_data(n_sequences, n_labels, n_features, seed, sparse=False):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 12, size=n_sequences)
    X = [rng.normal(size=(length, n_features)) * (rng.random((length, n_features)) < 0.5)
         for length in lengths]
    if sparse:
        X = [sp.csr_matrix(x) for x in X]
    Y = [rng.integers(0, n_labels, size=length) for length in lengths]
    return X, Y


def serial_and_threaded(task, call):
    """Return ``call()`` on one thread and on all threads (two or more where there are)."""
    with oracle_threads(task, 1):
        serial = call()
    with oracle_threads(task, -1):
        threaded = call()
    return serial, threaded


@pytest.mark.parametrize("options", CHAIN_TASKS.values(), ids=CHAIN_TASKS.keys())
@pytest.mark.parametrize("sparse", [False, True])
def test_chain_oracles_and_features_on_threads_are_the_serial_ones(options, sparse):
    task = ChainTask(4, 5, **options)
    X, Y = chain_data(300, 4, 5, seed=1, sparse=sparse)
    Y = [np.where(y == 1, 2, y) if "forbidden_transitions" in options else y for y in Y]
    Y = [np.concatenate([[0], y[1:]]) if "forbidden_first" in options else y for y in Y]
    w = np.random.default_rng(2).normal(size=task.size_joint_feature)
    for call in (
        lambda: task.batch_argmax(X, w),
        lambda: task.batch_loss_augmented_argmax(X, Y, w),
    ):
        serial, threaded = serial_and_threaded(task, call)
        for mine, theirs in zip(threaded, serial, strict=True):
            np.testing.assert_array_equal(mine, theirs)
    serial, threaded = serial_and_threaded(task, lambda: task.batch_joint_feature(X, Y))
    for part in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(threaded, part), getattr(serial, part))


def test_multiclass_oracles_on_threads_are_the_serial_ones():
    rng = np.random.default_rng(5)
    n = 2 * ROWS_PER_BLOCK + 17
    task = MulticlassTask(7, 9)
    X, Y = rng.normal(size=(n, 9)), rng.integers(0, 7, size=n)
    w = rng.normal(size=task.size_joint_feature)
    for call in (
        lambda: task.batch_argmax(X, w),
        lambda: task.batch_loss_augmented_argmax(X, Y, w),
        lambda: task.batch_score(X, Y, w),
    ):
        serial, threaded = serial_and_threaded(task, call)
        np.testing.assert_array_equal(threaded, serial)
    np.testing.assert_allclose(
        task.batch_score(X, Y, w), np.einsum("ij,ij->i", X, w.reshape(7, 9)[Y]), rtol=1e-12
    )


def test_an_oracle_pass_of_a_threaded_task_uses_threads_not_joblib(monkeypatch):
    seen_threads = []

    class Recording(ChainTask):
        def batch_loss_augmented_argmax(self, X, Y_true, w):
            seen_threads.append(numba.get_num_threads())
            return super().batch_loss_augmented_argmax(X, Y_true, w)

    def no_joblib(*args, **kwargs):
        raise AssertionError("joblib.Parallel was used for a threaded task")

    monkeypatch.setattr(joblib, "Parallel", no_joblib)
    task = Recording(3, 4)
    X, Y = chain_data(40, 3, 4, seed=3)
    w = np.random.default_rng(4).normal(size=task.size_joint_feature)
    true_features = task.batch_joint_feature(X, Y)
    before = numba.get_num_threads()
    passes = [loss_augmented_pass(task, X, Y, true_features, w, n_jobs=n) for n in (1, -1)]
    assert seen_threads == [1, n_threads(-1)]
    assert numba.get_num_threads() == before
    for mine, theirs in zip(passes[1].outputs, passes[0].outputs, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(passes[1].slacks, passes[0].slacks)
    outputs = map_chunks(task.batch_argmax, (X,), w, n_jobs=2)
    for mine, theirs in zip(outputs, task.batch_argmax(X, w), strict=True):
        np.testing.assert_array_equal(mine, theirs)


def test_threads_are_at_least_one_and_at_most_numbas():
    assert n_threads(None) == 1
    assert n_threads(1) == 1
    assert 1 <= n_threads(-1) <= numba.config.NUMBA_NUM_THREADS
    assert n_threads(10**6) == numba.config.NUMBA_NUM_THREADS
    with pytest.raises(ValueError, match="n_jobs"):
        n_threads(0)


def test_small_batches_stay_on_the_calling_thread():
    task = ChainTask(3, 4)
    with oracle_threads(task, -1):
        assert not use_threads(1) and not use_threads(PARALLEL_FROM - 1)
        assert use_threads(PARALLEL_FROM) == (numba.get_num_threads() > 1)


def test_row_blocks_product_on_threads_is_the_one_thread_product():
    rng = np.random.default_rng(8)
    n_rows = 3 * ROWS_PER_BLOCK + 5
    A = rng.normal(size=(n_rows, 9)) * (rng.random((n_rows, 9)) < 0.4)
    B = rng.normal(size=(6, 9)).T
    task = ChainTask(6, 9)
    with oracle_threads(task, 1):
        serial = row_blocks_product(A, B)
        whole = A @ B
    with oracle_threads(task, -1):
        threaded = row_blocks_product(A, B)
    np.testing.assert_array_equal(threaded, serial)
    np.testing.assert_array_equal(serial, whole)


def test_row_blocks_product_of_integer_rows_is_that_of_their_float64_values():
    rng = np.random.default_rng(11)
    n_rows = 2 * ROWS_PER_BLOCK + 7
    pixels = (rng.random((n_rows, 128)) < 0.3).astype(np.uint8)
    B = rng.normal(size=(6, 128)).T
    task = ChainTask(6, 128)
    for n_jobs in (1, -1):
        with oracle_threads(task, n_jobs):
            np.testing.assert_array_equal(
                row_blocks_product(pixels, B), row_blocks_product(pixels.astype(np.float64), B)
            )


def test_chain_unary_scores_of_a_large_batch_are_the_serial_ones():
    task = ChainTask(5, 8)
    X, _ = chain_data(2 * ROWS_PER_BLOCK // 3, 5, 8, seed=9)
    w = np.random.default_rng(10).normal(size=task.size_joint_feature)
    serial, threaded = serial_and_threaded(task, lambda: task._unary_scores(X, w)[0])
    np.testing.assert_array_equal(threaded, serial)
    np.testing.assert_allclose(
        serial, np.concatenate(X) @ w[:40].reshape(5, 8).T, rtol=1e-12, atol=1e-12
    )


def test_a_large_batch_is_stacked_on_threads_into_the_serial_stack():
    rng = np.random.default_rng(7)
    X = [rng.integers(-3, 4, size=(int(n), 5)) for n in rng.integers(1, 9, size=150)]
    offsets = np.concatenate([[0], np.cumsum([len(x) for x in X])])
    with oracle_threads(ChainTask(3, 5), -1):
        stack = stacked_rows(X, offsets)
    assert stack.dtype == np.float64
    np.testing.assert_array_equal(stack, np.concatenate(X))


def blas_threads_now():
    return max(info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas")


@pytest.mark.parametrize("n_jobs", [None, 1, -1])
def test_a_fit_runs_the_blas_of_its_qps_on_its_threads(n_jobs, monkeypatch):
    # OpenBLAS spreading the working set's small products over cores that other work keeps
    # busy waits far longer than it computes.
    seen = []
    products = FeatureSpace.inner_products

    def noting_products(space, left, right):
        seen.append(blas_threads_now())
        return products(space, left, right)

    monkeypatch.setattr(FeatureSpace, "inner_products", noting_products)
    X, Y = chain_data(20, 3, 4, seed=3)
    StructuredSVM(ChainTask(3, 4), C=1.0, solver="n-slack", max_iter=3, n_jobs=n_jobs).fit(X, Y)
    assert seen and set(seen) == {n_threads(n_jobs)}
