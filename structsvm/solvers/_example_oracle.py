"""One example's oracle call through a task's compiled oracle, as every compiled pass makes it.

The passes take the oracle's functions as one tuple ``fns = (scores, decode, features, loss,
labelling_score, add_features)`` (:meth:`structsvm.CompiledOracle.functions`) and, when the
scores of a pass at a fixed ``w`` were made at once (:class:`structsvm.ScoreTable`), the
table's arrays; an empty ``offsets`` array means that every example is scored by the oracle's
``scores``. The optional ``labelling_score`` and ``add_features`` are used where the task
offers them, and ``features`` in their place where it does not (NaN, False).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from structsvm._compiled_oracle import CompiledOracle, offsets_of

#: The table arguments of a pass without a score table.
NO_TABLE = (np.zeros((0, 0)), np.zeros(0, dtype=np.int64))


def stacked_labels(oracle: CompiledOracle, Y: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Return the labels of the outputs Y end to end, and the offsets (n + 1,) of each one's."""
    labels = [oracle.labels(y) for y in Y]
    return np.concatenate(labels), offsets_of([len(part) for part in labels])


@numba.njit(cache=True, inline="always")
def decode_keeping_scores(fns, data, i, w, table, offsets, augmented, keep):
    """Return the labels of the output maximising ``w · φ(x_i, y)`` (plus Δ if ``augmented``)
    and example i's part scores as scored.

    The part scores (before the loss augmentation that decoding may write into them) are the
    table's rows, or, without a table, a copy kept if ``keep`` (an empty array otherwise): what
    ``labelling_score`` reads, so ``keep`` is whether the task offers it.
    """
    if len(offsets) > 0:
        scores = table[offsets[i] : offsets[i + 1]]
        return fns[1](data, i, w, scores.copy(), augmented), scores
    scores = fns[0](data, i, w)
    kept = scores.copy() if keep else scores[:0]
    return fns[1](data, i, w, scores, augmented), kept


@numba.njit(cache=True)
def decode_example(fns, data, i, w, table, offsets, augmented):
    """Return :func:`decode_keeping_scores`'s labels."""
    return decode_keeping_scores(fns, data, i, w, table, offsets, augmented, False)[0]


@numba.njit(cache=True)
def labelling_value(fns, data, i, w, scores, labels, indices, values):
    """Return ``w · φ(x_i, y)``: the oracle's ``labelling_score``, or ``w`` dotted with φ.

    ``scores`` are example i's part scores as scored, ``indices`` and ``values`` φ(x_i, y)
    (read only if the task offers no ``labelling_score``).
    """
    score = fns[4](data, i, w, scores, labels)
    return sparse_dot(w, indices, values) if np.isnan(score) else score


@numba.njit(cache=True, inline="always")
def sparse_dot(w, indices, values):
    """Return ``w · v`` of a sparse vector v given by its indices and values."""
    total = 0.0
    for p in range(len(indices)):
        total += w[indices[p]] * values[p]
    return total

