"""Oracle calls spread over workers with joblib: a task wrapper that splits batches into chunks.

:class:`ParallelTask` is a :class:`~structsvm.Task` that answers every call with the task
it wraps, except the two batch oracles, which it splits into one contiguous chunk per worker,
runs through :class:`joblib.Parallel` and reassembles in order. The outputs equal the wrapped
task's, so a learner trained through the wrapper learns the same weights.

joblib takes the backend from the surrounding context, so the same code uses local processes
(joblib's default "loky" backend) or a Dask cluster::

    with joblib.parallel_backend("dask"):      # after dask.distributed.Client(...)
        model = StructuredSVM(task, n_jobs=-1).fit(X, Y)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from typing import Any

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs, parallel_config

from structsvm._task import Task
from structsvm._utils.validation import N_JOBS, check_value


class ParallelTask(Task):
    """Run the batch oracles of a task in parallel chunks; delegate everything else.

    Parameters
    ----------
    task : Task
        The task whose oracles to run. It is pickled to every worker, so it must pickle
        (tasks defined in importable modules do).
    n_jobs : int or None, default=None
        Number of workers, in joblib's convention: None means 1 unless a
        ``joblib.parallel_config`` context says otherwise, -1 means all CPUs (or all workers
        of a Dask cluster), -2 all but one.
    backend : str or None, default=None
        joblib backend ("loky", "threading", "dask", ...); None takes it from the context.

    Notes
    -----
    Only ``batch_argmax`` and ``batch_loss_augmented_argmax`` are split: they hold the decoding
    work. Joint features, losses and scores are cheap vectorised sums and stay in the calling
    process. Batches run serially when there is one worker or one example. Results are in the
    order of the inputs and are exactly the wrapped task's results, as long as its oracles
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
    def size_joint_feature(self) -> int:
        """Length of φ(x, y), that of the wrapped task."""
        return self.task.size_joint_feature

    # ----------------------------------------------------------------- delegated as they are
    def joint_feature(self, x: Any, y: Any) -> np.ndarray:
        """Return the wrapped task's φ(x, y)."""
        return self.task.joint_feature(x, y)

    def loss(self, y_true: Any, y: Any) -> float:
        """Return the wrapped task's Δ(y_true, y)."""
        return self.task.loss(y_true, y)

    def outputs(self, x: Any) -> Iterable[Any]:
        """Enumerate the wrapped task's outputs of x."""
        return self.task.outputs(x)

    def argmax(self, x: Any, w: np.ndarray) -> Any:
        """Return the wrapped task's ``argmax(x, w)``."""
        return self.task.argmax(x, w)

    def loss_augmented_argmax(self, x: Any, y_true: Any, w: np.ndarray) -> Any:
        """Return the wrapped task's ``loss_augmented_argmax(x, y_true, w)``."""
        return self.task.loss_augmented_argmax(x, y_true, w)

    def score(self, x: Any, y: Any, w: np.ndarray) -> float:
        """Return the wrapped task's ``w · φ(x, y)``."""
        return self.task.score(x, y, w)

    def max_loss(self, y_true: Any) -> float:
        """Return the wrapped task's largest loss against ``y_true``."""
        return self.task.max_loss(y_true)

    def outputs_equal(self, y: Any, other: Any) -> bool:
        """Tell whether the wrapped task considers two outputs equal."""
        return self.task.outputs_equal(y, other)

    def check_data(self, X: Sequence[Any], Y: Sequence[Any] | None = None):
        """Validate a data set with the wrapped task's checks."""
        return self.task.check_data(X, Y)

    def batch_joint_feature(self, X: Sequence[Any], Y: Sequence[Any]) -> Any:
        """Return the wrapped task's joint features of many examples."""
        return self.task.batch_joint_feature(X, Y)

    def sparse_joint_feature(self, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return the wrapped task's non-zero entries of φ(x, y)."""
        return self.task.sparse_joint_feature(x, y)

    def batch_loss(self, Y_true: Sequence[Any], Y: Sequence[Any]) -> np.ndarray:
        """Return the wrapped task's losses of many examples."""
        return self.task.batch_loss(Y_true, Y)

    def batch_score(self, X: Sequence[Any], Y: Sequence[Any], w: np.ndarray) -> np.ndarray:
        """Return the wrapped task's scores of many examples."""
        return self.task.batch_score(X, Y, w)

    # ----------------------------------------------------------------- run in parallel
    def batch_argmax(self, X: Sequence[Any], w: np.ndarray) -> Sequence[Any]:
        """Return ``argmax(x, w)`` for every input, computed in chunks by the workers."""
        return self._map_chunks(self.task.batch_argmax, len(X), lambda part: (X[part], w))

    def batch_loss_augmented_argmax(
        self, X: Sequence[Any], Y_true: Sequence[Any], w: np.ndarray
    ) -> Sequence[Any]:
        """Return ``loss_augmented_argmax(x, y_true, w)`` for every example, in chunks."""
        return self._map_chunks(
            self.task.batch_loss_augmented_argmax,
            len(X),
            lambda part: (X[part], Y_true[part], w),
        )

    def _map_chunks(
        self,
        batch_method: Callable[..., Sequence[Any]],
        n_examples: int,
        chunk_arguments: Callable[[slice], tuple[Any, ...]],
    ) -> Sequence[Any]:
        """Call ``batch_method`` on contiguous chunks in parallel and join the results in order."""
        backend = nullcontext() if self.backend is None else parallel_config(self.backend)
        with backend:
            n_chunks = min(n_examples, effective_n_jobs(self.n_jobs))
            if n_chunks <= 1:
                return batch_method(*chunk_arguments(slice(0, n_examples)))
            bounds = np.linspace(0, n_examples, n_chunks + 1).astype(int)
            parts = [slice(begin, stop) for begin, stop in itertools.pairwise(bounds)]
            results = Parallel(n_jobs=self.n_jobs)(
                delayed(batch_method)(*chunk_arguments(part)) for part in parts
            )
        if all(isinstance(result, np.ndarray) for result in results):
            return np.concatenate(results)
        return [output for result in results for output in result]


def check_n_jobs(n_jobs: Any) -> int | None:
    """Return ``n_jobs`` if it is None or a non-zero integer; raise ValueError otherwise."""
    check_value(n_jobs, "n_jobs", N_JOBS)
    return None if n_jobs is None else int(n_jobs)
