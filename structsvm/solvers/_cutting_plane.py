"""The cutting-plane loop shared by the n-slack and 1-slack structural SVM solvers.

Each iteration (Tsochantaridis et al., JMLR 2005; Joachims, Finley & Yu, MLJ 2009) calls the
loss-augmented oracle at ``w`` (the exact primal ``P(w)``), stops if ``P(w) − D(α) <= tol ·
P(w)``, adds the constraints violated beyond what the working set allows, improves α (a
:class:`DualOptimiser`), sets ``w = Σ α_k ψ_k`` and drops constraints idle for
``inactive_window`` iterations.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import time
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from structsvm._task import Task
from structsvm.solvers._objective import L1_SLACKS, SlackPenalty
from structsvm.solvers._oracle import (
    FeatureMatrix,
    OraclePass,
    PassSummary,
    column_sums,
    loss_augmented_pass,
)
from structsvm.solvers._state import (
    RunCounters,
    SolverState,
    below_dual,
    converged_on_entry,
    meets_tolerance,
    stalled,
)
from structsvm.solvers._working_set import (
    ConstraintSpace,
    FeatureSpace,
    GramWorkingSet,
    WorkingSet,
    prune_inactive,
)


@dataclass
class NewConstraints:
    """Constraints to add to a working set, in the form :meth:`WorkingSet.add` takes."""

    vectors: Any
    offsets: np.ndarray
    groups: np.ndarray
    keys: list[tuple[int, Hashable]]


class OracleResult(Protocol):
    """What a pass of the loss-augmented oracle over the training set gives the loop."""

    outputs: Sequence[Any]
    losses: np.ndarray
    slacks: np.ndarray
    differences: Any
    certified: bool

    def output_key(self, i: int) -> Hashable: ...


class ConstraintSource(Protocol):
    """The training set as the cutting-plane loop sees it: ``n_examples``, the
    :class:`ConstraintSpace` ``space`` of the constraint rows and weights, and the passes."""

    n_examples: int
    space: ConstraintSpace

    def oracle_pass(self, w: Any) -> OracleResult | PassSummary: ...


class TaskConstraints:
    """A task's training set with explicit constraint vectors, its passes made in Python.

    ``n_jobs`` are the workers of each pass (:func:`~structsvm.solvers._oracle.loss_augmented_pass`;
    the iterates do not depend on it), ``true_features`` the rows φ(x_i, y_i) if known (else
    computed once, on first use); with ``summed`` a pass returns only its sums (a
    :class:`~structsvm.solvers._oracle.PassSummary`, for 1-slack) rather than every example's.
    """

    def __init__(
        self, task: Task, X: Sequence[Any], Y: Sequence[Any], *, n_jobs: int | None = None,
        true_features: FeatureMatrix | None = None, rescaling: str = "margin",
        summed: bool = False,
    ) -> None:
        self.task, self.X, self.Y = task, X, Y
        self.n_jobs, self.rescaling, self.summed = n_jobs, rescaling, summed
        self.n_examples = len(X)
        self.space = FeatureSpace(task.size_joint_feature)
        if true_features is not None:
            self.true_features = true_features

    @functools.cached_property
    def true_features(self) -> FeatureMatrix:
        """The rows φ(x_i, y_i)."""
        return self.task.batch_joint_feature(self.X, self.Y)

    @functools.cached_property
    def true_feature_sum(self) -> np.ndarray:
        """``Σ_i φ(x_i, y_i)``."""
        return column_sums(self.true_features)

    def oracle_pass(self, w: np.ndarray) -> OraclePass | PassSummary:
        """Call the task's oracle on every example at ``w``."""
        oracle = loss_augmented_pass(
            self.task, self.X, self.Y, self.true_features, w, n_jobs=self.n_jobs,
            rescaling=self.rescaling,
        )
        return PassSummary.of(oracle, self.true_feature_sum) if self.summed else oracle


class Formulation(Protocol):
    """How an oracle pass becomes new constraints: one per example, or one aggregated."""

    def new_constraints(
        self, oracle: OracleResult, working_set: WorkingSet, w: Any
    ) -> NewConstraints: ...

    def slacks(self, oracle: OracleResult) -> np.ndarray:
        """Return the exact slack of every group at the weights of the oracle pass."""


class DualOptimiser(Protocol):
    """How the dual variables of the working-set QP are improved after constraints are added.

    Attributes
    ----------
    keeps_gram : bool
        Whether it works on a :class:`GramWorkingSet` (every solve involves the whole working
        set) rather than a plain :class:`WorkingSet`.
    penalty : SlackPenalty
        How the slacks are penalised; it decides the QPs, the primal and the dual objective.
    """

    keeps_gram: ClassVar[bool]
    penalty: SlackPenalty

    def optimise(self, working_set: WorkingSet, C: float, oracle: OracleResult) -> None:
        """Improve ``working_set.alpha``; ``oracle`` is the pass at the current weights."""

    def solves_whole_working_set(self, working_set: WorkingSet) -> bool:
        """Tell whether ``optimise`` solves the QP over all of ``working_set`` at once."""


@dataclass
class FullQP:
    """Solve the QP over the whole working set with cvxopt (from the previous α if
    ``warm_start``, to the interior-point tolerance ``tol``)."""

    warm_start: bool
    tol: float = 1e-9
    penalty: SlackPenalty = L1_SLACKS
    keeps_gram: ClassVar[bool] = True

    def optimise(self, working_set: GramWorkingSet, C: float, oracle: OracleResult) -> None:
        """Replace α by the solution of the whole working-set QP."""
        working_set.alpha = self.penalty.solve(
            working_set.gram, working_set.offsets, working_set.groups, C,
            vectors=working_set.space.explicit_vectors(working_set.vectors), tol=self.tol,
            initial_alpha=working_set.alpha if self.warm_start else None,
        ).alpha

    def solves_whole_working_set(self, working_set: GramWorkingSet) -> bool:
        """Always: every solve is over the whole working set."""
        return True


@dataclass
class CuttingPlaneDual:
    """What a cutting-plane run needs to continue after an iteration: the working set, the
    formulation and optimiser (with their counters and generator), the oracle pass made at
    ``query`` (``w`` unless smoothing; ``at_solution`` if the working-set solution) and the dual
    objective."""

    working_set: WorkingSet
    formulation: Formulation
    optimiser: DualOptimiser
    oracle: OracleResult | PassSummary
    dual: float
    query: Any
    at_solution: bool

    def copy(self) -> CuttingPlaneDual:
        """Return a copy that later iterations of a run leave alone (the pass is shared)."""
        return dataclasses.replace(
            self, working_set=self.working_set.copy(), formulation=copy.deepcopy(self.formulation),
            optimiser=copy.deepcopy(self.optimiser), query=copy.copy(self.query),
        )


def cutting_plane(
    source: ConstraintSource, C: float, formulation: Formulation, optimiser: DualOptimiser, *,
    tol: float, max_iter: int, inactive_window: int, smoothing: float = 1.0,
    initial_state: SolverState | None = None,
) -> Iterator[SolverState]:
    """Run the cutting-plane algorithm, yielding the state after every iteration.

    Iteration 0 evaluates ``w = 0``; iteration t >= 1 adds constraints, improves the dual of
    the working-set QP and evaluates the new ``w``, until the relative duality gap is at most
    ``tol`` or for ``max_iter`` such iterations. ``source`` is a task's training set or a
    :class:`~structsvm.solvers._joint_kernel.JointKernelProblem`.

    With ``smoothing`` μ < 1 the oracle is called at ``w_best + μ (w_ws − w_best)``, between the
    weights of lowest primal objective so far and the working-set solution (in-out separation,
    Ben-Ameur & Neto 2007), and at ``w_ws`` after a query that added no constraint; the state
    reports ``w_best`` and its primal objective, so the gap stays a certificate.

    With ``initial_state`` (a state yielded earlier for the same training set and C) the run
    continues from its working set, formulation and optimiser (the arguments' are not used)
    for up to ``max_iter`` further iterations; a state that already meets ``tol`` is yielded
    back, marked converged. ``initial_state`` is left unchanged.
    """
    done = converged_on_entry(initial_state, tol)
    if done is not None:
        yield done
        return
    space = source.space
    counters = RunCounters.resume(initial_state, max_iter)
    oracle: OracleResult | PassSummary | None = None
    if initial_state is None:
        working_set = GramWorkingSet(space) if optimiser.keeps_gram else WorkingSet(space)
        w = query = space.zero_weights()
        dual, primal, at_solution, certified = 0.0, np.inf, True, True
    else:
        resume: CuttingPlaneDual = initial_state.dual_state.copy()
        working_set, formulation = resume.working_set, resume.formulation
        optimiser, oracle, dual = resume.optimiser, resume.oracle, resume.dual
        query, at_solution = resume.query, resume.at_solution
        w = copy.copy(initial_state.w)
        primal = counters.history[-1]["primal"]
        certified = counters.history[-1].get("certified", True)
    state = SolverState(w=w, working_set=working_set, history=counters.history)
    new: NewConstraints | None = None
    found: NewConstraints | None = None  # what the last pass finds, if asked already
    for iteration in counters.iterations:
        found_at_solution = at_solution
        if oracle is not None:
            new = found if found is not None else formulation.new_constraints(
                oracle, working_set, query
            )
            found = None
            if len(new.offsets):
                working_set.add(new.vectors, new.offsets, new.groups, new.keys)
            if len(working_set) == 0:
                break
            qp_start = time.perf_counter()
            optimiser.optimise(working_set, C, oracle)
            counters.qp_time += time.perf_counter() - qp_start
            dual = working_set.dual_objective(C, optimiser.penalty)
            solution = working_set.weights()
            prune_inactive(working_set, C, inactive_window)
            step = smoothing if len(new.offsets) else 1.0
            at_solution = step == 1.0
            query = solution if at_solution else state.w + step * (solution - state.w)
        oracle = source.oracle_pass(query)
        counters.oracle_calls += source.n_examples
        query_primal = optimiser.penalty.primal(
            space.squared_norm(query), formulation.slacks(oracle), C
        )
        # With smoothing, the best query so far is kept; a primal objective below the dual,
        # from a pass that missed labellings, is no bound to keep.
        if smoothing == 1.0 or (
            query_primal <= primal and not below_dual(query_primal, dual, tol)
        ):
            state.w, primal = query, query_primal
            certified = oracle.certified
        counters.record(iteration, primal, dual, len(working_set), certified)
        state.converged = meets_tolerance(primal, dual, tol)
        state.dual_state = CuttingPlaneDual(
            working_set, formulation, optimiser, oracle, dual, query, at_solution
        ).copy()
        state.working_set = state.dual_state.working_set
        yield state
        if state.converged:
            return
        if new is not None and found_at_solution and not len(new.offsets):
            # Nothing added: the stall rule asks whether the pass just made finds anything.
            # An exact oracle at the same weights does not, but an approximate one may find
            # what its last pass missed.
            found = formulation.new_constraints(oracle, working_set, query)
            if stalled(
                state.history,
                found=len(found.offsets),
                exhaustive=optimiser.solves_whole_working_set(working_set),
            ):
                return
