"""Decomposition of the n-slack working-set QP into sub-QPs over blocks of examples.

The dual has one simplex per example, so a block of examples is improved with the others' α
fixed (offsets ``Δ_k − ψ_k · w_rest``), α staying feasible. The examples with a positive share of
the gap are cut into random blocks, the largest gap first (at least a block-coordinate
Frank–Wolfe step per iteration, so the loop converges); the block bound doubles whenever the
gap stalls.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from structsvm.solvers._objective import L1_SLACKS, SlackPenalty
from structsvm.solvers._oracle import OraclePass
from structsvm.solvers._working_set import WorkingSet

#: Iterations without the duality gap halving after which the block bound doubles.
STALL_ITERATIONS = 20

#: Tolerance of the interior-point sub-QP solves.
QP_TOL = 1e-9


def example_gaps(
    working_set: WorkingSet, w: np.ndarray, slacks: np.ndarray, C: float,
    penalty: SlackPenalty = L1_SLACKS,
) -> np.ndarray:
    """Return every example's share of ``P(w) − D(α)`` at ``w = Σ α_k ψ_k``, given ξ_i(w)
    (:meth:`~structsvm.solvers._objective.SlackPenalty.group_gaps`)."""
    n = len(slacks)
    weighted = working_set.alpha * working_set.violations(w)
    return penalty.group_gaps(
        slacks,
        np.bincount(working_set.groups, weights=working_set.alpha, minlength=n),
        np.bincount(working_set.groups, weights=weighted, minlength=n),
        C,
    )


def example_blocks(
    groups: np.ndarray, examples: np.ndarray, max_constraints: int
) -> Iterator[np.ndarray]:
    """Yield the constraint indices of consecutive ``examples`` in blocks of at most
    ``max_constraints`` (an example with more is a block of its own; one with none is skipped)."""
    order = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[order], [examples, examples + 1])
    block: list[np.ndarray] = []
    size = 0
    for begin, end in zip(*bounds, strict=True):
        if begin == end:
            continue
        if block and size + end - begin > max_constraints:
            yield np.concatenate(block)
            block, size = [], 0
        block.append(order[begin:end])
        size += end - begin
    if block:
        yield np.concatenate(block)


def optimise_block(
    working_set: WorkingSet, rows: np.ndarray, w: np.ndarray, C: float, penalty: SlackPenalty
) -> np.ndarray:
    """Solve the sub-QP over the constraints ``rows`` with the other α fixed; return the new w.

    The sub-solution replaces the block's α unless it lowers the block's dual objective by more
    than :data:`QP_TOL` relative (the solve's accuracy: a stricter rule would stall).
    """
    vectors = working_set.vectors[rows]
    alpha = working_set.alpha[rows]
    own = np.asarray(vectors.T @ alpha).ravel()
    offsets = working_set.offsets[rows] - np.asarray(vectors @ (w - own)).ravel()
    gram = working_set.gram_of(rows)
    groups = working_set.groups[rows]
    solution = penalty.solve(
        gram, offsets, groups, C, vectors=vectors, tol=QP_TOL, initial_alpha=alpha
    )
    current = penalty.dual(
        offsets @ alpha, alpha @ gram @ alpha, np.bincount(groups, weights=alpha), C
    )
    if solution.objective < current - QP_TOL * max(1.0, abs(current)):
        return w
    working_set.alpha[rows] = solution.alpha
    return w - own + np.asarray(vectors.T @ solution.alpha).ravel()


@dataclass
class BlockDecomposition:
    """Improve the n-slack dual by sub-QPs over random blocks of the examples with a gap.

    Parameters
    ----------
    max_block_constraints : int
        Most constraints in one sub-QP; doubled after :data:`STALL_ITERATIONS` calls without
        the duality gap halving.
    penalty : SlackPenalty
        How the slacks are penalised.
    """

    max_block_constraints: int
    penalty: SlackPenalty
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    keeps_gram: ClassVar[bool] = False  # sub-QPs compute their own Gram matrices
    _best_gap: float = field(default=np.inf, init=False)
    _stalled_for: int = field(default=0, init=False)

    def _grow_blocks_if_stalled(self, gap: float) -> None:
        if gap <= 0.5 * self._best_gap:
            self._best_gap, self._stalled_for = gap, 0
            return
        self._stalled_for += 1
        if self._stalled_for >= STALL_ITERATIONS:
            self.max_block_constraints *= 2
            self._best_gap, self._stalled_for = gap, 0

    def solves_whole_working_set(self, working_set: WorkingSet) -> bool:
        """Tell whether one block holds the whole working set."""
        return len(working_set) <= self.max_block_constraints

    def optimise(self, working_set: WorkingSet, C: float, oracle: OraclePass) -> None:
        """Solve the sub-QPs of the examples with a positive gap, one random block after another."""
        w = working_set.weights()
        gaps = example_gaps(working_set, w, oracle.slacks, C, self.penalty)
        self._grow_blocks_if_stalled(float(gaps.sum()))
        chosen = np.flatnonzero(gaps > 0)
        if len(chosen) == 0:
            return
        chosen = self.rng.permutation(chosen)
        largest = np.argmax(gaps[chosen])
        chosen[[0, largest]] = chosen[[largest, 0]]
        for rows in example_blocks(working_set.groups, chosen, self.max_block_constraints):
            w = optimise_block(working_set, rows, w, C, self.penalty)
