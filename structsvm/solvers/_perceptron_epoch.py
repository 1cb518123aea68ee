"""The compiled perceptron epoch: one call per pass over the data, through the compiled oracle.

:func:`perceptron_epoch` makes the steps of :func:`~structsvm.solvers._perceptron.perceptron`'s
Python loop in the same order with the same arithmetic: decode ``ŷ = argmax_y w · φ(x_i, y)``
(the oracle's ``decode`` without augmentation), and on a mistake add the dense update
``φ(x_i, y_i) − φ(x_i, ŷ)`` to ``w`` and ``step`` times it to the averaging sum, so the
iterates are those of the Python loop.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numba
import numpy as np
from numba.core.errors import NumbaExperimentalFeatureWarning

from structsvm._compiled_oracle import CompiledOracle
from structsvm.solvers._example_oracle import stacked_labels


def compiled_epochs(oracle: CompiledOracle, Y: Sequence[Any]) -> Callable[[np.ndarray, Any], int]:
    """Return ``epoch(order, run)``, which makes the perceptron steps of ``order`` in one call.

    ``run`` is the run's :class:`~structsvm.solvers._perceptron.PerceptronState`, whose ``w``,
    ``weighted_updates`` and ``step`` the epoch updates; it returns the number of mistakes.
    """
    fns, data = oracle.functions(), oracle.data
    true_labels, label_offsets = stacked_labels(oracle, Y)

    def epoch(order: np.ndarray, run: Any) -> int:
        with warnings.catch_warnings():
            # Numba warns when it first compiles the epoch for an oracle's functions (taken as
            # first-class functions, by design), also where warnings are made errors.
            warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
            mistakes, step = perceptron_epoch(
                fns, data, order.astype(np.int64, copy=False), true_labels, label_offsets,
                run.w, run.weighted_updates, run.step,
            )
        run.step = int(step)
        return int(mistakes)

    return epoch


@numba.njit(cache=True)
def perceptron_epoch(fns, data, order, true_labels, label_offsets, w, weighted_updates, step):
    """Make the perceptron steps of ``order``; return the mistakes and the next step's number.

    On a mistake at step t, every column j of φ(x_i, y_i) or φ(x_i, ŷ) gets
    ``u_j = φ_j(x_i, y_i) − φ_j(x_i, ŷ)`` (a missing entry counts 0): ``w[j] += u_j`` and
    ``weighted_updates[j] += t u_j``.
    """
    mistakes = 0
    for k in range(len(order)):
        i = order[k]
        found = fns[1](data, i, w, fns[0](data, i, w), False)
        truth = true_labels[label_offsets[i] : label_offsets[i + 1]]
        if len(found) != len(truth) or np.any(found != truth):
            true_indices, true_values = fns[2](data, i, truth)
            found_indices, found_values = fns[2](data, i, found)
            p = q = 0
            while p < len(true_indices) or q < len(found_indices):
                if q == len(found_indices) or (
                    p < len(true_indices) and true_indices[p] < found_indices[q]
                ):
                    column, update = true_indices[p], true_values[p] - 0.0
                    p += 1
                elif p == len(true_indices) or found_indices[q] < true_indices[p]:
                    column, update = found_indices[q], 0.0 - found_values[q]
                    q += 1
                else:
                    column, update = true_indices[p], true_values[p] - found_values[q]
                    p += 1
                    q += 1
                w[column] += update
                weighted_updates[column] += step * update
            mistakes += 1
        step += 1
    return mistakes, step
