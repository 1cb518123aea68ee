"""The ``structsvm`` command on tiny files, against independent optima and decoders.

Ground truth: the structural SVM's QP with every constraint enumerated (and the pairwise SVM's
QP for ranking) solved by cvxopt in tests/references.py, and exhaustive decoding of every
labelling. The learned weights w of a fit stopped at duality gap g lie within sqrt(2 g) of
the optimum w* (the objective is 1-strongly convex), which is what the tests assert.
"""

import importlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tomllib

import structsvm
from structsvm.cli import main
from structsvm.cli._model import SavedModel
from structsvm.io import read_svmhmm, read_svmlight, write_svmhmm, write_svmlight
from tasks import ChainTask, MulticlassTask
from tests.references import (
    all_labelings,
    chain_scores,
    pairwise_differences,
    solve_full_primal,
    solve_pairwise_svm,
)

ROOT = Path(__file__).resolve().parents[2]


def assert_near_optimum(w, w_star, gap):
    """‖w − w*‖ <= sqrt(2·gap), up to the reference QP's own precision."""
    assert np.linalg.norm(w - w_star) <= np.sqrt(2 * max(gap, 0.0)) + 1e-5 * (
        1 + np.linalg.norm(w_star)
    )


def learn(*arguments):
    """Run ``structsvm learn -v 0 ...`` in this process; return its exit status."""
    return main(["learn", "-v", "0", *map(str, arguments)])


@pytest.fixture
def multiclass_files(tmp_path):
    """Training and test files of 3 classes (labels 1, 2, 5) of 2-D inputs, 24 and 9 rows."""
    rng = np.random.default_rng(0)
    centres = np.array([[2.0, 0.0], [-1.0, 1.5], [-1.0, -1.5]])

    def draw(n):
        classes = rng.integers(0, 3, n)
        return centres[classes] + rng.normal(scale=1.2, size=(n, 2)), np.array([1, 2, 5])[classes]

    paths = tmp_path / "train.dat", tmp_path / "test.dat"
    for path, n in zip(paths, (24, 9)):
        write_svmlight(path, *draw(n))
    return paths


@pytest.mark.parametrize(
    ("option", "value", "C_of", "scale"),
    [
        ("-c", 30.0, lambda value, n: value / (100 * n), 100.0),
        ("--C", 0.5, lambda value, n: value, 1.0),
    ],
)
def test_multiclass_model_is_the_optimum_of_its_c_convention(
    multiclass_files, tmp_path, option, value, C_of, scale
):
    # -c: SVM^multiclass's problem, ½‖w‖² + (c/n) Σ ξ with a loss of 100 per wrong class, is
    # the 0/1-loss problem with C = c / (100 n), its weights scaled by 100. --C: C itself.
    train, _ = multiclass_files
    assert learn("--task", "multiclass", option, value, "-e", "1e-7", train, tmp_path / "m") == 0
    model = SavedModel.load(tmp_path / "m")
    X, y = read_svmlight(train)
    Y = np.unique(y, return_inverse=True)[1]
    np.testing.assert_array_equal(model.labels, [1, 2, 5])
    w_star, _, _ = solve_full_primal(MulticlassTask(3, 2), X.toarray(), Y, C_of(value, len(y)))
    assert model.svm.C == pytest.approx(C_of(value, len(y)) * scale)  # c / n for -c
    assert_near_optimum(model.svm.w_, scale * w_star, model.svm.duality_gap_)


def test_multiclass_predictions_are_the_label_and_every_class_score(
    multiclass_files, tmp_path, capsys
):
    train, test = multiclass_files
    learn("--task", "multiclass", "-c", "10", train, tmp_path / "m")
    assert main(["classify", str(test), str(tmp_path / "m"), str(tmp_path / "p")]) == 0
    model = SavedModel.load(tmp_path / "m")
    X, y = read_svmlight(test, n_features=2)
    expected_scores = X @ model.svm.w_.reshape(3, 2).T
    lines = [line.split() for line in (tmp_path / "p").read_text().splitlines()]
    assert [len(fields) for fields in lines] == [4] * 9
    scores = np.array([[float(s) for s in fields[1:]] for fields in lines])
    np.testing.assert_allclose(scores, expected_scores, rtol=1e-9, atol=1e-12)
    predicted = np.array([int(fields[0]) for fields in lines])
    np.testing.assert_array_equal(predicted, np.array([1, 2, 5])[scores.argmax(axis=1)])
    wrong = int(np.sum(predicted != y))
    printed = capsys.readouterr().out
    assert (
        f"Zero/one-error on test set: {100 * wrong / 9:.2f}% ({9 - wrong} correct, {wrong} "
        "incorrect, 9 total examples)"
    ) in printed
    assert f"Average loss on test set: {100 * wrong / 9:.4f}" in printed


# ------------------------------------------------------------------------ hmm
@pytest.fixture
def hmm_files(tmp_path):
    """Training and test files of 2 tags ("N", "V") on sequences of 1 to 3 tokens, 2 features."""
    rng = np.random.default_rng(1)

    def draw(n):
        Y = [rng.integers(0, 2, T) for T in rng.integers(1, 4, n)]
        X = [np.c_[2.0 * y - 1 + rng.normal(scale=1.5, size=len(y)), np.ones(len(y))] for y in Y]
        return X, Y

    paths = tmp_path / "train.dat", tmp_path / "test.dat"
    for path, n in zip(paths, (5, 4)):
        write_svmhmm(path, *draw(n), ["N", "V"])
    return paths


@pytest.mark.parametrize(
    ("order", "task_options"),
    [("0", {"transitions": False}), ("1", {}), ("2", {"order": 2})],
)
def test_hmm_model_is_the_optimum_with_C_c_over_n(hmm_files, tmp_path, order, task_options):
    train, _ = hmm_files
    c = 8.0
    status = learn("--task", "hmm", "-c", c, "--t", order, "-e", "1e-7", train, tmp_path / "m")
    assert status == 0
    model = SavedModel.load(tmp_path / "m")
    data = read_svmhmm(train)
    task = ChainTask(2, 2, **task_options)
    assert repr(model.svm.task) == repr(task)
    w_star, _, _ = solve_full_primal(task, [x.toarray() for x in data.X], data.Y, c / 5)
    assert_near_optimum(model.svm.w_, w_star, model.svm.duality_gap_)


def test_hmm_predictions_are_the_best_tags_one_per_token(hmm_files, tmp_path, capsys):
    train, test = hmm_files
    learn("--task", "hmm", "-c", "8", "--t", "2", train, tmp_path / "m")
    assert main(["classify", str(test), str(tmp_path / "m"), str(tmp_path / "tags")]) == 0
    model = SavedModel.load(tmp_path / "m")
    data = read_svmhmm(test, tags=["N", "V"])
    predicted = (tmp_path / "tags").read_text().split("\n")
    assert predicted[-1] == "" and len(predicted) - 1 == data.n_tokens
    start, mistagged = 0, []
    for x, y in zip(data.X, data.Y):
        labelings = all_labelings(2, len(y))
        best = labelings[
            np.argmax(chain_scores(model.svm.task, x.toarray(), labelings, model.svm.w_))
        ]
        assert predicted[start : start + len(y)] == [["N", "V"][k] for k in best]
        mistagged.append(int(np.sum(best != y)))
        start += len(y)
    printed = capsys.readouterr().out
    assert f"Average loss on test set: {np.mean(mistagged):.4f}" in printed
    assert f"({4 - np.count_nonzero(mistagged)} correct" in printed
    assert f"({data.n_tokens - sum(mistagged)} of {data.n_tokens} tokens)" in printed


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ([], ("margin", 1, "1-slack")),
        (["-o", "1", "-p", "2", "-w", "2"], ("slack", 2, "1-slack")),
        (["-p", "2"], ("margin", 2, "n-slack")),
        (["-o", "1", "-w", "bcfw"], ("slack", 1, "bcfw")),
    ],
)
def test_rescaling_slack_norm_and_solver_reach_the_structural_svm(
    hmm_files, tmp_path, options, expected
):
    learn("--task", "hmm", *options, "--max-iter", "3", hmm_files[0], tmp_path / "m")
    svm = SavedModel.load(tmp_path / "m").svm
    assert (svm.rescaling, svm.slack_norm, svm.solver) == expected


# ------------------------------------------------------------------------ rank
def test_rank_model_is_the_pairwise_svm_with_C_c_over_queries(tmp_path, capsys):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(15, 3))
    grades = np.digitize(X @ [1.0, -0.5, 0.2] + 0.4 * rng.normal(size=15), [-0.5, 0.5])
    qid = np.repeat([7, 3, 9], 5)
    write_svmlight(tmp_path / "train.dat", X, grades, qid=qid)
    c = 3.0
    assert (
        learn("--task", "rank", "-c", c, "-e", "1e-7", tmp_path / "train.dat", tmp_path / "m") == 0
    )
    model = SavedModel.load(tmp_path / "m")
    queries = [qid == q for q in (3, 7, 9)]
    differences = pairwise_differences(
        [X[rows] for rows in queries], [grades[rows] for rows in queries]
    )
    w_star, _ = solve_pairwise_svm(differences, c / 3)
    assert_near_optimum(model.svm.w_, w_star, model.svm.duality_gap_)

    assert (
        main(["classify", str(tmp_path / "train.dat"), str(tmp_path / "m"), str(tmp_path / "s")])
        == 0
    )
    scores = np.loadtxt(tmp_path / "s")
    np.testing.assert_allclose(scores, X @ model.svm.w_, rtol=1e-9, atol=1e-12)
    assert "Pairwise accuracy on test set:" in capsys.readouterr().out


# ------------------------------------------------------------------------ refusals
def test_malformed_training_file_is_named_with_its_line(tmp_path, capsys):
    (tmp_path / "train.dat").write_text("1 1:0.5\n2 1:0.5 x\n")
    assert learn("--task", "multiclass", tmp_path / "train.dat", tmp_path / "m") == 1
    assert capsys.readouterr().err == (
        "structsvm learn: error: train.dat, line 2: expected 'fid:value', got 'x'\n"
    )
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--task", "multiclass", "--t", "2"], "--t (transition order) applies to --task hmm only"),
        (["--task", "multiclass"], "multiclass training needs at least two classes, found 1"),
    ],
)
def test_options_and_data_that_do_not_fit_are_refused(tmp_path, capsys, arguments, message):
    write_svmlight(tmp_path / "train.dat", np.ones((3, 2)), [1, 1, 1])
    assert learn(*arguments, tmp_path / "train.dat", tmp_path / "m") == 1
    assert message in capsys.readouterr().err


def test_a_file_that_is_not_a_model_is_refused(multiclass_files, tmp_path, capsys):
    _, test = multiclass_files
    (tmp_path / "m").write_text("not a model")
    assert main(["classify", str(test), str(tmp_path / "m"), str(tmp_path / "p")]) == 1
    assert "not a model file of 'structsvm learn'" in capsys.readouterr().err


class _WritesMarker:
    """Unpickling it creates the marker file."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (os.fspath(self.marker), "w"))


def test_a_pickled_model_is_refused_and_never_unpickled(multiclass_files, tmp_path, capsys):
    _, test = multiclass_files
    marker = tmp_path / "marker"
    (tmp_path / "m").write_bytes(pickle.dumps(_WritesMarker(marker)))
    assert main(["classify", str(test), str(tmp_path / "m"), str(tmp_path / "p")]) == 1
    assert "not a structsvm model file" in capsys.readouterr().err
    assert not marker.exists()


def test_a_model_file_of_something_else_is_refused(multiclass_files, tmp_path, capsys):
    _, test = multiclass_files
    structsvm.save(structsvm.StructuredSVM(MulticlassTask(2, 2)), tmp_path / "m")
    assert main(["classify", str(test), str(tmp_path / "m"), str(tmp_path / "p")]) == 1
    assert "(it holds a StructuredSVM)" in capsys.readouterr().err


@pytest.mark.parametrize("arguments", [["-w", "9"], ["-o", "3"], ["-c", "-1"], ["--task", "crf"]])
def test_malformed_command_lines_exit_with_status_2(tmp_path, capsys, arguments):
    command = ["learn", "--task", "multiclass", *arguments, "train.dat", "model"]
    with pytest.raises(SystemExit) as stopped:
        main(command)
    assert stopped.value.code == 2
    assert "structsvm learn: error: argument" in capsys.readouterr().err


# ------------------------------------------------------------------------ help and install
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ([], ["learn", "classify", "--task multiclass|hmm|rank"]),
        (
            ["learn"],
            ["C = c / n", "C = c / (100 n)", "-o", "-p", "--t", "-w", "-e", "--C", "-v", "MODEL"],
        ),
        (["classify"], ["TEST", "MODEL", "PREDICTIONS", "one tag per token line"]),
    ],
)
def test_every_help_is_complete(capsys, command, expected):
    with pytest.raises(SystemExit) as stopped:
        main([*command, "--help"])
    assert stopped.value.code == 0
    printed = capsys.readouterr().out
    for text in expected:
        assert text in printed


def test_the_console_script_is_declared_and_runs():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, function = scripts["structsvm"].partition(":")
    entry_point = getattr(importlib.import_module(module), function)
    assert entry_point is main
    with pytest.raises(SystemExit) as stopped:
        entry_point(["classify", "--help"])
    assert stopped.value.code == 0


def test_python_m_structsvm_learns_and_classifies(hmm_files, tmp_path):
    train, test = hmm_files
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(*arguments):
        return subprocess.run(
            [sys.executable, "-m", "structsvm", *map(str, arguments)],
            capture_output=True,
            text=True,
            env=environment,
            cwd=tmp_path,
            timeout=300,
        )

    learned = run("learn", "--task", "hmm", "-c", "8", train, "model")
    assert learned.returncode == 0, learned.stderr
    assert "Model written to model" in learned.stdout
    classified = run("classify", test, "model", "tags")
    assert classified.returncode == 0, classified.stderr
    assert "Token accuracy on test set:" in classified.stdout
    assert len((tmp_path / "tags").read_text().splitlines()) == read_svmhmm(test).n_tokens


@pytest.mark.parametrize(
    ("verbosity", "terminal", "bar"), [("1", True, True), ("1", False, False), ("0", True, False)]
)
def test_a_progress_bar_is_drawn_on_a_terminal(
    hmm_files, tmp_path, monkeypatch, verbosity, terminal, bar
):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal)
    main(
        [
            "learn",
            "--task",
            "hmm",
            "-v",
            verbosity,
            "--max-iter",
            "2",
            str(hmm_files[0]),
            str(tmp_path / "m"),
        ]
    )
    assert SavedModel.load(tmp_path / "m").svm.progress is bar


def test_parse_learns_a_treebank_and_writes_it_back_with_heads_and_relations(tmp_path, capsys):
    from structsvm.io import DependencySentence, read_conllu, write_conllu

    sentences = [
        DependencySentence(
            ["the", "dog", "barks", "."],
            ["DET", "NOUN", "VERB", "PUNCT"],
            [2, 3, 0, 3],
            ["det", "nsubj", "root", "punct"],
        ),
        DependencySentence(
            ["a", "cat", "sees", "the", "dog"],
            ["DET", "NOUN", "VERB", "DET", "NOUN"],
            [2, 3, 0, 5, 3],
            ["det", "nsubj", "root", "det", "obj"],
        ),
        DependencySentence(["dogs", "bark"], ["NOUN", "VERB"], [2, 0], ["nsubj", "root"]),
    ]
    treebank, model, predictions = (tmp_path / name for name in ("t.conllu", "m", "p.conllu"))
    write_conllu(treebank, sentences)
    assert learn("--task", "parse", "--C", 10, "--decoder", "chu-liu-edmonds", treebank, model) == 0
    assert main(["classify", str(treebank), str(model), str(predictions)]) == 0
    assert "UAS 100.00%, LAS 100.00%" in capsys.readouterr().out
    for read, written in zip(read_conllu(predictions), sentences, strict=True):
        np.testing.assert_array_equal(read.heads, written.heads)
        assert read.deprels == written.deprels
    assert learn("--task", "hmm", "--decoder", "eisner", treebank, model) == 1
