"""The generic compiled 1-slack pass on the chain and multiclass oracles: the sums of the
Python pass, the same bits on more threads, the iterates of 1-slack and the full QP optimum."""

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm.solvers._one_slack import one_slack
from structsvm.solvers._oracle import PassSummary, loss_augmented_pass
from structsvm.solvers._summed_pass import CompiledSummedPasses
from tasks import ChainTask, MulticlassTask
from tests.references import solve_full_primal
from tests.tasks.compiled_checks import without_optional_functions


class GenericChain(ChainTask):
    """A chain task that keeps the generic pass: it overrides (unchanged) the batch loss."""

    def batch_loss(self, Y_true, Y):
        return super().batch_loss(Y_true, Y)


class GenericMulticlass(MulticlassTask):
    """A multiclass task that keeps the generic pass: it overrides (unchanged) the loss."""

    def loss(self, y_true, y):
        return super().loss(y_true, y)


CHAIN_OPTIONS = {
    "first order": {},
    "second order, start, end and bias": {"order": 2, "start_end": True, "bias": True},
    "constrained, weighted loss": {
        "forbidden_transitions": [(0, 1)], "forbidden_last": [2], "label_weights": [1, 2.5, 0.5]
    },
}


def summed_chain_problem(options, sparse, n_sequences, lengths=(1, 4), seed=0):
    """Sequences of 4 features, about a third of them zero, labelled as the task allows."""
    task = ChainTask(3, 4, **CHAIN_OPTIONS[options])
    rng = np.random.default_rng(seed)
    X, Y = [], []
    for _ in range(n_sequences):
        length = rng.integers(lengths[0], lengths[1] + 1)
        x = rng.normal(size=(length, 4)) * (rng.random((length, 4)) < 0.7)
        X.append(sp.csr_matrix(x) if sparse else x)
        y = rng.integers(0, 3, size=length)
        while task._violation(y, np.array([0, length])) is not None:
            y = rng.integers(0, 3, size=length)
        Y.append(y)
    return task, *task.check_data(X, Y)


def summed_multiclass_problem(sparse, n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)) * (rng.random((n, 5)) < 0.7)
    losses = rng.random((4, 4)) * (1 - np.eye(4))
    task = MulticlassTask(4, 5, loss_matrix=losses)
    return task, *task.check_data(sp.csr_matrix(X) if sparse else X, rng.integers(0, 4, n))


def compiled_summary(task, X, Y, w, n_jobs=1):
    return CompiledSummedPasses.prepare(task, X, Y, n_jobs=n_jobs).oracle_pass(w)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("options", [*CHAIN_OPTIONS, "multiclass"])
def test_the_sums_are_the_generic_pass_sums_and_the_same_bits_on_two_threads(options, sparse):
    if options == "multiclass":
        task, X, Y = summed_multiclass_problem(sparse, 300)
    else:
        task, X, Y = summed_chain_problem(options, sparse, 300)
    w = np.random.default_rng(2).normal(size=task.size_joint_feature)
    true_features = task.batch_joint_feature(X, Y)
    generic = PassSummary.of(loss_augmented_pass(task, X, Y, true_features, w))
    serial = compiled_summary(task, X, Y, w)
    assert serial.certified
    np.testing.assert_allclose(serial.difference_total, generic.difference_total, atol=1e-10)
    assert serial.loss_total == pytest.approx(generic.loss_total, rel=1e-14)
    assert serial.slack_total == pytest.approx(generic.slack_total, rel=1e-12)
    threaded = compiled_summary(task, X, Y, w, n_jobs=2)
    np.testing.assert_array_equal(threaded.difference_total, serial.difference_total)
    assert (threaded.loss_total, threaded.slack_total) == (serial.loss_total, serial.slack_total)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("options", [*CHAIN_OPTIONS, "multiclass"])
def test_the_sums_are_the_same_without_the_optional_oracle_functions(options, sparse):
    if options == "multiclass":
        task, X, Y = summed_multiclass_problem(sparse, 100)
    else:
        task, X, Y = summed_chain_problem(options, sparse, 100)
    w = np.random.default_rng(3).normal(size=task.size_joint_feature)
    shortcuts = compiled_summary(task, X, Y, w)
    plain = compiled_summary(without_optional_functions(task), X, Y, w)
    np.testing.assert_allclose(shortcuts.difference_total, plain.difference_total, atol=1e-10)
    assert shortcuts.loss_total == plain.loss_total
    assert shortcuts.slack_total == pytest.approx(plain.slack_total, rel=1e-10)


@pytest.mark.parametrize("task", [GenericChain(3, 4), GenericMulticlass(4, 5)])
def test_subclasses_that_override_an_oracle_or_the_loss_keep_the_python_pass(task):
    if isinstance(task, ChainTask):
        X, Y = summed_chain_problem("first order", False, 3)[1:]
    else:
        X, Y = np.ones((3, 5)), np.array([0, 1, 2])
    assert task.compiled_oracle(X, Y) is None
    assert CompiledSummedPasses.prepare(task, X, Y) is None


class UnthreadedMulticlass(MulticlassTask):
    """A multiclass task whose Python batch methods run in joblib worker processes."""

    threaded_batches = False


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_compiled_oracle_runs_on_threads_whatever_the_python_methods_do(n_jobs):
    task, X, Y = UnthreadedMulticlass(3, 2), np.eye(2)[[0, 1, 1]], np.array([0, 1, 2])
    assert CompiledSummedPasses.prepare(task, X, Y, n_jobs=n_jobs) is not None


def test_scores_that_overflow_are_refused_as_by_the_generic_pass():
    task, X, Y = summed_chain_problem("first order", False, 5)
    w = np.full(task.size_joint_feature, 1e308)
    with pytest.raises(ValueError, match="overflow"):
        compiled_summary(task, X, Y, w)


@pytest.mark.parametrize("slack_norm", [1, 2])
@pytest.mark.parametrize("kind", ["chain", "multiclass"])
def test_1_slack_takes_the_generic_iterates_and_the_same_on_two_threads(
    kind, slack_norm, monkeypatch
):
    if kind == "chain":
        options = "second order, start, end and bias"
        task, X, Y = summed_chain_problem(options, False, 150, lengths=(2, 8))
        generic_task = GenericChain(3, 4, **CHAIN_OPTIONS[options])
    else:
        task, X, Y = summed_multiclass_problem(False, 300)
        generic_task = GenericMulticlass(4, 5, loss_matrix=task.loss_matrix)
    compiled_passes = []
    compiled_pass = CompiledSummedPasses.oracle_pass

    def counted_pass(self, w):
        compiled_passes.append(w)
        return compiled_pass(self, w)

    monkeypatch.setattr(CompiledSummedPasses, "oracle_pass", counted_pass)
    runs = {}
    for name, used, n_jobs in [("compiled", task, 1), ("generic", generic_task, 1),
                               ("threads", task, 2)]:
        compiled_passes.clear()
        *_, state = one_slack(used, X, Y, 0.1, tol=1e-4, slack_norm=slack_norm, n_jobs=n_jobs)
        assert state.converged
        assert isinstance(state.dual_state.oracle, PassSummary)
        # The compiled pass runs for the task that offers it, never for the generic one.
        assert bool(compiled_passes) == (used is task)
        runs[name] = state
    assert len(runs["compiled"].history) == len(runs["generic"].history)
    scale = np.abs(runs["generic"].w).max()
    np.testing.assert_allclose(runs["compiled"].w, runs["generic"].w, atol=1e-8 * scale)
    assert len(runs["threads"].history) == len(runs["compiled"].history)
    np.testing.assert_array_equal(runs["threads"].w, runs["compiled"].w)


def test_1_slack_with_the_compiled_chain_pass_reaches_the_full_qp_optimum():
    task, X, Y = summed_chain_problem("constrained, weighted loss", False, 8, lengths=(1, 3))
    w_star, _, objective_star = solve_full_primal(task, X, Y, 1.0)
    *_, state = one_slack(task, X, Y, 1.0, tol=1e-8)
    assert isinstance(state.dual_state.oracle, PassSummary)
    assert state.history[-1]["primal"] == pytest.approx(objective_star, rel=1e-6)
    np.testing.assert_allclose(state.w, w_star, atol=1e-4 * max(1.0, np.abs(w_star).max()))
