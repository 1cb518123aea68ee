"""Speed of the chain task's Viterbi oracles on the OCR letters data, against plain C.

Times ``ChainTask.batch_argmax`` and ``ChainTask.batch_loss_augmented_argmax`` over the training
words of the large OCR split (26 labels, 128 pixel features, random weights), unary matrix
product included, on one thread, beside two references decoding the same batch:

* a plain C Viterbi (``experiments/_c_viterbi.c``: the unary product as a loop over positions,
  features and labels, then the textbook forward pass with backpointers), compiled here with
  the system C compiler (``cc``, ``gcc`` or ``clang``, ``-O3 -march=native``) into a temporary
  directory and called through ctypes on the words already stacked into one array; without a
  compiler the C column says so;
* a plain NumPy Viterbi written here (vectorised over labels, a Python loop over positions).

Every oracle and reference is called once to warm it (compilation, caches), then timed
``repeats`` times, the compiled oracle and the C taking turns, keeping the fastest run; the
ratio is the C time over the Numba time of the same run, so above 1 the compiled oracle is the
faster. The labellings of all three are checked to agree.

It then times one oracle pass of the 1-slack solver on 1 and on more threads (``n_jobs`` of the
learners), in alternating rounds: the compiled pass that 1-slack runs for the chain task (the
solver's one compiled call over the task's compiled oracle, ``ChainTask.compiled_oracle``,
which returns only the sums the solver needs) and the Python pass it runs for tasks without
one (the loss-augmented oracle, the losses and the joint features of its outputs, then their
sums). It prints the best time of each
thread count, the ratio, and the load average of the machine, which on a shared machine decides
what threads can gain. Last, the
Numba compile time of the first call with a cold and with a warm on-disk cache.

Run ``python -m experiments.bench_oracles --help`` for the options.
"""

from __future__ import annotations

import argparse
import ctypes
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from structsvm._utils.parallel import n_threads, oracle_threads
from structsvm.datasets import ocr_letters_split
from structsvm.solvers._oracle import PassSummary, column_sums, loss_augmented_pass
from structsvm.solvers._summed_pass import CompiledSummedPasses
from tasks import ChainTask

PROJECT_ROOT = Path(__file__).resolve().parent.parent
C_SOURCE = Path(__file__).resolve().parent / "_c_viterbi.c"
C_COMPILERS = ("cc", "gcc", "clang")

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


def compile_c_viterbi(directory: str) -> ctypes.CDLL | None:
    """Compile ``_c_viterbi.c`` into a shared library in ``directory`` and load it.

    Tries ``-O3 -march=native``, then ``-O3``, with the first compiler found; returns None if
    there is none or it fails.
    """
    compiler = next((shutil.which(name) for name in C_COMPILERS if shutil.which(name)), None)
    if compiler is None:
        return None
    library = Path(directory) / "c_viterbi.so"
    for flags in (["-O3", "-march=native"], ["-O3"]):
        command = [compiler, *flags, "-shared", "-fPIC", "-o", str(library), str(C_SOURCE)]
        if subprocess.run(command, capture_output=True).returncode == 0:
            return ctypes.CDLL(str(library))
    return None


def c_batch_oracle(
    library: ctypes.CDLL, task: ChainTask, X: list[np.ndarray], w: np.ndarray,
    Y_true: list[np.ndarray] | None = None,
) -> Callable[[], np.ndarray]:
    """Return a call of the C Viterbi on the batch, its inputs stacked and workspaces set.

    The call returns the labels of all positions, one sequence after another. Only for the
    default task layout, as :func:`numpy_batch_oracle`.
    """
    L, d = task.n_labels, task.n_features
    X_all = np.ascontiguousarray(np.concatenate(X), dtype=np.float64)
    n_positions = len(X_all)
    offsets = np.zeros(len(X) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in X], out=offsets[1:])
    emissions_by_feature = np.ascontiguousarray(w[: L * d].reshape(L, d).T)
    transitions = np.ascontiguousarray(w[L * d :].reshape(L, L))
    y_true = None if Y_true is None else np.concatenate(Y_true).astype(np.int64)
    unary, best = np.empty((n_positions, L)), np.empty((n_positions, L))
    backpointers = np.empty((n_positions, L), dtype=np.int64)
    labels = np.empty(n_positions, dtype=np.int64)
    pointer = ctypes.c_void_p

    def address(array: np.ndarray | None) -> ctypes.c_void_p:
        return pointer(None if array is None else array.ctypes.data)

    def run() -> np.ndarray:
        library.c_viterbi(
            address(X_all), ctypes.c_long(n_positions), ctypes.c_long(d), address(offsets),
            ctypes.c_long(len(X)), address(emissions_by_feature), address(transitions),
            ctypes.c_long(L), address(y_true), address(task.label_weights), address(unary),
            address(best), address(backpointers), address(labels),
        )
        return labels

    return run


def best_time(run: Callable[[], object], repeats: int) -> float:
    """Return the shortest wall-clock time of ``repeats`` calls of ``run``."""
    return best_times([run], repeats)[0]


def best_times(runs: list[Callable[[], object]], repeats: int) -> list[float]:
    """Return the shortest wall-clock time of each run, calling them in turn ``repeats`` times.

    Taking turns exposes every run to the same swings of a shared machine's load.
    """
    times = [float("inf")] * len(runs)
    for _ in range(repeats):
        for which, run in enumerate(runs):
            start = time.perf_counter()
            run()
            times[which] = min(times[which], time.perf_counter() - start)
    return times


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


@contextmanager
def c_reference() -> Iterator[ctypes.CDLL | None]:
    """Yield the compiled C Viterbi (None without a C compiler), removed afterwards."""
    with tempfile.TemporaryDirectory() as directory:
        yield compile_c_viterbi(directory)


def time_oracles(
    task: ChainTask, X: list, Y: list, w: np.ndarray, library: ctypes.CDLL | None, repeats: int
) -> list[dict[str, object]]:
    """Time both oracles on one thread beside the C and NumPy references; print the rows."""
    n_letters = sum(len(y) for y in Y)
    oracles = {
        "argmax": (lambda: task.batch_argmax(X, w), None),
        "loss-augmented argmax": (lambda: task.batch_loss_augmented_argmax(X, Y, w), Y),
    }
    print(
        f"{'oracle (1 thread)':<24}{'Numba':>13}{'plain C':>13}{'C / Numba':>11}"
        f"{'NumPy':>13}   letters/s"
    )
    rows = []
    with oracle_threads(task, 1):
        for name, (compiled, truth) in oracles.items():
            c_run = None if library is None else c_batch_oracle(library, task, X, w, truth)
            numpy_run = lambda truth=truth: numpy_batch_oracle(task, X, w, truth)  # noqa: E731
            labels = np.concatenate(compiled())  # warms the compiled oracle
            agrees = np.array_equal(labels, np.concatenate(numpy_run()))
            if c_run is not None:
                agrees = agrees and np.array_equal(labels, c_run())  # warms the C too
            if c_run is None:
                compiled_time, c_time = best_time(compiled, repeats), None
            else:
                compiled_time, c_time = best_times([compiled, c_run], repeats)
            numpy_time = best_time(numpy_run, 1)
            row = {
                "oracle": name,
                "letters_per_second": n_letters / compiled_time,
                "c_letters_per_second": None if c_time is None else n_letters / c_time,
                "c_ratio": None if c_time is None else c_time / compiled_time,
                "numpy_letters_per_second": n_letters / numpy_time,
                "agrees": agrees,
            }
            rows.append(row)
            c_columns = (
                f"{'no C compiler':>24}" if c_time is None
                else f"{n_letters / c_time / 1e6:>11.2f} M{row['c_ratio']:>10.2f}x"
            )
            print(
                f"{name:<24}{row['letters_per_second'] / 1e6:>11.2f} M{c_columns}"
                f"{row['numpy_letters_per_second'] / 1e6:>11.3f} M"
                + ("" if agrees else "  (labellings differ!)")
            )
    return rows


def time_threads(
    task: ChainTask, X: list, Y: list, w: np.ndarray, threads: tuple[int, ...], repeats: int,
    rounds: int,
) -> dict[str, dict[str, object]]:
    """Time the 1-slack oracle pass on each thread count, in alternating rounds; print them.

    Two passes, each reduced to the sums 1-slack needs (a ``PassSummary``): the compiled one
    that 1-slack runs for this task (:class:`~structsvm.solvers._summed_pass.CompiledSummedPasses`
    on :meth:`tasks.ChainTask.compiled_oracle`, prepared once, one compiled call a pass) and
    the generic one it runs for tasks without a compiled oracle (``loss_augmented_pass``: the
    oracle, the losses and the joint features of the outputs, then their sums).
    """
    true_features = task.batch_joint_feature(X, Y)
    true_sum = column_sums(true_features)
    prepared = {
        n_jobs: CompiledSummedPasses.prepare(task, X, Y, n_jobs=n_jobs) for n_jobs in threads
    }
    passes: dict[str, Callable[[int], PassSummary]] = {
        "compiled summed pass": lambda n_jobs: prepared[n_jobs].oracle_pass(w),
        "generic pass": lambda n_jobs: PassSummary.of(
            loss_augmented_pass(task, X, Y, true_features, w, n_jobs=n_jobs), true_sum
        ),
    }
    identical = {}
    for name, one_pass in passes.items():
        serial = one_pass(threads[0])
        identical[name] = all(
            np.array_equal(serial.difference_total, other.difference_total)
            and (serial.loss_total, serial.slack_total) == (other.loss_total, other.slack_total)
            for other in (one_pass(n_jobs) for n_jobs in threads[1:])
        )
    load_before = os.getloadavg()[0]
    times = {name: {n_jobs: [] for n_jobs in threads} for name in passes}
    for _ in range(rounds):
        for name, one_pass in passes.items():
            for n_jobs in threads:
                times[name][n_jobs].append(
                    best_time(lambda one_pass=one_pass, n_jobs=n_jobs: one_pass(n_jobs), repeats)
                )
    load_after = os.getloadavg()[0]
    print(
        f"1-slack oracle pass, best of {rounds} rounds of {repeats}; 1-minute load average "
        f"{load_before:.1f} before, {load_after:.1f} after, {os.cpu_count()} CPUs"
    )
    results = {}
    for name in passes:
        best = {n_jobs: min(values) for n_jobs, values in times[name].items()}
        print(f" {name}:")
        for n_jobs in threads:
            ratio = best[n_jobs] / best[threads[0]]
            per_round = ", ".join(f"{t * 1e3:.1f}" for t in times[name][n_jobs])
            print(
                f"  n_jobs={n_jobs} ({n_threads(n_jobs)} threads): {best[n_jobs] * 1e3:7.1f} ms, "
                f"{ratio:.2f}x the serial time (rounds: {per_round} ms)"
            )
        if not identical[name]:
            print("  (the passes on threads differ from the serial pass!)")
        results[name] = {
            "seconds": best,
            "rounds": times[name],
            "identical": identical[name],
            "load_average": (load_before, load_after),
        }
    return results


def main(
    n_words: int | None = None,
    repeats: int = 10,
    threads: tuple[int, ...] = (1, 2),
    rounds: int = 3,
    measure_compile: bool = True,
    seed: int = 0,
) -> dict[str, object]:
    """Run the benchmark, print its tables and return the measurements.

    Parameters
    ----------
    n_words : int or None
        Use only the first ``n_words`` training words (None: all 6,251).
    repeats : int
        Time each oracle, reference and pass this many times and keep the fastest run.
    threads : tuple of int
        The ``n_jobs`` to time the oracle pass with; the first is the baseline.
    rounds : int
        Rounds of the pass timings, the thread counts alternating within each round.
    measure_compile : bool
        Also time the first calls in fresh interpreters with a cold and a warm Numba cache.
    seed : int
        Seed of the random weights.

    Returns
    -------
    dict
        ``rows``: one dict per oracle (``letters_per_second``, ``c_letters_per_second`` and
        ``c_ratio``, None without a C compiler, ``numpy_letters_per_second``, ``agrees``);
        ``threads``: the pass times, by pass (``"compiled summed pass"``, ``"generic pass"``);
        ``compile``: first-call times.
    """
    train, _ = ocr_letters_split("large")
    X, Y = train.X[:n_words], train.Y[:n_words]
    n_letters = sum(len(y) for y in Y)
    task = ChainTask(n_labels=26, n_features=128)
    w = np.random.default_rng(seed).normal(size=task.size_joint_feature)
    print(
        f"OCR letters, large split, training words: {len(X):,} words, {n_letters:,} letters, "
        f"{task.n_labels} labels, {task.n_features} features"
    )
    with c_reference() as library:
        if library is None:
            print("no working C compiler (cc, gcc, clang) found: the C reference is left out")
        rows = time_oracles(task, X, Y, w, library, repeats)
    thread_times = time_threads(task, X, Y, 0.01 * w, threads, repeats, rounds)
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
    return {"rows": rows, "threads": thread_times, "compile": compile_times}


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=None, help="use only the first N words")
    parser.add_argument("--repeats", type=int, default=10, help="timed runs per measurement")
    parser.add_argument(
        "--threads", type=int, nargs="+", default=[1, 2],
        help="n_jobs to time the oracle pass with, the first as the baseline",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the pass timings")
    parser.add_argument("--no-compile", action="store_true", help="skip the first-call timing")
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse_arguments()
    main(
        n_words=arguments.words,
        repeats=arguments.repeats,
        threads=tuple(arguments.threads),
        rounds=arguments.rounds,
        measure_compile=not arguments.no_compile,
    )
