"""Tagging sentences of per-token feature dicts: CRFsuite's feature naming, a vocabulary or
hashing, the same model as the equivalent sparse matrices, string tags in and out."""

import pickle

import numpy as np
import pytest
import scipy.sparse

import structsvm
from structsvm import SequenceTagger, SequenceVectorizer, StructuredSVM
from structsvm.learners._sequence_tagger import bio_segments
from tasks import ChainTask


def token(word):
    """A token's features as an sklearn-crfsuite user writes them."""
    return {
        "bias": 1.0,
        "lower": word.lower(),
        "istitle": word.istitle(),
        "affixes": [word[:2], word[-2:]],
    }


SENTENCES = [
    ["Ana", "vive", "en", "Madrid"],
    ["Luis", "come", "en", "Lima"],
    ["en", "Roma", "vive", "Eva"],
    ["come", "Ana"],
]
TAGS = [
    ["B-PER", "O", "O", "B-LOC"],
    ["B-PER", "O", "O", "B-LOC"],
    ["O", "B-LOC", "O", "B-PER"],
    ["O", "B-PER"],
]
X = [[token(word) for word in sentence] for sentence in SENTENCES]


def test_features_are_named_as_crfsuite_names_them():
    vectorizer = SequenceVectorizer().fit([[token("Ana")]])
    assert sorted(vectorizer.vocabulary_) == [
        "affixes:An", "affixes:na", "bias", "istitle", "lower:ana"
    ]
    (matrix,) = vectorizer.transform([[token("Ana")]])
    assert matrix.shape == (1, 5) and matrix.toarray().tolist() == [[1.0] * 5]
    (untitled,) = vectorizer.transform([[{"istitle": False, "bias": 2.5}]])
    assert untitled.toarray().tolist() == [[0.0, 0.0, 2.5, 0.0, 0.0]]


def test_unknown_features_are_ignored_and_repeated_ones_add_up():
    vectorizer = SequenceVectorizer().fit(X)
    (matrix,) = vectorizer.transform([[{"lower": "nunca", "unseen": 3.0}, {"affixes": ["en"] * 2}]])
    assert matrix.shape == (2, vectorizer.n_features_)
    assert matrix[0].nnz == 0
    assert matrix[1, vectorizer.vocabulary_["affixes:en"]] == 2.0


def test_hashing_needs_no_vocabulary_and_puts_a_name_in_one_column():
    vectorizer = SequenceVectorizer(hash_features=64).fit(X)
    assert vectorizer.vocabulary_ == {} and vectorizer.n_features_ == 64
    first, second = vectorizer.transform([[{"lower": "madrid"}], [{"lower": "madrid", "x": 0.0}]])
    assert first.shape == (1, 64) and first.nnz == 1
    assert first[0].indices[0] == second[0].indices[second[0].data != 0][0]


@pytest.mark.parametrize(
    ("sentences", "error", "message"),
    [
        ([[{"w": "a"}, "b"]], TypeError, r"X\[0\]\[1\] must be a dict"),
        ([[{"w": {"nested": 1}}]], TypeError, r"X\[0\]\[0\]\['w'\] is a dict"),
        ([[{1: "a"}]], TypeError, r"X\[0\]\[0\] has the key 1"),
        ([[{"w": ["a", 2]}]], TypeError, r"X\[0\]\[0\]\['w'\] is a list"),
        ({"w": "a"}, TypeError, "X must be a sequence"),
        ([[{}]], ValueError, "no feature"),
    ],
)
def test_malformed_sentences_are_refused_naming_the_token(sentences, error, message):
    with pytest.raises(error, match=message):
        SequenceVectorizer().fit(sentences)


def test_feature_dicts_give_the_model_of_the_equivalent_sparse_matrices():
    tagger = SequenceTagger(C=1.0, tol=1e-4, random_state=0).fit(X, TAGS)
    vectorizer = SequenceVectorizer().fit(X)
    inputs = vectorizer.transform(X)
    assert all(scipy.sparse.issparse(x) for x in inputs)
    classes = ["B-LOC", "B-PER", "O"]
    labels = [np.array([classes.index(tag) for tag in tags]) for tags in TAGS]
    svm = StructuredSVM(ChainTask(3, vectorizer.n_features_), C=1.0, tol=1e-4, random_state=0)
    svm.fit(inputs, labels)
    assert tagger.classes_.tolist() == classes
    assert tagger.vectorizer_.vocabulary_ == vectorizer.vocabulary_
    np.testing.assert_allclose(tagger.svm_.w_, svm.w_, rtol=1e-9, atol=1e-12)


def test_tags_go_in_and_come_out_as_strings():
    tagger = SequenceTagger(C=10.0, random_state=0).fit(X, TAGS)
    assert tagger.predict(X) == TAGS
    predicted = tagger.predict([[token("Eva"), token("vive"), token("en"), token("Lima")]])
    assert predicted == [["B-PER", "O", "O", "B-LOC"]]
    assert all(isinstance(tag, str) for tag in predicted[0])


def test_bio_tags_never_decode_an_inside_tag_after_outside():
    tags = [["B-PER", "I-PER", "O"], ["O", "B-LOC", "I-LOC"]]
    sentences = [[{"w": "x"}, {"w": "y"}, {"w": "z"}]] * 2
    tagger = SequenceTagger(bio=True, C=0.01, random_state=0).fit(sentences, tags)
    for sequence in tagger.predict([[{"w": "y"}, {"w": "y"}, {"w": "y"}]]):
        pairs = zip(["O", *sequence], sequence, strict=False)
        assert not any(tag.startswith("I-") and before == "O" for before, tag in pairs)


def test_a_hashing_tagger_learns_the_training_tags():
    tagger = SequenceTagger(C=10.0, hash_features=1 << 12, random_state=0).fit(X, TAGS)
    assert tagger.predict(X) == TAGS


@pytest.mark.parametrize(
    ("y", "message"),
    [
        ([["O"]] * 3, "y has 3"),
        ([TAGS[0], ["O"], *TAGS[2:]], r"y\[1\] has 1 tags but X\[1\] has 4"),
        ([[0, 1, 0, 1], *TAGS[1:]], r"y\[0\] holds 0: tags must be str"),
        ([["O"] * 4, ["O"] * 4, ["O"] * 4, ["O"] * 2], "two distinct tags"),
    ],
)
def test_malformed_tags_are_refused_by_name(y, message):
    with pytest.raises((ValueError, TypeError), match=message):
        SequenceTagger().fit(X, y)


def test_a_fitted_tagger_survives_a_model_file_and_pickle(tmp_path):
    tagger = SequenceTagger(C=10.0, random_state=0).fit(X, TAGS)
    structsvm.save(tagger, tmp_path / "tagger.zip")
    for copy in (structsvm.load(tmp_path / "tagger.zip"), pickle.loads(pickle.dumps(tagger))):
        assert copy.predict(X) == tagger.predict(X)
        assert copy.vectorizer_.vocabulary_ == tagger.vectorizer_.vocabulary_


def test_bio_tags_become_entity_segments_cut_at_the_longest_length():
    tags = ["B-PER", "I-PER", "I-PER", "O", "I-LOC", "B-LOC", "O"]
    assert bio_segments(tags, 2) == [
        (0, 2, "PER"), (2, 3, "PER"), (3, 4, "O"), (4, 5, "LOC"), (5, 6, "LOC"), (6, 7, "O")
    ]
    with pytest.raises(ValueError, match="BIO tags"):
        bio_segments(["B-O"], 2)


@pytest.mark.parametrize("loss", ["hamming", "segments"])
def test_a_segment_tagger_returns_bio_tags(loss):
    tags = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-PER", "B-PER", "O"]]
    sentences = [["Ana", "Pérez", "en", "Lima"], ["y", "Eva", "Luis", "ríen"]]
    X_pairs = [[token(word) for word in sentence] for sentence in sentences]
    tagger = SequenceTagger(segments=3, segment_loss=loss, C=10.0, random_state=0)
    tagger.fit(X_pairs, tags)
    assert tagger.segment_types_.tolist() == ["LOC", "O", "PER"]
    assert tagger.predict(X_pairs) == tags
    assert tagger.svm_.task.max_lengths.tolist() == [3, 1, 3]


def test_solver_options_reach_the_structural_svm():
    options = {"step": "fw", "order": "cyclic", "averaging": False, "gap_check_every": 2}
    tagger = SequenceTagger(solver="bcfw", max_iter=4, random_state=0, **options)
    params = tagger.fit(X, TAGS).svm_.get_params()
    assert {name: params[name] for name in options} == options
    assert tagger.svm_.n_iter_ == 4


def test_a_bad_solver_option_is_refused_by_the_structural_svm_rule():
    with pytest.raises(ValueError, match="step"):
        SequenceTagger(solver="bcfw", step="newton").fit(X, TAGS)
    with pytest.raises(ValueError, match="order"):
        SequenceTagger(solver="bcfw", order="sorted").fit(X, TAGS)


@pytest.mark.parametrize("segments", [None, 3])
def test_a_warm_started_tagger_walks_c_from_the_last_fit_to_the_optimum_at_the_new_c(segments):
    settings = {"solver": "bcfw", "tol": 1e-2, "max_iter": 2000, "random_state": 0,
                "bio": segments is None, "segments": segments}
    path = SequenceTagger(C=0.1, warm_start=True, **settings).fit(X, TAGS)
    svm = path.svm_
    path.set_params(C=1.0).fit(X, TAGS)
    cold = SequenceTagger(C=1.0, **{**settings, "max_iter": 20000}).fit(X, TAGS)

    assert path.svm_ is svm and path.svm_.C == 1.0
    # The fit at C = 1 starts from the dual point of C = 0.1, not from zero.
    assert path.svm_.history_[0]["dual"] > 0
    assert path.svm_.converged_ and cold.svm_.converged_
    assert path.svm_.dual_objective_ <= cold.svm_.primal_objective_
    assert cold.svm_.dual_objective_ <= path.svm_.primal_objective_
    assert path.predict(X) == cold.predict(X) == TAGS
