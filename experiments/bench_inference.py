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

With ``--side-by-side`` it compares instead, in one run, every method that takes the model
with gco's α-expansion and αβ-swap (``gco-wrapper``, C++) and thinqpbo's QPBO (C++), both in
the optional ``bench`` extra (``pip install structsvm[bench]``; a missing one is skipped), on
grids of 50×50 and 100×100 nodes with 2 and 10 states, under three pairwise models:

- ``potts``: a planted image (rectangles of random states) seen through noisy integer unary
  costs, Potts costs λ = 100 between neighbours (``--unaries uniform``: costs uniform in
  [0, 100) without a planted image and λ = 50, a harder, frustrated model);
- ``truncated``: the same unary costs, truncated linear costs 30·min(|a − b|, 3);
- ``random``: standard normal unary and per-edge pairwise scores (no graph cut applies but
  QPBO on two states).

Every row gives the wall and CPU time of one call, the energy (minus the score) and the
method's lower bound on the energy (minus its upper bound on the score), on costs that are
integers for the first two models so that gco, which rounds costs to integers, sees the same
energy. gco's time includes building its graph from arrays; thinqpbo is timed from its solve on
(its graph is built by one Python call per term, left out). ``--snakes`` adds the potentials of
a model trained on the snakes images (a few BCFW passes on training images, evaluated on other
training images). ``--warm-calls snakes`` (or ``grid``, planted 20×20 grids with 5 states)
trains the model with AD3 and with TRW-S, each with and without warm calls (every decoding
of a training graph starting from the state its previous call left), back to back, and
reports inference's CPU seconds and share of the fit,
iterations per call, the final objective and gap, and accuracy.

Run ``python -m experiments.bench_inference --help`` for the options.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import time
import warnings
from collections.abc import Callable

import numba
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from experiments._measure import Stopwatch, format_table
from structsvm import CompiledOracle, StructuredSVM
from structsvm.inference import INFERENCE_METHODS, infer
from tasks import EdgeFeatureGraphTask
from tasks._graph_oracle import AD3, decode_graph, graph_features, graph_loss, graph_scores

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


PAIRWISE_MODELS = ("potts", "truncated", "random")
SIZES = ((50, 50), (100, 100))
STATE_COUNTS = (2, 10)
OUR_METHODS = ("trws", "max-product", "ad3", "expansion", "swap", "qpbo")
"""The methods of the side-by-side comparison (the ILP and the LP take minutes on these grids)."""


def planted_costs(
    rng: np.random.Generator, height: int, width: int, n_states: int, unaries: str
) -> np.ndarray:
    """Return integer unary costs (n_nodes, n_states): a noisy planted image, or uniform ones.

    ``"planted"``: rectangles of random states drawn over a blank image; the cost of a state
    is 150·u (u uniform) plus, off the planted state, 100·r (r uniform per node).
    ``"uniform"``: 100·u alone, rounded down.
    """
    n_nodes = height * width
    if unaries == "uniform":
        return rng.integers(0, 100, size=(n_nodes, n_states)).astype(float)
    truth = np.zeros((height, width), dtype=np.int64)
    for _ in range(3 * n_states):
        row, column = rng.integers(height), rng.integers(width)
        size = rng.integers(5, max(height, width) // 2 + 6, size=2)
        truth[row : row + size[0], column : column + size[1]] = rng.integers(n_states)
    off_truth = np.arange(n_states)[None] != truth.reshape(-1, 1)
    costs = 100 * off_truth * rng.random((n_nodes, 1)) + 150 * rng.random((n_nodes, n_states))
    return np.rint(costs)


def comparison_model(
    kind: str, height: int, width: int, n_states: int, unaries: str, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (unary, edges, pairwise) scores of a model of the comparison (see the module)."""
    rng = np.random.default_rng(seed)
    edges = grid_edges(height, width)
    if kind == "random":
        return random_grid_model(height, width, n_states, seed)
    distance = np.abs(np.subtract.outer(np.arange(n_states), np.arange(n_states)))
    if kind == "potts":
        costs = (50.0 if unaries == "uniform" else 100.0) * (distance > 0)
    else:
        costs = 30.0 * np.minimum(distance, 3)
    return -planted_costs(rng, height, width, n_states, unaries), edges, -costs


def run_gco(
    unary: np.ndarray, edges: np.ndarray, pairwise: np.ndarray, algorithm: str
) -> tuple[np.ndarray, Stopwatch, float]:
    """Return gco's labelling, its timing and no bound (nan) on a shared integer cost table."""
    gco = importlib.import_module("gco")
    with Stopwatch() as timing:
        labels = _gco_labels(gco, unary, edges, pairwise, algorithm)
    return labels, timing, float("nan")


def _gco_labels(gco, unary, edges, pairwise, algorithm: str) -> np.ndarray:
    cutter = gco.GCO()
    cutter.create_general_graph(len(unary), unary.shape[1], False)
    cutter.set_data_cost(np.ascontiguousarray(-unary, dtype=np.int32))
    cutter.set_all_neighbors(edges[:, 0], edges[:, 1], np.ones(len(edges), dtype=np.int32))
    cutter.set_smooth_cost(np.ascontiguousarray(-pairwise, dtype=np.int32))
    if algorithm == "expansion":
        cutter.expansion(-1)
    else:
        cutter.swap(-1)
    labels = cutter.get_labels().astype(np.int64)
    cutter.destroy_graph()
    return labels


def run_thinqpbo(
    unary: np.ndarray, edges: np.ndarray, pairwise: np.ndarray
) -> tuple[np.ndarray, Stopwatch, float]:
    """Return thinqpbo's labelling (open nodes at 0), the time of its solve and its bound."""
    thinqpbo = importlib.import_module("thinqpbo")
    tables = np.broadcast_to(pairwise, (len(edges), 2, 2)) if pairwise.ndim == 2 else pairwise
    graph = thinqpbo.QPBODouble(len(unary), len(edges))
    graph.add_node(len(unary))
    for node, (score_0, score_1) in enumerate(unary):
        graph.add_unary_term(node, -score_0, -score_1)
    for (first, second), table in zip(edges, tables, strict=True):
        graph.add_pairwise_term(int(first), int(second), *(-table.ravel()))
    with Stopwatch() as timing:
        graph.solve()
        graph.compute_weak_persistencies()
    labels = np.array([max(graph.get_label(node), 0) for node in range(len(unary))])
    return labels, timing, graph.compute_twice_lower_bound() / 2.0


EXTERNAL: dict[str, Callable[..., tuple[np.ndarray, Stopwatch, float]]] = {
    "gco-expansion": lambda *model: run_gco(*model, "expansion"),
    "gco-swap": lambda *model: run_gco(*model, "swap"),
    "thinqpbo": run_thinqpbo,
}


def _external_applies(name: str, kind: str, n_states: int) -> bool:
    """Whether an external solver takes the model and is installed."""
    module = "thinqpbo" if name == "thinqpbo" else "gco"
    if importlib.util.find_spec(module) is None:
        return False
    return n_states == 2 if name == "thinqpbo" else kind != "random"


def _energy(unary: np.ndarray, edges: np.ndarray, pairwise: np.ndarray, labels: np.ndarray):
    """Return minus the score of ``labels``, the energy every row is compared on."""
    tables = pairwise if pairwise.ndim == 3 else pairwise[None]
    table_ids = np.arange(len(edges)) if pairwise.ndim == 3 else np.zeros(len(edges), int)
    score = unary[np.arange(len(unary)), labels].sum()
    return -float(score + tables[table_ids, labels[edges[:, 0]], labels[edges[:, 1]]].sum())


def side_by_side(
    kinds: tuple[str, ...] = PAIRWISE_MODELS,
    sizes: tuple[tuple[int, int], ...] = SIZES,
    state_counts: tuple[int, ...] = STATE_COUNTS,
    methods: tuple[str, ...] = OUR_METHODS,
    unaries: str = "planted",
    seed: int = 0,
) -> list[dict[str, object]]:
    """Run our methods and the external solvers on every model; print and return the rows."""
    warm = comparison_model("potts", 3, 3, 2, unaries, seed)
    for method in methods:
        infer(*warm, method)
    rows = []
    for kind in kinds:
        for height, width in sizes:
            for n_states in state_counts:
                model = comparison_model(kind, height, width, n_states, unaries, seed)
                for method in methods:
                    try:
                        with Stopwatch() as timing:
                            result = infer(*model, method)
                    except ValueError:
                        continue  # the method does not take these pairwise scores
                    rows.append(
                        _row(
                            kind,
                            height,
                            width,
                            n_states,
                            method,
                            timing,
                            -result.score,
                            -result.bound,
                            result.certified,
                        )
                    )
                    print(format_table(rows[-1:]).splitlines()[-1], flush=True)
                for name, run in EXTERNAL.items():
                    if not _external_applies(name, kind, n_states):
                        continue
                    labels, timing, bound = run(*model)
                    energy = _energy(*model, labels)
                    rows.append(
                        _row(
                            kind,
                            height,
                            width,
                            n_states,
                            name,
                            timing,
                            energy,
                            bound,
                            bool(bound >= energy - 1e-9),
                        )
                    )
                    print(format_table(rows[-1:]).splitlines()[-1], flush=True)
    print(format_table(rows))
    return rows


def _row(kind, height, width, n_states, method, timing, energy, bound, certified):
    return {
        "model": kind,
        "grid": f"{height}x{width}",
        "states": n_states,
        "method": method,
        "seconds": timing.wall,
        "cpu seconds": timing.cpu,
        "energy": energy,
        "lower bound": bound,
        "certified": certified,
    }


SNAKE_METHODS = ("trws", "max-product", "ad3")


def _snakes_data(n_train: int, n_held_out: int) -> tuple[tuple[list, list], ...]:
    """Return the edge-feature model's (X, Y) of the first ``n_train`` training images, of
    the next ``n_held_out`` and of the test images."""
    from experiments.snakes import model_data
    from structsvm.datasets import ImageDataset, load_snakes

    train, test = load_snakes()
    fit_part = ImageDataset(train.images[:n_train], train.labels[:n_train])
    held_out = ImageDataset(
        train.images[n_train : n_train + n_held_out],
        train.labels[n_train : n_train + n_held_out],
    )
    return tuple(model_data("edge features", part) for part in (fit_part, held_out, test))


def snakes(
    n_train: int = 100, n_held_out: int = 100, max_iter: int = 15
) -> list[dict[str, object]]:
    """Train the edge-feature snakes model with max-product and with TRW-S; compare inference.

    Both fits use BCFW (C = 0.1) on the first ``n_train`` training images and are scored on
    the next ``n_held_out`` training images (the test images stay untouched). The share of
    inference in a fit is estimated as the passes made times the CPU time of one compiled
    decoding of every training image at the final weights, over the fit's CPU time. The
    inference methods then run on the held-out images' potentials under the TRW-S model.
    """
    from experiments.snakes import MAX_PRODUCT_OPTIONS, make_task

    (X, Y), (X_held, Y_held), _ = _snakes_data(n_train, n_held_out)
    rows: list[dict[str, object]] = []
    learned = None
    for method, options in (("max-product", MAX_PRODUCT_OPTIONS), ("trws", {})):
        task = make_task("edge features", method, options)
        learner = StructuredSVM(
            task, C=0.1, solver="bcfw", tol=1e-2, max_iter=max_iter, random_state=0
        )
        with Stopwatch() as fit, warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            learner.fit(X, Y)
        predictions = learner.predict(X_held)
        correct = sum(int(np.sum(p == y)) for p, y in zip(predictions, Y_held, strict=True))
        oracle = task.compiled_oracle(X, Y)
        scores, decode = oracle.functions()[:2]
        with Stopwatch() as sweep:
            for i in range(oracle.n_examples):
                decode(oracle.data, i, learner.w_, scores(oracle.data, i, learner.w_), True)
        rows.append(
            {
                "training with": method,
                "held-out accuracy": correct / sum(len(y) for y in Y_held),
                "fit seconds": fit.wall,
                "fit cpu seconds": fit.cpu,
                "passes": learner.n_iter_,
                "inference share": min(1.0, sweep.cpu * learner.n_iter_ / fit.cpu),
            }
        )
        learned = (task, learner.w_)
    print(format_table(rows))
    task, w = learned
    potentials = [task.potentials(x, w) for x in X_held]
    inference_rows = []
    for method in SNAKE_METHODS:
        with Stopwatch() as timing:
            results = [infer(*model, method) for model in potentials]
        inference_rows.append(
            {
                "method (held-out snakes)": method,
                "seconds": timing.wall,
                "cpu seconds": timing.cpu,
                "energy": -sum(result.score for result in results),
                "lower bound": -sum(result.bound for result in results),
                "certified": sum(result.certified for result in results),
            }
        )
    print(format_table(inference_rows))
    return rows + inference_rows


@numba.njit(cache=True)
def _counted_scores(data, i, w):
    return graph_scores(data[0], i, w)


@numba.njit(cache=True)
def _counted_decode(data, i, w, scores, augmented):
    """The graph task's decoding, adding into row i of ``data[1]`` its thread's CPU seconds,
    its iterations, 1 (the call), and 1 if it ran no iterations, 1 if it ran its most."""
    with numba.objmode(start="float64"):
        start = time.thread_time()
    labels, n_iter = decode_graph(data[0], i, w, scores, augmented)
    with numba.objmode(stop="float64"):
        stop = time.thread_time()
    most = data[0].ad3_options.max_iter if data[0].decoder == AD3 else data[0].max_iter
    data[1][i, 0] += stop - start
    data[1][i, 1] += n_iter
    data[1][i, 2] += 1
    data[1][i, 3] += n_iter == 0
    data[1][i, 4] += n_iter >= most
    return labels


@numba.njit(cache=True)
def _counted_features(data, i, labels):
    return graph_features(data[0], i, labels)


@numba.njit(cache=True)
def _counted_loss(data, i, labels):
    return graph_loss(data[0], i, labels)


class CountedGraphTask(EdgeFeatureGraphTask):
    """An edge-feature graph task whose compiled decoding counts, graph by graph, its CPU
    seconds, iterations, calls, calls without iterations and calls that ran the most
    (``counts``, one row per training graph)."""

    def compiled_oracle(self, X, Y):
        oracle = super().compiled_oracle(X, Y)
        self.counts = np.zeros((oracle.n_examples, 5))
        return CompiledOracle(
            (oracle.data, self.counts),
            _counted_scores,
            _counted_decode,
            _counted_features,
            _counted_loss,
            oracle.n_examples,
            exact=oracle.exact,
        )


GRID_SHAPE = (20, 20, 5)
"""Height, width and states of the planted grids of :func:`planted_grid_data`."""

GRID_NOISE = 0.7
"""The standard deviation of the noise on the planted grids' one-hot features."""


def planted_grid_data(n_train: int, n_held_out: int, seed: int = 0) -> tuple[tuple, ...]:
    """Return (X, Y) of ``n_train``, ``n_held_out`` and 100 test grids for an edge-feature task
    with one constant edge feature (a free pairwise table).

    Each grid's labels are a planted image (:func:`planted_costs`' rectangles, the states of
    its cheapest unary costs); a node's features are its state one-hot plus normal noise of
    standard deviation :data:`GRID_NOISE`, and a constant.
    """
    height, width, n_states = GRID_SHAPE
    rng = np.random.default_rng(seed)
    edges = grid_edges(height, width)
    parts = []
    for n_graphs in (n_train, n_held_out, 100):
        X, Y = [], []
        for _ in range(n_graphs):
            truth = np.argmin(planted_costs(rng, height, width, n_states, "planted"), axis=1)
            nodes = np.eye(n_states)[truth] + GRID_NOISE * rng.normal(size=(truth.size, n_states))
            nodes = np.hstack([nodes, np.ones((truth.size, 1))])
            X.append((nodes, edges, np.ones((len(edges), 1))))
            Y.append(truth)
        parts.append((X, Y))
    return tuple(parts)


def warm_calls(
    problem: str = "snakes",
    methods: tuple[str, ...] = ("ad3", "trws"),
    n_train: int = 100,
    n_held_out: int = 100,
    max_iter: int = 15,
    repeats: int = 1,
) -> list[dict[str, object]]:
    """Train a graph model with and without warm calls, back to back.

    ``problem``: ``"snakes"``, the edge-feature snakes model on the first ``n_train``
    training images, scored on the next ``n_held_out`` and on the test images; or
    ``"grid"``, :func:`planted_grid_data`. BCFW (C = 0.1, ``max_iter`` passes, examples in
    one seeded order); for every method, the fit without warm calls then the one with,
    ``repeats`` times. Inference's CPU seconds are those of the compiled decodings of the
    fit (each call timed on its thread); its share is over the fit's CPU seconds.

    Then, so that both starts meet the same models, a replay: the weights after each of the
    ``max_iter`` passes of the fit with TRW-S without warm calls, every training graph
    decoded (loss-augmented) at each in turn, with and without warm calls.
    """
    from experiments.snakes import MODELS, N_NODE_FEATURES, N_STATES

    if problem == "snakes":
        shape = (N_STATES, N_NODE_FEATURES, MODELS["edge features"][1])
        (X, Y), *held_out_and_test = _snakes_data(n_train, n_held_out)
    else:
        shape = (GRID_SHAPE[2], GRID_SHAPE[2] + 1, 1)
        (X, Y), *held_out_and_test = planted_grid_data(n_train, n_held_out)
    evaluation = dict(zip(("held-out", "test"), held_out_and_test, strict=True))

    def fit(method: str, warm: bool, X: list, Y: list, max_iter: int) -> tuple:
        task = CountedGraphTask(*shape, inference_method=method, warm_calls=warm)
        learner = StructuredSVM(
            task, C=0.1, solver="bcfw", tol=1e-2, max_iter=max_iter, random_state=0
        )
        with Stopwatch() as timing, warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            learner.fit(X, Y)
        return task, learner, timing

    weights = [fit("trws", False, X, Y, passes)[1].w_ for passes in range(1, max_iter + 1)]
    for method in methods:  # compile everything first
        for warm in (False, True):
            fit(method, warm, X[:2], Y[:2], 1)
    rows: list[dict[str, object]] = []
    for _ in range(repeats):
        for method in methods:
            for warm in (False, True):
                task, learner, timing = fit(method, warm, X, Y, max_iter)
                seconds, iterations, calls, none, most = task.counts.sum(axis=0)
                last = learner.history_[-1]
                row = {
                    "problem": problem,
                    "method": method,
                    "warm calls": warm,
                    "fit s": timing.wall,
                    "fit cpu s": timing.cpu,
                    "inference cpu s": seconds,
                    "share": seconds / timing.cpu,
                    "calls": int(calls),
                    "iterations per call": iterations / calls,
                    "without iterations": int(none),
                    "at max_iter": int(most),
                    "primal": last["primal"],
                    "dual": last["dual"],
                    "relative gap": last["relative_gap"],
                }
                for name, (X_eval, Y_eval) in evaluation.items():
                    predictions = learner.predict(X_eval)
                    correct = sum(
                        int(np.sum(p == y)) for p, y in zip(predictions, Y_eval, strict=True)
                    )
                    row[f"{name} accuracy"] = correct / sum(len(y) for y in Y_eval)
                rows.append(row)
                print(format_table(rows[-1:]).splitlines()[-1], flush=True)
    print(format_table(rows))
    replay_rows: list[dict[str, object]] = []
    for _ in range(repeats):
        for method in methods:
            for warm in (False, True):
                task = CountedGraphTask(*shape, inference_method=method, warm_calls=warm)
                oracle = task.compiled_oracle(X, Y)
                scores, decode = oracle.functions(("scores", "decode"))[:2]
                for w in weights:
                    for i in range(oracle.n_examples):
                        decode(oracle.data, i, w, scores(oracle.data, i, w), True)
                seconds, iterations, calls, none, most = task.counts.sum(axis=0)
                replay_rows.append(
                    {
                        "replay": problem,
                        "method": method,
                        "warm calls": warm,
                        "inference cpu s": seconds,
                        "calls": int(calls),
                        "iterations per call": iterations / calls,
                        "without iterations": int(none),
                        "at max_iter": int(most),
                    }
                )
    print(format_table(replay_rows))
    return rows + replay_rows


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
    parser.add_argument(
        "--side-by-side",
        action="store_true",
        help="compare the methods with gco and thinqpbo on Potts, truncated and random grids",
    )
    parser.add_argument("--kinds", nargs="+", default=list(PAIRWISE_MODELS))
    parser.add_argument("--sizes", nargs="+", default=[f"{h}x{w}" for h, w in SIZES])
    parser.add_argument("--states", nargs="+", type=int, default=list(STATE_COUNTS))
    parser.add_argument("--unaries", choices=["planted", "uniform"], default="planted")
    parser.add_argument("--snakes", action="store_true", help="train and infer on snakes")
    parser.add_argument(
        "--warm-calls",
        choices=["snakes", "grid"],
        help="train a model of snakes or of planted grids with and without warm calls of AD3 "
        "and TRW-S",
    )
    parser.add_argument("--repeats", type=int, default=1, help="rounds of the --warm-calls fits")
    return parser.parse_args()


if __name__ == "__main__":
    arguments = _parse()
    if arguments.side_by_side:
        side_by_side(
            tuple(arguments.kinds),
            tuple(tuple(int(part) for part in size.split("x")) for size in arguments.sizes),
            tuple(arguments.states),
            tuple(m for m in arguments.methods if m in OUR_METHODS) or OUR_METHODS,
            arguments.unaries,
            arguments.seed,
        )
    if arguments.snakes:
        snakes()
    if arguments.warm_calls:
        warm_calls(arguments.warm_calls, repeats=arguments.repeats)
    if arguments.side_by_side or arguments.snakes or arguments.warm_calls:
        raise SystemExit(0)
    runs = DEFAULT_RUNS
    if arguments.grids:
        runs = tuple(
            (tuple(int(part) for part in grid.split("x")), tuple(arguments.methods))
            for grid in arguments.grids
        )
    main(runs, arguments.time_limit, arguments.seed)
