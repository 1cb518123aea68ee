"""plot_convergence writes a PNG for fitted models, with or without a dual."""

from types import SimpleNamespace

import pytest

from structsvm import StructuredPerceptron, StructuredSVM
from structsvm.plotting import plot_convergence

pytest.importorskip("matplotlib")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def problem(one_hot_multiclass):
    return one_hot_multiclass(n=40, noise=0.8)


def is_png(path):
    return path.read_bytes().startswith(PNG_SIGNATURE)


def test_several_fitted_models_go_into_one_png(problem, tmp_path):
    task, X, y = problem
    models = {
        solver: StructuredSVM(task, solver=solver, random_state=0).fit(X, y)
        for solver in ("n-slack", "1-slack", "bcfw")
    }
    path = plot_convergence(models, tmp_path / "plots" / "convergence.png")
    assert path == tmp_path / "plots" / "convergence.png"
    assert is_png(path)


def test_a_single_model_can_be_plotted_without_a_mapping(problem, tmp_path):
    task, X, y = problem
    model = StructuredSVM(task).fit(X, y)
    assert is_png(plot_convergence(model, tmp_path / "one.png"))


def test_a_history_is_drawn_as_the_model_it_comes_from(problem, tmp_path):
    task, X, y = problem
    models = {
        solver: StructuredSVM(task, solver=solver, random_state=0).fit(X, y)
        for solver in ("n-slack", "1-slack")
    }
    from_models = plot_convergence(models, tmp_path / "models.png")
    histories = {label: model.history_ for label, model in models.items()}
    from_histories = plot_convergence(histories, tmp_path / "histories.png")
    assert from_histories.read_bytes() == from_models.read_bytes()


def test_models_without_a_dual_or_without_an_objective_are_drawn_or_skipped(problem, tmp_path):
    task, X, y = problem
    primal_only = SimpleNamespace(
        history_=[{"iteration": k, "time": 0.1 * k + 0.1, "primal": 10 / (k + 1)} for k in range(5)]
    )
    models = {
        "primal only": primal_only,
        "perceptron": StructuredPerceptron(task, max_epochs=3).fit(X, y),
        "unfitted": StructuredSVM(task),
    }
    assert is_png(plot_convergence(models, tmp_path / "no_dual.png"))


def test_drawing_leaves_pyplots_backend_and_figures_alone(problem, tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    task, X, y = problem
    model = StructuredSVM(task).fit(X, y)
    backend = plt.get_backend()
    plt.switch_backend("svg")
    try:
        open_figures = plt.get_fignums()
        assert is_png(plot_convergence(model, tmp_path / "own_figure.png"))
        assert plt.get_backend() == "svg"
        assert plt.get_fignums() == open_figures
    finally:
        plt.switch_backend(backend)
