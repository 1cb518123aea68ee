"""Text chunking: the CoNLL-2000 reader, the chunking features and conlleval's chunk scores."""

import doctest
import gc
import importlib
import pkgutil

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

import tasks.chunking
from tasks import (
    ChainTask,
    ChunkingFeatures,
    Sentence,
    TagEncoder,
    chunk_scores,
    extract_chunks,
    read_conll,
)
from tasks._chain import _concatenate

SAMPLE = """\
Confidence NN B-NP
in IN B-PP
the DT B-NP
pound NN I-NP

He PRP B-NP
reckons VBZ B-VP
.  .  O
"""


def sample_sentences():
    return read_conll(SAMPLE.splitlines())


# ----------------------------------------------------------------------------- reader
def test_reader_returns_one_sentence_per_blank_line_separated_block(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text(SAMPLE, encoding="utf-8")
    sentences = read_conll(path)
    assert sentences == [
        Sentence(
            ("Confidence", "in", "the", "pound"),
            ("NN", "IN", "DT", "NN"),
            ("B-NP", "B-PP", "B-NP", "I-NP"),
        ),
        Sentence(("He", "reckons", "."), ("PRP", "VBZ", "."), ("B-NP", "B-VP", "O")),
    ]
    assert [len(s) for s in sentences] == [4, 3]
    assert read_conll(str(path)) == sentences


def test_reader_accepts_extra_blank_lines_docstart_and_no_final_blank_line(tmp_path):
    text = "\n\n-DOCSTART- -X- O\n\nA DT B-NP\n\n\n\nB NN B-NP\n-DOCSTART- -X- O\nC NN B-NP"
    path = tmp_path / "messy.txt"
    path.write_text(text, encoding="utf-8")
    assert [s.words for s in read_conll(path)] == [("A",), ("B",), ("C",)]


def test_reader_takes_lines_or_an_open_file(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text(SAMPLE, encoding="utf-8")
    with open(path, encoding="utf-8") as handle:
        from_handle = read_conll(handle)
    assert from_handle == read_conll(SAMPLE.splitlines(keepends=True)) == sample_sentences()
    assert read_conll([]) == [] and read_conll(["", "  "]) == []


def test_wrong_number_of_columns_names_the_file_and_the_line(tmp_path):
    path = tmp_path / "broken.txt"
    path.write_text("A DT B-NP\n\nB NN\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.txt, line 3: expected 3 columns.*found 2"):
        read_conll(path)
    with pytest.raises(ValueError, match=r"<lines>, line 1: expected 3 columns.*found 4"):
        read_conll(["A DT B-NP extra"])


def test_columns_name_what_each_column_holds():
    untagged = read_conll(["He PRP", "runs VBZ"], columns=("words", "pos"))
    assert untagged == [Sentence(("He", "runs"), ("PRP", "VBZ"), None)]
    skipped = read_conll(["1 He PRP B-NP"], columns=(None, "words", "pos", "tags"))
    assert skipped == [Sentence(("He",), ("PRP",), ("B-NP",))]
    for bad in [("pos", "tags"), ("words", "lemma"), ("words", "words"), "words"]:
        with pytest.raises(ValueError, match="columns"):
            read_conll([], columns=bad)


def test_sentence_fields_must_match_the_words():
    with pytest.raises(ValueError, match=r"Sentence\.tags has 1 entries but there are 2 words"):
        Sentence(["a", "b"], ["DT", "NN"], ["O"])


# ----------------------------------------------------------------------------- features
def test_token_features_follow_the_documented_templates():
    sentence = Sentence(
        ("The", "Fed-2", "cut", "rates", "."),
        ("DT", "NNP", "VBD", "NNS", "."),
    )
    features = ChunkingFeatures().token_features(sentence)
    assert len(features) == 5
    middle = set(features[2])
    assert middle == {
        "bias",
        "w[0]=cut",
        "lower=cut",
        "prefix1=c",
        "prefix2=cu",
        "prefix3=cut",
        "suffix1=t",
        "suffix2=ut",
        "suffix3=cut",
        "shape=x",
        "w[-2]=The",
        "w[-1]=Fed-2",
        "w[+1]=rates",
        "w[+2]=.",
        "w[-1]|w[0]=Fed-2|cut",
        "w[0]|w[+1]=cut|rates",
        "pos[-2]=DT",
        "pos[-1]=NNP",
        "pos[0]=VBD",
        "pos[+1]=NNS",
        "pos[+2]=.",
        "pos[-2]|pos[-1]=DT|NNP",
        "pos[-1]|pos[0]=NNP|VBD",
        "pos[0]|pos[+1]=VBD|NNS",
        "pos[+1]|pos[+2]=NNS|.",
        "pos[-2]|pos[-1]|pos[0]=DT|NNP|VBD",
        "pos[-1]|pos[0]|pos[+1]=NNP|VBD|NNS",
        "pos[0]|pos[+1]|pos[+2]=VBD|NNS|.",
    }
    # Shape and flags of a capitalised, hyphenated word with a digit.
    assert {"shape=Xx-d", "title", "has_digit", "has_hyphen"} <= set(features[1])
    # Offsets outside the sentence are left out; the ends are marked.
    first, last = set(features[0]), set(features[-1])
    assert "BOS" in first and "EOS" in last and "BOS" not in middle and "EOS" not in middle
    assert not any(f.startswith(("w[-1]", "pos[-1]", "w[-2]", "pos[-2]")) for f in first)
    assert not any(f.startswith(("w[+1]", "pos[+1]", "w[+2]", "pos[+2]")) for f in last)
    assert all(len(set(token)) == len(token) for token in features)


def test_rows_hold_a_one_for_exactly_the_token_features():
    sentences = sample_sentences()
    vectorizer = ChunkingFeatures()
    X = vectorizer.fit_transform(sentences)
    names = vectorizer.get_feature_names_out()
    assert list(names) == sorted(names) and vectorizer.n_features_ == len(names)
    for sentence, x in zip(sentences, X):
        assert scipy.sparse.issparse(x) and x.format == "csr"
        assert x.shape == (len(sentence), vectorizer.n_features_) and x.dtype == np.float64
        assert x.has_sorted_indices and set(x.data) == {1.0}
        for row, features in enumerate(vectorizer.token_features(sentence)):
            assert set(names[x[row].indices]) == set(features)
    refit = ChunkingFeatures().fit(sentences).transform(sentences)
    assert all((a != b).nnz == 0 for a, b in zip(X, refit))
    assert gc.isenabled()  # paused for speed while the features are built, then restored


def test_features_unseen_in_fit_are_ignored():
    vectorizer = ChunkingFeatures().fit(sample_sentences())
    new = Sentence(("Zyzzyva", "in"), ("FW", "IN"))
    (x,) = vectorizer.transform([new])
    assert x.shape == (2, vectorizer.n_features_)
    known = [
        [f for f in features if f in vectorizer.vocabulary_]
        for features in vectorizer.token_features(new)
    ]
    assert "bias" in known[0] and "w[0]=Zyzzyva" not in known[0]
    assert x.getnnz(axis=1).tolist() == [len(k) for k in known]


def test_min_count_keeps_features_seen_on_at_least_that_many_tokens():
    sentences = sample_sentences()
    all_features = ChunkingFeatures(min_count=1).fit(sentences).vocabulary_
    pruned = ChunkingFeatures(min_count=2).fit(sentences).vocabulary_
    # 7 tokens: "bias" fires 7 times, "pos[0]=NN" twice, the word "pound" once.
    assert {"bias", "pos[0]=NN", "shape=x"} <= pruned.keys()
    assert "w[0]=pound" in all_features and "w[0]=pound" not in pruned
    assert pruned.keys() < all_features.keys()
    with pytest.raises(ValueError, match="no feature occurs at least min_count=99"):
        ChunkingFeatures(min_count=99).fit(sentences)
    for bad in [0, 1.5, True]:
        with pytest.raises(ValueError, match="min_count must be an integer >= 1"):
            ChunkingFeatures(min_count=bad).fit(sentences)


def test_features_need_fit_and_pos_tags():
    with pytest.raises(NotFittedError):
        ChunkingFeatures().transform(sample_sentences())
    with pytest.raises(ValueError, match="needs POS tags"):
        ChunkingFeatures().fit([Sentence(("a",))])


def test_matrices_and_labels_feed_a_chain_task():
    sentences = sample_sentences()
    vectorizer, encoder = ChunkingFeatures(), TagEncoder()
    X = [x.toarray() for x in vectorizer.fit_transform(sentences)]
    Y = encoder.fit_transform([s.tags for s in sentences])
    task = ChainTask(len(encoder.classes_), vectorizer.n_features_)
    X, Y = task.check_data(X, Y)
    predictions = task.batch_argmax(X, np.zeros(task.size_joint_feature))
    assert [len(y) for y in encoder.inverse_transform(predictions)] == [4, 3]


def test_a_chain_trains_on_the_matrices_of_a_corpus_without_copying_them():
    # The matrices are views of one pair of arrays, which the chain task checks and stacks as
    # they are; a batch whose matrices are not consecutive is stacked by copying, the same.
    sentences = sample_sentences() * 3
    vectorizer = ChunkingFeatures()
    X = vectorizer.fit_transform(sentences)
    task = ChainTask(n_labels=2, n_features=vectorizer.n_features_)
    checked, _ = task.check_data(X, [np.zeros(len(s), dtype=int) for s in sentences])
    for batch, shared in ((checked, True), (checked[::2], False)):
        stacked, offsets = _concatenate(batch)
        assert np.shares_memory(stacked.data, batch[-1].data) is shared
        assert np.shares_memory(stacked.indices, batch[-1].indices) is shared
        assert (stacked != scipy.sparse.vstack(batch)).nnz == 0
        assert offsets.tolist() == np.cumsum([0] + [x.shape[0] for x in batch]).tolist()


def test_crfsuite_sees_exactly_the_same_features(tmp_path):
    pycrfsuite = pytest.importorskip("pycrfsuite")
    sentences = sample_sentences()
    vectorizer = ChunkingFeatures()
    X = vectorizer.fit_transform(sentences)
    names = vectorizer.get_feature_names_out()
    trainer = pycrfsuite.Trainer(verbose=False)
    for sentence, x in zip(sentences, X):
        xseq = vectorizer.token_features(sentence)
        items = pycrfsuite.ItemSequence(xseq).items()
        assert [dict(item) for item in items] == [
            dict.fromkeys(names[x[row].indices], 1.0) for row in range(x.shape[0])
        ]
        trainer.append(xseq, list(sentence.tags))
    trainer.set_params({"max_iterations": 20})
    model = tmp_path / "chunker.crfsuite"
    trainer.train(str(model))
    tagger = pycrfsuite.Tagger()
    tagger.open(str(model))
    predicted = [tagger.tag(vectorizer.token_features(s)) for s in sentences]
    assert chunk_scores([s.tags for s in sentences], predicted).f1 == 1.0


# ----------------------------------------------------------------------------- labels
def test_tag_encoder_maps_tags_to_sorted_integer_labels_and_back():
    encoder = TagEncoder().fit([["B-NP", "I-NP"], ["O", "B-VP"]])
    assert list(encoder.classes_) == ["B-NP", "B-VP", "I-NP", "O"]
    labels = encoder.transform([["O", "B-NP"], ["I-NP"]])
    assert [y.tolist() for y in labels] == [[3, 0], [2]] and labels[0].dtype == np.int64
    assert encoder.inverse_transform(labels) == [["O", "B-NP"], ["I-NP"]]
    with pytest.raises(ValueError, match="sentence 1 has the tag 'B-PP', not seen in fit"):
        encoder.transform([["O"], ["B-PP"]])
    with pytest.raises(ValueError, match=r"label_sequences\[0\] has labels outside \[0, 4\)"):
        encoder.inverse_transform([[4]])
    with pytest.raises(NotFittedError):
        TagEncoder().transform([["O"]])


# ----------------------------------------------------------------------------- chunks
@pytest.mark.parametrize(
    ("tags", "chunks"),
    [
        # I- with no chunk open starts one (IOB1), at the start or after O.
        (["I-NP", "I-NP", "O"], [("NP", 0, 2)]),
        (["B-NP", "O", "I-NP"], [("NP", 0, 1), ("NP", 2, 3)]),
        # A change of type ends the chunk, even between two I- tags.
        (["B-NP", "I-NP", "I-VP", "I-VP"], [("NP", 0, 2), ("VP", 2, 4)]),
        (["B-VP", "I-NP"], [("VP", 0, 1), ("NP", 1, 2)]),
        # B- always starts a new chunk: adjacent B-NP B-NP are two chunks.
        (["B-NP", "B-NP", "I-NP"], [("NP", 0, 1), ("NP", 1, 3)]),
        # A chunk open at the end of the sentence ends there.
        (["O", "B-NP", "I-NP"], [("NP", 1, 3)]),
        (["B-PP"], [("PP", 0, 1)]),
        # No chunks at all.
        (["O", "O"], []),
        ([], []),
    ],
)
def test_chunks_are_read_from_bio_tags_by_conllevals_rules(tags, chunks):
    assert extract_chunks(tags) == chunks


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["NP", "VP", "O"]), st.integers(1, 3)), max_size=8))
def test_chunks_written_as_iob2_are_read_back(pieces):
    tags, expected, position = [], [], 0
    for chunk_type, length in pieces:
        if chunk_type == "O":
            tags += ["O"] * length
        else:
            tags += [f"B-{chunk_type}"] + [f"I-{chunk_type}"] * (length - 1)
            expected.append((chunk_type, position, position + length))
        position += length
    assert extract_chunks(tags) == expected


def test_scores_count_chunks_by_hand():
    true_tags = [
        ["B-NP", "I-NP", "B-VP", "O", "B-NP"],  # NP 0-1, VP 2, NP 4
        ["O", "O"],  # none
        ["I-NP", "I-VP"],  # NP 0, VP 1
    ]
    predicted = [
        ["B-NP", "B-NP", "B-VP", "O", "B-NP"],  # NP 0, NP 1, VP 2, NP 4: VP, NP 4 correct
        ["B-PP", "O"],  # PP 0: wrong
        ["B-NP", "B-VP"],  # NP 0, VP 1: both correct, though no tag is
    ]
    scores = chunk_scores(true_tags, predicted)
    assert (scores.n_true, scores.n_predicted, scores.n_correct) == (5, 7, 4)
    assert scores.precision == pytest.approx(4 / 7)
    assert scores.recall == pytest.approx(4 / 5)
    assert scores.f1 == pytest.approx(2 * (4 / 7) * (4 / 5) / (4 / 7 + 4 / 5))
    assert scores.f1 == pytest.approx(2 / 3)
    # Tags right: 4 of 5, then 1 of 2, then 0 of 2.
    assert (scores.n_tokens, scores.n_correct_tags) == (9, 5)
    assert scores.accuracy == pytest.approx(5 / 9)
    assert list(scores.per_type) == ["NP", "PP", "VP"]
    np_scores, pp_scores, vp_scores = scores.per_type.values()
    assert (np_scores.n_true, np_scores.n_predicted, np_scores.n_correct) == (3, 4, 2)
    assert (np_scores.precision, np_scores.recall) == pytest.approx((1 / 2, 2 / 3))
    assert (pp_scores.n_true, pp_scores.n_predicted, pp_scores.n_correct) == (0, 1, 0)
    assert (pp_scores.precision, pp_scores.recall, pp_scores.f1) == (0.0, 0.0, 0.0)
    assert (vp_scores.precision, vp_scores.recall, vp_scores.f1) == (1.0, 1.0, 1.0)
    report = scores.report()
    assert "processed 9 tokens with 5 phrases; found: 7 phrases; correct: 4." in report
    assert "precision:  57.14%; recall:  80.00%; FB1:  66.67" in report


def test_all_correct_scores_one():
    tags = [["B-NP", "I-NP", "O", "I-VP"], ["B-PP"]]
    scores = chunk_scores(tags, tags)
    assert (scores.n_true, scores.n_correct) == (3, 3)
    assert (scores.precision, scores.recall, scores.f1, scores.accuracy) == (1, 1, 1, 1)


def test_all_wrong_scores_zero_without_dividing_by_zero():
    true_tags = [["B-NP", "I-NP"], ["B-VP"]]
    nothing_found = chunk_scores(true_tags, [["O", "O"], ["O"]])
    assert (nothing_found.n_true, nothing_found.n_predicted, nothing_found.n_correct) == (2, 0, 0)
    assert (nothing_found.precision, nothing_found.recall, nothing_found.f1) == (0, 0, 0)
    wrong_types = chunk_scores(true_tags, [["B-VP", "I-VP"], ["B-NP"]])
    assert (wrong_types.n_predicted, wrong_types.f1, wrong_types.accuracy) == (2, 0, 0)
    no_chunks = chunk_scores([["O"]], [["O"]])
    assert (no_chunks.precision, no_chunks.recall, no_chunks.f1) == (0, 0, 0)
    assert no_chunks.accuracy == 1 and no_chunks.per_type == {}


def test_scores_reject_mismatched_or_unknown_tags():
    with pytest.raises(ValueError, match="1 sentences but predicted_tags has 2"):
        chunk_scores([["O"]], [["O"], ["O"]])
    with pytest.raises(ValueError, match="sentence 1 has 2 reference tags but 1 predicted"):
        chunk_scores([["O"], ["O", "O"]], [["O"], ["O"]])
    for bad in ["NP", "X-NP", "B-", "E-NP", "S-NP"]:
        with pytest.raises(ValueError, match=f"tag '{bad}' .*sentence 0, position 1"):
            chunk_scores([["O", "O"]], [["O", bad]])
    with pytest.raises(ValueError, match="lists of tag sequences"):
        chunk_scores(["B-NP"], "B-NP")


@pytest.mark.parametrize(
    "module", [module.name for module in pkgutil.iter_modules(tasks.chunking.__path__)]
)
def test_docstring_examples_run(module):
    submodule = importlib.import_module(f"tasks.chunking.{module}")
    result = doctest.testmod(submodule, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
