"""Compare the structural SVM solvers on the OCR letters small split at C = 0.1.

Each solver (n-slack, 1-slack, bcfw) runs in a fresh process, so that its peak resident memory
is its own, until its relative duality gap is at most ``TOL`` or ``TIME_LIMIT`` seconds have
passed. The table reports the time at which the primal objective first reached ``TARGET``
(read from the solver's history; the optimum is about 246.2), the final primal and dual
objectives and relative gap, the iterations, the peak resident memory of the process and the
per-letter test accuracy.

Run with ``python -m experiments.bench_ocr_solvers``.
"""

from __future__ import annotations

import numpy as np

from experiments._measure import first_time, peak_rss_megabytes, run_in_fresh_process
from structsvm.datasets import ocr_letters_split
from structsvm.solvers import SOLVERS
from tasks import ChainTask

C = 0.1
TOL = 1e-3
TARGET = 246.5
TIME_LIMIT = 300.0
SOLVER_NAMES = ("n-slack", "1-slack", "bcfw")


def letter_accuracy(
    task: ChainTask, X: list[np.ndarray], Y: list[np.ndarray], w: np.ndarray
) -> float:
    """Return the fraction of letters of ``X`` predicted correctly at weights ``w``."""
    predictions = np.concatenate(task.batch_argmax(X, w))
    return float(np.mean(predictions == np.concatenate(Y)))


def run_solver(name: str) -> dict[str, float | str]:
    """Train one solver on the small split; return its row of the table."""
    train, test = ocr_letters_split("small")
    task = ChainTask(n_labels=26, n_features=128)
    state = None
    for state in SOLVERS[name](task, train.X, train.Y, C, tol=TOL):
        if state.history[-1]["time"] > TIME_LIMIT:
            break
    last = state.history[-1]
    return {
        "solver": name,
        "to target [s]": first_time(state.history, "primal", TARGET),
        "total [s]": last["time"],
        "iter": int(last["iteration"]),
        "primal": last["primal"],
        "dual": last["dual"],
        "rel. gap": last["relative_gap"],
        "peak RSS [MB]": peak_rss_megabytes(),
        "test acc": letter_accuracy(task, test.X, test.Y, state.w),
    }


def format_row(row: dict[str, float | str]) -> str:
    """Return a table row: the solver name, then every value right-aligned."""
    cells = [f"{row['solver']:<9}"]
    for column, value in row.items():
        if column == "solver":
            continue
        text = str(value) if isinstance(value, int) else f"{value:.4g}"
        cells.append(text.rjust(max(len(column), 9)))
    return " ".join(cells)


def format_header(row: dict[str, float | str]) -> str:
    """Return the header line matching :func:`format_row`."""
    columns = [column.rjust(max(len(column), 9)) for column in row if column != "solver"]
    return " ".join([f"{'solver':<9}", *columns])


def main() -> None:
    """Run every solver in its own process and print the table."""
    print(f"OCR letters, small split, C={C:g}, tol={TOL:g}; time to primal <= {TARGET}")
    for k, name in enumerate(SOLVER_NAMES):
        row = run_in_fresh_process(run_solver, name)
        if k == 0:
            print(format_header(row))
        print(format_row(row), flush=True)


if __name__ == "__main__":
    main()
