"""Time the structural SVM solvers on the digits data against Crammer–Singer LinearSVC.

The multiclass structural SVM with 0/1 loss, margin rescaling and L1 slacks minimises
``½‖W‖² + C Σ_i max_y (Δ(y_i, y) + W[y]·x_i − W[y_i]·x_i)``, which is what scikit-learn's
``LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C)`` minimises (liblinear's
``Solver_MCSVM_CS``): the same C, no rescaling. The table shows both objectives, evaluated by
the same code (:func:`exact_objective`), next to the optimum.

LinearSVC runs with its defaults (``tol=1e-4``, ``max_iter=1000``); its stopping rule is
liblinear's own, not a duality gap. Its Crammer–Singer solver does not take ``max_iter``: on
these data it runs about 2,000 iterations whatever ``max_iter`` is, and scikit-learn then warns
(ConvergenceWarning) because they exceed ``max_iter``; the table marks that warning. Each structsvm
solver runs until its certified relative duality gap is at most its target (1e-4; 1e-3 for
bcfw), and the table reports its time, the ratio to LinearSVC's time, iterations, the primal
objective, its relative distance from the optimum and the test accuracy.

LinearSVC and dual-cd are each run once to warm Numba's and the libraries' caches, then
``--repeats`` times, interleaved, and the best time of each is taken. The slow solvers run once
each, if asked for: ``--bcfw`` (BCFW at its defaults, thousands of passes to a gap of 1e-3: its
rate is O(1/k); and with the pairwise steps and gap sampling of
:data:`experiments._options.FAST_BCFW`, about a hundred passes) and
``--cutting-plane`` (n-slack and 1-slack, tens of seconds). The optimum is the primal of a
dual-cd run to a gap of 1e-10.

Run with ``python -m experiments.bench_digits``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

from experiments._options import solver_and_options
from structsvm.solvers import SOLVERS
from structsvm.solvers._objective import L1_SLACKS
from structsvm.solvers._oracle import loss_augmented_pass
from tasks import MulticlassTask

C = 1.0
TARGETS = {
    "dual-cd": 1e-4, "bcfw": 1e-3, "bcfw pairwise": 1e-3, "n-slack": 1e-4, "1-slack": 1e-4
}
"""The certified relative duality gap at which each solver stops."""


@dataclass
class Run:
    """One timed fit: seconds, iterations, weights and whether it met its stopping rule."""

    seconds: float
    iterations: int
    w: np.ndarray
    converged: bool


def load_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the digits data scaled to [0, 1], split 70/30 with ``random_state=0``."""
    digits = load_digits()
    return train_test_split(digits.data / 16, digits.target, test_size=0.3, random_state=0)


def exact_objective(task: MulticlassTask, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Return the structural SVM primal objective at ``w``, with slacks from the exact oracle."""
    oracle = loss_augmented_pass(task, X, y, task.batch_joint_feature(X, y), w)
    return L1_SLACKS.primal(w @ w, oracle.slacks, C)


def accuracy(task: MulticlassTask, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Return the fraction of ``X`` whose prediction at ``w`` equals ``y``."""
    return float(np.mean(np.asarray(task.batch_argmax(X, w)) == y))


def unconverged_mark(name: str, run: Run) -> str:
    """Return what the table adds to the iterations of a run that did not meet its rule."""
    if run.converged:
        return ""
    return " (ConvergenceWarning)" if name == "LinearSVC" else " (max_iter)"


def run_reference(X: np.ndarray, y: np.ndarray) -> Run:
    """Fit ``LinearSVC(multi_class="crammer_singer", fit_intercept=False)`` at its defaults."""
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C).fit(X, y)
    seconds = time.perf_counter() - start
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return Run(seconds, int(model.n_iter_), model.coef_.ravel(), converged)


def run_solver(
    name: str, task: MulticlassTask, X: np.ndarray, y: np.ndarray, tol: float, seed: int = 0
) -> Run:
    """Run a solver until its certified relative duality gap is at most ``tol``."""
    solver, options = solver_and_options(name, seed)
    start = time.perf_counter()
    *_, state = SOLVERS[solver](task, X, y, C, tol=tol, max_iter=100_000, **options)
    seconds = time.perf_counter() - start
    return Run(seconds, int(state.history[-1]["iteration"]), state.w, state.converged)


def measure(repeats: int, bcfw: bool = False, cutting_plane: bool = False) -> list[dict[str, str]]:
    """Time the runs as the module docstring says; return one row per method."""
    X_train, X_test, y_train, y_test = load_split()
    task = MulticlassTask(n_classes=10, n_features=64)
    fast = {
        "LinearSVC": lambda seed: run_reference(X_train, y_train),
        "dual-cd": lambda seed: run_solver(
            "dual-cd", task, X_train, y_train, TARGETS["dual-cd"], seed
        ),
    }
    best: dict[str, Run] = {name: method(0) for name, method in fast.items()}  # warm caches
    for seed in range(repeats):
        for name, method in fast.items():
            run = method(seed)
            if run.seconds < best[name].seconds:
                best[name] = run
    slow = (["bcfw", "bcfw pairwise"] if bcfw else []) + (
        ["n-slack", "1-slack"] if cutting_plane else []
    )
    for name in slow:
        best[name] = run_solver(name, task, X_train, y_train, TARGETS[name])
    optimum = run_solver("dual-cd", task, X_train, y_train, 1e-10)
    optimum_value = exact_objective(task, X_train, y_train, optimum.w)
    reference_seconds = best["LinearSVC"].seconds
    rows = []
    for name, run in best.items():
        primal = exact_objective(task, X_train, y_train, run.w)
        rule = "liblinear tol 1e-4" if name == "LinearSVC" else f"gap {TARGETS[name]:g}"
        rows.append(
            {
                "method": name,
                "stops at": rule,
                "time [s]": f"{run.seconds:.3f}",
                "× LinearSVC": f"{run.seconds / reference_seconds:.2f}",
                "iterations": f"{run.iterations}{unconverged_mark(name, run)}",
                "primal": f"{primal:.5f}",
                "rel. to optimum": f"{(primal - optimum_value) / optimum_value:.1e}",
                "test accuracy": f"{accuracy(task, X_test, y_test, run.w):.4f}",
            }
        )
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.bench_digits", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--repeats", type=int, default=7, help="timed runs of each fast method (default: 7)"
    )
    parser.add_argument("--bcfw", action="store_true", help="also time bcfw once (minutes)")
    parser.add_argument(
        "--cutting-plane",
        action="store_true",
        help="also time n-slack and 1-slack once each (tens of seconds)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Print the comparison table."""
    args = parse_args(argv)
    rows = measure(args.repeats, bcfw=args.bcfw, cutting_plane=args.cutting_plane)
    columns = list(rows[0])
    widths = [max(len(column), *(len(row[column]) for row in rows)) + 2 for column in columns]
    print("".join(f"{column:>{width}}" for column, width in zip(columns, widths, strict=True)))
    for row in rows:
        print("".join(f"{row[c]:>{width}}" for c, width in zip(columns, widths, strict=True)))
    print(
        f"LinearSVC and dual-cd: best of {args.repeats} interleaved runs after a warm-up run of "
        f"each; other solvers: one run. C = {C:g} for all (the same objective)."
    )


if __name__ == "__main__":
    main()
