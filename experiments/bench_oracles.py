"""Speed of the chain task's Viterbi oracles on the OCR letters data.

Times ``ChainTask.batch_argmax`` and ``ChainTask.batch_loss_augmented_argmax`` over the training
words of the large OCR split (26 labels, 128 pixel features, random weights), unary matrix
product included, beside a plain NumPy Viterbi written here as the reference (vectorised over
labels, a Python loop over positions), and reports the Numba compile time of the first call with
a cold and with a warm on-disk cache. Each row is measured with the BLAS limited to the given
number of threads (the compiled decoder itself runs on one thread).

Run ``python -m experiments.bench_oracles --help`` for the options.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from structsvm.datasets import ocr_letters_split
from tasks import ChainTask

PROJECT_ROOT = Path(__file__).resolve().parent.parent

_FIRST_CALLS = """
import json, time
import numpy as np
from tasks import ChainTask
task = ChainTask(n_labels=26, n_features=128)
x, y, w = np.zeros((3, 128)), np.array([0, 1, 2]), np.zeros(task.size_joint_feature)
times = {}
start = time.perf_counter(); task.argmax(x, w); times["argmax"] = time.perf_counter() - start
start = time.perf_counter(); task.loss_augmented_argmax(x, y, w)
times["loss_augmented"] = time.perf_counter() - start
start = time.perf_counter(); task.argmax(x, w); times["again"] = time.perf_counter() - start
print(json.dumps(times))
"""


def numpy_viterbi(
    unary: np.ndarray, transitions: np.ndarray, start: np.ndarray, end: np.ndarray
) -> np.ndarray:
    """Return the best labelling of one chain: the textbook forward pass and backtrace."""
    length, n_labels = unary.shape
    best = start + unary[0]
    backpointers = np.zeros((length, n_labels), dtype=np.int64)
    for t in range(1, length):
        candidates = best[:, None] + transitions
        backpointers[t] = np.argmax(candidates, axis=0)
        best = candidates[backpointers[t], np.arange(n_labels)] + unary[t]
    labels = np.empty(length, dtype=np.int64)
    labels[-1] = np.argmax(best + end)
    for t in range(length - 1, 0, -1):
        labels[t - 1] = backpointers[t, labels[t]]
    return labels


def numpy_batch_oracle(
    task: ChainTask, X: list[np.ndarray], w: np.ndarray, Y_true: list[np.ndarray] | None = None
) -> list[np.ndarray]:
    """Decode every sequence with :func:`numpy_viterbi`, loss-augmented if ``Y_true`` is given.

    Only for the default task layout (emissions then transitions, no start/end, no bias).
    """
    L, d = task.n_labels, task.n_features
    emissions, transitions = w[: L * d].reshape(L, d), w[L * d :].reshape(L, L)
    unary = np.concatenate(X) @ emissions.T
    if Y_true is not None:
        y_true = np.concatenate(Y_true)
        unary += task.label_weights[y_true][:, None] * (np.arange(L) != y_true[:, None])
    bounds = np.cumsum([0] + [len(x) for x in X])
    no_ends = np.zeros(L)
    return [
        numpy_viterbi(unary[begin:stop], transitions, no_ends, no_ends)
        for begin, stop in itertools.pairwise(bounds)
    ]


def best_time(run: Callable[[], object], repeats: int) -> float:
    """Return the shortest wall-clock time of ``repeats`` calls of ``run``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def first_call_times(cache_dir: str) -> dict[str, float]:
    """Time the first oracle calls in a fresh interpreter using the given Numba cache."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=str(PROJECT_ROOT))
    completed = subprocess.run(
        [sys.executable, "-c", _FIRST_CALLS],
        capture_output=True,
        text=True,
        check=True,
        cwd=PROJECT_ROOT,
        env=environment,
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main(
    n_words: int | None = None,
    repeats: int = 5,
    threads: tuple[int, ...] = (1, 2),
    measure_compile: bool = True,
    seed: int = 0,
) -> dict[str, object]:
    """Run the benchmark, print its table and return the measurements.

    Parameters
    ----------
    n_words : int or None
        Use only the first ``n_words`` training words (None: all 6,251).
    repeats : int
        Time each compiled oracle this many times and keep the fastest run.
    threads : tuple of int
        BLAS thread counts to measure with.
    measure_compile : bool
        Also time the first calls in fresh interpreters with a cold and a warm Numba cache.
    seed : int
        Seed of the random weights.

    Returns
    -------
    dict
        ``rows``: one dict per oracle and thread count (``letters_per_second``,
        ``numpy_letters_per_second``, ``speedup``, ``agrees``); ``compile``: first-call times.
    """
    train, _ = ocr_letters_split("large")
    X, Y = train.X[:n_words], train.Y[:n_words]
    n_letters = sum(len(y) for y in Y)
    task = ChainTask(n_labels=26, n_features=128)
    w = np.random.default_rng(seed).normal(size=task.size_joint_feature)
    oracles = {
        "argmax": (
            lambda: task.batch_argmax(X, w),
            lambda: numpy_batch_oracle(task, X, w),
        ),
        "loss-augmented argmax": (
            lambda: task.batch_loss_augmented_argmax(X, Y, w),
            lambda: numpy_batch_oracle(task, X, w, Y),
        ),
    }
    print(
        f"OCR letters, large split, training words: {len(X):,} words, {n_letters:,} letters, "
        f"{task.n_labels} labels, {task.n_features} features"
    )
    print(f"{'oracle':<24}{'threads':>8}{'Numba letters/s':>18}{'NumPy letters/s':>18}{'ratio':>8}")
    rows = []
    for n_threads in threads:
        with threadpool_limits(limits=n_threads):
            for name, (compiled, reference) in oracles.items():
                compiled()  # compile, or load from the cache, outside the timing
                compiled_time = best_time(compiled, repeats)
                reference_time = best_time(reference, 1)
                agrees = all(
                    np.array_equal(a, b) for a, b in zip(compiled(), reference(), strict=True)
                )
                row = {
                    "oracle": name,
                    "threads": n_threads,
                    "letters_per_second": n_letters / compiled_time,
                    "numpy_letters_per_second": n_letters / reference_time,
                    "speedup": reference_time / compiled_time,
                    "agrees": agrees,
                }
                rows.append(row)
                print(
                    f"{name:<24}{n_threads:>8}{row['letters_per_second'] / 1e6:>16.2f} M"
                    f"{row['numpy_letters_per_second'] / 1e6:>16.3f} M{row['speedup']:>7.0f}x"
                    + ("" if agrees else "  (labellings differ!)")
                )
    compile_times = {}
    if measure_compile:
        with tempfile.TemporaryDirectory() as cache_dir:
            compile_times["cold"] = first_call_times(cache_dir)
            compile_times["warm"] = first_call_times(cache_dir)
        for cache, times in compile_times.items():
            print(
                f"first calls, {cache} Numba cache: argmax {times['argmax']:.2f} s, "
                f"loss-augmented argmax {times['loss_augmented']:.2f} s, "
                f"then argmax {times['again'] * 1e3:.2f} ms"
            )
    return {"rows": rows, "compile": compile_times}


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=None, help="use only the first N words")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per oracle")
    parser.add_argument(
        "--threads", type=int, nargs="+", default=[1, 2], help="BLAS thread counts to measure"
    )
    parser.add_argument("--no-compile", action="store_true", help="skip the first-call timing")
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse_arguments()
    main(
        n_words=arguments.words,
        repeats=arguments.repeats,
        threads=tuple(arguments.threads),
        measure_compile=not arguments.no_compile,
    )
