"""WeightedCFGTask: CKY and loss-augmented CKY against every parse of short sentences, the
PCFG's relative frequencies, the tree round trip, the contract and a fit."""

import itertools
import math

import numpy as np
import pytest

import structsvm
from structsvm import StructuredSVM, check_task
from structsvm.io import labelled_brackets, parse_trees
from tasks import GrammarInput, WeightedCFGTask
from tests.tasks.compiled_checks import assert_same_one_slack_fit

TREEBANK = """
(S (NP (DT the) (NN dog)) (VP (VBZ barks)))
(S (NP (PRP it)) (VP (VBZ sees) (NP (DT the) (JJ big) (NN cat))))
(S (NP (NN dogs)) (VP (VBZ bark) (ADVP (RB loudly))) (. .))
(NP (NP (DT the) (NN dog)) (PP (IN in) (NP (NN town))))
(S (VP (VB go)) (. .))
"""

AMBIGUOUS = """
(S (NP (NN time)) (VP (VBZ flies) (PP (IN like) (NP (DT an) (NN arrow)))))
(S (NP (NN fruit) (NN flies)) (VP (VBZ like) (NP (DT a) (NN banana))))
(NP (NP (NN a)) (PP (IN of) (NP (NP (NN b)) (PP (IN in) (NP (NN c))))))
(VP (VBZ sees) (NP (NN dog)) (PP (IN in) (NP (NN town))))
(S (NP (DT the) (NN dog)) (VP (VBZ barks)))
"""


@pytest.fixture(scope="module")
def trees():
    return parse_trees(TREEBANK)


@pytest.fixture(scope="module")
def task(trees):
    return WeightedCFGTask(trees, markov=1, min_word_count=2)


@pytest.fixture(scope="module")
def ambiguous_task():
    """A grammar of noun phrases, verbs and prepositional phrases that attach anywhere."""
    return WeightedCFGTask(parse_trees(AMBIGUOUS), markov=1)


# ------------------------------------------------------------- an independent enumeration
# A tree is ("leaf", i, tag, top) or ("node", start, split, end, label, left, right), labels
# by number; the grammar is read from the task as plain dictionaries of columns.


def grammar_columns(task):
    g = task.grammar
    rules = {
        (int(a), int(b), int(c)): r
        for r, (a, b, c) in enumerate(zip(g.rule_parent, g.rule_left, g.rule_right, strict=True))
    }
    unaries = {
        (int(a), int(t)): g.unary_offset + u
        for u, (a, t) in enumerate(zip(g.unary_parent, g.unary_tag, strict=True))
    }
    roots = {label: int(c) for label, c in enumerate(g.root_columns) if c >= 0}
    return rules, unaries, roots


def every_tree(task, x, start, end):
    """Every subtree over words start..end whose rules are all the grammar's."""
    rules, unaries, _ = grammar_columns(task)
    if end - start == 1:
        tags = range(task.n_tags) if x.tags[start] < 0 else [int(x.tags[start])]
        for tag in tags:
            yield ("leaf", start, tag, tag)
            for parent, child in unaries:
                if child == tag:
                    yield ("leaf", start, tag, parent)
        return
    for split in range(start + 1, end):
        for left in every_tree(task, x, start, split):
            for right in every_tree(task, x, split, end):
                for parent in range(len(task.labels)):
                    if (parent, label_of(left), label_of(right)) in rules:
                        yield ("node", start, split, end, parent, left, right)


def every_parse(task, x):
    _, _, roots = grammar_columns(task)
    return [tree for tree in every_tree(task, x, 0, len(x.words)) if label_of(tree) in roots]


def label_of(tree):
    return tree[3] if tree[0] == "leaf" else tree[4]


def tree_score(task, x, tree, w):
    """w · φ summed rule by rule, word by word."""
    rules, unaries, roots = grammar_columns(task)
    g = task.grammar

    def score(node):
        if node[0] == "leaf":
            _, i, tag, top = node
            lexical = (
                w[g.word_offset + tag * g.n_word_classes + x.words[i]]
                + w[g.signature_offset + tag * g.n_signatures + x.signatures[i]]
            )
            return lexical + (w[unaries[(top, tag)]] if top != tag else 0.0)
        _, _, _, _, label, left, right = node
        rule = rules[(label, label_of(left), label_of(right))]
        return w[rule] + score(left) + score(right)

    return score(tree) + w[roots[label_of(tree)]]


def tree_brackets(task, tree):
    """The labelled brackets (label, start, end): phrase labels that are not @-labels."""
    brackets = set()

    def visit(node):
        label, start, end = (
            (node[3], node[1], node[1] + 1) if node[0] == "leaf" else (node[4], node[1], node[3])
        )
        name = task.labels[label]
        if label >= task.n_tags and not name.startswith("@"):
            brackets.add((name, start, end))
        if node[0] == "node":
            visit(node[5])
            visit(node[6])

    visit(tree)
    return brackets


def tree_labels(tree, n):
    """The task's labels of a tree: tags, tops, then nodes in pre-order."""
    labels = np.zeros(6 * n - 4, dtype=np.int64)
    nodes = []

    def visit(node):
        if node[0] == "leaf":
            labels[node[1]], labels[n + node[1]] = node[2], node[3]
            return
        nodes.extend(node[1:5])
        visit(node[5])
        visit(node[6])

    visit(tree)
    labels[2 * n :] = nodes
    return labels


TAG_PATTERNS = [
    "NN",
    "DT NN",
    "NN IN NN",
    "NN VBZ NN IN NN",
    "NN NN VBZ DT NN",
    "NN IN NN IN NN",
    "VBZ NN IN NN IN NN",
    "DT NN VBZ",
]


def short_sentences(task, rng, count, free_tags):
    """Random sentences of random word classes: of one to three words with free tags, or
    fixed tags of one of the TAG_PATTERNS."""
    g = task.grammar
    for _ in range(count):
        if free_tags:
            tags = np.full(int(rng.integers(1, 4)), -1)
        else:
            pattern = TAG_PATTERNS[rng.integers(len(TAG_PATTERNS))].split()
            tags = np.array([task.labels.index(tag) for tag in pattern])
        n = len(tags)
        yield GrammarInput(
            rng.integers(0, g.n_word_classes, n),
            rng.integers(0, g.n_signatures, n),
            tags.astype(np.int64),
        )


@pytest.mark.parametrize("free_tags", [False, True])
def test_cky_finds_the_best_of_every_parse(ambiguous_task, free_tags):
    task = ambiguous_task
    rng = np.random.default_rng(0)
    ambiguous = 0
    for x in short_sentences(task, rng, 60, free_tags):
        parses = every_parse(task, x)
        ambiguous += len(parses) > 1
        if not parses:
            np.testing.assert_array_equal(
                task.argmax(x, np.zeros(task.size_joint_feature))[2 * len(x.words) + 3 :: 4], -1
            )
            continue
        w = rng.normal(size=task.size_joint_feature)
        scores = [tree_score(task, x, tree, w) for tree in parses]
        found = task.argmax(x, w)
        assert task.score(x, found, w) == pytest.approx(max(scores), abs=1e-9)
        # Trees of the same rules (two attachments of two PPs) tie: any of the best will do.
        best = [
            tree_labels(tree, len(x.words)).tolist()
            for tree, score in zip(parses, scores, strict=True)
            if score > max(scores) - 1e-9
        ]
        assert found.tolist() in best
    assert ambiguous >= 10


@pytest.mark.parametrize("free_tags", [False, True])
def test_loss_augmented_cky_finds_the_most_violating_parse(ambiguous_task, free_tags):
    task = ambiguous_task
    rng = np.random.default_rng(1)
    for x in short_sentences(task, rng, 60, free_tags):
        parses = every_parse(task, x)
        if not parses:
            continue
        truth = parses[rng.integers(len(parses))]
        true_brackets = tree_brackets(task, truth)
        w = rng.normal(size=task.size_joint_feature)
        values = [
            len(true_brackets ^ tree_brackets(task, tree)) + tree_score(task, x, tree, w)
            for tree in parses
        ]
        n = len(x.words)
        found = task.loss_augmented_argmax(x, tree_labels(truth, n), w)
        value = task.loss(tree_labels(truth, n), found) + task.score(x, found, w)
        assert value == pytest.approx(max(values), abs=1e-9)


def test_the_loss_counts_wrong_and_missing_labelled_brackets(task, trees):
    parses = [task.encode(tree)[1] for tree in trees]
    for (a, tree_a), (b, tree_b) in itertools.product(zip(parses, trees, strict=True), repeat=2):
        if len(a) == len(b):
            difference = labelled_brackets(tree_a) - labelled_brackets(tree_b)
            difference += labelled_brackets(tree_b) - labelled_brackets(tree_a)
            assert task.loss(a, b) == sum(difference.values())
    x, y = task.encode(trees[0])
    assert task.loss(y, y) == 0.0
    worst = task.loss_augmented_argmax(x, y, np.zeros(task.size_joint_feature))
    largest = max(task.loss(y, z) for z in task.outputs(x))
    assert task.loss(y, worst) == largest <= task.max_loss(y) == 3 + (2 * 3 - 1)


def test_the_outputs_are_every_parse_of_the_grammar(ambiguous_task):
    task = ambiguous_task
    rng = np.random.default_rng(2)
    for x in short_sentences(task, rng, 20, free_tags=False):
        expected = sorted(tree_labels(tree, len(x.words)).tolist() for tree in every_parse(task, x))
        assert sorted(y.tolist() for y in task.outputs(x)) == expected


def test_a_tree_comes_back_from_its_parse(task, trees):
    for tree in trees:
        x, y = task.encode(tree, gold_tags=True)
        assert task.to_tree(y, tree.words()) == tree
        assert x.tags.tolist() == [task.labels.index(tag) for tag, _ in tree.tagged_words()]


def test_the_grammar_is_that_of_the_binarised_trees(task):
    assert task.labels[: task.n_tags] == sorted(
        ["DT", "NN", "VBZ", "PRP", "JJ", "RB", "IN", "VB", "."]
    )
    assert set(task.labels[task.n_tags :]) == {"S", "NP", "VP", "ADVP", "PP", "@S|NP", "@NP|DT"}
    rules, unaries, roots = grammar_columns(task)
    name = task.labels.index
    assert (name("NP"), name("DT"), name("@NP|DT")) in rules
    assert (name("@NP|DT"), name("JJ"), name("NN")) in rules
    assert (name("VP"), name("VB")) in unaries and (name("ADVP"), name("RB")) in unaries
    assert set(roots) == {name("S"), name("NP")}
    assert task.words == [".", "dog", "the"]


def test_the_pcfg_weights_are_log_relative_frequencies(task, trees):
    w = task.maximum_likelihood_weights(trees, lexical_smoothing=0.5)
    rules, unaries, roots = grammar_columns(task)
    name = task.labels.index
    # NP expands 7 times: DT NN (2), DT @NP|DT, NP PP, and to NN (2) and PRP.
    assert w[rules[(name("NP"), name("DT"), name("NN"))]] == pytest.approx(math.log(2 / 7))
    assert w[rules[(name("NP"), name("NP"), name("PP"))]] == pytest.approx(math.log(1 / 7))
    assert w[unaries[(name("NP"), name("NN"))]] == pytest.approx(math.log(2 / 7))
    # VP: to VBZ, VBZ NP, VBZ ADVP, to VB.
    assert w[unaries[(name("VP"), name("VB"))]] == pytest.approx(math.log(1 / 4))
    assert w[rules[(name("S"), name("NP"), name("VP"))]] == pytest.approx(math.log(2 / 4))
    assert w[roots[name("S")]] == pytest.approx(math.log(4 / 5))
    assert w[roots[name("NP")]] == pytest.approx(math.log(1 / 5))
    # P(word class | DT): "the" seen 3 times as DT, add-0.5 over the word classes.
    g = task.grammar
    the = task.words.index("the")
    expected = (3 + 0.5) / (3 + 0.5 * g.n_word_classes)
    dt_the = g.word_offset + name("DT") * g.n_word_classes + the
    assert w[dt_the] == pytest.approx(math.log(expected))
    assert not np.any(w[g.signature_offset :])
    # The PCFG's best parse of a training sentence is its most probable tree.
    x, y = task.encode(trees[0], gold_tags=True)
    np.testing.assert_array_equal(task.argmax(x, w), y)


def test_check_task_passes(task, trees):
    X, Y = task.check_data(
        *zip(*(task.encode(tree, gold_tags=True) for tree in trees), strict=True)
    )
    assert check_task(task, X, Y).ok


def test_the_compiled_one_slack_fit_is_the_python_one(task, trees):
    X, Y = task.check_data(
        *zip(*(task.encode(tree, gold_tags=True) for tree in trees), strict=True)
    )
    assert_same_one_slack_fit(task, X, Y, C=1.0)


def test_a_structural_svm_learns_the_training_trees_and_survives_a_model_file(
    task, trees, tmp_path
):
    X, Y = task.check_data(*zip(*(task.encode(tree) for tree in trees), strict=True))
    model = StructuredSVM(task, C=100.0, tol=1e-4).fit(X, Y)
    predicted = model.predict(X)
    assert all(task.loss(y, p) == 0 for y, p in zip(Y, predicted, strict=True))
    structsvm.save(model, tmp_path / "parser.model")
    restored = structsvm.load(tmp_path / "parser.model")
    assert isinstance(restored.task, WeightedCFGTask)
    for p, q in zip(predicted, restored.predict(X), strict=True):
        np.testing.assert_array_equal(p, q)


def test_check_data_names_the_example_at_fault(task, trees):
    x, y = task.encode(trees[0])
    with pytest.raises(ValueError, match=r"Y\[0\] must hold 6n - 4 = 14 labels"):
        task.check_data([x], [y[:-1]])
    bad = y.copy()
    bad[2 * 3 + 3] = task.labels.index("PP")
    with pytest.raises(ValueError, match=r"Y\[0\]: the parse uses a rule or root label outside"):
        task.check_data([x], [bad])
    with pytest.raises(ValueError, match=r"X\[0\] must be a GrammarInput"):
        task.check_data([tuple(x)])
    with pytest.raises(ValueError, match="'NX' is not in the grammar"):
        task.encode(parse_trees("(NX (NN dog) (NN dog))")[0])


def test_a_sentence_the_grammar_cannot_parse_gets_a_flat_tree(task):
    x = task.encode_input(["dog", "dog"], ["DT", "DT"])
    w = np.zeros(task.size_joint_feature)
    tree = task.to_tree(task.argmax(x, w), ["dog", "dog"])
    assert str(tree) == "(S (DT dog) (DT dog))"
