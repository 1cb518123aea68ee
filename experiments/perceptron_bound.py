"""The structured perceptron's mistake bound, measured: updates made against (R/δ)².

For each task kind (multiclass, and short label sequences) and each planted margin δ, samples a
data set that a random unit vector separates with margin at least δ (``make_separable``),
computes the radius R and the exact margin by enumerating outputs, trains the perceptron to
convergence and prints the number of updates beside Collins' bound (R/δ)².

Run ``python -m experiments.perceptron_bound``.
"""

from __future__ import annotations

import argparse

from structsvm import StructuredPerceptron, Task, margin, mistake_bound, radius
from structsvm.datasets import make_separable
from tasks import ChainTask, MulticlassTask


def task_kinds() -> dict[str, tuple[Task, object]]:
    """Return the tasks to measure, each with a sampler of its inputs."""
    chain = ChainTask(n_labels=3, n_features=4)
    return {
        "multiclass (5 classes, 8 features)": (
            MulticlassTask(n_classes=5, n_features=8),
            lambda rng: rng.normal(size=8),
        ),
        "chain (3 labels, 4 features, T=2..4)": (
            chain,
            lambda rng: rng.normal(size=(int(rng.integers(2, 5)), chain.n_features)),
        ),
    }


def measure(task: Task, sample_input, n_examples: int, min_margin: float, seed: int) -> dict:
    """Train to convergence on planted data; return R, δ, updates and the bound."""
    X, Y, u = make_separable(task, sample_input, n_examples, min_margin, random_state=seed)
    delta = margin(task, X, Y, u)
    R = radius(task, X)
    model = StructuredPerceptron(task, max_epochs=10_000, random_state=seed).fit(X, Y)
    return {
        "R": R,
        "delta": delta,
        "updates": model.n_updates_,
        "epochs": model.n_iter_,
        "converged": model.converged_,
        "bound": mistake_bound(R, delta),
    }


def main(argv: list[str] | None = None) -> list[dict]:
    """Print updates against (R/δ)² for several margins and both task kinds."""
    parser = argparse.ArgumentParser(prog="python -m experiments.perceptron_bound")
    parser.add_argument("--examples", type=int, default=200, help="examples per data set")
    parser.add_argument("--margins", type=float, nargs="+", default=[0.1, 0.25, 0.5, 1.0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rows = []
    print(
        f"{'task':38} {'δ planted':>9} {'δ':>7} {'R':>7} {'updates':>8} {'(R/δ)²':>10} "
        f"{'epochs':>6}  within bound"
    )
    for name, (task, sample_input) in task_kinds().items():
        for min_margin in args.margins:
            row = measure(task, sample_input, args.examples, min_margin, args.seed)
            row.update(task=name, planted=min_margin)
            rows.append(row)
            within = row["converged"] and row["updates"] <= row["bound"]
            print(
                f"{name:38} {min_margin:9.2f} {row['delta']:7.3f} {row['R']:7.3f} "
                f"{row['updates']:8d} {row['bound']:10.1f} {row['epochs']:6d}  "
                f"{'yes' if within else 'NO'}"
            )
    return rows


if __name__ == "__main__":
    main()
