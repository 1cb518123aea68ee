"""Oracle calls in parallel: compiled tasks on threads, the others on joblib workers.

``n_jobs`` means two things, depending on the task:

* a task whose batch methods run compiled code in threads of their own (its
  :attr:`~structsvm.Task.threaded_batches` is true, as for :class:`tasks.ChainTask`) is called
  once on the whole batch inside :func:`oracle_threads`, which sets the number of Numba (and
  BLAS) threads to ``n_jobs``: no pickling, no copies of the data;
* any other task (plain Python code) has its batch method called by :func:`map_chunks` on
  contiguous chunks of its per-example arguments, one chunk per joblib worker process, and
  the results joined in the order of the examples.

Either way the result equals the one serial call on the whole batch. Solvers and learners
call :func:`map_chunks` with their ``n_jobs`` on the decoding oracles
(``batch_loss_augmented_argmax`` in every oracle pass, ``batch_argmax`` in ``predict``), so
any task runs in parallel without being wrapped. :class:`ParallelTask` is the same map behind
the :class:`~structsvm.Task` interface, for code that only takes a task.

joblib takes the backend from the surrounding context, so the same code uses local processes
(joblib's default "loky" backend) or a Dask cluster::

    with joblib.parallel_backend("dask"):      # after dask.distributed.Client(...)
        model = StructuredSVM(task, n_jobs=-1).fit(X, Y)

On a Dask cluster the n-slack, 1-slack and BCFW solvers do better than map chunks:
:func:`dask_client` finds the cluster's client and they keep the training set on its workers
for the whole fit
(:mod:`structsvm.solvers._cluster`), so each pass sends only the weights.
"""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from typing import Any, TypeVar

import numba
import numpy as np
import scipy.sparse as sp
from threadpoolctl import ThreadpoolController

from structsvm._task import Task
from structsvm._utils.validation import N_JOBS, check_value

Result = TypeVar("Result")


def map_chunks(
    batch_method: Callable[..., Result],
    batches: Sequence[Sequence[Any]],
    *shared: Any,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> Result:
    """Return ``batch_method(*batches, *shared)``, computed in one chunk of examples per worker.

    Parameters
    ----------
    batch_method : callable
        A batch method of a task, such as ``task.batch_argmax``. With more than one worker it
        is pickled to them with its task, so the task must pickle (tasks defined in
        importable modules do).
    batches : sequence of sequences
        The per-example arguments (``(X,)`` or ``(X, Y)``), all of the same length; each
        chunk passes the same contiguous slice of every one.
    *shared
        Arguments passed whole to every chunk (the weights ``w``).
    n_jobs : int or None, default=None
        Number of workers, in joblib's convention: None means 1 unless a
        ``joblib.parallel_config`` context says otherwise, -1 means all CPUs (or all workers
        of a Dask cluster), -2 all but one.
    backend : str or None, default=None
        joblib backend ("loky", "threading", "dask", ...); None takes it from the context.

    Returns
    -------
    The chunks' results joined in order: ndarrays are concatenated along their first axis,
    sparse matrices stacked as rows, any other results (lists of outputs) chained into a list.

    Notes
    -----
    A batch method of a task with :attr:`~structsvm.Task.threaded_batches` is called once on
    the whole batch, on ``n_jobs`` threads (:func:`oracle_threads`); ``backend`` is then
    unused. Otherwise, with one worker (``n_jobs=1``, or None outside a joblib context) or one
    example, ``batch_method`` is called directly, without joblib. The result is exactly that
    of the direct call as long as the method treats every example independently of the others
    in the batch.
    """
    n_jobs = check_n_jobs(n_jobs)
    task = getattr(batch_method, "__self__", None)
    if isinstance(task, Task) and task.threaded_batches:
        with oracle_threads(task, n_jobs):
            return batch_method(*batches, *shared)
    n_examples = len(batches[0])
    if n_jobs == 1 or n_examples <= 1:
        return batch_method(*batches, *shared)
    from joblib import Parallel, delayed, parallel_config

    context = nullcontext() if backend is None else parallel_config(backend)
    with context:
        n_chunks = min(n_examples, effective_n_jobs(n_jobs))
        if n_chunks <= 1:
            return batch_method(*batches, *shared)
        check_picklable(batch_method, n_jobs)
        bounds = np.linspace(0, n_examples, n_chunks + 1).astype(int)
        results = Parallel(n_jobs=n_jobs)(
            delayed(batch_method)(*(batch[begin:stop] for batch in batches), *shared)
            for begin, stop in itertools.pairwise(bounds)
        )
    return joined_chunks(results)


def effective_n_jobs(n_jobs: int | None) -> int:
    """Return how many workers ``n_jobs`` asks for, as :func:`joblib.effective_n_jobs` does.

    joblib (with multiprocessing, asyncio and its other imports, a few MB) is imported only
    where it can change the answer: 1 is one worker, and so is None while joblib is not
    imported, as no ``joblib.parallel_config`` context can then be active.
    """
    if n_jobs == 1 or (n_jobs is None and "joblib" not in sys.modules):
        return 1
    import joblib

    return joblib.effective_n_jobs(n_jobs)


def active_backend() -> Any:
    """Return joblib's active backend; None while joblib is not imported (none can be set)."""
    if "joblib" not in sys.modules:
        return None
    from joblib.parallel import get_active_backend

    return get_active_backend()[0]


@functools.cache
def blas_threads() -> ThreadpoolController:
    """Return a controller of the BLAS thread pools (looking them up once per process)."""
    return ThreadpoolController()


def n_threads(n_jobs: int | None) -> int:
    """Return how many threads ``n_jobs`` asks for, at most Numba's ``NUMBA_NUM_THREADS``.

    ``n_jobs`` is read in joblib's convention (None: 1 unless a ``joblib.parallel_config``
    context says otherwise; -1: all CPUs; -2: all but one).
    """
    return max(1, min(effective_n_jobs(check_n_jobs(n_jobs)), numba.config.NUMBA_NUM_THREADS))


@functools.cache
def worker_threads() -> ThreadPoolExecutor:
    """Return the pool of threads (as many as Numba's at most) that runs NumPy work and compiled
    loops that release the GIL, made on first use."""
    return ThreadPoolExecutor(numba.config.NUMBA_NUM_THREADS, thread_name_prefix="structsvm")


def run_in_parts(
    run: Callable[[int, int], object], n_items: int, most_parts: int | None = None
) -> None:
    """Call ``run(begin, stop)`` on contiguous runs of ``range(n_items)`` that together cover it.

    The runs are as many as Numba's number of threads (:func:`numba.get_num_threads`), at most
    ``most_parts`` and at most ``n_items``, and run at once on :func:`worker_threads`; a single
    run is called directly. Returns when all are done (raising the first error).
    """
    n_parts = min(numba.get_num_threads(), n_items, most_parts or n_items)
    if n_parts <= 1:
        run(0, n_items)
        return
    bounds = np.linspace(0, n_items, n_parts + 1).astype(np.int64).tolist()
    parts = [worker_threads().submit(run, *bound) for bound in itertools.pairwise(bounds)]
    for part in parts:
        part.result()


@contextmanager
def oracle_threads(task: Task, n_jobs: int | None) -> Iterator[None]:
    """Run the compiled batch methods of ``task`` on ``n_jobs`` threads inside the block.

    For a task with :attr:`~structsvm.Task.threaded_batches`, as :func:`compiled_threads`;
    for any other task, does nothing.
    """
    if not task.threaded_batches:
        yield
        return
    with compiled_threads(n_jobs):
        yield


@contextmanager
def compiled_threads(n_jobs: int | None) -> Iterator[None]:
    """Run Numba's parallel loops and the BLAS on :func:`n_threads` ``(n_jobs)`` threads inside.

    Sets the number of threads of Numba's parallel loops (:func:`numba.set_num_threads`, which
    holds for the calling thread only) and of the BLAS, and restores Numba's afterwards.
    """
    threads = n_threads(n_jobs)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        with blas_threads().limit(limits=threads, user_api="blas"):
            yield
    finally:
        numba.set_num_threads(previous)


def check_picklable(batch_method: Callable[..., Any], n_jobs: int | None) -> None:
    """Raise TypeError if the task of ``batch_method`` cannot be sent to the workers.

    Every joblib backend but threads pickles the method, and with it its task, as loky's
    pickler does (cloudpickle when installed, which also takes lambdas and classes defined in
    functions); a task holding a lock, a generator or an open file would otherwise fail deep
    inside joblib.
    """
    from joblib.externals.loky.backend.reduction import dumps as worker_pickle

    if getattr(active_backend(), "uses_threads", False):
        return
    try:
        worker_pickle(batch_method)
    except Exception as error:  # pickling an arbitrary object can raise anything
        task = getattr(batch_method, "__self__", batch_method)
        raise TypeError(
            f"n_jobs={n_jobs} runs the oracle calls in worker processes, which receive the "
            f"task pickled, but the task {type(task).__name__} cannot be pickled: {error}. "
            "Keep no locks, generators or open files in the task, or use n_jobs=1 (or "
            "joblib's threading backend)"
        ) from error


def joined_chunks(results: Sequence[Any]) -> Any:
    """Join the results of consecutive chunks into the result of the whole batch."""
    if all(isinstance(result, np.ndarray) for result in results):
        return np.concatenate(results)
    if all(sp.issparse(result) for result in results):
        return sp.vstack(results, format=results[0].format)
    return [output for result in results for output in result]


def dask_client(n_jobs: int | None) -> Any:
    """Return the ``dask.distributed.Client`` of joblib's active "dask" backend, or None.

    None also when ``n_jobs`` is 1, which asks for no parallelism on any backend. Solvers
    keep their training set on the cluster's workers when this returns a client
    (:mod:`structsvm.solvers._cluster`); map_chunks sends chunks through joblib regardless.
    """
    if check_n_jobs(n_jobs) == 1:
        return None
    client = getattr(active_backend(), "client", None)
    if client is None:
        return None
    from distributed import Client  # the dask backend is active, so distributed is installed

    return client if isinstance(client, Client) else None


def check_n_jobs(n_jobs: Any) -> int | None:
    """Return ``n_jobs`` if it is None or a non-zero integer; raise ValueError otherwise."""
    check_value(n_jobs, "n_jobs", N_JOBS)
    return None if n_jobs is None else int(n_jobs)


def _answered_by_the_wrapped_task(cls: type[ParallelTask]) -> type[ParallelTask]:
    """Give ``cls`` every public method of Task it does not define, answered by ``self.task``.

    The methods are taken from :class:`~structsvm.Task` itself, so a method added to the task
    contract is forwarded without being listed here.
    """
    for name, member in vars(Task).items():
        if not name.startswith("_") and callable(member) and name not in vars(cls):
            setattr(cls, name, _forwarded(cls, name))
    return cls


def _forwarded(cls: type[ParallelTask], name: str) -> Callable[..., Any]:
    """Return a method of ``cls`` that calls the wrapped task's method ``name``."""

    def forward(self: ParallelTask, *args: Any, **kwargs: Any) -> Any:
        return getattr(self.task, name)(*args, **kwargs)

    forward.__name__ = name
    forward.__qualname__ = f"{cls.__name__}.{name}"
    forward.__doc__ = f"Return the wrapped task's ``{name}``."
    return forward


@_answered_by_the_wrapped_task
class ParallelTask(Task):
    """A task whose decoding oracles run in parallel chunks; the wrapped task answers the rest.

    Learners need no wrapper: ``StructuredSVM(task, n_jobs=...)`` runs the batch oracles of
    any task through :func:`map_chunks`. ParallelTask puts the same map behind the
    :class:`~structsvm.Task` interface for code that only takes a task.

    Parameters
    ----------
    task : Task
        The task whose oracles to run. It is pickled to every worker, so it must pickle
        (tasks defined in importable modules do), unless its batch methods are threaded
        (:attr:`~structsvm.Task.threaded_batches`, which the wrapper shares): they then run
        on ``n_jobs`` threads in this process.
    n_jobs : int or None, default=None
        Number of workers, as in :func:`map_chunks` (None: 1 unless a joblib context says
        otherwise).
    backend : str or None, default=None
        joblib backend, as in :func:`map_chunks`.

    Notes
    -----
    Only ``batch_argmax``, ``batch_loss_augmented_argmax`` and
    ``batch_slack_rescaled_argmax`` are split: they hold the decoding
    work. Every other method of the task contract, and any other attribute of the wrapped
    task (``size_joint_feature``, its own parameters), is the wrapped task's. Results are in
    the order of the inputs and are exactly the wrapped task's results, as long as its oracles
    treat every example independently of the others in the batch.
    """

    def __init__(self, task: Task, n_jobs: int | None = None, backend: str | None = None) -> None:
        if not isinstance(task, Task):
            raise TypeError(f"task must be a structsvm.Task instance, got {type(task).__name__}")
        self.task = task
        self.n_jobs = check_n_jobs(n_jobs)
        self.backend = backend

    def __repr__(self) -> str:
        return f"ParallelTask({self.task!r}, n_jobs={self.n_jobs}, backend={self.backend!r})"

    @property
    def threaded_batches(self) -> bool:
        """Whether the wrapped task's batch methods run on threads of their own."""
        return self.task.threaded_batches

    def __getattr__(self, name: str) -> Any:
        # Called only for names the wrapper lacks. Special names stay the wrapper's own, so
        # that copying and pickling see the wrapper, not the wrapped task.
        task = self.__dict__.get("task")
        if task is None or name.startswith("__"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(task, name)

    def compiled_oracle(self, X: Sequence[Any], Y: Sequence[Any]) -> None:
        """Return None: the wrapper's passes are its chunked Python oracles, as it promises.

        A task with a compiled oracle is faster unwrapped: its compiled passes run on the
        ``n_jobs`` threads of the learner.
        """
        return None

    def batch_argmax(self, X: Sequence[Any], w: np.ndarray) -> Sequence[Any]:
        """Return ``argmax(x, w)`` for every input, computed in chunks by the workers."""
        return map_chunks(self.task.batch_argmax, (X,), w, n_jobs=self.n_jobs, backend=self.backend)

    def batch_loss_augmented_argmax(
        self, X: Sequence[Any], Y_true: Sequence[Any], w: np.ndarray
    ) -> Sequence[Any]:
        """Return ``loss_augmented_argmax(x, y_true, w)`` for every example, in chunks."""
        return map_chunks(
            self.task.batch_loss_augmented_argmax,
            (X, Y_true),
            w,
            n_jobs=self.n_jobs,
            backend=self.backend,
        )

    def batch_slack_rescaled_argmax(
        self, X: Sequence[Any], Y_true: Sequence[Any], w: np.ndarray
    ) -> Sequence[Any]:
        """Return ``slack_rescaled_argmax(x, y_true, w)`` for every example, in chunks."""
        return map_chunks(
            self.task.batch_slack_rescaled_argmax,
            (X, Y_true),
            w,
            n_jobs=self.n_jobs,
            backend=self.backend,
        )
