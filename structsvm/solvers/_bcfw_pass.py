"""BCFW's compiled passes on a compiled oracle (:class:`structsvm.CompiledOracle`): each visit
decodes with the oracle and takes the step of :mod:`structsvm.solvers._bcfw_steps` that the
Python loop takes; the duality gap is evaluated on threads, the same bits on any number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import LOGGER, CompiledOracle, find_compiled_oracle
from structsvm._task import Task
from structsvm._utils.parallel import compiled_threads, run_in_parts
from structsvm.solvers._bcfw_active_sets import ActiveSets
from structsvm.solvers._bcfw_steps import BlockDual, pairwise_visit, visit_block
from structsvm.solvers._compiled_arrays import copy_values, same_labels
from structsvm.solvers._example_oracle import (
    NO_TABLE,
    decode_keeping_scores,
    labelling_value,
    sparse_dot,
)


@numba.njit(cache=True)
def labelling_scores(fns, data, i, w, part_scores, atoms, labels):
    """Return the scores ``Δ(y_i, y_k) + w · φ(x_i, y_k)`` of block i's active labellings.

    As the Python loop scores them, by
    :func:`~structsvm.solvers._example_oracle.labelling_value` from example i's ``part_scores``
    at w or the labelling's sparse φ; ``labels`` is an int64 workspace for the longest block.
    """
    slots = atoms.weights.shape[1]
    first, size = atoms.positions[i], atoms.positions[i + 1] - atoms.positions[i]
    scores = np.empty(atoms.counts[i])
    for k in range(atoms.counts[i]):
        begin = atoms.starts[i * slots + k]
        end = begin + atoms.lengths[i * slots + k]
        copy_values(labels, atoms.labels[k, first : first + size])
        scores[k] = atoms.losses[i, k] + labelling_value(
            fns, data, i, w, part_scores, labels[:size], atoms.pool_indices[begin:end],
            atoms.pool_values[begin:end],
        )
    return scores


@numba.njit(cache=True)
def _hat_slot(atoms, i, labels):
    """Return the slot of block i's active labelling equal to ``labels``, or the block's count."""
    first = atoms.positions[i]
    for k in range(atoms.counts[i]):
        if same_labels(atoms.labels[k, first : first + len(labels)], labels):
            return k
    return atoms.counts[i]


@numba.njit(cache=True)
def frank_wolfe_pass(fns, data, visits, dual):
    """Take the Frank–Wolfe steps of ``visits`` in turn through the compiled oracle.

    ``fns`` and ``data`` are the oracle's functions and data; ``dual`` is updated in place.
    """
    no_table, no_offsets = np.zeros((0, 0)), np.zeros(0, dtype=np.int64)
    for k in range(len(visits)):
        i = visits[k]
        labels, _ = decode_keeping_scores(fns, data, i, dual.w, no_table, no_offsets, True, False)
        hat_indices, hat_values = fns[2](data, i, labels)
        visit_block(i, hat_indices, hat_values, fns[3](data, i, labels), 1.0, dual)


@numba.njit(cache=True)
def pairwise_pass(fns, data, visits, dual, atoms, keep):
    """Take the pairwise steps of ``visits`` in turn through the compiled oracle; return how
    many.

    As :func:`frank_wolfe_pass`, on the active labellings ``atoms``, updated in place too
    (a pass of its own, so that Frank–Wolfe steps never compile the pairwise ones); ``keep``
    tells whether the oracle offers ``labelling_score``. The pass stops before a visit whose
    labelling ``atoms.labels``' integer type cannot hold.
    """
    no_table, no_offsets = np.zeros((0, 0)), np.zeros(0, dtype=np.int64)
    widest = 0  # the longest block's labels, by a loop (see _compiled_arrays for np.diff's cost)
    for i in range(len(atoms.positions) - 1):
        widest = max(widest, atoms.positions[i + 1] - atoms.positions[i])
    stored_labels = np.empty(widest, np.int64)
    for k in range(len(visits)):
        i = visits[k]
        labels, part_scores = decode_keeping_scores(
            fns, data, i, dual.w, no_table, no_offsets, True, keep
        )
        hat_indices, hat_values = fns[2](data, i, labels)
        loss = fns[3](data, i, labels)
        if not np.all(labels.astype(atoms.labels.dtype) == labels):
            return k  # a label that the stored labels' integer type cannot hold
        hat_score = loss + labelling_value(
            fns, data, i, dual.w, part_scores, labels, hat_indices, hat_values
        )
        scores = labelling_scores(fns, data, i, dual.w, part_scores, atoms, stored_labels)
        pairwise_visit(
            i, _hat_slot(atoms, i, labels), labels, hat_indices, hat_values, loss, hat_score,
            scores, dual, atoms,
        )
    return len(visits)


@numba.njit(cache=True, nogil=True)
def bcfw_slacks(fns, data, w, true_scores, table, offsets, keep, first, stop, slacks):
    """Set ``slacks[i]`` of examples ``first:stop`` to the slack ``max(0, Δ(y_i, ŷ) − w ·
    (φ(x_i, y_i) − φ(x_i, ŷ)))``.

    ŷ is example i's loss-augmented output at ``w`` and ``true_scores[i] = w · φ(x_i, y_i)``;
    ``table`` and ``offsets`` are a :class:`~structsvm.ScoreTable` at ``w`` or
    :data:`~structsvm.solvers._example_oracle.NO_TABLE`, and ``keep`` whether the oracle
    offers ``labelling_score`` (φ(x_i, ŷ) is formed only if not). Releases the GIL, so that
    runs of examples go on threads; each slack is the same whatever the runs.
    """
    for i in range(first, stop):
        labels, scores = decode_keeping_scores(fns, data, i, w, table, offsets, True, keep)
        hat_score = fns[4](data, i, w, scores, labels)
        if np.isnan(hat_score):
            indices, values = fns[2](data, i, labels)
            hat_score = sparse_dot(w, indices, values)
        slacks[i] = max(fns[3](data, i, labels) - (true_scores[i] - hat_score), 0.0)


class CompiledPasses:
    """BCFW's passes over a training set through its task's compiled oracle.

    Build it with :meth:`prepare`, which returns None when the passes run in Python.

    Parameters
    ----------
    oracle : CompiledOracle
        What :meth:`structsvm.Task.compiled_oracle` returned for the training set.
    true_rows : csr_matrix
        The rows φ(x_i, y_i).
    n_jobs : int or None
        Numba's threads of the slacks' evaluation
        (:func:`~structsvm._utils.parallel.compiled_threads`); the steps are sequential.
    """

    def __init__(
        self, oracle: CompiledOracle, true_rows: sp.csr_matrix, n_jobs: int | None
    ) -> None:
        self.oracle = oracle
        self.functions = oracle.functions(
            ("scores", "decode", "features", "loss", "labelling_score")
        )
        self.true_rows, self.n_jobs = true_rows, n_jobs

    @classmethod
    def prepare(
        cls, task: Task, X: Sequence[Any], Y: Sequence[Any], true_rows: sp.csr_matrix, *,
        n_jobs: int | None, compiled: bool | None, **options: Any,
    ) -> CompiledPasses | None:
        """Return the compiled passes for BCFW's ``options``, or None for the Python loop.

        ``options`` are BCFW's ``rescaling``, ``slack_norm``, ``cache_size`` and ``step``:
        the compiled pass takes margin rescaling with L1 slacks and no cache. ``compiled`` is
        read as by :func:`~structsvm._compiled_oracle.find_compiled_oracle`: True raises
        ValueError if the options or the task rule the compiled pass out.
        """
        purpose = "BCFW ({})".format(
            ", ".join(f"{name}={value!r}" for name, value in options.items())
        )
        covered = (options["rescaling"], options["slack_norm"], options["cache_size"]) == (
            "margin", 1, 0
        )
        if not covered and compiled is not False:
            message = (
                f"{purpose}: the compiled pass takes rescaling='margin', slack_norm=1 and "
                "cache_size=0 only, so the passes call the task's Python methods"
            )
            if compiled:
                raise ValueError(f"compiled=True cannot be met. {message}")
            LOGGER.info(message)
            return None
        oracle = find_compiled_oracle(task, X, Y, compiled=compiled, purpose=purpose)
        return None if oracle is None else cls(oracle, true_rows, n_jobs)

    def steps(self, visits: np.ndarray, dual: BlockDual, active_sets: ActiveSets | None) -> None:
        """Take the steps of ``visits`` on ``dual``: Frank–Wolfe steps by
        :func:`frank_wolfe_pass`, or pairwise ones on ``active_sets`` by :func:`pairwise_pass`
        (whose labels are widened, and the pass resumed, if the oracle answers a label their
        type cannot hold)."""
        if active_sets is None:
            frank_wolfe_pass(self.functions, self.oracle.data, visits, dual)
            return
        taken = 0
        while True:
            atoms = active_sets.as_atoms()
            taken += pairwise_pass(
                self.functions, self.oracle.data, visits[taken:], dual, atoms,
                self.oracle.offers_labelling_score,
            )
            active_sets.features.take(atoms)
            if taken == len(visits):
                return
            active_sets.widen_labels()

    def slacks(self, w: np.ndarray) -> np.ndarray:
        """Return every example's slack ``ξ_i(w)``, on ``n_jobs`` threads (:func:`bcfw_slacks`
        on runs of examples, :func:`~structsvm._utils.parallel.run_in_parts`)."""
        oracle = self.oracle
        slacks = np.empty(oracle.n_examples)
        with compiled_threads(self.n_jobs):
            table = NO_TABLE if oracle.batch_scores is None else oracle.batch_scores(oracle.data, w)
            true_scores = np.asarray(self.true_rows @ w, dtype=np.float64)

            def run(first: int, stop: int) -> None:
                bcfw_slacks(
                    self.functions, oracle.data, w, true_scores, *table,
                    oracle.offers_labelling_score, first, stop, slacks,
                )

            run_in_parts(run, oracle.n_examples)
        return slacks
