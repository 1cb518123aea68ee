"""Smoke test of the practical-guide experiment on its quick grid."""

import sys

import numpy as np
import pytest
from sklearn.base import clone

from experiments.practical_guide import DATA_SETS, Plan, main, make_pipeline, parse_arguments


@pytest.mark.parametrize("data_set", DATA_SETS, ids=lambda data_set: data_set.name)
def test_estimators_clone_inside_the_pipeline(data_set):
    pipeline = make_pipeline(data_set.estimator(), "scaled")
    copy = clone(pipeline).set_params(svm__C=8.0, svm__gamma=0.5, svm__kernel="rbf")
    params = copy.get_params()
    assert (params["svm__C"], params["svm__gamma"], params["svm__kernel"]) == (8.0, 0.5, "rbf")
    assert pipeline.get_params()["svm__C"] == 1.0


def test_fine_grid_steps_by_a_quarter_around_the_best_cell():
    plan = Plan.from_arguments(parse_arguments(["--coarse-stride", "2", "--fine-radius", "0.5"]))
    np.testing.assert_array_equal(plan.coarse_log2_C, [-5, -1, 3, 7, 11, 15])
    np.testing.assert_array_equal(plan.fine_exponents(3.0), [2.5, 2.75, 3.0, 3.25, 3.5])
    assert "a subsample of the guide's grid, which the default run searches" in plan.describe()
    odd = Plan.from_arguments(parse_arguments(["--fine-radius", "0.3"]))
    np.testing.assert_array_equal(odd.fine_exponents(-7.0), [-7.25, -7.0, -6.75])


def test_the_default_run_searches_the_guides_grids():
    """Coarse: C = 2^−5, 2^−3, …, 2^15 and γ = 2^−15, …, 2^3; fine: ± 2 in quarter steps."""
    plan = Plan.from_arguments(parse_arguments([]))
    np.testing.assert_array_equal(plan.coarse_log2_C, np.arange(-5, 16, 2))
    np.testing.assert_array_equal(plan.coarse_log2_gamma, np.arange(-15, 4, 2))
    np.testing.assert_array_equal(plan.fine_exponents(3.0), np.arange(1.0, 5.1, 0.25))
    assert (plan.folds, plan.max_train) == (5, None)
    assert "(the guide's grid)" in plan.describe()


@pytest.mark.parametrize(
    "argv", [["--coarse-stride", "0"], ["--fine-radius", "-1"], ["--quick", "--fine-radius", "1"]]
)
def test_rejects_contradictory_or_invalid_options(argv, capsys):
    with pytest.raises(SystemExit):
        parse_arguments(argv)
    assert "error" in capsys.readouterr().err


def test_quick_run_prints_every_step_and_draws_the_heat_maps(tmp_path, capsys):
    steps = main(["--quick", "--n-jobs", "1", "--out-dir", str(tmp_path)])
    for name in ("breast_cancer", "wine"):
        png = (tmp_path / f"practical_guide_{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    printed = capsys.readouterr().out
    assert "SVC test" in printed and "a subsample of the guide's grid" in printed
    assert len(steps) == 2 * 2 * 2 * 2  # data sets × features × kernels × grid stages
    rows = [line.split() for line in printed.splitlines()]
    for step in steps:
        cells = [*step.data_set.split(), step.features, step.kernel, step.stage]
        row = next(row for row in rows if row[: len(cells)] == cells)
        accuracies = [float(value) for value in row[-4:]]
        expected = [step.cv, step.test, step.svc_cv, step.svc_test]
        np.testing.assert_allclose(accuracies, expected, atol=5e-4)
        assert all(0.0 <= accuracy <= 1.0 for accuracy in expected)
        assert np.all((step.cv_accuracy >= 0.0) & (step.cv_accuracy <= 1.0))
        assert step.cv == pytest.approx(step.cv_accuracy.max())
    by_key = {(s.data_set, s.features, s.kernel, s.stage): s for s in steps}
    for data_set in DATA_SETS:
        scaled = by_key[(data_set.name, "scaled", "rbf", "fine")]
        assert scaled.cv_accuracy.shape == (3, 3)
        labels = data_set.load(return_X_y=True)[1]
        chance = np.bincount(labels).max() / len(labels)  # always the majority class
        assert scaled.test > max(0.85, chance + 0.2)
    # The binary SVM solves libsvm's problem: the same model, so the same accuracies.
    for step in steps:
        if step.data_set == "breast cancer":
            assert abs(step.cv - step.svc_cv) <= 0.02 and abs(step.test - step.svc_test) <= 0.02


def test_without_matplotlib_it_says_so_before_searching(tmp_path, monkeypatch):
    for module in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=r"matplotlib.*\[plot\]"):
        main(["--quick", "--n-jobs", "1", "--out-dir", str(tmp_path)])
    assert not any(tmp_path.iterdir())
