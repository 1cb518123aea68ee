"""Decomposition of the n-slack working-set QP into sub-QPs over blocks of examples.

The n-slack dual has one simplex ``Σ_{k ∈ S_i} α_k <= C`` per example, so it can be improved a
block of examples at a time, the other examples' α fixed: with ``w_rest`` their part of ``w``,
the block's sub-QP has the offsets ``Δ_k − ψ_k · w_rest``. α stays feasible, so the dual stays a
certified lower bound. The duality gap splits over the examples (:func:`example_gaps`); those
with a positive gap are cut into blocks in a fresh random order every iteration, the largest gap
first, in a block solved at the weights the oracle saw, so each iteration gains at least a
block-coordinate Frank–Wolfe step on it and the loop converges. The block bound doubles
whenever the gap has not halved for a while: in the limit one block holds the working set.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from structsvm.solvers._objective import L1_SLACKS, SlackPenalty
from structsvm.solvers._oracle import OraclePass
from structsvm.solvers._working_set import WorkingSet


def example_gaps(
    working_set: WorkingSet,
    w: np.ndarray,
    slacks: np.ndarray,
    C: float,
    penalty: SlackPenalty = L1_SLACKS,
) -> np.ndarray:
    """Return every example's share of the duality gap at ``w = Σ α_k ψ_k`` (α feasible).

    ``slacks`` are the oracle's ξ_i(w); the shares, ``C ξ_i(w) − Σ_{k ∈ S_i} α_k (Δ_k − ψ_k ·
    w)`` for L1 slacks (:meth:`~structsvm.solvers._objective.SlackPenalty.group_gaps`), sum to
    ``P(w) − D(α)``.
    """
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
    """Split examples, in the given order, into blocks of at most ``max_constraints`` constraints.

    A block holds consecutive examples of ``examples``; an example with more constraints than
    the bound makes a block on its own and examples without constraints are skipped. Yields
    the constraint indices of each block.
    """
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
    working_set: WorkingSet,
    rows: np.ndarray,
    w: np.ndarray,
    C: float,
    tol: float,
    penalty: SlackPenalty = L1_SLACKS,
) -> np.ndarray:
    """Solve the sub-QP over the constraints ``rows`` with the other α fixed; return the new w.

    The sub-solution replaces the block's α unless it lowers the block's dual objective by more
    than ``tol`` relative, the accuracy of the interior-point solve. Near the optimum the gain
    is quadratic in the block's gap and below that accuracy, so a stricter rule would keep the
    old α and stall.
    """
    vectors = working_set.vectors[rows]
    alpha = working_set.alpha[rows]
    own = np.asarray(vectors.T @ alpha).ravel()
    offsets = working_set.offsets[rows] - np.asarray(vectors @ (w - own)).ravel()
    gram = working_set.gram_of(rows)
    groups = working_set.groups[rows]
    solution = penalty.solve(
        gram, offsets, groups, C, vectors=vectors, tol=tol, initial_alpha=alpha
    )
    current = penalty.dual(
        offsets @ alpha, alpha @ gram @ alpha, np.bincount(groups, weights=alpha), C
    )
    if solution.objective < current - tol * max(1.0, abs(current)):
        return w
    working_set.alpha[rows] = solution.alpha
    return w - own + np.asarray(vectors.T @ solution.alpha).ravel()


@dataclass
class BlockDecomposition:
    """Improve the n-slack dual by sub-QPs over random blocks of the examples with a gap.

    Parameters
    ----------
    max_block_constraints : int, default=150
        Most constraints in one sub-QP (an example with more makes a block on its own); doubled
        whenever the duality gap stalls.
    stall_iterations : int, default=20
        Iterations without the duality gap halving after which the block bound doubles.
    tol : float, default=1e-9
        Tolerance of the interior-point solves.
    rng : numpy.random.Generator, default=numpy.random.default_rng(0)
        Source of the block orders.
    penalty : SlackPenalty, default=L1_SLACKS
        How the slacks are penalised (L1 by default).
    """

    max_block_constraints: int = 150
    stall_iterations: int = 20
    tol: float = 1e-9
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    penalty: SlackPenalty = L1_SLACKS
    keeps_gram: ClassVar[bool] = False  # sub-QPs compute their own Gram matrices
    _best_gap: float = field(default=np.inf, init=False)
    _stalled_for: int = field(default=0, init=False)

    def _grow_blocks_if_stalled(self, gap: float) -> None:
        """Double the block bound after ``stall_iterations`` calls without the gap halving."""
        if gap <= 0.5 * self._best_gap:
            self._best_gap, self._stalled_for = gap, 0
            return
        self._stalled_for += 1
        if self._stalled_for >= self.stall_iterations:
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
            w = optimise_block(working_set, rows, w, C, self.tol, self.penalty)
