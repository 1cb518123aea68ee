"""Problems shared by the tests, as fixtures.

Most fixtures return a factory: a test calls it with the seed and sizes it asserts on, and the
same arguments give the same data in every test. The factories are stateless, so they are
built once per session; every call draws fresh arrays. The other fixtures are fresh data.
"""

import itertools

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from structsvm import Task
from tasks import ChainTask, MulticlassTask

GRADED_LOSSES = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)


class PairLabelling(Task):
    """Two binary labels per input, scored jointly: a user task known only by enumeration.

    x is a (2, d) array; φ(x, y) stacks x[t] into the block of label y[t], plus an indicator
    of the label pair. Loss: Hamming. Only ``outputs`` is given, so both oracles are the base
    class's brute force.
    """

    def __init__(self, d):
        self.d = d
        self.size_joint_feature = 2 * d + 4

    def joint_feature(self, x, y):
        phi = np.zeros(self.size_joint_feature)
        for t in range(2):
            phi[y[t] * self.d : (y[t] + 1) * self.d] += x[t]
        phi[2 * self.d + 2 * y[0] + y[1]] = 1.0
        return phi

    def loss(self, y_true, y):
        return float(np.sum(np.asarray(y_true) != np.asarray(y)))

    def max_loss(self, y_true):
        return 2.0

    def outputs(self, x):
        return [np.array(y) for y in itertools.product([0, 1], repeat=2)]


# ------------------------------------------------------------------------ flat data
@pytest.fixture(scope="session")
def ordinal_classes():
    """Factory ``(seed=0, n=40) -> (X, Y)``: three ordered classes of 3-D Gaussian inputs.

    Y counts the thresholds x crosses, x[0] (with noise) above 0 and x[1] above 0.5, so the
    classes overlap.
    """

    def make(seed=0, n=40):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n, 3))
        Y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 0.5)
        return X, Y

    return make


@pytest.fixture(scope="session")
def points_around():
    """Factory ``(centres, n, noise, seed, constant_feature=False) -> (X, y)``.

    y draws n classes uniformly among the rows of ``centres``; x is the centre of its class
    plus Gaussian noise of standard deviation ``noise``, and a last feature of 1 if asked.
    """

    def make(centres, n, noise, seed, constant_feature=False):
        centres = np.asarray(centres, dtype=float)
        rng = np.random.default_rng(seed)
        y = rng.integers(0, len(centres), size=n)
        X = centres[y] + noise * rng.normal(size=(n, centres.shape[1]))
        if constant_feature:
            X = np.hstack([X, np.ones((n, 1))])
        return X, y

    return make


@pytest.fixture
def digits_split():
    """(X_train, X_test, y_train, y_test): the digits scaled to [0, 1], split 70/30."""
    digits = load_digits()
    return train_test_split(digits.data / 16, digits.target, test_size=0.3, random_state=0)


# ------------------------------------------------------------------------ label sequences
@pytest.fixture(scope="session")
def label_sequences():
    """Factory ``(n_sequences, n_labels, lengths, noise, seed) -> (X, Y)``.

    Each sequence has a length drawn from ``lengths`` = (shortest, longest) and uniform labels;
    x[t] is the one-hot vector of label t plus Gaussian noise of standard deviation ``noise``.
    """

    def make(n_sequences, n_labels, lengths, noise, seed):
        rng = np.random.default_rng(seed)
        shortest, longest = lengths
        X, Y = [], []
        for _ in range(n_sequences):
            labels = rng.integers(0, n_labels, size=rng.integers(shortest, longest + 1))
            X.append(np.eye(n_labels)[labels] + noise * rng.normal(size=(len(labels), n_labels)))
            Y.append(labels)
        return X, Y

    return make


# ------------------------------------------------------------------------ structured problems
@pytest.fixture(scope="session")
def multiclass_problem(ordinal_classes):
    """Factory ``(seed=0, n=40) -> (task, X, Y)``: the ordinal classes with graded losses."""

    def make(seed=0, n=40):
        return MulticlassTask(3, 3, loss_matrix=GRADED_LOSSES), *ordinal_classes(seed, n)

    return make


@pytest.fixture(scope="session")
def one_hot_multiclass(points_around):
    """Factory ``(n, noise, seed=0) -> (task, X, y)``: three classes around one-hot centres.

    X holds a constant last feature, so the task has 4 features.
    """

    def make(n, noise, seed=0):
        X, y = points_around(np.eye(3), n, noise, seed, constant_feature=True)
        return MulticlassTask(3, 4), X, y

    return make


@pytest.fixture(scope="session")
def pair_problem():
    """Factory ``(seed=0, n=25) -> (task, X, Y)`` of :class:`PairLabelling` on 2 × 3 inputs."""

    def make(seed=0, n=25):
        rng = np.random.default_rng(seed)
        X = [rng.normal(size=(2, 3)) for _ in range(n)]
        Y = [np.array([int(x[0, 0] > 0), int(x[1, 0] + x[0, 1] > 0)]) for x in X]
        return PairLabelling(3), X, Y

    return make


@pytest.fixture(scope="session")
def chain_problem(label_sequences):
    """Factory ``(n_sequences=30, seed=0) -> (task, X, Y)``: 3 labels, lengths 1 to 6."""

    def make(n_sequences=30, seed=0):
        return ChainTask(3, 3), *label_sequences(n_sequences, 3, (1, 6), 0.6, seed)

    return make


@pytest.fixture(params=["multiclass", "pair labelling"])
def full_qp_problem(request, multiclass_problem, pair_problem):
    """(task, X, Y) of each small problem whose full QP is solved as the ground truth."""
    factories = {"multiclass": multiclass_problem, "pair labelling": pair_problem}
    return factories[request.param]()
