"""Small problems on which BCFW's compiled passes and Python loop are compared (multiclass,
chains and a user's task with its own compiled oracle), and the per-pass record of a run."""

import numba
import numpy as np
import scipy.sparse

from structsvm import Task
from structsvm._compiled_oracle import CompiledOracle
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
    "user's task": lambda: tagging(),
}


def passes(task, X, Y, compiled, n_passes=6, C=0.5, random_state=2, **options):
    """Return (w, last history record, dual state) after every pass of a BCFW run."""
    states = bcfw(
        task, X, Y, C, tol=0.0, max_iter=n_passes, random_state=random_state,
        compiled=compiled, **options,
    )
    return [(state.w.copy(), dict(state.history[-1]), state.dual_state) for state in states]


@numba.njit(cache=True)
def _tag_scores(data, i, w):
    """Each tag's score ``w_l · x_i``, one row per tag."""
    X, _ = data
    n_tags, n_features = len(w) // X.shape[1], X.shape[1]
    scores = np.empty((n_tags, 1))
    for tag in range(n_tags):
        scores[tag, 0] = w[tag * n_features : (tag + 1) * n_features] @ X[i]
    return scores


@numba.njit(cache=True)
def _tag_decode(data, i, w, scores, augmented):
    """Tag l is on when its score (plus the loss it adds) is above that of off; ties: off."""
    truth = data[1][i]
    labels = np.zeros(len(truth), dtype=np.int64)
    for tag in range(len(truth)):
        on, off = scores[tag, 0], 0.0
        if augmented:
            on += truth[tag] != 1
            off += truth[tag] != 0
        labels[tag] = on > off
    return labels


@numba.njit(cache=True)
def _tag_features(data, i, labels):
    """x_i in the block of every tag that is on."""
    x = data[0][i]
    on = np.flatnonzero(labels)
    indices = np.empty(len(on) * len(x), dtype=np.int64)
    for k in range(len(on)):
        indices[k * len(x) : (k + 1) * len(x)] = on[k] * len(x) + np.arange(len(x))
    values = np.empty(len(indices))
    for k in range(len(on)):
        values[k * len(x) : (k + 1) * len(x)] = x
    return indices, values


@numba.njit(cache=True)
def _tag_loss(data, i, labels):
    """The Hamming loss."""
    return float(np.sum(data[1][i] != labels))


class TaggingTask(Task):
    """A user's task outside ``tasks/``: independent binary tags, with its own compiled oracle.

    φ(x, y) puts x in the block of each tag that is on; Δ is the Hamming loss.
    """

    def __init__(self, n_tags, n_features):
        self.n_tags, self.n_features = n_tags, n_features
        self.size_joint_feature = n_tags * n_features

    def joint_feature(self, x, y):
        return np.outer(y, x).ravel()

    def loss(self, y_true, y):
        return float(np.sum(np.asarray(y_true) != np.asarray(y)))

    def argmax(self, x, w):
        return (w.reshape(self.n_tags, -1) @ x > 0).astype(np.int64)

    def loss_augmented_argmax(self, x, y_true, w):
        on = w.reshape(self.n_tags, -1) @ x + (np.asarray(y_true) != 1)
        return (on > (np.asarray(y_true) != 0)).astype(np.int64)

    def compiled_oracle(self, X, Y):
        data = (np.ascontiguousarray(X, dtype=np.float64), np.asarray(Y, dtype=np.int64))
        return CompiledOracle(
            data, _tag_scores, _tag_decode, _tag_features, _tag_loss, n_examples=len(X)
        )


def tagging():
    rng = np.random.default_rng(4)
    Y = rng.integers(0, 2, (40, 3))
    X = rng.normal(size=(40, 5)) + np.hstack([Y, np.ones((40, 2))])
    task = TaggingTask(3, 5)
    return (task, *task.check_data(X, Y))
