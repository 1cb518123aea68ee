"""What the tests of a task's compiled oracle ask of it, through the oracle's own functions."""

import collections
import copy

import numpy as np

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


def one_slack_weights(task, X, Y, C, tol=1e-6):
    """Return the weights of a 1-slack fit to ``tol``."""
    return collections.deque(one_slack(task, X, Y, C, tol=tol), maxlen=1)[0].w


def assert_same_one_slack_fit(task, X, Y, C, tol=1e-6):
    """Assert that 1-slack on the compiled pass finds the Python path's weights (1e-8)."""
    compiled = one_slack_weights(task, X, Y, C, tol)
    python = one_slack_weights(without_compiled_oracle(task), X, Y, C, tol)
    np.testing.assert_allclose(compiled, python, rtol=0, atol=1e-8)
