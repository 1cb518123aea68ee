"""Hyper-parameter tables: every estimator declares each parameter, and fit rejects bad values."""

import numbers
import re

import numpy as np
import pytest

from structsvm import (
    SVR,
    BinarySVM,
    KernelMulticlassSVM,
    KernelPerceptron,
    KernelRidge,
    MulticlassSVM,
    MultiLabelSVM,
    OneClassSVM,
    PerformanceSVM,
    RankingSVM,
    StructuredPerceptron,
    StructuredSVM,
)
from structsvm._utils.validation import (
    N_JOBS,
    RANDOM_STATE,
    ArrayLikes,
    Interval,
    InvalidParameterError,
    Options,
    check_value,
    validate_parameters,
)
from structsvm.kernels import KernelMachine, RBFKernel
from structsvm.learners._ssvm import _SOLVER_OPTIONS, _SOLVER_SPECIFIC
from tasks import MulticlassTask


def _binary_data():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-2.0, 1.0, (10, 2)), rng.normal(2.0, 1.0, (10, 2))])
    return X, np.repeat([0, 1], 10)


def _three_class_data():
    rng = np.random.default_rng(1)
    codes = np.arange(30) % 3
    return np.array([[4.0, 0.0], [0.0, 4.0], [4.0, 4.0]])[codes] + rng.normal(size=(30, 2)), codes


def _ranked_documents():
    X, _ = _binary_data()
    return X, np.round(X[:, 0]), np.repeat([0, 1], 10)


def _label_sets():
    X, y = _binary_data()
    return X, np.column_stack([y, X[:, 0] > 0, X[:, 1] > 0]).astype(int)


def _real_targets():
    X, _ = _binary_data()
    return X, X @ np.array([1.0, -2.0])


# Each estimator with a table, built with default parameters, and data it can be fitted on.
ESTIMATORS = {
    "BinarySVM": (lambda: BinarySVM(C=1.0), _binary_data),
    "KernelPerceptron": (KernelPerceptron, _binary_data),
    "KernelRidge": (KernelRidge, _real_targets),
    "SVR": (SVR, _real_targets),
    "OneClassSVM": (OneClassSVM, _binary_data),
    "MulticlassSVM": (MulticlassSVM, _three_class_data),
    "StructuredPerceptron": (lambda: StructuredPerceptron(MulticlassTask(3, 2)), _three_class_data),
    "StructuredSVM": (
        lambda: StructuredSVM(MulticlassTask(3, 2), solver="n-slack", max_iter=2),
        _three_class_data,
    ),
    "StructuredSVM(bcfw)": (
        lambda: StructuredSVM(MulticlassTask(3, 2), solver="bcfw", max_iter=2),
        _three_class_data,
    ),
    "KernelMulticlassSVM": (KernelMulticlassSVM, _three_class_data),
    "PerformanceSVM": (PerformanceSVM, _binary_data),
    "RankingSVM": (RankingSVM, _ranked_documents),
    "MultiLabelSVM": (MultiLabelSVM, _label_sets),
    "MultiLabelSVM(tree)": (lambda: MultiLabelSVM(edges="tree"), _label_sets),
}

# Parameters that an estimator checks only in the configurations that use them: those of
# the solvers other than the one it runs (n-slack by default).
UNUSED = {
    "StructuredSVM": _SOLVER_SPECIFIC - set(_SOLVER_OPTIONS["n-slack"]),
    "StructuredSVM(bcfw)": _SOLVER_SPECIFIC - set(_SOLVER_OPTIONS["bcfw"]),
}

ENTRIES = [
    (name, parameter)
    for name, (make, _) in ESTIMATORS.items()
    for parameter in type(make())._parameter_constraints
    if parameter not in UNUSED.get(name, ())
]


def _class_name(name):
    make, _ = ESTIMATORS[name]
    return type(make()).__name__


class _Unexpected:
    """A value of a type that no constraint accepts."""


def _out_of_range_values(constraints):
    """Yield numbers just outside the intervals among ``constraints`` that none accepts."""
    for constraint in constraints:
        if isinstance(constraint, Interval):
            candidates = []
            if constraint.low is not None:
                candidates.append(constraint.low - 1)
            if constraint.high is not None:
                candidates.append(constraint.high + 1)
            if constraint.kind is numbers.Real:
                candidates.append(np.inf)
            for value in candidates:
                try:
                    check_value(value, "value", constraints)
                except InvalidParameterError:
                    yield value


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_constructor_parameter_has_a_table_entry(name):
    make, _ = ESTIMATORS[name]
    estimator = make()
    assert list(type(estimator)._parameter_constraints) != []
    assert set(type(estimator)._parameter_constraints) == set(estimator.get_params(deep=False))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_the_defaults_are_valid(name):
    make, _ = ESTIMATORS[name]
    validate_parameters(make())


@pytest.mark.parametrize(("name", "parameter"), ENTRIES)
def test_fit_rejects_a_value_of_no_accepted_type_by_name(name, parameter):
    make, data = ESTIMATORS[name]
    estimator = make().set_params(**{parameter: _Unexpected()})
    expected = rf"^{_class_name(name)}: {parameter} must be .*, got <"
    with pytest.raises(InvalidParameterError, match=expected):
        estimator.fit(*data())


@pytest.mark.parametrize(("name", "parameter"), ENTRIES)
def test_fit_rejects_numbers_out_of_range_by_name(name, parameter):
    make, data = ESTIMATORS[name]
    constraints = type(make())._parameter_constraints[parameter]
    for value in _out_of_range_values(constraints):
        estimator = make().set_params(**{parameter: value})
        expected = rf"^{_class_name(name)}: {parameter} must be "
        with pytest.raises(InvalidParameterError, match=expected):
            estimator.fit(*data())


def test_predict_checks_the_task():
    X, y = _three_class_data()
    model = StructuredPerceptron(MulticlassTask(3, 2), max_epochs=2).fit(X, y)
    model.set_params(task="multiclass")
    with pytest.raises(TypeError, match=r"StructuredPerceptron: task must be a structsvm\.Task"):
        model.predict(X)


@pytest.mark.parametrize(
    ("make", "args"),
    [
        (BinarySVM, (1.0,)),
        (KernelPerceptron, ("rbf",)),
        (KernelRidge, (1.0,)),
        (SVR, (1.0,)),
        (OneClassSVM, (0.5,)),
        (MulticlassSVM, (1.0,)),
        (StructuredPerceptron, (MulticlassTask(2, 2), 10)),
        (StructuredSVM, (MulticlassTask(2, 2), 1.0)),
        (KernelMulticlassSVM, (1.0,)),
        (PerformanceSVM, ("f1",)),
        (RankingSVM, (1.0,)),
        (MultiLabelSVM, (1.0,)),
    ],
)
def test_hyper_parameters_are_keyword_only(make, args):
    with pytest.raises(TypeError, match="positional argument"):
        make(*args)


def test_an_invalid_parameter_is_both_a_value_and_a_type_error():
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-1, "C must be > 0, got -1"),
        (0.0, "C must be > 0, got 0.0"),
        (np.inf, "C must be a positive finite number, got inf"),
        (np.nan, "C must be a positive finite number, got nan"),
        (True, "C must be a positive number, got True"),
        ("1", "C must be a positive number, got '1'"),
    ],
)
def test_a_real_interval_says_what_the_number_must_be(value, message):
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(message)}$"):
        check_value(value, "C", [Interval(numbers.Real, 0, None, closed="neither")])


@pytest.mark.parametrize(
    ("constraints", "value", "message"),
    [
        ([Interval(numbers.Integral, 1, None, closed="left"), None], 0, "an integer >= 1"),
        (
            [Interval(numbers.Integral, 1, None, closed="left"), None],
            2.5,
            "an integer >= 1 or None",
        ),
        ([Interval(numbers.Integral, 0, 5, closed="right")], 0, "an integer in (0, 5]"),
        ([Interval(numbers.Real, None, 1, closed="neither")], 1.0, "< 1"),
        ([Interval(numbers.Real, None, None, closed="neither")], np.inf, "a finite real number"),
        (
            [Interval(numbers.Real, 0, None, closed="neither"), Options("scale")],
            "auto",
            "a positive number or 'scale'",
        ),
        ([Options("random", "cyclic")], "sorted", "one of ('random', 'cyclic')"),
        ([ArrayLikes(), None], 3.0, "an array-like or None"),
        (N_JOBS, 0, "an integer <= -1 or an integer >= 1"),
        (N_JOBS, "2", "an integer <= -1, an integer >= 1 or None"),
        (RANDOM_STATE, -1, "an integer in [0, 4294967295]"),
        (
            RANDOM_STATE,
            np.random.default_rng(0),
            "an integer in [0, 4294967295], a numpy RandomState or None",
        ),
    ],
)
def test_messages_name_what_was_expected(constraints, value, message):
    with pytest.raises(InvalidParameterError, match=f"^Owner: x must be {re.escape(message)}, "):
        check_value(value, "x", constraints, owner="Owner")


@pytest.mark.parametrize(
    ("constraints", "value"),
    [
        (RANDOM_STATE, None),
        (RANDOM_STATE, np.random.RandomState(0)),
        (RANDOM_STATE, np.int64(7)),
        (N_JOBS, -1),
        ([Interval(numbers.Real, 0, 1, closed="both")], 1),
        ([Interval(numbers.Real, 0, 1, closed="both")], np.float32(0.5)),
        ([ArrayLikes()], [[0, 1], [1, 0]]),
        ([Options("linear", "rbf")], np.str_("rbf")),
    ],
)
def test_accepted_values_pass(constraints, value):
    check_value(value, "x", constraints)


def test_only_checks_the_parameters_named():
    model = KernelPerceptron(max_epochs=0, gamma=-1.0)
    validate_parameters(model, only=("kernel", "shuffle"))
    with pytest.raises(InvalidParameterError, match="max_epochs"):
        validate_parameters(model, only=("max_epochs",))
    with pytest.raises(InvalidParameterError, match="gamma"):  # the first in the table's order
        validate_parameters(model)


def test_kernel_machines_merge_the_shared_kernel_entries():
    shared = KernelMachine._parameter_constraints
    for make in (BinarySVM, KernelPerceptron, KernelRidge, SVR, OneClassSVM):
        table = make._parameter_constraints
        assert all(table[name] is constraints for name, constraints in shared.items())
    X, y = _binary_data()
    KernelPerceptron(kernel=RBFKernel(0.5), max_epochs=2).fit(X, y)
    KernelPerceptron(kernel=lambda A, B: A @ B.T, max_epochs=2).fit(X, y)
