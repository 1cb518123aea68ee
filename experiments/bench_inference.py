"""Speed and quality of the graph inference methods on grids with random potentials.

The methods of :func:`structsvm.inference.infer` run on 4-neighbourhood grids with unary and
per-edge pairwise scores drawn from a standard normal. By default: every method but brute force
(11^100 labellings) on a 10×10 grid with 11 states, the size of the snakes problems;
max-product and AD3 on a 100×100 grid with 10 states; the ILP and the LP on a 30×30 grid with 10
states instead, since HiGHS finds no labelling of the 100×100 grid within minutes (its model
alone, two million variables, takes gigabytes). The ILP and the LP get a time limit
(``--time-limit`` seconds), past which they return their best labelling uncertified. Each row
gives the wall time of one call (the Numba functions are compiled beforehand on a tiny model),
nodes per second, the score of the labelling, the upper bound and whether the labelling is
certified optimal.

Run ``python -m experiments.bench_inference --help`` for the options.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from structsvm.inference import INFERENCE_METHODS, infer

TIME_LIMITED = ("ilp", "lp")
DEFAULT_TIME_LIMIT = 120.0
DEFAULT_RUNS = (
    ((10, 10, 11), ("ilp", "lp", "max-product", "ad3")),
    ((30, 30, 10), TIME_LIMITED),
    ((100, 100, 10), ("max-product", "ad3")),
)


def grid_edges(height: int, width: int) -> np.ndarray:
    """Return the edges of the 4-neighbourhood grid, nodes numbered row by row."""
    index = np.arange(height * width).reshape(height, width)
    right = np.column_stack([index[:, :-1].ravel(), index[:, 1:].ravel()])
    down = np.column_stack([index[:-1].ravel(), index[1:].ravel()])
    return np.vstack([right, down])


def random_grid_model(
    height: int, width: int, n_states: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (unary, edges, pairwise) of a grid with standard normal scores."""
    rng = np.random.default_rng(seed)
    edges = grid_edges(height, width)
    unary = rng.standard_normal((height * width, n_states))
    pairwise = rng.standard_normal((len(edges), n_states, n_states))
    return unary, edges, pairwise


def main(
    runs: tuple[tuple[tuple[int, int, int], tuple[str, ...]], ...] = DEFAULT_RUNS,
    time_limit: float = DEFAULT_TIME_LIMIT,
    seed: int = 0,
) -> list[dict[str, object]]:
    """Run the methods of each run on its grid (height, width, n_states); print and return rows."""
    warm_up = random_grid_model(2, 2, 2, seed)
    for method in {method for _, methods in runs for method in methods}:
        infer(*warm_up, method)
    print(
        f"{'grid':>14} {'method':>11} {'time':>9} {'nodes/s':>10} {'score':>11} "
        f"{'bound':>11} {'certified':>9} {'iter':>6}"
    )
    rows = []
    for (height, width, n_states), methods in runs:
        model = random_grid_model(height, width, n_states, seed)
        for method in methods:
            options = {"time_limit": time_limit} if method in TIME_LIMITED else {}
            start = time.perf_counter()
            result = infer(*model, method, **options)
            elapsed = time.perf_counter() - start
            row = {
                "grid": f"{height}x{width}x{n_states}",
                "method": method,
                "seconds": elapsed,
                "nodes_per_second": height * width / elapsed,
                "score": result.score,
                "bound": result.bound,
                "certified": result.certified,
                "n_iter": result.n_iter,
            }
            rows.append(row)
            print(
                f"{row['grid']:>14} {method:>11} {elapsed:8.3f}s {row['nodes_per_second']:10.0f} "
                f"{result.score:11.3f} {result.bound:11.3f} {result.certified!s:>9} "
                f"{result.n_iter:>6}",
                flush=True,
            )
    return rows


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--grids", nargs="+", help="grids as HEIGHTxWIDTHxSTATES, instead of the default runs"
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        default=[method for method in INFERENCE_METHODS if method != "brute"],
        choices=INFERENCE_METHODS,
        help="the methods run on each grid given by --grids",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=DEFAULT_TIME_LIMIT,
        help="seconds allowed to the ILP and the LP per grid",
    )
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


if __name__ == "__main__":
    arguments = _parse()
    runs = DEFAULT_RUNS
    if arguments.grids:
        runs = tuple(
            (tuple(int(part) for part in grid.split("x")), tuple(arguments.methods))
            for grid in arguments.grids
        )
    main(runs, arguments.time_limit, arguments.seed)
