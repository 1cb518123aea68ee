"""The public API on generated bad and odd inputs: an error naming the argument, or a sound result.

Every estimator, task, kernel and helper is called with inputs drawn by hypothesis
(:mod:`tests.fuzzing`): wrong types, shapes and dtypes, NaN and infinity, empty and ragged data,
huge and tiny values, labels out of range or of the wrong set, mismatched lengths, invalid and
extreme hyper-parameters, objects that are not tasks, unpicklable tasks with ``n_jobs``, missing
and damaged files, malformed text. Each call must refuse an input that can only be wrong with a
ValueError or TypeError naming the argument, and accept an ordinary input in another form
(integers, nested lists, float32...) with the result it gives on the ordinary one. Any other
exception, a hang (the timeout) or an unsound result (NaN weights, labels never seen) fails.
"""

from __future__ import annotations

import os
import pickle
import tempfile
import threading
from functools import cache
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from structsvm import (
    AllSubsequencesKernel,
    BinarySVM,
    KernelMulticlassSVM,
    KernelPerceptron,
    KernelRidge,
    LinearKernel,
    MulticlassSVM,
    NormalizedKernel,
    ParallelTask,
    PerformanceSVM,
    PolynomialKernel,
    RankingSVM,
    RBFKernel,
    SigmoidKernel,
    StructuredPerceptron,
    StructuredSVM,
    Task,
    check_mercer,
    check_task,
    feature_space_distance,
    gram_matrix,
    mean_ndcg,
    mistake_bound,
    pairwise_accuracy,
)
from tasks import (
    ChainTask,
    ChunkingFeatures,
    MulticlassTask,
    MultivariateTask,
    RankingTask,
    TagEncoder,
    chunk_scores,
    extract_chunks,
    read_conll,
    split_sequences,
)
from tests.fuzzing import (
    ACCEPT,
    BAD_FILE,
    BAD_NUMBER,
    BAD_TEXT,
    COMPLEX,
    EITHER,
    FUZZ,
    HUGE,
    LABEL_SET,
    NO_COLUMNS,
    NO_EXAMPLES,
    NO_ROWS,
    NON_FINITE,
    NON_NUMERIC_TEXT,
    NONE_ENTRY,
    NOT_INTEGER,
    ODD_NUMBER,
    ODD_TASK,
    OTHER_CONTAINER,
    OTHER_DTYPE,
    REFUSE,
    TEXT,
    TINY,
    UNPICKLABLE,
    WRONG_LENGTH,
    WRONG_NDIM,
    WRONG_TYPE,
    WRONG_WIDTH,
    Case,
    assert_finite,
    attempt,
    is_integer,
    is_real,
    matrices,
    odd_class_labels,
    odd_example_lists,
    odd_label_vectors,
    odd_labellings,
    odd_matrices,
    odd_numbers,
    odd_objects,
)

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.DataConversionWarning"),
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
]


def _integer_matrix(seed: int, rows: int, columns: int) -> np.ndarray:
    """An ordinary (rows, columns) array of small integers, the same for the same seed."""
    return np.random.default_rng(seed).integers(-3, 4, size=(rows, columns)).astype(np.float64)


# ============================================================================ flat estimators
FLAT_CLASSIFIERS = {
    "MulticlassSVM(n-slack)": lambda: MulticlassSVM(solver="n-slack", max_iter=2),
    "MulticlassSVM(1-slack)": lambda: MulticlassSVM(solver="1-slack", max_iter=2),
    "MulticlassSVM(bcfw)": lambda: MulticlassSVM(solver="bcfw", max_iter=2, random_state=0),
    "KernelMulticlassSVM": lambda: KernelMulticlassSVM(max_iter=2),
    "BinarySVM": lambda: BinarySVM(C=1.0),
    "KernelPerceptron": lambda: KernelPerceptron(max_epochs=3, random_state=0),
    "PerformanceSVM": lambda: PerformanceSVM(max_iter=2),
}
BINARY = {"BinarySVM", "KernelPerceptron", "PerformanceSVM"}
FLAT_REGRESSORS = {
    "KernelRidge": lambda: KernelRidge(),
    "RankingSVM": lambda: RankingSVM(max_iter=2),
}
FLAT = {**FLAT_CLASSIFIERS, **FLAT_REGRESSORS}


def _targets(name: str, n: int) -> np.ndarray:
    """Ordinary targets of n examples: two classes, or grades 0..2 for the regressors."""
    return np.arange(n) % (3 if name in FLAT_REGRESSORS else 2)


def _sound_flat(name: str, X: np.ndarray):
    """Return the check of a fitted flat estimator: finite scores, predictions among its classes."""

    def sound(model: Any) -> None:
        prediction = model.predict(X)
        if name in FLAT_REGRESSORS:
            assert_finite(prediction, f"{name}'s prediction")
            return
        assert set(np.asarray(prediction).tolist()) <= set(model.classes_.tolist())
        assert_finite(model.decision_function(X), f"{name}'s decision function")

    return sound


def _observe_flat(name: str, X: np.ndarray):
    def observe(model: Any) -> Any:
        return model.predict(X) if name in FLAT_REGRESSORS else model.decision_function(X)

    return observe


@pytest.mark.parametrize("name", FLAT)
@FUZZ
@given(data=st.data())
def test_flat_estimators_refuse_malformed_X_by_name_and_fit_any_form_of_good_X(name, data):
    X = data.draw(matrices(), label="X")
    y = _targets(name, len(X))
    case = data.draw(odd_matrices(X), label="case")
    attempt(
        lambda X_odd: FLAT[name]().fit(X_odd, y),
        case,
        ("X",),
        sound=_sound_flat(name, X),
        observe=_observe_flat(name, X),
    )


@st.composite
def odd_targets(draw: st.DrawFn, y: np.ndarray) -> Case:
    """Odd real targets or grades: any finite values are fine, NaN and text are not."""
    n = len(y)
    i = draw(st.integers(0, n - 1))
    nan = y.astype(float)
    nan[i] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    text = y.astype(object)
    text[i] = draw(NON_NUMERIC_TEXT)
    return draw(
        st.sampled_from(
            [
                draw(odd_objects()),
                Case(NON_FINITE, nan, REFUSE),
                Case(TEXT, text, REFUSE),
                Case(WRONG_LENGTH, y[: draw(st.integers(0, n - 1))], REFUSE),
                Case(WRONG_LENGTH, np.concatenate([y, y[:1]]), REFUSE),
                Case(NO_ROWS, y[:0], REFUSE),
                Case(HUGE, y * 1e300, EITHER),
                Case(TINY, y * 1e-300, ACCEPT),
                Case(LABEL_SET, np.zeros(n), ACCEPT),
                Case(OTHER_DTYPE, y.astype(np.float32), ACCEPT, y),
                Case(OTHER_CONTAINER, y.tolist(), ACCEPT, y),
            ]
        )
    )


@pytest.mark.parametrize("name", FLAT)
@FUZZ
@given(data=st.data())
def test_flat_estimators_refuse_malformed_targets_by_name(name, data):
    X = data.draw(matrices(), label="X")
    y = _targets(name, len(X))
    if name in FLAT_REGRESSORS:
        case = data.draw(odd_targets(y), label="case")
    else:
        case = data.draw(odd_class_labels(y, binary=name in BINARY), label="case")
    attempt(
        lambda y_odd: FLAT[name]().fit(X, y_odd),
        case,
        ("y", "Y"),
        sound=_sound_flat(name, X),
        observe=_observe_flat(name, X),
    )


@cache
def _fitted_flat(name: str) -> tuple[Any, np.ndarray]:
    X = _integer_matrix(0, 6, 3)
    return FLAT[name]().fit(X, _targets(name, 6)), X


@pytest.mark.parametrize("name", FLAT)
@FUZZ
@given(data=st.data())
def test_flat_estimators_predict_refuses_malformed_X_by_name(name, data):
    model, X = _fitted_flat(name)
    case = data.draw(odd_matrices(X, {WRONG_WIDTH: REFUSE}), label="case")

    def sound(prediction: Any) -> None:
        if name in FLAT_REGRESSORS:
            assert_finite(prediction, "the prediction")
        else:
            assert set(np.asarray(prediction).tolist()) <= set(model.classes_.tolist())

    attempt(model.predict, case, ("X",), sound=sound)


@pytest.mark.parametrize("name", FLAT)
def test_flat_estimators_say_they_are_not_fitted(name):
    with pytest.raises(NotFittedError):
        FLAT[name]().predict(np.zeros((2, 3)))


POSITIVE_REALS = {
    "MulticlassSVM(n-slack)": ("C", "tol"),
    "KernelMulticlassSVM": ("C", "tol", "gamma"),
    "BinarySVM": ("C", "tol", "gamma"),
    "KernelPerceptron": ("gamma",),
    "KernelRidge": ("alpha", "gamma"),
    "PerformanceSVM": ("C", "tol"),
    "RankingSVM": ("C", "tol"),
}


@pytest.mark.parametrize("name", POSITIVE_REALS)
@FUZZ
@given(data=st.data())
def test_flat_estimators_take_any_positive_real_and_refuse_other_numbers_by_name(name, data):
    parameter = data.draw(st.sampled_from(POSITIVE_REALS[name]), label="parameter")
    value = data.draw(odd_numbers(), label="value")
    valid = is_real(value) and value > 0
    case = Case(ODD_NUMBER if valid else BAD_NUMBER, value, EITHER if valid else REFUSE)
    X = _integer_matrix(1, 6, 3)
    extra = {"kernel": "rbf"} if parameter == "gamma" else {}
    attempt(
        lambda v: FLAT[name]().set_params(**extra, **{parameter: v}).fit(X, _targets(name, 6)),
        case,
        (parameter, "X"),
        sound=_sound_flat(name, X),
    )


@FUZZ
@given(data=st.data())
def test_ranking_svm_refuses_malformed_query_ids_by_name(data):
    X = data.draw(matrices(), label="X")
    n = len(X)
    y = np.arange(n) % 3
    qid = np.arange(n) // 2
    case = data.draw(
        st.sampled_from(
            [
                data.draw(odd_objects().filter(lambda c: c.value is not None)),
                Case(WRONG_LENGTH, qid[:-1], REFUSE),
                Case(WRONG_NDIM, qid[:, None], REFUSE),
                Case(NON_FINITE, np.where(qid == 0, np.nan, qid), REFUSE),
                Case(OTHER_DTYPE, qid.astype(str), ACCEPT, qid),
                Case(OTHER_DTYPE, qid * 1e300, ACCEPT, qid),
                Case(OTHER_CONTAINER, qid.tolist(), ACCEPT, qid),
            ]
        ),
        label="case",
    )
    attempt(
        lambda q: RankingSVM(max_iter=2).fit(X, y, q),
        case,
        ("qid",),
        sound=lambda model: assert_finite(model.coef_, "coef_"),
        observe=lambda model: model.coef_,
    )


# ============================================================================ structured learners
LEARNERS = {
    "n-slack": lambda task: StructuredSVM(task, max_iter=2),
    "1-slack": lambda task: StructuredSVM(task, solver="1-slack", max_iter=2),
    "bcfw": lambda task: StructuredSVM(task, solver="bcfw", max_iter=2, random_state=0),
    "perceptron": lambda task: StructuredPerceptron(task, max_epochs=2, random_state=0),
}


@st.composite
def multiclass_problems(draw: st.DrawFn):
    X = draw(matrices())
    return MulticlassTask(3, X.shape[1]), X, np.arange(len(X)) % 3


@st.composite
def chain_problems(draw: st.DrawFn, sparse: bool = False):
    d = draw(st.integers(1, 3))
    lengths = draw(st.lists(st.integers(1, 4), min_size=2, max_size=3))
    seed = draw(st.integers(0, 2**16))
    X = [_integer_matrix(seed + k, length, d) for k, length in enumerate(lengths)]
    Y = [np.arange(length) % 2 for length in lengths]
    return ChainTask(2, d), [sp.csr_matrix(x) for x in X] if sparse else X, Y


@st.composite
def ranking_problems(draw: st.DrawFn, distinct_grades: bool = False):
    d = draw(st.integers(1, 3))
    sizes = draw(st.lists(st.integers(2, 4), min_size=2, max_size=3))
    seed = draw(st.integers(0, 2**16))
    X = [_integer_matrix(seed + k, size, d) for k, size in enumerate(sizes)]
    Y = [(np.arange(size) % (size if distinct_grades else 3)).astype(float) for size in sizes]
    return RankingTask(d), X, Y


@st.composite
def multivariate_problems(draw: st.DrawFn):
    X = draw(matrices())
    loss = draw(st.sampled_from(["f1", "prbep", "roc_area"]))
    return MultivariateTask(X.shape[1], loss), [X], [np.where(np.arange(len(X)) % 2, 1, -1)]


PROBLEMS = {
    "multiclass": multiclass_problems(),
    "chain": chain_problems(),
    "sparse chain": chain_problems(sparse=True),
    "ranking": ranking_problems(),
    "multivariate": multivariate_problems(),
}
LIST_X = {WRONG_WIDTH: REFUSE, NO_COLUMNS: REFUSE, NO_ROWS: REFUSE}
"""What a task does with an odd example: every width is fixed, every example has a row."""
ODD_X = {
    "multiclass": lambda X: odd_matrices(X, {WRONG_WIDTH: REFUSE, NO_COLUMNS: REFUSE}),
    "chain": lambda X: odd_example_lists(X, LIST_X),
    "sparse chain": lambda X: odd_example_lists(X, LIST_X),
    "ranking": lambda X: odd_example_lists(X, LIST_X),
    "multivariate": lambda X: odd_example_lists(X, LIST_X),
}


@st.composite
def odd_grade_lists(draw: st.DrawFn, Y: list[np.ndarray]) -> Case:
    """Odd relevance grades of queries: finite values of any size are grades, NaN is not."""
    k = draw(st.integers(0, len(Y) - 1))
    inner = draw(odd_targets(Y[k]))
    if draw(st.booleans()):
        return draw(
            st.sampled_from(
                [
                    draw(odd_objects()),
                    Case(WRONG_LENGTH, Y[:k], REFUSE),
                    Case(WRONG_LENGTH, [*Y, Y[k]], REFUSE),
                    Case(OTHER_CONTAINER, tuple(Y), ACCEPT, Y),
                ]
            )
        )
    same = inner.same_as
    if isinstance(same, np.ndarray):
        same = [*Y[:k], same, *Y[k + 1 :]]
    return Case(inner.category, [*Y[:k], inner.value, *Y[k + 1 :]], inner.expect, same)


@st.composite
def odd_sign_lists(draw: st.DrawFn, Y: list[np.ndarray]) -> Case:
    """Odd labellings of a data set: anything but −1 and +1, one per row, is refused."""
    y = Y[0]
    i = draw(st.integers(0, len(y) - 1))
    wrong = y.copy()
    wrong[i] = draw(st.sampled_from([0, 2, -2, 7]))
    nan = y.astype(float)
    nan[i] = np.nan
    return draw(
        st.sampled_from(
            [
                draw(odd_objects()),
                Case(NO_EXAMPLES, [], REFUSE),
                Case(LABEL_SET, [wrong], REFUSE),
                Case(LABEL_SET, [(y > 0).astype(int)], REFUSE),
                Case(NON_FINITE, [nan], REFUSE),
                Case(WRONG_LENGTH, [y[:-1]], REFUSE),
                Case(WRONG_LENGTH, [y, y], REFUSE),
                Case(WRONG_NDIM, [y[:, None]], REFUSE),
                Case(OTHER_DTYPE, [y.astype(float)], ACCEPT, Y),
                Case(OTHER_CONTAINER, [y.tolist()], ACCEPT, Y),
            ]
        )
    )


ODD_Y = {
    "multiclass": lambda Y: odd_label_vectors(Y, 3),
    "chain": lambda Y: odd_labellings(Y, 2),
    "sparse chain": lambda Y: odd_labellings(Y, 2),
    "ranking": odd_grade_lists,
    "multivariate": odd_sign_lists,
}


def _sound_structured(X: Any, Y: Any):
    """Return the check of a fitted learner: finite weights, predictions of finite loss."""

    def sound(model: Any) -> None:
        assert_finite(model.w_, "w_")
        task = model.task
        X_checked, Y_checked = task.check_data(X, Y)
        predictions = model.predict(X_checked)
        assert len(predictions) == len(Y_checked)
        for y_true, y in zip(Y_checked, predictions, strict=True):
            loss = task.loss(y_true, y)
            assert 0.0 <= loss <= task.max_loss(y_true) + 1e-9, f"loss {loss} of {y}"

    return sound


def _weights(model: Any) -> np.ndarray:
    return model.w_


@pytest.mark.parametrize("problem", PROBLEMS)
@FUZZ
@given(data=st.data())
def test_structured_learners_refuse_malformed_X_by_name(problem, data):
    task, X, Y = data.draw(PROBLEMS[problem], label="problem")
    learner = data.draw(st.sampled_from(sorted(LEARNERS)), label="learner")
    case = data.draw(ODD_X[problem](X), label="case")
    attempt(
        lambda X_odd: LEARNERS[learner](task).fit(X_odd, Y),
        case,
        ("X",),
        sound=_sound_structured(X, Y),
        observe=_weights,
    )


@pytest.mark.parametrize("problem", PROBLEMS)
@FUZZ
@given(data=st.data())
def test_structured_learners_refuse_malformed_outputs_by_name(problem, data):
    task, X, Y = data.draw(PROBLEMS[problem], label="problem")
    learner = data.draw(st.sampled_from(sorted(LEARNERS)), label="learner")
    case = data.draw(ODD_Y[problem](Y), label="case")
    attempt(
        lambda Y_odd: LEARNERS[learner](task).fit(X, Y_odd),
        case,
        ("Y", "y"),
        sound=_sound_structured(X, Y),
        observe=_weights,
    )


@pytest.mark.parametrize("problem", ["multiclass", "chain", "sparse chain", "ranking"])
@FUZZ
@given(data=st.data())
def test_structured_learners_predict_refuses_malformed_X_by_name(problem, data):
    task, X, Y = data.draw(PROBLEMS[problem], label="problem")
    learner = data.draw(st.sampled_from(sorted(LEARNERS)), label="learner")
    model = LEARNERS[learner](task).fit(X, Y)
    case = data.draw(ODD_X[problem](X), label="case")

    def sound(predictions: Any) -> None:
        assert len(predictions) == len(X)

    attempt(model.predict, case, ("X",), sound=sound)


class _DuckTask:
    """Has the methods of a task but is not a :class:`structsvm.Task`."""

    size_joint_feature = 6

    def joint_feature(self, x, y):
        return np.zeros(6)


class _SizedTask(MulticlassTask):
    """A multiclass task whose ``size_joint_feature`` is replaced by an odd value."""

    def __init__(self, size: Any) -> None:
        super().__init__(2, 3)
        self.size_joint_feature = size


NOT_TASKS = st.one_of(
    odd_objects(),
    st.sampled_from([MulticlassTask, _DuckTask(), _DuckTask, LinearKernel()]).map(
        lambda task: Case(ODD_TASK, task, REFUSE)
    ),
)
"""Objects that are not tasks at all."""
TASKS_OF_ODD_SIZE = st.one_of(
    st.sampled_from([0, -1, 2.5, "6", True, None, 6.0]), st.floats(), st.just(Task)
).map(lambda size: Case(ODD_TASK, Task() if size is Task else _SizedTask(size), REFUSE))
"""Tasks whose ``size_joint_feature`` is missing or not a positive integer."""


@FUZZ
@given(case=st.one_of(NOT_TASKS, TASKS_OF_ODD_SIZE), learner=st.sampled_from(sorted(LEARNERS)))
def test_structured_learners_refuse_what_is_not_a_task_by_name(case, learner):
    X, Y = _integer_matrix(0, 6, 3), np.arange(6) % 2
    attempt(lambda task: LEARNERS[learner](task).fit(X, Y), case, ("task", "size_joint_feature"))


@FUZZ
@given(
    parameter=st.sampled_from(["C", "tol", "max_iter", "inactive_window", "n_jobs"]),
    value=odd_numbers(),
    solver=st.sampled_from(["n-slack", "1-slack", "bcfw"]),
)
def test_structured_svm_refuses_invalid_numbers_by_name(parameter, value, solver):
    if parameter in ("C", "tol"):
        valid = is_real(value) and value > 0
    elif parameter == "n_jobs":
        valid = value is None or (is_integer(value) and value != 0)
    else:
        valid = value is None or (is_integer(value) and value >= 1)
    if valid and parameter in ("max_iter", "n_jobs") and value not in (None, 1, 2, 3):
        return  # a valid budget or number of workers; a large one only costs time
    if parameter == "inactive_window" and solver == "bcfw":
        valid = True  # bcfw keeps no working set: the parameter is not read
    task, X, Y = MulticlassTask(2, 3), _integer_matrix(2, 6, 3), np.arange(6) % 2
    case = Case(ODD_NUMBER if valid else BAD_NUMBER, value, EITHER if valid else REFUSE)
    params = {"solver": solver, "max_iter": 2, "random_state": 0}
    attempt(
        lambda v: StructuredSVM(task, **{**params, parameter: v}).fit(X, Y),
        case,
        (parameter,),
        sound=_sound_structured(X, Y),
    )


# ------------------------------------------------------------------- unpicklable tasks
class _TaskHolding(MulticlassTask):
    """A multiclass task that holds some other object, such as a lock or a lambda.

    Its batches are declared unthreaded and it offers no compiled oracle, as a task written in
    Python: ``n_jobs`` then means worker processes, which receive the task pickled. (A task on
    threads is never pickled.)
    """

    threaded_batches = False

    def __init__(self, held: Any) -> None:
        super().__init__(2, 3)
        self.held = held

    def compiled_oracle(self, X: Any, Y: Any) -> None:
        return None


def _generator():
    yield 1


UNPICKLABLE_HELD = {
    "a lock": threading.Lock,
    "a re-entrant lock": threading.RLock,
    "an event": threading.Event,
    "a generator": _generator,
}


@FUZZ
@given(
    held=st.sampled_from(sorted(UNPICKLABLE_HELD)),
    solver=st.sampled_from(["n-slack", "1-slack", "bcfw"]),
    n_jobs=st.sampled_from([2, 3]),
    during=st.sampled_from(["fit", "predict"]),
)
def test_an_unpicklable_task_with_several_jobs_is_refused_naming_task_and_n_jobs(
    held, solver, n_jobs, during
):
    X, Y = _integer_matrix(3, 8, 3), np.arange(8) % 2

    def run(task: Task) -> Any:
        model = StructuredSVM(task, solver=solver, max_iter=2, random_state=0)
        if during == "fit":
            return model.set_params(n_jobs=n_jobs).fit(X, Y)
        return model.fit(X, Y).set_params(n_jobs=n_jobs).predict(X)

    case = Case(UNPICKLABLE, _TaskHolding(UNPICKLABLE_HELD[held]()), REFUSE)
    with joblib.parallel_config(backend="loky"):
        for name in ("task", "n_jobs"):  # the message names both
            attempt(run, case, (name,))


def test_an_unpicklable_task_is_refused_by_parallel_task_naming_task_and_n_jobs():
    task = ParallelTask(_TaskHolding(threading.Lock()), n_jobs=2)
    X = _integer_matrix(4, 6, 3)
    case = Case(UNPICKLABLE, task, REFUSE)
    for name in ("task", "n_jobs"):  # the message names both
        attempt(lambda t: t.batch_argmax(X, np.zeros(6)), case, (name,))


def test_an_unpicklable_task_runs_on_threads_as_on_one_job():
    task = _TaskHolding(threading.Lock())
    X, Y = _integer_matrix(5, 8, 3), np.arange(8) % 2
    serial = StructuredSVM(task, max_iter=3, random_state=0).fit(X, Y)
    with joblib.parallel_config(backend="threading"):
        threaded = StructuredSVM(task, max_iter=3, n_jobs=2, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(threaded.w_, serial.w_)


def test_a_task_holding_a_lambda_trains_on_worker_processes_as_on_one_job():
    task = _TaskHolding(lambda x: x)
    X, Y = _integer_matrix(6, 8, 3), np.arange(8) % 2
    serial = StructuredSVM(task, max_iter=3, random_state=0).fit(X, Y)
    parallel = StructuredSVM(task, max_iter=3, n_jobs=2, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(parallel.w_, serial.w_)


# ============================================================================ tasks
TASK_SIZES = {
    "MulticlassTask": (MulticlassTask, {"n_classes": 2, "n_features": 2}),
    "ChainTask": (ChainTask, {"n_labels": 2, "n_features": 2}),
    "RankingTask": (RankingTask, {"n_features": 2}),
    "MultivariateTask": (MultivariateTask, {"n_features": 2}),
}


@FUZZ
@given(
    which=st.sampled_from(
        [f"{cls}.{name}" for cls, (_, sizes) in TASK_SIZES.items() for name in sizes]
    ),
    value=odd_numbers(),
)
def test_task_constructors_refuse_sizes_that_are_not_positive_integers_by_name(which, value):
    cls, name = which.split(".")
    task_class, sizes = TASK_SIZES[cls]
    smallest = 2 if name in ("n_classes", "n_labels") else 1
    valid = is_integer(value) and smallest <= value <= 10**6
    if is_integer(value) and value > 10**6:
        return  # valid, but a task of that size allocates its whole loss matrix
    case = Case(ODD_NUMBER if valid else BAD_NUMBER, value, ACCEPT if valid else REFUSE)
    attempt(lambda v: task_class(**{**sizes, name: v}), case, (name,))


@FUZZ
@given(data=st.data())
def test_task_constructors_refuse_malformed_loss_arguments_by_name(data):
    which = data.draw(
        st.sampled_from(["loss_matrix", "label_weights", "loss", "k", "flags"]), label="argument"
    )
    if which == "loss_matrix":
        base = 1 - np.eye(3)
        negative = base.copy()
        negative[0, 1] = -1.0
        case = data.draw(
            st.one_of(
                odd_matrices(base)
                .filter(lambda c: c.category not in (OTHER_DTYPE, OTHER_CONTAINER, HUGE, TINY))
                .filter(lambda c: c.value is not None)  # None: the 0/1 loss
                .map(lambda c: c.expecting(REFUSE)),
                st.sampled_from(
                    [
                        Case(LABEL_SET, negative, REFUSE),
                        Case(LABEL_SET, base + np.eye(3), REFUSE),  # a cost for the true class
                        Case(OTHER_DTYPE, base.astype(int), ACCEPT, base),
                        Case(OTHER_CONTAINER, base.tolist(), ACCEPT, base),
                    ]
                ),
            ),
            label="case",
        )
        attempt(
            lambda v: MulticlassTask(3, 2, loss_matrix=v),
            case,
            (which,),
            observe=lambda task: task.loss_matrix,
        )
    elif which == "label_weights":
        case = data.draw(
            odd_weights(3, low=0).filter(lambda c: c.value is not None), label="case"
        )  # None: the Hamming loss
        attempt(
            lambda v: ChainTask(3, 2, label_weights=v),
            case,
            (which,),
            observe=lambda task: task.label_weights,
        )
    elif which == "loss":
        value = data.draw(st.one_of(st.text(max_size=12), odd_numbers()), label="loss")
        valid = value in ("f1", "prbep", "roc_area")
        case = Case(ODD_NUMBER if valid else BAD_NUMBER, value, ACCEPT if valid else REFUSE)
        attempt(lambda v: MultivariateTask(2, v), case, ("loss",))
    elif which == "k":
        loss = data.draw(st.sampled_from(["precision@k", "recall@k"]), label="loss")
        value = data.draw(odd_numbers(), label="k")
        valid = is_integer(value) and value >= 1
        case = Case(ODD_NUMBER if valid else BAD_NUMBER, value, ACCEPT if valid else REFUSE)
        attempt(lambda v: MultivariateTask(2, loss, k=v), case, ("k",))
    else:
        flag = data.draw(st.sampled_from(["transitions", "start_end", "bias"]), label="flag")
        value = data.draw(st.one_of(odd_numbers(), st.sampled_from([np.True_, np.False_])))
        valid = isinstance(value, bool | np.bool_)
        case = Case(ODD_NUMBER if valid else BAD_NUMBER, value, ACCEPT if valid else REFUSE)
        attempt(lambda v: ChainTask(2, 2, **{flag: v}), case, (flag,))


@st.composite
def odd_weights(draw: st.DrawFn, size: int, low: int = -3) -> Case:
    """Odd versions of a vector of ``size`` weights, small integers from ``low`` to 3."""
    w = np.asarray(draw(st.lists(st.integers(low, 3), min_size=size, max_size=size)), dtype=float)
    i = draw(st.integers(0, size - 1))
    non_finite = w.copy()
    non_finite[i] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    text = w.astype(object)
    text[i] = "a"
    return draw(
        st.sampled_from(
            [
                draw(odd_objects()),
                Case(NON_FINITE, non_finite, REFUSE),
                Case(COMPLEX, w + 1j, REFUSE),
                Case(TEXT, text, REFUSE),
                Case(WRONG_LENGTH, w[: draw(st.integers(0, size - 1))], REFUSE),
                Case(WRONG_LENGTH, np.concatenate([w, w]), REFUSE),
                Case(WRONG_NDIM, w[None], REFUSE),
                Case(HUGE, w * 1e300, EITHER),
                Case(TINY, w * 1e-300, ACCEPT),
                Case(OTHER_DTYPE, w.astype(int), ACCEPT, w),
                Case(OTHER_DTYPE, w.astype(np.float32), ACCEPT, w),
                Case(OTHER_CONTAINER, w.tolist(), ACCEPT, w),
            ]
        )
    )


ORACLES = ["batch_argmax", "batch_loss_augmented_argmax", "batch_score"]


@pytest.mark.parametrize("problem", PROBLEMS)
@FUZZ
@given(data=st.data())
def test_task_oracles_refuse_malformed_weights_by_name(problem, data):
    task, X, Y = data.draw(PROBLEMS[problem], label="problem")
    X, Y = task.check_data(X, Y)
    oracle = data.draw(st.sampled_from(ORACLES), label="oracle")
    case = data.draw(odd_weights(task.size_joint_feature), label="case")
    arguments = (X,) if oracle == "batch_argmax" else (X, Y)

    def sound(result: Any) -> None:
        assert len(result) == len(X)
        if oracle == "batch_score":
            assert_finite(result, "the scores")

    attempt(lambda w: getattr(task, oracle)(*arguments, w), case, ("w",), sound=sound)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@FUZZ
@given(data=st.data())
def test_chain_task_oracles_refuse_an_empty_sequence_by_name(sparse, data):
    task, X, Y = data.draw(chain_problems(sparse=sparse), label="problem")
    k = data.draw(st.integers(0, len(X)), label="position")
    empty = np.zeros((0, task.n_features))
    X = [*X[:k], sp.csr_matrix(empty) if sparse else empty, *X[k:]]
    Y = [*Y[:k], np.zeros(0, dtype=np.int64), *Y[k:]]
    w = np.random.default_rng(k).normal(size=task.size_joint_feature)
    oracle = data.draw(st.sampled_from([*ORACLES, "batch_joint_feature"]), label="oracle")
    lone = data.draw(st.booleans(), label="alone")
    if lone:  # the empty sequence by itself, as argmax(x, w) passes it
        X, Y = X[k : k + 1], Y[k : k + 1]
    arguments = {"batch_argmax": (w,), "batch_joint_feature": (Y,)}.get(oracle, (Y, w))
    attempt(
        lambda X_odd: getattr(task, oracle)(X_odd, *arguments),
        Case(NO_ROWS, X, REFUSE),
        ("X",),
    )


@FUZZ
@given(data=st.data())
def test_ranking_task_refuses_an_output_ranking_another_number_of_documents_by_name(data):
    task, X, Y = data.draw(ranking_problems(), label="problem")
    x, grades = X[0], Y[0]
    m = len(grades)
    size = data.draw(st.integers(0, 2 * m).filter(lambda size: size != m), label="documents")
    scores = np.arange(size, dtype=float)
    output = data.draw(
        st.sampled_from([scores, np.column_stack([np.resize(grades, size), scores])]),
        label="output",
    )
    method = data.draw(st.sampled_from(["loss", "joint_feature"]), label="method")
    call = {
        "loss": lambda y: task.loss(grades, y),
        "joint_feature": lambda y: task.joint_feature(x, y),
    }[method]
    attempt(call, Case(WRONG_LENGTH, output, REFUSE), ("y",))


@FUZZ
@given(data=st.data())
def test_split_sequences_refuses_lengths_that_do_not_split_X_by_name(data):
    X = data.draw(matrices(rows=(1, 8)), label="X")
    n = len(X)
    cut = data.draw(st.integers(0, n), label="cut")
    lengths = [length for length in (cut, n - cut) if length]
    case = data.draw(
        st.sampled_from(
            [
                data.draw(odd_objects()),
                Case(WRONG_LENGTH, [*lengths, 1], REFUSE),
                Case(WRONG_LENGTH, [n + 1], REFUSE),
                Case(NO_EXAMPLES, [], REFUSE),
                Case(NOT_INTEGER, [length + 0.5 for length in lengths], REFUSE),
                Case(LABEL_SET, [0, *lengths], REFUSE),
                Case(LABEL_SET, [-1, n + 1], REFUSE),
                Case(WRONG_NDIM, [lengths], REFUSE),
                Case(OTHER_DTYPE, np.array(lengths, dtype=np.uint8), ACCEPT, lengths),
                Case(OTHER_DTYPE, [float(length) for length in lengths], EITHER, lengths),
                Case(OTHER_CONTAINER, tuple(lengths), ACCEPT, lengths),
            ]
        ),
        label="lengths",
    )

    def sound(parts: list[np.ndarray]) -> None:
        np.testing.assert_array_equal(np.concatenate(parts), X)

    attempt(lambda v: split_sequences(X, v), case, ("lengths",), sound=sound)


# ============================================================================ check_task
def _check_on_small_data(task: Any) -> Any:
    return check_task(task, _integer_matrix(0, 4, 3), np.arange(4) % 2)


@FUZZ
@given(case=NOT_TASKS)
def test_check_task_refuses_what_is_not_a_task_by_name(case):
    attempt(_check_on_small_data, case, ("task",))


@FUZZ
@given(case=TASKS_OF_ODD_SIZE)
def test_check_task_reports_a_size_joint_feature_that_is_not_a_positive_integer(case):
    def sound(report: Any) -> None:
        assert "invalid_size_joint_feature" in {problem.kind for problem in report.problems}

    attempt(_check_on_small_data, case.expecting(ACCEPT), ("task",), sound=sound)


def _reported(argument: str):
    """Return the check of a check_task report on data the task rejects: not ok, naming them."""

    def sound(report: Any) -> None:
        kinds = {problem.kind for problem in report.problems}
        assert kinds == {"data_rejected"}, str(report)
        assert argument in str(report), str(report)

    return sound


CHECKED_PROBLEMS = {
    "multiclass": multiclass_problems(),
    "chain": chain_problems(),
    # check_task's comparison of the loss-augmented oracle with argmax's outputs holds only on
    # queries of distinct grades (see RankingTask), so the grades are not fuzzed.
    "ranking": ranking_problems(distinct_grades=True),
}


@pytest.mark.parametrize("problem", CHECKED_PROBLEMS)
@FUZZ
@given(data=st.data())
def test_check_task_reports_or_refuses_malformed_data_by_name(problem, data):
    task, X, Y = data.draw(CHECKED_PROBLEMS[problem], label="problem")
    if problem == "ranking" or data.draw(st.booleans(), label="odd X"):
        case, argument = data.draw(ODD_X[problem](X), label="case"), "X"
        call = lambda X_odd: check_task(task, X_odd, Y, n_probes=1)  # noqa: E731
    else:
        case, argument = data.draw(ODD_Y[problem](Y), label="case"), "Y"
        call = lambda Y_odd: check_task(task, X, Y_odd, n_probes=1)  # noqa: E731
    is_sequence = isinstance(case.value, list | tuple) or getattr(case.value, "ndim", 0) >= 1
    if case.expect is REFUSE and is_sequence:
        # Data the task rejects are reported, not raised; data that are no sequence raise.
        attempt(call, case.expecting(ACCEPT), (argument,), sound=_reported(argument))
        return

    def sound(report: Any) -> None:
        if not report.ok:
            _reported(argument)(report)

    attempt(call, case, (argument,), sound=sound)


@FUZZ
@given(
    option=st.sampled_from(["max_examples", "n_probes", "max_enumerate", "tol", "random_state"]),
    value=odd_numbers(),
)
def test_check_task_refuses_invalid_options_by_name(option, value):
    if option == "tol":
        valid = is_real(value) and value > 0
    elif option == "random_state":
        valid = value is None or (is_integer(value) and 0 <= value)
    else:
        smallest = 0 if option == "n_probes" else 1
        valid = is_integer(value) and smallest <= value <= 50
        if is_integer(value) and value > 50:
            return  # valid; more probes or examples only cost time
    case = Case(ODD_NUMBER if valid else BAD_NUMBER, value, ACCEPT if valid else REFUSE)
    task, X, Y = MulticlassTask(2, 3), _integer_matrix(1, 4, 3), np.arange(4) % 2
    attempt(lambda v: check_task(task, X, Y, **{option: v}), case, (option,))


# ============================================================================ kernels
VECTOR_KERNELS = {
    "linear": LinearKernel(),
    "poly": PolynomialKernel(degree=3),
    "rbf": RBFKernel(gamma=0.5),
    "sigmoid": SigmoidKernel(gamma=0.1),
    "normalized rbf": NormalizedKernel(RBFKernel()),
    "normalized poly": NormalizedKernel(PolynomialKernel()),
    "sum": LinearKernel() + RBFKernel(),
    "product": 2.0 * PolynomialKernel() * RBFKernel(),
}
KERNEL_INPUTS = {NO_ROWS: ACCEPT, NO_COLUMNS: ACCEPT}
"""What a kernel does with odd vectors: none, or vectors of no features, are fine."""


def _sound_gram(rows: int | None, columns: int | None):
    def sound(gram: np.ndarray) -> None:
        assert_finite(gram, "the Gram matrix")
        if rows is not None:
            assert gram.shape[0] == rows
        if columns is not None:
            assert gram.shape[1] == columns

    return sound


@pytest.mark.parametrize("name", VECTOR_KERNELS)
@FUZZ
@given(data=st.data())
def test_kernels_refuse_malformed_vectors_by_name(name, data):
    kernel = VECTOR_KERNELS[name]
    X = data.draw(matrices(), label="X")
    which = data.draw(st.sampled_from(["A", "B"]), label="argument")
    if which == "A":
        case = data.draw(odd_matrices(X, KERNEL_INPUTS), label="case")
        attempt(lambda A: gram_matrix(kernel, A), case, ("A",), sound=_sound_gram(None, None))
    else:
        odd_B = odd_matrices(X, {WRONG_WIDTH: REFUSE, NO_COLUMNS: REFUSE, NO_ROWS: ACCEPT})
        case = data.draw(odd_B.filter(lambda c: c.value is not None), label="case")  # None: A
        attempt(lambda B: gram_matrix(kernel, X, B), case, ("B",), sound=_sound_gram(len(X), None))


@pytest.mark.parametrize("name", VECTOR_KERNELS)
@FUZZ
@given(data=st.data())
def test_check_mercer_and_distances_refuse_malformed_vectors_by_name(name, data):
    kernel = VECTOR_KERNELS[name]
    X = data.draw(matrices(), label="X")
    if data.draw(st.booleans(), label="check_mercer"):
        case = data.draw(odd_matrices(X, {NO_COLUMNS: ACCEPT}), label="case")

        def sound(report: Any) -> None:
            assert np.isfinite(report.min_eigenvalue) and np.isfinite(report.max_eigenvalue)

        attempt(lambda X_odd: check_mercer(kernel, X_odd), case, ("X",), sound=sound)
    else:
        case = data.draw(odd_matrices(X, KERNEL_INPUTS), label="case")
        attempt(
            lambda A: feature_space_distance(kernel, A), case, ("A",), sound=_sound_gram(None, None)
        )


ODD_KERNELS = st.one_of(
    odd_objects(),
    st.sampled_from([LinearKernel, "rbf", RBFKernel().__call__, np.dot]).map(
        lambda kernel: Case(WRONG_TYPE, kernel, REFUSE)
    ),
)


@FUZZ
@given(case=ODD_KERNELS, function=st.sampled_from(["gram_matrix", "check_mercer", "distance"]))
def test_kernel_functions_refuse_what_is_not_a_kernel_by_name(case, function):
    X = _integer_matrix(0, 4, 2)
    call = {
        "gram_matrix": lambda kernel: gram_matrix(kernel, X),
        "check_mercer": lambda kernel: check_mercer(kernel, X),
        "distance": lambda kernel: feature_space_distance(kernel, X),
    }[function]
    attempt(call, case, ("kernel",))


KERNEL_PARAMETERS = {
    "PolynomialKernel.degree": (PolynomialKernel, "degree"),
    "PolynomialKernel.gamma": (PolynomialKernel, "gamma"),
    "PolynomialKernel.coef0": (PolynomialKernel, "coef0"),
    "RBFKernel.gamma": (RBFKernel, "gamma"),
    "SigmoidKernel.gamma": (SigmoidKernel, "gamma"),
    "SigmoidKernel.coef0": (SigmoidKernel, "coef0"),
    "check_mercer.tol": (lambda tol: check_mercer(LinearKernel(), np.eye(2), tol=tol), "tol"),
    "kernel * factor": (lambda factor: LinearKernel() * factor, "factor"),
}


@FUZZ
@given(which=st.sampled_from(sorted(KERNEL_PARAMETERS)), value=odd_numbers())
def test_kernel_parameters_refuse_invalid_numbers_by_name(which, value):
    make, name = KERNEL_PARAMETERS[which]
    if name == "degree":
        valid = is_integer(value) and 1 <= value
    elif name == "coef0":
        valid = is_real(value)
    else:
        valid = is_real(value) and value > 0
    if name == "degree" and valid and value > 50:
        return  # valid; the Gram matrix of such a power overflows, tested with huge values
    case = Case(ODD_NUMBER if valid else BAD_NUMBER, value, ACCEPT if valid else REFUSE)
    made = attempt(
        lambda v: make(**{name: v}) if isinstance(make, type) else make(v), case, (name,)
    )
    if made is not None and hasattr(made, "_gram"):
        attempt(
            lambda X: gram_matrix(made, X),
            Case(ODD_NUMBER, _integer_matrix(0, 4, 2), EITHER),
            ("A",),
            sound=_sound_gram(4, 4),
        )


STRING_CASES = [
    Case(WRONG_TYPE, "abc", REFUSE),
    Case(WRONG_TYPE, {"a": "b"}, REFUSE),
    Case(WRONG_TYPE, {"a", "b"}, REFUSE),
    Case(TEXT, [1, 2, 3], REFUSE),
    Case(NONE_ENTRY, ["ab", None], REFUSE),
    Case(TEXT, [b"ab", b"c"], REFUSE),
    Case(WRONG_NDIM, np.array([["a", "b"], ["c", "d"]]), REFUSE),
]


@st.composite
def odd_strings(draw: st.DrawFn) -> Case:
    strings = draw(st.lists(st.text(max_size=8), max_size=4))
    return draw(
        st.sampled_from(
            [
                *STRING_CASES,
                draw(odd_objects().filter(lambda c: not isinstance(c.value, str))),
                Case(OTHER_CONTAINER, strings, ACCEPT),
                Case(OTHER_CONTAINER, tuple(strings), ACCEPT, strings),
                Case(OTHER_CONTAINER, np.array(strings, dtype=object), ACCEPT, strings),
            ]
        )
    )


@pytest.mark.parametrize("normalized", [False, True], ids=["plain", "normalized"])
@FUZZ
@given(case=odd_strings())
def test_the_string_kernel_refuses_what_is_not_a_sequence_of_strings_by_name(normalized, case):
    kernel = NormalizedKernel(AllSubsequencesKernel()) if normalized else AllSubsequencesKernel()
    attempt(lambda A: gram_matrix(kernel, A), case, ("A",), sound=_sound_gram(None, None))


# ============================================================================ ranking metrics
@FUZZ
@given(data=st.data())
def test_ranking_metrics_refuse_malformed_grades_and_scores_by_name(data):
    n = data.draw(st.integers(2, 8), label="n")
    y = (np.arange(n) % 3).astype(float)
    scores = np.linspace(0, 1, n)
    which = data.draw(st.sampled_from(["y", "scores"]), label="argument")
    base = y if which == "y" else scores
    case = data.draw(odd_targets(base), label="case")
    if case.category == LABEL_SET:
        case = case.expecting(EITHER)  # constant grades have no pairs to count
    metric = data.draw(st.sampled_from([pairwise_accuracy, mean_ndcg]), label="metric")
    call = (lambda v: metric(v, scores)) if which == "y" else (lambda v: metric(y, v))

    def sound(value: float) -> None:
        assert 0.0 <= value <= 1.0, value

    attempt(call, case, (which,), sound=sound)


@FUZZ
@given(R=odd_numbers(), delta=odd_numbers())
def test_mistake_bound_refuses_invalid_radius_and_margin_by_name(R, delta):
    valid_R = is_real(R) and R >= 0
    valid_delta = is_real(delta) and delta > 0
    case = Case(
        ODD_NUMBER if valid_R and valid_delta else BAD_NUMBER,
        (R, delta),
        EITHER if valid_R and valid_delta else REFUSE,
    )
    names = ("delta",) if valid_R else ("R",) if valid_delta else ("R", "delta")
    attempt(
        lambda pair: mistake_bound(*pair),
        case,
        names,
        sound=_non_negative,
    )


def _non_negative(bound: float) -> None:
    assert bound >= 0, bound  # infinite when (R / δ)² overflows, never NaN


# ============================================================================ checkpoints
@cache
def _checkpoint_bytes() -> dict[str, bytes]:
    """Bytes of a StructuredSVM checkpoint and of a StructuredPerceptron checkpoint."""
    X, Y = _integer_matrix(0, 6, 3), np.arange(6) % 2
    result = {}
    with tempfile.TemporaryDirectory() as directory:
        for name, model in {
            "svm": StructuredSVM(MulticlassTask(2, 3), max_iter=2),
            "perceptron": StructuredPerceptron(MulticlassTask(2, 3), max_epochs=2),
        }.items():
            path = Path(directory, name)
            model.fit(X, Y).save_checkpoint(path)
            result[name] = path.read_bytes()
    return result


@st.composite
def odd_checkpoint_files(draw: st.DrawFn) -> tuple[str, bytes | None]:
    """(what, content): a file's content, or None for no file at the path."""
    good = _checkpoint_bytes()["svm"]
    return draw(
        st.sampled_from(
            [
                ("no file", None),
                ("a directory", b"directory"),
                ("an empty file", b""),
                ("random bytes", draw(st.binary(min_size=1, max_size=64))),
                ("a truncated checkpoint", good[: draw(st.integers(1, len(good) - 1))]),
                (
                    "a pickle of something else",
                    pickle.dumps(draw(st.dictionaries(st.text(max_size=2), st.integers()))),
                ),
                ("a checkpoint of another estimator", _checkpoint_bytes()["perceptron"]),
                ("text", draw(st.text(max_size=20)).encode()),
            ]
        )
    )


@FUZZ
@given(file=odd_checkpoint_files())
def test_load_checkpoint_refuses_missing_foreign_and_damaged_files_naming_the_path(file):
    _, content = file
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "model.joblib")
        if content == b"directory":
            path.mkdir()
        elif content is not None:
            path.write_bytes(content)
        attempt(
            StructuredSVM.load_checkpoint,
            Case(BAD_FILE, path, REFUSE),
            (os.fspath(path), "path"),
            errors=(ValueError, TypeError, FileNotFoundError, IsADirectoryError),
        )


@FUZZ
@given(case=odd_objects().filter(lambda c: not isinstance(c.value, str)))
def test_load_checkpoint_refuses_a_path_that_is_not_a_path_by_name(case):
    attempt(StructuredSVM.load_checkpoint, case, ("path",))


# ============================================================================ chunking
CONLL_LINES = ["He PRP B-NP", "reckons VBZ B-VP", "", "Confidence NN B-NP", "in IN B-PP", ""]
LINE_TEXT = st.text(alphabet=st.sampled_from(list("ab -\t\u00e9\u200b\n\x00BIO")), max_size=14)


def _sound_sentences(sentences: list[Any]) -> None:
    for sentence in sentences:
        assert all(isinstance(word, str) and word for word in sentence.words)
        for field in (sentence.pos, sentence.tags):
            assert field is None or len(field) == len(sentence.words)


@FUZZ
@given(
    source=st.one_of(
        odd_objects().filter(lambda c: not isinstance(c.value, str)),
        st.lists(LINE_TEXT, max_size=6).map(lambda lines: Case(BAD_TEXT, lines, EITHER)),
        st.lists(st.one_of(LINE_TEXT, st.integers(), st.none()), min_size=1, max_size=4)
        .filter(lambda lines: not all(isinstance(line, str) for line in lines))
        .map(lambda lines: Case(WRONG_TYPE, lines, REFUSE)),
        st.just(Case(OTHER_CONTAINER, tuple(CONLL_LINES), ACCEPT, CONLL_LINES)),
        st.just(Case(OTHER_CONTAINER, iter(CONLL_LINES), ACCEPT, CONLL_LINES)),
    )
)
def test_read_conll_refuses_what_is_not_text_in_columns_by_name(source):
    attempt(read_conll, source, ("source", "<lines>"), sound=_sound_sentences)


@FUZZ
@given(
    columns=st.one_of(
        st.lists(st.sampled_from(["words", "pos", "tags", None, "chunk", "", 1]), max_size=4),
        odd_objects().map(lambda c: c.value),
    )
)
def test_read_conll_refuses_invalid_columns_by_name(columns):
    valid = (
        isinstance(columns, list | tuple)
        and len(columns) == 3
        and all(c in ("words", "pos", "tags", None) for c in columns)
        and "words" in columns
        and len([c for c in columns if c is not None]) == len({c for c in columns if c is not None})
    )
    case = Case(BAD_TEXT, columns, EITHER if valid else REFUSE)
    attempt(lambda c: read_conll(CONLL_LINES, c), case, ("columns", "<lines>"))


def test_read_conll_of_a_missing_file_names_the_file():
    missing = os.path.join(tempfile.gettempdir(), "no such directory", "train.txt")
    attempt(read_conll, Case(BAD_FILE, missing, REFUSE), (missing,), errors=(FileNotFoundError,))


@st.composite
def odd_sentence_lists(draw: st.DrawFn) -> Case:
    sentences = read_conll(CONLL_LINES)
    return draw(
        st.sampled_from(
            [
                draw(odd_objects()),
                Case(WRONG_TYPE, "He PRP B-NP", REFUSE),
                Case(WRONG_TYPE, [*sentences, None], REFUSE),
                Case(WRONG_TYPE, [CONLL_LINES], REFUSE),
                Case(WRONG_TYPE, [{"words": ("He",)}], REFUSE),
                Case(OTHER_CONTAINER, tuple(sentences), ACCEPT),
                Case(NO_EXAMPLES, [], EITHER),
            ]
        )
    )


@FUZZ
@given(case=odd_sentence_lists(), method=st.sampled_from(["fit", "transform"]))
def test_chunking_features_refuse_what_is_not_a_list_of_sentences_by_name(case, method):
    fitted = ChunkingFeatures().fit(read_conll(CONLL_LINES))
    call = ChunkingFeatures().fit if method == "fit" else fitted.transform
    attempt(call, case, ("sentences",))


@FUZZ
@given(value=odd_numbers())
def test_chunking_features_refuse_an_invalid_min_count_by_name(value):
    valid = is_integer(value) and value >= 1
    # A valid count above 1 may leave no feature, which fit refuses naming min_count.
    expect = (ACCEPT if value == 1 else EITHER) if valid else REFUSE
    case = Case(ODD_NUMBER if valid else BAD_NUMBER, value, expect)
    attempt(
        lambda v: ChunkingFeatures(min_count=v).fit(read_conll(CONLL_LINES)), case, ("min_count",)
    )


TAGS = st.sampled_from(["O", "B-NP", "I-NP", "B-VP", "I-VP"])


@st.composite
def odd_tag_lists(draw: st.DrawFn) -> Case:
    good = draw(st.lists(st.lists(TAGS, min_size=1, max_size=4), min_size=1, max_size=3))
    return draw(
        st.sampled_from(
            [
                draw(odd_objects()),
                Case(WRONG_TYPE, "B-NP", REFUSE),
                Case(WRONG_TYPE, [None], REFUSE),
                Case(WRONG_TYPE, [[1, 2]], REFUSE),
                Case(WRONG_TYPE, [[["B-NP"]]], REFUSE),
                Case(WRONG_TYPE, [*good, "O"], REFUSE),
                Case(OTHER_CONTAINER, [tuple(tags) for tags in good], ACCEPT, good),
                Case(OTHER_CONTAINER, good, ACCEPT, good),
            ]
        )
    )


@FUZZ
@given(case=odd_tag_lists(), method=st.sampled_from(["fit", "transform"]))
def test_tag_encoder_refuses_what_is_not_sequences_of_tags_by_name(case, method):
    encoder = TagEncoder().fit([["O", "B-NP", "I-NP", "B-VP", "I-VP"]])
    call = (lambda tags: TagEncoder().fit(tags).classes_) if method == "fit" else encoder.transform
    attempt(call, case, ("tag_sequences",))


@FUZZ
@given(data=st.data())
def test_tag_encoder_inverse_transform_refuses_labels_out_of_range_by_name(data):
    encoder = TagEncoder().fit([["O", "B-NP", "I-NP"]])
    Y = [np.array([0, 1, 2]), np.array([2])]
    case = data.draw(odd_labellings(Y, 3), label="case")
    if case.category == WRONG_LENGTH:
        case = case.expecting(ACCEPT)  # any number of sentences, of any lengths
    attempt(encoder.inverse_transform, case, ("label_sequences",))


@st.composite
def odd_tag_pairs(draw: st.DrawFn) -> Case:
    truth = draw(st.lists(st.lists(TAGS, min_size=1, max_size=4), min_size=1, max_size=3))
    guess = [draw(st.permutations(tags)) for tags in truth]
    bad_tag = draw(st.text(max_size=4).filter(lambda t: t != "O" and t[:2] not in ("B-", "I-")))
    k = draw(st.integers(0, len(truth) - 1))
    return draw(
        st.sampled_from(
            [
                Case(WRONG_TYPE, (draw(odd_objects()).value, guess), REFUSE),
                Case(WRONG_TYPE, (truth, draw(odd_objects()).value), REFUSE),
                Case(WRONG_TYPE, ([*truth[:k], None, *truth[k + 1 :]], guess), REFUSE),
                Case(
                    WRONG_TYPE, (truth, [*guess[:k], [1] * len(guess[k]), *guess[k + 1 :]]), REFUSE
                ),
                Case(
                    BAD_TEXT,
                    ([*truth[:k], [bad_tag] * len(truth[k]), *truth[k + 1 :]], guess),
                    REFUSE,
                ),
                Case(WRONG_LENGTH, (truth, guess[:-1]), REFUSE),
                Case(
                    WRONG_LENGTH, (truth, [*guess[:k], [*guess[k], "O"], *guess[k + 1 :]]), REFUSE
                ),
                Case(OTHER_CONTAINER, (tuple(map(tuple, truth)), guess), ACCEPT, (truth, guess)),
                Case(NO_EXAMPLES, ([], []), EITHER),
            ]
        )
    )


def _sound_scores(scores: Any) -> None:
    for value in (scores.precision, scores.recall, scores.f1, scores.accuracy):
        assert 0.0 <= value <= 1.0, scores


@FUZZ
@given(case=odd_tag_pairs())
def test_chunk_scores_refuse_malformed_tag_sequences_by_name(case):
    attempt(
        lambda pair: chunk_scores(*pair),
        case,
        ("true_tags", "predicted_tags", "tag"),
        sound=_sound_scores,
        observe=lambda scores: (scores.precision, scores.recall, scores.accuracy),
    )


@FUZZ
@given(
    tags=st.one_of(
        odd_objects(),
        st.lists(st.one_of(TAGS, st.text(max_size=4), st.integers(), st.none()), max_size=5).map(
            lambda tags: Case(BAD_TEXT, tags, EITHER)
        ),
    )
)
def test_extract_chunks_refuses_what_is_not_a_sequence_of_tags_by_name(tags):
    attempt(extract_chunks, tags, ("tag", "tags"))
