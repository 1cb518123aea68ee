"""BCFW with and without gap sampling, the multi-plane cache and sparse gap checks: oracle calls
and time to a gap.

Problems (C = 0.1 throughout):

* OCR letters, large split (train on folds != 0, 6,251 words) as a first-order chain task
  (26 labels, 128 features): a cheap, compiled Viterbi oracle;
* snakes (:mod:`experiments.snakes`), the first ``SNAKE_IMAGES`` training images with the
  directional model, an :class:`~tasks.EdgeFeatureGraphTask` on the 4-neighbourhood grid with
  AD3 inference: a costlier oracle, certified when AD3 closes its gap;
* OCR letters, small split (704 words), with the options that did best on the large split.

Each run is :func:`structsvm.solvers.bcfw` with seed 0 and ``tol = 1e-3``, stopped after its
problem's time limit. "default" is BCFW as it comes (random order, averaged iterates, compiled
passes where the task has them); "gap" adds ``order="gap"`` (sweeps every 10 passes, mixing
0.1); "cache" adds ``cache_size=CACHE_SIZE`` (which runs the Python loop); "no avg" turns off
the averaging ("gap, no avg" did best on the large split); "check k" evaluates the certified
gap only after every k-th pass (``gap_check_every=k``) instead of after every pass; "best"
certifies with the best primal and dual evaluated so far (``keep_best=True``); "pairwise" takes
block-coordinate pairwise Frank–Wolfe steps (``step="pairwise"``). The figures
are read from the solver's history: the ``time`` and ``oracle_calls`` of the first record whose
*certified* relative duality gap is at most 1% or 0.1% (oracle calls count the steps' calls and
the gap evaluations; time is wall-clock from the start of the run, including those evaluations
and excluding Numba compilation, which a short warm-up run on a few examples does first); "-"
when the run did not get there within its limit. "passes" is the last record's pass number and
"load" the one-minute load average (``os.getloadavg``) at the end of the run. The machine may be
shared, so times are indicative; oracle calls are not.

Run with ``python -m experiments.bench_bcfw_variants`` (about 20 minutes), or name the problems
to run: ``python -m experiments.bench_bcfw_variants ocr-large ocr-small`` (of ``ocr-large``,
``snakes`` and ``ocr-small``).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from experiments._measure import first_record
from experiments._options import FAST_BCFW
from experiments.snakes import make_task, model_data
from structsvm.datasets import ImageDataset, load_snakes, ocr_letters_split
from structsvm.solvers import bcfw
from tasks import ChainTask

C = 0.1
TOL = 1e-3
SEED = 0
CACHE_SIZE = 10
SNAKE_IMAGES = 40
THRESHOLDS = (1e-2, 1e-3)

VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "gap": {"order": "gap"},
    "cache": {"cache_size": CACHE_SIZE},
    "gap + cache": {"order": "gap", "cache_size": CACHE_SIZE},
    "gap, no avg": {"order": "gap", "averaging": False},
    "gap + cache, no avg": {"order": "gap", "cache_size": CACHE_SIZE, "averaging": False},
    "gap, check 5": {"order": "gap", "gap_check_every": 5},
    "gap, check 10": {"order": "gap", "gap_check_every": 10},
    "gap, no avg, check 5": {"order": "gap", "averaging": False, "gap_check_every": 5},
    "gap, no avg, check 10": {"order": "gap", "averaging": False, "gap_check_every": 10},
    "gap, no avg, check 10, best": {
        "order": "gap", "averaging": False, "gap_check_every": 10, "keep_best": True,
    },
    "pairwise, gap, no avg, check 10": FAST_BCFW,
    "pairwise, gap, no avg, check 10, best": {**FAST_BCFW, "keep_best": True},
    "pairwise, gap, check 10, best": {
        "step": "pairwise", "order": "gap", "gap_check_every": 10, "keep_best": True,
    },
}
BEST = "gap, no avg"
PAIRWISE = ["pairwise, gap, no avg, check 10", "pairwise, gap, no avg, check 10, best",
            "pairwise, gap, check 10, best"]
# The cache runs the Python loop, slow with OCR's cheap compiled oracle: left out on OCR large.
OCR_LARGE = ["default", "gap", BEST, "gap, check 5", "gap, check 10",
             "gap, no avg, check 5", "gap, no avg, check 10", *PAIRWISE]
SNAKES = ["default", "gap", "cache", "gap + cache", BEST, "gap + cache, no avg"]
OCR_SMALL = ["default", BEST, "gap, no avg, check 10", "gap, no avg, check 10, best", *PAIRWISE]


def ocr_problem(split: str) -> tuple[ChainTask, list, list]:
    """Return a training split of OCR letters as a first-order chain task."""
    train, _ = ocr_letters_split(split)
    task = ChainTask(n_labels=26, n_features=128)
    return task, *task.check_data(train.X, train.Y)


def snakes_problem() -> tuple[Any, list, list]:
    """Return the first training images of snakes, directional model, AD3 inference."""
    train, _ = load_snakes()
    train = ImageDataset(train.images[:SNAKE_IMAGES], train.labels[:SNAKE_IMAGES])
    task = make_task("directional", "ad3")
    return task, *task.check_data(*model_data("directional", train))


def run(task, X, Y, options: dict[str, Any], time_limit: float) -> dict[str, Any]:
    """Run BCFW until ``TOL`` or ``time_limit`` seconds; return its table row."""
    start = time.perf_counter()
    history: list[dict] = []
    for state in bcfw(task, X, Y, C, tol=TOL, max_iter=1_000_000, random_state=SEED, **options):
        history = state.history
        if time.perf_counter() - start > time_limit:
            break
    row: dict[str, Any] = {}
    for threshold in THRESHOLDS:
        record = first_record(history, "relative_gap", threshold)
        label = f"{100 * threshold:g}%"
        row[f"to {label} [s]"] = "-" if record is None else f"{record['time']:.1f}"
        row[f"calls to {label}"] = "-" if record is None else str(record["oracle_calls"])
    last = history[-1]
    row["passes"] = str(last["iteration"])
    row["calls"] = str(last["oracle_calls"])
    row["last gap"] = f"{last['relative_gap']:.2e}" + ("" if last["certified"] else "*")
    row["load"] = f"{os.getloadavg()[0]:.2f}"
    return row


def print_table(title: str, rows: dict[str, dict[str, Any]]) -> None:
    """Print one problem's rows under its title."""
    print(title)
    columns = list(next(iter(rows.values())))
    width = max(len(name) for name in rows) + 2
    print("  " + f"{'variant':<{width}}" + "".join(f"{c:>14}" for c in columns))
    for name, row in rows.items():
        print("  " + f"{name:<{width}}" + "".join(f"{row[c]:>14}" for c in columns), flush=True)


def benchmark(title: str, problem, variants: list[str], time_limit: float) -> None:
    """Warm up, run every variant on a problem and print its table."""
    task, X, Y = problem
    for options in ({}, VARIANTS["gap + cache"], VARIANTS["pairwise, gap, no avg, check 10"]):
        for _ in bcfw(task, X[:5], Y[:5], C, max_iter=2, **options):
            pass
    rows = {name: run(task, X, Y, VARIANTS[name], time_limit) for name in variants}
    print_table(f"{title} (limit {time_limit:g} s per run)", rows)


def main(problems: list[str]) -> None:
    """Run the named problems (all if none) and print their tables."""
    known = ("ocr-large", "snakes", "ocr-small")
    unknown = sorted(set(problems) - set(known))
    if unknown:
        raise SystemExit(f"unknown problems {unknown}; choose among {list(known)}")
    chosen = set(problems or known)
    print(f"BCFW variants, C={C:g}, seed {SEED}, tol {TOL:g}; * = gap not certified")
    if "ocr-large" in chosen:
        benchmark("OCR letters, large split", ocr_problem("large"), OCR_LARGE, 60.0)
    if "snakes" in chosen:
        title = f"snakes, {SNAKE_IMAGES} images, directional, AD3"
        benchmark(title, snakes_problem(), SNAKES, 40.0)
    if "ocr-small" in chosen:
        benchmark("OCR letters, small split", ocr_problem("small"), OCR_SMALL, 40.0)


if __name__ == "__main__":
    main(sys.argv[1:])
