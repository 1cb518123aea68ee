"""The scene experiment on a tiny budget: every model beats predicting no label at all."""

import numpy as np

from experiments.multilabel import parse_args, run
from structsvm.datasets import SCENE_LABELS, load_scene


def test_scene_data_is_a_multilabel_indicator():
    train, test = load_scene()
    assert train.X.shape == (1211, 294) and test.X.shape == (1196, 294)
    assert train.Y.shape == (1211, 6) and set(np.unique(test.Y)) == {0, 1}
    assert train.label_names == SCENE_LABELS
    assert np.any(train.Y.sum(axis=1) > 1)  # some images carry several labels


def test_tiny_run_beats_predicting_no_label(capsys):
    args = parse_args(
        [
            "--models",
            "tree",
            "full",
            "LinearSVC",
            "--n-train",
            "150",
            "--C-grid",
            "0.1",
            "1",
            "--folds",
            "2",
            "--tol",
            "1e-2",
        ]
    )
    rows = run(args)
    _, test = load_scene()
    no_label_hamming = test.Y.mean()
    no_label_subset = np.mean(test.Y.sum(axis=1) == 0)
    assert [row["model"] for row in rows] == ["tree", "full", "LinearSVC"]
    for row in rows:
        assert row["C"] in (0.1, 1.0)
        assert row["hamming_loss"] < 0.75 * no_label_hamming
        assert row["subset_accuracy"] > no_label_subset + 0.2
        assert 0 < row["train_seconds"] <= row["total_seconds"]
    tree = rows[0]["edges"]
    assert tree.shape == (5, 2) and set(tree.ravel()) == set(range(6))
    output = capsys.readouterr().out
    assert "Chow–Liu tree of the training labels" in output and "LinearSVC" in output
