"""The benchmark table: every learner on the OCR letters, digits and CoNLL-2000 data.

Sections (each learner in a fresh process, so that its peak memory is its own):

* OCR letters, small and large split, C = 0.1: the averaged perceptron, ``StructuredSVM`` at
  its defaults (row "default": the solver it chooses), the three structural SVM solvers at
  their defaults, BCFW also with pairwise steps and gap sampling
  (:data:`experiments._options.FAST_BCFW`), and BCFW at the regularisation of its paper
  (λ = 0.01, C = 1/(λn)); the time each solver's certified relative duality gap first falls
  to 1% and to 0.1%, the final primal objective, the per-letter test accuracy and the peak
  memory. Solvers stop at a 0.1% gap or after ``--time-limit`` seconds.
* Digits (scikit-learn), C = 1: dual-cd, n-slack and 1-slack against
  ``LinearSVC(multi_class="crammer_singer")`` at its defaults, time until the certified
  relative duality gap is at most 1e-4, and the ratio to LinearSVC's time in the same run (see
  :mod:`experiments.bench_digits`).
* CoNLL-2000 chunking, when the data directory is found: the structural SVM (BCFW) and
  CRFsuite with the same features (see :mod:`experiments.conll2000`).

The tables are printed as Markdown. ``--tables docs/benchmark_tables.md`` writes them into their
one home, the file that the documentation's benchmarks page shows; ``--readme README.md`` writes
the headline, the machine and the OCR small split's table taken from the same text, into the
README between the lines ``<!-- benchmarks:begin -->`` and ``<!-- benchmarks:end -->``.

Run ``python -m experiments.benchmarks --help`` for the options.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import time
from pathlib import Path

import numpy as np

from experiments import conll2000
from experiments._measure import first_time, peak_rss_megabytes, run_in_fresh_process
from experiments._options import FAST_BCFW, solver_and_options
from experiments.ocr_letters import read_split
from structsvm import StructuredPerceptron, StructuredSVM
from structsvm.datasets import ocr_letters_split
from structsvm.solvers import SOLVERS
from tasks import ChainTask

OCR_C = 0.1
OCR_LEARNERS = ("perceptron", "default", "n-slack", "1-slack", "bcfw", "bcfw pairwise")
PAPER_LAMBDA = 0.01
"""λ of the BCFW paper's OCR runs (Lacoste-Julien et al., 2013); C = 1 / (λ n) here."""
PERCEPTRON_EPOCHS = 15
DIGITS_REPEATS = 7
"""Timed runs of LinearSVC and dual-cd on digits, of which the best counts."""
BEGIN, END = "<!-- benchmarks:begin -->", "<!-- benchmarks:end -->"
TABLES_NOTE = (
    "<!-- Written by `python -m experiments.benchmarks --tables PATH`; rerun it rather than "
    "edit this file. -->"
)
HEADLINE_SECTION = "**OCR letters, small split**"

Row = dict[str, str]


def fmt(value: float, digits: int = 3, unit: str = "") -> str:
    """Format a measurement for the table; nan (never reached) becomes a dash."""
    return "—" if np.isnan(value) else f"{value:.{digits}g}{unit}"


def ocr_run(split: str, learner: str, C: float, time_limit: float) -> Row:
    """Train one learner on one OCR split; return its table row (runs in its own process).

    The pixels are read as stored, uint8, as :mod:`experiments.ocr_letters` reads them (the
    results are those of float64 pixels).
    """
    train, test = read_split(split)
    task = ChainTask(n_labels=26, n_features=128)
    if learner == "perceptron":
        start = time.perf_counter()
        model = StructuredPerceptron(
            task, max_epochs=PERCEPTRON_EPOCHS, averaged=True, random_state=0
        ).fit(train.X, train.Y)
        elapsed, w = time.perf_counter() - start, model.w_
        to_1, to_01, primal = float("nan"), float("nan"), float("nan")
        passes = f"{model.n_iter_} epochs"
    elif learner == "default":
        # What a user gets without options: the solver the estimator chooses.
        model = StructuredSVM(task, C=C, tol=1e-3).fit(train.X, train.Y)
        history, w = model.history_, model.w_
        elapsed = history[-1]["time"]
        to_1 = first_time(history, "relative_gap", 1e-2)
        to_01 = first_time(history, "relative_gap", 1e-3)
        primal = history[-1]["primal"]
        passes = f"{int(history[-1]['iteration'])} iter. of {model.solver_}"
    else:
        solver, options = solver_and_options(learner, seed=0)
        state = None
        for state in SOLVERS[solver](task, train.X, train.Y, C, tol=1e-3, **options):
            if state.history[-1]["time"] > time_limit:
                break
        history = state.history
        elapsed, w = history[-1]["time"], state.w
        to_1 = first_time(history, "relative_gap", 1e-2)
        to_01 = first_time(history, "relative_gap", 1e-3)
        primal = history[-1]["primal"]
        passes = f"{int(history[-1]['iteration'])} iter."
    accuracy = np.mean(np.concatenate(task.batch_argmax(test.X, w)) == np.concatenate(test.Y))
    return {
        "learner": learner,
        "C": "" if learner == "perceptron" else f"{C:.2g}",
        "1% gap": fmt(to_1, unit=" s"),
        "0.1% gap": fmt(to_01, unit=" s"),
        "total": f"{elapsed:.3g} s ({passes})",
        "primal": fmt(primal, 5),
        "test accuracy": f"{accuracy:.3f}",
        "peak RSS": f"{peak_rss_megabytes():.0f} MB",
    }


def digits_rows() -> list[Row]:
    """Time dual-cd, n-slack and 1-slack against LinearSVC on digits (all in this process).

    scikit-learn is imported here, not with this module: the processes that measure the other
    learners' peak memory import this module afresh and should not carry it.
    """
    from experiments import bench_digits

    return bench_digits.measure(DIGITS_REPEATS, cutting_plane=True)


def options_text(options: dict[str, object]) -> str:
    """Return solver options as they would be passed, e.g. ``step="pairwise", order="gap"``."""
    return ", ".join(f"{name}={value!r}".replace("'", '"') for name, value in options.items())


def markdown_table(rows: list[Row]) -> str:
    """Return rows (dicts with the same keys) as a Markdown table."""
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row[c] for c in columns) + " |" for row in rows]
    return "\n".join(lines)


def write_tables(path: Path, text: str) -> None:
    """Write the benchmark tables (the Markdown ``run`` returns) into ``path``, replacing it."""
    path.write_text(f"{TABLES_NOTE}\n\n{text}\n", encoding="utf-8")


def headline(text: str) -> str:
    """Return the README's headline from the tables: the machine line and the OCR small split.

    ``text`` is the Markdown of ``run`` or the content of the tables file; both give the same
    headline, so the README repeats the measurements of the tables and nothing else.
    """
    paragraphs = text.split("\n\n")
    machine = next((p for p in paragraphs if p.startswith("Measured on")), None)
    start = text.find(HEADLINE_SECTION)
    if machine is None or start < 0:
        raise ValueError(
            f"the tables hold no 'Measured on' line or no {HEADLINE_SECTION} section "
            "(run the benchmarks with the small OCR split)"
        )
    end = text.find("\n\n**", start)
    return machine + "\n\n" + text[start : None if end < 0 else end].strip()


def write_into_readme(readme: Path, text: str) -> None:
    """Replace the text between the benchmark markers of ``readme`` with ``text``."""
    content = readme.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(content):
        raise ValueError(f"{readme} has no '{BEGIN}' ... '{END}' block to replace")
    readme.write_text(pattern.sub(lambda _: f"{BEGIN}\n{text}\n{END}", content), "utf-8")


def run(args: argparse.Namespace) -> str:
    """Run the chosen sections; print and return the Markdown."""
    parts = [
        f"Measured on {platform.machine()} with {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, by `python -m experiments.benchmarks`."
    ]
    for split in args.ocr_splits:
        train, test = ocr_letters_split(split)
        runs = [(learner, OCR_C) for learner in OCR_LEARNERS]
        runs.append(("bcfw", 1 / (PAPER_LAMBDA * len(train.X))))
        rows = [
            run_in_fresh_process(ocr_run, split, learner, C, args.time_limit) for learner, C in runs
        ]
        parts.append(
            f"**OCR letters, {split} split** ({len(train.X)} training words, "
            f"{test.n_letters} test letters); perceptron averaged, {PERCEPTRON_EPOCHS} epochs; "
            f"solvers at C = {OCR_C:g} and BCFW also at the BCFW paper's λ = {PAPER_LAMBDA:g} "
            f"(C = 1/(λn)); default is StructuredSVM without options (the solver it chooses); "
            f"bcfw pairwise is BCFW with {options_text(FAST_BCFW)}; they stop "
            f"at a 0.1% gap, at their max_iter or after {args.time_limit:g} s; time to a "
            f"certified relative duality gap of 1% and 0.1%:\n\n{markdown_table(rows)}"
        )
        print(parts[-1], "\n", flush=True)
    if args.digits:
        parts.append(
            "**Digits** (scikit-learn, X/16, 70/30 split), C = 1, time until the certified "
            "relative duality gap is at most 1e-4 (LinearSVC: its defaults; LinearSVC and "
            f"dual-cd: best of {DIGITS_REPEATS} interleaved runs):\n\n"
            + markdown_table(digits_rows())
        )
        print(parts[-1], "\n", flush=True)
    data_dir = conll2000.find_data_dir(args.data_dir)
    if data_dir is None:
        print("CoNLL-2000 skipped: no data directory (--data-dir or STRUCTSVM_DATA)")
    else:
        rows = conll2000.compare(data_dir, conll2000.parse_args([]))
        parts.append(
            "**CoNLL-2000 chunking** (train 8,936 sentences, evaluated on dev), the same "
            "features for both:\n\n" + markdown_table(rows)
        )
        print(parts[-1], "\n", flush=True)
    text = "\n\n".join(parts)
    if args.tables:
        write_tables(Path(args.tables), text)
        print(f"written into {args.tables}")
    if args.readme:
        write_into_readme(Path(args.readme), headline(text))
        print(f"headline written into {args.readme}")
    return text


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.benchmarks", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--ocr-splits",
        nargs="*",
        choices=["small", "large"],
        default=["small", "large"],
        help="OCR splits to run (default: both)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=120.0,
        help="seconds after which an OCR solver is stopped (default: 120)",
    )
    parser.add_argument(
        "--no-digits", dest="digits", action="store_false", help="skip the digits section"
    )
    parser.add_argument(
        "--data-dir", default=None, help="directory holding conll2000/ (default: $STRUCTSVM_DATA)"
    )
    parser.add_argument(
        "--tables",
        default=None,
        help="write the tables into this Markdown file, replacing it "
        "(the documentation's: docs/benchmark_tables.md)",
    )
    parser.add_argument(
        "--readme",
        default=None,
        help="write the headline (the OCR small split's table) into this README between the "
        "benchmark markers",
    )
    args = parser.parse_args(argv)
    if args.readme and "small" not in args.ocr_splits:
        parser.error("--readme needs the small OCR split, whose table is the README's headline")
    return args


def main(argv: list[str] | None = None) -> str:
    """Entry point of ``python -m experiments.benchmarks``."""
    return run(parse_args(argv))


if __name__ == "__main__":
    main()
