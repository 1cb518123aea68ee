"""The second-order projective decoder and the compiled oracle of sibling dependency parsing.

A tree scores the sum of its arcs' scores ``arcs[h, d]`` and of its sibling parts' scores
``siblings[h, s, d]`` (:mod:`tasks._sibling_features`). :func:`second_order_eisner` finds the
best projective single-root tree by McDonald & Pereira's (EACL 2006) extension of Eisner's
O(n³) dynamic program: a head gathers its dependents on each side outward, one at a time, each
next to the one before it, through "sibling" spans between two adjacent dependents. The loss
(words with a wrong head) is a sum over arcs, so loss-augmented decoding adds it to the arc
scores and stays exact. Ties: the first split point, the closest-dependent case before any
sibling, siblings and root word in increasing order.
"""

from __future__ import annotations

import numba
import numpy as np

from tasks._dependency_features import arc_scores, tree_arc_columns
from tasks._dependency_oracle import (
    add_loss,
    adjacent_spans,
    best_root,
    complete_spans,
    push_span,
    sentence_codes,
)
from tasks._sibling_features import second_order_tree_columns, sibling_scores

# The kinds of span read back from the chart (the stack's fourth column).
_INCOMPLETE, _COMPLETE, _SIBLING = 0, 1, 2


@numba.njit(cache=True)
def second_order_eisner(arcs, siblings):
    """Return the heads of the best projective single-root tree under arc and sibling scores.

    ``arcs`` has shape (n + 1, n + 1), ``arcs[h, d]`` the score of h → d; ``siblings`` has
    shape (n + 1, n + 1, n + 1), ``siblings[h, s, d]`` the score of d hanging from h next to
    its sibling s (``s = h``: d is h's closest dependent on its side; the root's one dependent
    is ``siblings[0, 0, d]``).
    """
    n = arcs.shape[0] - 1
    # [s, t, 0]: a span s..t headed at t (arcs leftward), [s, t, 1]: headed at s;
    # sibling[s, t]: s and t are adjacent dependents of a head outside s..t.
    complete = np.zeros((n + 1, n + 1, 2))
    incomplete = np.zeros((n + 1, n + 1, 2))
    sibling = np.zeros((n + 1, n + 1))
    complete_split = np.zeros((n + 1, n + 1, 2), dtype=np.int64)
    incomplete_split = np.zeros((n + 1, n + 1, 2), dtype=np.int64)
    sibling_split = np.zeros((n + 1, n + 1), dtype=np.int64)
    for length in range(1, n):
        for s in range(1, n - length + 1):
            t = s + length
            sibling[s, t], sibling_split[s, t] = adjacent_spans(complete, s, t)
            # t → s: s is t's closest left dependent (split t), or s's sibling r lies between
            best = complete[s, t - 1, 1] + siblings[t, t, s]
            split = t
            for r in range(s + 1, t):
                value = sibling[s, r] + incomplete[r, t, 0] + siblings[t, r, s]
                if value > best:
                    best, split = value, r
            incomplete[s, t, 0] = best + arcs[t, s]
            incomplete_split[s, t, 0] = split
            # s → t: t is s's closest right dependent (split s), or t's sibling r lies between
            best = complete[s + 1, t, 0] + siblings[s, s, t]
            split = s
            for r in range(s + 1, t):
                value = incomplete[s, r, 1] + sibling[r, t] + siblings[s, r, t]
                if value > best:
                    best, split = value, r
            incomplete[s, t, 1] = best + arcs[s, t]
            incomplete_split[s, t, 1] = split
            complete_spans(complete, incomplete, complete_split, s, t)
    root = best_root(arcs[0] + siblings[0, 0], complete)
    return _read_back(n, root, complete_split, incomplete_split, sibling_split)


@numba.njit(cache=True)
def _read_back(n, root, complete_split, incomplete_split, sibling_split):
    """Return the heads of the tree the chart's split points of the best root word make."""
    heads = np.zeros(n, dtype=np.int64)
    # A stack of spans to read back, rows (s, t, direction, kind).
    stack = np.empty((4 * n + 4, 4), dtype=np.int64)
    top = push_span(stack, 0, 1, root, 0, _COMPLETE)
    top = push_span(stack, top, root, n, 1, _COMPLETE)
    while top > 0:
        top -= 1
        s, t, direction, kind = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if s == t:
            continue
        if kind == _COMPLETE:
            r = complete_split[s, t, direction]
            if direction == 0:
                top = push_span(stack, top, s, r, 0, _COMPLETE)
                top = push_span(stack, top, r, t, 0, _INCOMPLETE)
            else:
                top = push_span(stack, top, s, r, 1, _INCOMPLETE)
                top = push_span(stack, top, r, t, 1, _COMPLETE)
        elif kind == _SIBLING:
            r = sibling_split[s, t]
            top = push_span(stack, top, s, r, 1, _COMPLETE)
            top = push_span(stack, top, r + 1, t, 0, _COMPLETE)
        else:
            r = incomplete_split[s, t, direction]
            if direction == 0:
                heads[s - 1] = t
                if r == t:
                    top = push_span(stack, top, s, t - 1, 1, _COMPLETE)
                else:
                    top = push_span(stack, top, s, r, 0, _SIBLING)
                    top = push_span(stack, top, r, t, 0, _INCOMPLETE)
            else:
                heads[t - 1] = s
                if r == s:
                    top = push_span(stack, top, s + 1, t, 0, _COMPLETE)
                else:
                    top = push_span(stack, top, s, r, 1, _INCOMPLETE)
                    top = push_span(stack, top, r, t, 0, _SIBLING)
    heads[root - 1] = 0
    return heads


@numba.njit(cache=True)
def decode_sibling_tree(arcs, siblings, gold, weights, augmented):
    """Return the best projective tree, loss-augmented (against ``gold``, with the words'
    loss ``weights``, added to ``arcs`` in place) if ``augmented``."""
    if augmented:
        add_loss(arcs, gold, weights)
    return second_order_eisner(arcs, siblings)


@numba.njit(cache=True)
def sibling_tree_columns(words, tags, prefixes, heads, width):
    """Return φ of a tree, its arc and sibling features summed, as sorted columns and counts."""
    arc_columns = tree_arc_columns(words, tags, prefixes, heads, width)[0]
    return second_order_tree_columns(words, tags, arc_columns, heads, width)


# ------------------------------------------------------------------------------- the protocol
# data as for first-order parsing (tasks._dependency_oracle), whose loss function it shares:
# (words, tags, prefixes, token_offsets, gold, weights, word_offsets, width, decoder).


@numba.njit(cache=True)
def sibling_dependency_scores(data, i, w):
    """Return example i's part scores: the (n + 1, n + 1) arc scores on top of the sibling
    scores, ``(n + 1) * (n + 1)`` rows ``h * (n + 1) + s`` of n + 1 columns ``d``."""
    words, tags, prefixes, width = sentence_codes(data, i)
    n1 = len(words)
    scores = np.empty((n1 * (n1 + 1), n1))
    scores[:n1] = arc_scores(words, tags, prefixes, w, width)
    scores[n1:] = sibling_scores(words, tags, w, width).reshape((n1 * n1, n1))
    return scores


@numba.njit(cache=True)
def sibling_dependency_decode(data, i, w, scores, augmented):
    """Return the heads of example i's best (loss-augmented if asked) projective tree."""
    gold, weights, offsets = data[4], data[5], data[6]
    begin, end = offsets[i], offsets[i + 1]
    n1 = scores.shape[1]
    siblings = scores[n1:].reshape((n1, n1, n1))
    return decode_sibling_tree(
        scores[:n1], siblings, gold[begin:end], weights[begin:end], augmented
    )


@numba.njit(cache=True)
def sibling_dependency_features(data, i, labels):
    """Return φ(x_i, y) of the tree whose heads are ``labels``."""
    words, tags, prefixes, width = sentence_codes(data, i)
    return sibling_tree_columns(words, tags, prefixes, labels, width)
