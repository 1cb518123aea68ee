"""The compiled steps of block-coordinate Frank–Wolfe, shared by its Python loop and its compiled
pass (:mod:`structsvm.solvers._bcfw_pass`), which thus take the same steps. The dual blocks live
in one pool of sorted sparse vectors (:func:`store_block`); the steps update the records
:class:`BlockDual` and :class:`Atoms` in place.
"""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
from numba.core import types
from numba.experimental import structref

from structsvm.solvers._compiled_arrays import copy_values

# Below this scale the lazy average folds σ into z, so that z cannot overflow.
SMALLEST_SCALE = 1e-100

# Scores of active labellings closer than this (relative) count as tied (see away_atom).
AWAY_TIES = 1e-11


class _RecordType(types.StructRef):
    def preprocess_fields(self, fields: tuple) -> tuple:
        return tuple((name, types.unliteral(field)) for name, field in fields)


@structref.register
class _BlockDualType(_RecordType):
    pass


@structref.register
class _AtomsType(_RecordType):
    pass


class BlockDual(structref.StructRefProxy):
    """A run's dual as the compiled steps read and update it (build it with :func:`block_dual`).

    Fields: ``true_indptr, true_indices, true_values`` (the rows φ(x_i, y_i) in CSR form with
    sorted column indices), ``C``, ``averaging``, ``smallest_scale`` (see
    :func:`advance_average`), ``block_gaps`` (empty, or of shape (n,) to record the steps' block
    gaps in), the blocks in a pool as :func:`store_block` keeps them (``starts, lengths,
    pool_indices, pool_values, pool_used``), ``block_losses`` and ``block_sums`` (the ℓ_i and
    β_i), the iterate ``w``, the lazy average's offsets ``average_offset`` and
    ``average_sum_offset``, ``sums = [Σ_i ℓ_i, σ, average Σ_i ℓ_i]`` and ``steps = [steps]``.
    """


class Atoms(structref.StructRefProxy):
    """The active sets of pairwise steps (build it with :func:`atoms`).

    Block i's labellings occupy ``labels[k, positions[i]:positions[i + 1]]`` for its slots
    ``k < counts[i]``, with masses ``weights[i, k]`` and losses ``losses[i, k]``; their φ are the
    vectors ``i K + k`` (K = ``weights.shape[1]``) of a pool as :func:`store_block` keeps it
    (``starts, lengths, pool_indices, pool_values, pool_used``).
    """


structref.define_proxy(BlockDual, _BlockDualType, [
    "true_indptr", "true_indices", "true_values", "C", "averaging", "smallest_scale",
    "block_gaps", "starts", "lengths", "pool_indices", "pool_values", "pool_used",
    "block_losses", "block_sums", "w", "average_offset", "average_sum_offset", "sums", "steps",
])  # fmt: skip
structref.define_proxy(Atoms, _AtomsType, [
    "positions", "labels", "weights", "counts", "losses", "starts", "lengths", "pool_indices",
    "pool_values", "pool_used",
])  # fmt: skip


@numba.njit(cache=True)
def block_dual(*fields):
    """Return a :class:`BlockDual` of the given fields (compiled, so that it is built fast)."""
    return BlockDual(*fields)


@numba.njit(cache=True)
def atoms(*fields):
    """Return an :class:`Atoms` of the given fields."""
    return Atoms(*fields)


@numba.njit(cache=True)
def _pool_of(record):
    """Return the ``pool_indices``, ``pool_values`` and ``pool_used[0]`` of ``record``."""
    return record.pool_indices, record.pool_values, record.pool_used[0]


@numba.njit(cache=True)
def _nonzero(indices: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the entries of a sparse vector whose values are not zero, in fresh arrays.

    Blocks keep only these (entries of φ(x_i, y_i) and φ(x_i, ŷ) that cancel would otherwise
    stay for good); a zero adds nothing to any product, so the iterates are unchanged.
    """
    kept = values != 0.0
    return indices[kept], values[kept]


@numba.njit(cache=True)
def away_atom(scores: np.ndarray, count: int) -> int:
    """Return the active labelling of a block with the lowest loss-augmented score (BCPFW).

    ``scores[k] = Δ(y_i, y_k) + w · φ(x_i, y_k)`` for the block's active labellings
    ``k < count``: the lowest is the one whose corner is worst for the block's linear
    subproblem (Osokin et al. 2016, the away corner). Scores within :data:`AWAY_TIES` (relative)
    of the lowest count as tied and the first of them wins: the exact line search of a pairwise
    step leaves its two labellings with equal scores, and the rounding of the way they are
    scored (the compiled pass or the Python loop) must not decide between them.
    """
    lowest = np.min(scores[:count])
    tied = lowest + AWAY_TIES * (1.0 + abs(lowest))
    for k in range(count):
        if scores[k] <= tied:
            return k
    return 0


@numba.njit(cache=True)
def shift_mass(
    weights: np.ndarray, count: int, hat_slot: int, away: int, step: float
) -> tuple[int, bool]:
    """Move mass γ = ``step`` from the away labelling to ŷ in a block's active set, in place.

    ``weights[:count]`` are the active labellings' masses; ``hat_slot`` is ŷ's slot, ``count``
    if ŷ is not active (it joins there only if γ > 0). When γ is all of the away labelling's
    mass (the line search clipped at it) the labelling leaves the set: the last active slot
    moves into its slot. Returns the new count and whether the away labelling left, so that
    the caller moves the labelling stored in slot ``count`` (the new count) to slot ``away``.
    """
    if step <= 0.0:
        return count, False
    if hat_slot == count:
        weights[hat_slot] = 0.0
        count += 1
    weights[hat_slot] += step
    if step >= weights[away]:
        count -= 1
        weights[away] = weights[count]
        weights[count] = 0.0
        return count, True
    weights[away] -= step
    return count, False


@numba.njit(cache=True)
def _union(
    true_indices: np.ndarray, true_values: np.ndarray, hat_indices: np.ndarray,
    hat_values: np.ndarray, block_indices: np.ndarray, block_values: np.ndarray,
    corner_scale: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(indices, corner, block)``: ``c (t − h)`` and ``w_i`` on their supports' union.

    ``t``, ``h`` and ``w_i`` are the sparse vectors ``(true_indices, true_values)``,
    ``(hat_indices, hat_values)`` and ``(block_indices, block_values)``, ``c = corner_scale``;
    ``indices`` is the sorted union of their supports, with zeros where a vector has no entry.
    """
    n_true, n_hat, n_block = len(true_indices), len(hat_indices), len(block_indices)
    size = n_true + n_hat + n_block
    indices = np.empty(size, dtype=np.int64)
    corner = np.empty(size)
    block = np.empty(size)
    past_end = np.iinfo(np.int64).max
    p = q = r = m = 0
    while p < n_true or q < n_hat or r < n_block:
        at_true = true_indices[p] if p < n_true else past_end
        at_hat = hat_indices[q] if q < n_hat else past_end
        at_block = block_indices[r] if r < n_block else past_end
        index = min(at_true, at_hat, at_block)
        if at_true == index and at_hat == index:
            corner[m] = corner_scale * true_values[p] + -corner_scale * hat_values[q]
            p += 1
            q += 1
        elif at_true == index:
            corner[m] = corner_scale * true_values[p]
            p += 1
        elif at_hat == index:
            corner[m] = -corner_scale * hat_values[q]
            q += 1
        else:
            corner[m] = 0.0
        block[m] = 0.0
        if at_block == index:
            block[m] = block_values[r]
            r += 1
        indices[m] = index
        m += 1
    return indices[:m], corner[:m], block[:m]


@numba.njit(cache=True)
def _line_step(
    dual: BlockDual, union: tuple, block_weight: float, loss_gain: float, max_step: float
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Step a block along ``d = corner − b w_i`` by ``γ = clip((loss_gain − w · d) / ‖d‖², 0,
    max_step)``, updating ``w`` and the lazy average's offset in place.

    ``union = (indices, corner, block)`` is from :func:`_union`, ``b = block_weight`` (1: a
    Frank–Wolfe step, 0: a pairwise one) and ``loss_gain`` the change of ℓ_i along d. Returns
    the new block's nonzero entries, γ and the gap ``loss_gain − w · d`` before the step.
    """
    w, average_offset, average_scale = dual.w, dual.average_offset, dual.sums[1]
    indices, corner, block = union
    m = len(indices)
    direction = np.empty(m)
    score_change = 0.0
    curvature = 0.0
    for n in range(m):
        direction[n] = corner[n] - block_weight * block[n]
        score_change += w[indices[n]] * direction[n]
        curvature += direction[n] * direction[n]
    gap = loss_gain - score_change
    step = 0.0
    if curvature > 0:
        step = min(max(gap / curvature, 0.0), max_step)
    elif gap > 0:
        # A zero direction leaves w alone: the dual gains gap · γ, so the full step is exact.
        step = max_step
    values = np.empty(m)
    for n in range(m):
        values[n] = step * direction[n] + block[n]
        w[indices[n]] += step * direction[n]
        if dual.averaging:
            average_offset[indices[n]] -= (step / average_scale) * direction[n]
    indices, values = _nonzero(indices, values)
    return indices, values, step, gap


@numba.njit(cache=True)
def _best_in_cone(
    linear_a: float, linear_b: float, h_aa: float, h_ab: float, h_bb: float
) -> tuple[float, float]:
    """Return ``(a, b) >= 0`` maximising ``la a + lb b − ½ (h_aa a² + 2 h_ab a b + h_bb b²)``.

    The quadratic is concave (its matrix is a Gram matrix) with ``h_bb > 0``: the maximum is the
    best of the stationary point, if it is in the quadrant, and the maxima on the two edges.
    """
    best_a, best_b, best = 0.0, 0.0, 0.0
    if h_aa > 0 and linear_a > 0:
        a = linear_a / h_aa
        value = 0.5 * linear_a * a
        if value > best:
            best_a, best_b, best = a, 0.0, value
    if linear_b > 0:
        b = linear_b / h_bb
        value = 0.5 * linear_b * b
        if value > best:
            best_a, best_b, best = 0.0, b, value
    determinant = h_aa * h_bb - h_ab * h_ab
    if determinant > 1e-12 * h_aa * h_bb:
        a = (h_bb * linear_a - h_ab * linear_b) / determinant
        b = (h_aa * linear_b - h_ab * linear_a) / determinant
        if a >= 0 and b >= 0:
            value = 0.5 * (linear_a * a + linear_b * b)
            if value > best:
                best_a, best_b = a, b
    return best_a, best_b


@numba.njit(cache=True)
def advance_average(dual: BlockDual) -> None:
    """Fold step number ``steps[0]`` into the lazy weighted average of ``dual``, in place.

    With ``ρ = 2 / (steps + 1)`` the scale σ becomes ``(1 − ρ) σ`` and the average of
    ``Σ_i ℓ_i`` becomes ``(1 − ρ) average + ρ Σ_i ℓ_i``; a σ below ``smallest_scale`` is folded
    into the offsets, which keeps them from overflowing (the first step, ρ = 1, thereby sets the
    average to the iterate).
    """
    weight = 2.0 / (dual.steps[0] + 1)
    sums, average_offset, average_sum_offset = (
        dual.sums, dual.average_offset, dual.average_sum_offset
    )
    sums[1] *= 1 - weight
    sums[2] = (1 - weight) * sums[2] + weight * sums[0]
    if sums[1] < dual.smallest_scale:
        average_offset *= sums[1]
        average_sum_offset *= sums[1]
        sums[1] = 1.0


@numba.njit(cache=True)
def pack_blocks(
    starts: np.ndarray, lengths: np.ndarray, pool_indices: np.ndarray, pool_values: np.ndarray,
    capacity: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Copy the blocks of a pool, packed in order, into new arrays of ``capacity`` entries.

    The pool is as in :func:`store_block`; its arrays are left as they were and ``starts`` is
    set to the blocks' places in the new arrays. Returns the new arrays (indices of the pool's
    integer type) and the number of their entries in use.
    """
    packed_indices = np.empty(capacity, dtype=pool_indices.dtype)
    packed_values = np.empty(capacity, dtype=np.float64)
    used = 0
    for j in range(len(lengths)):
        begin = starts[j]
        for p in range(lengths[j]):
            packed_indices[used + p] = pool_indices[begin + p]
            packed_values[used + p] = pool_values[begin + p]
        starts[j] = used
        used += lengths[j]
    return packed_indices, packed_values, used


@numba.njit(cache=True)
def store_block(record, i, indices, values):
    """Make vector i of the pool of ``record`` (a :class:`BlockDual` or :class:`Atoms`) the
    sparse vector ``(indices, values)``.

    Vector j is ``pool_indices[starts[j]:starts[j] + lengths[j]]`` and the same slice of
    ``pool_values``; ``pool_used[0]`` entries are in use. A vector is written after them, never
    over an entry in use, so views of earlier vectors stay valid; a full pool is first packed
    into new arrays twice the size of its vectors (:func:`pack_blocks`), set in ``record``.
    """
    size = len(indices)
    used = record.pool_used[0]
    if used + size > len(record.pool_indices):
        capacity = 2 * (np.sum(record.lengths) + size) + 16
        record.pool_indices, record.pool_values, used = pack_blocks(
            record.starts, record.lengths, record.pool_indices, record.pool_values, capacity
        )
    for p in range(size):
        record.pool_indices[used + p] = indices[p]
        record.pool_values[used + p] = values[p]
    record.starts[i] = used
    record.lengths[i] = size
    record.pool_used[0] = used + size


@numba.njit(cache=True)
def record_step(dual, i, indices, values, loss_change):
    """End a step: make block i ``(indices, values)``, change ℓ_i and ``Σ_i ℓ_i`` by
    ``loss_change``, count the step and advance the lazy average."""
    store_block(dual, i, indices, values)
    dual.block_losses[i] += loss_change
    dual.sums[0] += loss_change
    dual.steps[0] += 1
    if dual.averaging:
        advance_average(dual)


@numba.njit(cache=True)
def _corner_union(dual, i, hat_indices, hat_values, corner_scale):
    """Return :func:`_union` of φ(x_i, y_i), φ(x_i, ŷ) and block i."""
    begin, end = dual.true_indptr[i], dual.true_indptr[i + 1]
    block_begin, block_end = dual.starts[i], dual.starts[i] + dual.lengths[i]
    return _union(
        dual.true_indices[begin:end], dual.true_values[begin:end], hat_indices, hat_values,
        dual.pool_indices[block_begin:block_end], dual.pool_values[block_begin:block_end],
        corner_scale,
    )


@numba.njit(cache=True)
def visit_block(i, hat_indices, hat_values, loss, scale, dual):
    """Take the BCFW step on block i towards the corner of ŷ; return the block gap.

    The corner is ``s = C scale (φ(x_i, y_i) − φ(x_i, ŷ))``, ``ℓ_s = C Δ(y_i, ŷ)``, from the
    sorted sparse φ(x_i, ŷ) (``hat_indices``, ``hat_values``), ``loss = Δ(y_i, ŷ)`` and
    ``scale`` (1, or Δ(y_i, ŷ) under slack rescaling). The step is the exact line search
    ``γ = clip(g_i / ‖s − w_i‖², 0, 1)`` with the block's duality gap
    ``g_i = ℓ_s − ℓ_i − w · (s − w_i)``, which is returned (and kept in ``dual.block_gaps``
    if it is not empty).
    """
    loss_gain = dual.C * loss - dual.block_losses[i]
    union = _corner_union(dual, i, hat_indices, hat_values, dual.C * scale)
    indices, values, step, gap = _line_step(dual, union, 1.0, loss_gain, 1.0)
    if len(dual.block_gaps) > 0:
        dual.block_gaps[i] = gap
    record_step(dual, i, indices, values, step * loss_gain)
    return gap


@numba.njit(cache=True)
def cone_visit(i, hat_indices, hat_values, loss, scale, dual):
    """Replace block i by its best point ``a (w_i, ℓ_i, β_i) + b (v, Δ, 1)`` (L2 slacks).

    ``v = scale (φ(x_i, y_i) − φ(x_i, ŷ))`` and ``Δ = loss = Δ(y_i, ŷ)``, as for
    :func:`visit_block`.
    """
    C, w, block_sums, block_losses = dual.C, dual.w, dual.block_sums, dual.block_losses
    indices, corner, block = _corner_union(dual, i, hat_indices, hat_values, scale)
    block_norm = cross = corner_norm = w_block = w_corner = 0.0
    for n in range(len(indices)):
        block_norm += block[n] * block[n]
        cross += block[n] * corner[n]
        corner_norm += corner[n] * corner[n]
        w_block += w[indices[n]] * block[n]
        w_corner += w[indices[n]] * corner[n]
    # The dual as a function of (a, b), with the other blocks' part of w held fixed.
    a, b = _best_in_cone(
        block_losses[i] - (w_block - block_norm),
        loss - (w_corner - cross),
        block_norm + block_sums[i] * block_sums[i] / C,
        cross + block_sums[i] / C,
        corner_norm + 1.0 / C,
    )
    values = np.empty(len(indices))
    for n in range(len(indices)):
        values[n] = a * block[n] + b * corner[n]
        change = values[n] - block[n]
        w[indices[n]] += change
        if dual.averaging:
            dual.average_offset[indices[n]] -= change / dual.sums[1]
    indices, values = _nonzero(indices, values)
    sum_change = (a - 1.0) * block_sums[i] + b
    loss_change = (a - 1.0) * block_losses[i] + b * loss
    block_sums[i] += sum_change
    if dual.averaging:
        dual.average_sum_offset[i] -= sum_change / dual.sums[1]
    record_step(dual, i, indices, values, loss_change)


@numba.njit(cache=True)
def pairwise_visit(
    i, hat_slot, hat_labels, hat_indices, hat_values, hat_loss, hat_score, scores, dual, atoms
):
    """Take the pairwise step (BCPFW) on block i; return γ and the away labelling's slot.

    The step moves mass γ from the away labelling v (:func:`away_atom` of the active
    labellings' ``scores``) to the oracle's ŷ, from the corner ``C ψ_i(v)`` to ``C ψ_i(ŷ)``, by
    the exact line search clipped at v's mass (Osokin et al. 2016); the active sets follow
    (:func:`shift_mass`), and ``dual.block_gaps[i]``, if kept, gets the Frank–Wolfe gap
    ``C (s(ŷ) − Σ_k α_k s(y_k))``. ŷ is in slot ``hat_slot`` (the block's count if not
    active), with labels ``hat_labels``, sorted sparse φ(x_i, ŷ), loss Δ(y_i, ŷ) and score
    ``s(ŷ) = Δ(y_i, ŷ) + w · φ(x_i, ŷ)``; the caller has made room for one more slot.
    """
    first, stop = atoms.positions[i], atoms.positions[i + 1]
    count = atoms.counts[i]
    slot = i * atoms.weights.shape[1]
    away_slot = away_atom(scores, count)
    away_begin = atoms.starts[slot + away_slot]
    away_end = away_begin + atoms.lengths[slot + away_slot]
    if len(dual.block_gaps) > 0:
        mean = 0.0
        for k in range(count):
            mean += atoms.weights[i, k] * scores[k]
        dual.block_gaps[i] = dual.C * (hat_score - mean)
    block_begin, block_end = dual.starts[i], dual.starts[i] + dual.lengths[i]
    loss_gain = dual.C * (hat_loss - atoms.losses[i, away_slot])
    union = _union(
        atoms.pool_indices[away_begin:away_end], atoms.pool_values[away_begin:away_end],
        hat_indices, hat_values, dual.pool_indices[block_begin:block_end],
        dual.pool_values[block_begin:block_end], dual.C * 1.0,
    )
    indices, values, step, _ = _line_step(dual, union, 0.0, loss_gain, atoms.weights[i, away_slot])
    if step > 0.0 and hat_slot == count:
        copy_values(atoms.labels[count, first:stop], hat_labels)
        atoms.losses[i, count] = hat_loss
        store_block(atoms, slot + count, hat_indices, hat_values)
    new_count, left = shift_mass(atoms.weights[i], count, hat_slot, away_slot, step)
    if left:
        copy_values(atoms.labels[away_slot, first:stop], atoms.labels[new_count, first:stop])
        atoms.losses[i, away_slot] = atoms.losses[i, new_count]
        atoms.starts[slot + away_slot] = atoms.starts[slot + new_count]
        atoms.lengths[slot + away_slot] = atoms.lengths[slot + new_count]
        atoms.lengths[slot + new_count] = 0
    atoms.counts[i] = new_count
    record_step(dual, i, indices, values, step * loss_gain)
    return step, away_slot


def pool_index_type(size: int) -> type[np.signedinteger]:
    """Return the integer type of a pool's indices into a joint feature of ``size``.

    int32 when every index fits, which saves a quarter of the pool, else int64.
    """
    return np.int32 if size <= np.iinfo(np.int32).max + 1 else np.int64


@dataclasses.dataclass
class SparsePool:
    """Sorted sparse vectors packed in one pool, as :func:`store_block` keeps them.

    Vector j is ``indices[starts[j]:starts[j] + lengths[j]]`` and the same slice of ``values``
    (``starts`` and ``lengths`` may have any shape; the compiled functions read them flat);
    ``used`` entries of the pool are taken. Entries in use are never written over, so views of
    the vectors stay valid while a run goes on.
    """

    starts: np.ndarray
    lengths: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    used: int

    @classmethod
    def of(
        cls, indices: list[np.ndarray], values: list[np.ndarray], index_type: type[np.signedinteger]
    ) -> SparsePool:
        """Pack vectors given as lists of indices and values (copying them), with as much room
        again after them."""
        lengths = np.array([len(vector) for vector in indices], dtype=np.int64)
        starts = np.zeros(len(lengths), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        used = int(lengths.sum())
        capacity = 2 * used + 16
        pool = cls(starts, lengths, np.empty(capacity, index_type), np.empty(capacity), used)
        if used:
            pool.indices[:used] = np.concatenate(indices)
            pool.values[:used] = np.concatenate(values)
        return pool

    def record_fields(self) -> tuple:
        """Return ``(starts, lengths, indices, values, [used])``, flat, as a record holds them."""
        return (
            self.starts.reshape(-1), self.lengths.reshape(-1), self.indices, self.values,
            np.array([self.used], dtype=np.int64),
        )

    def take(self, record: BlockDual | Atoms) -> None:
        """Take the pool arrays and their use from ``record``, whose steps wrote this pool."""
        self.indices, self.values, used = _pool_of(record)
        self.used = int(used)

    def pack(self, room: int) -> None:
        """Move the vectors, packed, into fresh arrays with ``room`` free entries after them.

        The old arrays are left as they were, so views of them stay valid; they are freed once
        nothing refers to them.
        """
        self.indices, self.values, used = pack_blocks(
            self.starts.reshape(-1), self.lengths.reshape(-1), self.indices, self.values,
            int(self.lengths.sum()) + room,
        )
        self.used = int(used)

    def vectors(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Return all vectors, flat, as lists of views of the pool."""
        ends = (self.starts + self.lengths).ravel().tolist()
        bounds = list(zip(self.starts.ravel().tolist(), ends, strict=True))
        return [self.indices[a:b] for a, b in bounds], [self.values[a:b] for a, b in bounds]

    def copy(self) -> SparsePool:
        """Return a copy of the places of the vectors that shares the pool's arrays."""
        return dataclasses.replace(self, starts=self.starts.copy(), lengths=self.lengths.copy())
