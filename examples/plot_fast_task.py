"""
A fast task of your own: labelling a sequence with few changes
==============================================================

A sequence of readings is labelled position by position, and the labelling may change at most
``K`` times: a machine's states over a shift, the speakers of a recording, the segments of a
signal. φ(x, y) adds up each position's features in the block of its label, plus the number of
changes (whose weight learns what a change costs); Δ is the Hamming loss. The oracles are a
dynamic programme over (position, changes so far, label), written once in Numba: the Python
oracles call it, and the task hands it to the solvers as its compiled oracle
(:meth:`structsvm.Task.compiled_oracle`), on which their passes run in compiled code.
:func:`structsvm.check_task` checks the Python oracles by enumerating the outputs of short
sequences, and the compiled oracle against the Python methods, before training.
"""

import itertools

import matplotlib.pyplot as plt
import numba
import numpy as np

import structsvm


# --- the dynamic programme, which both the Python and the compiled oracle call ---
@numba.njit(cache=True)
def best_labels(unary, change_weight, truth, augmented, max_changes):
    """The labels maximising Σ_t unary[t, y_t] + change_weight·changes (+ Hamming to truth)."""
    length, n_labels = unary.shape
    value = np.full((length, max_changes + 1, n_labels), -np.inf)
    previous = np.zeros((length, max_changes + 1, n_labels), dtype=np.int64)
    for t in range(length):
        for label in range(n_labels):
            gain = unary[t, label] + (1.0 if augmented and truth[t] != label else 0.0)
            if t == 0:
                value[0, 0, label] = gain
                continue
            for changes in range(max_changes + 1):
                best, came_from = value[t - 1, changes, label], label
                for other in range(n_labels):
                    if changes > 0 and other != label:
                        moved = value[t - 1, changes - 1, other] + change_weight
                        if moved > best:
                            best, came_from = moved, other
                value[t, changes, label] = best + gain
                previous[t, changes, label] = came_from
    changes, label = 0, 0  # ties: the fewest changes, then the smallest label
    for c in range(max_changes + 1):
        for k in range(n_labels):
            if value[length - 1, c, k] > value[length - 1, changes, label]:
                changes, label = c, k
    labels = np.empty(length, dtype=np.int64)
    for t in range(length - 1, -1, -1):
        labels[t] = label
        came_from = previous[t, changes, label]
        if came_from != label:
            changes -= 1
        label = came_from
    return labels


# --- the compiled oracle's four functions, over the training set stacked into data ---
@numba.njit(cache=True)
def segment_scores(data, i, w):
    """Example i's unary scores, (length, n_labels): x_t times the label blocks of w."""
    inputs, offsets, _, n_labels, _ = data
    x = inputs[offsets[i] : offsets[i + 1]]
    return x @ w[: n_labels * x.shape[1]].reshape(n_labels, x.shape[1]).T


@numba.njit(cache=True)
def segment_decode(data, i, w, scores, augmented):
    _, offsets, truths, _, max_changes = data
    truth = truths[offsets[i] : offsets[i + 1]]
    return best_labels(scores, w[-1], truth, augmented, max_changes)


@numba.njit(cache=True)
def segment_features(data, i, labels):
    inputs, offsets, _, n_labels, _ = data
    x = inputs[offsets[i] : offsets[i + 1]]
    phi = np.zeros(n_labels * x.shape[1] + 1)
    for t in range(len(x)):
        phi[labels[t] * x.shape[1] : (labels[t] + 1) * x.shape[1]] += x[t]
        if t > 0 and labels[t] != labels[t - 1]:
            phi[-1] += 1.0
    return np.arange(len(phi)), phi


@numba.njit(cache=True)
def segment_loss(data, i, labels):
    _, offsets, truths, _, _ = data
    return float(np.sum(truths[offsets[i] : offsets[i + 1]] != labels))


# --- the task: φ, Δ and the oracles in Python, and the compiled oracle over a training set ---
class FewChangesTask(structsvm.Task):
    """Label every position of a sequence x (length × n_features) with at most K changes."""

    def __init__(self, n_labels, n_features, max_changes):
        self.n_labels, self.n_features, self.max_changes = n_labels, n_features, max_changes
        self.size_joint_feature = n_labels * n_features + 1

    def joint_feature(self, x, y):
        phi = np.zeros((self.n_labels, self.n_features))
        np.add.at(phi, y, x)
        return np.append(phi.ravel(), np.count_nonzero(np.diff(y)))

    def loss(self, y_true, y):
        return float(np.sum(np.asarray(y_true) != np.asarray(y)))

    def max_loss(self, y_true):
        return float(len(y_true))

    def outputs(self, x):  # for check_task, on short sequences
        for y in itertools.product(range(self.n_labels), repeat=len(x)):
            if np.count_nonzero(np.diff(y)) <= self.max_changes:
                yield np.array(y)

    def _decode(self, x, w, truth, augmented):
        unary = x @ w[:-1].reshape(self.n_labels, self.n_features).T
        return best_labels(unary, w[-1], truth, augmented, self.max_changes)

    def argmax(self, x, w):
        return self._decode(x, w, np.zeros(len(x), dtype=np.int64), False)

    def loss_augmented_argmax(self, x, y_true, w):
        return self._decode(x, w, np.asarray(y_true, dtype=np.int64), True)

    def compiled_oracle(self, X, Y):
        offsets = np.cumsum([0] + [len(x) for x in X]).astype(np.int64)
        inputs = np.ascontiguousarray(np.concatenate(X), dtype=np.float64)
        truths = np.concatenate(Y).astype(np.int64)
        data = (inputs, offsets, truths, self.n_labels, self.max_changes)
        functions = (segment_scores, segment_decode, segment_features, segment_loss)
        return structsvm.CompiledOracle(data, *functions, n_examples=len(X))


# --- data: noisy readings of three regimes, each sequence changing regime at most twice ---
def make_sequences(means, n, length, rng, max_changes=2):
    X, Y = [], []
    for _ in range(n):
        cuts = np.sort(rng.choice(np.arange(1, length), size=max_changes, replace=False))
        y = np.repeat(rng.integers(0, len(means), max_changes + 1), np.diff([0, *cuts, length]))
        x = means[y] + rng.normal(scale=1.5, size=(length, means.shape[1]))
        X.append(np.hstack([x, np.ones((length, 1))]))  # and a bias feature
        Y.append(y)
    return X, Y


rng = np.random.default_rng(0)
means = rng.normal(size=(3, 3))  # three regimes, three readings each
task = FewChangesTask(n_labels=3, n_features=4, max_changes=2)
X_short, Y_short = make_sequences(means, 5, 6, rng)
print(structsvm.check_task(task, X_short, Y_short))

X_train, Y_train = make_sequences(means, 500, 30, rng)
X_test, Y_test = make_sequences(means, 200, 30, rng)
model = structsvm.StructuredSVM(task, C=1.0).fit(X_train, Y_train)
print(f"solver {model.solver_}, converged {model.converged_}, {model.history_[-1]['time']:.2f} s")
print(f"test accuracy per position {model.score(X_test, Y_test):.3f}")


# %%
# The same task without its compiled oracle: the solver calls the Python oracles example by
# example, to the same model.
class PythonOnly(FewChangesTask):
    compiled_oracle = structsvm.Task.compiled_oracle


slow = structsvm.StructuredSVM(PythonOnly(3, 4, 2), C=1.0).fit(X_train, Y_train)
print(f"without the compiled oracle: {slow.history_[-1]['time']:.2f} s")

# %%
# A test sequence: its readings, its true regimes and the predicted ones.
x, y = X_test[0], Y_test[0]
figure, (readings, labels) = plt.subplots(2, 1, sharex=True, figsize=(8, 4))
readings.plot(x[:, :-1])
readings.set_ylabel("readings")
labels.step(range(len(y)), y, where="mid", label="true")
labels.step(range(len(y)), model.predict([x])[0], where="mid", linestyle="--", label="predicted")
labels.set_yticks(range(task.n_labels))
labels.set_xlabel("position")
labels.set_ylabel("regime")
labels.legend()
