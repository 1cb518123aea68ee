"""The compiled oracle of weighted context-free grammars (:class:`tasks.WeightedCFGTask`).

A parse of n words is a binary tree of 2n − 1 nodes, each over a span of words with one label.
Labels are numbered with the part-of-speech tags first (``0 … n_tags − 1``), then the phrase
labels, those of binarisation (``@…``) among them. A leaf (one word) has a tag and a *top*
label: the tag itself, or a phrase label over the tag by a leaf unary rule (``NP → NN``); a
node over two or more words has a phrase label and splits into two children by a binary rule
``A → B C`` (B, C the children's labels, tops for leaves); the root's label is scored too.

An output's labels (the protocol's int64 array, of length 6n − 4) are the n tags, the n top
labels, then the n − 1 nodes over two or more words in pre-order (left child first), four
entries each: start, split, end (word positions, end exclusive) and label. A sentence that
the grammar cannot parse gets the right-branching tree of nodes labelled -1 (no rule, no
feature, no bracket) over its best tags.

φ counts the binary rules, the leaf unary rules and the root label (each of the grammar's),
and for every word the pairs (tag, word class) and (tag, signature). CKY finds the best parse
exactly in O(n³ · rules); ties go to the first split, then the first rule (rules grouped by
their left child, in label order), then the first label, in increasing order.

The loss counts labelled brackets (phrase labels that are not ``@…``, over any span, root
included; tags are not brackets): those of y missing from the truth plus those of the truth
missing from y. A span holds at most one bracket in either tree, so the loss is
``|truth| + Σ_{brackets (A, span) of y} (1 − 2·[(A, span) is a true bracket])``: a constant
plus a term per node, which loss-augmented CKY adds to every cell's label (exact).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np


class GrammarArrays(NamedTuple):
    """A grammar and its feature layout as arrays, for the compiled functions.

    Binary rule r is ``rule_parent[r] → rule_left[r] rule_right[r]`` and owns column r of w;
    ``rule_keys`` (``(A·L + B)·L + C``, L labels) increase with r. ``left_order`` lists the
    rules by left child, those of label B at ``left_starts[B]:left_starts[B + 1]``. Leaf unary
    rule u is ``unary_parent[u] → unary_tag[u]``, column ``unary_offset + u``, keys
    ``A·L + t`` increasing. ``root_columns[A]`` is the column of root label A, or -1 if A may
    not be the root. ``is_bracket[A]`` tells a phrase label that is not ``@…``. Tag t and word
    class c own column ``word_offset + t·n_word_classes + c``; tag t and signature s,
    ``signature_offset + t·n_signatures + s``.
    """

    n_tags: int
    rule_parent: np.ndarray
    rule_left: np.ndarray
    rule_right: np.ndarray
    rule_keys: np.ndarray
    left_order: np.ndarray
    left_starts: np.ndarray
    unary_parent: np.ndarray
    unary_tag: np.ndarray
    unary_keys: np.ndarray
    unary_offset: int
    root_columns: np.ndarray
    is_bracket: np.ndarray
    word_offset: int
    n_word_classes: int
    signature_offset: int
    n_signatures: int


@numba.njit(cache=True)
def n_words_of(labels):
    """Return the number of words of a parse from the length 6n − 4 of its labels."""
    return (len(labels) + 4) // 6


@numba.njit(cache=True)
def lexical_scores(words, signatures, grammar, w):
    """Return the (n, n_tags) scores of every tag for every word: word class and signature."""
    n, n_tags = len(words), grammar.n_tags
    scores = np.empty((n, n_tags))
    for i in range(n):
        for t in range(n_tags):
            scores[i, t] = (
                w[grammar.word_offset + t * grammar.n_word_classes + words[i]]
                + w[grammar.signature_offset + t * grammar.n_signatures + signatures[i]]
            )
    return scores


@numba.njit(cache=True)
def bracket_chart(labels, is_bracket):
    """Return the (n + 1, n + 1) chart of a parse's bracket labels by span (-1: none)."""
    n = n_words_of(labels)
    chart = np.full((n + 1, n + 1), -1, dtype=np.int64)
    for i in range(n):
        top = labels[n + i]
        if top >= 0 and is_bracket[top]:
            chart[i, i + 1] = top
    for node in range(n - 1):
        start, end, label = (
            labels[2 * n + 4 * node],
            labels[2 * n + 4 * node + 2],
            labels[2 * n + 4 * node + 3],
        )
        if label >= 0 and is_bracket[label]:
            chart[start, end] = label
    return chart


@numba.njit(cache=True)
def bracket_loss(truth, labels, is_bracket):
    """Return the brackets of ``labels`` not in ``truth`` plus those of ``truth`` not in it."""
    true_chart, chart = bracket_chart(truth, is_bracket), bracket_chart(labels, is_bracket)
    loss = 0.0
    n = true_chart.shape[0] - 1
    for start in range(n):
        for end in range(start + 1, n + 1):
            if true_chart[start, end] != chart[start, end]:
                loss += (true_chart[start, end] >= 0) + (chart[start, end] >= 0)
    return loss


@numba.njit(cache=True)
def _augment(cell, true_label, is_bracket):
    """Add to every bracket label of a cell its loss term: +1, or −1 if it is the true one."""
    for label in range(len(cell)):
        if is_bracket[label] and cell[label] > -np.inf:
            cell[label] += -1.0 if label == true_label else 1.0


@numba.njit(cache=True)
def best_parse(lexical, tags, grammar, w, truth, augmented):
    """Return the labels of the best parse (loss-augmented against ``truth`` if asked).

    ``lexical`` holds the (n, n_tags) tag scores of the words; ``tags[i] >= 0`` fixes word i's
    tag. Exact; ties as the module states.
    """
    n, n_tags = lexical.shape
    n_labels = len(grammar.is_bracket)
    chart = np.full((n, n + 1, n_labels), -np.inf)
    splits = np.zeros((n, n + 1, n_labels), dtype=np.int32)
    rules = np.full((n, n + 1, n_labels), -1, dtype=np.int32)
    true_spans = (
        bracket_chart(truth, grammar.is_bracket)
        if augmented
        else np.full((n + 1, n + 1), -1, dtype=np.int64)
    )
    for i in range(n):
        cell = chart[i, i + 1]
        for t in range(n_tags):
            if tags[i] < 0 or tags[i] == t:
                cell[t] = lexical[i, t]
        for u in range(len(grammar.unary_parent)):
            parent = grammar.unary_parent[u]
            value = cell[grammar.unary_tag[u]] + w[grammar.unary_offset + u]
            if value > cell[parent]:
                cell[parent] = value
                rules[i, i + 1, parent] = u
        if augmented:
            _augment(cell, true_spans[i, i + 1], grammar.is_bracket)
    for length in range(2, n + 1):
        for start in range(n - length + 1):
            end = start + length
            cell = chart[start, end]
            for split in range(start + 1, end):
                left, right = chart[start, split], chart[split, end]
                for b in range(n_labels):
                    left_value = left[b]
                    if left_value == -np.inf:
                        continue
                    for p in range(grammar.left_starts[b], grammar.left_starts[b + 1]):
                        r = grammar.left_order[p]
                        right_value = right[grammar.rule_right[r]]
                        if right_value == -np.inf:
                            continue
                        value = left_value + right_value + w[r]
                        parent = grammar.rule_parent[r]
                        if value > cell[parent]:
                            cell[parent] = value
                            splits[start, end, parent] = split
                            rules[start, end, parent] = r
            if augmented:
                _augment(cell, true_spans[start, end], grammar.is_bracket)
    root, best = -1, -np.inf
    for label in range(n_labels):
        column = grammar.root_columns[label]
        if column >= 0 and chart[0, n, label] + w[column] > best:
            root, best = label, chart[0, n, label] + w[column]
    labels = np.empty(6 * n - 4, dtype=np.int64)
    if root < 0:
        return _unparsed(lexical, tags, labels)
    # Pre-order traceback: a stack of (start, end, label), the left child popped first.
    stack = np.empty((2 * n, 3), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, n, root
    size, node = 1, 0
    while size > 0:
        size -= 1
        start, end, label = stack[size, 0], stack[size, 1], stack[size, 2]
        if end - start == 1:
            labels[n + start] = label
            labels[start] = label if label < n_tags else grammar.unary_tag[rules[start, end, label]]
            continue
        split, r = splits[start, end, label], rules[start, end, label]
        at = 2 * n + 4 * node
        labels[at], labels[at + 1], labels[at + 2], labels[at + 3] = start, split, end, label
        node += 1
        stack[size, 0], stack[size, 1], stack[size, 2] = split, end, grammar.rule_right[r]
        stack[size + 1, 0], stack[size + 1, 1], stack[size + 1, 2] = (
            start,
            split,
            grammar.rule_left[r],
        )
        size += 2
    return labels


@numba.njit(cache=True)
def _unparsed(lexical, tags, labels):
    """Fill ``labels`` with the unparsed sentence's parse: best tags, right-branching, -1."""
    n, n_tags = lexical.shape
    for i in range(n):
        best = tags[i]
        if best < 0:
            best = 0
            for t in range(1, n_tags):
                if lexical[i, t] > lexical[i, best]:
                    best = t
        labels[i], labels[n + i] = best, best
    for node in range(n - 1):
        at = 2 * n + 4 * node
        labels[at], labels[at + 1], labels[at + 2], labels[at + 3] = node, node + 1, n, -1
    return labels


@numba.njit(cache=True)
def _find(keys, key):
    """Return the position of ``key`` in the increasing ``keys``, or -1."""
    at = np.searchsorted(keys, key)
    return at if at < len(keys) and keys[at] == key else -1


@numba.njit(cache=True)
def parse_features(words, signatures, labels, grammar):
    """Return φ of a parse as (sorted distinct columns, counts)."""
    n = n_words_of(labels)
    n_labels = len(grammar.is_bracket)
    tops = labels[n : 2 * n]
    span_labels = np.full((n + 1, n + 1), -1, dtype=np.int64)
    for i in range(n):
        span_labels[i, i + 1] = tops[i]
    for node in range(n - 1):
        at = 2 * n + 4 * node
        span_labels[labels[at], labels[at + 2]] = labels[at + 3]
    columns = np.empty(4 * n, dtype=np.int64)
    size = 0
    for node in range(n - 1):
        at = 2 * n + 4 * node
        start, split, end, parent = labels[at], labels[at + 1], labels[at + 2], labels[at + 3]
        left, right = span_labels[start, split], span_labels[split, end]
        if parent < 0 or left < 0 or right < 0:
            continue
        r = _find(grammar.rule_keys, (parent * n_labels + left) * n_labels + right)
        if r >= 0:
            columns[size] = r
            size += 1
    for i in range(n):
        tag = labels[i]
        if tops[i] != tag:
            u = _find(grammar.unary_keys, tops[i] * n_labels + tag)
            if u >= 0:
                columns[size] = grammar.unary_offset + u
                size += 1
        columns[size] = grammar.word_offset + tag * grammar.n_word_classes + words[i]
        columns[size + 1] = grammar.signature_offset + tag * grammar.n_signatures + signatures[i]
        size += 2
    root = span_labels[0, n]
    if root >= 0 and grammar.root_columns[root] >= 0:
        columns[size] = grammar.root_columns[root]
        size += 1
    ordered = np.sort(columns[:size])
    indices = np.empty(size, dtype=np.int64)
    values = np.zeros(size)
    distinct = 0
    for k in range(size):
        if k == 0 or ordered[k] != ordered[k - 1]:
            indices[distinct] = ordered[k]
            distinct += 1
        values[distinct - 1] += 1.0
    return indices[:distinct], values[:distinct]


# ------------------------------------------------------------------------------- the protocol
# data = (words, signatures, tags, offsets, truths, truth_offsets, *grammar): every example's
# word classes, signatures and fixed tags (-1: free) concatenated on ``offsets``, its true
# parse's labels on ``truth_offsets``, then the fields of the GrammarArrays (a flat tuple,
# which the solvers' parallel passes take).


@numba.njit(cache=True)
def _grammar(data):
    """Return the GrammarArrays whose fields end ``data``."""
    return GrammarArrays(*data[6:])


@numba.njit(cache=True)
def cfg_scores(data, i, w):
    """Return example i's (n, n_tags) lexical scores."""
    words, signatures, offsets = data[0], data[1], data[3]
    begin, end = offsets[i], offsets[i + 1]
    return lexical_scores(words[begin:end], signatures[begin:end], _grammar(data), w)


@numba.njit(cache=True)
def cfg_decode(data, i, w, scores, augmented):
    """Return the labels of example i's best (loss-augmented if asked) parse."""
    tags, offsets, truths, truth_offsets = data[2], data[3], data[4], data[5]
    truth = truths[truth_offsets[i] : truth_offsets[i + 1]]
    fixed = tags[offsets[i] : offsets[i + 1]]
    return best_parse(scores, fixed, _grammar(data), w, truth, augmented)


@numba.njit(cache=True)
def cfg_features(data, i, labels):
    """Return φ(x_i, y) of the parse whose labels are ``labels``."""
    words, signatures, offsets = data[0], data[1], data[3]
    begin, end = offsets[i], offsets[i + 1]
    return parse_features(words[begin:end], signatures[begin:end], labels, _grammar(data))


@numba.njit(cache=True)
def cfg_loss(data, i, labels):
    """Return the labelled brackets on which ``labels`` and example i's true parse differ."""
    truths, truth_offsets = data[4], data[5]
    truth = truths[truth_offsets[i] : truth_offsets[i + 1]]
    return bracket_loss(truth, labels, _grammar(data).is_bracket)
