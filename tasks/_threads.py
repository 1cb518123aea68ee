"""When a batch is worth Numba's threads: the rule the compiled tasks share.

Starting the threads of a parallel loop costs little on an idle machine but, when other
processes keep the cores busy, a loop waits for every thread to be scheduled, which can take
milliseconds. A batch of a few examples (one example, in the per-example oracle calls of
BCFW or the perceptron) is therefore decoded on the calling thread alone; batches of at least
:data:`PARALLEL_FROM` examples use Numba's number of threads (:func:`numba.get_num_threads`,
which learners set from their ``n_jobs``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numba

#: The smallest batch that runs on more than one thread.
PARALLEL_FROM = 64


def use_threads(n_examples: int) -> bool:
    """Tell whether a batch of ``n_examples`` runs on Numba's threads (more than one)."""
    return n_examples >= PARALLEL_FROM and numba.get_num_threads() > 1


@contextmanager
def threads_for(n_examples: int) -> Iterator[None]:
    """Run the parallel loops inside the block on one thread unless :func:`use_threads`."""
    if use_threads(n_examples) or numba.get_num_threads() == 1:
        yield
        return
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(previous)
