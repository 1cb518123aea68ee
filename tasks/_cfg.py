"""Constituency parsing with a weighted context-free grammar learned as a structural SVM.

After Tsochantaridis, Hofmann, Joachims & Altun (ICML 2004; JMLR 2005, section 4.4): the
grammar is read off binarised treebank trees, ``w · φ`` scores a parse by the weights of its
rules, root and lexical (tag, word) pairs, CKY finds the best parse, and the loss counts
wrong labelled brackets. :meth:`WeightedCFGTask.maximum_likelihood_weights` gives the
probabilistic grammar (PCFG) of the same rules as a weight vector of the same task, the
baseline the structural SVM is compared with.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from structsvm._compiled_oracle import CompiledOracle, labels_of
from structsvm._task import Task, overrides_any
from structsvm._utils.validation import check_examples, check_weights
from structsvm.io._treebank import Tree
from structsvm.io._trees import BINARISED_MARK, binarise, unbinarise
from tasks._cfg_oracle import (
    GrammarArrays,
    best_parse,
    bracket_chart,
    bracket_loss,
    cfg_decode,
    cfg_features,
    cfg_loss,
    cfg_scores,
    lexical_scores,
    parse_features,
)

#: The signature of words whose shape no training word had.
_UNKNOWN = "<unknown>"


class GrammarInput(NamedTuple):
    """A sentence to parse: word classes, signatures and fixed tags (-1: free), int64 arrays."""

    words: np.ndarray
    signatures: np.ndarray
    tags: np.ndarray


def word_signature(word: str) -> str:
    """Return the class of a word by its shape, for words too rare to have their own weights.

    Its capitals (``X`` all, ``Xx`` the first, ``x`` none), whether it holds a digit (``d``) or
    a hyphen (``-``), and its last two letters lower-cased when it has four or more:
    ``Xx-ed`` for "Ballooned", ``x-d---ch`` for "1\\/2-inch".
    """
    if word.isupper():
        shape = "X"
    elif word[:1].isupper():
        shape = "Xx"
    else:
        shape = "x"
    parts = [shape]
    if any(character.isdigit() for character in word):
        parts.append("d")
    if "-" in word:
        parts.append("-")
    if len(word) >= 4:
        parts.append(word[-2:].lower())
    return "-".join(parts)


class WeightedCFGTask(Task):
    """Parsing sentences into trees of a context-free grammar read off a treebank.

    The grammar is that of the training trees, as :func:`structsvm.io.prepare_tree` made them
    (function tags, empty elements and unary chains removed), right-binarised with horizontal
    markovisation of order ``markov`` (:func:`structsvm.io.binarise`): its binary rules
    ``A → B C``, its leaf unary rules ``A → t`` (a phrase over one word's tag, ``NP → PRP``)
    and its root labels. x is a :class:`GrammarInput` (:meth:`encode_input`), y a binarised
    parse as int64 labels (:mod:`tasks._cfg_oracle` gives the layout; :meth:`encode` makes them
    of a tree, :meth:`to_tree` turns them back into one).

    φ(x, y) counts the parse's binary rules, leaf unary rules and root label, and for every
    word the pairs (tag, word class) and (tag, signature): a word seen at least
    ``min_word_count`` times in training is its own class, a rarer or unseen word the class of
    its signature (:func:`word_signature`), and every word also has its signature. Tags fixed
    in x (gold tags) are kept; free tags are chosen by the parser.

    The loss counts labelled brackets (phrase labels over spans, root included, not tags nor
    ``@…`` labels): those of y not in y_true plus those of y_true not in y, evalb's errors.
    It decomposes over the nodes of y up to a constant (:mod:`tasks._cfg_oracle`), so the
    loss-augmented oracle is CKY with each bracket's term added (exact). Neither 1 − F1 nor
    slack rescaling has a CKY oracle: F1 is a ratio of counts over the whole tree and the
    product of slack rescaling couples every node with the tree's score, so neither decomposes
    over CKY's cells (they would need the counts in the chart); slack rescaling falls back on
    the base class's enumeration of :meth:`outputs`, for tiny sentences only.

    Parameters
    ----------
    trees : sequence of Tree
        The training trees, prepared (:func:`structsvm.io.prepare_tree`), not binarised.
    markov : int, default=1
        Order of horizontal markovisation of the binarisation.
    min_word_count : int, default=2
        Words seen fewer times in ``trees`` are known by their signature alone.

    Attributes
    ----------
    labels : list of str
        The tags, then the phrase labels; a label's number is its position.
    n_tags : int
    grammar : GrammarArrays
        The rules and feature layout.
    fallback_root : int
        The most frequent root label of ``trees``, that of a sentence the grammar cannot parse.

    References
    ----------
    I. Tsochantaridis, T. Hofmann, T. Joachims and Y. Altun, "Support vector machine learning
    for interdependent and structured output spaces", ICML 2004.
    I. Tsochantaridis, T. Joachims, T. Hofmann and Y. Altun, "Large margin methods for
    structured and interdependent output variables", JMLR 6, 2005.
    M. Johnson, "PCFG models of linguistic tree representations", Computational Linguistics
    24(4), 1998.
    """

    def __init__(self, trees: Sequence[Tree], markov: int = 1, min_word_count: int = 2) -> None:
        if len(trees) == 0:
            raise ValueError("trees is empty: the grammar is read off at least one tree")
        self.markov = markov
        self.min_word_count = min_word_count
        binary = [binarise(tree, markov) for tree in trees]
        tags, phrases = set(), set()
        word_counts: Counter[str] = Counter()
        for tree in binary:
            for tag, word in tree.tagged_words():
                tags.add(tag)
                word_counts[word] += 1
            phrases.update(_phrase_labels(tree))
        self.labels = sorted(tags) + sorted(phrases - tags)
        self.n_tags = len(tags)
        self._label_ids = {label: k for k, label in enumerate(self.labels)}
        self.words = sorted(word for word, count in word_counts.items() if count >= min_word_count)
        self.signatures = sorted({word_signature(word) for word in word_counts} | {_UNKNOWN})
        self._word_ids = {word: k for k, word in enumerate(self.words)}
        self._signature_ids = {signature: k for k, signature in enumerate(self.signatures)}
        rules, unaries, roots = set(), set(), Counter()
        for tree in binary:
            _collect_rules(tree, self._label_ids, rules, unaries)
            roots[self._label_ids[tree.label]] += 1
        self.fallback_root = roots.most_common(1)[0][0]
        self.grammar = _grammar_arrays(
            len(self.labels),
            self.n_tags,
            sorted(rules),
            sorted(unaries),
            sorted(roots),
            [label in phrases and not label.startswith(BINARISED_MARK) for label in self.labels],
            len(self.words) + len(self.signatures),
            len(self.signatures),
        )
        g = self.grammar
        self.size_joint_feature = g.signature_offset + self.n_tags * g.n_signatures

    def __repr__(self) -> str:
        g = self.grammar
        return (
            f"WeightedCFGTask({len(self.labels)} labels, {len(g.rule_parent)} binary rules, "
            f"{len(g.unary_parent)} leaf unary rules, markov={self.markov})"
        )

    # ----------------------------------------------------------------- sentences and trees
    def encode_input(self, words: Sequence[str], tags: Sequence[str] | None = None) -> GrammarInput:
        """Return the input of a sentence, its tags fixed if given (an unknown tag is free)."""
        if len(words) == 0:
            raise ValueError("a sentence to parse needs at least one word")
        unknown = self._signature_ids[_UNKNOWN]
        signatures = [self._signature_ids.get(word_signature(word), unknown) for word in words]
        classes = [
            self._word_ids[word] if word in self._word_ids else len(self.words) + signature
            for word, signature in zip(words, signatures, strict=True)
        ]
        fixed = [-1] * len(words) if tags is None else [self._tag_id(tag) for tag in tags]
        return GrammarInput(
            np.array(classes, dtype=np.int64),
            np.array(signatures, dtype=np.int64),
            np.array(fixed, dtype=np.int64),
        )

    def _tag_id(self, tag: str) -> int:
        label = self._label_ids.get(tag, -1)
        return label if 0 <= label < self.n_tags else -1

    def encode(self, tree: Tree, gold_tags: bool = False) -> tuple[GrammarInput, np.ndarray]:
        """Return (x, y) of a prepared tree: its words (and tags if ``gold_tags``), its parse.

        Raises
        ------
        ValueError
            If the binarised tree uses a label or rule outside the grammar.
        """
        tagged = tree.tagged_words()
        words = [word for _, word in tagged]
        x = self.encode_input(words, [tag for tag, _ in tagged] if gold_tags else None)
        n = len(words)
        labels = np.empty(6 * n - 4, dtype=np.int64)
        nodes: list[int] = []
        self._write_labels(binarise(tree, self.markov), 0, labels, nodes)
        labels[2 * n :] = nodes
        self._check_parse(labels)
        return x, labels

    def _write_labels(self, tree: Tree, start: int, labels: np.ndarray, nodes: list[int]) -> int:
        """Write a binarised subtree's leaves into ``labels`` and its nodes (pre-order) into
        ``nodes``; return the end of its span."""
        label = self._label_id(tree.label)
        n = (len(labels) + 4) // 6
        if tree.is_preterminal():
            labels[start] = labels[n + start] = label
            return start + 1
        if len(tree.children) == 1:
            (child,) = tree.children
            if not child.is_preterminal():
                raise ValueError(f"({tree.label} ...) heads a unary chain: prepare the tree first")
            labels[start], labels[n + start] = self._label_id(child.label), label
            return start + 1
        at = len(nodes)
        nodes.extend([start, -1, -1, label])
        split = self._write_labels(tree.children[0], start, labels, nodes)
        end = self._write_labels(tree.children[1], split, labels, nodes)
        nodes[at + 1], nodes[at + 2] = split, end
        return end

    def _label_id(self, label: str) -> int:
        number = self._label_ids.get(label)
        if number is None:
            raise ValueError(f"the label {label!r} is not in the grammar")
        return number

    def _check_parse(self, labels: np.ndarray) -> None:
        """Raise ValueError if labels are not a parse whose rules are all the grammar's."""
        n = (len(labels) + 4) // 6
        if np.any(labels[:n] < 0) or np.any(labels[:n] >= self.n_tags):
            raise ValueError("a tag of the parse is not a tag of the grammar")
        nodes = labels[2 * n :].reshape(n - 1, 4)
        starts, splits, ends, names = nodes.T
        if (
            np.any(labels[n : 2 * n] < 0)
            or np.any(names < 0)
            or np.any(labels[n : 2 * n] >= len(self.labels))
            or np.any(names >= len(self.labels))
            or np.any(starts < 0)
            or np.any(ends > n)
            or np.any(starts >= splits)
            or np.any(splits >= ends)
        ):
            raise ValueError("the labels are not those of a parse (see tasks._cfg_oracle)")
        x = GrammarInput(np.zeros(n, np.int64), np.zeros(n, np.int64), np.full(n, -1))
        indices, values = parse_features(x.words, x.signatures, labels, self.grammar)
        n_rule_columns = self.grammar.word_offset
        expected = (n - 1) + sum(labels[n + i] != labels[i] for i in range(n)) + 1
        if values[indices < n_rule_columns].sum() != expected:
            raise ValueError("the parse uses a rule or root label outside the grammar")

    def to_tree(self, y: np.ndarray, words: Sequence[str]) -> Tree:
        """Return the (unbinarised) tree of a parse's labels over ``words``.

        A parse of an unparsed sentence (nodes labelled -1) is the flat tree of the most
        frequent root label of the training trees (``fallback_root``) over the words' tags.
        """
        labels = labels_of(y)
        n = len(words)
        leaves: list[Tree] = []
        for i, word in enumerate(words):
            leaf = Tree(self.labels[labels[i]], (word,))
            top = labels[n + i]
            leaves.append(leaf if top == labels[i] else Tree(self.labels[top], (leaf,)))
        if n == 1:
            return leaves[0]
        nodes = labels[2 * n :].reshape(n - 1, 4)
        if nodes[0, 3] < 0:
            return Tree(self.labels[self.fallback_root], tuple(leaves))
        spans = {(int(s), int(e)): (int(j), int(a)) for s, j, e, a in nodes}

        def build(start: int, end: int) -> Tree:
            if end - start == 1:
                return leaves[start]
            split, label = spans[(start, end)]
            return Tree(self.labels[label], (build(start, split), build(split, end)))

        return unbinarise(build(0, n))

    # ----------------------------------------------------------------- the contract
    def joint_feature(self, x: GrammarInput, y: np.ndarray) -> np.ndarray:
        """Return φ(x, y): rule, leaf unary rule, root and lexical counts (see the class)."""
        indices, values = self.sparse_joint_feature(x, y)
        phi = np.zeros(self.size_joint_feature)
        phi[indices] = values
        return phi

    def sparse_joint_feature(self, x: GrammarInput, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return the non-zero counts of φ(x, y) as sorted columns and values."""
        return parse_features(x.words, x.signatures, labels_of(y), self.grammar)

    def loss(self, y_true: np.ndarray, y: np.ndarray) -> float:
        """Return the labelled brackets of y not in y_true plus those of y_true not in y."""
        return float(bracket_loss(labels_of(y_true), labels_of(y), self.grammar.is_bracket))

    def max_loss(self, y_true: np.ndarray) -> float:
        """Return a bound on the loss: the true brackets plus one per node of a parse."""
        labels = labels_of(y_true)
        true_brackets = np.count_nonzero(bracket_chart(labels, self.grammar.is_bracket) >= 0)
        return float(true_brackets + (len(labels) + 4) // 3 - 1)

    def argmax(self, x: GrammarInput, w: np.ndarray) -> np.ndarray:
        """Return the labels of the best parse of x (CKY)."""
        return self._decode(x, None, w)

    def loss_augmented_argmax(
        self, x: GrammarInput, y_true: np.ndarray, w: np.ndarray
    ) -> np.ndarray:
        """Return the labels of the parse maximising ``Δ(y_true, y) + w · φ(x, y)`` (CKY)."""
        return self._decode(x, labels_of(y_true), w)

    def _decode(self, x: GrammarInput, truth: np.ndarray | None, w: np.ndarray) -> np.ndarray:
        """Run the compiled CKY on x (loss-augmented against ``truth`` if given)."""
        w = check_weights(w, self.size_joint_feature)
        scores = lexical_scores(x.words, x.signatures, self.grammar, w)
        augmented = truth is not None
        if truth is None:
            truth = np.zeros(0, dtype=np.int64)
        return best_parse(scores, x.tags, self.grammar, w, truth, augmented)

    def outputs(self, x: GrammarInput) -> Iterator[np.ndarray]:
        """Enumerate every parse of x in the grammar (for checks on short sentences only)."""
        n = len(x.words)
        root_labels = np.flatnonzero(self.grammar.root_columns >= 0)
        for label, leaves, nodes in self._subtrees(x, 0, n):
            if label in root_labels:
                labels = np.empty(6 * n - 4, dtype=np.int64)
                for i, (tag, top) in enumerate(leaves):
                    labels[i], labels[n + i] = tag, top
                labels[2 * n :] = [entry for node in nodes for entry in node]
                yield labels

    def _subtrees(self, x: GrammarInput, start: int, end: int) -> Iterator[tuple[int, list, list]]:
        """Yield (label, leaves (tag, top), nodes in pre-order) of every subtree over a span."""
        g = self.grammar
        if end - start == 1:
            fixed = x.tags[start]
            for tag in range(self.n_tags) if fixed < 0 else [int(fixed)]:
                yield tag, [(tag, tag)], []
                for u in np.flatnonzero(g.unary_tag == tag):
                    yield int(g.unary_parent[u]), [(tag, int(g.unary_parent[u]))], []
            return
        for split in range(start + 1, end):
            for left, left_leaves, left_nodes in self._subtrees(x, start, split):
                for right, right_leaves, right_nodes in self._subtrees(x, split, end):
                    matches = np.flatnonzero((g.rule_left == left) & (g.rule_right == right))
                    for r in matches:
                        parent = int(g.rule_parent[r])
                        node = (start, split, end, parent)
                        yield parent, left_leaves + right_leaves, [node, *left_nodes, *right_nodes]

    def check_data(self, X: Sequence[Any], Y: Sequence[Any] | None = None):
        """Return X as a list of :class:`GrammarInput` and Y as a list of int64 parse labels.

        Raises
        ------
        ValueError
            If an input is not a GrammarInput of three equal-length int64 arrays within the
            task's vocabularies, or an output is not the labels of a parse of its sentence in
            the grammar (length 6n − 4, tags, rules and root the grammar's).
        """
        check_examples(X, "X")
        if len(X) == 0:
            raise ValueError("X is empty: expected at least one sentence")
        inputs = [self._check_input(x, k) for k, x in enumerate(X)]
        if Y is None:
            return inputs, None
        check_examples(Y, "Y")
        if len(Y) != len(X):
            raise ValueError(
                f"X and Y have different lengths: X has {len(X)} examples, Y has {len(Y)}"
            )
        outputs = []
        for k, (x, y) in enumerate(zip(inputs, Y, strict=True)):
            labels = np.asarray(y)
            if labels.shape != (6 * len(x.words) - 4,):
                raise ValueError(f"Y[{k}] must hold 6n - 4 = {6 * len(x.words) - 4} labels")
            try:
                self._check_parse(labels.astype(np.int64))
            except ValueError as error:
                raise ValueError(f"Y[{k}]: {error}") from None
            outputs.append(labels.astype(np.int64))
        return inputs, outputs

    def _check_input(self, x: Any, k: int) -> GrammarInput:
        """Return input k as a GrammarInput, or raise ValueError naming it."""
        if not isinstance(x, GrammarInput):
            raise ValueError(f"X[{k}] must be a GrammarInput (see encode_input)")
        arrays = [np.asarray(part, dtype=np.int64) for part in x]
        n = len(arrays[0])
        g = self.grammar
        if n == 0 or any(array.shape != (n,) for array in arrays):
            raise ValueError(f"X[{k}] must hold three 1-D arrays of one non-zero length")
        words, signatures, tags = arrays
        if words.min() < 0 or words.max() >= g.n_word_classes:
            raise ValueError(f"X[{k}].words holds word classes outside [0, {g.n_word_classes})")
        if signatures.min() < 0 or signatures.max() >= g.n_signatures:
            raise ValueError(f"X[{k}].signatures holds codes outside [0, {g.n_signatures})")
        if tags.min() < -1 or tags.max() >= self.n_tags:
            raise ValueError(f"X[{k}].tags holds codes outside [-1, {self.n_tags})")
        return GrammarInput(words, signatures, tags)

    def compiled_oracle(self, X, Y) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        Example i's part scores are its (n, n_tags) lexical scores; the labels are the
        parse's. None for a subclass that overrides an oracle, the loss or the joint feature.
        """
        if overrides_any(self, WeightedCFGTask, _COMPILED_METHODS):
            return None
        offsets = np.zeros(len(X) + 1, dtype=np.int64)
        np.cumsum([len(x.words) for x in X], out=offsets[1:])
        truths = [labels_of(y) for y in Y]
        truth_offsets = np.zeros(len(X) + 1, dtype=np.int64)
        np.cumsum([len(y) for y in truths], out=truth_offsets[1:])
        data = (
            np.concatenate([x.words for x in X]).astype(np.int64),
            np.concatenate([x.signatures for x in X]).astype(np.int64),
            np.concatenate([x.tags for x in X]).astype(np.int64),
            offsets,
            np.concatenate(truths),
            truth_offsets,
            *self.grammar,
        )
        return CompiledOracle(
            data, cfg_scores, cfg_decode, cfg_features, cfg_loss, n_examples=len(X)
        )

    # ----------------------------------------------------------------- the PCFG baseline
    def maximum_likelihood_weights(
        self, trees: Sequence[Tree], lexical_smoothing: float = 0.1
    ) -> np.ndarray:
        """Return the log-probabilities of the PCFG estimated on ``trees`` as a weight vector.

        Relative frequencies on the binarised ``trees`` (prepared as for the constructor):
        ``log P(B C | A)`` on binary rule A → B C and ``log P(t | A)`` on leaf unary rule
        A → t, over every expansion of A (its binary and leaf unary rules); ``log P(A)`` on
        root label A, over the trees; ``log P(c | t)`` on the pair (tag t, word class c),
        add-``lexical_smoothing`` over the word classes so that every pair is finite; zero
        on the signature pairs. ``w · φ`` is then the log-probability of the parse and its
        words, and CKY its most probable parse. Rules absent from ``trees`` get log 0 = −∞
        replaced by the lowest finite log-probability of their kind minus 10 (the weights
        stay finite).
        """
        if lexical_smoothing <= 0:
            raise ValueError(f"lexical_smoothing must be > 0, got {lexical_smoothing}")
        g = self.grammar
        counts = np.zeros(self.size_joint_feature)
        for tree in trees:
            x, y = self.encode(tree)
            indices, values = parse_features(x.words, x.signatures, y, g)
            counts[indices] += values
        w = np.zeros(self.size_joint_feature)
        n_rules, n_unaries = len(g.rule_parent), len(g.unary_parent)
        expansions = np.zeros(len(self.labels))
        np.add.at(expansions, g.rule_parent, counts[:n_rules])
        np.add.at(expansions, g.unary_parent, counts[g.unary_offset : g.unary_offset + n_unaries])
        w[:n_rules] = _log_ratio(counts[:n_rules], expansions[g.rule_parent])
        unary = slice(g.unary_offset, g.unary_offset + n_unaries)
        w[unary] = _log_ratio(counts[unary], expansions[g.unary_parent])
        root_columns = g.root_columns[g.root_columns >= 0]
        w[root_columns] = _log_ratio(counts[root_columns], np.full(len(root_columns), len(trees)))
        lexical = counts[g.word_offset : g.signature_offset].reshape(self.n_tags, -1)
        smoothed = lexical + lexical_smoothing
        w[g.word_offset : g.signature_offset] = np.log(
            smoothed / smoothed.sum(axis=1, keepdims=True)
        ).ravel()
        return w


def _log_ratio(numerators: np.ndarray, denominators: np.ndarray) -> np.ndarray:
    """Return log(numerators / denominators), unseen entries at the lowest finite one − 10."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(numerators / np.maximum(denominators, 1.0))
    finite = np.isfinite(logs)
    floor = (logs[finite].min() if finite.any() else 0.0) - 10.0
    logs[~finite] = floor
    return logs


def _phrase_labels(tree: Tree) -> Iterator[str]:
    """Yield the labels of a binarised tree's nodes that are not preterminals."""
    if tree.is_preterminal():
        return
    yield tree.label
    for child in tree.children:
        yield from _phrase_labels(child)


def _collect_rules(tree: Tree, ids: dict[str, int], rules: set, unaries: set) -> None:
    """Add a binarised tree's binary rules (A, B, C) and leaf unary rules (A, t) to the sets."""
    if tree.is_preterminal():
        return
    if len(tree.children) == 1:
        unaries.add((ids[tree.label], ids[tree.children[0].label]))
        return
    left, right = tree.children
    rules.add((ids[tree.label], ids[left.label], ids[right.label]))
    _collect_rules(left, ids, rules, unaries)
    _collect_rules(right, ids, rules, unaries)


def _grammar_arrays(
    n_labels: int,
    n_tags: int,
    rules: list[tuple[int, int, int]],
    unaries: list[tuple[int, int]],
    roots: list[int],
    is_bracket: list[bool],
    n_word_classes: int,
    n_signatures: int,
) -> GrammarArrays:
    """Return the grammar's arrays and feature layout (rules, unaries, roots, lexical pairs)."""
    rule_array = np.array(rules, dtype=np.int64).reshape(-1, 3)
    unary_array = np.array(unaries, dtype=np.int64).reshape(-1, 2)
    left_order = np.argsort(rule_array[:, 1], kind="stable").astype(np.int64)
    left_starts = np.searchsorted(rule_array[left_order, 1], np.arange(n_labels + 1)).astype(
        np.int64
    )
    unary_offset = len(rule_array)
    root_offset = unary_offset + len(unary_array)
    root_columns = np.full(n_labels, -1, dtype=np.int64)
    root_columns[roots] = root_offset + np.arange(len(roots))
    word_offset = root_offset + len(roots)
    return GrammarArrays(
        n_tags=n_tags,
        rule_parent=np.ascontiguousarray(rule_array[:, 0]),
        rule_left=np.ascontiguousarray(rule_array[:, 1]),
        rule_right=np.ascontiguousarray(rule_array[:, 2]),
        rule_keys=(rule_array[:, 0] * n_labels + rule_array[:, 1]) * n_labels + rule_array[:, 2],
        left_order=left_order,
        left_starts=left_starts,
        unary_parent=np.ascontiguousarray(unary_array[:, 0]),
        unary_tag=np.ascontiguousarray(unary_array[:, 1]),
        unary_keys=unary_array[:, 0] * n_labels + unary_array[:, 1],
        unary_offset=unary_offset,
        root_columns=root_columns,
        is_bracket=np.array(is_bracket, dtype=np.bool_),
        word_offset=word_offset,
        n_word_classes=n_word_classes,
        signature_offset=word_offset + n_tags * n_word_classes,
        n_signatures=n_signatures,
    )


# The methods whose answers the compiled oracle reproduces.
_COMPILED_METHODS = (
    "argmax",
    "loss_augmented_argmax",
    "loss",
    "joint_feature",
    "sparse_joint_feature",
    "_decode",
)
