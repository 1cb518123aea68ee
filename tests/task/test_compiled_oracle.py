"""The compiled-oracle protocol: its functions as the passes receive them and the lookup rule."""

import logging

import numba
import numpy as np
import pytest

from structsvm import CompiledOracle, Task
from structsvm._compiled_oracle import (
    find_compiled_oracle,
    labels_of,
    no_labelling_score,
    unfeatured,
    unscored,
)
from structsvm.solvers._example_pass import CompiledExamplePasses
from structsvm.solvers._summed_pass import CompiledSummedPasses
from tasks import ChainTask, MulticlassTask
from tests.compiled_tasks import pair_problem


def test_labels_are_the_raveled_output_as_int64():
    labels = labels_of(np.array([[1, 0], [2, 1]], dtype=np.int8))
    assert labels.dtype == np.int64
    np.testing.assert_array_equal(labels, [1, 0, 2, 1])


class PlainTask(Task):
    size_joint_feature = 1


def test_a_task_without_compiled_oracle_is_logged(caplog):
    with caplog.at_level(logging.INFO, logger="structsvm"):
        assert find_compiled_oracle(PlainTask(), [0], [0], compiled=None, purpose="test") is None
    assert "offers no compiled oracle" in caplog.text


def test_a_required_compiled_oracle_that_is_missing_raises():
    with pytest.raises(ValueError, match="compiled=True"):
        find_compiled_oracle(PlainTask(), [0], [0], compiled=True, purpose="test")


def test_compiled_false_skips_the_oracle(digits_split):
    X, _, Y, _ = digits_split
    task = MulticlassTask(10, X.shape[1])
    X, Y = task.check_data(X, Y)
    assert find_compiled_oracle(task, X, Y, compiled=False, purpose="test") is None
    found = find_compiled_oracle(task, X, Y, compiled=None, purpose="test")
    assert isinstance(found, CompiledOracle)


def test_the_oracle_makes_the_true_joint_features_as_sparse_rows():
    task, X, Y = pair_problem(7)
    rows = task.compiled_oracle(X, Y).feature_rows(Y, task.size_joint_feature)
    assert rows.format == "csr" and rows.shape == (7, task.size_joint_feature)
    np.testing.assert_array_equal(rows.toarray(), task.batch_joint_feature(X, Y))


def test_the_passes_get_only_the_functions_they_name_compiled():
    task, X, Y = pair_problem(3)
    oracle = task.compiled_oracle(X, Y)
    functions = oracle.functions(("decode", "loss"))
    assert [f is None for f in functions] == [True, False, True, False, True, True]
    assert functions[3].dispatcher is oracle.loss


def test_a_pass_gets_stand_ins_of_the_same_signature_for_the_functions_it_never_calls():
    rng = np.random.default_rng(0)
    task = ChainTask(3, 4)
    X, Y = task.check_data([rng.normal(size=(5, 4))], [rng.integers(0, 3, 5)])
    oracle = task.compiled_oracle(X, Y)
    scores, decode, features = oracle.functions(
        ("scores", "decode", "features"), uncalled=("scores", "features")
    )[:3]
    assert scores.dispatcher is unscored and features.dispatcher is unfeatured
    assert decode.dispatcher is oracle.decode
    real = oracle.functions(("scores", "features"))
    assert scores.numba_type == real[0].numba_type
    assert features.numba_type == real[2].numba_type
    with pytest.raises(RuntimeError, match="scores every example at once"):
        scores(oracle.data, 0, np.zeros(task.size_joint_feature))
    with pytest.raises(RuntimeError, match="adds them by add_features"):
        features(oracle.data, 0, Y[0])
    with pytest.raises(ValueError, match=r"uncalled names \['loss'\]"):
        oracle.functions(("loss",), uncalled=("loss",))


@pytest.mark.parametrize("table", [True, False])
@pytest.mark.parametrize("shortcuts", [True, False])
def test_the_compiled_passes_stand_in_only_for_what_their_oracle_makes_unnecessary(
    table, shortcuts
):
    rng = np.random.default_rng(0)
    task = ChainTask(3, 4)
    X, Y = task.check_data([rng.normal(size=(5, 4))], [rng.integers(0, 3, 5)])
    oracle = task.compiled_oracle(X, Y)
    if not table:
        oracle = oracle._replace(batch_scores=None)
    if not shortcuts:
        oracle = oracle._replace(labelling_score=no_labelling_score)
    per_example = ("scores",) if table else ()
    assert CompiledExamplePasses.uncalled(oracle) == per_example
    assert CompiledSummedPasses.uncalled(oracle) == per_example + (
        ("features",) if shortcuts else ()
    )


def test_a_function_the_protocol_lacks_is_refused_by_name():
    task, X, Y = pair_problem(3)
    with pytest.raises(ValueError, match=r"\['predict'\]; expected names among"):
        task.compiled_oracle(X, Y).functions(("decode", "predict"))


@numba.njit(cache=True)
def one_row_of_scores(data, i, w):
    return np.zeros(3)


def test_part_scores_that_are_not_a_matrix_are_refused():
    task, X, Y = pair_problem(3)
    oracle = task.compiled_oracle(X, Y)._replace(scores=one_row_of_scores)
    with pytest.raises(TypeError, match=r"one_row_of_scores.*expected array\(float64, 2d, C\)"):
        oracle.functions()
