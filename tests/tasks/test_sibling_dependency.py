"""Second-order (sibling) dependency parsing: the decoder against every projective tree, the
joint feature against the part scores, the contract and the compiled oracle."""

import numpy as np
import pytest

from structsvm import StructuredSVM, check_task
from tasks import ArcFeatures, SiblingDependencyTask
from tasks._dependency_features import arc_scores
from tasks._sibling_dependency_oracle import decode_sibling_tree, second_order_eisner
from tasks._sibling_features import sibling_scores
from tests.references import every_tree
from tests.tasks.compiled_checks import (
    assert_compiled_oracle_answers_as_python,
    assert_same_one_slack_fit,
)
from tests.tasks.dependency_checks import (
    random_sentences,
    tree_score,
)


def sibling_parts(heads):
    """Return every (head, sibling, dependent) of a tree: a head's dependents on each side in
    order going out from it, each with the one before it (the head itself for the first)."""
    parts = []
    for h in range(len(heads) + 1):
        dependents = [d for d, head in enumerate(heads, start=1) if head == h]
        left = sorted((d for d in dependents if d < h), reverse=True)
        right = sorted(d for d in dependents if d > h)
        for side in (left, right):
            parts += [(h, before, d) for before, d in zip([h, *side], side, strict=False)]
    return parts


def second_order_score(arcs, siblings, heads):
    return tree_score(arcs, heads) + sum(siblings[part] for part in sibling_parts(heads))


@pytest.fixture
def projective_sentences():
    """Short sentences with the projective trees a hidden weight vector gives them."""
    rng = np.random.default_rng(0)
    X = random_sentences(16, rng)
    task = SiblingDependencyTask(ArcFeatures(2**12))
    hidden = rng.normal(size=task.size_joint_feature)
    return X, [task.argmax(x, hidden) for x in X]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_the_decoder_finds_the_best_projective_tree_under_arcs_and_siblings(n):
    rng = np.random.default_rng(n)
    trees = list(every_tree(n, True))
    for _ in range(10):
        arcs = rng.normal(size=(n + 1, n + 1))
        siblings = rng.normal(size=(n + 1, n + 1, n + 1))
        heads = second_order_eisner(arcs.copy(), siblings)
        assert any(np.array_equal(heads, tree) for tree in trees)
        best = max(second_order_score(arcs, siblings, tree) for tree in trees)
        assert second_order_score(arcs, siblings, heads) == pytest.approx(best, abs=1e-12)


def test_loss_augmented_decoding_finds_the_most_violating_tree():
    rng = np.random.default_rng(7)
    n = 5
    trees = list(every_tree(n, True))
    weights = np.array([1.0, 0.0, 1.0, 0.5, 1.0])
    for _ in range(20):
        arcs = rng.normal(size=(n + 1, n + 1))
        siblings = rng.normal(size=(n + 1, n + 1, n + 1))
        gold = trees[rng.integers(len(trees))]
        heads = decode_sibling_tree(arcs.copy(), siblings, gold, weights, True)

        def value(tree, arcs=arcs, siblings=siblings, gold=gold):
            return second_order_score(arcs, siblings, tree) + np.sum(weights * (tree != gold))

        assert value(heads) == pytest.approx(max(map(value, trees)), abs=1e-12)


def test_a_tree_scores_its_arcs_and_its_sibling_parts(projective_sentences):
    task = SiblingDependencyTask(ArcFeatures(2**12))
    w = np.random.default_rng(1).normal(size=task.size_joint_feature)
    for x in projective_sentences[0]:
        arcs = arc_scores(x.words, x.tags, x.prefixes, w, task.size_joint_feature)
        siblings = sibling_scores(x.words, x.tags, w, task.size_joint_feature)
        for tree in every_tree(x.n_words, True):
            assert task.joint_feature(x, tree) @ w == pytest.approx(
                second_order_score(arcs, siblings, tree)
            )


def test_check_task_passes(projective_sentences):
    task = SiblingDependencyTask(ArcFeatures(2**12), punctuation_weight=0.5)
    report = check_task(task, *task.check_data(*projective_sentences))
    assert report.ok, report


def test_the_compiled_oracle_answers_as_the_python_methods(projective_sentences):
    task = SiblingDependencyTask(ArcFeatures(2**12), punctuation_weight=0.5)
    assert_compiled_oracle_answers_as_python(task, *projective_sentences)


def test_the_compiled_pass_trains_as_the_python_path(projective_sentences):
    X, Y = projective_sentences
    assert_same_one_slack_fit(SiblingDependencyTask(ArcFeatures(2**8)), X[:8], Y[:8], C=1.0)


def test_training_reaches_the_training_trees(projective_sentences):
    X, Y = projective_sentences
    task = SiblingDependencyTask(ArcFeatures(2**12))
    svm = StructuredSVM(task, C=100.0, max_iter=500, tol=1e-4).fit(X, Y)
    assert all(np.array_equal(p, y) for p, y in zip(svm.predict(X), Y, strict=True))
