"""BCFW's compiled passes, written once on the compiled oracle (:class:`structsvm.CompiledOracle`).

A pass of :func:`structsvm.solvers._bcfw.bcfw` on a task that offers a compiled oracle is one
call of :func:`bcfw_pass`: for every visit it decodes example i with the loss-augmented oracle
at the current w, builds φ(x_i, ŷ) and Δ(y_i, ŷ) with the oracle's functions, and takes the
step of :mod:`structsvm.solvers._bcfw_steps` that the Python loop takes (a Frank–Wolfe step,
or a pairwise step with active sets, whose labellings keep their loss and sparse φ), so the
iterates are the Python loop's up to rounding. The duality gap after a pass is evaluated by
:func:`bcfw_slacks`, on Numba's threads, one example per iteration, so its slacks are the same
bits on any number of threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import LOGGER, CompiledOracle, find_compiled_oracle
from structsvm._task import Task
from structsvm._utils.parallel import compiled_threads
from structsvm.solvers._bcfw_active_sets import NO_ACTIVE_SETS, ActiveSets
from structsvm.solvers._bcfw_steps import pairwise_visit, visit_block
from structsvm.solvers._example_oracle import (
    NO_TABLE,
    decode_keeping_scores,
    labelling_value,
    sparse_dot,
)


@numba.njit(cache=True)
def labelling_scores(fns, data, i, w, part_scores, atoms, labels):
    """Return the scores ``Δ(y_i, y_k) + w · φ(x_i, y_k)`` of block i's active labellings.

    As the Python loop scores them, from the loss that ``atoms`` keeps (see
    :func:`~structsvm.solvers._bcfw_steps.pairwise_visit`) and, by
    :func:`~structsvm.solvers._example_oracle.labelling_value`, from example i's
    ``part_scores`` at w where the task offers ``labelling_score``, else from the sparse φ that
    ``atoms`` keeps. ``labels`` is an int64 workspace as long as the longest block's labels.
    """
    positions, stored, weights, counts, losses, starts, lengths, pool_indices, pool_values, _ = (
        atoms
    )
    slots = weights.shape[1]
    scores = np.empty(counts[i])
    for k in range(counts[i]):
        begin = starts[i * slots + k]
        end = begin + lengths[i * slots + k]
        size = positions[i + 1] - positions[i]
        labels[:size] = stored[k, positions[i] : positions[i + 1]]
        scores[k] = losses[i, k] + labelling_value(
            fns, data, i, w, part_scores, labels[:size], pool_indices[begin:end],
            pool_values[begin:end],
        )
    return scores


@numba.njit(cache=True)
def _hat_slot(atoms, i, labels):
    """Return the slot of block i's active labelling equal to ``labels``, or the block's count."""
    positions, stored, counts = atoms[0], atoms[1], atoms[3]
    for k in range(counts[i]):
        same = True
        for t in range(len(labels)):
            if stored[k, positions[i] + t] != labels[t]:
                same = False
                break
        if same:
            return k
    return counts[i]


@numba.njit(cache=True)
def _storable(labels, stored):
    """Tell whether every label keeps its value in an array of ``stored``'s integer type."""
    probe = np.empty_like(stored[0, :1])
    for t in range(len(labels)):
        probe[0] = labels[t]
        if probe[0] != labels[t]:
            return False
    return True


@numba.njit(cache=True)
def bcfw_pass(fns, data, visits, problem, dual, atoms, keep):
    """Take the BCFW steps of ``visits`` in turn, through the compiled oracle.

    Parameters
    ----------
    fns : tuple
        The oracle's functions, :meth:`structsvm.CompiledOracle.functions`.
    data : tuple
        The oracle's data.
    visits : ndarray of int64
        The blocks to step on, in order.
    problem, dual : tuple
        As for :func:`~structsvm.solvers._bcfw_steps.visit_block`; ``dual`` is updated in
        place.
    atoms : tuple
        The active sets of
        :meth:`structsvm.solvers._bcfw_active_sets.ActiveSets.compiled_arrays` (block i's
        labelling in slot k is ``labels[k, positions[i]:positions[i + 1]]``, its labels
        ``np.ravel(y)``, kept with its loss and sparse φ), for pairwise steps
        (:func:`~structsvm.solvers._bcfw_steps.pairwise_visit`); empty arrays
        (:data:`~structsvm.solvers._bcfw_active_sets.NO_ACTIVE_SETS`) for Frank–Wolfe steps.
    keep : bool
        Whether the oracle offers ``labelling_score``
        (:attr:`structsvm.CompiledOracle.offers_labelling_score`): pairwise steps then keep
        the part scores to score the labellings from.

    Returns
    -------
    dual, atoms : tuple
        As given, with the pool arrays the steps ended with.
    taken : int
        The visits taken: all of them, unless the oracle answered a labelling that ``labels``'
        integer type cannot hold, which stops the pass before that visit's step.
    """
    pairwise = len(atoms[3]) > 0
    no_table, no_offsets = np.zeros((0, 0)), np.zeros(0, dtype=np.int64)
    positions = atoms[0]
    longest = 0
    for block in range(len(positions) - 1):
        longest = max(longest, positions[block + 1] - positions[block])
    stored_labels = np.empty(longest, dtype=np.int64)
    for k in range(len(visits)):
        i = visits[k]
        w = dual[6]
        labels, part_scores = decode_keeping_scores(
            fns, data, i, w, no_table, no_offsets, True, keep and pairwise
        )
        hat_indices, hat_values = fns[2](data, i, labels)
        loss = fns[3](data, i, labels)
        if not pairwise:
            dual, _ = visit_block(i, hat_indices, hat_values, loss, 1.0, problem, dual)
            continue
        if not _storable(labels, atoms[1]):
            return dual, atoms, k
        hat_score = loss + labelling_value(
            fns, data, i, w, part_scores, labels, hat_indices, hat_values
        )
        dual, atoms, _, _ = pairwise_visit(
            i,
            _hat_slot(atoms, i, labels),
            (labels, hat_indices, hat_values, loss, hat_score),
            labelling_scores(fns, data, i, w, part_scores, atoms, stored_labels),
            problem,
            dual,
            atoms,
        )
    return dual, atoms, len(visits)


@numba.njit(cache=True, parallel=True)
def bcfw_slacks(fns, data, w, true_scores, table, offsets, keep, slacks):
    """Set ``slacks[i]`` to the slack ``max(0, Δ(y_i, ŷ) − w · (φ(x_i, y_i) − φ(x_i, ŷ)))``.

    ŷ is example i's loss-augmented output at ``w`` and ``true_scores[i] = w · φ(x_i, y_i)``;
    ``table`` and ``offsets`` are a :class:`~structsvm.ScoreTable` at ``w`` or
    :data:`~structsvm.solvers._example_oracle.NO_TABLE`, and ``keep`` whether the oracle
    offers ``labelling_score`` (φ(x_i, ŷ) is formed only if not). Examples are shared among
    Numba's threads; each slack is computed by one thread, the same on any number of them.
    """
    for i in numba.prange(len(true_scores)):
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
        self.oracle, self.functions = oracle, oracle.functions()
        self.true_rows, self.n_jobs = true_rows, n_jobs

    @classmethod
    def prepare(
        cls,
        task: Task,
        X: Sequence[Any],
        Y: Sequence[Any],
        true_rows: sp.csr_matrix,
        *,
        n_jobs: int | None,
        compiled: bool | None,
        options: dict[str, Any],
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
        covered = (
            options["rescaling"] == "margin"
            and options["slack_norm"] == 1
            and options["cache_size"] == 0
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

    def steps(
        self, visits: np.ndarray, problem: tuple, dual: tuple, active_sets: ActiveSets | None
    ) -> tuple:
        """Take the steps of ``visits`` in one call of :func:`bcfw_pass`; return ``dual``.

        ``problem`` and ``dual`` are as for :func:`~structsvm.solvers._bcfw_steps.visit_block`,
        ``dual`` returned with the pool arrays the steps ended with; the steps are pairwise on
        ``active_sets`` if given (whose labels are widened, and the pass resumed, if the
        oracle answers a label their type cannot hold).
        """
        taken = 0
        while True:
            atoms = NO_ACTIVE_SETS if active_sets is None else active_sets.compiled_arrays()
            dual, atoms, done = bcfw_pass(
                self.functions, self.oracle.data, visits[taken:], problem, dual, atoms,
                self.oracle.offers_labelling_score,
            )
            if active_sets is not None:
                active_sets.take_pool(atoms)
            taken += done
            if taken == len(visits):
                return dual
            active_sets.widen_labels()

    def slacks(self, w: np.ndarray) -> np.ndarray:
        """Return every example's slack ``ξ_i(w)``, on ``n_jobs`` of Numba's threads."""
        oracle = self.oracle
        slacks = np.empty(oracle.n_examples)
        with compiled_threads(self.n_jobs):
            table = NO_TABLE if oracle.batch_scores is None else oracle.batch_scores(oracle.data, w)
            true_scores = np.asarray(self.true_rows @ w, dtype=np.float64)
            bcfw_slacks(
                self.functions, oracle.data, w, true_scores, *table,
                oracle.offers_labelling_score, slacks,
            )
        return slacks
