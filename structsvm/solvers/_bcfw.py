"""Block-coordinate Frank–Wolfe (BCFW) for the structural SVM (Lacoste-Julien et al., ICML 2013).

The dual keeps, for every example i, a block ``w_i ∈ C · conv{ψ_i(y)}`` and
``ℓ_i ∈ C · conv{Δ(y_i, y)}``, with ``w = Σ_i w_i`` and ``D = Σ_i ℓ_i − ½‖w‖²``. A step on
block i moves towards the corner of the loss-augmented output by exact line search; the block
gaps sum to ``P(w) − D``, evaluated with n oracle calls after the passes of the
``gap_check_every`` schedule (and the last pass), which alone record, yield and may stop; an
off-schedule last evaluation refreshes neither the sampled block gaps nor the cache's gap.
The blocks are sparse, in one pool; the average of the iterates is kept lazily as
``w̄ = w + σ z``. The steps are :mod:`structsvm.solvers._bcfw_steps`, taken from Python or,
a pass at a time, through a compiled oracle (:mod:`structsvm.solvers._bcfw_pass`; a Ctrl-C
is handled when the pass returns, and yielded states are copies).
Refinements: gap sampling (:mod:`~structsvm.solvers._bcfw_sampling`), the multi-plane cache
(:mod:`~structsvm.solvers._bcfw_cache`), pairwise steps
(:mod:`~structsvm.solvers._bcfw_active_sets`), slack rescaling (constraint vectors
``Δ(y_i, y) ψ_i(y)``) and L2 slacks (exact steps over the cone of ``(v_i(y), Δ(y_i, y), 1)``,
dual ``Σ_i ℓ_i − ½‖w‖² − Σ_i β_i² / (2C)``).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import numbers
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm._task import Task
from structsvm._utils.parallel import dask_client
from structsvm._utils.validation import (
    Interval,
    check_positive_int,
    check_random_state,
    check_value,
)
from structsvm.solvers import _bcfw_steps
from structsvm.solvers._bcfw_active_sets import ActiveSets
from structsvm.solvers._bcfw_cache import PlaneCache
from structsvm.solvers._bcfw_pass import CompiledPasses
from structsvm.solvers._bcfw_sampling import pass_visits
from structsvm.solvers._bcfw_steps import (
    Atoms,
    BlockDual,
    SparsePool,
    block_dual,
    cone_visit,
    pairwise_visit,
    pool_index_type,
    visit_block,
)
from structsvm.solvers._cluster import training_set
from structsvm.solvers._defaults import SOLVER_DEFAULTS
from structsvm.solvers._objective import SlackPenalty, check_objective_options
from structsvm.solvers._oracle import FeatureMatrix
from structsvm.solvers._state import (
    RunCounters,
    SolverState,
    converged_on_entry,
    meets_tolerance,
)

_NO_LABELS = np.zeros(0, dtype=np.int64)
"""The labels of an output in the Python loop, which keeps outputs as the task gives them."""


def _sparse_rows(matrix: FeatureMatrix) -> sp.csr_matrix:
    """Return joint features as CSR rows with sorted, distinct column indices.

    The indices keep the matrix's integer type (int32 where the size allows): the compiled
    steps take either, and an int64 copy of them would double their memory.
    """
    rows = sp.csr_matrix(matrix, dtype=np.float64)
    if not rows.has_canonical_format:
        rows = rows.copy()
        rows.sum_duplicates()
    return rows


@dataclasses.dataclass
class BCFWDual:
    """What a block-coordinate Frank–Wolfe run needs to continue after a pass.

    The blocks ``w_i`` as sparse vectors (views of the run's pool, which no step writes into),
    their ``ℓ_i`` and ``β_i`` (L2 slacks) and ``total_loss = Σ_i ℓ_i``; the lazy average's scale
    σ, averaged ``Σ_i ℓ_i`` and ``β_i`` offsets; the step count, random generator and
    ``averaging``; gap sampling's ``block_gaps``, the ``cache``, the last duality gap evaluated
    on schedule (inf before any), the ``active_sets`` of pairwise steps, and, with
    ``keep_best=True``, the last evaluated weights if the state reports earlier ones. A
    continued run rebuilds w and the average's offset from these (:meth:`iterate_and_offset`).
    """

    block_indices: list[np.ndarray]
    block_values: list[np.ndarray]
    block_losses: np.ndarray
    block_sums: np.ndarray
    total_loss: float
    average_scale: float
    average_loss: float
    average_sum_offset: np.ndarray
    steps: int
    rng: np.random.RandomState
    averaging: bool
    block_gaps: np.ndarray | None = None
    cache: PlaneCache | None = None
    duality_gap: float = np.inf
    evaluated_w: np.ndarray | None = None
    active_sets: ActiveSets | None = None

    def copy(self) -> BCFWDual:
        """Return a copy that later passes of a run leave alone."""
        # The arrays and records that a run writes in place, each copied by its own copy().
        owned = [
            "block_losses", "block_sums", "average_sum_offset", "block_gaps", "cache",
            "active_sets",
        ]
        copies = {name: getattr(self, name) for name in owned}
        return dataclasses.replace(
            self, block_indices=list(self.block_indices), block_values=list(self.block_values),
            rng=copy.deepcopy(self.rng),
            **{name: None if value is None else value.copy() for name, value in copies.items()},
        )

    def iterate_and_offset(self, reported_w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return fresh arrays ``w = Σ_i w_i`` and ``z`` with ``reported_w = w + σ z``.

        ``reported_w`` is the state's weights (the average of the iterates when averaging,
        else the iterate, and z is zero), unless :attr:`evaluated_w` holds them.
        """
        if self.evaluated_w is not None:
            reported_w = self.evaluated_w
        w = np.zeros(len(reported_w))
        for indices, values in zip(self.block_indices, self.block_values, strict=True):
            w[indices] += values
        return w, _average_offset(reported_w, w, self.average_scale, self.averaging, self.steps)


def start_at_C(state: SolverState, C_before: float, C: float) -> SolverState:
    """Return the dual point of a bcfw state of C = ``C_before`` as a starting point at ``C``.

    The blocks (``w_i``, ``ℓ_i`` and ``β_i``, each C times a convex or, for L2 slacks, conic
    combination of the block's corners) are scaled by one factor t: any t in
    ``[0, C / C_before]`` keeps them feasible at C, the share ``1 − t C_before / C`` of every
    block's mass going to its true labelling (whose corner is zero). t maximises the dual at C
    along that segment, ``t = clip(Σ ℓ_i / (‖w‖² + Σ β_i² / C), 0, C / C_before)``; with pairwise
    steps, whose active sets need not hold the true labelling, every labelling keeps its mass
    (``t = C / C_before``). The cache's corners carry over. What only holds for the earlier C
    is dropped: the average of the iterates (it restarts at the new iterate, on the averaging
    schedule of a new run), the block gaps, the cache's gaps at the last oracle calls and the
    last duality gap. The state has an empty history: :func:`bcfw` given it numbers its passes
    from 0 and first evaluates the duality gap of the point at C.
    """
    dual: BCFWDual = state.dual_state
    n = len(dual.block_losses)
    iterate, _ = dual.iterate_and_offset(np.zeros(len(state.w)))
    largest = C / C_before
    curvature = iterate @ iterate + dual.block_sums @ dual.block_sums / C
    factor = largest
    if dual.active_sets is None and curvature > 0:
        factor = min(max(dual.total_loss / curvature, 0.0), largest)
    cache = dual.cache
    if cache is not None:
        cache = dataclasses.replace(cache.copy(), exact_gaps=np.full(n, np.inf))
    rescaled = dataclasses.replace(
        dual.copy(),
        block_values=[values * factor for values in dual.block_values],
        block_losses=dual.block_losses * factor,
        block_sums=dual.block_sums * factor,
        total_loss=dual.total_loss * factor,
        average_scale=1.0,
        average_loss=0.0,
        average_sum_offset=np.zeros(n),
        steps=0,
        block_gaps=None,
        cache=cache,
        duality_gap=np.inf,
        evaluated_w=None,
    )
    return SolverState(w=iterate * factor, working_set=None, history=[], dual_state=rescaled)


def check_variant_options(
    order: str, gap_sweep_every: int, gap_mixing: float, cache_size: int, cache_timeout: int,
    slack_norm: int, gap_check_every: int, step: str, rescaling: str,
) -> None:
    """Raise ValueError naming the first of BCFW's ordering, cache, gap-check and step options
    that is invalid."""
    if order not in ("random", "cyclic", "gap"):
        raise ValueError(f"order must be 'random', 'cyclic' or 'gap', got {order!r}")
    for name, value, smallest in (
        ("gap_sweep_every", gap_sweep_every, 1), ("cache_size", cache_size, 0),
        ("cache_timeout", cache_timeout, 1), ("gap_check_every", gap_check_every, 1),
    ):
        check_positive_int(value, name, minimum=smallest)
    check_value(gap_mixing, "gap_mixing", [Interval(numbers.Real, 0, 1, closed="right")])
    if slack_norm != 1 and (order == "gap" or cache_size > 0):
        option = "order='gap'" if order == "gap" else "cache_size > 0"
        raise ValueError(
            f"{option} needs slack_norm=1 (block gaps of L1 slacks), got {slack_norm!r}"
        )
    if step not in ("fw", "pairwise"):
        raise ValueError(f"step must be 'fw' or 'pairwise', got {step!r}")
    if step == "pairwise" and (rescaling != "margin" or slack_norm != 1 or cache_size > 0):
        raise ValueError(
            "step='pairwise' needs rescaling='margin', slack_norm=1 and cache_size=0, got "
            f"rescaling={rescaling!r}, slack_norm={slack_norm!r}, cache_size={cache_size!r}"
        )


def _pairwise_python_step(
    task: Task, x: Any, y_true: Any, i: int, w: np.ndarray, dual: BlockDual, atoms: Atoms,
    active_sets: ActiveSets,
) -> None:
    """Take the pairwise step on block i from Python (:func:`~._bcfw_steps.pairwise_visit`),
    scoring the labellings from their stored sparse φ and finding ŷ by ``task.outputs_equal``."""
    y_hat = task.loss_augmented_argmax(x, y_true, w)
    hat_indices, hat_values = task.sparse_joint_feature(x, y_hat)
    hat_loss = float(task.loss(y_true, y_hat))
    outputs, pool = active_sets.outputs[i], active_sets.features
    count = len(outputs)
    spans = zip(pool.starts[i, :count].tolist(), pool.lengths[i, :count].tolist(), strict=True)
    scores = active_sets.losses[i, :count] + [
        w[pool.indices[begin : begin + length]] @ pool.values[begin : begin + length]
        for begin, length in spans
    ]
    hat_slot = next((k for k, y in enumerate(outputs) if task.outputs_equal(y, y_hat)), count)
    step_size, away = pairwise_visit(
        i, hat_slot, _NO_LABELS, hat_indices, hat_values, hat_loss,
        hat_loss + w[hat_indices] @ hat_values, scores, dual, atoms,
    )
    pool.take(atoms)
    if step_size > 0 and hat_slot == count:
        outputs.append(y_hat)
    new_count = active_sets.counts[i]
    if len(outputs) > new_count:
        outputs[away] = outputs[new_count]
        del outputs[new_count]


def _average_offset(
    reported_w: np.ndarray, w: np.ndarray, average_scale: float, averaging: bool, steps: int
) -> np.ndarray:
    """Return a fresh z with ``reported_w = w + average_scale * z`` (zero before averaging)."""
    if not (averaging and steps):
        return np.zeros(len(w))
    offset = np.subtract(reported_w, w)
    offset /= average_scale
    return offset


def bcfw(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    C: float,
    *,
    tol: float = SOLVER_DEFAULTS["bcfw"]["tol"],
    max_iter: int = SOLVER_DEFAULTS["bcfw"]["max_iter"],
    averaging: bool = SOLVER_DEFAULTS["bcfw"]["averaging"],
    order: str = SOLVER_DEFAULTS["bcfw"]["order"],
    random_state: int | np.random.RandomState | None = None,
    initial_state: SolverState | None = None,
    n_jobs: int | None = None,
    true_features: FeatureMatrix | None = None,
    rescaling: str = "margin",
    slack_norm: int = 1,
    compiled: bool | None = None,
    gap_sweep_every: int = SOLVER_DEFAULTS["bcfw"]["gap_sweep_every"],
    gap_mixing: float = SOLVER_DEFAULTS["bcfw"]["gap_mixing"],
    cache_size: int = SOLVER_DEFAULTS["bcfw"]["cache_size"],
    cache_timeout: int = SOLVER_DEFAULTS["bcfw"]["cache_timeout"],
    gap_check_every: int = SOLVER_DEFAULTS["bcfw"]["gap_check_every"],
    keep_best: bool = SOLVER_DEFAULTS["bcfw"]["keep_best"],
    step: str = SOLVER_DEFAULTS["bcfw"]["step"],
) -> Iterator[SolverState]:
    """Train a structural SVM by block-coordinate Frank–Wolfe.

    Parameters
    ----------
    task : Task
    X, Y : sequences of training inputs and outputs (already validated by the task)
    C : float
        Weight of the summed slacks in ``½‖w‖² + C Σ ξ_i`` (BCFW's λ is ``1 / (C n)``).
    tol : float, default=1e-3
        Stop when the duality gap is at most ``tol`` times the primal objective.
    max_iter : int, default=500
        Most passes over the data.
    averaging : bool, default=True
        Report the weighted average of the iterates (weights proportional to the step count),
        which converges faster in practice; the gap is certified for the reported weights.
    order : {"random", "cyclic", "gap"}, default="random"
        Visit the blocks in a fresh random permutation each pass, in index order, or by gap
        sampling (Osokin et al. 2016, see :mod:`structsvm.solvers._bcfw_sampling`): each pass
        draws n blocks with probabilities proportional to their last known duality gaps,
        mixed with the uniform ones, and every ``gap_sweep_every``-th pass sweeps over all
        blocks in a random permutation to refresh their gaps. Needs ``slack_norm=1``.
    random_state : int, RandomState or None
        Seed of the random order (not used when continuing: the order goes on from the
        generator state kept in ``initial_state``).
    initial_state : SolverState, optional
        A state yielded by an earlier run on the same task, data and C with the same
        ``averaging``: continue from its blocks, average, step count and random generator
        for up to ``max_iter`` further passes, numbering them on from its history, as the
        earlier run would have gone on (up to rounding: w and the average's offset are rebuilt
        from the blocks and the state's weights, see :class:`BCFWDual`). A state that already
        meets ``tol`` is yielded back, marked converged, without a new pass. A state with an
        empty history, as :func:`start_at_C` makes of a run at another C, is a starting point:
        the passes are numbered from 0, the first record being the gap of that point.
        ``initial_state`` is left unchanged.
    n_jobs : int or None, default=None
        Workers for the duality-gap evaluation after each pass: with a compiled pass, Numba's
        threads of the compiled evaluation (the slacks are the same bits on any number);
        otherwise joblib workers, one chunk of examples each (None: 1 unless a joblib context
        says otherwise). Inside ``joblib.parallel_backend("dask")`` the evaluation runs on the
        cluster's workers, which hold the training set for the whole run
        (:mod:`structsvm.solvers._cluster`). The steps themselves are sequential; the iterates
        do not depend on ``n_jobs``.
    true_features : ndarray or sparse matrix of shape (n, size_joint_feature), optional
        The rows φ(x_i, y_i) of the training data, if the caller has computed them already.
    rescaling : {"margin", "slack"}, default="margin"
        Margin or slack rescaling, as for :func:`~structsvm.solvers._n_slack.n_slack`; each
        step calls the task's slack-rescaled oracle for "slack".
    slack_norm : {1, 2}, default=1
        Penalise the slacks by ``C Σ ξ_i`` or by ``(C/2) Σ ξ_i²`` (steps over a cone, see the
        module docstring).
    compiled : bool or None, default=None
        Run each pass as one compiled call on the task's compiled oracle
        (:meth:`~structsvm.Task.compiled_oracle`), which the options must allow: margin
        rescaling with L1 slacks and no cache (``rescaling="margin"``, ``slack_norm=1``,
        ``cache_size=0``), any ``order``, ``step`` and ``averaging``. None: compiled when the
        task offers an oracle and the options allow it, else the Python loop (the
        ``structsvm`` log says why); True: compiled, and ValueError if that cannot be; False:
        the Python loop, which calls the task's methods for every step. The compiled pass
        takes the same steps as the Python loop, so the iterates agree to rounding, and the
        duality gap after it is evaluated in compiled code too (on ``n_jobs`` threads), unless
        a Dask cluster holds the training set.
    gap_sweep_every : int, default=10
        With ``order="gap"``: sweep over all blocks on the first pass and every
        ``gap_sweep_every`` passes after it (1: every pass, which gives the iterates of
        ``order="random"``).
    gap_mixing : float in (0, 1], default=0.1
        With ``order="gap"``: the share of the uniform distribution in each draw, so that no
        block starves (1: uniform draws with replacement).
    cache_size : int, default=0
        Keep up to this many corners per block that the oracle returned, and step towards the
        best of them instead of calling the oracle when its gap is large enough (the
        multi-plane cache of Shah et al. 2015 with the acceptance rule of Osokin et al. 2016,
        see :mod:`structsvm.solvers._bcfw_cache`). 0: no cache. Needs ``slack_norm=1``.
    cache_timeout : int, default=10
        Drop a cached corner unused for more than this many passes.
    gap_check_every : int, default=1
        Evaluate the certified duality gap (n oracle calls) only after every this many passes
        (pass numbers ``k, 2k, ...``, counted on over continued runs) and after the last pass
        of ``max_iter``; only those passes make a history record, yield a state and can stop
        the run (see the module docstring). 1: after every pass.
    keep_best : bool, default=False
        Certify with the best bounds evaluated so far: the lowest certified primal objective
        ``P(w_s)`` of any evaluation s and the highest dual objective ``D(α_t)`` of any
        evaluation t, since ``P(w_s) >= OPT >= D(α_t)`` for all s and t; the state's weights are
        then those that achieved that primal. The iterates and the evaluations are those of
        ``keep_best=False`` (which certifies with the last evaluation's bounds and reports its
        weights); only the records, the reported weights and the stopping rule change, so a
        run may stop earlier. See the history's fields below.
    step : {"fw", "pairwise"}, default="fw"
        Frank–Wolfe steps towards the oracle's corner, or the pairwise steps of Osokin et al.
        (2016, BCPFW): each block keeps its active labellings with their masses
        (:mod:`structsvm.solvers._bcfw_active_sets`) and a step moves mass from the active
        labelling of lowest loss-augmented score (the away corner) to the oracle's, by the
        exact line search clipped at the away labelling's mass
        (:func:`~structsvm.solvers._bcfw_steps.pairwise_visit`). Needs margin rescaling, L1
        slacks and no cache; runs compiled where the task offers a compiled oracle. A run
        continues only with the ``step`` and ``compiled`` path it was started with.

    Yields
    ------
    SolverState
        The state after each pass whose gap is evaluated (``working_set`` is None: BCFW keeps
        its dual in blocks, in ``dual_state``). Each history record's ``primal``, ``dual``,
        ``gap`` and ``relative_gap`` are the certificate the stopping rule tests: with
        ``keep_best=False`` those of this evaluation, with ``keep_best=True`` the lowest primal
        and the highest dual evaluated so far (``certified`` then tells whether that primal's
        evaluation was certified). ``evaluated_primal`` and ``evaluated_dual`` are always this
        evaluation's: the primal at the weights evaluated (the average of the iterates when
        averaging, else the iterate) and the dual at the blocks (or their average).

    Notes
    -----
    Memory: at most three vectors of ``size_joint_feature`` floats (``w``, the average's
    offset and the last state's weights) and the blocks' nonzero entries in one pool, packed
    before each pass that follows a yielded state; ``keep_best=True`` may hold the best
    primal's weights too, ``step="pairwise"`` the active sets. The history's ``oracle_calls``
    count the steps' calls (fewer than n per pass with a cache) and n per gap evaluation.

    References
    ----------
    S. Lacoste-Julien, M. Jaggi, M. Schmidt and P. Pletscher, "Block-coordinate Frank–Wolfe
    optimization for structural SVMs", ICML 2013.

    N. Shah, V. Kolmogorov and C. H. Lampert, "A multi-plane block-coordinate Frank–Wolfe
    algorithm for training structural SVMs with a costly max-oracle", CVPR 2015.

    A. Osokin, J.-B. Alayrac, I. Lukasewitz, P. K. Dokania and S. Lacoste-Julien, "Minding the
    gaps for block Frank–Wolfe optimization of structured SVMs", ICML 2016.
    """
    check_objective_options(rescaling, slack_norm)
    check_variant_options(
        order, gap_sweep_every, gap_mixing, cache_size, cache_timeout, slack_norm,
        gap_check_every, step, rescaling,
    )
    penalty = SlackPenalty(slack_norm)
    oracle_method = (
        task.slack_rescaled_argmax if rescaling == "slack" else task.loss_augmented_argmax
    )
    n, size = len(X), task.size_joint_feature
    if true_features is None:
        true_features = task.batch_joint_feature(X, Y)
    true_rows = _sparse_rows(true_features)
    done = converged_on_entry(initial_state, tol)
    if done is not None:
        yield done
        return
    counters = RunCounters.resume(initial_state, max_iter)
    # The best certified primal so far, its weights (None before any) and the best dual so far.
    best_primal, best_w, best_dual = np.inf, None, -np.inf
    if initial_state is None:
        dual_state = BCFWDual(
            [np.empty(0, dtype=np.int64)] * n, [np.empty(0)] * n, np.zeros(n), np.zeros(n),
            0.0, 1.0, 0.0, np.zeros(n), 0, check_random_state(random_state), bool(averaging),
        )
        start_w = np.zeros(size)
    else:
        if initial_state.history:
            last = initial_state.history[-1]
            best_dual = last["dual"]
            if last.get("certified", True):
                best_primal, best_w = last["primal"], initial_state.w
        dual_state = initial_state.dual_state.copy()
        if dual_state.averaging != bool(averaging):
            raise ValueError(
                f"cannot continue a run with averaging={dual_state.averaging} with "
                f"averaging={bool(averaging)}"
            )
        start_w = initial_state.w.copy()
    state = SolverState(w=start_w, working_set=None, history=counters.history)
    # The averaged iterate is w + σ z (and likewise the β_i): z is ``average_offset``.
    w, average_offset = dual_state.iterate_and_offset(state.w)
    block_indices, block_values = dual_state.block_indices, dual_state.block_values
    rng, block_losses, block_sums = dual_state.rng, dual_state.block_losses, dual_state.block_sums
    average_sum_offset = dual_state.average_sum_offset
    sums = np.array([dual_state.total_loss, dual_state.average_scale, dual_state.average_loss])
    block_gaps = None
    if order == "gap":
        stored = dual_state.block_gaps
        block_gaps = np.full(n, np.inf) if stored is None else stored
    cache = None
    if cache_size > 0:
        stored = dual_state.cache
        cache = PlaneCache.empty(n, cache_size, cache_timeout) if stored is None else stored
        cache.size, cache.timeout = cache_size, cache_timeout
    # The last duality gap evaluated on schedule, for the cache's acceptance rule.
    duality_gap = dual_state.duality_gap
    compiled_pass = CompiledPasses.prepare(
        task, X, Y, true_rows, n_jobs=n_jobs, compiled=compiled, rescaling=rescaling,
        slack_norm=slack_norm, cache_size=cache_size, step=step,
    )
    active_sets = dual_state.active_sets
    if initial_state is not None and (
        (active_sets is not None) != (step == "pairwise")
        or (active_sets is not None and (active_sets.outputs is None) == (compiled_pass is None))
    ):
        raise ValueError(
            f"cannot continue this run with step={step!r} and compiled={compiled!r}: continue "
            "it with the step and the compiled path it was started with"
        )
    if active_sets is not None:
        # Fresh arrays for the labellings' φ: the pool of the state continued from is shared
        # with the states of its run, whose entries this run must not write over.
        active_sets.features.pack(room=int(active_sets.features.lengths.sum()) + 16)
    if step == "pairwise" and active_sets is None:
        python_loop = compiled_pass is None
        active_sets = ActiveSets.start(
            [_NO_LABELS if python_loop else compiled_pass.oracle.labels(y) for y in Y],
            true_rows, pool_index_type(size), Y if python_loop else None,
        )
    pool = SparsePool.of(block_indices, block_values, pool_index_type(size))
    steps = np.array([dual_state.steps], dtype=np.int64)
    problem = (
        true_rows.indptr.astype(np.int64), true_rows.indices, true_rows.data, float(C),
        bool(averaging), _bcfw_steps.SMALLEST_SCALE,
        np.empty(0) if block_gaps is None else block_gaps,
    )
    # A cluster's workers evaluate the gap when they hold the training set (see below).
    gap_in_compiled_code = compiled_pass is not None and dask_client(n_jobs) is None
    # The weights of the last evaluation, from which the next pass rebuilds the lazy average.
    reported_w = state.w
    # Whether the blocks of the state yielded last are the pool's live blocks (see below).
    state_holds_the_pool_blocks = False
    # Where the gap evaluation's oracle passes run: a cluster's workers hold the data if any.
    # The compiled evaluation, on this process's threads, needs none.
    examples_held = contextlib.nullcontext() if gap_in_compiled_code else training_set(
        task, X, Y, n_jobs=n_jobs, true_features=true_features, rescaling=rescaling
    )
    with examples_held as examples:
        for iteration in counters.iterations:
            if iteration > 0:
                if state_holds_the_pool_blocks:
                    # Pack the live blocks (those of the state yielded last) into fresh arrays
                    # with room for this pass, and point that state at them, so that the old
                    # pool's dead entries are freed before the pass rather than after it.
                    live = int(pool.lengths.sum())
                    pool.pack(room=live + live // 2 + 16)
                    block_indices, block_values = pool.vectors()
                    state.dual_state.block_indices[:] = block_indices
                    state.dual_state.block_values[:] = block_values
                state_holds_the_pool_blocks = False
                if average_offset is None:
                    average_offset = _average_offset(reported_w, w, sums[1], averaging, steps[0])
                visits = pass_visits(
                    rng, n, iteration, order, block_gaps, gap_sweep_every, gap_mixing
                )
                if active_sets is not None:
                    active_sets.make_room(visits)
                blocks = block_dual(
                    *problem, *pool.record_fields(), block_losses, block_sums, w,
                    average_offset, average_sum_offset, sums, steps,
                )
                if compiled_pass is not None:
                    compiled_pass.steps(visits, blocks, active_sets)
                    counters.oracle_calls += n
                else:
                    atoms = None if active_sets is None else active_sets.as_atoms()
                    for i in visits:
                        if atoms is not None:
                            counters.oracle_calls += 1
                            _pairwise_python_step(
                                task, X[i], Y[i], i, w, blocks, atoms, active_sets
                            )
                            continue
                        plane = None
                        if cache is not None:
                            pool.take(blocks)
                            begin, end = true_rows.indptr[i], true_rows.indptr[i + 1]
                            block = slice(pool.starts[i], pool.starts[i] + pool.lengths[i])
                            plane, plane_gap = cache.best_plane(
                                i, w, w[true_rows.indices[begin:end]] @ true_rows.data[begin:end],
                                block_losses[i] - w[pool.indices[block]] @ pool.values[block],
                                C, iteration,
                            )
                            if not cache.accepts(i, plane_gap, duality_gap):
                                plane = None
                        if plane is None:
                            y_hat = oracle_method(X[i], Y[i], w)
                            hat_indices, hat_values = task.sparse_joint_feature(X[i], y_hat)
                            loss = float(task.loss(Y[i], y_hat))
                            scale = loss if rescaling == "slack" else 1.0
                            counters.oracle_calls += 1
                        else:
                            hat_indices, hat_values = plane.indices, plane.values
                            loss, scale = plane.loss, plane.scale
                        if slack_norm == 2:
                            cone_visit(i, hat_indices, hat_values, loss, scale, blocks)
                            continue
                        gap = visit_block(i, hat_indices, hat_values, loss, scale, blocks)
                        if cache is not None and plane is None:
                            cache.add(i, hat_indices, hat_values, loss, scale, iteration, gap)
                pool.take(blocks)
                # Views of the new pool at once: the old views would keep the arrays the
                # pass outgrew alive through the evaluation.
                block_indices, block_values = pool.vectors()
                if cache is not None:
                    cache.expire(iteration)
            scheduled = iteration % gap_check_every == 0  # the starting point too
            if not scheduled and iteration != counters.iterations[-1]:
                continue
            # The only vector of w's size a state keeps, and one the solver no longer writes to:
            # later steps change w in place, and a continued run rebuilds w and z from the state.
            # The average is formed in z's array, and the next pass rebuilds z from it, so that at
            # most three vectors of w's size (w, z and the state's weights) are held at a time.
            total_loss, average_scale, average_loss = (float(value) for value in sums)
            reported_loss, reported_sums = total_loss, block_sums.copy()
            if averaging and steps[0]:
                reported_w, average_offset = average_offset, None
                reported_w *= average_scale
                reported_w += w
                reported_loss = average_loss
                reported_sums += average_scale * average_sum_offset
            else:
                reported_w = w.copy()
            if not gap_in_compiled_code:
                oracle = examples.oracle_pass(reported_w)
                slacks, certified = oracle.slacks, oracle.certified
            else:
                slacks = compiled_pass.slacks(reported_w)
                certified = compiled_pass.oracle.exact
            counters.oracle_calls += n
            squared_norm = reported_w @ reported_w
            primal = penalty.primal(squared_norm, slacks, C)
            dual = penalty.dual(reported_loss, squared_norm, reported_sums, C)
            bounds, state.w, evaluated_w = (primal, dual, certified), reported_w, None
            if keep_best:
                best_dual = max(best_dual, dual)
                if certified and primal < best_primal:
                    best_primal, best_w = primal, reported_w
                if best_w is not None:
                    bounds, state.w = (best_primal, best_dual, True), best_w
                    evaluated_w = None if best_w is reported_w else reported_w
                else:
                    bounds = (primal, best_dual, certified)
            record = counters.record(iteration, bounds[0], bounds[1], certified=bounds[2])
            record.update(evaluated_primal=primal, evaluated_dual=dual)
            if scheduled:
                duality_gap = primal - dual
            if scheduled and block_gaps is not None and not (averaging and steps[0]):
                # The evaluation was at the iterate itself: its slacks give every exact block
                # gap C ξ_i − ℓ_i + w · w_i for free.
                block_scores = [
                    w[indices] @ values
                    for indices, values in zip(block_indices, block_values, strict=True)
                ]
                block_gaps[:] = C * slacks - block_losses + np.array(block_scores)
            state.converged = meets_tolerance(bounds[0], bounds[1], tol)
            state.dual_state = BCFWDual(
                block_indices, block_values, block_losses, block_sums, total_loss, average_scale,
                average_loss, average_sum_offset, int(steps[0]), rng, bool(averaging),
                block_gaps, cache, duality_gap, evaluated_w, active_sets,
            ).copy()
            state_holds_the_pool_blocks = iteration > 0
            yield state
            if state.converged:
                return
