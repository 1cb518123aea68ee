"""The CoNLL-2000 experiment, on small data made here."""

import functools
from pathlib import Path

import numpy as np
import pytest

from experiments import conll2000

SENTENCES = [
    "He PRP B-NP\nreckons VBZ B-VP\nthe DT B-NP\ndeficit NN I-NP\nwill MD B-VP\n"
    "narrow VB I-VP\n. . O",
    "Prices NNS B-NP\nrose VBD B-VP\nsharply RB B-ADVP\n. . O",
    "The DT B-NP\nchancellor NN I-NP\nsaid VBD B-VP\nnothing NN B-NP\n. . O",
    "Stocks NNS B-NP\nfell VBD B-VP\nin IN B-PP\nTokyo NNP B-NP\n. . O",
]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "conll2000"
    directory.mkdir()
    (directory / "train.txt").write_text("\n\n".join(SENTENCES * 3) + "\n")
    (directory / "dev.txt").write_text("\n\n".join(SENTENCES) + "\n")
    return directory


def test_the_data_directory_comes_from_the_argument_or_the_environment(
    data_dir, tmp_path, monkeypatch
):
    monkeypatch.delenv("STRUCTSVM_DATA", raising=False)
    assert conll2000.find_data_dir(None) is None
    assert conll2000.find_data_dir(str(data_dir)) == data_dir
    assert conll2000.find_data_dir(str(tmp_path)) == data_dir  # the parent of conll2000/
    monkeypatch.setenv("STRUCTSVM_DATA", str(tmp_path))
    assert conll2000.find_data_dir(None) == data_dir
    with pytest.raises(FileNotFoundError, match=r"no CoNLL-2000 train\.txt"):
        conll2000.find_data_dir(str(tmp_path / "missing"))


def test_without_data_the_experiment_says_where_to_point_it(monkeypatch):
    monkeypatch.delenv("STRUCTSVM_DATA", raising=False)
    with pytest.raises(SystemExit, match="--data-dir"):
        conll2000.main([])


@pytest.mark.parametrize(
    "trainer",
    [
        conll2000.train_structsvm,
        functools.partial(conll2000.train_structsvm, order=2, constrained=True),
        conll2000.train_crfsuite,
    ],
)
def test_every_learner_chunks_its_own_training_sentences(trainer, data_dir):
    pytest.importorskip("pycrfsuite")
    args = conll2000.parse_args(["--max-iter", "20", "--tol", "1e-3"])
    row = trainer(data_dir, args)
    # The evaluation sentences are the training sentences: both models fit them perfectly.
    assert float(row["chunk F1"]) == 100.0
    assert float(row["token accuracy"]) == 100.0
    assert row["train time"].endswith(" s") and row["peak RSS"].endswith(" MB")


def test_the_structural_svm_is_trained_for_every_order_and_constraint_setting_asked(
    data_dir, monkeypatch
):
    calls = []
    monkeypatch.setattr(
        conll2000, "run_in_fresh_process", lambda function, *args: calls.append(args[2:])
    )
    args = conll2000.parse_args(["--learners", "structsvm", "--orders", "1", "2", "--bio", "both"])
    conll2000.compare(data_dir, args)
    assert calls == [(1, False), (1, True), (2, False), (2, True)]


def test_bio_violations_are_counted_per_sentence():
    tags = ["B-NP", "I-NP", "O"]
    labels = [[0, 1, 2], [2, 1], [1], [0, 2, 1, 1]]
    assert conll2000.count_bio_violations(tags, [np.array(y) for y in labels]) == 3

