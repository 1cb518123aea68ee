"""First-order dependency parsing: both decoders against every tree, the contract, learning."""

import itertools

import numpy as np
import pytest

from structsvm import StructuredSVM, check_task, load, save
from tasks import (
    ArcFeatures,
    ArcLabeller,
    DependencyTask,
    ParseInput,
    ReferenceTree,
    attachment_scores,
)
from tasks._dependency_features import arc_rows, arc_scores, packed, tree_arc_columns
from tasks._dependency_oracle import chu_liu_edmonds, decode_tree, eisner
from tests.references import every_tree
from tests.tasks.compiled_checks import assert_compiled_oracle_answers_as_python
from tests.tasks.dependency_checks import (
    TAGS,
    random_sentences,
    tree_score,
)

DECODERS = ("eisner", "chu-liu-edmonds")


@pytest.fixture
def short_sentences():
    """Short sentences with the trees a hidden weight vector gives them."""
    rng = np.random.default_rng(0)
    X = random_sentences(20, rng)
    task = DependencyTask(ArcFeatures(2**12), decoder="chu-liu-edmonds")
    hidden = rng.normal(size=task.size_joint_feature)
    return X, [task.argmax(x, hidden) for x in X]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_both_decoders_find_the_best_tree_of_their_kind(n):
    rng = np.random.default_rng(n)
    projective, every = list(every_tree(n, True)), list(every_tree(n, False))
    for _ in range(20):
        scores = rng.normal(size=(n + 1, n + 1))
        for decode, trees in ((eisner, projective), (chu_liu_edmonds, every)):
            heads = decode(scores.copy())
            assert any(np.array_equal(heads, tree) for tree in trees)
            best = max(tree_score(scores, tree) for tree in trees)
            assert tree_score(scores, heads) == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("decoder", [0, 1])
def test_loss_augmented_decoding_finds_the_most_violating_tree(decoder):
    rng = np.random.default_rng(7)
    n = 5
    trees = list(every_tree(n, projective=decoder == 0))
    weights = np.array([1.0, 0.0, 1.0, 0.5, 1.0])
    for _ in range(20):
        scores = rng.normal(size=(n + 1, n + 1))
        gold = trees[rng.integers(len(trees))]
        heads = decode_tree(scores.copy(), decoder, gold, weights, True)

        def value(tree, scores=scores, gold=gold):
            return tree_score(scores, tree) + np.sum(weights * (tree != gold))

        assert value(heads) == pytest.approx(max(map(value, trees)), abs=1e-12)


def test_only_the_non_projective_decoder_finds_a_tree_with_crossing_arcs():
    crossing = np.array([4, 0, 2, 2])  # the arc 4 → 1 spans the root word 2
    scores = np.zeros((5, 5))
    for d, h in enumerate(crossing, start=1):
        scores[h, d] = 10.0
    np.testing.assert_array_equal(chu_liu_edmonds(scores.copy()), crossing)
    projective = eisner(scores.copy())
    assert not np.array_equal(projective, crossing)
    assert tree_score(scores, projective) == max(
        tree_score(scores, tree) for tree in every_tree(4, True)
    )


def test_a_tree_scores_the_sum_of_its_arc_scores(short_sentences):
    task = DependencyTask(ArcFeatures(2**12))
    w = np.random.default_rng(1).normal(size=task.size_joint_feature)
    for x, y in zip(*short_sentences, strict=True):
        scores = arc_scores(x.words, x.tags, x.prefixes, w, task.size_joint_feature)
        assert task.joint_feature(x, y) @ w == pytest.approx(tree_score(scores, y))


def shared_columns(*arcs):
    """Return the feature columns that arcs ``(words, tags, head, dependent)`` all have, hashed
    2**61 wide (no collisions); each arc's sentence hangs its other words from its head."""
    features, width = ArcFeatures(2**61), 2**61
    shared = None
    for words, tags, head, dependent in arcs:
        x = features.sentence(words, tags)
        heads = np.full(x.n_words, head, dtype=np.int64)
        heads[head - 1] = 0
        columns, indptr = tree_arc_columns(x.words, x.tags, x.prefixes, heads, width)
        arc = set(columns[indptr[dependent - 1] : indptr[dependent]])
        shared = arc if shared is None else shared & arc
    return shared


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # the head's word and the dependent's tag: word, tag, and the pair
        (
            (["saw", "dog"], ["A", "B"], 1, 2),
            (["cat", "x", "y", "saw"], ["B", "E", "F", "C"], 4, 1),
        ),
        # the head's tag and the dependent's word: tag, word, and the pair
        (
            (["saw", "dog"], ["A", "B"], 1, 2),
            (["dog", "x", "y", "ran"], ["D", "E", "F", "A"], 4, 1),
        ),
        # the head's 5-letter prefix and the dependent's tag: prefix, tag, and the pair
        (
            (["station", "dog"], ["A", "B"], 1, 2),
            (["cat", "x", "y", "stations"], ["B", "E", "F", "C"], 4, 1),
        ),
        # the head's tag and the dependent's 5-letter prefix: tag, prefix, and the pair
        (
            (["saw", "station"], ["A", "B"], 1, 2),
            (["stations", "x", "y", "ran"], ["D", "E", "F", "A"], 4, 1),
        ),
    ],
)
def test_arcs_sharing_a_word_on_one_side_and_a_tag_on_the_other_share_that_pair(first, second):
    # Everything else differs (direction, distance, the other word and tag, the tags around
    # and between), and the width leaves no collisions: the shared columns are the two alone,
    # the two together and the template every arc has (direction and distance, plain).
    assert len(shared_columns(first, second)) == 4


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # the head's word, the dependent's tag and the tag after the dependent
        (
            (["saw", "dog", "z"], ["A", "B", "G"], 1, 2),
            (["cat", "x", "saw"], ["B", "G", "C"], 3, 1),
        ),
        # the head's tag, the tag before the head and the dependent's word
        (
            (["z", "saw", "dog"], ["G", "A", "B"], 2, 3),
            (["dog", "x", "y", "ran"], ["D", "E", "G", "A"], 4, 1),
        ),
    ],
)
def test_arcs_sharing_a_word_a_tag_and_the_tag_next_to_it_share_that_triple(first, second):
    # As above, with the tag next to the tagged word shared too: the word and the tag alone,
    # the pair, the triple and the template every arc has.
    assert len(shared_columns(first, second)) == 5


def test_the_loss_counts_wrong_heads_with_punctuation_weighted():
    features = ArcFeatures(2**10)
    x = features.sentence(["Dogs", "bark", "."], ["NOUN", "VERB", "PUNCT"])
    task = DependencyTask(features, punctuation_weight=0.0)
    gold = task.reference(x, [2, 0, 2])
    assert task.loss(gold, np.array([2, 0, 1])) == 0.0
    assert task.loss(gold, np.array([0, 1, 1])) == 2.0
    assert task.max_loss(gold) == 2.0
    assert DependencyTask(features).loss([2, 0, 2], np.array([0, 1, 1])) == 3.0


@pytest.mark.parametrize("decoder", DECODERS)
def test_check_task_passes(decoder, short_sentences):
    task = DependencyTask(ArcFeatures(2**12), decoder=decoder, punctuation_weight=0.5)
    X, Y = short_sentences
    if decoder == "eisner":
        X, Y = zip(*[(x, y) for x, y in zip(X, Y, strict=True) if _projective(y)], strict=True)
    report = check_task(task, *task.check_data(list(X), list(Y)))
    assert report.ok, report


def _projective(heads):
    return any(np.array_equal(heads, tree) for tree in every_tree(len(heads), True))


@pytest.mark.parametrize("decoder", DECODERS)
def test_the_compiled_oracle_answers_as_the_python_methods(decoder, short_sentences):
    task = DependencyTask(ArcFeatures(2**12), decoder=decoder, punctuation_weight=0.5)
    assert_compiled_oracle_answers_as_python(task, *short_sentences)


def test_a_subclass_that_changes_the_loss_gets_no_compiled_oracle(short_sentences):
    class Doubled(DependencyTask):
        def loss(self, y_true, y):
            return 2 * super().loss(y_true, y)

    task = Doubled(ArcFeatures(2**12))
    assert task.compiled_oracle(*task.check_data(*short_sentences)) is None


def test_check_data_names_the_example_at_fault(short_sentences):
    task = DependencyTask(ArcFeatures(2**12))
    X, Y = short_sentences
    with pytest.raises(ValueError, match=r"X\[1\] must be a ParseInput"):
        task.check_data([X[0], "text"])
    cyclic = [np.arange(len(y)) + 1 for y in Y]  # every word hangs from the next: no root
    with pytest.raises(ValueError, match=r"Y\[0\] must be the heads of a single-root tree"):
        task.check_data(X, cyclic)
    X_checked, Y_checked = task.check_data(X, Y)
    assert all(isinstance(x, ParseInput) for x in X_checked)
    assert all(isinstance(y, ReferenceTree) for y in Y_checked)


@pytest.mark.parametrize("decoder", DECODERS)
def test_training_reaches_the_training_trees_and_survives_a_model_file(
    decoder, short_sentences, tmp_path
):
    task = DependencyTask(ArcFeatures(2**12), decoder=decoder)
    X, Y = short_sentences
    if decoder == "eisner":
        X, Y = zip(*[(x, y) for x, y in zip(X, Y, strict=True) if _projective(y)], strict=True)
    svm = StructuredSVM(task, C=100.0, max_iter=500, tol=1e-4).fit(list(X), list(Y))
    predicted = svm.predict(list(X))
    assert all(np.array_equal(p, y) for p, y in zip(predicted, Y, strict=True))
    save(svm, tmp_path / "parser.model")
    loaded = load(tmp_path / "parser.model")
    assert all(
        np.array_equal(a, b) for a, b in zip(loaded.predict(list(X)), predicted, strict=True)
    )


def test_the_arc_rows_of_a_tree_sum_to_its_joint_feature(short_sentences):
    task = DependencyTask(ArcFeatures(2**6))  # a narrow width, for columns shared by templates
    X, Y = short_sentences
    heads = np.concatenate(Y)
    indptr = np.zeros(len(heads) + 1, dtype=np.int64)
    arc_rows(*packed(X), heads, 2**6, True, indptr, np.zeros(0, dtype=np.int32), np.zeros(0))
    columns, counts = np.empty(indptr[-1], dtype=np.int32), np.empty(indptr[-1])
    arc_rows(*packed(X), heads, 2**6, True, indptr, columns, counts)
    first = 0
    for x, y in zip(X, Y, strict=True):
        begin, end = indptr[first], indptr[first + x.n_words]
        summed = np.bincount(columns[begin:end], counts[begin:end], minlength=2**6)
        np.testing.assert_array_equal(summed, task.joint_feature(x, y))
        first += x.n_words
    assert all(np.all(np.diff(columns[a:b]) > 0) for a, b in itertools.pairwise(indptr))


def test_the_labeller_learns_the_relations_of_the_training_arcs():
    rng = np.random.default_rng(3)
    X = random_sentences(30, rng, lengths=(2, 6))
    heads = [np.r_[0, np.ones(x.n_words - 1, dtype=np.int64)] for x in X]
    # The relation follows the dependent's tag: an arc into a NOUN is "nsubj", and so on.
    relation_of = {"DET": "det", "NOUN": "nsubj", "VERB": "root", "ADV": "advmod"}
    relation_of |= {"ADP": "case", "PUNCT": "punct"}
    codes = {ArcFeatures(2**12).sentence(["w"], [tag]).tags[1]: tag for tag in TAGS}
    relations = [["root", *(relation_of[codes[code]] for code in x.tags[2:])] for x in X]
    labeller = ArcLabeller(n_features=2**12, C=10.0).fit(X, heads, relations)
    assert labeller.predict(X, heads) == relations


def test_attachment_scores_count_heads_and_relations_with_and_without_punctuation():
    from structsvm.io import DependencySentence

    gold = [
        DependencySentence(
            ["Dogs", "bark", "."], ["NOUN", "VERB", "PUNCT"], [2, 0, 2], ["nsubj", "root", "punct"]
        )
    ]
    scores = attachment_scores(gold, [np.array([2, 0, 1])], [["obj", "root", "punct"]])
    assert (scores.uas, scores.las) == pytest.approx((2 / 3, 1 / 3))
    assert (scores.uas_without_punctuation, scores.las_without_punctuation) == (1.0, 0.5)
    assert (scores.n_words, scores.n_words_without_punctuation) == (3, 2)
