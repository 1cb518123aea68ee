"""check_task on a compiled oracle: a faithful one passes, each kind of unfaithful one is named.

The compiled oracle must answer as the task's Python methods do (the Python path is the ground
truth): the oracles below take MulticlassTask's, which passes, and break one function each.
"""

import numba
import numpy as np
import pytest
import scipy.sparse

from structsvm import TaskContractError, check_task
from structsvm._compiled_oracle import ScoreTable, no_add_features, no_labelling_score
from tasks import MulticlassTask
from tasks._multiclass_oracle import (
    multiclass_add_features,
    multiclass_decode,
    multiclass_features,
    multiclass_labelling_score,
    multiclass_loss,
)

N_CLASSES, N_FEATURES = 4, 3
LOSS_MATRIX = np.abs(np.subtract.outer(np.arange(N_CLASSES), np.arange(N_CLASSES))).astype(float)


@numba.njit(cache=True)
def decode_ignoring_the_loss(data, i, w, scores, augmented):
    return multiclass_decode(data, i, w, scores, False)


@numba.njit(cache=True)
def features_in_decreasing_order(data, i, labels):
    indices, values = multiclass_features(data, i, labels)
    return indices[::-1].copy(), values[::-1].copy()


@numba.njit(cache=True)
def features_of_the_next_class(data, i, labels):
    shifted = labels.copy()
    shifted[0] = (labels[0] + 1) % data[4].shape[0]
    return multiclass_features(data, i, shifted)


@numba.njit(cache=True)
def loss_plus_one(data, i, labels):
    return multiclass_loss(data, i, labels) + 1.0


@numba.njit(cache=True)
def two_labels(data, i, w, scores, augmented):
    labels = multiclass_decode(data, i, w, scores, augmented)
    return np.concatenate((labels, labels))


@numba.njit(cache=True)
def labelling_score_of_the_next_class(data, i, w, scores, labels):
    shifted = labels.copy()
    shifted[0] = (labels[0] + 1) % scores.shape[1]
    return multiclass_labelling_score(data, i, w, scores, shifted)


@numba.njit(cache=True)
def add_features_twice(data, i, labels, scale, out):
    return multiclass_add_features(data, i, labels, 2.0 * scale, out)


@numba.njit(cache=True)
def add_features_but_say_not(data, i, labels, scale, out):
    multiclass_add_features(data, i, labels, scale, out)
    return False


def shifted_batch_scores(data, w):
    table = MulticlassTask(N_CLASSES, N_FEATURES).compiled_oracle(
        np.zeros((1, N_FEATURES)), np.zeros(1, dtype=np.int64)
    ).batch_scores(data, w)
    return ScoreTable(table.scores + 1.0, table.offsets)


def with_oracle(**replaced):
    """A MulticlassTask whose compiled oracle has the given parts replaced."""

    class Replaced(MulticlassTask):
        def compiled_oracle(self, X, Y):
            return super().compiled_oracle(X, Y)._replace(**replaced)

    Replaced.__name__ = "Replaced(" + ", ".join(replaced) + ")"
    return Replaced(N_CLASSES, N_FEATURES, loss_matrix=LOSS_MATRIX)


def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(8, N_FEATURES)), rng.integers(0, N_CLASSES, 8)


def kinds(report):
    return {(problem.kind, problem.method) for problem in report.problems}


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("loss_matrix", [None, LOSS_MATRIX], ids=["0/1", "ordinal"])
def test_a_faithful_compiled_oracle_passes(sparse, loss_matrix):
    X, Y = data()
    task = MulticlassTask(N_CLASSES, N_FEATURES, loss_matrix=loss_matrix)
    assert task.compiled_oracle(X, Y) is not None
    report = check_task(task, scipy.sparse.csr_matrix(X) if sparse else X, Y)
    assert report.ok, str(report)


@pytest.mark.parametrize(
    ("replaced", "kind", "method", "phrase"),
    [
        (
            {"decode": decode_ignoring_the_loss},
            "compiled_mismatch",
            "compiled_oracle.decode",
            "but loss_augmented_argmax gives",
        ),
        (
            {"features": features_in_decreasing_order},
            "compiled_contract",
            "compiled_oracle.features",
            "expected distinct and increasing",
        ),
        (
            {"features": features_of_the_next_class},
            "compiled_mismatch",
            "compiled_oracle.features",
            "differs from joint_feature",
        ),
        ({"loss": loss_plus_one}, "compiled_mismatch", "compiled_oracle.loss", "but loss gives"),
        (
            {"decode": two_labels},
            "compiled_contract",
            "compiled_oracle.decode",
            "an example's labels have a fixed length",
        ),
        (
            {"batch_scores": shifted_batch_scores},
            "compiled_mismatch",
            "compiled_oracle.batch_scores",
            "in batch_scores(data, w)",
        ),
        (
            {"to_output": lambda labels: int(labels[0]) + 1},
            "compiled_mismatch",
            "compiled_oracle.to_output",
            "to_output(labels(y)) must be y",
        ),
        ({"n_examples": 3}, "compiled_contract", "compiled_oracle", "n_examples = 3 for 8"),
        (
            {"labelling_score": labelling_score_of_the_next_class},
            "compiled_mismatch",
            "compiled_oracle.labelling_score",
            "but w·joint_feature is",
        ),
        (
            {"add_features": add_features_twice},
            "compiled_mismatch",
            "compiled_oracle.add_features",
            "differs from -2·joint_feature",
        ),
        (
            {"add_features": add_features_but_say_not},
            "compiled_contract",
            "compiled_oracle.add_features",
            "returned False but wrote into out",
        ),
    ],
    ids=lambda value: "-".join(value) if isinstance(value, dict) else None,
)
def test_an_unfaithful_compiled_oracle_is_caught(replaced, kind, method, phrase):
    report = check_task(with_oracle(**replaced), *data())
    assert not report.ok
    assert (kind, method) in kinds(report), str(report)
    found = [problem.message for problem in report.problems if problem.method == method]
    assert any(phrase in message for message in found), str(report)
    # Only the compiled oracle is at fault: the Python methods keep the contract.
    assert all(problem.method.startswith("compiled_oracle") for problem in report.problems)


def test_a_compiled_oracle_without_its_optional_functions_passes():
    """The optional functions absent, the four required ones alone keep the contract."""
    report = check_task(
        with_oracle(labelling_score=no_labelling_score, add_features=no_add_features), *data()
    )
    assert report.ok, str(report)


def test_a_compiled_oracle_that_raises_is_reported_not_crashed_on():
    class Raising(MulticlassTask):
        def compiled_oracle(self, X, Y):
            raise RuntimeError("cannot prepare")

    report = check_task(Raising(N_CLASSES, N_FEATURES), *data())
    assert kinds(report) == {("exception", "compiled_oracle")}
    assert "RuntimeError: cannot prepare" in str(report)


def test_something_else_than_a_compiled_oracle_is_reported():
    class NotAnOracle(MulticlassTask):
        def compiled_oracle(self, X, Y):
            return (multiclass_decode, multiclass_loss)

    report = check_task(NotAnOracle(N_CLASSES, N_FEATURES), *data())
    assert kinds(report) == {("compiled_contract", "compiled_oracle")}
    assert "expected a CompiledOracle or None" in str(report)


def test_raise_on_error_stops_before_training_on_an_unfaithful_compiled_oracle():
    with pytest.raises(TaskContractError, match=r"compiled_oracle\.loss"):
        check_task(with_oracle(loss=loss_plus_one), *data(), raise_on_error=True)
