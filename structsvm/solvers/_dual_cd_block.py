"""The exact block step of dual coordinate descent, over a task's compiled oracle.

For a task whose examples all have the same few outputs, the single labels ``0, …, K − 1``
(:attr:`structsvm.CompiledOracle.n_outputs`), the dual variables of example i are one simplex
``β_i(y) >= 0``, ``Σ_y β_i(y) = C`` over its K outputs. :func:`prepare_blocks` asks the oracle
once per fit for every output's φ(x_i, y) (``features``) and Δ(y_i, y) (``loss``) and keeps them
as sparse rows; :func:`dual_block_pass` then maximises the dual exactly over one example's
simplex at a time.

The step is exact in closed form when an example's φ(x_i, y) are mutually orthogonal with equal
squared norms a_i (the multiclass map e_y ⊗ x): with α_i = C e_{y_i} − β_i the subproblem is
Crammer & Singer's, minimise ``½ a_i Σ_y α_i(y)² + Σ_y b_y α_i(y)`` over
``α_i(y) <= C [y = y_i]``, ``Σ_y α_i(y) = 0``, where ``b_y = w · φ(x_i, y) + Δ(y_i, y) −
a_i α_i(y)``, solved by ``α_i(y) = min(C [y = y_i], (θ − b_y) / a_i)`` with the threshold θ
found by sorting (Crammer & Singer, JMLR 2001, section 6; Keerthi et al., KDD 2008, section 3).
:func:`prepare_blocks` checks that every example's outputs have this form.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numba
import numpy as np

from structsvm._compiled_oracle import CompiledOracle
from structsvm._task import Task
from structsvm.solvers._compiled_arrays import copy_values

#: What the solver's messages call the compiled oracle's use here.
PURPOSE = "dual-cd (the exact block step)"

#: Relative difference of two squared norms, or relative size of an inner product, below which
#: an example's outputs count as having equal norms and as orthogonal.
ORTHOGONALITY_TOLERANCE = 1e-12


class DualBlocks(NamedTuple):
    """Every example's outputs, as the exact block steps read them.

    Attributes
    ----------
    data : tuple
        What :func:`dual_block_pass` reads: ``(examples, squared_norms, patterns, loss_table,
        row_starts, indices, values)``. Example i is ``examples[i] = (base, kind, y_i)`` and
        ``squared_norms[i]`` its a_i. φ(x_i, y), without its zero entries, is the stored row
        ``r = base + patterns[kind, y]`` moved by ``patterns[kind, K + y]`` columns: the
        columns ``patterns[kind, K + y] + indices[row_starts[r]:row_starts[r + 1]]`` hold the
        values ``values[row_starts[r]:row_starts[r + 1]]``; the true output's row is ``base``,
        unmoved. Δ(y_i, y) is ``loss_table[kind, y]``. An output whose φ is the true output's
        moved to other columns (e_y ⊗ x) shares its row, so the data are held once per
        example, and examples of the same kind share their rows of the tables (one kind per
        true class for multiclass): what a step reads besides the rows stays in the cache.
    losses : ndarray of shape (n, K)
        Δ(y_i, y).
    truths : ndarray of shape (n,), int64
        The true output y_i.
    """

    data: tuple
    losses: np.ndarray
    truths: np.ndarray


def prepare_blocks(task: Task, oracle: CompiledOracle, Y: Sequence[Any]) -> DualBlocks:
    """Return the blocks of the training set (Y) from the task's compiled oracle for it.

    Raises
    ------
    ValueError
        If the oracle has no ``n_outputs``, or outputs whose φ(x_i, y) are not mutually
        orthogonal with equal norms (no closed-form exact step).
    """
    name = type(task).__name__
    if oracle.n_outputs is None:
        raise ValueError(
            f"{PURPOSE} needs a task whose examples all have the same few outputs: "
            f"{name}.compiled_oracle does not set n_outputs"
        )
    truths = np.ascontiguousarray(np.asarray(Y, dtype=np.int64).reshape(len(Y), -1)[:, 0])
    rows, shifts, row_starts, indices, values, losses, squared_norms, uneven = _output_rows(
        oracle.functions(("features", "loss")), oracle.data, oracle.n_outputs,
        task.size_joint_feature, truths, ORTHOGONALITY_TOLERANCE,
    )
    if uneven >= 0:
        raise ValueError(
            f"{PURPOSE} is exact in closed form only for outputs whose joint features are "
            f"mutually orthogonal with equal norms (as e_y ⊗ x); {name}'s example {uneven} "
            "has outputs that are not"
        )
    n, n_outputs = losses.shape
    rows, shifts = rows.reshape(n, n_outputs), shifts.reshape(n, n_outputs)
    bases = rows.min(axis=1)
    # An example's kind: its outputs' rows relative to its first, their shifts and its losses
    # (as bits), tabled once for the examples of the same kind.
    kinds, kind_of = _tabled(
        np.concatenate([rows - bases[:, None], shifts, losses.view(np.int64)], axis=1), truths
    )
    patterns = np.ascontiguousarray(kinds[:, : 2 * n_outputs])
    loss_table = np.ascontiguousarray(kinds[:, 2 * n_outputs :]).view(np.float64)
    examples = np.stack([bases, kind_of, truths], axis=1)
    data = (examples, squared_norms, patterns, loss_table, row_starts, indices, values)
    return DualBlocks(data, losses, truths)


@numba.njit(cache=True)
def _tabled(keys, truths):
    """Return a table of rows of ``keys`` and the row of the table that each row of keys is.

    A row of keys equal to the last one tabled for an example of the same true output takes its
    place in the table; any other is tabled anew.
    """
    n, width = keys.shape
    table = np.empty_like(keys)
    index = np.empty(n, dtype=np.int64)
    last = np.full(np.max(truths) + 1, -1, dtype=np.int64)
    m = 0
    for i in range(n):
        same = last[truths[i]]
        if same >= 0:
            for column in range(width):
                if keys[i, column] != table[same, column]:
                    same = -1
                    break
        if same < 0:
            copy_values(table[m], keys[i])
            last[truths[i]], same = m, m
            m += 1
        index[i] = same
    return table[:m].copy(), index


@numba.njit(cache=True)
def _grown(array, needed):
    """Return ``array`` or a copy with room for at least ``needed`` entries (doubling)."""
    if needed <= len(array):
        return array
    grown = np.empty(max(needed, 2 * len(array)), dtype=array.dtype)
    copy_values(grown, array)
    return grown


@numba.njit(cache=True)
def _stored(row_starts, indices, values, n_rows, row_indices, row_values):
    """Store the nonzero entries of a row as row ``n_rows``; return the (grown) arrays."""
    row_starts = _grown(row_starts, n_rows + 2)
    position = row_starts[n_rows]
    indices = _grown(indices, position + len(row_indices))
    values = _grown(values, position + len(row_indices))
    for p in range(len(row_indices)):
        if row_values[p] != 0.0:
            indices[position], values[position] = row_indices[p], row_values[p]
            position += 1
    row_starts[n_rows + 1] = position
    return row_starts, indices, values


@numba.njit(cache=True)
def _moved(indices, values, true_indices, true_values):
    """Return whether a row is the true row moved by a fixed number of columns, and by how many."""
    if len(indices) != len(true_indices):
        return False, 0
    shift = indices[0] - true_indices[0] if len(indices) else 0
    for p in range(len(indices)):
        if values[p] != true_values[p] or indices[p] - true_indices[p] != shift:
            return False, 0
    return True, shift


@numba.njit(cache=True)
def _squared_norm(values):
    """Return ``Σ_p values[p]²``, summed in order."""
    total = 0.0
    for value in values:
        total += value * value
    return total


@numba.njit(cache=True)
def _output_rows(fns, data, n_outputs, size, truths, tolerance):
    """Return every output's stored row and shift, the rows, the losses, the a_i, and the first
    uneven example (or -1).

    An example is uneven if its outputs are not mutually orthogonal with equal squared norms;
    outputs with disjoint supports are orthogonal, the inner products of the others are
    computed.
    """
    n = len(truths)
    rows = np.empty(n * n_outputs, dtype=np.int64)
    shifts = np.zeros(n * n_outputs, dtype=np.int64)
    losses = np.empty((n, n_outputs))
    squared_norms = np.empty(n)
    row_starts = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(0, dtype=np.int64)
    values = np.empty(0)
    n_rows = 0
    labels = np.empty(1, dtype=np.int64)
    # stamp[j] == i: column j is in the support of example i's output owner[j].
    stamp = np.full(size, -1, dtype=np.int64)
    owner = np.empty(size, dtype=np.int64)
    uneven = -1
    for i in range(n):
        truth = truths[i]
        labels[0] = truth
        true_indices, true_values = fns[2](data, i, labels)
        row_starts, indices, values = _stored(
            row_starts, indices, values, n_rows, true_indices, true_values
        )
        a = _squared_norm(true_values)
        squared_norms[i] = a
        true_row, n_rows = n_rows, n_rows + 1
        overlap = False
        for y in range(n_outputs):
            labels[0] = y
            losses[i, y] = fns[3](data, i, labels)
            row_indices, row_values = (
                (true_indices, true_values) if y == truth else fns[2](data, i, labels)
            )
            shared, shift = _moved(row_indices, row_values, true_indices, true_values)
            if shared:
                rows[i * n_outputs + y], shifts[i * n_outputs + y] = true_row, shift
            else:
                row_starts, indices, values = _stored(
                    row_starts, indices, values, n_rows, row_indices, row_values
                )
                rows[i * n_outputs + y], n_rows = n_rows, n_rows + 1
                if uneven < 0 and abs(_squared_norm(row_values) - a) > tolerance * a:
                    uneven = i
            for p in range(len(row_indices)):
                column = row_indices[p]
                if row_values[p] == 0.0:
                    continue
                if stamp[column] == i and owner[column] != y:
                    overlap = True
                stamp[column], owner[column] = i, y
        if uneven < 0 and overlap:
            if not _orthogonal(
                rows, shifts, row_starts, indices, values, i, n_outputs, size, tolerance * a
            ):
                uneven = i
    end = row_starts[n_rows]
    return (
        rows, shifts, row_starts[: n_rows + 1], indices[:end], values[:end], losses,
        squared_norms, uneven,
    )


@numba.njit(cache=True)
def _orthogonal(rows, shifts, row_starts, indices, values, i, n_outputs, size, tolerance):
    """Tell whether example i's outputs have inner products of at most ``tolerance``."""
    dense = np.zeros(size)
    for y in range(n_outputs):
        row, shift = rows[i * n_outputs + y], shifts[i * n_outputs + y]
        for p in range(row_starts[row], row_starts[row + 1]):
            dense[shift + indices[p]] = values[p]
        for other in range(y + 1, n_outputs):
            other_row, other_shift = rows[i * n_outputs + other], shifts[i * n_outputs + other]
            product = 0.0
            for p in range(row_starts[other_row], row_starts[other_row + 1]):
                product += dense[other_shift + indices[p]] * values[p]
            if abs(product) > tolerance:
                return False
        for p in range(row_starts[row], row_starts[row + 1]):
            dense[shift + indices[p]] = 0.0
    return True


@numba.njit(cache=True)
def _span(row_starts, base, relative_row, true_span):
    """Return the entries ``(begin, end)`` of row ``base + relative_row``: ``true_span``, those
    of row ``base``, read once per example, if ``relative_row`` is 0."""
    if relative_row == 0:
        return true_span
    return row_starts[base + relative_row], row_starts[base + relative_row + 1]


@numba.njit(cache=True)
def dual_block_pass(
    examples, squared_norms, patterns, loss_table, row_starts, indices, values,
    visits, C, beta, w, gaps, free,
):
    """Solve the block subproblems of ``visits`` in turn, exactly.

    The first arguments are :attr:`DualBlocks.data` (as arrays, which Numba's dispatcher
    types faster than a tuple of them); ``beta`` (n, K) and ``w`` are updated in place;
    ``gaps[k]`` receives the duality gap of block ``visits[k]`` before its step, over the
    outputs its step may move: those that ``free`` marks, the true output and those with
    β_i(y) > 0.
    """
    n_outputs = loss_table.shape[1]
    moving = np.empty(n_outputs, dtype=np.int64)
    linear = np.empty(n_outputs)
    thresholds = np.empty(n_outputs)
    order = np.empty(n_outputs, dtype=np.int64)
    for k in range(len(visits)):
        i = visits[k]
        base, kind, truth = examples[i, 0], examples[i, 1], examples[i, 2]
        a = squared_norms[i]
        # The row the true output's φ is stored in, which most outputs share.
        true_span = (row_starts[base], row_starts[base + 1])
        if a <= 0.0:
            # φ(x_i, y) = 0 for every y: the slack is the largest loss at any w.
            losses = loss_table[kind]
            gaps[k] = C * np.max(losses) - np.sum(beta[i] * losses)
            beta[i, :] = 0.0
            beta[i, np.argmax(losses)] = C
            continue
        m = 0
        for label in range(n_outputs):
            if free[i, label] or label == truth or beta[i, label] > 0.0:
                moving[m] = label
                m += 1
        # With g_y = Δ(y_i, y) + w · φ(x_i, y), the block's gap is C max_y g_y − Σ_y β_i(y) g_y.
        # α_i(y) = C [y = y_i] − β_i(y); b_y is the linear term of the subproblem in α_i.
        largest, weighted = -np.inf, 0.0
        for j in range(m):
            label = moving[j]
            begin, end = _span(row_starts, base, patterns[kind, label], true_span)
            shift = patterns[kind, n_outputs + label]
            score = 0.0
            for p in range(begin, end):
                score += values[p] * w[shift + indices[p]]
            gain = score + loss_table[kind, label]
            largest = max(largest, gain)
            weighted += beta[i, label] * gain
            alpha = (C if label == truth else 0.0) - beta[i, label]
            linear[j] = gain - a * alpha
            thresholds[j] = linear[j] + (a * C if label == truth else 0.0)
            # Insertion sort by decreasing threshold (no allocation for a few outputs).
            position = j
            while position > 0 and thresholds[order[position - 1]] < thresholds[j]:
                order[position] = order[position - 1]
                position -= 1
            order[position] = j
        gaps[k] = max(C * largest - weighted, 0.0)
        # θ solves Σ_y min(C [y = y_i], (θ − b_y) / a) = 0 over the moving outputs (the others
        # have α_i(y) = 0): with the thresholds d_y = b_y + a C [y = y_i] in decreasing order,
        # the top r outputs are below their bound at θ = (Σ_top d − a C) / r.
        total = thresholds[order[0]]
        theta = total - a * C
        r = 1
        while r < m and theta < thresholds[order[r]]:
            total += thresholds[order[r]]
            r += 1
            theta = (total - a * C) / r
        for j in range(m):
            label = moving[j]
            bound = C if label == truth else 0.0
            alpha_new = min(bound, (theta - linear[j]) / a)
            change = (bound - alpha_new) - beta[i, label]
            if change == 0.0:
                continue
            beta[i, label] = bound - alpha_new
            if label != truth:
                # w = Σ β_i(y) (φ(x_i, y_i) − φ(x_i, y)): w loses change · φ(x_i, y) and gains
                # change · φ(x_i, y_i) (ψ_i(y_i) = 0).
                begin, end = _span(row_starts, base, patterns[kind, label], true_span)
                shift = patterns[kind, n_outputs + label]
                for p in range(begin, end):
                    w[shift + indices[p]] -= change * values[p]
                for p in range(true_span[0], true_span[1]):
                    w[indices[p]] += change * values[p]
