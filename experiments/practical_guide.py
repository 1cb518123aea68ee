"""Hsu, Chang & Lin's practical guide to support vector classification, step by step.

The guide's recipe on two data sets shipped with scikit-learn, breast cancer (two classes, this
project's :class:`~structsvm.BinarySVM`) and wine (three classes,
:class:`~structsvm.KernelMulticlassSVM`): hold out a test part; scale every feature to [−1, 1]
with the ranges of the training part only (a ``MinMaxScaler`` inside the ``Pipeline``, so that
cross-validation rescales on each training fold) or keep the raw features; search C (linear
kernel) or (C, γ) (RBF kernel) by 5-fold cross-validation on the coarse grid
``C = 2^−5, 2^−3, …, 2^15``, ``γ = 2^−15, 2^−13, …, 2^3``, then on a finer grid in steps of
``2^0.25`` around the best cell; retrain on the whole training part and measure test accuracy.
Every step is also run with scikit-learn's ``SVC`` at the same (C, γ) on the same folds.

Prints a table of each step's cross-validation and test accuracy and writes heat maps of the
cross-validation accuracy over (log₂ C, log₂ γ) to ``OUT_DIR/practical_guide_<data set>.png``,
which needs matplotlib (the ``plot`` extra of structsvm-learn).

Run ``python -m experiments.practical_guide [--quick] [--coarse-stride K] [--fine-radius R]
[--n-jobs N] [--out-dir results] [--seed 0]``. The default run is the guide's: all 11 × 10 cells
of the coarse grid, then the best coarse exponents ± 2 in steps of 0.25 (17 × 17 cells, as in
the guide's example). It takes about 10 minutes of CPU time, which the two workers of
``--n-jobs 2`` share; most of it goes to the raw features, which the guide advises against.
``--coarse-stride 2 --fine-radius 1`` (every other coarse value, a fine grid of ± 1) takes a
third of that; ``--quick`` runs a tiny grid on a small training sample in seconds.

References
----------
C.-W. Hsu, C.-C. Chang and C.-J. Lin, "A practical guide to support vector classification",
technical report, National Taiwan University, 2003 (updated 2016).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from structsvm import BinarySVM, KernelMulticlassSVM

# The guide's coarse grid, as exponents of 2, and the step of its fine grid.
COARSE_LOG2_C = np.arange(-5, 16, 2, dtype=float)
COARSE_LOG2_GAMMA = np.arange(-15, 4, 2, dtype=float)
FINE_STEP = 0.25
# The fine grid of the guide's example: the best coarse exponents ± 2, reaching the next cells.
GUIDE_FINE_RADIUS = 2.0
FEATURES = ("raw", "scaled")
KERNELS = ("linear", "rbf")


@dataclass(frozen=True)
class DataSet:
    """A data set of scikit-learn and the estimator of this project that classifies it."""

    name: str
    load: Callable[..., Any]
    estimator: Callable[[], BaseEstimator]


DATA_SETS = (
    DataSet("breast cancer", load_breast_cancer, lambda: BinarySVM(C=1.0)),
    DataSet("wine", load_wine, lambda: KernelMulticlassSVM(C=1.0)),
)


@dataclass(frozen=True)
class Plan:
    """The grids and folds of a run.

    Attributes
    ----------
    coarse_log2_C, coarse_log2_gamma : ndarray
        Exponents of the coarse grid.
    fine_radius : float
        The fine grid spans the best coarse exponents ± this, in steps of ``FINE_STEP``.
    folds : int
        Folds of the cross-validation.
    max_train : int or None
        Train on a stratified sample of at most this many examples of the training part.
    """

    coarse_log2_C: np.ndarray
    coarse_log2_gamma: np.ndarray
    fine_radius: float
    folds: int
    max_train: int | None

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Plan:
        """The guide's plan, or fewer cells as the options say, or the quick one."""
        if args.quick:
            return cls(np.array([-1.0, 3.0]), np.array([-3.0, 1.0]), FINE_STEP, 3, 60)
        stride = 1 if args.coarse_stride is None else args.coarse_stride
        radius = GUIDE_FINE_RADIUS if args.fine_radius is None else args.fine_radius
        return cls(COARSE_LOG2_C[::stride], COARSE_LOG2_GAMMA[::stride], radius, 5, None)

    def describe(self) -> str:
        """One line per grid saying what the run searches."""
        coarse = (
            f"coarse grid: log2 C in {_exponents(self.coarse_log2_C)}, "
            f"log2 gamma in {_exponents(self.coarse_log2_gamma)}"
        )
        guide = np.array_equal(self.coarse_log2_C, COARSE_LOG2_C) and np.array_equal(
            self.coarse_log2_gamma, COARSE_LOG2_GAMMA
        )
        if guide:
            coarse += " (the guide's grid)"
        else:
            coarse += " (a subsample of the guide's grid, which the default run searches)"
        fine = (
            f"fine grid: best coarse exponents ± {self.fine_radius:g} in steps of {FINE_STEP:g}; "
            f"{self.folds}-fold cross-validation"
        )
        if self.max_train is not None:
            fine += f"; training on {self.max_train} examples of the training part"
        return f"{coarse}\n{fine}"

    def fine_exponents(self, center: float) -> np.ndarray:
        """Exponents ``center − r, …, center + r`` in steps of ``FINE_STEP`` (r rounded down)."""
        steps = int(np.floor(self.fine_radius / FINE_STEP + 1e-9))
        return center + FINE_STEP * np.arange(-steps, steps + 1)


@dataclass
class Step:
    """One grid search: where it looked, what it found, and SVC at the same point."""

    data_set: str
    features: str
    kernel: str
    stage: str
    log2_C: np.ndarray
    log2_gamma: np.ndarray | None
    cv_accuracy: np.ndarray  # mean CV accuracy, shape (len(log2_C), len(log2_gamma) or 1)
    best_log2_C: float
    best_log2_gamma: float | None
    cv: float
    test: float
    svc_cv: float
    svc_test: float


def _exponents(values: np.ndarray) -> str:
    step = values[1] - values[0] if len(values) > 1 else 0.0
    return f"{values[0]:g}:{values[-1]:g} (step {step:g}, {len(values)} values)"


def make_pipeline(estimator: BaseEstimator, features: str) -> Pipeline:
    """The estimator after a [−1, 1] scaler fitted on the training data (or none, for raw)."""
    scaler = MinMaxScaler(feature_range=(-1, 1)) if features == "scaled" else "passthrough"
    return Pipeline([("scale", scaler), ("svm", estimator)])


def search_step(
    pipeline: Pipeline,
    log2_C: np.ndarray,
    log2_gamma: np.ndarray | None,
    X_train: np.ndarray,
    y_train: np.ndarray,
    folds: StratifiedKFold,
    n_jobs: int,
) -> tuple[GridSearchCV, np.ndarray]:
    """Cross-validate every grid cell, refit the best on the training part.

    Returns
    -------
    search : the fitted GridSearchCV
    cv_accuracy : ndarray of shape (len(log2_C), len(log2_gamma)), or (len(log2_C), 1)
        without γ (linear kernel)
    """
    grid: dict[str, Any] = {"svm__C": list(2.0**log2_C)}
    if log2_gamma is not None:
        grid["svm__gamma"] = list(2.0**log2_gamma)
    search = GridSearchCV(pipeline, grid, cv=folds, n_jobs=n_jobs, error_score="raise")
    search.fit(X_train, y_train)
    surface = np.empty((len(log2_C), 1 if log2_gamma is None else len(log2_gamma)))
    for params, score in zip(
        search.cv_results_["params"], search.cv_results_["mean_test_score"], strict=True
    ):
        row = int(np.argmin(np.abs(np.log2(params["svm__C"]) - log2_C)))
        column = 0
        if log2_gamma is not None:
            column = int(np.argmin(np.abs(np.log2(params["svm__gamma"]) - log2_gamma)))
        surface[row, column] = score
    return search, surface


def svc_scores(
    features: str,
    kernel: str,
    params: dict[str, float],
    data: tuple[np.ndarray, ...],
    folds: StratifiedKFold,
) -> tuple[float, float]:
    """CV and test accuracy of scikit-learn's SVC at the same (C, γ) and preprocessing."""
    X_train, y_train, X_test, y_test = data
    svc = SVC(kernel=kernel, C=params["svm__C"], gamma=params.get("svm__gamma", "scale"))
    pipeline = make_pipeline(svc, features)
    cv = float(cross_val_score(pipeline, X_train, y_train, cv=folds).mean())
    return cv, float(pipeline.fit(X_train, y_train).score(X_test, y_test))


def run_data_set(data_set: DataSet, plan: Plan, n_jobs: int, seed: int) -> list[Step]:
    """Follow the guide on one data set: every feature scaling, kernel and grid stage."""
    X, y = data_set.load(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=seed
    )
    if plan.max_train is not None and plan.max_train < len(y_train):
        X_train, _, y_train, _ = train_test_split(
            X_train, y_train, train_size=plan.max_train, stratify=y_train, random_state=seed
        )
    data = (X_train, y_train, X_test, y_test)
    folds = StratifiedKFold(plan.folds, shuffle=True, random_state=seed)
    steps = []
    for features in FEATURES:
        for kernel in KERNELS:
            pipeline = make_pipeline(data_set.estimator().set_params(kernel=kernel), features)
            log2_C = plan.coarse_log2_C
            log2_gamma = plan.coarse_log2_gamma if kernel == "rbf" else None
            for stage in ("coarse", "fine"):
                search, surface = search_step(
                    pipeline, log2_C, log2_gamma, X_train, y_train, folds, n_jobs
                )
                best = search.best_params_
                best_log2_C = float(np.log2(best["svm__C"]))
                best_log2_gamma = None if log2_gamma is None else float(np.log2(best["svm__gamma"]))
                svc_cv, svc_test = svc_scores(features, kernel, best, data, folds)
                steps.append(
                    Step(
                        data_set=data_set.name,
                        features=features,
                        kernel=kernel,
                        stage=stage,
                        log2_C=log2_C,
                        log2_gamma=log2_gamma,
                        cv_accuracy=surface,
                        best_log2_C=best_log2_C,
                        best_log2_gamma=best_log2_gamma,
                        cv=float(search.best_score_),
                        test=float(search.score(X_test, y_test)),
                        svc_cv=svc_cv,
                        svc_test=svc_test,
                    )
                )
                log2_C = plan.fine_exponents(best_log2_C)
                if best_log2_gamma is not None:
                    log2_gamma = plan.fine_exponents(best_log2_gamma)
    return steps


def plot_heat_maps(steps: Sequence[Step], path: Path) -> Path:
    """Draw the CV accuracy over (log₂ γ, log₂ C) of every RBF grid search of one data set.

    One row of panels per feature scaling, one column per grid stage, each with its own colour
    scale; a star marks the best cell.
    """
    FigureCanvasAgg, Figure = _matplotlib()
    searches = [step for step in steps if step.log2_gamma is not None]
    rows = list(dict.fromkeys(step.features for step in searches))
    columns = list(dict.fromkeys(step.stage for step in searches))
    figure = Figure(figsize=(5 * len(columns), 4 * len(rows)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(rows), len(columns), squeeze=False)
    for step in searches:
        axis = axes[rows.index(step.features), columns.index(step.stage)]
        mesh = axis.pcolormesh(
            _cell_edges(step.log2_gamma), _cell_edges(step.log2_C), step.cv_accuracy
        )
        axis.plot(step.best_log2_gamma, step.best_log2_C, "r*", markersize=12)
        axis.set(
            xlabel="log2 γ",
            ylabel="log2 C",
            title=f"{step.features} features, {step.stage} grid: best CV {step.cv:.3f}",
        )
        figure.colorbar(mesh, ax=axis, label="CV accuracy")
    figure.suptitle(f"{steps[0].data_set}: RBF SVM, cross-validation accuracy")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=90)
    return path


def _matplotlib() -> tuple[type, type]:
    """Return matplotlib's Agg canvas and Figure, or raise an ImportError saying how to get them."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(
            "the practical-guide experiment draws its heat maps with matplotlib, which is not "
            "installed: pip install matplotlib, or the plot extra of structsvm-learn "
            '(pip install -e ".[plot]" from a clone)'
        ) from error
    return FigureCanvasAgg, Figure


def _cell_edges(centers: np.ndarray) -> np.ndarray:
    """Edges of grid cells around equally spaced centres (one cell of width 1 for one centre)."""
    half = (centers[1] - centers[0]) / 2 if len(centers) > 1 else 0.5
    return np.append(centers - half, centers[-1] + half)


def format_table(steps: Sequence[Step]) -> str:
    """Lay out every step's best cell and accuracies as a fixed-width text table."""
    header = (
        f"{'data set':<14} {'features':<8} {'kernel':<6} {'grid':<6} {'log2 C':>7} "
        f"{'log2 γ':>7} {'CV acc':>7} {'test':>7} {'SVC CV':>7} {'SVC test':>8}"
    )
    lines = [header, "-" * len(header)]
    for step in steps:
        gamma = "-" if step.best_log2_gamma is None else f"{step.best_log2_gamma:g}"
        lines.append(
            f"{step.data_set:<14} {step.features:<8} {step.kernel:<6} {step.stage:<6} "
            f"{step.best_log2_C:>7g} {gamma:>7} {step.cv:>7.3f} {step.test:>7.3f} "
            f"{step.svc_cv:>7.3f} {step.svc_test:>8.3f}"
        )
    return "\n".join(lines)


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.practical_guide", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--quick", action="store_true", help="a tiny grid on 60 examples, 3 folds (seconds)"
    )
    parser.add_argument(
        "--coarse-stride",
        type=int,
        default=None,
        help="keep every K-th value of the guide's coarse grid of C and γ (default 1: all of it)",
    )
    parser.add_argument(
        "--fine-radius",
        type=float,
        default=None,
        help=f"the fine grid spans the best coarse log2 C and log2 γ ± this, in steps of "
        f"{FINE_STEP:g} (default {GUIDE_FINE_RADIUS:g}, as in the guide's example)",
    )
    parser.add_argument("--n-jobs", type=int, default=2, help="workers of GridSearchCV")
    parser.add_argument("--out-dir", type=Path, default=Path("results"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.coarse_stride is not None and args.coarse_stride < 1:
        parser.error(f"--coarse-stride must be an integer >= 1, got {args.coarse_stride}")
    if args.fine_radius is not None and not args.fine_radius >= 0:
        parser.error(f"--fine-radius must be >= 0, got {args.fine_radius}")
    if args.quick and (args.coarse_stride is not None or args.fine_radius is not None):
        parser.error("--quick sets its own grid: leave out --coarse-stride and --fine-radius")
    return args


def main(argv: Sequence[str] | None = None) -> list[Step]:
    """Run the guide on every data set; print the table, write the heat maps, return the steps."""
    args = parse_arguments(argv)
    _matplotlib()  # before the searches, not after them
    plan = Plan.from_arguments(args)
    print(plan.describe())
    started = time.perf_counter()
    steps: list[Step] = []
    # The QPs are small: threads of the linear algebra library only compete with the workers.
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for data_set in DATA_SETS:
            found = run_data_set(data_set, plan, args.n_jobs, args.seed)
            slug = data_set.name.replace(" ", "_")
            path = plot_heat_maps(found, args.out_dir / f"practical_guide_{slug}.png")
            print(f"heat map written to {path}")
            steps += found
    print(format_table(steps))
    print(
        "SVC: scikit-learn's libsvm at the same (C, γ) and folds (one-vs-one for several "
        "classes, where KernelMulticlassSVM is Crammer & Singer's joint multiclass SVM).\n"
        "Convergence warnings of fits that reached max_iter (raw features, large C) are "
        f"silenced. {time.perf_counter() - started:.0f} s."
    )
    return steps


if __name__ == "__main__":
    main()
