"""The structured perceptron: updates, averaging, convergence and Collins' (R/δ)² bound."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning

from structsvm import StructuredPerceptron, margin, mistake_bound, radius
from structsvm.datasets import make_separable
from structsvm.solvers._perceptron import perceptron
from tasks import MulticlassTask
from tests.references import perceptron_iterates


@pytest.mark.parametrize("min_margin", [0.3, 0.6, 1.0])
def test_updates_never_exceed_the_mistake_bound_on_multiclass_data(min_margin):
    task = MulticlassTask(n_classes=4, n_features=5)
    X, Y, u = make_separable(
        task, lambda rng: rng.normal(size=5), n_examples=150, min_margin=min_margin, random_state=3
    )
    X, Y = np.array(X), np.array(Y)
    delta = margin(task, X, Y, u)
    assert delta >= min_margin - 1e-12
    R = radius(task, X)
    np.testing.assert_allclose(R, np.sqrt(2) * np.linalg.norm(X, axis=1).max())

    model = StructuredPerceptron(task, max_epochs=1000, random_state=0).fit(X, Y)

    assert model.converged_
    assert 1 <= model.n_updates_ <= mistake_bound(R, delta)
    assert model.score(X, Y) == 1.0


def test_an_update_adds_the_true_features_and_removes_the_predicted_ones():
    task = MulticlassTask(n_classes=2, n_features=2)
    X, Y = np.array([[1.0, 2.0]]), np.array([1])
    model = StructuredPerceptron(task, max_epochs=1, shuffle=False).fit(X, Y)
    # With w = 0 the tie goes to class 0, a mistake: w = φ(x, 1) − φ(x, 0).
    np.testing.assert_array_equal(model.w_, [-1, -2, 1, 2])
    assert model.n_updates_ == 1
    assert model.history_[0]["mistakes"] == 1


def test_averaged_weights_are_the_mean_of_all_intermediate_weight_vectors():
    rng = np.random.default_rng(0)
    task = MulticlassTask(n_classes=3, n_features=4)
    X, Y = rng.normal(size=(30, 4)), rng.integers(0, 3, 30)
    epochs = 3

    snapshots = perceptron_iterates(task, X, Y, epochs)

    plain = StructuredPerceptron(task, max_epochs=epochs, shuffle=False).fit(X, Y)
    averaged = StructuredPerceptron(task, max_epochs=epochs, shuffle=False, averaged=True)
    averaged.fit(X, Y)
    np.testing.assert_allclose(plain.w_, snapshots[-1])
    np.testing.assert_allclose(averaged.w_, np.mean(snapshots, axis=0))
    assert averaged.n_updates_ == plain.n_updates_ > 0


def test_history_counts_mistakes_per_epoch_and_stops_after_a_clean_epoch():
    task = MulticlassTask(n_classes=2, n_features=1)
    X, Y = np.array([[1.0], [-1.0]]), np.array([1, 0])
    model = StructuredPerceptron(task, max_epochs=50, shuffle=False).fit(X, Y)
    assert model.converged_
    assert model.history_[-1]["mistakes"] == 0
    assert sum(h["mistakes"] for h in model.history_) == model.n_updates_
    assert model.n_iter_ == len(model.history_) < 50


def test_learns_digits_well():
    digits = load_digits()
    X, y = digits.data / 16, digits.target
    task = MulticlassTask(n_classes=10, n_features=64)
    model = StructuredPerceptron(task, max_epochs=10, averaged=True, random_state=0)
    model.fit(X[:1200], y[:1200])
    assert model.score(X[1200:], y[1200:]) > 0.9


def test_keyboard_interrupt_keeps_the_weights_learned_so_far():
    class InterruptedTask(MulticlassTask):
        calls = 0

        def argmax(self, x, w):
            InterruptedTask.calls += 1
            # The second epoch: the model of the first, completed, epoch is kept.
            if InterruptedTask.calls == 13:
                raise KeyboardInterrupt
            return super().argmax(x, w)

    task = InterruptedTask(n_classes=2, n_features=1)
    X, Y = np.array([[1.0], [-1.0]] * 4), np.array([1, 0] * 4)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        model = StructuredPerceptron(task, shuffle=False).fit(X, Y)
    assert model.interrupted_
    assert np.any(model.w_ != 0)
    model.predict(X)


def test_unfitted_model_refuses_to_predict():
    from sklearn.exceptions import NotFittedError

    model = StructuredPerceptron(MulticlassTask(2, 1))
    with pytest.raises(NotFittedError, match="not fitted"):
        model.predict(np.zeros((1, 1)))


@pytest.mark.parametrize("max_epochs", [0, -1, 2.5, "3"])
def test_bad_max_epochs_is_rejected(max_epochs):
    model = StructuredPerceptron(MulticlassTask(2, 1), max_epochs=max_epochs)
    with pytest.raises(ValueError, match="max_epochs"):
        model.fit(np.zeros((2, 1)), [0, 1])


def test_task_must_be_a_task():
    with pytest.raises(TypeError, match=r"task must be a structsvm\.Task"):
        StructuredPerceptron(task="multiclass").fit(np.zeros((2, 1)), [0, 1])


def test_no_warning_on_a_normal_fit():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        StructuredPerceptron(MulticlassTask(2, 1)).fit(np.array([[1.0], [-1.0]]), [1, 0])


def test_a_fit_that_runs_out_of_epochs_warns():
    X = np.array([[1.0], [1.0]])
    Y = np.array([0, 1])  # the same input with two labels: never separated
    expected = r"StructuredPerceptron stopped after max_epochs=3 epochs with \d mistakes in the"
    with pytest.warns(ConvergenceWarning, match=expected):
        model = StructuredPerceptron(MulticlassTask(2, 1), max_epochs=3).fit(X, Y)
    assert not model.converged_ and model.n_iter_ == 3


def test_a_checkpoint_resumes_the_perceptron(tmp_path):
    X, Y = np.array([[1.0], [-1.0]] * 4), np.array([1, 0] * 4)
    path = tmp_path / "perceptron.ckpt"
    model = StructuredPerceptron(MulticlassTask(2, 1), random_state=0, checkpoint=path)
    model.fit(X, Y)
    loaded = StructuredPerceptron.load_checkpoint(path)
    assert loaded.warm_start and loaded.converged_
    np.testing.assert_array_equal(loaded.w_, model.w_)
    assert loaded.fit(X, Y).n_iter_ == model.n_iter_  # converged: nothing more to do


def test_the_learner_runs_compiled_epochs_with_the_python_loops_weights(caplog):
    task = MulticlassTask(n_classes=10, n_features=64)
    digits = load_digits()
    X, Y = task.check_data(digits.data[:300] / 16, digits.target[:300])
    model = StructuredPerceptron(task, max_epochs=3, averaged=True, random_state=0).fit(X, Y)
    *_, python = perceptron(
        task, X, Y, max_iter=3, averaged=True, random_state=0, compiled=False
    )
    np.testing.assert_array_equal(model.w_, python.w)
    assert model.n_updates_ == python.history[-1]["n_updates"]
