"""A task written outside the library trains as fast as the built-in one: OCR letters, C = 0.1.

:class:`UserChain` is a first-order chain with the Hamming loss written here, as a user would
write it against the public contract only (:class:`structsvm.Task` and its compiled oracle,
:class:`structsvm.CompiledOracle`): about eighty lines of Numba for the unary scores, Viterbi,
the joint feature and the loss, and the two optional functions that score a labelling from its
unary scores and add φ in place. It has the built-in :class:`tasks.ChainTask`'s joint feature map
(emissions, then transitions), so both define the same objective. Each solver trains both tasks
on the OCR letters' small split to the same certified relative duality gap, in one run, after an
untimed fit of each that fills Numba's on-disk cache (both are timed warm); the two tasks are then
fitted in turn several times, the fastest fit of each kept, and the table shows the time ratio
of the user's task to the built-in one.

Run ``python -m experiments.bench_user_task --help`` for the options.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numba
import numpy as np

from experiments._options import solver_and_options
from structsvm import CompiledOracle, ScoreTable, StructuredSVM, Task
from structsvm.datasets import ocr_letters_split
from tasks import ChainTask


@numba.njit(cache=True)
def _scores(data, i, w):
    X, offsets, _, n_labels, n_features = data
    x = X[offsets[i] : offsets[i + 1]]
    scores = np.zeros((len(x), n_labels))
    for t in range(len(x)):
        for j in range(n_features):
            if x[t, j] != 0.0:  # handwritten letters: most pixels are off
                for label in range(n_labels):
                    scores[t, label] += x[t, j] * w[label * n_features + j]
    return scores


@numba.njit(cache=True)
def _decode(data, i, w, scores, augmented):
    _, offsets, Y, n_labels, n_features = data
    transitions = w[n_labels * n_features :].reshape((n_labels, n_labels))  # previous, next
    length = scores.shape[0]
    if augmented:
        for t in range(length):
            for label in range(n_labels):
                if label != Y[offsets[i] + t]:
                    scores[t, label] += 1.0
    best = np.empty(n_labels)
    for t in range(1, length):  # scores[t] becomes the best score of a labelling ending there
        best[:] = -np.inf
        for before in range(n_labels):  # a row of transitions at a time: a loop that vectorises
            previous = scores[t - 1, before]
            for label in range(n_labels):
                best[label] = max(best[label], previous + transitions[before, label])
        scores[t] += best
    labels = np.empty(length, dtype=np.int64)
    labels[-1] = np.argmax(scores[length - 1])
    for t in range(length - 1, 0, -1):  # back: the first best label before labels[t]
        choice, value = 0, -np.inf
        for before in range(n_labels):
            candidate = scores[t - 1, before] + transitions[before, labels[t]]
            if candidate > value:
                choice, value = before, candidate
        labels[t - 1] = choice
    return labels


@numba.njit(cache=True)
def _features(data, i, labels):
    X, offsets, _, n_labels, n_features = data
    x = X[offsets[i] : offsets[i + 1]]
    counts = np.zeros(n_labels, dtype=np.int64)
    for label in labels:
        counts[label] += 1
    pairs = np.zeros((n_labels, n_labels))
    for t in range(len(labels) - 1):
        pairs[labels[t], labels[t + 1]] += 1.0
    size = np.sum(counts > 0) * n_features + len(labels) - 1
    indices = np.empty(size, dtype=np.int64)
    values = np.zeros(size)
    end = 0
    for label in range(n_labels):  # emissions: the rows of each label summed, by label
        if counts[label] == 0:
            continue
        for j in range(n_features):
            indices[end + j] = label * n_features + j
        for t in range(len(labels)):
            if labels[t] == label:
                values[end : end + n_features] += x[t]
        end += n_features
    for before in range(n_labels):  # transitions, by (previous label, next label)
        for after in range(n_labels):
            if pairs[before, after] > 0:
                indices[end] = n_labels * n_features + before * n_labels + after
                values[end] = pairs[before, after]
                end += 1
    kept = values[:end] != 0.0  # the pixels that are on: sparse sums in the solvers
    return indices[:end][kept], values[:end][kept]


@numba.njit(cache=True)
def _labelling_score(data, i, w, scores, labels):
    _, _, _, n_labels, n_features = data
    total = scores[0, labels[0]]
    for t in range(1, len(labels)):
        total += scores[t, labels[t]] + w[n_labels * (n_features + labels[t - 1]) + labels[t]]
    return total


@numba.njit(cache=True)
def _add_features(data, i, labels, scale, out):
    X, offsets, _, n_labels, n_features = data
    x = X[offsets[i] : offsets[i + 1]]
    for t in range(len(labels)):
        at = labels[t] * n_features
        for j in range(n_features):  # no test for zeros: a loop that vectorises
            out[at + j] += scale * x[t, j]
        if t > 0:
            out[n_labels * (n_features + labels[t - 1]) + labels[t]] += scale
    return True


@numba.njit(cache=True)
def _loss(data, i, labels):
    _, offsets, Y, _, _ = data
    return float(np.sum(Y[offsets[i] : offsets[i + 1]] != labels))


def _batch_scores(data: tuple, w: np.ndarray) -> ScoreTable:
    X, offsets, _, n_labels, n_features = data
    return ScoreTable(X @ w[: n_labels * n_features].reshape(n_labels, n_features).T, offsets)


class UserChain(Task):
    """Label every position of a sequence: emissions and transitions, Hamming loss."""

    def __init__(self, n_labels: int, n_features: int) -> None:
        self.n_labels, self.n_features = n_labels, n_features
        self.size_joint_feature = n_labels * n_features + n_labels * n_labels

    def _oracle(self, X: Any, Y: Any) -> CompiledOracle:
        offsets = np.concatenate([[0], np.cumsum([len(x) for x in X])]).astype(np.int64)
        data = (
            np.ascontiguousarray(np.concatenate(X), dtype=np.float64),
            offsets,
            np.concatenate(Y).astype(np.int64),
            self.n_labels,
            self.n_features,
        )
        return CompiledOracle(
            data,
            _scores,
            _decode,
            _features,
            _loss,
            len(X),
            batch_scores=_batch_scores,
            labelling_score=_labelling_score,
            add_features=_add_features,
        )

    def compiled_oracle(self, X: Any, Y: Any) -> CompiledOracle:
        return self._oracle(X, Y)

    def joint_feature(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        phi = np.zeros(self.size_joint_feature)
        indices, values = self.sparse_joint_feature(x, y)
        phi[indices] = values
        return phi

    def sparse_joint_feature(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        oracle = self._oracle([x], [y])
        return _features(oracle.data, 0, np.asarray(y, dtype=np.int64))

    def loss(self, y_true: np.ndarray, y: np.ndarray) -> float:
        return float(np.sum(np.asarray(y_true) != np.asarray(y)))

    def argmax(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        oracle = self._oracle([x], [np.zeros(len(x), dtype=np.int64)])
        return _decode(oracle.data, 0, w, _scores(oracle.data, 0, w), False)

    def loss_augmented_argmax(self, x: np.ndarray, y_true: np.ndarray, w: np.ndarray) -> np.ndarray:
        oracle = self._oracle([x], [y_true])
        return _decode(oracle.data, 0, w, _scores(oracle.data, 0, w), True)


def fit_time(task: Task, solver: str, X: Any, Y: Any, C: float, tol: float) -> dict[str, Any]:
    """Fit ``task`` once, timed; return the time and the run's figures."""
    name, options = solver_and_options(solver)
    model = StructuredSVM(task, C=C, solver=name, tol=tol, random_state=0, **options)
    start = time.perf_counter()
    model.fit(X, Y)
    elapsed = time.perf_counter() - start
    record = model.history_[-1]
    return {
        "time": elapsed,
        "iterations": record["iteration"],
        "primal": record["primal"],
        "gap": record["primal"] - record["dual"],
    }


def fastest_fits(tasks: dict[str, Task], solver: str, repeat: int, *args: Any) -> dict[str, Any]:
    """Fit every task once untimed (Numba's cache), then ``repeat`` times in turn; keep the fastest.

    Taking turns exposes both tasks to the same load on a shared machine, and the fastest of
    several fits is the one least disturbed by it.
    """
    for task in tasks.values():
        fit_time(task, solver, *args)
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in tasks}
    for _ in range(repeat):
        for label, task in tasks.items():
            runs[label].append(fit_time(task, solver, *args))
    return {label: min(fits, key=lambda fit: fit["time"]) for label, fits in runs.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--C", type=float, default=0.1)
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument(
        "--solvers", nargs="+", default=["1-slack", "bcfw pairwise"],
        help="solvers, as the benchmark rows name them (default: 1-slack, bcfw pairwise)",
    )
    parser.add_argument("--split", choices=("small", "large"), default="small")
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed fits of each task, the fastest kept"
    )
    args = parser.parse_args(argv)
    train, _ = ocr_letters_split(args.split)
    X = [np.asarray(x, dtype=np.float64) for x in train.X]
    Y = [np.asarray(y, dtype=np.int64) for y in train.Y]
    print(f"OCR letters, {args.split} split, C = {args.C:g}, certified gap {args.tol:g}, "
          f"fastest of {args.repeat} fits")
    print("| solver | task | time | iterations | primal | user / built-in |")
    print("|---|---|---|---|---|---|")
    tasks = {"ChainTask": ChainTask(26, 128), "UserChain": UserChain(26, 128)}
    for solver in args.solvers:
        fits = fastest_fits(tasks, solver, args.repeat, X, Y, args.C, args.tol)
        for label, row in fits.items():
            ratio = fits["UserChain"]["time"] / fits["ChainTask"]["time"]
            shown = f"{ratio:.2f}" if label == "UserChain" else ""
            print(
                f"| {solver} | {label} | {row['time']:.2f} s | {row['iterations']} | "
                f"{row['primal']:.2f} | {shown} |"
            )


if __name__ == "__main__":
    main()
