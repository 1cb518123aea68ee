"""Scene: multi-label classification with label graphs (Boutell, Luo, Shen & Brown, 2004).

Each image of the scene data set has 294 colour and texture features and any of six labels
(beach, sunset, fall foliage, field, mountain, urban). Four classifiers on the same features:

* :class:`~structsvm.MultiLabelSVM` with independent labels (six binary hinge-loss SVMs);
* with the labels joined by their Chow–Liu tree (exact max-product);
* with every pair of labels joined (exact enumeration of the 64 labellings);
* one-vs-rest ``LinearSVC`` (squared hinge loss), scikit-learn's linear baseline.

For each, C is chosen by k-fold cross-validation on the training set only (lowest mean
Hamming loss over a small grid), the model is refitted on the whole training set with it,
and the test Hamming loss, subset accuracy (every label right) and refit time are printed.

Run ``python -m experiments.multilabel --help`` for the options.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import hamming_loss, make_scorer
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import LinearSVC

from structsvm import MultiLabelSVM
from structsvm.datasets import load_scene

MODELS = ("independent", "tree", "full", "LinearSVC")
"""The classifiers compared: MultiLabelSVM on three label graphs, and one-vs-rest LinearSVC."""


def make_search(model: str, grid: list[float], folds: int, tol: float) -> GridSearchCV:
    """Return the cross-validated search over C of one model, refitting on its best C."""
    estimator: BaseEstimator
    if model == "LinearSVC":
        estimator, parameter = OneVsRestClassifier(LinearSVC()), "estimator__C"
    else:
        estimator, parameter = MultiLabelSVM(edges=model, tol=tol), "C"
    return GridSearchCV(
        estimator,
        {parameter: grid},
        scoring=make_scorer(hamming_loss, greater_is_better=False),
        cv=KFold(folds, shuffle=True, random_state=0),
    )


def training_subset(X: np.ndarray, Y: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return all training images, or a random subset of n of them (the file is sorted by
    label, so its first rows are not a sample)."""
    if n >= len(X):
        return X, Y
    chosen = np.sort(np.random.default_rng(0).choice(len(X), size=n, replace=False))
    return X[chosen], Y[chosen]


def evaluate(model: str, args: argparse.Namespace) -> dict[str, object]:
    """Choose C for one model by cross-validation, refit, and score it on the test set."""
    train, test = load_scene()
    X_train, Y_train = training_subset(train.X, train.Y, args.n_train)
    search = make_search(model, args.C_grid, args.folds, args.tol)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search.fit(X_train, Y_train)
    total = time.perf_counter() - start
    predicted = search.predict(test.X)
    best = next(iter(search.best_params_.values()))
    return {
        "model": model,
        "C": best,
        "hamming_loss": hamming_loss(test.Y, predicted),
        "subset_accuracy": float(np.mean(np.all(predicted == test.Y, axis=1))),
        "train_seconds": search.refit_time_,
        "total_seconds": total,
        "edges": getattr(search.best_estimator_, "edges_", None),
    }


def run(args: argparse.Namespace) -> list[dict[str, object]]:
    """Evaluate every requested model; print a table; return its rows."""
    train, test = load_scene()
    n_train = min(args.n_train, len(train.X))
    print(
        f"Scene: {n_train} training and {len(test.X)} test images, {train.Y.shape[1]} labels; "
        f"C from {args.C_grid} by {args.folds}-fold cross-validation on the training set"
    )
    print(
        f"{'model':<12} {'C':>6} {'Hamming loss':>12} {'subset accuracy':>15} "
        f"{'train time':>10} {'with CV':>8}"
    )
    rows = []
    for model in args.models:
        row = evaluate(model, args)
        rows.append(row)
        print(
            f"{model:<12} {row['C']:>6g} {row['hamming_loss']:>12.4f} "
            f"{row['subset_accuracy']:>15.3f} {row['train_seconds']:>9.1f}s "
            f"{row['total_seconds']:>7.0f}s"
        )
    for row in rows:
        if row["model"] == "tree":
            names = train.label_names
            joined = ", ".join(f"{names[u]}–{names[v]}" for u, v in row["edges"])
            print(f"Chow–Liu tree of the training labels: {joined}")
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument(
        "--C-grid", type=float, nargs="+", default=[0.03, 0.1, 0.3], help="values of C to try"
    )
    parser.add_argument("--folds", type=int, default=3, help="cross-validation folds")
    parser.add_argument("--tol", type=float, default=1e-3, help="relative duality gap to stop")
    parser.add_argument(
        "--n-train", type=int, default=1211, help="training images to use (a random subset)"
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    run(parse_args())
