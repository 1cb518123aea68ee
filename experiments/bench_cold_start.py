"""What the first fit costs: the OCR letters main job with an empty Numba cache and warm.

Runs each learner of ``python -m experiments.ocr_letters`` (small split, its defaults) in a
fresh process twice: first with an empty, private Numba cache directory (``NUMBA_CACHE_DIR``,
so every compiled function is compiled), then again with the cache that run filled (warm). It
prints, per learner, the seconds of the fit, of ``import structsvm, tasks``, the process's
peak memory and the cold/warm ratio; then the whole main job (``python -m
experiments.ocr_letters --out-dir ''``) timed the same two ways.

``--compiles LEARNER`` instead lists the functions Numba compiles during that learner's first
fit on an empty cache, with the CPU seconds each took (its own, callees excluded), from
Numba's compile events.

Where a job's peak memory goes, step by step, is :mod:`experiments.bench_memory`'s.

Run ``python -m experiments.bench_cold_start --help`` for the options.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from pathlib import Path

from experiments._measure import format_table, peak_rss_megabytes

LEARNERS = ("perceptron", "n-slack", "1-slack")
ROOT = Path(__file__).resolve().parent.parent


def fit_in_this_process(learner: str, score: bool = True) -> dict[str, float]:
    """Import the library, read OCR small, fit ``learner`` and score it as the main job does.

    Returns the seconds of the import and the fit (wall clock and the process's CPU time),
    the peak RSS (MB) after the import, the data, the fit and the scoring (if ``score``).
    """
    start = time.perf_counter()
    import structsvm  # noqa: F401
    import tasks

    figures = {"import (s)": time.perf_counter() - start, "RSS import (MB)": peak_rss_megabytes()}
    from experiments.ocr_letters import build_learner, parse_args, read_split

    train, test = read_split("small")
    figures["RSS data (MB)"] = peak_rss_megabytes()
    model = build_learner(
        learner, tasks.ChainTask(n_labels=26, n_features=128), 0.1, parse_args([])
    )
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(train.X, train.Y)
    figures["fit (s)"] = time.perf_counter() - start
    figures["fit CPU (s)"] = time.process_time() - cpu
    figures["RSS fit (MB)"] = peak_rss_megabytes()
    if score:
        model.score(train.X, train.Y)
        model.score(test.X, test.Y)
    figures["RSS peak (MB)"] = peak_rss_megabytes()
    return figures


def run_child(arguments: list[str], cache_dir: str) -> subprocess.CompletedProcess:
    """Run ``python -m experiments.bench_cold_start ARGUMENTS`` with the given Numba cache."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    return subprocess.run(
        [sys.executable, "-m", "experiments.bench_cold_start", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


def fit_fresh(learner: str, cache_dir: str) -> dict[str, float]:
    """Return :func:`fit_in_this_process`'s figures from a fresh process on ``cache_dir``."""
    done = run_child(["--child", learner], cache_dir)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main_job_seconds(cache_dir: str) -> tuple[float, float]:
    """Return the wall-clock and CPU seconds of the main job, a fresh process on ``cache_dir``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "experiments.ocr_letters", "--out-dir", ""],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def cold_and_warm(learners: list[str], whole_job: bool) -> None:
    """Print every learner's fit, cold then warm, and the whole main job's time."""
    rows = []
    for learner in learners:
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache_dir:
            cold = fit_fresh(learner, cache_dir)
            warm = fit_fresh(learner, cache_dir)
        rows.append(
            {
                "learner": learner,
                "cold fit (s)": cold["fit (s)"],
                "warm fit (s)": warm["fit (s)"],
                "ratio": cold["fit (s)"] / warm["fit (s)"],
                "cold CPU (s)": cold["fit CPU (s)"],
                "warm CPU (s)": warm["fit CPU (s)"],
                "import (s)": warm["import (s)"],
                "cold peak (MB)": cold["RSS peak (MB)"],
                "warm peak (MB)": warm["RSS peak (MB)"],
            }
        )
        print(format_table(rows[-1:]), flush=True)
    print(format_table(rows))
    if whole_job:
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache_dir:
            cold, cold_cpu = main_job_seconds(cache_dir)
            warm, warm_cpu = main_job_seconds(cache_dir)
        print(
            f"main job: cold {cold:.1f} s, warm {warm:.1f} s, ratio {cold / warm:.2f}; "
            f"CPU cold {cold_cpu:.1f} s, warm {warm_cpu:.1f} s, ratio {cold_cpu / warm_cpu:.2f}"
        )


def compile_events(learner: str) -> list[tuple[str, float, float]]:
    """Fit ``learner`` here; return (function, own, total CPU seconds) of every compilation."""
    from numba.core import event

    stack: list[list] = []
    records: list[tuple[str, float, float]] = []

    class CompileTimes(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            stack.append([time.process_time(), 0.0])

        def on_end(self, ev: event.Event) -> None:
            began, children = stack.pop()
            total = time.process_time() - began
            if stack:
                stack[-1][1] += total
            dispatcher = ev.data["dispatcher"]
            name = f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}"
            records.append((name, total - children, total))

    event.register("numba:compile", CompileTimes())
    fit_in_this_process(learner, score=False)
    return records


def print_compiles(learner: str) -> None:
    """Print the functions compiled by ``learner``'s fit on an empty cache, slowest first."""
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache_dir:
        done = run_child(["--compiles-child", learner], cache_dir)
    records = json.loads(done.stdout.strip().splitlines()[-1])
    own: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for name, seconds, _ in records:
        own[name] += seconds
        count[name] += 1
    rows = [
        {"function": name, "compiles": count[name], "own (s)": own[name]}
        for name in sorted(own, key=own.get, reverse=True)
    ]
    print(format_table(rows))
    print(f"{len(records)} compilations, {sum(own.values()):.1f} s")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.bench_cold_start", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--learners", nargs="+", choices=LEARNERS, default=list(LEARNERS))
    parser.add_argument("--no-job", action="store_true", help="skip the whole main job")
    parser.add_argument("--compiles", choices=LEARNERS, help="list a first fit's compilations")
    parser.add_argument("--child", choices=LEARNERS, help=argparse.SUPPRESS)
    parser.add_argument("--compiles-child", choices=LEARNERS, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m experiments.bench_cold_start``."""
    args = parse_args(argv)
    if args.child:
        print(json.dumps(fit_in_this_process(args.child)))
    elif args.compiles_child:
        print(json.dumps(compile_events(args.compiles_child)))
    elif args.compiles:
        print_compiles(args.compiles)
    else:
        cold_and_warm(args.learners, not args.no_job)


if __name__ == "__main__":
    main()
