"""When a batch is worth Numba's threads: the rule the compiled tasks share.

A batch of fewer than :data:`PARALLEL_FROM` examples runs the serial kernels on the calling
thread (a parallel loop waits for every thread to be scheduled, and the serial kernels keep
Ctrl-C a plain KeyboardInterrupt); larger batches run their parallel twins on Numba's number
of threads (:func:`numba.get_num_threads`, which learners set from their ``n_jobs``). Dense
matrix products (:func:`row_blocks_product`) and the stacking of a large batch
(:func:`stacked_rows`) are shared among the same threads, each block on one BLAS thread.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from structsvm._utils.parallel import blas_threads

#: The smallest batch that runs on more than one thread.
PARALLEL_FROM = 64

#: The rows of a block of :func:`row_blocks_product`.
ROWS_PER_BLOCK = 1024


def use_threads(n_examples: int) -> bool:
    """Tell whether a batch of ``n_examples`` runs on Numba's threads (more than one)."""
    return n_examples >= PARALLEL_FROM and numba.get_num_threads() > 1


@functools.cache
def _numpy_threads() -> ThreadPoolExecutor:
    """Return the pool of threads that runs the NumPy products and copies (made on first use)."""
    return ThreadPoolExecutor(
        max_workers=numba.config.NUMBA_NUM_THREADS, thread_name_prefix="structsvm-numpy"
    )


def row_blocks_product(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Return ``A @ B`` (float64), in blocks of :data:`ROWS_PER_BLOCK` rows of ``A``.

    Every block is multiplied by the BLAS on one thread, into its own rows of the result; the
    blocks are shared in contiguous runs among Numba's number of threads
    (:func:`numba.get_num_threads`), which NumPy lets run at once by releasing the interpreter
    lock in the products. A row of the result depends on its row of ``A`` and on ``B`` only,
    so it does not depend on the number of threads.
    """
    product = np.empty((A.shape[0], B.shape[1]))
    starts = range(0, A.shape[0], ROWS_PER_BLOCK)
    n_runs = min(numba.get_num_threads(), len(starts))

    def multiply(first: int, stop: int) -> None:
        for begin in starts[first:stop]:
            end = begin + ROWS_PER_BLOCK
            np.matmul(A[begin:end], B, out=product[begin:end])

    with blas_threads().limit(limits=1, user_api="blas"):
        if n_runs <= 1:
            multiply(0, len(starts))
        else:
            bounds = np.linspace(0, len(starts), n_runs + 1).astype(np.int64).tolist()
            runs = [
                _numpy_threads().submit(multiply, first, stop)
                for first, stop in itertools.pairwise(bounds)
            ]
            for run in runs:
                run.result()
    return product


def stacked_rows(X: Sequence[np.ndarray], offsets: np.ndarray) -> np.ndarray:
    """Return ``np.concatenate(X)`` as float64, its parts copied on Numba's number of threads.

    ``offsets`` (n + 1,) marks where each array starts in the stack. Every part is a
    contiguous run of arrays copied into its own rows, so the result is the serial one; a
    batch that :func:`use_threads` keeps serial is stacked on the calling thread.
    """
    n_parts = numba.get_num_threads() if use_threads(len(X)) else 1
    if n_parts == 1:
        return np.concatenate(X).astype(np.float64, copy=False)
    stack = np.empty((offsets[-1], *np.shape(X[0])[1:]))
    bounds = np.linspace(0, len(X), n_parts + 1).astype(np.int64).tolist()
    copies = [
        _numpy_threads().submit(
            np.concatenate, X[begin:stop], out=stack[offsets[begin] : offsets[stop]],
            casting="unsafe",
        )
        for begin, stop in itertools.pairwise(bounds)
    ]
    for copy in copies:
        copy.result()
    return stack
