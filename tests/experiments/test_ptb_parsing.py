"""The treebank parsing experiment runs end to end on a tiny treebank in the sample's format."""

import pytest

from experiments.ptb_parsing import main

TRAINING = """( (S (NP-SBJ (DT the) (NN dog)) (VP (VBZ barks)) (. .)) )
( (S (NP-SBJ (PRP it)) (VP (VBZ sees) (NP (DT the) (NN cat))) (. .)) )
( (S (NP-SBJ (DT the) (NN cat)) (VP (VBZ sees) (NP (PRP it) )) (. .)) )
"""
HELD_OUT = """( (S (NP-SBJ-1 (DT the) (NN cat)) (VP (VBZ barks) (NP (-NONE- *-1))) (. .)) )
( (S (NP-SBJ (PRP it)) (VP (VBZ sees) (NP (DT the) (NN dog) (NN house))) (. .)) )
"""


def test_the_experiment_compares_the_svm_with_the_pcfg(tmp_path, capsys):
    (tmp_path / "wsj_0001.mrg").write_text(TRAINING)
    (tmp_path / "wsj_0160.mrg").write_text(HELD_OUT)
    rows = main(["--data-dir", str(tmp_path), "--max-lengths", "4", "6", "--tags", "gold"])
    assert [(row["words"], row["model"]) for row in rows] == [
        ("<= 4", "PCFG"),
        ("<= 4", "structural SVM"),
        ("<= 6", "PCFG"),
        ("<= 6", "structural SVM"),
    ]
    assert [(row["train"], row["test"]) for row in rows] == [(1, 1)] * 2 + [(3, 2)] * 2
    assert all(0 <= row["F1"] <= 100 and row["sentences/s"] > 0 for row in rows)
    # "the cat barks .": S, NP and the VP over "barks" are found by either model.
    assert rows[0]["F1"] == rows[1]["F1"] == 100.0
    assert "structural SVM" in capsys.readouterr().out


def test_missing_data_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no wsj_"):
        main(["--data-dir", str(tmp_path)])
