"""The compiled 1-slack pass (Task.summed_pass_kernel) against enumeration, the generic pass,
the full QP, and itself on more threads."""

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm import Task
from structsvm.solvers._one_slack import one_slack
from structsvm.solvers._oracle import PassSummary, column_sums, loss_augmented_pass
from structsvm.solvers._summed_pass import CompiledSummedPasses
from tasks import ChainTask, MulticlassTask
from tests.references import solve_full_primal


class GenericChain(ChainTask):
    """A chain task that keeps the generic pass: it overrides (unchanged) the batch loss."""

    def batch_loss(self, Y_true, Y):
        return super().batch_loss(Y_true, Y)


class GenericMulticlass(MulticlassTask):
    """A multiclass task that keeps the generic pass: it overrides (unchanged) the loss."""

    def loss(self, y_true, y):
        return super().loss(y_true, y)


def chains(n_sequences, n_labels, lengths, seed, sparse=False):
    """Random sequences with 4 features, about a third of them zero, and their labels."""
    rng = np.random.default_rng(seed)
    X, Y = [], []
    for _ in range(n_sequences):
        length = rng.integers(lengths[0], lengths[1] + 1)
        x = rng.normal(size=(length, 4)) * (rng.random((length, 4)) < 0.7)
        X.append(sp.csr_matrix(x) if sparse else x)
        Y.append(rng.integers(0, n_labels, size=length))
    return X, Y


CHAIN_OPTIONS = {
    "plain": {},
    "start, end and bias": {"start_end": True, "bias": True},
    "no transitions, weighted loss": {"transitions": False, "label_weights": [1.0, 2.5, 0.5]},
}


def summed_chain_problem(options, sparse, n_sequences, lengths=(1, 4), seed=0):
    task = ChainTask(3, 4, **CHAIN_OPTIONS[options])
    return task, *task.check_data(*chains(n_sequences, 3, lengths, seed, sparse))


def summed_multiclass_problem(sparse, n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)) * (rng.random((n, 5)) < 0.7)
    losses = rng.random((4, 4)) * (1 - np.eye(4))
    task = MulticlassTask(4, 5, loss_matrix=losses)
    return task, *task.check_data(sp.csr_matrix(X) if sparse else X, rng.integers(0, 4, n))


PROBLEMS = [
    *[("chain", options, sparse) for options in CHAIN_OPTIONS for sparse in (False, True)],
    ("multiclass", None, False),
    ("multiclass", None, True),
]


def make_problem(kind, options, sparse, n):
    if kind == "chain":
        return summed_chain_problem(options, sparse, n)
    return summed_multiclass_problem(sparse, n)


def compiled_summary(task, X, Y, w, n_jobs=1):
    return CompiledSummedPasses.prepare(task, X, Y, n_jobs=n_jobs).oracle_pass(w)


@pytest.mark.parametrize(("kind", "options", "sparse"), PROBLEMS)
def test_the_sums_are_those_of_the_outputs_found_by_enumeration(kind, options, sparse):
    task, X, Y = make_problem(kind, options, sparse, 12)
    w = np.random.default_rng(1).normal(size=task.size_joint_feature)
    summary = compiled_summary(task, X, Y, w)
    feature_sum, loss_sum, slack_sum = np.zeros(task.size_joint_feature), 0.0, 0.0
    for x, y in zip(X, Y, strict=True):
        # The base class's oracle enumerates every output of x.
        best = Task.loss_augmented_argmax(task, x, y, w)
        phi_true = np.ravel(sp.csr_matrix(task.joint_feature(x, y)).toarray())
        phi_best = np.ravel(sp.csr_matrix(task.joint_feature(x, best)).toarray())
        loss = task.loss(y, best)
        feature_sum += phi_best
        loss_sum += loss
        slack_sum += max(0.0, loss - (phi_true - phi_best) @ w)
    true_sum = column_sums(task.batch_joint_feature(X, Y))
    np.testing.assert_allclose(summary.difference_total, true_sum - feature_sum, atol=1e-12)
    assert summary.loss_total == pytest.approx(loss_sum, rel=1e-14)
    assert summary.slack_total == pytest.approx(slack_sum, rel=1e-12)
    assert summary.certified


@pytest.mark.parametrize(("kind", "options", "sparse"), PROBLEMS)
def test_the_sums_are_the_generic_pass_sums_and_the_same_bits_on_two_threads(
    kind, options, sparse
):
    task, X, Y = make_problem(kind, options, sparse, 300)
    w = np.random.default_rng(2).normal(size=task.size_joint_feature)
    true_features = task.batch_joint_feature(X, Y)
    generic = PassSummary.of(loss_augmented_pass(task, X, Y, true_features, w))
    serial = compiled_summary(task, X, Y, w)
    np.testing.assert_allclose(serial.difference_total, generic.difference_total, atol=1e-10)
    assert serial.loss_total == pytest.approx(generic.loss_total, rel=1e-14)
    assert serial.slack_total == pytest.approx(generic.slack_total, rel=1e-12)
    threaded = compiled_summary(task, X, Y, w, n_jobs=2)
    np.testing.assert_array_equal(threaded.difference_total, serial.difference_total)
    assert (threaded.loss_total, threaded.slack_total) == (serial.loss_total, serial.slack_total)


@pytest.mark.parametrize(
    "task",
    [
        ChainTask(3, 4, order=2),
        ChainTask(3, 4, forbidden_transitions=[(0, 1)]),
        GenericChain(3, 4),
        GenericMulticlass(4, 5),
    ],
    ids=["second order", "constrained", "chain subclass", "multiclass subclass"],
)
def test_tasks_the_kernel_would_not_stand_for_keep_the_generic_pass(task):
    if isinstance(task, ChainTask):
        X, Y = chains(3, 3, (2, 3), seed=0)
    else:
        X, Y = np.ones((3, 5)), np.array([0, 1, 2])
    assert task.summed_pass_kernel(X, Y) is None
    assert CompiledSummedPasses.prepare(task, X, Y) is None


class UnthreadedMulticlass(MulticlassTask):
    """A multiclass task whose ``n_jobs`` means joblib worker processes."""

    threaded_batches = False


@pytest.mark.parametrize(("n_jobs", "compiled"), [(1, True), (2, False)])
def test_an_unthreaded_task_makes_the_compiled_pass_on_one_job_only(n_jobs, compiled):
    task, X, Y = UnthreadedMulticlass(3, 2), np.eye(2)[[0, 1, 1]], np.array([0, 1, 2])
    prepared = CompiledSummedPasses.prepare(task, X, Y, n_jobs=n_jobs)
    assert (prepared is not None) == compiled


def test_scores_that_overflow_are_refused_as_by_the_generic_pass():
    task, X, Y = summed_chain_problem("plain", False, 5)
    w = np.full(task.size_joint_feature, 1e308)
    with pytest.raises(ValueError, match="overflow"):
        compiled_summary(task, X, Y, w)


@pytest.mark.parametrize("slack_norm", [1, 2])
@pytest.mark.parametrize("kind", ["chain", "multiclass"])
def test_1_slack_takes_the_generic_iterates_and_the_same_on_two_threads(kind, slack_norm):
    if kind == "chain":
        task, X, Y = summed_chain_problem("start, end and bias", False, 150, lengths=(2, 8))
        generic_task = GenericChain(3, 4, start_end=True, bias=True)
    else:
        task, X, Y = summed_multiclass_problem(False, 300)
        generic_task = GenericMulticlass(4, 5, loss_matrix=task.loss_matrix)
    runs = {}
    for name, used, n_jobs in [("compiled", task, 1), ("generic", generic_task, 1),
                               ("threads", task, 2)]:
        *_, state = one_slack(used, X, Y, 0.1, tol=1e-4, slack_norm=slack_norm, n_jobs=n_jobs)
        assert state.converged
        # The compiled pass returns only the sums, the generic one every example's output.
        assert isinstance(state.dual_state.oracle, PassSummary) == (used is task)
        runs[name] = state
    assert len(runs["compiled"].history) == len(runs["generic"].history)
    scale = np.abs(runs["generic"].w).max()
    np.testing.assert_allclose(runs["compiled"].w, runs["generic"].w, atol=1e-8 * scale)
    assert len(runs["threads"].history) == len(runs["compiled"].history)
    np.testing.assert_array_equal(runs["threads"].w, runs["compiled"].w)


def test_1_slack_with_the_compiled_chain_pass_reaches_the_full_qp_optimum():
    task, X, Y = summed_chain_problem("start, end and bias", False, 8, lengths=(1, 3))
    w_star, _, objective_star = solve_full_primal(task, X, Y, 1.0)
    *_, state = one_slack(task, X, Y, 1.0, tol=1e-8)
    assert isinstance(state.dual_state.oracle, PassSummary)
    assert state.history[-1]["primal"] == pytest.approx(objective_star, rel=1e-6)
    np.testing.assert_allclose(state.w, w_star, atol=1e-4 * max(1.0, np.abs(w_star).max()))
