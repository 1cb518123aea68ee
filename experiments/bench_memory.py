"""Where the memory of a job goes: resident memory phase by phase, in a fresh process.

Runs a job step by step in a fresh process and prints, for every step, the resident set size
(RSS) after it, its peak during the step (Linux's VmHWM, reset before each step through
``/proc/self/clear_refs``) and what the step adds over the RSS before it. The steps are the
imports (the interpreter, NumPy, SciPy's sparse matrices, Numba, then the job's module with the
parts of ``structsvm`` and ``tasks`` it uses, with the number of modules loaded), the data, and
per learner its fit and its scoring; then the convergence plot (Matplotlib). With ``--traced``
the peak of traced allocations (tracemalloc: the Python heap, NumPy's arrays included) of every
fit and scoring is printed beside it, which tells arrays from the libraries' native memory
(LLVM's code, BLAS buffers).

Jobs: ``ocr`` is ``python -m experiments.ocr_letters`` (small split, its defaults); ``conll``
is :mod:`experiments.conll2000`'s structural SVM on the CoNLL-2000 files of ``--conll-dir``.
The Numba cache should be warm (run the job once before) for figures of the warm job.

Run ``python -m experiments.bench_memory --help`` for the options.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from experiments._measure import format_table

LEARNERS = ("perceptron", "n-slack", "1-slack")
LIBRARIES = ("numpy", "scipy.sparse", "numba")


class Step(NamedTuple):
    """One step of a job: its RSS after, its peak and what it added, in MB."""

    step: str
    rss: float
    peak: float
    added: float
    traced_peak: float
    wall: float
    cpu: float
    modules: int


def memory_status() -> tuple[float, float]:
    """Return this process's (RSS, peak RSS since the last reset) in MB (Linux)."""
    values = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


def reset_peak() -> None:
    """Reset the peak RSS of this process to its current RSS (Linux's clear_refs)."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


class Recorder:
    """Runs the steps of a job and keeps a :class:`Step` for each."""

    def __init__(self, traced: bool) -> None:
        self.traced = traced
        self.steps: list[Step] = [Step("interpreter", *memory_status(), 0.0, 0.0, 0.0, 0.0,
                                       len(sys.modules))]

    def run(self, name: str, action: Callable[[], Any]) -> Any:
        """Run ``action()`` as the step ``name``; return its result."""
        before, _ = memory_status()
        reset_peak()
        if self.traced:
            tracemalloc.start()
        wall, cpu = time.perf_counter(), time.process_time()
        result = action()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        traced_peak = 0.0
        if self.traced:
            traced_peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        rss, peak = memory_status()
        self.steps.append(
            Step(name, rss, peak, peak - before, traced_peak, wall, cpu, len(sys.modules))
        )
        print(format_table([self.row(self.steps[-1])]), flush=True)
        return result

    def row(self, step: Step) -> dict[str, object]:
        """Return a step as a table row."""
        row = {
            "step": step.step,
            "RSS after (MB)": f"{step.rss:.0f}",
            "peak (MB)": f"{step.peak:.0f}",
            "peak - before (MB)": f"{step.added:+.0f}",
        }
        if self.traced:
            row["traced peak (MB)"] = f"{step.traced_peak:.0f}"
        row |= {"wall (s)": f"{step.wall:.1f}", "CPU (s)": f"{step.cpu:.1f}",
                "modules": step.modules}
        return row

    def table(self) -> str:
        """Return every step as a table."""
        return format_table([self.row(step) for step in self.steps])


def import_steps(recorder: Recorder, job: str) -> None:
    """Import the libraries one after the other, then the job's module (the parts of structsvm
    and tasks that it uses), as steps."""
    for name in LIBRARIES:
        recorder.run(f"import {name}", lambda name=name: importlib.import_module(name))
    recorder.run(f"import {job}", lambda: importlib.import_module(job))


def ocr_job(recorder: Recorder, learners: list[str], plot: bool) -> None:
    """The steps of ``python -m experiments.ocr_letters`` (small split, its defaults)."""
    import_steps(recorder, "experiments.ocr_letters")
    from experiments.ocr_letters import build_learner, parse_args, read_split
    from tasks import ChainTask

    args = parse_args([])
    train, test = recorder.run("data", lambda: read_split("small"))
    task = ChainTask(n_labels=26, n_features=128)
    histories = {}
    for learner in learners:
        model = build_learner(learner, task, 0.1, args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            recorder.run(f"fit {learner}", lambda m=model, d=train: m.fit(d.X, d.Y))
        recorder.run(
            f"score {learner}",
            lambda m=model, d=train, e=test: (m.score(d.X, d.Y), m.score(e.X, e.Y)),
        )
        histories[learner] = model.history_
    del train, test, model  # as the job: only the histories are held for the plot
    if plot:
        from tempfile import TemporaryDirectory

        from structsvm.plotting import plot_convergence

        with TemporaryDirectory() as directory:
            recorder.run(
                "plot",
                lambda: plot_convergence(histories, Path(directory) / "convergence.png"),
            )


def conll_job(recorder: Recorder, data_dir: str) -> None:
    """The steps of :mod:`experiments.conll2000`'s structural SVM (its defaults)."""
    import_steps(recorder, "experiments.conll2000")
    from experiments.conll2000 import load, parse_args
    from structsvm import StructuredSVM
    from tasks import ChainTask, ChunkingFeatures, TagEncoder, chunk_scores

    args = parse_args([])
    train, evaluation, _ = recorder.run("data", lambda: load(Path(data_dir)))
    features = ChunkingFeatures(min_count=args.min_count)
    X_train = recorder.run("features", lambda sentences=train: features.fit_transform(sentences))
    tags = TagEncoder().fit([s.tags for s in train])
    Y_train = tags.transform([s.tags for s in train])
    del train
    task = ChainTask(n_labels=len(tags.classes_), n_features=features.n_features_)
    model = StructuredSVM(
        task, C=args.C, solver="bcfw", tol=args.tol, max_iter=args.max_iter, random_state=0
    )
    recorder.run("fit bcfw", lambda: model.fit(X_train, Y_train))
    predicted = recorder.run(
        "predict", lambda: tags.inverse_transform(model.predict(features.transform(evaluation)))
    )
    scores = chunk_scores([s.tags for s in evaluation], predicted)
    print(f"chunk F1 {100 * scores.f1:.2f}, {model.n_iter_} passes")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.bench_memory", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("job", choices=["ocr", "conll"], help="the job to measure")
    parser.add_argument("--learners", nargs="+", choices=LEARNERS, default=list(LEARNERS))
    parser.add_argument("--no-plot", action="store_true", help="skip the convergence plot")
    parser.add_argument("--traced", action="store_true", help="also trace allocations")
    parser.add_argument("--conll-dir", default="/work/shared/data/conll2000")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m experiments.bench_memory``."""
    args = parse_args(argv)
    recorder = Recorder(args.traced)
    if args.job == "ocr":
        ocr_job(recorder, args.learners, not args.no_plot)
    else:
        conll_job(recorder, args.conll_dir)
    print()
    print(recorder.table())


if __name__ == "__main__":
    main()
