"""Kernels at work: decision boundaries on 2-D data and a string-kernel SVM on words.

Trains linear, polynomial and RBF soft-margin SVMs and an RBF kernel perceptron on two 2-D
problems no line separates (XOR-like blobs and concentric circles), draws their decision
boundaries, then tells English from Italian words with the normalised all-subsequences kernel.
Prints a table of train/test accuracy and the number of support vectors (for the perceptron,
the examples it made a mistake on).

Run ``python -m experiments.kernels [--out-dir results] [--seed 0]``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from sklearn.datasets import make_circles
from sklearn.model_selection import train_test_split

from structsvm import (
    AllSubsequencesKernel,
    BinarySVM,
    KernelPerceptron,
    NormalizedKernel,
)

ENGLISH = (
    "house dog cat water fire earth sky sea sun moon night day evening morning bread wine milk "
    "cheese egg fish meat fruit apple pear orange lemon street square church school book pen "
    "paper table chair window door bed kitchen bathroom garden tree flower leaf boy girl man "
    "woman child family friend work time year month week city country mountain river lake "
    "forest snow rain wind cloud"
).split()
ITALIAN = (
    "casa cane gatto acqua fuoco terra cielo mare sole luna notte giorno sera mattina pane vino "
    "latte formaggio uovo pesce carne frutta mela pera arancia limone strada piazza chiesa scuola "
    "libro penna carta tavolo sedia finestra porta letto cucina bagno giardino albero fiore "
    "foglia ragazzo ragazza uomo donna bambino famiglia amico lavoro tempo anno mese settimana "
    "citta paese montagna fiume lago bosco neve pioggia vento nuvola"
).split()


def xor_blobs(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Four Gaussian blobs at the corners of a square; opposite corners share a label."""
    corners = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=float)
    which = rng.integers(0, 4, size=n)
    X = corners[which] + 0.35 * rng.normal(size=(n, 2))
    return X, (which >= 2).astype(int)


def vector_models(seed: int) -> dict[str, Any]:
    """The learners compared on the 2-D problems."""
    return {
        "linear SVM": BinarySVM(C=1.0, kernel="linear"),
        "poly SVM (p=2)": BinarySVM(C=1.0, kernel="poly", degree=2, gamma=1.0, coef0=1.0),
        "RBF SVM": BinarySVM(C=1.0, kernel="rbf", gamma=1.0),
        "RBF perceptron": KernelPerceptron(
            kernel="rbf", gamma=1.0, max_epochs=50, random_state=seed
        ),
    }


def evaluate(task: str, name: str, model: Any, train: tuple, test: tuple) -> dict[str, Any]:
    """Fit a model; return its row of the results table."""
    model.fit(*train)
    return {
        "task": task,
        "model": name,
        "train": model.score(*train),
        "test": model.score(*test),
        "n_support": len(model.support_),
    }


def plot_boundaries(
    path: Path, title: str, models: dict[str, Any], X: np.ndarray, y: np.ndarray
) -> None:
    """Draw each fitted model's decision regions, boundary and (SVMs) margins over the data."""
    low, high = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    grid_x, grid_y = np.meshgrid(
        np.linspace(low[0], high[0], 150), np.linspace(low[1], high[1], 150)
    )
    grid = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    figure = Figure(figsize=(4 * len(models), 4))
    FigureCanvasAgg(figure)  # render with Agg, without touching pyplot's global state
    axes = figure.subplots(1, len(models), squeeze=False)
    for axis, (name, model) in zip(axes[0], models.items(), strict=True):
        values = model.decision_function(grid).reshape(grid_x.shape)
        axis.contourf(grid_x, grid_y, values > 0, levels=1, cmap="coolwarm", alpha=0.25)
        levels = [-1, 0, 1] if isinstance(model, BinarySVM) else [0]
        styles = ["--", "-", "--"] if isinstance(model, BinarySVM) else ["-"]
        axis.contour(grid_x, grid_y, values, levels=levels, colors="k", linestyles=styles)
        axis.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=14, edgecolors="k", linewidths=0.3)
        support = X[model.support_]
        axis.scatter(support[:, 0], support[:, 1], s=60, facecolors="none", edgecolors="k")
        axis.set_title(f"{name}\n{len(model.support_)} support points")
        axis.set_xticks([])
        axis.set_yticks([])
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=90)


def run_vector_tasks(out_dir: Path, seed: int) -> list[dict[str, Any]]:
    """Fit the 2-D learners on XOR and circles, draw them, return the table rows."""
    rng = np.random.default_rng(seed)
    problems = {
        "xor": xor_blobs(200, rng),
        "circles": make_circles(n_samples=200, factor=0.45, noise=0.1, random_state=seed),
    }
    rows = []
    for task, (X, y) in problems.items():
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.3, random_state=seed, stratify=y
        )
        models = vector_models(seed)
        for name, model in models.items():
            rows.append(evaluate(task, name, model, (X_train, y_train), (X_test, y_test)))
        plot_boundaries(
            out_dir / f"kernels_{task}.png",
            f"{task}: decision boundaries",
            models,
            X_train,
            y_train,
        )
    return rows


def run_string_task(seed: int) -> list[dict[str, Any]]:
    """Tell English from Italian words with the normalised all-subsequences kernel."""
    words = ENGLISH + ITALIAN
    labels = ["english"] * len(ENGLISH) + ["italian"] * len(ITALIAN)
    train_words, test_words, train_labels, test_labels = train_test_split(
        words, labels, test_size=0.3, random_state=seed, stratify=labels
    )
    kernel = NormalizedKernel(AllSubsequencesKernel())
    models = {
        "subsequence SVM": BinarySVM(C=1.0, kernel=kernel),
        "subsequence perceptron": KernelPerceptron(kernel=kernel, random_state=seed),
    }
    train, test = (train_words, train_labels), (test_words, test_labels)
    return [evaluate("words", name, model, train, test) for name, model in models.items()]


def format_table(rows: list[dict[str, Any]]) -> str:
    """Lay out the results as a fixed-width text table."""
    header = f"{'task':<8} {'model':<24} {'train acc':>9} {'test acc':>9} {'#SV':>5}"
    lines = [header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{row['task']:<8} {row['model']:<24} {row['train']:>9.3f} {row['test']:>9.3f} "
            f"{row['n_support']:>5d}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Run the experiment; print the table, write the pictures and return the table's rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path("results"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    rows = run_vector_tasks(args.out_dir, args.seed) + run_string_task(args.seed)
    print(format_table(rows))
    print(f"pictures written to {args.out_dir}/kernels_xor.png and kernels_circles.png")
    return rows


if __name__ == "__main__":
    main()
