"""Speed and quality of the graph inference methods on grids with random potentials.

Every method of :func:`structsvm.inference.infer` runs on 4-neighbourhood grids with unary and
per-edge pairwise scores drawn from a standard normal: by default a 10×10 grid with 11 states
(the size of the snakes problems) and a 100×100 grid with 10 states. Brute force is skipped
(11^100 labellings); the ILP and the LP get a time limit (``--time-limit`` seconds), past which
they return their best labelling uncertified. Each row gives the wall time of one call (the
Numba functions are compiled beforehand on a tiny model), nodes per second, the score of the
labelling, the upper bound and whether the labelling is certified optimal.

Run ``python -m experiments.bench_inference --help`` for the options.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from structsvm.inference import INFERENCE_METHODS, infer

DEFAULT_GRIDS = ((10, 10, 11), (100, 100, 10))
DEFAULT_METHODS = tuple(method for method in INFERENCE_METHODS if method != "brute")
TIME_LIMITED = ("ilp", "lp")


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
    grids: tuple[tuple[int, int, int], ...] = DEFAULT_GRIDS,
    methods: tuple[str, ...] = DEFAULT_METHODS,
    time_limit: float = 60.0,
    seed: int = 0,
) -> list[dict[str, object]]:
    """Run every method on every grid, print a table and return its rows."""
    warm_up = random_grid_model(2, 2, 2, seed)
    for method in methods:
        infer(*warm_up, method)
    print(
        f"{'grid':>14} {'method':>11} {'time':>9} {'nodes/s':>10} {'score':>11} "
        f"{'bound':>11} {'certified':>9} {'iter':>6}"
    )
    rows = []
    for height, width, n_states in grids:
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
        "--grids",
        nargs="+",
        default=[f"{h}x{w}x{s}" for h, w, s in DEFAULT_GRIDS],
        help="grids as HEIGHTxWIDTHxSTATES",
    )
    parser.add_argument(
        "--methods", nargs="+", default=list(DEFAULT_METHODS), choices=INFERENCE_METHODS
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=60.0,
        help="seconds allowed to the ILP and the LP per grid",
    )
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


if __name__ == "__main__":
    arguments = _parse()
    main(
        tuple(tuple(int(part) for part in grid.split("x")) for grid in arguments.grids),
        tuple(arguments.methods),
        arguments.time_limit,
        arguments.seed,
    )
