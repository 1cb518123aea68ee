"""When a batch is worth Numba's threads: the rule the compiled tasks share.

Starting the threads of a parallel loop costs little on an idle machine but, when other
processes keep the cores busy, a loop waits for every thread to be scheduled, which can take
milliseconds. A batch of a few examples (one example, in the per-example oracle calls of
BCFW or the perceptron) is therefore handled by the serial kernels on the calling thread;
batches of at least :data:`PARALLEL_FROM` examples by their parallel twins on Numba's number
of threads (:func:`numba.get_num_threads`, which learners set from their ``n_jobs``). The serial
kernels also keep Ctrl-C a plain KeyboardInterrupt, which an interrupt inside a parallel
kernel is not.
"""

from __future__ import annotations

import numba

#: The smallest batch that runs on more than one thread.
PARALLEL_FROM = 64


def use_threads(n_examples: int) -> bool:
    """Tell whether a batch of ``n_examples`` runs on Numba's threads (more than one)."""
    return n_examples >= PARALLEL_FROM and numba.get_num_threads() > 1

