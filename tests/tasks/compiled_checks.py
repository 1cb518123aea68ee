"""What the tests of a task's compiled oracle ask of it, through the oracle's own functions."""

import collections
import copy

import numpy as np
import pytest

from structsvm._compiled_oracle import no_add_features, no_labelling_score
from structsvm.solvers._example_oracle import NO_TABLE, decode_example
from structsvm.solvers._one_slack import one_slack


def compiled_output(oracle, i, w, augmented, table=False):
    """Return the task's output that the oracle decodes for example i, and its labels.

    With ``table``, the scores come from the oracle's batched scoring, as in a pass at fixed w.
    """
    fns = oracle.functions()
    scores = oracle.batch_scores(oracle.data, w) if table else NO_TABLE
    labels = decode_example(fns, oracle.data, i, w, *scores, augmented)
    return oracle.output(labels), labels


def compiled_features(oracle, i, labels, size):
    """Return φ(x_i, y) of the oracle as a dense vector; its indices must be sorted and distinct."""
    indices, values = oracle.functions()[2](oracle.data, i, labels)
    assert indices.dtype == np.int64 and values.dtype == np.float64
    assert np.all(np.diff(indices) > 0)
    phi = np.zeros(size)
    phi[indices] = values
    return phi


def compiled_loss(oracle, i, labels):
    """Return Δ(y_i, y) of the oracle."""
    return oracle.functions()[3](oracle.data, i, labels)


def without_compiled_oracle(task):
    """Return a copy of the task that offers no compiled oracle: its solvers run in Python."""
    python_task = copy.copy(task)
    python_task.compiled_oracle = lambda X, Y: None
    return python_task


def without_optional_functions(task):
    """Return a copy of the task whose compiled oracle offers only the four required functions."""
    plain_task = copy.copy(task)
    plain_task.compiled_oracle = lambda X, Y: task.compiled_oracle(X, Y)._replace(
        labelling_score=no_labelling_score, add_features=no_add_features
    )
    return plain_task


def assert_optional_functions_agree(oracle, i, labels, w, size):
    """Assert that the oracle's ``labelling_score`` is w·φ (from ``scores`` and from the
    table's rows) and ``add_features`` adds scale·φ, φ being its ``features`` (1e-10)."""
    phi = compiled_features(oracle, i, labels, size)
    score_sources = [oracle.scores(oracle.data, i, w)]
    if oracle.batch_scores is not None:
        table = oracle.batch_scores(oracle.data, w)
        score_sources.append(table.scores[table.offsets[i] : table.offsets[i + 1]])
    for scores in score_sources:
        score = oracle.labelling_score(oracle.data, i, w, scores, labels)
        assert score == pytest.approx(phi @ w, rel=1e-10, abs=1e-10)
    out = np.ones(size)
    assert oracle.add_features(oracle.data, i, labels, -1.5, out)
    np.testing.assert_allclose(out, 1.0 - 1.5 * phi, rtol=0, atol=1e-10)


def one_slack_weights(task, X, Y, C, tol=1e-6):
    """Return the weights of a 1-slack fit to ``tol``."""
    return collections.deque(one_slack(task, X, Y, C, tol=tol), maxlen=1)[0].w


def assert_same_one_slack_fit(task, X, Y, C, tol=1e-6):
    """Assert that 1-slack on the compiled pass finds the Python path's weights (1e-8)."""
    compiled = one_slack_weights(task, X, Y, C, tol)
    python = one_slack_weights(without_compiled_oracle(task), X, Y, C, tol)
    np.testing.assert_allclose(compiled, python, rtol=0, atol=1e-8)


def assert_compiled_oracle_answers_as_python(task, X, Y, draws=3):
    """Assert that the compiled oracle's best and most violating outputs, the latter's φ and
    loss, are the task's Python methods', at ``draws`` random weight vectors."""
    X, Y = task.check_data(X, Y)
    oracle = task.compiled_oracle(X, Y)
    scores, decode, features, loss = oracle.functions()[:4]
    rng = np.random.default_rng(4)
    for _ in range(draws):
        w = rng.normal(size=task.size_joint_feature)
        for i, (x, y) in enumerate(zip(X, Y, strict=True)):
            best = decode(oracle.data, i, w, scores(oracle.data, i, w), False)
            violating = decode(oracle.data, i, w, scores(oracle.data, i, w), True)
            np.testing.assert_array_equal(best, task.argmax(x, w))
            np.testing.assert_array_equal(violating, task.loss_augmented_argmax(x, y, w))
            indices, values = features(oracle.data, i, violating)
            expected = task.sparse_joint_feature(x, violating)
            np.testing.assert_array_equal(indices, expected[0])
            np.testing.assert_array_equal(values, expected[1])
            assert loss(oracle.data, i, violating) == task.loss(y, violating)
