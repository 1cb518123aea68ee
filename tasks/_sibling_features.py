"""Hashed features of adjacent siblings in dependency trees, after McDonald & Pereira (EACL 2006).

A head's dependents on one side, taken outward from the head, make sibling parts
``(h, s, d)``: d hangs from h and s is the dependent of h on the same side next before d, or
``s = h`` when d is the closest one (no sibling). The features of a part, hashed into the same
columns as the arc features (:mod:`tasks._dependency_features`): the tags of head, sibling and
dependent; the sibling's and the dependent's tags, words, and word with the other's tag (five
templates), each alone and joined with the direction and the distance from s to d. A sibling
that is the head itself is the code :data:`NO_SIBLING` in every template.
"""

from __future__ import annotations

import numba
import numpy as np

from tasks._dependency_features import _distinct_counts, _emit, distance_bucket

#: The code of the absent sibling of a head's closest dependent (outside the text codes).
NO_SIBLING = 2**62 + 4

#: The number of sibling templates (a part has twice that many features).
N_SIBLING_TEMPLATES = 5


@numba.njit(cache=True)
def sibling_columns(words, tags, h, s, d, width, out):
    """Write the feature columns of the sibling part (h, s, d) into ``out``; return how many.

    ``s == h`` is the part of h's closest dependent on d's side. ``out`` must hold
    ``2 * N_SIBLING_TEMPLATES`` entries.
    """
    joined = distance_bucket(s, d)
    ht, dw, dt = tags[h], words[d], tags[d]
    sw, st = (NO_SIBLING, NO_SIBLING) if s == h else (words[s], tags[s])
    k = _emit(out, 0, width, joined, 51, ht, st, dt, 0)
    k = _emit(out, k, width, joined, 52, st, dt, 0, 0)
    k = _emit(out, k, width, joined, 53, sw, dw, 0, 0)
    k = _emit(out, k, width, joined, 54, sw, dt, 0, 0)
    return _emit(out, k, width, joined, 55, st, dw, 0, 0)


@numba.njit(cache=True)
def _part_score(words, tags, h, s, d, w, width, out):
    """Return ``w · f(h, s, d)``, the score of one sibling part."""
    count = sibling_columns(words, tags, h, s, d, width, out)
    total = 0.0
    for k in range(count):
        total += w[out[k]]
    return total


@numba.njit(cache=True)
def sibling_scores(words, tags, w, width):
    """Return the (n + 1, n + 1, n + 1) sibling scores ``scores[h, s, d] = w · f(h, s, d)``.

    Only the parts a projective tree can have are scored: s = h, or s strictly between h and d
    for a word h (the root has one dependent); the other entries are 0.
    """
    n1 = len(words)
    scores = np.zeros((n1, n1, n1))
    out = np.empty(2 * N_SIBLING_TEMPLATES, dtype=np.int64)
    for d in range(1, n1):
        scores[0, 0, d] = _part_score(words, tags, 0, 0, d, w, width, out)
    for h in range(1, n1):
        for d in range(1, n1):
            if d == h:
                continue
            scores[h, h, d] = _part_score(words, tags, h, h, d, w, width, out)
            for s in range(min(h, d) + 1, max(h, d)):
                scores[h, s, d] = _part_score(words, tags, h, s, d, w, width, out)
    return scores


@numba.njit(cache=True)
def sibling_parts(heads):
    """Return the sibling parts ``(h, s, d)`` of a tree, one row per word d (in word order)."""
    n = len(heads)
    parts = np.empty((n, 3), dtype=np.int64)
    for d in range(1, n + 1):
        h = heads[d - 1]
        # the dependent of h next to d on h's side of d, towards h; h itself if none
        s = h
        step = 1 if d < h else -1
        for between in range(d + step, h, step):
            if heads[between - 1] == h:
                s = between
                break
        parts[d - 1, 0], parts[d - 1, 1], parts[d - 1, 2] = h, s, d
    return parts


@numba.njit(cache=True)
def second_order_tree_columns(words, tags, arc_columns, heads, width):
    """Return φ of a tree, its arcs' ``arc_columns`` and its sibling parts' features, summed.

    The result is sorted distinct columns and their counts.
    """
    parts = sibling_parts(heads)
    n = len(heads)
    columns = np.empty(len(arc_columns) + 2 * N_SIBLING_TEMPLATES * n, dtype=np.int64)
    columns[: len(arc_columns)] = arc_columns
    k = len(arc_columns)
    for p in range(n):
        k += sibling_columns(words, tags, parts[p, 0], parts[p, 1], parts[p, 2], width, columns[k:])
    columns = np.sort(columns[:k])
    indices = np.empty(k, dtype=np.int64)
    values = np.empty(k)
    m = _distinct_counts(columns, indices, values, 0, True)
    return indices[:m], values[:m]
