"""check_task: shipped tasks pass; every kind of broken task is caught and reported clearly."""

import itertools

import numpy as np
import pytest
import scipy.sparse

import structsvm
from structsvm import Task, TaskCheckReport, TaskContractError, check_task
from tasks import ChainTask, MulticlassTask

N_CLASSES, N_FEATURES = 3, 2


class SmallTask(Task):
    """Three ordered classes; φ(x, y) puts x in block y; Δ = |y_true − y|. A correct task."""

    size_joint_feature = N_CLASSES * N_FEATURES

    def joint_feature(self, x, y):
        phi = np.zeros((self.size_joint_feature // N_FEATURES, N_FEATURES))
        phi[y] = x
        return phi.ravel()

    def loss(self, y_true, y):
        return float(abs(y_true - y))

    def max_loss(self, y_true):
        return float(max(y_true, N_CLASSES - 1 - y_true))

    def outputs(self, x):
        return range(N_CLASSES)

    def class_scores(self, x, w):
        return w.reshape(-1, N_FEATURES) @ x

    def argmax(self, x, w):
        return int(np.argmax(self.class_scores(x, w)))

    def loss_augmented_argmax(self, x, y_true, w):
        losses = np.abs(y_true - np.arange(N_CLASSES))
        return int(np.argmax(self.class_scores(x, w)[:N_CLASSES] + losses))


def small_data():
    X = np.random.default_rng(0).normal(size=(6, N_FEATURES))
    return X, np.array([0, 1, 2, 0, 1, 2])


def kinds(report):
    return {(problem.kind, problem.method) for problem in report.problems}


def messages(report, kind):
    return [problem.message for problem in report.problems if problem.kind == kind]


# ------------------------------------------------------------------------ correct tasks pass
def test_a_correct_task_passes_with_its_outputs_enumerated():
    report = check_task(SmallTask(), *small_data())
    assert report.ok, str(report)
    assert report.n_examples == 6
    assert report.n_enumerated == 6
    assert report.n_probes == 10


@pytest.mark.parametrize(
    "loss_matrix", [None, np.abs(np.subtract.outer(np.arange(4), np.arange(4))) ** 2]
)
def test_multiclass_task_passes(loss_matrix):
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(10, 3)), rng.integers(0, 4, 10)
    report = check_task(MulticlassTask(4, 3, loss_matrix=loss_matrix), X, Y)
    assert report.ok, str(report)
    assert report.n_enumerated == 10


@pytest.mark.parametrize(
    ("transitions", "start_end", "bias"), list(itertools.product([True, False], repeat=3))
)
def test_chain_task_passes_with_every_option(transitions, start_end, bias):
    rng = np.random.default_rng(2)
    task = ChainTask(3, 2, transitions, start_end, bias, label_weights=rng.uniform(0.5, 2.0, 3))
    X = [rng.normal(size=(length, 2)) for length in [1, 2, 3, 4, 4]]
    Y = [rng.integers(0, 3, len(x)) for x in X]
    report = check_task(task, X, Y)
    assert report.ok, str(report)
    assert report.n_enumerated == len(X)


def test_sparse_joint_feature_rows_are_accepted():
    class SparseRows(SmallTask):
        def joint_feature(self, x, y):
            return scipy.sparse.csr_matrix(super().joint_feature(x, y))

    assert check_task(SparseRows(), *small_data()).ok


# ------------------------------------------------------------------------ broken tasks are caught
class WrongLength(SmallTask):
    def joint_feature(self, x, y):
        return super().joint_feature(x, y)[:-1]


class NaNFeature(SmallTask):
    def joint_feature(self, x, y):
        phi = super().joint_feature(x, y)
        phi[0] = np.nan
        return phi


class IntegerFeature(SmallTask):
    def joint_feature(self, x, y):
        return super().joint_feature(x, y).astype(np.int64)


class NonzeroSelfLoss(SmallTask):
    def loss(self, y_true, y):
        return super().loss(y_true, y) + 0.5


class NegativeLoss(SmallTask):
    def loss(self, y_true, y):
        return -super().loss(y_true, y)


class SmallMaxLoss(SmallTask):
    def max_loss(self, y_true):
        return 1.0


class MaxLossNotANumber(SmallTask):
    def max_loss(self, y_true):
        return None


class SecondBest(SmallTask):
    def argmax(self, x, w):
        return int(np.argsort(self.class_scores(x, w), kind="stable")[-2])


class LossIgnoring(SmallTask):
    def loss_augmented_argmax(self, x, y_true, w):
        return self.argmax(x, w)


class RandomTies(SmallTask):
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def argmax(self, x, w):
        scores = self.class_scores(x, w)
        return int(self.rng.choice(np.flatnonzero(scores == scores.max())))


class RaisingOracle(SmallTask):
    def loss_augmented_argmax(self, x, y_true, w):
        raise RuntimeError("solver failed")


class ExtraClass(SmallTask):
    """φ has room for a fourth class that outputs(x) does not list, and argmax returns it."""

    size_joint_feature = (N_CLASSES + 1) * N_FEATURES


@pytest.mark.parametrize(
    ("task", "kind", "method", "phrase"),
    [
        (WrongLength(), "invalid_joint_feature", "joint_feature", "length 5, expected"),
        (NaNFeature(), "invalid_joint_feature", "joint_feature", "NaN"),
        (
            IntegerFeature(),
            "invalid_joint_feature",
            "joint_feature",
            "dtype int64, expected floats",
        ),
        (NonzeroSelfLoss(), "nonzero_self_loss", "loss", "must be 0"),
        (NegativeLoss(), "invalid_loss", "loss", "expected a loss >= 0"),
        (SmallMaxLoss(), "max_loss_too_small", "max_loss", "has loss 2"),
        (MaxLossNotANumber(), "invalid_loss", "max_loss", "returned None, expected a float"),
        (SecondBest(), "not_a_maximiser", "argmax", "w·φ(x, y)"),
        (RandomTies(), "nondeterministic", "argmax", "when called again"),
        (RaisingOracle(), "exception", "loss_augmented_argmax", "RuntimeError: solver failed"),
        (ExtraClass(), "not_in_outputs", "argmax", "which is not among outputs(X["),
    ],
)
def test_broken_task_is_caught(task, kind, method, phrase):
    report = check_task(task, *small_data())
    assert (kind, method) in kinds(report), str(report)
    assert any(phrase in message for message in messages(report, kind)), str(report)
    assert not report.ok


def test_loss_ignoring_oracle_is_caught_by_enumeration():
    report = check_task(LossIgnoring(), *small_data())
    assert kinds(report) == {("not_a_maximiser", "loss_augmented_argmax")}
    assert all("enumerating outputs(x)" in m for m in messages(report, "not_a_maximiser"))


def test_loss_ignoring_oracle_is_caught_without_enumeration_by_outputs_seen():
    class LossIgnoringNoOutputs(LossIgnoring):
        outputs = Task.outputs

    report = check_task(LossIgnoringNoOutputs(), *small_data())
    assert report.n_enumerated == 0
    assert kinds(report) == {("not_a_maximiser", "loss_augmented_argmax")}
    found = messages(report, "not_a_maximiser")
    assert all("comparing with the outputs seen finds" in message for message in found)


def test_a_correct_task_without_outputs_passes():
    class NoOutputs(SmallTask):
        outputs = Task.outputs

    report = check_task(NoOutputs(), *small_data())
    assert report.ok, str(report)
    assert report.n_enumerated == 0


def test_a_nonmaximising_chain_oracle_is_caught():
    class ShiftedViterbi(ChainTask):
        def batch_argmax(self, X, w):
            return [(y + 1) % self.n_labels for y in super().batch_argmax(X, w)]

    rng = np.random.default_rng(3)
    X = [rng.normal(size=(3, 2)) for _ in range(4)]
    Y = [rng.integers(0, 3, 3) for _ in X]
    report = check_task(ShiftedViterbi(3, 2), X, Y)
    assert ("not_a_maximiser", "argmax") in kinds(report), str(report)


@pytest.mark.parametrize(
    ("method", "break_result"),
    [
        ("batch_joint_feature", lambda rows: -rows),
        ("batch_loss", lambda losses: 2 * losses + 1),
        ("batch_score", lambda scores: scores + 1),
        ("batch_argmax", lambda outputs: [(y + 1) % N_CLASSES for y in outputs]),
        ("batch_loss_augmented_argmax", lambda outputs: [(y + 1) % N_CLASSES for y in outputs]),
    ],
)
def test_batch_method_disagreeing_with_the_single_one_is_caught(method, break_result):
    def broken(self, *args):
        return break_result(getattr(SmallTask, method)(self, *args))

    task = type("BrokenBatch", (SmallTask,), {method: broken})()
    report = check_task(task, *small_data())
    assert ("batch_mismatch", method) in kinds(report), str(report)
    assert {problem.kind for problem in report.problems} == {"batch_mismatch"}
    single = method.removeprefix("batch_")
    assert f"disagrees with {single}" in messages(report, "batch_mismatch")[0]


def test_batch_result_of_the_wrong_shape_is_caught():
    class ShortBatch(SmallTask):
        def batch_loss(self, Y_true, Y):
            return super().batch_loss(Y_true, Y)[:-1]

    report = check_task(ShortBatch(), *small_data())
    assert kinds(report) == {("batch_mismatch", "batch_loss")}
    assert "shape (5,), expected (6,)" in messages(report, "batch_mismatch")[0]


def test_invalid_size_is_reported_and_weight_free_checks_still_run():
    class ZeroSize(NonzeroSelfLoss):
        size_joint_feature = 0

    report = check_task(ZeroSize(), *small_data())
    assert ("invalid_size_joint_feature", "size_joint_feature") in kinds(report)
    assert ("nonzero_self_loss", "loss") in kinds(report)
    assert report.n_probes == 0


def test_a_task_implementing_nothing_is_reported_not_crashed_on():
    class Empty(Task):
        pass

    report = check_task(Empty(), *small_data())
    missing_size = ("invalid_size_joint_feature", "size_joint_feature")
    assert {missing_size, ("exception", "joint_feature")} <= kinds(report)
    assert "Empty has no size_joint_feature: set it" in messages(
        report, "invalid_size_joint_feature"
    )[0]


def test_a_task_returning_none_everywhere_is_reported_not_crashed_on():
    def none(self, *args):
        return None

    methods = [
        "joint_feature", "loss", "max_loss", "argmax", "loss_augmented_argmax", "check_data",
        "batch_joint_feature", "batch_loss", "batch_argmax", "batch_loss_augmented_argmax",
        "batch_score",
    ]  # fmt: skip
    task = type("Nones", (SmallTask,), dict.fromkeys(methods, none))()
    report = check_task(task, *small_data())
    assert {
        ("data_rejected", "check_data"),
        ("invalid_joint_feature", "joint_feature"),
        ("invalid_loss", "loss"),
        ("batch_mismatch", "batch_joint_feature"),
        ("batch_mismatch", "batch_argmax"),
    } <= kinds(report), str(report)


def test_data_the_task_rejects_is_reported():
    X, Y = small_data()
    X[2, 0] = np.nan
    report = check_task(MulticlassTask(N_CLASSES, N_FEATURES), X, Y)
    assert ("data_rejected", "check_data") in kinds(report)
    assert (
        "check_data(X, Y) raised ValueError: X contains NaN" in messages(report, "data_rejected")[0]
    )


# ------------------------------------------------------------------------ reporting
class SeveralProblems(NonzeroSelfLoss):
    def argmax(self, x, w):
        raise ValueError("no decoder")

    def batch_loss(self, Y_true, Y):
        return super().batch_loss(Y_true, Y) * 3


def test_every_problem_is_reported_at_once():
    report = check_task(SeveralProblems(), *small_data())
    assert {
        ("nonzero_self_loss", "loss"),
        ("exception", "argmax"),
        ("exception", "batch_argmax"),
        ("batch_mismatch", "batch_loss"),
    } <= kinds(report)
    flagged = {p.index for p in report.problems if p.kind == "nonzero_self_loss"}
    assert flagged == set(range(6))


def test_problems_are_reported_once_per_kind_method_and_example():
    report = check_task(SeveralProblems(), *small_data())
    keys = [(p.kind, p.method, p.index) for p in report.problems]
    assert len(keys) == len(set(keys))


def test_str_shows_a_problem_once_with_the_other_examples_it_occurs_on():
    report = check_task(SeveralProblems(), *small_data())
    lines = str(report).splitlines()
    assert lines[0].startswith(f"check_task(SeveralProblems): {len(report.problems)} problems")
    first = lines.index(
        "  [exception] argmax, example 0: argmax(X[0], w) at w = 0 raised ValueError: no decoder"
    )
    assert lines[first + 1] == "    (also on examples 1, 2, 3, 4, 5)"
    assert sum("[exception] argmax," in line for line in lines) == 1


def test_format_can_list_every_problem_on_every_example():
    report = check_task(SeveralProblems(), *small_data())
    lines = report.format(every_example=True).splitlines()
    assert lines[1:] == [f"  {problem}" for problem in report.problems]


def test_str_of_a_passing_report_says_so():
    text = str(check_task(SmallTask(), *small_data()))
    assert text == (
        "check_task(SmallTask): no problems "
        "(6 examples, 10 weight probes, outputs enumerated for 6 examples)"
    )


def test_raise_on_error_lists_every_problem():
    with pytest.raises(TaskContractError) as caught:
        check_task(SeveralProblems(), *small_data(), raise_on_error=True)
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value.report, TaskCheckReport)
    for problem in caught.value.report.problems:
        assert str(problem) in str(caught.value)


def test_raise_on_error_returns_the_report_of_a_correct_task():
    assert check_task(SmallTask(), *small_data(), raise_on_error=True).ok


def test_examples_and_probes_are_limited_as_asked():
    report = check_task(SmallTask(), *small_data(), max_examples=2, n_probes=1)
    assert (report.n_examples, report.n_probes) == (2, 4)


def test_outputs_beyond_max_enumerate_are_not_enumerated():
    report = check_task(SmallTask(), *small_data(), max_enumerate=2)
    assert report.ok
    assert report.n_enumerated == 0


def test_probes_are_seeded():
    first = check_task(SecondBest(), *small_data(), random_state=5)
    again = check_task(SecondBest(), *small_data(), random_state=5)
    assert first.problems == again.problems


@pytest.mark.parametrize(("option", "value"), [("max_examples", 0), ("n_probes", -1), ("tol", 0.0)])
def test_rejects_bad_options(option, value):
    with pytest.raises(ValueError, match=option):
        check_task(SmallTask(), *small_data(), **{option: value})


def test_exported_from_the_package():
    assert structsvm.check_task is check_task
    assert {"check_task", "TaskContractError", "TaskCheckReport", "TaskProblem"} <= set(
        structsvm.__all__
    )


def test_a_fit_refuses_a_task_without_size_joint_feature_by_naming_it():
    from structsvm import StructuredPerceptron, StructuredSVM

    class NoSize(Task):
        def joint_feature(self, x, y):
            return np.r_[x, float(y)]

        def loss(self, y_true, y):
            return float(y_true != y)

        def outputs(self, x):
            return [0, 1]

    X, Y = np.eye(2), np.array([0, 1])
    for model in (StructuredSVM(NoSize()), StructuredPerceptron(NoSize())):
        with pytest.raises(TypeError, match="NoSize has no size_joint_feature: set it"):
            model.fit(X, Y)


def test_a_wrong_length_of_w_is_named_after_the_joint_feature_vector():
    from tasks import ChainTask

    task = ChainTask(3, 2)
    with pytest.raises(ValueError, match=r"w has length 5, expected size_joint_feature=15"):
        task.argmax(np.zeros((4, 2)), np.zeros(5))


def test_the_base_check_data_takes_outputs_of_different_lengths():
    X = [np.zeros((2, 1)), np.zeros((3, 1))]
    Y = [np.zeros(2, dtype=int), np.zeros(3, dtype=int)]
    assert Task.check_data(Task(), X, Y) == (X, Y)
    with pytest.raises(ValueError, match="X has 2 examples, Y has 1"):
        Task.check_data(Task(), X, Y[:1])
