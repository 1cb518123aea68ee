"""Margin against slack rescaling, L1 against L2 slacks, on the OCR letters.

Trains ``StructuredSVM`` with each combination of ``rescaling`` and ``slack_norm`` on a split of
the OCR letters (linear chain, 26 labels, Hamming loss) and prints, for each, the time to a
certified relative duality gap of ``tol``, the iterations, the primal objective and the test
accuracy per letter; then the time of one pass of each oracle over the training words (the
slack-rescaled one is Viterbi with a loss dimension, Sarawagi & Gupta, ICML 2008).

Run ``python -m experiments.slack_objectives --help`` for the options.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from structsvm import StructuredSVM
from structsvm.datasets import ocr_letters_split
from tasks import ChainTask


def letter_accuracy(model: StructuredSVM, X: list[np.ndarray], Y: list[np.ndarray]) -> float:
    """Return the fraction of letters labelled correctly."""
    predicted = np.concatenate(model.predict(X))
    return float(np.mean(predicted == np.concatenate(Y)))


def oracle_seconds(task: ChainTask, X: list, Y: list, w: np.ndarray) -> dict[str, float]:
    """Return the seconds of one batch call of each most-violated-constraint oracle."""
    times = {}
    for name in ("batch_loss_augmented_argmax", "batch_slack_rescaled_argmax"):
        oracle = getattr(task, name)
        oracle(X[:2], Y[:2], w)  # compile outside the timing
        start = time.perf_counter()
        oracle(X, Y, w)
        times[name] = time.perf_counter() - start
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("small", "large"), default="small")
    parser.add_argument("--solver", choices=("n-slack", "1-slack", "bcfw"), default="n-slack")
    parser.add_argument("--C", type=float, default=0.1)
    parser.add_argument("--tol", type=float, default=1e-2)
    parser.add_argument("--max-iter", type=int, default=200)
    args = parser.parse_args(argv)

    train, test = ocr_letters_split(args.split)
    task = ChainTask(n_labels=26, n_features=128)
    print(
        f"OCR letters, {args.split} split: {len(train.X)} training words, {len(test.X)} test "
        f"words; solver {args.solver}, C = {args.C:g}, tol = {args.tol:g}"
    )
    print("| rescaling | slack_norm | time | iterations | primal | converged | test accuracy |")
    print("|---|---|---|---|---|---|---|")
    last_w = None
    for rescaling, slack_norm in itertools.product(("margin", "slack"), (1, 2)):
        model = StructuredSVM(
            task,
            C=args.C,
            solver=args.solver,
            rescaling=rescaling,
            slack_norm=slack_norm,
            tol=args.tol,
            max_iter=args.max_iter,
        )
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(train.X, train.Y)
        elapsed = time.perf_counter() - start
        print(
            f"| {rescaling} | {slack_norm} | {elapsed:.1f} s | {model.n_iter_} | "
            f"{model.primal_objective_:.5g} | {model.converged_} | "
            f"{letter_accuracy(model, test.X, test.Y):.3f} |"
        )
        last_w = model.w_
    times = oracle_seconds(task, train.X, train.Y, last_w)
    print(
        "one oracle pass over the training words: loss-augmented "
        f"{times['batch_loss_augmented_argmax'] * 1e3:.1f} ms, slack-rescaled "
        f"{times['batch_slack_rescaled_argmax'] * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    main()
