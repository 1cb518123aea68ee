"""Time BCFW's compiled passes against its Python loop on OCR letters and on digits.

Two problems: the OCR letters small split as a first-order chain (26 labels, 128 features,
C = 0.1, as in :mod:`experiments.bench_ocr_solvers`) and the digits data (scaled to [0, 1]) as a
multiclass task (C = 1, as in :mod:`experiments.bench_digits`). For each, BCFW runs once with
``compiled=True`` (every pass one Numba call) and once with ``compiled=False`` (the Python loop
that calls the task at every step), same seed, until the certified relative duality gap reaches
``TOL`` or ``TIME_LIMIT`` seconds pass. Both runs start after a short warm-up run of each path,
so that Numba compilation (or loading its cache) is not timed. The table gives the time per pass
(the steps and the duality-gap evaluation after them), the times at which the relative gap first
reached 1% and 0.1%, the passes run, the ratio generic / compiled of the time per pass and the
largest difference of the two runs' weights after their common passes.

Run with ``python -m experiments.bench_bcfw_compiled``.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.datasets import load_digits

from experiments._measure import first_time
from structsvm.datasets import ocr_letters_split
from structsvm.solvers import bcfw
from tasks import ChainTask, MulticlassTask

TOL = 1e-3
TIME_LIMIT = 150.0
SEED = 0


def ocr_problem() -> tuple[ChainTask, list, list, float]:
    """Return the OCR small training split as a chain task, with C = 0.1."""
    train, _ = ocr_letters_split("small")
    task = ChainTask(n_labels=26, n_features=128)
    X, Y = task.check_data(train.X, train.Y)
    return task, X, Y, 0.1


def digits_problem() -> tuple[MulticlassTask, np.ndarray, np.ndarray, float]:
    """Return all of the digits data, scaled to [0, 1], as a multiclass task, with C = 1."""
    digits = load_digits()
    task = MulticlassTask(n_classes=10, n_features=64)
    X, Y = task.check_data(digits.data / 16, digits.target)
    return task, X, Y, 1.0


def run(task, X, Y, C: float, compiled: bool, max_iter: int) -> tuple[list[dict], np.ndarray]:
    """Run BCFW; return its history and its weights after each pass."""
    start = time.perf_counter()
    weights = []
    state = None
    for state in bcfw(
        task, X, Y, C, tol=TOL, max_iter=max_iter, random_state=SEED, compiled=compiled
    ):
        weights.append(state.w)
        if time.perf_counter() - start > TIME_LIMIT:
            break
    return state.history, weights


def row(name: str, history: list[dict]) -> dict[str, float | str]:
    """Return the table row of one run."""
    last = history[-1]
    passes = int(last["iteration"])
    return {
        "run": name,
        "per pass [ms]": 1e3 * last["time"] / passes,
        "to 1% [s]": first_time(history, "relative_gap", 1e-2),
        "to 0.1% [s]": first_time(history, "relative_gap", 1e-3),
        "passes": passes,
        "rel. gap": last["relative_gap"],
    }


def main() -> None:
    """Time both paths on both problems and print the table."""
    print(f"BCFW, seed {SEED}, tol {TOL:g}; both paths warmed up (compiled) before timing")
    for label, problem in (("OCR small, C=0.1", ocr_problem), ("digits, C=1", digits_problem)):
        task, X, Y, C = problem()
        for compiled in (True, False):
            run(task, X[:20], Y[:20], C, compiled, max_iter=2)
        compiled_history, compiled_w = run(task, X, Y, C, True, max_iter=10_000)
        generic_history, generic_w = run(task, X, Y, C, False, max_iter=10_000)
        print(label)
        rows = [row("compiled", compiled_history), row("generic", generic_history)]
        for entry in rows:
            print("  " + "  ".join(f"{k}={v:.4g}" if not isinstance(v, str) else v
                                   for k, v in entry.items()))
        ratio = rows[1]["per pass [ms]"] / rows[0]["per pass [ms]"]
        common = min(len(compiled_w), len(generic_w))
        difference = np.abs(compiled_w[common - 1] - generic_w[common - 1]).max()
        print(f"  generic / compiled per pass: {ratio:.1f}x; "
              f"weights after pass {common - 1} differ by {difference:.2g}")


if __name__ == "__main__":
    main()
