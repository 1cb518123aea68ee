"""The CoNLL-2002 named-entity experiment, on small data made here; entity scoring by hand."""

from pathlib import Path

import numpy as np
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
    row = ner.run_learner(learner, sentences, sentences, ner.configured(ner.Line(learner), args))
    assert row["entity F1"] == "100.00" and row["token error"] == "0.00"
    assert isinstance(row["converged"], bool)


def test_training_tags_open_every_entity_with_b_as_conlleval_reads_them():
    tags = ["I-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-ORG", "I-ORG"]
    assert ner.entity_tags(tags) == ["B-PER", "I-PER", "O", "B-LOC", "B-LOC", "B-ORG", "I-ORG"]
    assert ner.entity_tags(["O", "B-MISC", "I-MISC"]) == ["O", "B-MISC", "I-MISC"]


def test_without_data_the_experiment_says_where_to_point_it(monkeypatch):
    monkeypatch.delenv("STRUCTSVM_DATA", raising=False)
    with pytest.raises(SystemExit, match="--data-dir"):
        ner.main([])


def test_the_held_out_slice_is_the_last_whole_documents(tmp_path):
    documents = [SENTENCES[:2], SENTENCES[2:], SENTENCES[:1]]
    path = tmp_path / "ned.train"
    path.write_text(
        "".join("-DOCSTART- -DOCSTART- O\n\n" + "\n\n".join(d) + "\n\n" for d in documents)
    )
    loaded = ner.load_documents(path, "utf-8")
    assert [len(d) for d in loaded] == [2, 1, 1]
    assert [len(d) for d in ner.load_documents(path, "utf-8", first=3)] == [2, 1]
    fit, held_out = ner.held_out_split(loaded, 0.25)
    assert fit == loaded[0] + loaded[1] and held_out == loaded[2]
    fit, held_out = ner.held_out_split(loaded, 0.4)
    assert fit == loaded[0] and held_out == loaded[1] + loaded[2]
    # One document (no -DOCSTART- lines): cut at the share of its sentences.
    fit, held_out = ner.held_out_split([loaded[0] + loaded[1]], 0.3)
    assert fit == loaded[0] and held_out == loaded[1]


def fake_rows(held_out):
    """A stand-in for the trainings: ``held_out[learner, loss, C]`` gives (F1, converged)."""

    def row(learner, args):
        loss = args.segment_loss if learner == "semi-markov" else None
        f1, converged = held_out[learner, loss, args.C]
        return {
            "learner": learner, "entity F1": f"{f1}", "converged": converged,
            "relative gap": "-",
            "detail": f"C={args.C:g}, c1={args.crf_c1:g}, c2={args.crf_c2:g}, {loss}, "
            f"path {args.C_path}",
            **dict.fromkeys(("train time", "train CPU", "peak RSS"), "-"),
        }

    return row


def test_each_learner_is_trained_with_its_best_converged_setting_on_held_out_data(
    data_dir, monkeypatch
):
    # (held-out F1, converged) of every training along the grid of C = 0.1, 1, 10.
    held_out = {
        ("chain", None, 0.1): (60.0, True), ("chain", None, 1.0): (70.0, True),
        ("chain", None, 10.0): (65.0, False),
        ("semi-markov", "segments", 0.1): (71.0, True),
        ("semi-markov", "segments", 1.0): (90.0, False),
        ("semi-markov", "hamming", 0.1): (71.0, True),
        ("semi-markov", "hamming", 1.0): (72.0, True),
        ("semi-markov", "hamming", 10.0): (73.0, False),
        ("crfsuite", None, 0.1): (70.0, True), ("crfsuite", None, 1.0): (70.0, True),
        ("crfsuite", None, 10.0): (70.0, True),
    }
    row = fake_rows(held_out)
    walked, final = [], []

    def run_in_fresh_processes(function, batch, jobs):
        if function is ner.walk_line:
            walks = []
            for line, fit, scored, args in batch:
                walked.append((line, len(fit), len(scored)))
                rows = []
                for C in sorted(args.C_grid):
                    rows.append(row(line.learner, ner.configured(line, args, C)))
                    if not rows[-1]["converged"]:
                        break
                walks.append(rows)
            return walks
        assert function is ner.run_learner
        final.extend((learner, len(train), len(scored)) for learner, train, scored, _ in batch)
        return [row(learner, args) for learner, _, _, args in batch]

    monkeypatch.setattr(ner, "run_in_fresh_processes", run_in_fresh_processes)
    tables = ner.main([
        "--data-dir", str(data_dir), "--encoding", "latin-1", "--settings", "entities",
        "--languages", "esp", "--C-grid", "10", "0.1", "1",
    ])
    # Every line walks the grid (selected on the last of the 3 training sentences, trained on
    # the other 2); the chosen settings are trained on all 3 and scored on testa.
    assert walked == [
        (ner.Line("chain"), 2, 1), (ner.Line("semi-markov", "segments"), 2, 1),
        (ner.Line("semi-markov", "hamming"), 2, 1), (ner.Line("crfsuite"), 2, 1),
    ]
    assert final == [("chain", 3, 3), ("semi-markov", 3, 3), ("crfsuite", 3, 3)]
    # The best converged held-out F1 wins (not the unconverged 90 nor 73); ties go to the
    # smallest C, then to the semi-Markov model's first loss. CRFsuite draws from the same grid
    # with c1 = c2 = 1/(2C); a structural SVM is trained along the grid up to its C.
    assert [row["detail"] for row in tables["esp"]] == [
        "C=1, c1=0.1, c2=0.1, None, path [0.1, 1.0]",
        "C=1, c1=0.1, c2=0.1, hamming, path [0.1, 1.0]",
        "C=0.1, c1=5, c2=5, None, path [0.1]",
    ]


def test_a_structural_svm_walks_the_grid_until_a_training_does_not_converge(data_dir):
    args = ner.parse_args(["--encoding", "latin-1", "--C-grid", "0.1", "1", "10", "100"])
    sentences = ner.load(data_dir / "esp.train", "latin-1")
    rows = ner.walk_line(ner.Line("chain"), sentences, sentences, args)
    # On three separable sentences 100 passes certify C = 1 but not C = 10, the end of the walk.
    assert [row["detail"].split(", ")[1] for row in rows] == ["C=0.1", "C=1", "C=10"]
    assert [row["converged"] for row in rows] == [True, True, False]
    at_1 = ner.configured(ner.Line("chain"), args, 1.0)
    final = ner.run_learner("chain", sentences, sentences, at_1)
    assert final["detail"].split("; path ")[1].startswith("C=0.1: ") and final["converged"]
    assert final["entity F1"] == rows[1]["entity F1"] == "100.00"


def test_a_learner_without_a_converged_training_is_not_scored(data_dir, monkeypatch):
    held_out = {
        ("chain", None, 0.1): (50.0, False), ("crfsuite", None, 0.1): (50.0, True),
        ("crfsuite", None, 1.0): (50.0, True),
    }
    row = fake_rows(held_out)

    def run_in_fresh_processes(function, batch, jobs):
        if function is ner.walk_line:
            return [
                [row(line.learner, ner.configured(line, args, 0.1))] for line, *_, args in batch
            ]
        return [row(learner, args) for learner, _, _, args in batch]

    monkeypatch.setattr(ner, "run_in_fresh_processes", run_in_fresh_processes)
    tables = ner.main([
        "--data-dir", str(data_dir), "--encoding", "latin-1", "--settings", "entities",
        "--languages", "esp", "--learners", "chain", "crfsuite", "--C-grid", "0.1", "1",
    ])
    assert [row["learner"] for row in tables["esp"]] == ["crfsuite"]


def test_crfsuite_weighs_the_norm_against_the_losses_as_the_svm_does():
    # ½‖w‖² + C Σξ = C (Σξ + c2 ‖w‖²) for every w and every sum of losses.
    rng = np.random.default_rng(0)
    for C in (0.01, 0.3, 1.0, 1000.0):
        squared_norm, losses = rng.random(2) * 10
        c2 = ner.crfsuite_penalty(C)
        assert 0.5 * squared_norm + C * losses == pytest.approx(C * (losses + c2 * squared_norm))
