"""solver="auto": the table picks by what the task offers and the objective; a named solver wins."""

import logging
import types

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from structsvm import MulticlassSVM, StructuredSVM
from structsvm.learners._solver_choice import choose_solver
from tasks import MulticlassTask
from tests.conftest import PairLabelling


class PythonOnly(MulticlassTask):
    """The multiclass task without its compiled oracle."""

    def compiled_oracle(self, X, Y):
        return None


class FewOutputs(MulticlassTask):
    """A compiled oracle that counts its outputs (only its ``n_outputs`` is read here)."""

    def compiled_oracle(self, X, Y):
        return types.SimpleNamespace(n_outputs=self.n_classes)


class LongFeatures(MulticlassTask):
    """A compiled oracle of many outputs and a joint feature of 2**20 entries."""

    def __init__(self, n_classes, n_features):
        super().__init__(n_classes, n_features)
        self.size_joint_feature = 2**20

    def compiled_oracle(self, X, Y):
        return types.SimpleNamespace(n_outputs=None)


class ManyOutputs(MulticlassTask):
    """A compiled oracle of outputs too many to count, as a chain's."""

    def compiled_oracle(self, X, Y):
        return types.SimpleNamespace(n_outputs=None)


@pytest.mark.parametrize(
    ("task", "rescaling", "slack_norm", "solver", "phrase"),
    [
        (FewOutputs(3, 3), "margin", 1, "dual-cd", "has 3 outputs per example"),
        (ManyOutputs(3, 3), "margin", 1, "1-slack", "offers a compiled oracle"),
        (LongFeatures(3, 3), "margin", 1, "bcfw", "has 1048576 entries"),
        (PythonOnly(3, 3), "margin", 1, "1-slack", "offers no compiled oracle"),
        (PairLabelling(3), "margin", 1, "1-slack", "offers no compiled oracle"),
        (FewOutputs(3, 3), "slack", 1, "1-slack", "slack rescaling"),
        (PythonOnly(3, 3), "slack", 1, "1-slack", "slack rescaling"),
        (FewOutputs(3, 3), "margin", 2, "n-slack", "squared slacks"),
        (ManyOutputs(3, 3), "slack", 2, "n-slack", "squared slacks"),
    ],
)
def test_the_table_picks_by_the_task_and_the_objective(task, rescaling, slack_norm, solver, phrase):
    X, Y = np.eye(3), np.arange(3)
    choice = choose_solver(task, X, Y, rescaling=rescaling, slack_norm=slack_norm)
    assert choice.solver == solver
    assert phrase in choice.reason


def test_auto_is_the_default_and_the_pick_is_recorded(multiclass_problem):
    task, X, Y = multiclass_problem()
    model = StructuredSVM(task)
    assert model.solver == "auto"
    model.fit(X, Y)
    expected = choose_solver(task, X, Y, rescaling="margin", slack_norm=1).solver
    assert model.solver_ == expected
    assert model.converged_


def test_auto_reaches_the_optimum_of_a_named_solver(multiclass_problem):
    task, X, Y = multiclass_problem()
    auto = StructuredSVM(task, tol=1e-6).fit(X, Y)
    named = StructuredSVM(task, solver="n-slack", tol=1e-6).fit(X, Y)
    assert auto.primal_objective_ == pytest.approx(named.primal_objective_, rel=1e-5)


@pytest.mark.parametrize(("slack_norm", "solver"), [(1, "1-slack"), (2, "n-slack")])
def test_auto_on_a_task_without_compiled_oracle(pair_problem, slack_norm, solver):
    task, X, Y = pair_problem()
    model = StructuredSVM(task, slack_norm=slack_norm).fit(X, Y)
    assert model.solver_ == solver
    assert model.converged_


@pytest.mark.parametrize("solver", ["n-slack", "1-slack"])
def test_a_named_solver_is_honoured(multiclass_problem, solver):
    task, X, Y = multiclass_problem()
    assert StructuredSVM(task, solver=solver).fit(X, Y).solver_ == solver
    assert MulticlassSVM(solver=solver).fit(X, Y).svm_.solver_ == solver


def test_the_flat_estimators_default_to_auto(multiclass_problem):
    _, X, Y = multiclass_problem()
    model = MulticlassSVM().fit(X, Y)
    assert model.solver == "auto"
    task = model.svm_.task
    inputs = np.hstack([X, np.ones((len(X), 1))])
    choice = choose_solver(task, inputs, Y, rescaling="margin", slack_norm=1)
    assert model.svm_.solver_ == choice.solver


def test_verbose_logs_the_pick_with_its_reason(multiclass_problem, caplog):
    task, X, Y = multiclass_problem()
    with caplog.at_level(logging.INFO, logger="structsvm"):
        model = StructuredSVM(task, verbose=1).fit(X, Y)
    reason = choose_solver(task, X, Y, rescaling="margin", slack_norm=1).reason
    assert f"StructuredSVM: solver='auto' picks {model.solver_!r}: {reason}" in caplog.messages


def test_a_named_solver_logs_no_pick(multiclass_problem, caplog):
    task, X, Y = multiclass_problem()
    with caplog.at_level(logging.INFO, logger="structsvm"):
        StructuredSVM(task, solver="n-slack", verbose=1).fit(X, Y)
    assert not any("picks" in message for message in caplog.messages)


def test_clone_and_grid_search_keep_auto_and_try_named_solvers(multiclass_problem):
    _, X, Y = multiclass_problem()
    assert clone(MulticlassSVM()).get_params()["solver"] == "auto"
    search = GridSearchCV(MulticlassSVM(), {"solver": ["auto", "n-slack"]}, cv=2).fit(X, Y)
    assert search.best_estimator_.svm_.solver_ in {"1-slack", "dual-cd", "n-slack"}


def test_an_unknown_solver_is_refused_naming_auto(multiclass_problem):
    task, X, Y = multiclass_problem()
    with pytest.raises(ValueError, match="auto"):
        StructuredSVM(task, solver="fastest").fit(X, Y)
