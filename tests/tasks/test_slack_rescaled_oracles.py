"""The slack-rescaled oracles: the chain's loss-indexed Viterbi, the multiclass closed form and
the base class's enumeration, against the definition; check_task on the optional oracle."""

import numpy as np
import pytest

from structsvm import StructuredSVM, Task, check_task
from tasks import ChainTask, MulticlassTask
from tests.references import brute_force_slack_rescaled_argmax


def random_chains(task, n, seed, longest=4):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(rng.integers(1, longest + 1), task.n_features)) for _ in range(n)]
    Y = [rng.integers(0, task.n_labels, len(x)) for x in X]
    return X, Y


def assert_maximises_like_enumeration(task, X, Y, seed):
    rng = np.random.default_rng(seed)
    for scale in (0.0, 0.1, 1.0, 10.0):
        w = scale * rng.normal(size=task.size_joint_feature)
        batch = task.batch_slack_rescaled_argmax(X, Y, w)
        for x, y, from_batch in zip(X, Y, batch):
            output = task.slack_rescaled_argmax(x, y, w)
            assert task.outputs_equal(output, from_batch)
            _, best = brute_force_slack_rescaled_argmax(task, x, y, w)
            value = task.loss(y, output) * (1 - task.score(x, y, w) + task.score(x, output, w))
            assert value == pytest.approx(best, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(
    "label_weights",
    [None, np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.5, 0.5]), np.array([0.3, 0.0, 1.1])],
)
@pytest.mark.parametrize("start_end", [False, True])
def test_chain_oracle_maximises_the_slack_rescaled_value(label_weights, start_end):
    task = ChainTask(3, 2, start_end=start_end, bias=True, label_weights=label_weights)
    X, Y = random_chains(task, 12, seed=0)
    assert_maximises_like_enumeration(task, X, Y, seed=1)
    assert check_task(task, X, Y).ok


def test_chain_oracle_breaks_ties_towards_the_smallest_loss_then_lexicographically():
    task = ChainTask(3, 1)
    x, y = np.zeros((3, 1)), np.array([0, 1, 0])
    # At w = 0 the value is the loss: every labelling wrong at all three positions ties, and
    # the lexicographically smallest of them is returned.
    np.testing.assert_array_equal(
        task.slack_rescaled_argmax(x, y, np.zeros(task.size_joint_feature)), [1, 0, 1]
    )
    # With a bias of 1 for the true label every labelling has value 0: the smallest loss wins,
    # the true labelling, although enumeration would meet [0] first.
    task = ChainTask(3, 1, transitions=False, bias=True)
    w = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(task.slack_rescaled_argmax(np.zeros((1, 1)), [2], w), [2])


def test_multiclass_closed_form_maximises_the_slack_rescaled_value():
    rng = np.random.default_rng(0)
    losses = rng.integers(1, 4, size=(4, 4)).astype(float)
    np.fill_diagonal(losses, 0.0)
    task = MulticlassTask(4, 3, loss_matrix=losses)
    X, Y = rng.normal(size=(15, 3)), rng.integers(0, 4, 15)
    assert_maximises_like_enumeration(task, X, Y, seed=2)
    assert check_task(task, X, Y).ok


class MarginOracleAsSlackOracle(MulticlassTask):
    """A wrong slack-rescaled oracle: it answers with the loss-augmented one."""

    def slack_rescaled_argmax(self, x, y_true, w):
        return self.loss_augmented_argmax(x, y_true, w)

    def batch_slack_rescaled_argmax(self, X, Y_true, w):
        return self.batch_loss_augmented_argmax(X, Y_true, w)


def test_check_task_reports_a_wrong_slack_rescaled_oracle():
    rng = np.random.default_rng(0)
    losses = np.array([[0.0, 1.0, 5.0], [1.0, 0.0, 1.0], [5.0, 1.0, 0.0]])
    task = MarginOracleAsSlackOracle(3, 2, loss_matrix=losses)
    X, Y = rng.normal(size=(10, 2)), rng.integers(0, 3, 10)
    report = check_task(task, X, Y)
    assert any(
        p.kind == "not_a_maximiser" and p.method == "slack_rescaled_argmax"
        for p in report.problems
    )
    assert all(p.method == "slack_rescaled_argmax" for p in report.problems)


class ScoresOnly(Task):
    """A task with the two required oracles and no enumeration of its outputs."""

    size_joint_feature = 2

    def joint_feature(self, x, y):
        return np.array([x * y, 1.0 - y])

    def loss(self, y_true, y):
        return float(y_true != y)

    def argmax(self, x, w):
        return int(x * w[0] - w[1] > 0)

    def loss_augmented_argmax(self, x, y_true, w):
        values = [self.loss(y_true, y) + self.score(x, y, w) for y in (0, 1)]
        return int(np.argmax(values))


def test_slack_rescaling_without_an_oracle_or_outputs_names_the_method_to_implement():
    with pytest.raises(NotImplementedError, match=r"implement slack_rescaled_argmax\(x, y_true"):
        StructuredSVM(ScoresOnly(), rescaling="slack").fit([1.0, -1.0], [1, 0])


def test_chain_oracle_keeps_forbidden_transitions_and_labels():
    task = ChainTask(
        3,
        2,
        start_end=True,
        forbidden_transitions=[(0, 2), (2, 2)],
        forbidden_first=[1],
        forbidden_last=[0],
    )
    X, Y = random_chains(task, 12, seed=2)
    Y = [next(iter(task.outputs(x))) for x in X]  # true labellings that keep the constraints
    assert_maximises_like_enumeration(task, X, Y, seed=3)


def test_second_order_chains_enumerate_their_slack_rescaled_labellings():
    task = ChainTask(2, 2, order=2, forbidden_transitions=[(1, 1)])
    X, Y = random_chains(task, 6, seed=4)
    Y = [next(iter(task.outputs(x))) for x in X]
    assert_maximises_like_enumeration(task, X, Y, seed=5)
