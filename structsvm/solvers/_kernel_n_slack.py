"""The n-slack cutting-plane structural SVM with a joint kernel (Tsochantaridis et al., JMLR 2005).

The algorithm of :mod:`structsvm.solvers._n_slack`, with the weights kept as the kernel expansion
``w = Σ_k α_k ψ_k`` over the working set instead of a vector. Each iteration

1. calls the loss-augmented oracle on every example through the expansion
   (:meth:`JointKernelProblem.loss_augmented_pass`), which gives the exact primal objective
   ``P = ½ αᵀGα + C Σ_i ξ_i`` with G the Gram matrix of the working set;
2. stops if the duality gap ``P − D(α)`` is at most ``tol · P``;
3. adds, for every example, its most violated output unless the working set already allows the
   example's slack;
4. extends G by the joint-kernel products of the new constraints and solves the dual QP with
   :func:`structsvm.qp.solve_simplex_dual` (which needs only G);
5. drops constraints whose dual variable stayed zero for ``inactive_window`` solves.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from structsvm.qp._simplex_dual import solve_simplex_dual
from structsvm.solvers._cutting_plane import output_key
from structsvm.solvers._history import iteration_record, stalled
from structsvm.solvers._joint_kernel import Constraints, JointKernelPass, JointKernelProblem
from structsvm.solvers._working_set import prune_inactive


class KernelWorkingSet:
    """Constraints ``(i_k, ȳ_k)`` with their joint-kernel Gram matrix and dual variables.

    The Gram matrix ``G_kl = ⟨ψ_k, ψ_l⟩`` is extended when constraints arrive and shrunk when they
    leave, never recomputed from scratch.

    Parameters
    ----------
    problem : JointKernelProblem
        The training set whose constraints are collected.
    """

    def __init__(self, problem: JointKernelProblem) -> None:
        self.problem = problem
        self.constraints = Constraints(examples=np.zeros(0, dtype=np.int64), outputs=[])
        self.offsets = np.zeros(0)
        self.gram = np.zeros((0, 0))
        self.alpha = np.zeros(0)
        self.idle = np.zeros(0, dtype=np.int64)
        self._keys: list[tuple[int, bytes]] = []
        self._key_set: set[tuple[int, bytes]] = set()

    def __len__(self) -> int:
        return len(self.offsets)

    def __contains__(self, key: tuple[int, bytes]) -> bool:
        return key in self._key_set

    def add(self, new: Constraints, offsets: np.ndarray, keys: Sequence[tuple[int, bytes]]) -> None:
        """Append constraints with losses ``offsets``, extending the Gram matrix."""
        cross = self.problem.constraint_gram(new, self.constraints)
        own = self.problem.constraint_gram(new, new)
        self.gram = np.block([[self.gram, cross.T], [cross, own]])
        self.constraints = Constraints(
            examples=np.concatenate([self.constraints.examples, new.examples]),
            outputs=[*self.constraints.outputs, *new.outputs],
        )
        self.offsets = np.concatenate([self.offsets, offsets])
        self.alpha = np.concatenate([self.alpha, np.zeros(len(new))])
        self.idle = np.concatenate([self.idle, np.zeros(len(new), dtype=np.int64)])
        self._keys.extend(keys)
        self._key_set.update(keys)

    def keep(self, mask: np.ndarray) -> None:
        """Keep only the constraints where ``mask`` is true."""
        self.constraints = Constraints(
            examples=self.constraints.examples[mask],
            outputs=[y for y, kept in zip(self.constraints.outputs, mask, strict=True) if kept],
        )
        self._keys = [key for key, kept in zip(self._keys, mask, strict=True) if kept]
        self._key_set = set(self._keys)
        self.offsets = self.offsets[mask]
        self.gram = self.gram[np.ix_(mask, mask)]
        self.alpha = self.alpha[mask]
        self.idle = self.idle[mask]

    def squared_norm(self) -> float:
        """Return ``‖w‖² = αᵀGα``."""
        return float(self.alpha @ self.gram @ self.alpha)

    def dual_objective(self) -> float:
        """Return ``Σ α_k Δ_k − ½ αᵀGα``."""
        return float(self.offsets @ self.alpha - 0.5 * self.squared_norm())

    def allowed_slacks(self) -> np.ndarray:
        """Return, per example, the smallest slack that satisfies its constraints at w."""
        violations = self.offsets - self.gram @ self.alpha
        slacks = np.zeros(self.problem.n_examples)
        np.maximum.at(slacks, self.constraints.examples, violations)
        return slacks


@dataclass
class KernelSolverState:
    """The state of the kernel n-slack solver after an iteration.

    Attributes
    ----------
    working_set : KernelWorkingSet
        Constraints with their dual variables α; ``w = Σ_k α_k ψ_k``.
    history : list of dict
        One record per iteration: ``iteration``, ``primal``, ``dual``, ``gap``,
        ``relative_gap``, ``n_constraints``, ``oracle_calls``, ``qp_time``, ``time``.
    converged : bool
        Whether the relative duality gap reached ``tol``.
    """

    working_set: KernelWorkingSet
    history: list[dict[str, float]] = field(default_factory=list)
    converged: bool = False


def _most_violated(oracle: JointKernelPass, working_set: KernelWorkingSet) -> np.ndarray:
    """Return the examples whose oracle output is violated more than the working set allows."""
    allowed = working_set.allowed_slacks()
    return np.flatnonzero(oracle.slacks > allowed + 1e-12 * (1.0 + allowed))


def _add_violated(oracle: JointKernelPass, working_set: KernelWorkingSet) -> int:
    """Add every example's most violated output not in the working set yet; return how many."""
    violated = _most_violated(oracle, working_set)
    keys = [(int(i), output_key(oracle.outputs[i])) for i in violated]
    fresh = [k for k, key in enumerate(keys) if key not in working_set]
    chosen = violated[fresh]
    working_set.add(
        Constraints(examples=chosen.astype(np.int64), outputs=[oracle.outputs[i] for i in chosen]),
        oracle.losses[chosen],
        [keys[k] for k in fresh],
    )
    return len(chosen)


def kernel_n_slack(
    problem: JointKernelProblem,
    C: float,
    *,
    tol: float = 1e-3,
    max_iter: int = 200,
    inactive_window: int = 1,
    qp_tol: float = 1e-9,
) -> Iterator[KernelSolverState]:
    """Train a structural SVM with a joint kernel by the n-slack cutting-plane algorithm.

    Parameters
    ----------
    problem : JointKernelProblem
        The training set, seen through its joint kernel.
    C : float
        Weight of the summed slacks in ``½‖w‖² + C Σ ξ_i``.
    tol : float, default=1e-3
        Stop when the duality gap is at most ``tol`` times the primal objective.
    max_iter : int, default=200
        Most QP solves.
    inactive_window : int, default=1
        Drop a constraint whose dual variable stayed zero for this many solves.
    qp_tol : float, default=1e-9
        Tolerance of each working-set QP.

    Yields
    ------
    KernelSolverState
        The state after each iteration; iteration 0 evaluates ``w = 0``.
    """
    working_set = KernelWorkingSet(problem)
    state = KernelSolverState(working_set=working_set)
    dual = 0.0
    oracle_calls = 0
    qp_time = 0.0
    start = time.perf_counter()
    oracle: JointKernelPass | None = None
    added: int | None = None
    for iteration in range(max_iter + 1):
        if oracle is not None:
            added = _add_violated(oracle, working_set)
            if len(working_set) == 0:
                break
            qp_start = time.perf_counter()
            solution = solve_simplex_dual(
                working_set.gram,
                working_set.offsets,
                working_set.constraints.examples,
                C,
                tol=qp_tol,
            )
            qp_time += time.perf_counter() - qp_start
            working_set.alpha = solution.alpha
            dual = working_set.dual_objective()
            prune_inactive(working_set, C, inactive_window)
        oracle = problem.loss_augmented_pass(working_set.constraints, working_set.alpha)
        oracle_calls += problem.n_examples
        primal = 0.5 * working_set.squared_norm() + C * float(np.sum(oracle.slacks))
        gap = primal - dual
        state.history.append(
            iteration_record(
                iteration,
                primal,
                dual,
                n_constraints=len(working_set),
                oracle_calls=oracle_calls,
                qp_time=qp_time,
                start=start,
            )
        )
        state.converged = gap <= tol * primal
        yield state
        if state.converged or stalled(state.history, added=added, exhaustive=True):
            return
