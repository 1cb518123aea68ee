"""Time the n-slack and 1-slack structural SVMs on the digits data against LinearSVC.

The multiclass structural SVM with 0/1 loss is the Crammer–Singer SVM, so scikit-learn's
``LinearSVC(multi_class="crammer_singer")`` gives a reference optimum. Each solver runs until its
primal objective is within ``TARGET`` (relative) of the reference objective; the table reports
its time, the ratio to LinearSVC's time, iterations, the final working-set size, the time spent
in the QP, the primal objective, its relative difference from the reference and the test
accuracy.

Run with ``python -m experiments.bench_digits``.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

from structsvm.solvers import SOLVERS
from structsvm.solvers._objective import SlackPenalty
from structsvm.solvers._oracle import loss_augmented_pass
from tasks import MulticlassTask

C = 1.0
TARGET = 1e-4
"""Relative distance to the reference objective at which a solver's run is stopped."""


def load_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the digits data scaled to [0, 1], split 70/30 with ``random_state=0``."""
    digits = load_digits()
    return train_test_split(digits.data / 16, digits.target, test_size=0.3, random_state=0)


def exact_objective(task: MulticlassTask, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Return the structural SVM primal objective at ``w``, with slacks from the exact oracle."""
    oracle = loss_augmented_pass(task, X, y, task.batch_joint_feature(X, y), w)
    return SlackPenalty().primal(w @ w, oracle.slacks, C)


def accuracy(task: MulticlassTask, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Return the fraction of ``X`` whose prediction at ``w`` equals ``y``."""
    return float(np.mean(np.asarray(task.batch_argmax(X, w)) == y))


def run_reference(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Fit the Crammer–Singer LinearSVC; return its weights and the seconds it took."""
    start = time.perf_counter()
    model = LinearSVC(
        multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-8, max_iter=100_000
    ).fit(X, y)
    return model.coef_.ravel(), time.perf_counter() - start


def run_solver(
    name: str, task: MulticlassTask, X: np.ndarray, y: np.ndarray, reference: float
) -> tuple[dict[str, float], np.ndarray]:
    """Run a solver until its primal is within ``TARGET`` of ``reference``.

    Returns the last history record (with the wall-clock ``time`` of the whole run) and the
    weights.
    """
    start = time.perf_counter()
    state = None
    for state in SOLVERS[name](task, X, y, C, tol=TARGET / 10):
        if abs(state.history[-1]["primal"] - reference) <= TARGET * reference:
            break
    record = dict(state.history[-1])
    record["time"] = time.perf_counter() - start
    return record, state.w


def main() -> None:
    """Print the comparison table."""
    X_train, X_test, y_train, y_test = load_split()
    task = MulticlassTask(n_classes=10, n_features=64)
    w_reference, reference_time = run_reference(X_train, y_train)
    reference = exact_objective(task, X_train, y_train, w_reference)
    header = (
        f"{'solver':<10}{'time [s]':>10}{'ratio':>8}{'iter':>7}{'m':>7}{'QP [s]':>9}"
        f"{'primal':>12}{'rel. diff':>11}{'test acc':>10}"
    )
    print(header)
    print(
        f"{'LinearSVC':<10}{reference_time:>10.2f}{1.0:>8.1f}{'':>7}{'':>7}{'':>9}"
        f"{reference:>12.5f}{0.0:>11.1e}{accuracy(task, X_test, y_test, w_reference):>10.4f}"
    )
    for name in ("n-slack", "1-slack"):
        record, w = run_solver(name, task, X_train, y_train, reference)
        print(
            f"{name:<10}{record['time']:>10.2f}{record['time'] / reference_time:>8.1f}"
            f"{int(record['iteration']):>7}{int(record['n_constraints']):>7}"
            f"{record['qp_time']:>9.2f}{record['primal']:>12.5f}"
            f"{(record['primal'] - reference) / reference:>11.1e}"
            f"{accuracy(task, X_test, y_test, w):>10.4f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
