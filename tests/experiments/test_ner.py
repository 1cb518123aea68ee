"""The CoNLL-2002 named-entity experiment, on small data made here; entity scoring by hand."""

from pathlib import Path

import pytest

from experiments import ner
from tasks import chunk_scores

SENTENCES = [
    "Ana NP B-PER\nPérez NP I-PER\nvive VMI O\nen SP O\nMadrid NP B-LOC\n. Fp O",
    "El DA O\nBanco NC B-ORG\nde SP I-ORG\nEspaña NP I-ORG\nsube VMI O",
    "Luis NP B-PER\nviaja VMI O\na SP O\nLima NP B-LOC",
]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "conll2002"
    directory.mkdir()
    text = "-DOCSTART- -DOCSTART- O\n" + "\n\n".join(SENTENCES) + "\n"
    for name in ("esp.train", "esp.testa"):
        (directory / name).write_text(text, encoding="latin-1")
    return directory


def test_entities_are_scored_as_conlleval_scores_them():
    truth = [["B-PER", "I-PER", "O", "B-LOC"], ["B-ORG", "I-ORG", "I-ORG", "O"]]
    # PER right; LOC missed; ORG cut short (wrong); an I- after O opens a MISC entity (wrong).
    guess = [["B-PER", "I-PER", "O", "O"], ["B-ORG", "I-ORG", "O", "I-MISC"]]
    scores = chunk_scores(truth, guess)
    assert (scores.n_true, scores.n_predicted, scores.n_correct) == (3, 3, 1)
    assert scores.precision == pytest.approx(1 / 3) and scores.recall == pytest.approx(1 / 3)
    assert ner.token_error([([""] * 4, [""] * 4, t) for t in truth], guess) == 37.5


def test_token_features_see_the_word_its_shape_and_its_neighbours():
    first, second = ner.token_features(["Madrid", "llueve"], ["NP", "VMI"])
    assert first["shape"] == "Xx" and first["BOS"] and first["+1:lower"] == "llueve"
    assert second["-1|0:lower"] == "madrid|llueve" and second["EOS"]
    assert second["suffixes"] == ["e", "ve", "eve"] and not second["title"]


@pytest.mark.parametrize("learner", ["chain", "semi-markov", "crfsuite", "perceptron"])
def test_every_learner_tags_its_own_training_sentences(learner, data_dir):
    pytest.importorskip("pycrfsuite")
    args = ner.parse_args(["--encoding", "latin-1", "--C", "10", "--max-iter", "50"])
    sentences = ner.load(data_dir / "esp.train", "latin-1")
    row = ner.run_learner(learner, sentences, sentences, args)
    assert row["entity F1"] == "100.00" and row["token error"] == "0.00"


def test_without_data_the_experiment_says_where_to_point_it(monkeypatch):
    monkeypatch.delenv("STRUCTSVM_DATA", raising=False)
    with pytest.raises(SystemExit, match="--data-dir"):
        ner.main([])
