"""On a Dask cluster the training set stays on the workers: one scatter per fit, only w sent.

Ground truth: the serial fit of the same problem. n-slack and BCFW join the examples' results
in order and are bit-identical; 1-slack's sums are added shard by shard, which changes their
last bits, so its weights are held to what the two certified duality gaps allow. The bytes
are measured here, by pickling what the fit hands to the client, not by the code under test.
"""

import pickle
import threading
import time

import joblib
import numpy as np
import pytest

from structsvm import StructuredSVM

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


class ClientTraffic:
    """What a fit hands to the client: scatters, and the bytes of every pass each way."""

    def __init__(self, client, monkeypatch, interrupt_at_pass=None):
        self.n_scatters, self.keys = 0, set()
        self.sent, self.received = [], []
        self.interrupt_at_pass = interrupt_at_pass
        scatter, submit, gather = client.scatter, client.submit, client.gather

        def counted_scatter(data, **options):
            self.n_scatters += 1
            futures = scatter(data, **options)
            self.keys.update(future.key for future in futures)
            return futures

        def measured_submit(function, *args, **options):
            # A future travels as its key.
            wire = [arg.key if isinstance(arg, distributed.Future) else arg for arg in args]
            self.sent[-1] += len(pickle.dumps((function, wire, options)))
            future = submit(function, *args, **options)
            self.keys.add(future.key)
            return future

        def measured_gather(futures, **options):
            if len(self.received) + 1 == self.interrupt_at_pass:
                raise KeyboardInterrupt
            results = gather(futures, **options)
            self.received.append(len(pickle.dumps(results)))
            self.sent.append(0)
            return results

        self.sent.append(0)
        monkeypatch.setattr(client, "scatter", counted_scatter)
        monkeypatch.setattr(client, "submit", measured_submit)
        monkeypatch.setattr(client, "gather", measured_gather)

    def sent_per_pass(self):
        return self.sent[: len(self.received)]


def released(client, keys, timeout=5.0):
    """Tell whether the scheduler forgets every key within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        held = client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.tasks))
        if not keys & set(held):
            return True
        time.sleep(0.05)
    return False


def assert_within_certified_distance(model, reference):
    """The objective is 1-strongly convex in w, so ½‖w − w*‖² ≤ primal − dual for each fit."""
    radius = sum(
        np.sqrt(2 * max(fit.primal_objective_ - fit.dual_objective_, 0.0))
        for fit in (model, reference)
    )
    assert np.linalg.norm(model.w_ - reference.w_) <= radius + 1e-12


@pytest.mark.parametrize(
    ("solver", "options"),
    [
        ("n-slack", {}),
        ("1-slack", {"tol": 1e-9}),
        ("bcfw", {"random_state": 0, "max_iter": 15}),
    ],
)
def test_a_fit_on_the_cluster_learns_the_serial_weights_from_one_scatter(
    client, monkeypatch, pair_problem, solver, options
):
    task, X, Y = pair_problem(n=40)
    serial = StructuredSVM(task, C=1.0, solver=solver, **options).fit(X, Y)
    traffic = ClientTraffic(client, monkeypatch)
    with joblib.parallel_backend("dask"):
        on_cluster = StructuredSVM(task, C=1.0, solver=solver, n_jobs=-1, **options).fit(X, Y)
    if solver == "1-slack":
        assert on_cluster.converged_ and serial.converged_
        assert_within_certified_distance(on_cluster, serial)
    else:
        np.testing.assert_array_equal(on_cluster.w_, serial.w_)
        assert on_cluster.n_iter_ == serial.n_iter_
    assert traffic.n_scatters == 1
    assert len(traffic.received) == on_cluster.n_iter_ + 1  # the pass at w = 0 as well
    assert released(client, traffic.keys)


def test_the_bytes_sent_per_pass_do_not_grow_with_the_examples(client, monkeypatch, pair_problem):
    sent, received = {}, {}
    for n in (40, 160):
        task, X, Y = pair_problem(seed=1, n=n)
        traffic = ClientTraffic(client, monkeypatch)
        with joblib.parallel_backend("dask"):
            StructuredSVM(task, C=1.0, solver="1-slack", n_jobs=-1, max_iter=5).fit(X, Y)
        assert traffic.n_scatters == 1
        sent[n], received[n] = traffic.sent_per_pass(), traffic.received
        monkeypatch.undo()
    weights_bytes = 8 * task.size_joint_feature
    # Every pass sends w to each of the two shards with a small constant overhead, and
    # 1-slack receives the same sums per shard however many examples it holds.
    for n in (40, 160):
        assert all(2 * weights_bytes < size < 2 * weights_bytes + 2000 for size in sent[n])
    assert abs(max(sent[160]) - max(sent[40])) <= 16
    assert abs(max(received[160]) - max(received[40])) <= 16


def test_an_interrupted_fit_keeps_a_model_and_releases_every_future(
    client, monkeypatch, pair_problem
):
    task, X, Y = pair_problem(n=40)
    traffic = ClientTraffic(client, monkeypatch, interrupt_at_pass=3)
    with joblib.parallel_backend("dask"), pytest.warns(RuntimeWarning, match="interrupted"):
        model = StructuredSVM(task, C=1.0, solver="1-slack", n_jobs=-1).fit(X, Y)
    assert model.interrupted_
    assert model.n_iter_ == 1  # passes at w = 0 and after the first QP completed
    assert released(client, traffic.keys)
    assert not client.futures
    monkeypatch.undo()
    with joblib.parallel_backend("dask"):
        assert len(model.predict(X)) == len(X)
        model.set_params(warm_start=True).fit(X, Y)
    serial = StructuredSVM(task, C=1.0, solver="1-slack").fit(X, Y)
    assert_within_certified_distance(model, serial)


def test_one_job_inside_the_dask_backend_fits_in_this_process(client, monkeypatch, pair_problem):
    task, X, Y = pair_problem(n=20)
    traffic = ClientTraffic(client, monkeypatch)
    with joblib.parallel_backend("dask"):
        StructuredSVM(task, C=1.0, solver="1-slack", n_jobs=1).fit(X, Y)
    assert traffic.n_scatters == 0 and not traffic.received


def test_a_task_that_cannot_be_pickled_is_refused_before_anything_is_sent(
    client, monkeypatch, pair_problem
):
    task, X, Y = pair_problem(n=20)
    task.lock = threading.Lock()
    traffic = ClientTraffic(client, monkeypatch)
    with (
        joblib.parallel_backend("dask"),
        pytest.raises(TypeError, match=r"n_jobs=-1 .* cannot be pickled"),
    ):
        StructuredSVM(task, C=1.0, solver="1-slack", n_jobs=-1).fit(X, Y)
    assert traffic.n_scatters == 0
