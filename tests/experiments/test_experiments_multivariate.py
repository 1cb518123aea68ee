"""The multivariate-measures experiment runs on one digit with a one-value grid."""

from experiments.multivariate import MODELS, evaluate, split


def test_each_classifier_is_evaluated_on_the_test_part():
    data = split(8)
    for name, (model, grid) in MODELS.items():
        row = evaluate(model, grid[2:3], data)
        assert row["C"] == grid[2]
        assert 0.5 < row["f1"] <= 1.0, name
        assert row["seconds"] > 0
