"""StructuredSVM reports its progress on a tqdm bar and its iterations through logging."""

import logging

import pytest

from structsvm import StructuredSVM


@pytest.fixture
def problem(one_hot_multiclass):
    return one_hot_multiclass(n=40, noise=0.8)


def test_a_default_fit_prints_and_logs_nothing(problem, capsys, caplog):
    task, X, y = problem
    with caplog.at_level(logging.DEBUG, logger="structsvm"):
        StructuredSVM(task).fit(X, y)
    assert capsys.readouterr() == ("", "")
    assert caplog.records == []


@pytest.mark.parametrize("solver", ["n-slack", "1-slack", "bcfw"])
def test_progress_draws_a_bar_with_the_primal_and_the_relative_gap(problem, capsys, solver):
    task, X, y = problem
    model = StructuredSVM(task, solver=solver, progress=True, random_state=0).fit(X, y)
    out, err = capsys.readouterr()
    assert out == ""
    final_line = err.strip().split("\r")[-1]
    assert f"StructuredSVM({solver})" in final_line
    assert f"iteration={model.n_iter_}" in final_line
    assert f"primal={model.primal_objective_:.5g}" in final_line
    assert f"relative_gap={model.history_[-1]['relative_gap']:.2e}" in final_line


def test_verbose_logs_every_iteration_and_a_summary_to_the_structsvm_logger(
    problem, capsys, caplog
):
    task, X, y = problem
    with caplog.at_level(logging.INFO, logger="structsvm"):
        model = StructuredSVM(task, verbose=1).fit(X, y)
    assert {record.name for record in caplog.records} == {"structsvm"}
    choice, *messages = caplog.messages
    assert choice.startswith(f"StructuredSVM: solver='auto' picks {model.solver_!r}: ")
    assert len(messages) == len(model.history_) + 1
    for record, message in zip(model.history_, messages):
        assert message.startswith(f"iteration {record['iteration']}: primal {record['primal']:.6g}")
    summary = f"StructuredSVM({model.solver_}) converged after {model.n_iter_}"
    assert messages[-1].startswith(summary)
    assert "primal=" in capsys.readouterr().err


@pytest.mark.parametrize("verbose", [-1, 0.5, "yes"])
def test_verbose_must_be_a_non_negative_integer(problem, verbose):
    task, X, y = problem
    with pytest.raises(ValueError, match="verbose"):
        StructuredSVM(task, verbose=verbose).fit(X, y)
