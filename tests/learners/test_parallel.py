"""Oracle calls in parallel chunks give exactly the serial results, locally and on Dask."""

import joblib
import numpy as np
import pytest
import scipy.sparse as sp

from structsvm import StructuredSVM, TaskContractViolation
from structsvm._utils.parallel import ParallelTask, map_chunks
from tasks import MulticlassTask


@pytest.fixture(params=["chain", "multiclass"])
def problem(request, chain_problem, one_hot_multiclass):
    """(task, X, Y) of a chain problem and of a multiclass one."""
    if request.param == "chain":
        return chain_problem()
    return one_hot_multiclass(n=60, noise=0.7)


def assert_same_outputs(parallel, serial):
    assert type(parallel) is type(serial)
    assert len(parallel) == len(serial)
    for mine, theirs in zip(parallel, serial):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("n_jobs", [2, 3, -1])
def test_parallel_oracles_return_the_serial_outputs_in_order(problem, n_jobs):
    task, X, Y = problem
    w = np.random.default_rng(1).normal(size=task.size_joint_feature)
    parallel = ParallelTask(task, n_jobs=n_jobs, backend="threading")
    assert_same_outputs(parallel.batch_argmax(X, w), task.batch_argmax(X, w))
    assert_same_outputs(
        parallel.batch_loss_augmented_argmax(X, Y, w), task.batch_loss_augmented_argmax(X, Y, w)
    )


def test_more_workers_than_examples_and_a_single_example_are_handled(chain_problem):
    task, X, _ = chain_problem(n_sequences=2)
    w = np.random.default_rng(2).normal(size=task.size_joint_feature)
    parallel = ParallelTask(task, n_jobs=8, backend="threading")
    assert_same_outputs(parallel.batch_argmax(X, w), task.batch_argmax(X, w))
    assert_same_outputs(parallel.batch_argmax(X[:1], w), task.batch_argmax(X[:1], w))


def test_the_wrapper_answers_the_rest_of_the_contract_with_the_wrapped_task(chain_problem):
    task, X, Y = chain_problem(n_sequences=4)
    parallel = ParallelTask(task, n_jobs=2)
    assert parallel.size_joint_feature == task.size_joint_feature
    assert parallel.loss(Y[0], Y[0]) == 0.0
    assert parallel.max_loss(Y[0]) == len(Y[0])
    np.testing.assert_array_equal(
        parallel.batch_joint_feature(X, Y).toarray(), task.batch_joint_feature(X, Y).toarray()
    )
    with pytest.raises(ValueError, match=r"Y\[1\] has"):
        parallel.check_data(X, [Y[0], Y[0][:0], Y[2], Y[3]])


def test_the_map_joins_arrays_sparse_rows_and_lists_in_order(chain_problem):
    task, X, Y = chain_problem(n_sequences=7)
    w = np.random.default_rng(3).normal(size=task.size_joint_feature)
    with joblib.parallel_config(backend="threading"):
        features = map_chunks(task.batch_joint_feature, (X, Y), n_jobs=3)
        scores = map_chunks(task.batch_score, (X, Y), w, n_jobs=3)
        outputs = map_chunks(task.batch_argmax, (X,), w, n_jobs=3)
    assert sp.issparse(features)
    np.testing.assert_array_equal(features.toarray(), task.batch_joint_feature(X, Y).toarray())
    np.testing.assert_array_equal(scores, task.batch_score(X, Y, w))
    assert_same_outputs(outputs, task.batch_argmax(X, w))


@pytest.mark.parametrize("n_jobs", [None, 1])
def test_one_worker_calls_the_task_directly(n_jobs, monkeypatch, one_hot_multiclass):
    task, X, Y = one_hot_multiclass(n=60, noise=0.7)
    w = np.random.default_rng(4).normal(size=task.size_joint_feature)

    def no_joblib(*args, **kwargs):
        raise AssertionError("joblib.Parallel was used for one worker")

    monkeypatch.setattr(joblib, "Parallel", no_joblib)
    serial = task.batch_argmax(X, w)
    assert_same_outputs(map_chunks(task.batch_argmax, (X,), w, n_jobs=n_jobs), serial)
    for solver in ("n-slack", "bcfw"):
        StructuredSVM(task, solver=solver, max_iter=3, n_jobs=n_jobs).fit(X, Y).score(X, Y)


def test_the_wrapper_forwards_the_wrapped_tasks_own_attributes_and_stays_itself(chain_problem):
    import copy
    import pickle

    task, _, _ = chain_problem(n_sequences=2)
    parallel = ParallelTask(task, n_jobs=2)
    assert parallel.n_labels == task.n_labels
    with pytest.raises(AttributeError, match="no attribute 'no_such_thing'"):
        parallel.no_such_thing  # noqa: B018
    for copied in (copy.deepcopy(parallel), pickle.loads(pickle.dumps(parallel))):
        assert type(copied) is ParallelTask and copied.n_jobs == 2
        assert copied.size_joint_feature == task.size_joint_feature


class NegativeLoss(MulticlassTask):
    def batch_loss(self, Y_true, Y):
        return super().batch_loss(Y_true, Y) - 2.0


@pytest.mark.parametrize("wrap", [False, True])
def test_a_contract_violation_on_workers_names_the_users_task(wrap, one_hot_multiclass):
    _, X, Y = one_hot_multiclass(n=60, noise=0.7)
    task = NegativeLoss(3, 4)
    with (
        joblib.parallel_config(backend="threading"),
        pytest.raises(TaskContractViolation, match=r"NegativeLoss\.batch_loss"),
    ):
        StructuredSVM(ParallelTask(task, n_jobs=2) if wrap else task, n_jobs=2).fit(X, Y)


@pytest.mark.parametrize("n_jobs", [0, 1.5, "2", True])
def test_n_jobs_must_be_a_non_zero_integer_or_none(n_jobs, one_hot_multiclass):
    task, X, Y = one_hot_multiclass(n=60, noise=0.7)
    with pytest.raises(ValueError, match="n_jobs"):
        ParallelTask(task, n_jobs=n_jobs)
    with pytest.raises(ValueError, match="n_jobs"):
        StructuredSVM(task, n_jobs=n_jobs).fit(X, Y)


def test_structural_svm_on_two_local_processes_learns_the_serial_weights(problem):
    task, X, Y = problem
    serial = StructuredSVM(task, C=1.0, tol=1e-3, random_state=0).fit(X, Y)
    parallel = StructuredSVM(task, C=1.0, tol=1e-3, n_jobs=2, random_state=0).fit(X, Y)
    np.testing.assert_allclose(parallel.w_, serial.w_, rtol=1e-12, atol=1e-12)
    assert parallel.n_iter_ == serial.n_iter_
    assert_same_outputs(parallel.predict(X), serial.predict(X))


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def test_structural_svm_on_a_dask_cluster_learns_the_serial_weights(dask_client, problem):
    task, X, Y = problem
    serial = StructuredSVM(task, C=1.0, solver="n-slack", tol=1e-3).fit(X, Y)
    with joblib.parallel_backend("dask"):
        assert joblib.effective_n_jobs(-1) == 2
        on_cluster = StructuredSVM(task, C=1.0, solver="n-slack", tol=1e-3, n_jobs=-1).fit(X, Y)
    np.testing.assert_allclose(on_cluster.w_, serial.w_, rtol=1e-12, atol=1e-12)
    assert on_cluster.n_iter_ == serial.n_iter_
