"""Train for F1 directly (PerformanceSVM) or for the error rate (LinearSVC) on imbalanced digits.

Each of the ten digits in turn is the positive class against the nine others (about one
example in ten positive). The data are split 70/30, stratified, with ``random_state=0``. Three
linear classifiers are compared:

* ``PerformanceSVM(loss="f1")``, Joachims' SVM for multivariate performance measures;
* ``LinearSVC()``, scikit-learn's default squared hinge loss, every example weighted alike;
* ``LinearSVC(class_weight="balanced")``, the two classes weighted alike.

Each one's C is chosen by 3-fold stratified cross-validation of F1 on the training part only,
from a fixed grid of five values per classifier (the grids are on each classifier's own scale
of C: were Δ the error rate, PerformanceSVM's C would be n times that of a hinge-loss
LinearSVC, and n is about 800 in a training fold). The classifier is then refitted on the whole
training part with that C; the table reports the test F1, precision and recall, the chosen C and
the seconds of that final fit. The last rows average over the ten digits.

Run with ``python -m experiments.multivariate``.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.base import ClassifierMixin, clone
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import f1_score, precision_score, recall_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.svm import LinearSVC

from structsvm import PerformanceSVM

MODELS: dict[str, tuple[ClassifierMixin, list[float]]] = {
    "PerformanceSVM(f1)": (PerformanceSVM(loss="f1"), [10.0, 100.0, 1e3, 1e4, 1e5]),
    "LinearSVC": (LinearSVC(max_iter=20_000), [0.01, 0.1, 1.0, 10.0, 100.0]),
    "LinearSVC(balanced)": (
        LinearSVC(class_weight="balanced", max_iter=20_000),
        [0.01, 0.1, 1.0, 10.0, 100.0],
    ),
}
"""Each classifier with the grid its C is chosen from."""


def split(digit: int) -> list[np.ndarray]:
    """Return the digits scaled to [0, 1] as X_train, X_test, y_train, y_test, digit vs rest."""
    digits = load_digits()
    y = (digits.target == digit).astype(int)
    return train_test_split(digits.data / 16, y, test_size=0.3, stratify=y, random_state=0)


def evaluate(model: ClassifierMixin, grid: list[float], data: list[np.ndarray]) -> dict[str, float]:
    """Choose C by cross-validated F1 on the training part, refit, and score on the test part."""
    X_train, X_test, y_train, y_test = data
    search = GridSearchCV(
        model, {"C": grid}, scoring="f1", cv=StratifiedKFold(3, shuffle=True, random_state=0)
    ).fit(X_train, y_train)
    final = clone(model).set_params(C=search.best_params_["C"])
    start = time.perf_counter()
    final.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    predicted = final.predict(X_test)
    return {
        "f1": f1_score(y_test, predicted),
        "precision": precision_score(y_test, predicted, zero_division=0.0),
        "recall": recall_score(y_test, predicted),
        "C": search.best_params_["C"],
        "seconds": seconds,
    }


def main() -> None:
    """Print one row per digit and classifier, then the averages over the digits."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    header = f"{'digit':>5}  {'classifier':<20} {'F1':>6} {'prec.':>6} {'recall':>6} {'C':>8}"
    print(f"{header} {'fit s':>7}")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in MODELS}
    for digit in range(10):
        data = split(digit)
        for name, (model, grid) in MODELS.items():
            row = evaluate(model, grid, data)
            results[name].append(row)
            print(
                f"{digit:>5}  {name:<20} {row['f1']:6.3f} {row['precision']:6.3f} "
                f"{row['recall']:6.3f} {row['C']:8g} {row['seconds']:7.3f}"
            )
    print()
    for name, rows in results.items():
        mean = {key: np.mean([row[key] for row in rows]) for key in rows[0]}
        print(
            f"{'mean':>5}  {name:<20} {mean['f1']:6.3f} {mean['precision']:6.3f} "
            f"{mean['recall']:6.3f} {'':>8} {mean['seconds']:7.3f}"
        )


if __name__ == "__main__":
    main()
