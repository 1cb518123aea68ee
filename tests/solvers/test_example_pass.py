"""The compiled per-example pass against the Python pass, and itself on more threads."""

import logging
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm.solvers._cluster import training_set
from structsvm.solvers._cutting_plane import TaskConstraints
from structsvm.solvers._example_pass import CompiledExamplePasses
from structsvm.solvers._oracle import loss_augmented_pass
from tasks import MulticlassTask
from tests.compiled_tasks import interleaved_problem, multiclass_problem, pair_problem

PROBLEMS = {
    "multiclass dense": lambda n: multiclass_problem(False, n),
    "multiclass sparse": lambda n: multiclass_problem(True, n),
    "label pairs (user task)": lambda n: pair_problem(n),
    "interleaved classes (user task)": lambda n: interleaved_problem(n),
}


def dense(matrix):
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


@pytest.mark.parametrize("name", PROBLEMS)
def test_every_example_is_as_the_python_pass_finds_it_and_the_same_bits_on_two_threads(name):
    task, X, Y = PROBLEMS[name](200)
    w = np.random.default_rng(1).normal(size=task.size_joint_feature)
    true_features = task.batch_joint_feature(X, Y)
    python = loss_augmented_pass(task, X, Y, true_features, w)
    passes = CompiledExamplePasses.prepare(task, X, Y, true_features=true_features)
    compiled = passes.oracle_pass(w)
    assert compiled.certified
    keys = [compiled.output_key(i) for i in range(len(X))]
    assert keys == [python.output_key(i) for i in range(len(X))]
    np.testing.assert_array_equal(compiled.losses, python.losses)
    np.testing.assert_allclose(compiled.slacks, python.slacks, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(dense(compiled.features), dense(python.features))
    np.testing.assert_allclose(
        dense(compiled.differences), dense(python.differences), rtol=0, atol=0
    )
    threaded = CompiledExamplePasses.prepare(
        task, X, Y, true_features=true_features, n_jobs=2
    ).oracle_pass(w)
    np.testing.assert_array_equal(threaded.slacks, compiled.slacks)
    np.testing.assert_array_equal(dense(threaded.features), dense(compiled.features))


def test_outputs_are_the_tasks_outputs_and_pickle_as_their_list():
    task, X, Y = multiclass_problem(False, 20)
    oracle_pass = CompiledExamplePasses.prepare(task, X, Y).oracle_pass(np.zeros(20))
    outputs = oracle_pass.outputs
    assert len(outputs) == 20 and all(isinstance(y, int) for y in outputs)
    assert outputs[-1] == outputs[19] and outputs[2:4] == [outputs[2], outputs[3]]
    with pytest.raises(IndexError):
        outputs[20]
    assert pickle.loads(pickle.dumps(outputs)) == list(outputs)
    pair, pair_X, pair_Y = pair_problem(5)
    pair_pass = CompiledExamplePasses.prepare(pair, pair_X, pair_Y).oracle_pass(np.ones(10))
    assert all(y.dtype == np.int64 and y.shape == (2,) for y in pair_pass.outputs)


def test_scores_that_overflow_are_refused_as_by_the_python_pass():
    task, X, Y = multiclass_problem(False, 5)
    passes = CompiledExamplePasses.prepare(task, X, Y)
    with pytest.raises(ValueError, match="overflow"):
        passes.oracle_pass(np.full(task.size_joint_feature, 1e308))


class PythonOnly(MulticlassTask):
    """A multiclass task without a compiled oracle."""

    def compiled_oracle(self, X, Y):
        return None


def test_training_set_takes_the_compiled_pass_for_margin_rescaling_only(caplog):
    task, X, Y = multiclass_problem(False, 10)
    with training_set(task, X, Y) as source:
        assert isinstance(source, CompiledExamplePasses)
    with training_set(task, X, Y, rescaling="slack") as source:
        assert type(source) is TaskConstraints
    python_task = PythonOnly(4, 5, loss_matrix=task.loss_matrix)
    with caplog.at_level(logging.INFO, logger="structsvm"):
        with training_set(python_task, X, Y) as source:
            assert type(source) is TaskConstraints
    assert "PythonOnly offers no compiled oracle" in caplog.text
