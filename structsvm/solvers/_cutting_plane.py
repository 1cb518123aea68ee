"""The cutting-plane loop shared by the n-slack and 1-slack structural SVM solvers.

Each iteration (Tsochantaridis et al., JMLR 2005; Joachims, Finley & Yu, MLJ 2009):

1. call the loss-augmented oracle on every example at the current ``w``; this gives the exact
   primal objective ``P(w)`` and the most violated constraints;
2. stop if the duality gap ``P(w) − D(α)`` is at most ``tol · P(w)``;
3. add the constraints that are violated by more than the working set allows;
4. improve the dual variables α of the working-set QP (a :class:`DualOptimiser`: by solving the
   whole QP with cvxopt, or by sub-QPs over blocks of examples) and set ``w = Σ α_k ψ_k``;
5. drop constraints whose dual variable stayed zero for ``inactive_window`` iterations.

``D(α)`` is the dual objective of the working-set QP at feasible α, a lower bound on the
optimum, so the gap bounds how far ``P(w)`` is from the optimal objective.
"""

from __future__ import annotations

import copy
import hashlib
import time
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from structsvm._task import Task
from structsvm.qp._simplex_dual import solve_simplex_dual
from structsvm.solvers._history import iteration_record, stalled
from structsvm.solvers._oracle import (
    FeatureMatrix,
    OraclePass,
    column_sums,
    loss_augmented_pass,
    primal_objective,
)
from structsvm.solvers._working_set import GramWorkingSet, WorkingSet, prune_inactive


def output_key(y: Any) -> bytes:
    """Return a hashable fingerprint of an output (its array bytes)."""
    array = np.ascontiguousarray(y)
    return hashlib.blake2b(array.tobytes() + str(array.shape).encode(), digest_size=16).digest()


@dataclass
class NewConstraints:
    """Constraints to add to a working set, in the form :meth:`WorkingSet.add` takes."""

    vectors: FeatureMatrix
    offsets: np.ndarray
    groups: np.ndarray
    keys: list[tuple[int, Hashable]]


class Formulation(Protocol):
    """How an oracle pass becomes new constraints: one per example, or one aggregated."""

    def new_constraints(
        self, oracle: OraclePass, working_set: WorkingSet, w: np.ndarray
    ) -> NewConstraints: ...


class DualOptimiser(Protocol):
    """How the dual variables of the working-set QP are improved after constraints are added."""

    def new_working_set(self, size: int) -> WorkingSet:
        """Return an empty working set of the kind this optimiser works on."""
        ...

    def optimise(self, working_set: WorkingSet, C: float, oracle: OraclePass) -> None:
        """Improve ``working_set.alpha``; ``oracle`` is the pass at the current weights."""
        ...

    def solves_whole_working_set(self, working_set: WorkingSet) -> bool:
        """Tell whether ``optimise`` solves the QP over all of ``working_set`` at once."""
        ...


@dataclass
class FullQP:
    """Solve the QP over the whole working set with cvxopt.

    Parameters
    ----------
    warm_start : bool
        Start each solve from the previous dual variables, which saves interior-point
        iterations when few constraints change between solves.
    tol : float, default=1e-9
        Tolerance of the interior-point solves.
    """

    warm_start: bool
    tol: float = 1e-9

    def new_working_set(self, size: int) -> GramWorkingSet:
        """Return an empty working set that keeps its Gram matrix."""
        return GramWorkingSet(size)

    def optimise(self, working_set: GramWorkingSet, C: float, oracle: OraclePass) -> None:
        """Replace α by the solution of the whole working-set QP."""
        solution = solve_simplex_dual(
            working_set.gram,
            working_set.offsets,
            working_set.groups,
            C,
            vectors=working_set.vectors,
            tol=self.tol,
            initial_alpha=working_set.alpha if self.warm_start else None,
        )
        working_set.alpha = solution.alpha

    def solves_whole_working_set(self, working_set: GramWorkingSet) -> bool:
        """Always: every solve is over the whole working set."""
        return True


@dataclass
class SolverState:
    """The state of a solver after an iteration; what a fit keeps if it is interrupted.

    Attributes
    ----------
    w : ndarray
        Current weights.
    working_set : WorkingSet or None
        Constraints with their dual variables α (None for solvers that keep no working set).
    history : list of dict
        One record per iteration: ``iteration``, ``primal``, ``dual``, ``gap``,
        ``relative_gap``, ``n_constraints``, ``oracle_calls``, ``qp_time``, ``time``.
    converged : bool
        Whether the relative duality gap reached ``tol``.
    dual_state : object or None
        What the solver needs to continue from this iteration (:class:`CuttingPlaneDual` or
        :class:`~structsvm.solvers._bcfw.BCFWDual`): a snapshot taken when the state is
        yielded, which later iterations leave alone. Passed back to the solver as
        ``initial_state``, the run continues as if it had never stopped.
    """

    w: np.ndarray
    working_set: WorkingSet | None
    history: list[dict[str, float]] = field(default_factory=list)
    converged: bool = False
    dual_state: Any = None


@dataclass
class CuttingPlaneDual:
    """What a cutting-plane run needs to continue after an iteration.

    Attributes
    ----------
    working_set : WorkingSet
        The constraints and their dual variables α, with ``w = Σ α_k ψ_k``.
    formulation : Formulation
        How constraints are made (with its own counters).
    optimiser : DualOptimiser
        How α is improved (with its block sizes and random generator).
    oracle : OraclePass
        The loss-augmented pass at ``w``, from which the next iteration adds constraints.
    dual : float
        The dual objective at α.
    query : ndarray
        The weights the oracle pass was made at (``w`` itself unless smoothing).
    at_solution : bool
        Whether ``query`` was the working-set solution.
    """

    working_set: WorkingSet
    formulation: Formulation
    optimiser: DualOptimiser
    oracle: OraclePass
    dual: float
    query: np.ndarray
    at_solution: bool

    def copy(self) -> CuttingPlaneDual:
        """Return a copy that later iterations of a run leave alone (the pass is shared)."""
        return CuttingPlaneDual(
            self.working_set.copy(),
            copy.deepcopy(self.formulation),
            copy.deepcopy(self.optimiser),
            self.oracle,
            self.dual,
            self.query.copy(),
            self.at_solution,
        )


def resumed_history(initial_state: SolverState) -> tuple[list[dict[str, float]], int, float]:
    """Return a copy of a state's history, its last iteration number and a matching start time.

    The start time is ``time.perf_counter()`` moved back by the seconds already recorded, so
    the ``time`` of the records goes on counting from where the earlier run stopped.
    """
    history = list(initial_state.history)
    last = history[-1]
    return history, int(last["iteration"]), time.perf_counter() - last["time"]


def converged_on_entry(initial_state: SolverState, tol: float) -> SolverState | None:
    """Return a copy of the state if its last record already meets ``tol``, else None."""
    last = initial_state.history[-1]
    if last["primal"] - last["dual"] > tol * last["primal"]:
        return None
    return SolverState(
        w=initial_state.w,
        working_set=initial_state.working_set,
        history=list(initial_state.history),
        converged=True,
        dual_state=initial_state.dual_state,
    )


def cutting_plane(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    C: float,
    formulation: Formulation,
    optimiser: DualOptimiser,
    *,
    tol: float,
    max_iter: int,
    inactive_window: int,
    smoothing: float = 1.0,
    initial_state: SolverState | None = None,
    n_jobs: int | None = None,
    true_features: FeatureMatrix | None = None,
) -> Iterator[SolverState]:
    """Run the cutting-plane algorithm, yielding the state after every iteration.

    Iteration 0 evaluates ``w = 0``; iteration t >= 1 adds constraints, improves the dual
    variables of the working-set QP and evaluates the new ``w``. The generator stops when the
    relative duality gap is at most ``tol`` or after ``max_iter`` such iterations.

    With ``smoothing`` μ < 1 the oracle is not called at the working-set solution ``w_ws``
    but at ``w_best + μ (w_ws − w_best)``, where ``w_best`` is the point of lowest primal
    objective evaluated so far (in-out separation, Ben-Ameur & Neto 2007): cuts found near the
    best point approximate the objective where the optimum is, and the iterations oscillate
    less. The state's ``w`` and primal objective are then those of ``w_best``, so the duality
    gap ``P(w_best) − D(α)`` is still a certificate. When a query point gives no new
    constraint the next query is ``w_ws`` itself, where a missing constraint means the gap is
    closed up to the QP's precision; with μ = 1 every query is ``w_ws``.

    With ``initial_state`` (a state this function yielded earlier, for the same task, data and
    C) the run continues from its working set, formulation and optimiser instead, numbering
    iterations on from its history, and ``formulation`` and ``optimiser`` are not used; up to
    ``max_iter`` further iterations run. A state that already meets ``tol`` is yielded back,
    marked converged, without a new iteration. ``initial_state`` itself is left unchanged.

    Each oracle pass runs on ``n_jobs`` joblib workers (see
    :func:`~structsvm.solvers._oracle.loss_augmented_pass`); the iterates do not depend on it.
    ``true_features``, the rows φ(x_i, y_i), are computed here unless the caller has them.
    """
    n = len(X)
    if true_features is None:
        true_features = task.batch_joint_feature(X, Y)
    true_feature_sum = column_sums(true_features)
    oracle: OraclePass | None = None
    if initial_state is None:
        working_set = optimiser.new_working_set(task.size_joint_feature)
        state = SolverState(w=np.zeros(task.size_joint_feature), working_set=working_set)
        dual = 0.0
        oracle_calls = 0
        qp_time = 0.0
        first, last_iteration = 0, max_iter
        start = time.perf_counter()
        query, primal, at_solution = state.w, np.inf, True
    else:
        done = converged_on_entry(initial_state, tol)
        if done is not None:
            yield done
            return
        resume: CuttingPlaneDual = initial_state.dual_state.copy()
        working_set, formulation, optimiser = (
            resume.working_set,
            resume.formulation,
            resume.optimiser,
        )
        oracle, dual = resume.oracle, resume.dual
        query, at_solution = resume.query, resume.at_solution
        history, last, start = resumed_history(initial_state)
        state = SolverState(w=initial_state.w.copy(), working_set=working_set, history=history)
        oracle_calls = int(history[-1]["oracle_calls"])
        qp_time = float(history[-1]["qp_time"])
        primal = history[-1]["primal"]
        first, last_iteration = last + 1, last + max_iter
    new: NewConstraints | None = None
    for iteration in range(first, last_iteration + 1):
        found_at_solution = at_solution
        if oracle is not None:
            new = formulation.new_constraints(oracle, working_set, query)
            if len(new.offsets):
                working_set.add(new.vectors, new.offsets, new.groups, new.keys)
            if len(working_set) == 0:
                break
            qp_start = time.perf_counter()
            optimiser.optimise(working_set, C, oracle)
            qp_time += time.perf_counter() - qp_start
            dual = working_set.dual_objective()
            solution = working_set.weights()
            prune_inactive(working_set, C, inactive_window)
            step = smoothing if len(new.offsets) else 1.0
            at_solution = step == 1.0
            query = solution if at_solution else state.w + step * (solution - state.w)
        oracle = loss_augmented_pass(
            task, X, Y, true_features, query, true_feature_sum=true_feature_sum, n_jobs=n_jobs
        )
        oracle_calls += n
        query_primal = primal_objective(query, oracle.slacks, C)
        if smoothing == 1.0 or query_primal <= primal:
            state.w, primal = query, query_primal
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
        state.converged = primal - dual <= tol * primal
        state.dual_state = CuttingPlaneDual(
            working_set, formulation, optimiser, oracle, dual, query, at_solution
        ).copy()
        state.working_set = state.dual_state.working_set
        yield state
        if state.converged or stalled(
            state.history,
            added=len(new.offsets) if new and found_at_solution else None,
            exhaustive=optimiser.solves_whole_working_set(working_set),
        ):
            return
