"""warm_start continues a fit, and checkpoint files let a stopped fit resume exactly."""

import os
import warnings

import numpy as np
import pytest

import structsvm
import structsvm._utils.checkpoint
import structsvm.io._atomic
from structsvm import StructuredPerceptron, StructuredSVM
from structsvm.solvers import SOLVERS as SOLVER_FUNCTIONS
from tasks import ChainTask, MulticlassTask
from tests.interruptions import InterruptingTask, interrupting

SOLVERS = ["n-slack", "1-slack", "bcfw"]
SETTINGS = {
    "n-slack": {"tol": 1e-6},
    "1-slack": {"tol": 1e-6},
    "bcfw": {"tol": 1e-3, "random_state": 0},
}


def primals(model):
    return np.array([record["primal"] for record in model.history_])


def quietly(fit, *args):
    """Run a fit, ignoring the warnings of a fit stopped early."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit(*args)


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_fit_continued_follows_the_same_iterates_as_one_fit(solver, multiclass_problem):
    task, X, Y = multiclass_problem()
    full = StructuredSVM(task, solver=solver, max_iter=40, **SETTINGS[solver]).fit(X, Y)

    model = StructuredSVM(task, solver=solver, max_iter=4, **SETTINGS[solver])
    quietly(model.fit, X, Y)
    assert model.n_iter_ == 4
    model.set_params(warm_start=True, max_iter=36).fit(X, Y)

    assert model.n_iter_ == full.n_iter_
    assert [r["iteration"] for r in model.history_] == list(range(model.n_iter_ + 1))
    np.testing.assert_allclose(primals(model), primals(full), rtol=1e-12)
    np.testing.assert_allclose(model.w_, full.w_, rtol=1e-12, atol=1e-14)
    assert model.history_[-1]["oracle_calls"] == full.history_[-1]["oracle_calls"]
    assert model.converged_ == full.converged_


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_keyboard_interrupt_then_a_warm_start_gives_the_uninterrupted_result(
    solver, multiclass_problem
):
    task, X, Y = multiclass_problem()
    full = StructuredSVM(
        interrupting(task, at=None), solver=solver, max_iter=40, **SETTINGS[solver]
    ).fit(X, Y)

    # The 4th oracle pass is the evaluation of iteration 3: its QP (or pass of steps) has
    # already changed the solver's state, which the warm start must not see.
    model = StructuredSVM(interrupting(task, at=4), solver=solver, max_iter=40, **SETTINGS[solver])
    with pytest.warns(RuntimeWarning, match="interrupted"):
        model.fit(X, Y)
    assert model.interrupted_ and model.n_iter_ == 2
    model.set_params(warm_start=True, max_iter=38).fit(X, Y)

    assert not model.interrupted_
    assert model.n_iter_ == full.n_iter_
    np.testing.assert_allclose(model.primal_objective_, full.primal_objective_, rtol=1e-9)
    np.testing.assert_allclose(primals(model), primals(full), rtol=1e-9)


def test_a_warm_start_of_a_converged_fit_runs_no_iteration_unless_tol_is_tighter(
    multiclass_problem,
):
    task, X, Y = multiclass_problem()
    model = StructuredSVM(task, tol=1e-2, warm_start=True).fit(X, Y)
    n_iter, w = model.n_iter_, model.w_.copy()
    model.fit(X, Y)
    assert model.converged_ and model.n_iter_ == n_iter
    np.testing.assert_array_equal(model.w_, w)

    model.set_params(tol=1e-7).fit(X, Y)
    assert model.converged_ and model.n_iter_ > n_iter
    assert model.history_[-1]["relative_gap"] <= 1e-7
    cold = StructuredSVM(task, tol=1e-7).fit(X, Y)
    np.testing.assert_allclose(model.primal_objective_, cold.primal_objective_, rtol=1e-6)


def test_warm_start_on_an_unfitted_estimator_is_a_fresh_fit(multiclass_problem):
    task, X, Y = multiclass_problem()
    warm = StructuredSVM(task, warm_start=True, random_state=0).fit(X, Y)
    cold = StructuredSVM(task, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(warm.w_, cold.w_)


def test_without_warm_start_a_second_fit_starts_over(multiclass_problem):
    task, X, Y = multiclass_problem()
    model = StructuredSVM(task, random_state=0).fit(X, Y)
    n_iter = model.n_iter_
    model.fit(X, Y)
    assert model.n_iter_ == n_iter
    assert model.history_[0]["iteration"] == 0 and len(model.history_) == n_iter + 1


class ScaledFeatures(MulticlassTask):
    scale = 2.0

    def batch_joint_feature(self, X, Y):
        return self.scale * super().batch_joint_feature(X, Y)

    def _class_scores(self, X, w):
        return self.scale * super()._class_scores(X, w)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda task, X, Y: ({}, task, X[:-1], Y[:-1]), "number of training examples changed"),
        (lambda task, X, Y: ({}, task, X + 1.0, Y), r"training data \(X, Y\) changed"),
        (lambda task, X, Y: ({}, task, X, np.roll(Y, 1)), r"training data \(X, Y\) changed"),
        (lambda task, X, Y: ({}, ScaledFeatures(3, 3), X, Y), "task changed"),
        (lambda task, X, Y: ({}, ChainTask(3, 3), list(X[:, None]), Y[:, None]), "task changed"),
        (
            lambda task, X, Y: ({}, MulticlassTask(3, 4), np.hstack([X, X[:, :1]]), Y),
            "task changed",
        ),
        (lambda task, X, Y: ({"solver": "1-slack"}, task, X, Y), "solver changed"),
        (
            lambda task, X, Y: ({"C": 2.0}, task, X, Y),
            "different C only with solver='bcfw'.*n-slack fit was at C=1.0, now C=2.0",
        ),
    ],
)
def test_a_warm_start_on_a_different_problem_is_refused(change, message, multiclass_problem):
    task, X, Y = multiclass_problem()
    model = StructuredSVM(task, solver="n-slack", warm_start=True, max_iter=3)
    quietly(model.fit, X, Y)
    params, new_task, new_X, new_Y = change(task, X, Y)
    model.set_params(task=new_task, **params)
    with pytest.raises(ValueError, match=message):
        model.fit(new_X, new_Y)
    # The refused fit left the earlier model as it was, and it still continues.
    assert model.n_iter_ == 3
    model.set_params(task=task, solver="n-slack", C=1.0, max_iter=200).fit(X, Y)
    assert model.converged_


def test_a_task_of_the_same_type_with_other_features_is_refused(multiclass_problem):
    _, X, Y = multiclass_problem()
    task = ScaledFeatures(3, 3)
    model = StructuredSVM(task, warm_start=True, max_iter=3)
    quietly(model.fit, X, Y)
    task.scale = 3.0
    with pytest.raises(ValueError, match="task's joint features of the training data changed"):
        model.fit(X, Y)


class CountingFeatures(MulticlassTask):
    calls = 0

    def batch_joint_feature(self, X, Y):
        CountingFeatures.calls += 1
        return super().batch_joint_feature(X, Y)


@pytest.mark.parametrize("solver", SOLVERS)
def test_fingerprinting_the_data_costs_no_second_pass_of_joint_features(
    solver, tmp_path, multiclass_problem
):
    _, X, Y = multiclass_problem()
    CountingFeatures.calls = 0
    for _ in SOLVER_FUNCTIONS[solver](CountingFeatures(3, 3), X, Y, 1.0, max_iter=2):
        pass
    by_the_solver = CountingFeatures.calls
    for settings in [{}, {"warm_start": True}, {"checkpoint": tmp_path / "fit.ckpt"}]:
        CountingFeatures.calls = 0
        model = StructuredSVM(CountingFeatures(3, 3), solver=solver, max_iter=2, **settings)
        quietly(model.fit, X, Y)
        assert CountingFeatures.calls == by_the_solver


def test_a_fit_without_warm_start_or_checkpoint_digests_no_data(monkeypatch, multiclass_problem):
    task, X, Y = multiclass_problem()

    def no_digest(items):
        raise AssertionError("the data were digested")

    monkeypatch.setattr("structsvm._utils.fingerprint.data_digest", no_digest)
    quietly(StructuredSVM(task, max_iter=2).fit, X, Y)
    StructuredPerceptron(task, max_epochs=1).fit(X, Y)


def test_a_checkpointed_fit_records_its_data_for_a_later_warm_start(
    tmp_path, multiclass_problem
):
    task, X, Y = multiclass_problem()
    model = StructuredSVM(task, max_iter=3, checkpoint=tmp_path / "fit.ckpt")
    quietly(model.fit, X, Y)
    with pytest.raises(ValueError, match=r"training data \(X, Y\) changed"):
        model.set_params(warm_start=True).fit(X + 1.0, Y)


def test_bcfw_refuses_to_continue_with_averaging_switched(multiclass_problem):
    task, X, Y = multiclass_problem()
    model = StructuredSVM(task, solver="bcfw", max_iter=3, warm_start=True, random_state=0)
    quietly(model.fit, X, Y)
    with pytest.raises(ValueError, match="averaging changed: True before, False now"):
        model.set_params(averaging=False).fit(X, Y)


def test_a_changed_tol_max_iter_or_inactive_window_is_allowed(multiclass_problem):
    task, X, Y = multiclass_problem()
    model = StructuredSVM(task, solver="1-slack", max_iter=3, warm_start=True)
    quietly(model.fit, X, Y)
    model.set_params(tol=1e-5, max_iter=500, inactive_window=10).fit(X, Y)
    assert model.converged_ and model.history_[-1]["relative_gap"] <= 1e-5


# ------------------------------------------------------------------------ checkpoint files
@pytest.mark.parametrize("solver", SOLVERS)
def test_a_fit_that_died_resumes_from_its_checkpoint_to_the_same_result(
    solver, tmp_path, multiclass_problem
):
    task, X, Y = multiclass_problem()
    full = StructuredSVM(
        interrupting(task, at=None), solver=solver, max_iter=40, **SETTINGS[solver]
    ).fit(X, Y)
    path = tmp_path / "fit.ckpt"

    # A crash that is not a KeyboardInterrupt at the 6th oracle pass (iteration 5) leaves the
    # checkpoint of iteration 4 only.
    dying = StructuredSVM(
        interrupting(task, at=6, error=RuntimeError),
        solver=solver,
        max_iter=40,
        checkpoint=path,
        checkpoint_every=2,
        **SETTINGS[solver],
    )
    with pytest.raises(RuntimeError, match="stopped"):
        dying.fit(X, Y)

    resumed = StructuredSVM.load_checkpoint(path, task_classes=[InterruptingTask])
    assert resumed.warm_start and resumed.n_iter_ == 4
    resumed.task.at = None  # what made the process die is gone
    resumed.set_params(max_iter=36).fit(X, Y)

    assert resumed.n_iter_ == full.n_iter_
    np.testing.assert_allclose(resumed.primal_objective_, full.primal_objective_, rtol=1e-9)
    np.testing.assert_allclose(primals(resumed), primals(full), rtol=1e-9)
    # The resumed fit went on writing the same checkpoint, ending with its final state.
    final = StructuredSVM.load_checkpoint(path, task_classes=[InterruptingTask])
    assert final.n_iter_ == full.n_iter_
    np.testing.assert_array_equal(final.w_, resumed.w_)
    assert [p.name for p in tmp_path.iterdir()] == ["fit.ckpt"]


def test_a_checkpoint_is_written_every_n_iterations_and_at_the_end(
    tmp_path, monkeypatch, multiclass_problem
):
    task, X, Y = multiclass_problem()
    written = []
    original = structsvm._utils.checkpoint.write_checkpoint

    def recording(model, path):
        written.append(model.n_iter_)
        original(model, path)

    monkeypatch.setattr("structsvm.learners._iterative.write_checkpoint", recording)
    model = StructuredSVM(
        task, solver="1-slack", tol=1e-6, checkpoint=tmp_path / "fit.ckpt", checkpoint_every=3
    ).fit(X, Y)
    expected = [*range(3, model.n_iter_ + 1, 3)]
    if model.n_iter_ % 3:
        expected.append(model.n_iter_)
    assert written == expected


def test_an_interrupted_fit_writes_its_last_state_and_resumes_from_it(tmp_path, multiclass_problem):
    task, X, Y = multiclass_problem()
    full = StructuredSVM(task, solver="bcfw", max_iter=40, **SETTINGS["bcfw"]).fit(X, Y)
    path = tmp_path / "fit.ckpt"
    model = StructuredSVM(
        interrupting(task, at=4), solver="bcfw", max_iter=40, checkpoint=path, **SETTINGS["bcfw"]
    )
    with pytest.warns(RuntimeWarning, match="interrupted"):
        model.fit(X, Y)
    resumed = StructuredSVM.load_checkpoint(path, task_classes=[InterruptingTask])
    assert resumed.n_iter_ == 2 and resumed.interrupted_
    resumed.set_params(max_iter=38).fit(X, Y)
    np.testing.assert_allclose(primals(resumed), primals(full), rtol=1e-12)


def test_a_failed_write_never_replaces_a_good_checkpoint(tmp_path, monkeypatch, multiclass_problem):
    task, X, Y = multiclass_problem()
    path = tmp_path / "fit.ckpt"
    model = StructuredSVM(task, max_iter=2)
    quietly(model.fit, X, Y)
    model.save_checkpoint(path)
    good = path.read_bytes()

    def half_a_write(obj, stream, kind):
        stream.write(b"PK\x03\x04partial archive")
        raise OSError("disk full")

    monkeypatch.setattr(structsvm._utils.checkpoint, "write_model_file", half_a_write)
    model.set_params(warm_start=True, max_iter=3, checkpoint=path, checkpoint_every=1)
    with pytest.raises(OSError, match="disk full"):
        model.fit(X, Y)

    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir()] == ["fit.ckpt"]
    monkeypatch.undo()
    assert StructuredSVM.load_checkpoint(path).n_iter_ == 2


def test_a_checkpoint_replaces_the_file_with_os_replace(tmp_path, monkeypatch, multiclass_problem):
    task, X, Y = multiclass_problem()
    path = tmp_path / "fit.ckpt"
    path.write_bytes(b"an older file")
    replaced = []
    original = os.replace

    def recording(source, target):
        replaced.append((os.path.dirname(source), os.fspath(target)))
        original(source, target)

    monkeypatch.setattr(structsvm.io._atomic.os, "replace", recording)
    StructuredSVM(task, max_iter=2, checkpoint=path, checkpoint_every=100).fit(X, Y)
    assert replaced == [(str(tmp_path), str(path))]
    assert structsvm.load(path).n_iter_ == 2


def test_load_checkpoint_refuses_another_estimator(tmp_path, multiclass_problem):
    task, X, Y = multiclass_problem()
    path = tmp_path / "perceptron.ckpt"
    StructuredPerceptron(task, max_epochs=2, checkpoint=path).fit(X, Y)
    with pytest.raises(TypeError, match="holds a StructuredPerceptron, not a StructuredSVM"):
        StructuredSVM.load_checkpoint(path)


def test_load_checkpoint_refuses_a_model_file_saved_without_solver_state(
    tmp_path, multiclass_problem
):
    task, X, Y = multiclass_problem()
    path = tmp_path / "svm.model"
    structsvm.save(quietly(StructuredSVM(task, max_iter=2).fit, X, Y), path)
    with pytest.raises(ValueError, match="not a checkpoint: it holds no solver state"):
        StructuredSVM.load_checkpoint(path)


def test_saving_an_unfitted_estimator_is_refused(tmp_path):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        StructuredSVM(MulticlassTask(3, 3)).save_checkpoint(tmp_path / "fit.ckpt")


@pytest.mark.parametrize("every", [0, -1, 2.5, None])
def test_bad_checkpoint_every_is_rejected(every, tmp_path, multiclass_problem):
    task, X, Y = multiclass_problem()
    with pytest.raises(ValueError, match="checkpoint_every must be an integer >= 1"):
        StructuredSVM(task, checkpoint=tmp_path / "f", checkpoint_every=every).fit(X, Y)


def test_a_checkpoint_on_chains_resumes(tmp_path, chain_problem):
    task, X, Y = chain_problem(n_sequences=12)
    full = StructuredSVM(task, solver="n-slack", tol=1e-6).fit(X, Y)
    model = StructuredSVM(task, solver="n-slack", tol=1e-6, max_iter=3, checkpoint=tmp_path / "c")
    quietly(model.fit, X, Y)
    resumed = StructuredSVM.load_checkpoint(tmp_path / "c").set_params(max_iter=200).fit(X, Y)
    np.testing.assert_allclose(resumed.primal_objective_, full.primal_objective_, rtol=1e-9)


# ------------------------------------------------------------------------ perceptron
@pytest.mark.parametrize("averaged", [False, True])
def test_a_perceptron_continued_gives_the_uninterrupted_result(averaged, chain_problem):
    task, X, Y = chain_problem(n_sequences=20)
    full = StructuredPerceptron(task, max_epochs=6, averaged=averaged, random_state=0).fit(X, Y)
    model = StructuredPerceptron(task, max_epochs=2, averaged=averaged, random_state=0)
    model.fit(X, Y)
    model.set_params(warm_start=True, max_epochs=4).fit(X, Y)
    np.testing.assert_array_equal(model.w_, full.w_)
    assert model.history_ == [
        {**record, "time": mine["time"]} for record, mine in zip(full.history_, model.history_)
    ]
    assert model.n_updates_ == full.n_updates_ and model.n_iter_ == full.n_iter_


def test_an_interrupted_perceptron_redoes_the_interrupted_epoch(chain_problem):
    task, X, Y = chain_problem(n_sequences=20)
    full = StructuredPerceptron(task, max_epochs=5, random_state=0).fit(X, Y)

    class Interrupting(ChainTask):
        calls = 0

        def argmax(self, x, w):
            Interrupting.calls += 1
            if Interrupting.calls == 50:  # in the third epoch
                raise KeyboardInterrupt
            return super().argmax(x, w)

    model = StructuredPerceptron(Interrupting(3, 3), max_epochs=5, random_state=0)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        model.fit(X, Y)
    assert model.n_iter_ == 2
    model.set_params(warm_start=True, max_epochs=3).fit(X, Y)
    np.testing.assert_array_equal(model.w_, full.w_)
    assert model.n_updates_ == full.n_updates_


def test_a_perceptron_refuses_a_warm_start_on_other_data(chain_problem):
    task, X, Y = chain_problem(n_sequences=20)
    model = StructuredPerceptron(task, max_epochs=1, warm_start=True).fit(X, Y)
    with pytest.raises(ValueError, match="number of training examples changed"):
        model.fit(X[:5], Y[:5])


@pytest.mark.parametrize(
    "content",
    [b"", b"this is a text file\n", b"\x80\x04\x95", b"PK\x03\x04 not a pickle"],
    ids=["empty", "text", "truncated pickle", "zip"],
)
def test_load_checkpoint_says_a_foreign_or_truncated_file_is_not_a_checkpoint(tmp_path, content):
    path = tmp_path / "foreign.ckpt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="not a structsvm model file"):
        StructuredSVM.load_checkpoint(path)


def test_load_checkpoint_says_a_truncated_checkpoint_is_not_a_checkpoint(
    tmp_path, multiclass_problem
):
    task, X, Y = multiclass_problem()
    path = tmp_path / "fit.ckpt"
    quietly(StructuredSVM(task, max_iter=2, checkpoint=path).fit, X, Y)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a zip archive, or truncated"):
        StructuredSVM.load_checkpoint(path)
