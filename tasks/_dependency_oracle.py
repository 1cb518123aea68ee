"""The decoders and the compiled oracle of first-order dependency parsing.

A tree over a sentence of n words is its ``heads``: for every word d (1 … n), its head, 0 for
the root; exactly one word hangs from the root and every word reaches the root. A tree's score
is the sum of its arcs' scores ``scores[h, d]``. :func:`eisner` finds the best projective tree
(no arcs cross) by Eisner's O(n³) dynamic program (Eisner 1996), :func:`chu_liu_edmonds` the
best tree of all by the Chu–Liu/Edmonds algorithm (Chu & Liu 1965; Edmonds 1967), both with a
single root word. The loss counts the words with a wrong head, each with its weight (a smaller
one for punctuation), and is added to the arc scores for loss-augmented decoding, which is so
exact. Ties: Eisner takes the first split point and root word in increasing order; Chu–Liu/
Edmonds the smallest head of every word and cycle member in increasing order.
"""

from __future__ import annotations

import numba
import numpy as np

from tasks._dependency_features import arc_scores, tree_columns

#: The decoders by the code the compiled oracle holds.
EISNER, CHU_LIU_EDMONDS = 0, 1


@numba.njit(cache=True)
def eisner(scores):
    """Return the heads of the best projective single-root tree under the arc ``scores``.

    ``scores`` has shape (n + 1, n + 1), ``scores[h, d]`` the score of the arc h → d.
    """
    n = scores.shape[0] - 1
    # [s, t, 0]: a span s..t headed at t (arcs leftward), [s, t, 1]: headed at s.
    complete = np.zeros((n + 1, n + 1, 2))
    incomplete = np.zeros((n + 1, n + 1, 2))
    complete_split = np.zeros((n + 1, n + 1, 2), dtype=np.int64)
    incomplete_split = np.zeros((n + 1, n + 1), dtype=np.int64)
    for length in range(1, n):
        for s in range(1, n - length + 1):
            t = s + length
            best, split = adjacent_spans(complete, s, t)
            incomplete[s, t, 0] = best + scores[t, s]
            incomplete[s, t, 1] = best + scores[s, t]
            incomplete_split[s, t] = split
            complete_spans(complete, incomplete, complete_split, s, t)
    root = best_root(scores[0], complete)
    heads = np.zeros(n, dtype=np.int64)
    # A stack of spans to read back, rows (s, t, direction, complete).
    stack = np.empty((4 * n + 4, 4), dtype=np.int64)
    top = push_span(stack, 0, 1, root, 0, 1)
    top = push_span(stack, top, root, n, 1, 1)
    while top > 0:
        top -= 1
        s, t, direction, whole = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if s == t:
            continue
        if whole:
            r = complete_split[s, t, direction]
            if direction == 0:
                top = push_span(stack, top, s, r, 0, 1)
                top = push_span(stack, top, r, t, 0, 0)
            else:
                top = push_span(stack, top, s, r, 1, 0)
                top = push_span(stack, top, r, t, 1, 1)
        else:
            if direction == 0:
                heads[s - 1] = t
            else:
                heads[t - 1] = s
            r = incomplete_split[s, t]
            top = push_span(stack, top, s, r, 1, 1)
            top = push_span(stack, top, r + 1, t, 0, 1)
    heads[root - 1] = 0
    return heads


@numba.njit(cache=True)
def adjacent_spans(complete, s, t):
    """Return the best ``complete[s, r, 1] + complete[r + 1, t, 0]`` over s ≤ r < t, and its r
    (the first of ties): a span headed at s next to one headed at t."""
    best, split = -np.inf, s
    for r in range(s, t):
        value = complete[s, r, 1] + complete[r + 1, t, 0]
        if value > best:
            best, split = value, r
    return best, split


@numba.njit(cache=True)
def complete_spans(complete, incomplete, complete_split, s, t):
    """Fill Eisner's complete spans s..t, headed at t and at s, and their split points (the
    first of ties), from the shorter complete spans and the incomplete ones up to s..t."""
    best, split = -np.inf, s
    for r in range(s, t):
        value = complete[s, r, 0] + incomplete[r, t, 0]
        if value > best:
            best, split = value, r
    complete[s, t, 0] = best
    complete_split[s, t, 0] = split
    best, split = -np.inf, t
    for r in range(s + 1, t + 1):
        value = incomplete[s, r, 1] + complete[r, t, 1]
        if value > best:
            best, split = value, r
    complete[s, t, 1] = best
    complete_split[s, t, 1] = split


@numba.njit(cache=True)
def best_root(root_scores, complete):
    """Return the root word r maximising ``root_scores[r] + complete[1, r, 0] +
    complete[r, n, 1]`` (the first of ties)."""
    n = complete.shape[0] - 1
    best, root = -np.inf, 1
    for r in range(1, n + 1):
        value = root_scores[r] + complete[1, r, 0] + complete[r, n, 1]
        if value > best:
            best, root = value, r
    return root


@numba.njit(cache=True)
def push_span(stack, top, s, t, direction, whole):
    """Put the span (s, t, direction, whole) on the stack; return the new top."""
    stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = s, t, direction, whole
    return top + 1


@numba.njit(cache=True)
def _best_heads(scores, alive, best_in):
    """Set ``best_in[d]`` to the best live head of every live word d (the smallest of ties)."""
    n1 = scores.shape[0]
    for d in range(1, n1):
        if not alive[d]:
            continue
        best, head = -np.inf, -1
        for h in range(n1):
            if alive[h] and h != d and scores[h, d] > best:
                best, head = scores[h, d], h
        best_in[d] = head


@numba.njit(cache=True)
def _find_cycle(alive, best_in, cycle):
    """Write the nodes of a cycle of ``best_in`` into ``cycle``; return its length (0: none)."""
    n1 = len(alive)
    state = np.zeros(n1, dtype=np.int64)  # 0 unseen, 1 on the current path, 2 done
    state[0] = 2
    for start in range(1, n1):
        if not alive[start] or state[start] != 0:
            continue
        node = start
        while state[node] == 0:
            state[node] = 1
            node = best_in[node]
        if state[node] == 1:
            length, member = 0, node
            while True:
                cycle[length] = member
                length += 1
                member = best_in[member]
                if member == node:
                    break
            cycle[:length] = np.sort(cycle[:length])
            return length
        node = start
        while state[node] == 1:
            state[node] = 2
            node = best_in[node]
    return 0


@numba.njit(cache=True)
def _spanning_arborescence(scores):
    """Return the heads (``heads[d]`` for every node d, -1 for node 0) of the best arborescence.

    Chu–Liu/Edmonds: every node takes its best head; a cycle is contracted into one of its
    nodes, whose arcs in and out become the best through any member (an arc in pays for the
    cycle arc it breaks), and the contractions are undone from the last.
    """
    n1 = scores.shape[0]
    scores = scores.copy()
    alive = np.ones(n1, dtype=np.bool_)
    best_in = np.full(n1, -1, dtype=np.int64)
    cycle = np.empty(n1, dtype=np.int64)
    # What every contraction must remember to be undone (each removes at least one node
    # but the one it keeps, so the members of all of them are fewer than 2 (n + 1)).
    members = np.empty(n1 * 2, dtype=np.int64)
    member_heads = np.empty(n1 * 2, dtype=np.int64)
    member_offsets = np.zeros(n1 + 1, dtype=np.int64)
    enters = np.empty((n1, n1), dtype=np.int64)
    leaves = np.empty((n1, n1), dtype=np.int64)
    n_contractions = 0
    while True:
        _best_heads(scores, alive, best_in)
        length = _find_cycle(alive, best_in, cycle)
        if length == 0:
            break
        k = n_contractions
        begin = member_offsets[k]
        in_cycle = np.zeros(n1, dtype=np.bool_)
        for m in range(length):
            members[begin + m] = cycle[m]
            member_heads[begin + m] = best_in[cycle[m]]
            in_cycle[cycle[m]] = True
        member_offsets[k + 1] = begin + length
        c = cycle[0]
        for h in range(n1):
            if not alive[h] or in_cycle[h]:
                continue
            best, via = -np.inf, -1
            for m in range(length):
                v = cycle[m]
                value = scores[h, v] - scores[best_in[v], v]
                if value > best:
                    best, via = value, v
            enters[k, h] = via
            scores[h, c] = best
        for d in range(1, n1):
            if not alive[d] or in_cycle[d]:
                continue
            best, via = -np.inf, -1
            for m in range(length):
                v = cycle[m]
                if scores[v, d] > best:
                    best, via = scores[v, d], v
            leaves[k, d] = via
            scores[c, d] = best
        for m in range(1, length):
            alive[cycle[m]] = False
        n_contractions += 1
    heads = best_in.copy()
    heads[0] = -1
    for k in range(n_contractions - 1, -1, -1):
        begin, end = member_offsets[k], member_offsets[k + 1]
        c = members[begin]
        in_cycle = np.zeros(n1, dtype=np.bool_)
        for p in range(begin, end):
            in_cycle[members[p]] = True
        entering_head = heads[c]
        for d in range(1, n1):
            if heads[d] == c and not in_cycle[d]:
                heads[d] = leaves[k, d]
        for p in range(begin, end):
            heads[members[p]] = member_heads[p]
        heads[enters[k, entering_head]] = entering_head
    return heads


@numba.njit(cache=True)
def chu_liu_edmonds(scores):
    """Return the heads of the best single-root tree (crossing arcs allowed) under ``scores``.

    The root's arcs are lowered by more than any two trees' scores can differ, so the best
    arborescence has one root word, and is the best such tree.
    """
    n1 = scores.shape[0]
    work = scores.copy()
    low, high = np.inf, -np.inf
    for h in range(n1):
        for d in range(1, n1):
            if h != d:
                low = min(low, work[h, d])
                high = max(high, work[h, d])
    penalty = 1.0 + (n1 - 1) * (high - low)
    for d in range(n1):
        work[d, 0] = -np.inf
        work[d, d] = -np.inf
    for d in range(1, n1):
        work[0, d] -= penalty
    return _spanning_arborescence(work)[1:]


@numba.njit(cache=True)
def add_loss(scores, gold, weights):
    """Add to every arc's score into word d the weight of d if the arc is not d's true one."""
    n1 = scores.shape[0]
    for d in range(1, n1):
        for h in range(n1):
            if h != gold[d - 1]:
                scores[h, d] += weights[d - 1]


@numba.njit(cache=True)
def decode_tree(scores, decoder, gold, weights, augmented):
    """Return the best tree under ``scores`` (plus the weighted wrong heads if ``augmented``).

    ``gold`` and ``weights`` are the reference heads and the words' loss weights; the loss is
    added to ``scores``, which this overwrites.
    """
    if augmented:
        add_loss(scores, gold, weights)
    if decoder == EISNER:
        return eisner(scores)
    return chu_liu_edmonds(scores)


@numba.njit(cache=True)
def wrong_heads(gold, heads, weights):
    """Return the summed weights of the words whose head differs from the reference's."""
    total = 0.0
    for d in range(len(gold)):
        if heads[d] != gold[d]:
            total += weights[d]
    return total


# ------------------------------------------------------------------------------- the protocol
# data = (words, tags, prefixes, token_offsets, gold, weights, word_offsets, width, decoder):
# the codes of every sentence concatenated (root included, token_offsets), the reference heads
# and the loss weights (word_offsets), the feature width and the decoder's code.


@numba.njit(cache=True)
def sentence_codes(data, i):
    """Return example i's word, tag and prefix codes (root included) and the feature width."""
    begin, end = data[3][i], data[3][i + 1]
    return data[0][begin:end], data[1][begin:end], data[2][begin:end], data[7]


@numba.njit(cache=True)
def dependency_scores(data, i, w):
    """Return example i's (n + 1, n + 1) arc scores."""
    words, tags, prefixes, width = sentence_codes(data, i)
    return arc_scores(words, tags, prefixes, w, width)


@numba.njit(cache=True)
def dependency_decode(data, i, w, scores, augmented):
    """Return the heads of example i's best (loss-augmented if asked) tree."""
    gold, weights, offsets, decoder = data[4], data[5], data[6], data[8]
    begin, end = offsets[i], offsets[i + 1]
    return decode_tree(scores, decoder, gold[begin:end], weights[begin:end], augmented)


@numba.njit(cache=True)
def dependency_features(data, i, labels):
    """Return φ(x_i, y) of the tree whose heads are ``labels``."""
    words, tags, prefixes, width = sentence_codes(data, i)
    return tree_columns(words, tags, prefixes, labels, width)


@numba.njit(cache=True)
def dependency_loss(data, i, labels):
    """Return the weighted number of example i's words with a wrong head."""
    gold, weights, offsets = data[4], data[5], data[6]
    begin, end = offsets[i], offsets[i + 1]
    return wrong_heads(gold[begin:end], labels, weights[begin:end])
