"""Time of the ranking SVM to a 0.1% gap: structural (pairs counted) against the pairwise reduction.

Synthetic data: ``n_queries`` queries of m documents each, ``n_features`` normal features,
grades 0 to 4 from the quintiles of a noisy linear score within each query (about 80% of the
m²/2 document pairs of a query are preference pairs). Both methods minimise the same objective
``½‖w‖² + C Σ_pairs max(0, 1 − w·(x_i − x_j))`` with ``C = c / |P|`` (Joachims' 2006 scaling,
``|P|`` the number of preference pairs over all queries).

How it is measured, all in one run and one process:

* a lower bound L on the optimum comes first from :class:`structsvm.RankingSVM` with
  ``tol=1e-6`` (its dual objective, not timed);
* **ours**: ``RankingSVM(solver="1-slack", tol=1e-3)``, whose fit stops at a certified relative
  duality gap of 0.1%; the time is the whole ``fit``, Numba already compiled by a warm-up fit;
* **reduction**: scikit-learn's ``LinearSVC(C=C, loss="hinge", fit_intercept=False)``
  (liblinear's dual coordinate descent) on the explicit difference vectors of every preference
  pair, every other pair negated and labelled −1 so that there are two classes. liblinear has
  no duality-gap stop, so it runs with ``tol`` = 1e-1, 1e-2, … until its primal objective is
  within 0.1% of L; the time reported is building the pair matrix plus that first successful
  fit (the coarser, failed fits are not counted). The reduction is skipped where its pair
  matrix would exceed ``max_pairs`` rows (8·n_features bytes each): at 10⁴ documents per query
  it would hold about 4·10⁷ pairs per query, gigabytes.

Both wall-clock and CPU seconds (``time.process_time``) are printed: on a machine shared with
other work the wall-clock times stretch with the load and the CPU times less so. The ratios
are the reduction's time over ours. Run ``python -m experiments.bench_ranking --help``.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from experiments._measure import Stopwatch
from structsvm import RankingSVM
from structsvm._utils.pair_counts import count_pairs

TARGET = 1e-3
"""Relative distance to the optimum both methods must reach."""


def make_queries(
    n_queries: int, n_documents: int, n_features: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return rows X, grades y (0 to 4, quintiles of a noisy score per query) and query ids."""
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=n_features)
    X = rng.normal(size=(n_queries * n_documents, n_features))
    qid = np.repeat(np.arange(n_queries), n_documents)
    noisy = (X @ direction).reshape(n_queries, n_documents)
    noisy += rng.normal(scale=2.0, size=noisy.shape)
    ranks = np.argsort(np.argsort(noisy, axis=1), axis=1)
    return X, (5 * ranks // n_documents).ravel().astype(float), qid


def pair_differences(
    X: np.ndarray, y: np.ndarray, qid: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Return the difference vectors of all preference pairs (every other negated) and labels."""
    blocks = []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        better, worse = np.nonzero(y[rows][:, None] > y[rows][None, :])
        blocks.append(X[rows[better]] - X[rows[worse]])
    differences = np.vstack(blocks)
    labels = np.ones(len(differences))
    labels[1::2] = -1.0
    differences[1::2] *= -1.0
    return differences, labels


def pairwise_primal(w: np.ndarray, differences: np.ndarray, labels: np.ndarray, C: float) -> float:
    """Return ½‖w‖² + C Σ max(0, 1 − label · w·d) over the pair rows."""
    hinge = np.maximum(0.0, 1.0 - labels * (differences @ w))
    return float(0.5 * w @ w + C * hinge.sum())


def time_reduction(
    X: np.ndarray, y: np.ndarray, qid: np.ndarray, C: float, bound: float
) -> tuple[float, float, float, float]:
    """Return (wall s, CPU s, tol, primal) of the first LinearSVC fit within TARGET of ``bound``.

    The seconds are those of building the pair matrix plus that one fit; nan if no fit gets
    there.
    """
    with Stopwatch() as build:
        differences, labels = pair_differences(X, y, qid)
    primal = np.inf
    for tol in (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6):
        svc = LinearSVC(C=C, loss="hinge", fit_intercept=False, tol=tol, max_iter=100_000)
        with Stopwatch() as fit, warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svc.fit(differences, labels)
        primal = pairwise_primal(svc.coef_.ravel(), differences, labels, C)
        if primal <= (1.0 + TARGET) * bound:
            return build.wall + fit.wall, build.cpu + fit.cpu, tol, primal
    return float("nan"), float("nan"), float("nan"), primal


def main(
    sizes: Sequence[int] = (100, 1_000, 10_000),
    n_queries: int = 3,
    n_features: int = 20,
    c: float = 100.0,
    max_pairs: int = 2_000_000,
) -> dict:
    """Run the comparison for every number of documents per query, print and return the rows."""
    warm_X, warm_y, warm_qid = make_queries(2, 20, n_features)
    RankingSVM().fit(warm_X, warm_y, warm_qid)  # compile the Numba counting once
    rows = []
    print(
        f"{n_queries} queries, {n_features} features, C = {c:g}/|P|, target: primal within "
        f"{100 * TARGET:g}% of the optimum"
    )
    print(
        f"{'docs/query':>10} {'pairs':>10} {'ours wall':>9} {'ours CPU':>9} {'iters':>5} "
        f"{'pairs wall':>9} {'pairs CPU':>9} {'tol':>8} {'ratio':>8} {'CPU ratio':>8}"
    )
    for m in sizes:
        X, y, qid = make_queries(n_queries, m, n_features, seed=m)
        n_pairs = sum(count_pairs(y[qid == q]) for q in range(n_queries))
        C = c / n_pairs
        bound = RankingSVM(C=C, tol=1e-6, max_iter=5000).fit(X, y, qid).svm_.dual_objective_
        with Stopwatch() as clock:
            ours = RankingSVM(C=C, tol=TARGET).fit(X, y, qid)
        row = {
            "documents_per_query": m,
            "pairs": n_pairs,
            "ours_seconds": clock.wall,
            "ours_cpu_seconds": clock.cpu,
            "ours_iterations": ours.n_iter_,
            "ours_primal": ours.svm_.primal_objective_,
            "bound": bound,
        }
        reduction = "skipped: more pairs than max_pairs"
        if n_pairs <= max_pairs:
            wall, cpu, tol, primal = time_reduction(X, y, qid, C, bound)
            row |= {
                "reduction_seconds": wall,
                "reduction_cpu_seconds": cpu,
                "liblinear_tol": tol,
                "reduction_primal": primal,
            }
            reduction = (
                f"{wall:9.3f} {cpu:9.3f} {tol:8g} {wall / clock.wall:8.1f} {cpu / clock.cpu:8.1f}"
            )
        rows.append(row)
        print(
            f"{m:>10} {n_pairs:>10} {clock.wall:9.3f} {clock.cpu:9.3f} {ours.n_iter_:>5} "
            f"{reduction}"
        )
    return {"rows": rows}


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1_000, 10_000])
    parser.add_argument("--queries", type=int, default=3)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--c", type=float, default=100.0, help="C times the number of pairs")
    parser.add_argument("--max-pairs", type=int, default=2_000_000)
    return parser.parse_args()


if __name__ == "__main__":
    arguments = _parse()
    main(arguments.sizes, arguments.queries, arguments.features, arguments.c, arguments.max_pairs)
