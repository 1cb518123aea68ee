"""When a batch is worth Numba's threads: the rule the compiled tasks share.

A batch of fewer than :data:`PARALLEL_FROM` examples runs on the calling thread; larger batches
run in runs of examples on Numba's number of threads (:func:`numba.get_num_threads`, which
learners set from their ``n_jobs``; :func:`run_sequences`), or with the parallel twins of
their compiled loops. Dense products
(:func:`row_blocks_product`) and the stacking of a large batch (:func:`stacked_rows`) are
shared among the same threads, each block on one BLAS thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numba
import numpy as np
import numpy.typing as npt

from structsvm._utils.parallel import blas_threads, run_in_parts

#: The smallest batch that runs on more than one thread.
PARALLEL_FROM = 64

#: The rows of a block of :func:`row_blocks_product`.
ROWS_PER_BLOCK = 1024


def use_threads(n_examples: int) -> bool:
    """Tell whether a batch of ``n_examples`` runs on Numba's threads (more than one)."""
    return n_examples >= PARALLEL_FROM and numba.get_num_threads() > 1


def run_sequences(run: Callable[[int, int], None], n_examples: int) -> None:
    """Call ``run(first, stop)`` on runs of a batch's ``n_examples`` that together cover it: on
    Numba's number of threads (:func:`~structsvm._utils.parallel.run_in_parts`) if
    :func:`use_threads`, else once on the calling thread."""
    if use_threads(n_examples):
        run_in_parts(run, n_examples)
    else:
        run(0, n_examples)


def row_blocks_product(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Return ``A @ B`` (float64), in blocks of :data:`ROWS_PER_BLOCK` rows of ``A``.

    Every block is made float64 (integer rows one block at a time) and multiplied by one
    single-threaded BLAS product into its own rows of the result; runs of blocks are shared
    among Numba's number of threads. A row of the result depends on its row of ``A`` and on
    ``B`` only, whatever the number of threads, and is the same for integer rows as for
    their float64 values.
    """
    product = np.empty((A.shape[0], B.shape[1]))
    starts = range(0, A.shape[0], ROWS_PER_BLOCK)

    def multiply(first: int, stop: int) -> None:
        for begin in starts[first:stop]:
            end = begin + ROWS_PER_BLOCK
            np.matmul(A[begin:end].astype(np.float64, copy=False), B, out=product[begin:end])

    with blas_threads().limit(limits=1, user_api="blas"):
        run_in_parts(multiply, len(starts))
    return product


def stacked_rows(
    X: Sequence[np.ndarray], offsets: np.ndarray, dtype: npt.DTypeLike = np.float64
) -> np.ndarray:
    """Return ``np.concatenate(X)`` as ``dtype``, its parts copied on Numba's number of threads.

    ``offsets`` (n + 1,) marks where each array starts in the stack; a batch that
    :func:`use_threads` keeps serial is stacked on the calling thread.
    """
    if not use_threads(len(X)):
        return np.concatenate(X).astype(dtype, copy=False)
    stack = np.empty((offsets[-1], *np.shape(X[0])[1:]), dtype=dtype)

    def copy(begin: int, stop: int) -> None:
        np.concatenate(X[begin:stop], out=stack[offsets[begin] : offsets[stop]], casting="unsafe")

    run_in_parts(copy, len(X))
    return stack
