"""Train BCFW on synthetic sparse sequences shaped like a text chunking task.

Draws ``N_SEQUENCES`` random sequences of 5 to 40 positions, each position with ``ACTIVE``
active binary features out of ``N_FEATURES``; the label of a position is a function of its
first active feature. The chain model then has ``N_LABELS * N_FEATURES + N_LABELS**2``
weights. Prints the time of every pass and the peak resident memory of the process, next to
what dense blocks (one weight vector per sequence) would take.

Run with ``python -m experiments.bench_sparse_chain``.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse

from experiments._measure import peak_rss_megabytes
from structsvm import StructuredSVM
from tasks import ChainTask

N_SEQUENCES = 2_000
N_FEATURES = 200_000
N_LABELS = 20
ACTIVE = 20
MAX_ITER = 3


def make_data(rng: np.random.Generator) -> tuple[list[scipy.sparse.csr_matrix], list[np.ndarray]]:
    """Return random sparse binary sequences and their labels."""
    X, Y = [], []
    for _ in range(N_SEQUENCES):
        length = int(rng.integers(5, 41))
        columns = rng.integers(0, N_FEATURES, (length, ACTIVE))
        rows = np.repeat(np.arange(length), ACTIVE)
        x = scipy.sparse.csr_matrix(
            (np.ones(rows.size), (rows, columns.ravel())), shape=(length, N_FEATURES)
        )
        X.append(x)
        Y.append(columns[:, 0] % N_LABELS)
    return X, Y


def main() -> None:
    """Train and print the passes, the peak memory and the size of the model."""
    X, Y = make_data(np.random.default_rng(0))
    task = ChainTask(N_LABELS, N_FEATURES)
    n_positions = sum(x.shape[0] for x in X)
    print(
        f"{N_SEQUENCES} sequences, {n_positions} positions, {N_FEATURES} features, "
        f"{N_LABELS} labels: {task.size_joint_feature} weights "
        f"({8 * task.size_joint_feature / 2**20:.0f} MiB per weight vector; dense blocks "
        f"would take {8 * task.size_joint_feature * N_SEQUENCES / 2**30:.0f} GiB)"
    )
    begin = time.perf_counter()
    model = StructuredSVM(task, C=1.0, solver="bcfw", max_iter=MAX_ITER, random_state=0)
    model.fit(X, Y)
    for record in model.history_:
        print(
            f"pass {record['iteration']}: {record['time']:6.1f} s, primal {record['primal']:.6g}, "
            f"relative gap {record['relative_gap']:.3g}"
        )
    print(f"fit: {time.perf_counter() - begin:.1f} s; peak RSS {peak_rss_megabytes():.0f} MB")


if __name__ == "__main__":
    main()
