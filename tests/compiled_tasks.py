"""Problems for the solvers' compiled passes: user tasks that bring their own compiled oracle.

Each user task has plain Python methods (the base class enumerates their outputs) and a
``compiled_oracle`` of four Numba functions over data prepared once, as a user of the framework
writes one, so that the solvers' compiled passes can be checked against their Python paths on
tasks the framework does not ship; and the multiclass task's problems, with its own oracle.
"""

import itertools

import numba
import numpy as np
import scipy.sparse as sp

from structsvm import Task
from structsvm._compiled_oracle import CompiledOracle
from tasks import MulticlassTask

# ------------------------------------------------------------------ two binary labels


class PairTask(Task):
    """Two binary labels per input, scored jointly; Hamming loss.

    x is a (2, d) array; φ(x, y) adds x[t] into the block of label y[t] (two blocks of d), plus
    an indicator of the label pair (4 entries). Its compiled oracle enumerates the 4 outputs
    in the order of ``outputs``, ties to the first, as the base class does.
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

    def compiled_oracle(self, X, Y):
        inputs = np.ascontiguousarray(np.stack([np.asarray(x, dtype=float) for x in X]))
        truths = np.ascontiguousarray(np.stack([np.asarray(y, dtype=np.int64) for y in Y]))
        data = (inputs, truths, self.d)
        return CompiledOracle(data, pair_scores, pair_decode, pair_features, pair_loss, len(X))


@numba.njit(cache=True)
def pair_scores(data, i, w):
    """Return scores[t, label] = w[block of label] · x[t]."""
    inputs, _, d = data
    scores = np.zeros((2, 2))
    for t in range(2):
        for label in range(2):
            for j in range(d):
                scores[t, label] += w[label * d + j] * inputs[i, t, j]
    return scores


@numba.njit(cache=True)
def pair_decode(data, i, w, scores, augmented):
    """Return the best of the 4 label pairs, in the order (0, 0), (0, 1), (1, 0), (1, 1)."""
    truths, d = data[1], data[2]
    best = np.zeros(2, dtype=np.int64)
    best_value = -np.inf
    for first in range(2):
        for second in range(2):
            value = scores[0, first] + scores[1, second] + w[2 * d + 2 * first + second]
            if augmented:
                value += (first != truths[i, 0]) + (second != truths[i, 1])
            if value > best_value:
                best_value = value
                best[0], best[1] = first, second
    return best


@numba.njit(cache=True)
def pair_features(data, i, labels):
    """Return φ(x_i, y) on the blocks of the labels (both inputs' entries) and the indicator."""
    inputs, _, d = data
    dense = np.zeros(2 * d)
    for t in range(2):
        for j in range(d):
            dense[labels[t] * d + j] += inputs[i, t, j]
    low, high = min(labels[0], labels[1]), max(labels[0], labels[1])
    n_blocks = 1 if low == high else 2
    indices = np.empty(n_blocks * d + 1, dtype=np.int64)
    values = np.empty(n_blocks * d + 1)
    for block in range(n_blocks):
        label = low if block == 0 else high
        for j in range(d):
            indices[block * d + j] = label * d + j
            values[block * d + j] = dense[label * d + j]
    indices[-1] = 2 * d + 2 * labels[0] + labels[1]
    values[-1] = 1.0
    return indices, values


@numba.njit(cache=True)
def pair_loss(data, i, labels):
    """Return the Hamming loss."""
    truths = data[1]
    return 1.0 * (labels[0] != truths[i, 0]) + 1.0 * (labels[1] != truths[i, 1])


def pair_problem(n, d=3, seed=0):
    """Return a PairTask and n examples whose labels follow the inputs, with noise."""
    rng = np.random.default_rng(seed)
    Y = [rng.integers(0, 2, size=2) for _ in range(n)]
    X = [np.eye(2, d)[y] + 0.8 * rng.normal(size=(2, d)) for y in Y]
    task = PairTask(d)
    return (task, *task.check_data(X, Y))


# ------------------------------------------------------------------ classes, interleaved


class InterleavedClasses(Task):
    """Multiclass with its own layout: φ(x, y)[j K + y] = s_y x[j], for K classes.

    The signs s_y are ±1, so the outputs' joint features are mutually orthogonal with equal
    norms, but not all the same values moved (those of classes of the other sign differ).
    The loss is a loss matrix. Its compiled oracle gives every example the K classes
    (``n_outputs``).
    """

    def __init__(self, loss_matrix, n_features, signs):
        self.loss_matrix = np.asarray(loss_matrix, dtype=float)
        self.n_classes = len(self.loss_matrix)
        self.n_features = n_features
        self.signs = np.asarray(signs, dtype=float)
        self.size_joint_feature = self.n_classes * n_features

    def joint_feature(self, x, y):
        phi = np.zeros(self.size_joint_feature)
        phi[np.arange(self.n_features) * self.n_classes + y] = self.signs[y] * np.asarray(x)
        return phi

    def loss(self, y_true, y):
        return float(self.loss_matrix[y_true, y])

    def max_loss(self, y_true):
        return float(self.loss_matrix[y_true].max())

    def outputs(self, x):
        return range(self.n_classes)

    def compiled_oracle(self, X, Y):
        data = (
            np.ascontiguousarray(X, dtype=float),
            np.asarray(Y, dtype=np.int64),
            self.loss_matrix,
            self.signs,
        )
        return CompiledOracle(
            data,
            interleaved_scores,
            interleaved_decode,
            interleaved_features,
            interleaved_loss,
            len(X),
            to_output=lambda labels: int(labels[0]),
            n_outputs=self.n_classes,
        )


@numba.njit(cache=True)
def interleaved_scores(data, i, w):
    """Return the (1, K) class scores."""
    inputs, _, loss_matrix, signs = data
    n_classes = len(loss_matrix)
    scores = np.zeros((1, n_classes))
    for y in range(n_classes):
        for j in range(inputs.shape[1]):
            scores[0, y] += w[j * n_classes + y] * signs[y] * inputs[i, j]
    return scores


@numba.njit(cache=True)
def interleaved_decode(data, i, w, scores, augmented):
    """Return the best class (plus its loss if augmented), ties to the smallest."""
    truths, loss_matrix = data[1], data[2]
    best, best_value = 0, -np.inf
    for y in range(len(loss_matrix)):
        value = scores[0, y] + (loss_matrix[truths[i], y] if augmented else 0.0)
        if value > best_value:
            best, best_value = y, value
    return np.full(1, best, dtype=np.int64)


@numba.njit(cache=True)
def interleaved_features(data, i, labels):
    """Return s_y x_i at the columns j K + y."""
    inputs, _, loss_matrix, signs = data
    y, n_classes = labels[0], len(loss_matrix)
    indices = np.arange(inputs.shape[1]) * n_classes + y
    return indices.astype(np.int64), signs[y] * inputs[i]


@numba.njit(cache=True)
def interleaved_loss(data, i, labels):
    """Return loss_matrix[y_i, y]."""
    return data[2][data[1][i], labels[0]]


class SharedInputClasses(InterleavedClasses):
    """Classes that share the input: φ(x, y) = (x, e_y). Its outputs are not orthogonal."""

    def __init__(self, loss_matrix, n_features):
        super().__init__(loss_matrix, n_features, np.ones(len(loss_matrix)))
        self.size_joint_feature = n_features + self.n_classes

    def joint_feature(self, x, y):
        return np.concatenate([np.asarray(x, dtype=float), np.eye(self.n_classes)[y]])

    def compiled_oracle(self, X, Y):
        oracle = super().compiled_oracle(X, Y)
        return oracle._replace(features=shared_input_features)


@numba.njit(cache=True)
def shared_input_features(data, i, labels):
    """Return (x_i, e_y)."""
    inputs, n_features = data[0], data[0].shape[1]
    indices = np.arange(n_features + 1)
    indices[-1] = n_features + labels[0]
    values = np.ones(n_features + 1)
    values[:n_features] = inputs[i]
    return indices.astype(np.int64), values


ASYMMETRIC_LOSS = np.array(
    [[0.0, 1.0, 2.0, 0.5], [1.0, 0.0, 1.0, 3.0], [0.5, 2.0, 0.0, 1.0], [1.0, 1.0, 1.0, 0.0]]
)


def interleaved_problem(n, signs=(1.0, -1.0, 1.0, -1.0), seed=0):
    """Return an InterleavedClasses task of 4 classes and 5 features, and n examples."""
    rng = np.random.default_rng(seed)
    Y = rng.integers(0, 4, n)
    X = rng.normal(size=(n, 5)) + 1.5 * np.eye(4, 5)[Y]
    X[rng.random(X.shape) < 0.2] = 0.0
    task = InterleavedClasses(ASYMMETRIC_LOSS, 5, signs)
    return (task, *task.check_data(X, Y))


def multiclass_problem(sparse, n, seed=0):
    """Return a MulticlassTask of 4 classes (random costs), 5 features, and n examples."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)) * (rng.random((n, 5)) < 0.7)
    losses = rng.random((4, 4)) * (1 - np.eye(4))
    task = MulticlassTask(4, 5, loss_matrix=losses)
    return task, *task.check_data(sp.csr_matrix(X) if sparse else X, rng.integers(0, 4, n))
