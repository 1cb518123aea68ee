"""The compiled oracle of pairwise sequence alignment (:class:`tasks.AlignmentTask`).

An alignment of sequences a (length n) and b (length m) is its set of aligned residue pairs,
given as ``partners``: for every residue r of a, the index of its partner in b or -1, the
partners increasing. The residues between two consecutive aligned pairs form two gaps (one in
each sequence, either possibly empty), and the residues before the first pair and after the last
one form the end gaps: a gap of k residues opens once and extends k times (BLAST's convention:
it costs ``open + k · extend``). Global alignment (Needleman–Wunsch) scores the end gaps with
their own weights; local alignment (Smith–Waterman) leaves them out, so its best alignment is
the best-scoring segment pair, and the empty alignment (score 0) when nothing scores above 0.

The dynamic program is Gotoh's, with three states per cell (the last pair aligned, the last
residue of a unaligned, the last residue of b unaligned), in which the gap in a of an interval
between two pairs comes after the gap in b: one path per alignment, so that its score is a
function of the aligned pairs alone, whatever the signs of the weights. Ties go to the first
alternative in the order: end gap, aligned pair, gap in a, gap in b (predecessors of a cell);
and for the last pair, the empty alignment, then cells in row-major order.
"""

from __future__ import annotations

import numba
import numpy as np

#: The predecessor codes of the traceback.
_START, _PAIR, _GAP_IN_B, _GAP_IN_A = 0, 1, 2, 3


@numba.njit(cache=True)
def match_scores(a, b, pair_index, w):
    """Return the (n, m) scores ``w[pair_index[a[r], b[c]]]`` of aligning a[r] with b[c]."""
    scores = np.empty((len(a), len(b)))
    for r in range(len(a)):
        row = pair_index[a[r]]
        for c in range(len(b)):
            scores[r, c] = w[row[b[c]]]
    return scores


@numba.njit(cache=True)
def _end_gap(k, end_open, end_extend):
    """Return the score of an end gap of k residues (0 for none)."""
    return 0.0 if k == 0 else end_open + k * end_extend


@numba.njit(cache=True)
def best_alignment(scores, gap_open, gap_extend, end_open, end_extend):
    """Return the partners of the best alignment under the pair ``scores`` and gap weights.

    ``scores[r, c]`` is the score of aligning residue r of a with residue c of b; a gap of k
    residues between aligned pairs scores ``gap_open + k * gap_extend`` and an end gap
    ``end_open + k * end_extend`` (zero weights for local alignment). Exact; ties as the module
    states. The three states' values are kept for two rows; each cell's three predecessors are
    packed in one byte: bits 0-1 the pair's, bit 2 the gap in b's, bits 3-4 the gap in a's.
    """
    n, m = scores.shape
    lead_b = np.empty(m + 1)  # the end gap of the first c residues of b
    tail_b = np.empty(m + 1)  # the end gap of the residues of b after the c-th
    for c in range(m + 1):
        lead_b[c] = _end_gap(c, end_open, end_extend)
        tail_b[c] = _end_gap(m - c, end_open, end_extend)
    pair = np.full((2, m + 1), -np.inf)
    gap_b = np.full((2, m + 1), -np.inf)  # the last residue of a is unaligned
    gap_a = np.full((2, m + 1), -np.inf)  # the last residue of b is unaligned
    origins = np.zeros((n + 1, m + 1), dtype=np.uint8)
    opening = gap_open + gap_extend
    best_value = _end_gap(n, end_open, end_extend) + lead_b[m]
    best_r, best_c = 0, 0
    for r in range(1, n + 1):
        above, here = (r - 1) % 2, r % 2
        lead_r = _end_gap(r - 1, end_open, end_extend)
        tail_r = _end_gap(n - r, end_open, end_extend)
        row_scores = scores[r - 1]
        for c in range(1, m + 1):
            value, origin = lead_r + lead_b[c - 1], _START
            if pair[above, c - 1] > value:
                value, origin = pair[above, c - 1], _PAIR
            if gap_b[above, c - 1] > value:
                value, origin = gap_b[above, c - 1], _GAP_IN_B
            if gap_a[above, c - 1] > value:
                value, origin = gap_a[above, c - 1], _GAP_IN_A
            pair[here, c] = value + row_scores[c - 1]
            packed = origin

            value, origin = pair[above, c] + opening, _PAIR
            if gap_b[above, c] + gap_extend > value:
                value, origin = gap_b[above, c] + gap_extend, _GAP_IN_B
            gap_b[here, c] = value
            packed |= (origin - 1) << 2

            value, origin = pair[here, c - 1] + opening, _PAIR
            if gap_b[here, c - 1] + opening > value:
                value, origin = gap_b[here, c - 1] + opening, _GAP_IN_B
            if gap_a[here, c - 1] + gap_extend > value:
                value, origin = gap_a[here, c - 1] + gap_extend, _GAP_IN_A
            gap_a[here, c] = value
            origins[r, c] = packed | (origin << 3)

            ending = pair[here, c] + tail_r + tail_b[c]
            if ending > best_value:
                best_value, best_r, best_c = ending, r, c

    partners = np.full(n, -1, dtype=np.int64)
    r, c, state = best_r, best_c, _PAIR
    while r > 0 and c > 0:
        packed = origins[r, c]
        if state == _PAIR:
            partners[r - 1] = c - 1
            state = packed & 3
            r, c = r - 1, c - 1
            if state == _START:
                break
        elif state == _GAP_IN_B:
            state = ((packed >> 2) & 1) + 1
            r -= 1
        else:
            state = (packed >> 3) & 3
            c -= 1
    return partners


@numba.njit(cache=True)
def alignment_counts(a, b, partners, pair_index, n_pairs, scored_ends):
    """Return φ of an alignment as (indices, values): its pairs, gaps and (if scored) end gaps.

    Column ``pair_index[p, q]`` counts the aligned pairs of symbols {p, q}; then come the
    counts of gap openings and of gapped residues between pairs, and, if ``scored_ends``, of
    end-gap openings and end-gapped residues.
    """
    n, m = len(a), len(b)
    counts = np.zeros(n_pairs + (4 if scored_ends else 2))
    previous_r, previous_c = -1, -1
    for r in range(n):
        c = partners[r]
        if c < 0:
            continue
        counts[pair_index[a[r], b[c]]] += 1.0
        gapped_a, gapped_b = r - previous_r - 1, c - previous_c - 1
        if previous_r < 0:
            if scored_ends:
                counts[n_pairs + 2] += (gapped_a > 0) + (gapped_b > 0)
                counts[n_pairs + 3] += gapped_a + gapped_b
        else:
            counts[n_pairs] += (gapped_a > 0) + (gapped_b > 0)
            counts[n_pairs + 1] += gapped_a + gapped_b
        previous_r, previous_c = r, c
    if scored_ends:
        gapped_a, gapped_b = n - previous_r - 1, m - previous_c - 1
        counts[n_pairs + 2] += (gapped_a > 0) + (gapped_b > 0)
        counts[n_pairs + 3] += gapped_a + gapped_b
    indices = np.flatnonzero(counts).astype(np.int64)
    return indices, counts[indices]


@numba.njit(cache=True)
def missed_pairs(reference, partners):
    """Return the number of pairs of the reference alignment that ``partners`` leaves out."""
    missed = 0.0
    for r in range(len(reference)):
        if reference[r] >= 0 and partners[r] != reference[r]:
            missed += 1.0
    return missed


@numba.njit(cache=True)
def decode_alignment(scores, w, n_pairs, scored_ends, reference, augmented):
    """Return the best alignment under the pair ``scores`` and the gap weights in ``w``.

    If ``augmented``, every pair of the ``reference`` alignment scores 1 less (overwriting
    ``scores``): the best alignment then maximises ``w · φ + Δ`` (Δ counting the reference
    pairs left out, which differs from minus the reference pairs kept by a constant).
    """
    if augmented:
        for r in range(len(reference)):
            if reference[r] >= 0:
                scores[r, reference[r]] -= 1.0
    end_open = w[n_pairs + 2] if scored_ends else 0.0
    end_extend = w[n_pairs + 3] if scored_ends else 0.0
    return best_alignment(scores, w[n_pairs], w[n_pairs + 1], end_open, end_extend)


# ------------------------------------------------------------------------------- the protocol
# data = (a, a_offsets, b, b_offsets, references, pair_index, n_pairs, scored_ends): the
# sequences a and b of every example concatenated, with their offsets; the reference partners
# on a's offsets.


@numba.njit(cache=True)
def alignment_scores(data, i, w):
    """Return example i's (n, m) pair scores."""
    a, a_offsets, b, b_offsets, _, pair_index, _, _ = data
    return match_scores(
        a[a_offsets[i] : a_offsets[i + 1]], b[b_offsets[i] : b_offsets[i + 1]], pair_index, w
    )


@numba.njit(cache=True)
def alignment_decode(data, i, w, scores, augmented):
    """Return the partners of example i's best (loss-augmented if asked) alignment."""
    a_offsets, references, n_pairs, scored_ends = data[1], data[4], data[6], data[7]
    reference = references[a_offsets[i] : a_offsets[i + 1]]
    return decode_alignment(scores, w, n_pairs, scored_ends, reference, augmented)


@numba.njit(cache=True)
def alignment_features(data, i, labels):
    """Return φ(x_i, y) of the alignment whose partners are ``labels``."""
    a, a_offsets, b, b_offsets, _, pair_index, n_pairs, scored_ends = data
    return alignment_counts(
        a[a_offsets[i] : a_offsets[i + 1]],
        b[b_offsets[i] : b_offsets[i + 1]],
        labels,
        pair_index,
        n_pairs,
        scored_ends,
    )


@numba.njit(cache=True)
def alignment_loss(data, i, labels):
    """Return the number of example i's reference pairs that ``labels`` leaves out."""
    a_offsets, references = data[1], data[4]
    return missed_pairs(references[a_offsets[i] : a_offsets[i + 1]], labels)
