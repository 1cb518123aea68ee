"""What a fit sends to a Dask cluster per iteration, and how long an iteration takes.

Trains the 1-slack structural SVM on the scene data (:class:`tasks.MultiLabelTask`, six
labels, a full label graph decoded by max-product's exact fallback, 294 features) on a local
Dask cluster of ``n_workers`` worker processes, with ``n`` and with ``4 n`` training images,
two ways:

* **resident**: ``StructuredSVM(task, n_jobs=-1)`` inside ``joblib.parallel_backend("dask")``:
  the training set is scattered once and each pass sends only ``w``
  (:mod:`structsvm.solvers._cluster`);
* **joblib-dask**: the earlier path, chunks of the data sent with every oracle call through
  joblib's Dask backend (:class:`structsvm.ParallelTask` with ``backend="dask"``), losses and
  joint features computed in this process.

The bytes are measured on the client side, by pickling what each fit hands to
``client.submit`` (a future counts as its key) and ``client.scatter``, and what
``client.gather`` returns; joblib's backend submits and scatters through the same client
(its scatters, made within every oracle call, count as sent per iteration; it collects its
results without ``client.gather``, so what it receives is not measured). Per iteration means
per oracle pass, timed over the whole fit (QPs included). Every fit runs at most
``max_iter`` iterations, and the weights are compared with the serial fit's.

Run ``python -m experiments.bench_cluster --help`` for the options.
"""

from __future__ import annotations

import argparse
import pickle
import time
from typing import Any

import joblib
import numpy as np

from structsvm import ParallelTask, StructuredSVM
from structsvm.datasets import load_scene
from tasks import MultiLabelTask


class Traffic:
    """Bytes a client is handed and hands back, counted while installed on it."""

    def __init__(self, client: Any) -> None:
        from distributed import Future

        self.scattered = self.n_scatters = 0
        self.sent = self.received = 0
        scatter, submit, gather = client.scatter, client.submit, client.gather

        def counted_scatter(data: Any, **options: Any) -> Any:
            self.n_scatters += 1
            self.scattered += len(pickle.dumps(data))
            return scatter(data, **options)

        def counted_submit(function: Any, *args: Any, **options: Any) -> Any:
            wire = [arg.key if isinstance(arg, Future) else arg for arg in args]
            self.sent += len(pickle.dumps((function, wire, options)))
            return submit(function, *args, **options)

        def counted_gather(futures: Any, **options: Any) -> Any:
            results = gather(futures, **options)
            self.received += len(pickle.dumps(results))
            return results

        client.scatter, client.submit, client.gather = (
            counted_scatter,
            counted_submit,
            counted_gather,
        )
        self._restore = (client, scatter, submit, gather)

    def remove(self) -> None:
        """Give the client its own methods back."""
        client, client.scatter, client.submit, client.gather = self._restore


def fit(
    client: Any, way: str, X: np.ndarray, Y: np.ndarray, max_iter: int
) -> tuple[np.ndarray, dict[str, float]]:
    """Fit one way on the cluster; return the weights and the figures per iteration."""
    task = MultiLabelTask(Y.shape[1], X.shape[1], edges="full")
    if way == "resident":
        model = StructuredSVM(task, C=1.0, solver="1-slack", n_jobs=-1, max_iter=max_iter)
    else:
        model = StructuredSVM(
            ParallelTask(task, n_jobs=-1, backend="dask"),
            C=1.0,
            solver="1-slack",
            n_jobs=1,
            max_iter=max_iter,
        )
    traffic = Traffic(client)
    start = time.perf_counter()
    try:
        with joblib.parallel_backend("dask"):
            model.fit(X, Y)
    finally:
        traffic.remove()
    seconds = time.perf_counter() - start
    passes = model.n_iter_ + 1
    # The resident fit scatters once per fit; joblib's backend scatters within every call.
    per_call_scatters = traffic.scattered if way == "joblib-dask" else 0
    return model.w_, {
        "scatters": traffic.n_scatters,
        "scattered_bytes": traffic.scattered,
        "sent_bytes_per_iteration": (traffic.sent + per_call_scatters) / passes,
        # joblib's backend collects its results without client.gather: not measured.
        "received_bytes_per_iteration": traffic.received / passes if traffic.received else None,
        "seconds_per_iteration": seconds / passes,
    }


def main(
    n: int = 300, n_workers: int = 2, max_iter: int = 10, processes: bool = True
) -> list[dict[str, Any]]:
    """Measure both ways with ``n`` and ``4 n`` examples; print and return the rows.

    ``processes=False`` runs the workers as threads of this process (quicker to start; the
    bytes counted are the same, the times are not those of a cluster).
    """
    import warnings

    from distributed import Client, LocalCluster
    from sklearn.exceptions import ConvergenceWarning

    train, _ = load_scene()
    rows = []
    with (
        LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=processes,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore", ConvergenceWarning)
        for size in (n, 4 * n):
            X, Y = train.X[:size], train.Y[:size]
            serial = StructuredSVM(
                MultiLabelTask(Y.shape[1], X.shape[1], edges="full"),
                C=1.0,
                solver="1-slack",
                max_iter=max_iter,
            ).fit(X, Y)
            for way in ("resident", "joblib-dask"):
                w, figures = fit(client, way, X, Y, max_iter)
                rows.append(
                    {
                        "n": size,
                        "way": way,
                        **figures,
                        "max_difference_from_serial": float(np.abs(w - serial.w_).max()),
                    }
                )
    print(
        f"{'n':>5} {'way':>12} {'scatters':>8} {'scattered':>10} {'sent/iter':>10} "
        f"{'recv/iter':>10} {'s/iter':>8} {'|w - serial|':>12}"
    )
    for row in rows:
        received = row["received_bytes_per_iteration"]
        print(
            f"{row['n']:>5} {row['way']:>12} {row['scatters']:>8} "
            f"{row['scattered_bytes']:>10} {row['sent_bytes_per_iteration']:>10.0f} "
            f"{'-' if received is None else f'{received:.0f}':>10} "
            f"{row['seconds_per_iteration']:>8.3f} {row['max_difference_from_serial']:>12.1e}"
        )
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="the smaller training set size")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--max-iter", type=int, default=10, help="iterations of every fit")
    arguments = parser.parse_args()
    main(arguments.n, arguments.workers, arguments.max_iter)
