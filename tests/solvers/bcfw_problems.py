"""Small multiclass and chain problems on which BCFW's compiled passes and Python loop are
compared, and the per-pass record of a run."""

import numpy as np
import scipy.sparse

from structsvm.solvers import bcfw
from tasks import ChainTask, MulticlassTask


def multiclass(sparse):
    rng = np.random.default_rng(0)
    Y = rng.integers(0, 4, 50)
    X = rng.normal(size=(50, 6)) + np.eye(4, 6)[Y] * 1.5
    X[rng.random(X.shape) < 0.3] = 0.0
    task = MulticlassTask(4, 6, loss_matrix=1.0 - np.eye(4) + np.eye(4, k=1))
    return (task, *task.check_data(scipy.sparse.csr_matrix(X) if sparse else X, Y))


def chain(sparse):
    rng = np.random.default_rng(1)
    Y = [rng.integers(0, 3, size=rng.integers(1, 7)) for _ in range(30)]
    X = [np.eye(3, 5)[y] + rng.normal(size=(len(y), 5)) for y in Y]
    X = [x * (rng.random(x.shape) < 0.6) for x in X]
    task = ChainTask(3, 5, start_end=True, bias=True, label_weights=[1.0, 2.0, 0.5])
    return (task, *task.check_data([scipy.sparse.csr_matrix(x) for x in X] if sparse else X, Y))


PROBLEMS = {
    "dense multiclass": lambda: multiclass(False),
    "sparse multiclass": lambda: multiclass(True),
    "dense chain": lambda: chain(False),
    "sparse chain": lambda: chain(True),
}


def passes(task, X, Y, compiled, n_passes=6, C=0.5, random_state=2, **options):
    """Return (w, last history record, dual state) after every pass of a BCFW run."""
    states = bcfw(
        task, X, Y, C, tol=0.0, max_iter=n_passes, random_state=random_state,
        compiled=compiled, **options,
    )
    return [(state.w.copy(), dict(state.history[-1]), state.dual_state) for state in states]
