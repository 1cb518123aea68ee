"""Checks of user input at the public boundary, each raising an error that names the argument.

Two kinds of checks live here: checks of data (arrays, labels, weights), called where the data
arrive, and checks of hyper-parameters against a table of constraints, one table per estimator
in the style of scikit-learn's ``_parameter_constraints``.

Declaring and checking hyper-parameters
---------------------------------------
An estimator lists, next to its class, every constructor parameter with the constraints its
value may satisfy (the value is valid if it satisfies at least one)::

    class Example(BaseEstimator):
        _parameter_constraints: ClassVar[ParameterConstraints] = {
            **Base._parameter_constraints,               # entries shared with the base class
            "C": [Interval(Real, 0, None, closed="neither")],
            "max_iter": [Interval(Integral, 1, None, closed="left"), None],
            "solver": [Options("fast", "exact")],
            "shuffle": [BOOLEAN],
            "random_state": RANDOM_STATE,
        }

        def fit(self, X, y):
            validate_parameters(self)
            ...

:func:`validate_parameters` checks the values of ``estimator.get_params(deep=False)`` against
the table of the estimator's class and raises :class:`InvalidParameterError` (a ValueError and
a TypeError) whose message names the estimator, the parameter, what was expected and the
value, e.g. ``"Example: C must be > 0, got -1.0"``. Call it at the start of ``fit`` (and of any
method reading hyper-parameters, such as ``predict``), never in ``__init__``, as scikit-learn
requires. A test can check the table is complete: its keys equal those of
``get_params(deep=False)``.

Parameters used only in some configurations are checked only there with ``only``, which
keeps the table's order::

    skipped = ("inactive_window",) if self.solver == "bcfw" else ("averaging", "order")
    validate_parameters(self, only=[n for n in self._parameter_constraints if n not in skipped])

The constraints are :class:`Interval` (integers or finite reals between two bounds, each open or
closed), :class:`Options` (a fixed set of values), :class:`InstancesOf` (instances of some
types; :data:`BOOLEAN` and :data:`PATH` are two), :class:`Callables`, :class:`ArrayLikes` and
``None`` (the value None). :data:`RANDOM_STATE` and :data:`N_JOBS` are ready-made lists for the
parameters of those names.
"""

from __future__ import annotations

import math
import numbers
import os
import re
import reprlib
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from typing import Any, Literal, TypeAlias

import numpy as np
import scipy.sparse as sp

from structsvm._utils.estimator import NotFittedError


class InvalidParameterError(ValueError, TypeError):
    """A hyper-parameter has a value of the wrong type or outside its range.

    It is both a ValueError and a TypeError, so callers catching either one see it.
    """


class Constraint:
    """A set of valid values for a parameter.

    Subclasses implement :meth:`accepts` and the ``description`` of the set, read after "must
    be" in messages; they may implement :meth:`near_miss` for values of the right kind.
    """

    description: str

    def accepts(self, value: Any) -> bool:
        """Return whether ``value`` belongs to the set."""
        raise NotImplementedError

    def near_miss(self, value: Any) -> str | None:
        """For a rejected value of the right kind, say what it must be; None otherwise."""
        return None


class Interval(Constraint):
    """Integers, or finite real numbers, between two bounds.

    Parameters
    ----------
    kind : numbers.Integral or numbers.Real
        Integers (booleans excluded), or real numbers, which must then also be finite.
    low, high : number or None
        The bounds; None leaves that side unbounded.
    closed : {"left", "right", "both", "neither"}
        Which bounds belong to the interval.
    """

    def __init__(
        self,
        kind: type[numbers.Integral] | type[numbers.Real],
        low: float | None,
        high: float | None,
        *,
        closed: Literal["left", "right", "both", "neither"],
    ) -> None:
        if kind not in (numbers.Integral, numbers.Real):
            raise ValueError(f"kind must be numbers.Integral or numbers.Real, got {kind!r}")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"closed must be 'left', 'right', 'both' or 'neither', got {closed!r}")
        self.kind = kind
        self.low = low
        self.high = high
        self.closed = closed
        self.description = self._describe(finite=False)

    def _is_kind(self, value: Any) -> bool:
        return isinstance(value, self.kind) and not isinstance(value, (bool, np.bool_))

    def _within_bounds(self, value: Any) -> bool:
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def accepts(self, value: Any) -> bool:
        return self._is_kind(value) and _is_finite(value) and self._within_bounds(value)

    def near_miss(self, value: Any) -> str | None:
        """Say what the value must be: finite, or within the bounds."""
        if not self._is_kind(value):
            return None
        if self.kind is numbers.Integral:
            return self.description
        if not _is_finite(value):
            return self._describe(finite=True)
        return self._bounds()

    def _bounds(self) -> str:
        """Return the bounds as "in [a, b)", ">= a", "< b" or "" (unbounded)."""
        low_closed = self.closed in ("left", "both")
        high_closed = self.closed in ("right", "both")
        if self.low is not None and self.high is not None:
            left, right = "[" if low_closed else "(", "]" if high_closed else ")"
            return f"in {left}{self.low}, {self.high}{right}"
        if self.low is not None:
            return f"{'>=' if low_closed else '>'} {self.low}"
        if self.high is not None:
            return f"{'<=' if high_closed else '<'} {self.high}"
        return ""

    def _describe(self, *, finite: bool) -> str:
        if self.kind is numbers.Integral:
            return " ".join(filter(None, ["an integer", self._bounds()]))
        if self.low == 0 and self.high is None:
            sign = "non-negative" if self.closed in ("left", "both") else "positive"
            return f"a {sign} {'finite ' if finite else ''}number"
        number = "a finite real number" if finite else "a real number"
        return " ".join(filter(None, [number, self._bounds()]))


class Options(Constraint):
    """A fixed set of values, such as the names of the solvers."""

    def __init__(self, *options: Any) -> None:
        self.options = options
        shown = ", ".join(repr(option) for option in options)
        self.description = shown if len(options) == 1 else f"one of ({shown})"

    def accepts(self, value: Any) -> bool:
        return any(isinstance(value, type(option)) and value == option for option in self.options)


class InstancesOf(Constraint):
    """Instances of a type or of any of several types."""

    def __init__(self, types: type | tuple[type, ...], description: str) -> None:
        self.types = types
        self.description = description

    def accepts(self, value: Any) -> bool:
        return isinstance(value, self.types)


class Callables(Constraint):
    """Any callable object."""

    description = "a callable"

    def accepts(self, value: Any) -> bool:
        return callable(value)


class ArrayLikes(Constraint):
    """Arrays, lists, tuples: objects with a length, a shape or an array form, not scalars."""

    description = "an array-like"

    def accepts(self, value: Any) -> bool:
        has_array_form = any(hasattr(value, name) for name in ("__len__", "shape", "__array__"))
        return has_array_form and not np.isscalar(value)


class _NoneValue(Constraint):
    """The value None, written ``None`` in a table."""

    description = "None"

    def accepts(self, value: Any) -> bool:
        return value is None


_NONE = _NoneValue()


#: What a hyper-parameter table maps each parameter name to: the constraints of its values.
ParameterConstraints: TypeAlias = Mapping[str, Sequence[Constraint | None]]

BOOLEAN = InstancesOf((bool, np.bool_), "a bool")
PATH = InstancesOf((str, os.PathLike), "a path (str or os.PathLike)")
#: The seeds :func:`check_random_state` accepts.
RANDOM_STATE: tuple[Constraint | None, ...] = (
    Interval(numbers.Integral, 0, 2**32 - 1, closed="both"),
    InstancesOf(np.random.RandomState, "a numpy RandomState"),
    None,
)
#: Numbers of workers in joblib's convention: None, or any integer but 0.
N_JOBS: tuple[Constraint | None, ...] = (
    Interval(numbers.Integral, None, -1, closed="right"),
    Interval(numbers.Integral, 1, None, closed="left"),
    None,
)


def validate_parameters(estimator: Any, *, only: Collection[str] | None = None) -> None:
    """Check the hyper-parameters of ``estimator`` against its class's constraint table.

    Parameters
    ----------
    estimator : estimator with ``get_params`` and a ``_parameter_constraints`` table
        The estimator whose ``get_params(deep=False)`` values to check.
    only : collection of str, optional
        Check only these parameters (in the order of the table); default all in the table.

    Raises
    ------
    InvalidParameterError
        For the first parameter, in the order of the table, that satisfies none of its
        constraints, naming the estimator, the parameter, what was expected and the value.
    """
    params = estimator.get_params(deep=False)
    for name, constraints in estimator._parameter_constraints.items():
        if only is None or name in only:
            check_value(params[name], name, constraints, owner=type(estimator).__name__)


def check_value(
    value: Any, name: str, constraints: Sequence[Constraint | None], *, owner: str | None = None
) -> None:
    """Raise InvalidParameterError unless ``value`` satisfies one of ``constraints``.

    The message says what ``name`` must be: for a number of the right kind outside its
    interval, that interval's condition (``"C must be > 0, got -1"``); otherwise the
    descriptions of all constraints. ``owner``, the estimator's name, prefixes it.
    """
    constraints = [_NONE if constraint is None else constraint for constraint in constraints]
    if any(constraint.accepts(value) for constraint in constraints):
        return
    near_misses = [
        miss for miss in (constraint.near_miss(value) for constraint in constraints) if miss
    ]
    expected = _either(near_misses or [constraint.description for constraint in constraints])
    prefix = f"{owner}: " if owner else ""
    raise InvalidParameterError(f"{prefix}{name} must be {expected}, got {_shown(value)}")


def _is_finite(value: Any) -> bool:
    return isinstance(value, numbers.Integral) or math.isfinite(value)


def _either(phrases: Sequence[str]) -> str:
    """Return "a", "a or b", "a, b or c"."""
    return phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} or {phrases[-1]}"


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60


def _shown(value: Any) -> str:
    """Return the repr of a rejected value, shortened if long."""
    return _SHORT.repr(value)


def check_examples(data: Any, name: str, of: str = "examples") -> None:
    """Raise TypeError unless ``data`` is a sequence of examples: a list, tuple, array...

    Strings, bytes, mappings, sets, scalars and 0-D arrays are not; objects with an array form
    (``__array__``) are. ``name`` names the argument and ``of`` what it holds.
    """
    indexable = hasattr(data, "__len__") and hasattr(data, "__getitem__")
    if (
        getattr(data, "ndim", None) == 0
        or isinstance(data, str | bytes | Mapping | AbstractSet)
        or not (indexable or hasattr(data, "__array__"))
    ):
        raise TypeError(
            f"{name} must be a sequence of {of} (a list, tuple or array), got {type(data).__name__}"
        )


def check_iterable(data: Any, name: str, of: str) -> None:
    """Raise TypeError unless ``data`` is an iterable of ``of``: a list, tuple, generator...

    Like :func:`check_examples` for arguments that are only iterated over, in order, so that
    generators pass; strings, bytes, mappings and sets do not.
    """
    if isinstance(data, str | bytes | Mapping | AbstractSet) or not isinstance(data, Iterable):
        raise TypeError(f"{name} must be an iterable of {of}, got {type(data).__name__}")


@contextmanager
def errors_naming(argument: str) -> Iterator[None]:
    """Prefix ``argument`` to the message of a ValueError or TypeError raised inside.

    For checks by other libraries (scikit-learn's ``check_array``...) whose messages do not
    say which argument is at fault. Errors that already name it, and NotFittedError, pass
    unchanged; others are raised again as ValueError (TypeError if they were only that).
    """
    try:
        yield
    except NotFittedError:
        raise
    except (ValueError, TypeError) as error:
        if re.search(rf"(?<![A-Za-z_]){re.escape(argument)}(?![A-Za-z_])", str(error)):
            raise
        kind = ValueError if isinstance(error, ValueError) else TypeError
        raise kind(f"{argument}: {error}") from error


def check_consistent_length(X: Sequence[Any], y: Sequence[Any], name: str = "y") -> None:
    """Raise ValueError unless ``X`` and the targets ``y`` hold the same number of examples.

    ``name`` names the targets: "y" for the flat estimators, "Y" for the outputs of a task.
    """
    check_targets_given(y)
    check_examples(y, name)
    # A list of outputs of different shapes (labellings of sequences) has a length but no
    # rectangular array form.
    n_targets = len(y) if hasattr(y, "__len__") else len(np.asarray(y))
    n_examples = X.shape[0] if hasattr(X, "shape") else len(X)
    if n_examples != n_targets:
        raise ValueError(
            f"X and {name} have different lengths: X has {n_examples} examples, "
            f"{name} has {n_targets}"
        )


def check_targets_given(Y: Any) -> None:
    """Raise ValueError if the targets of a fit are missing (``Y is None``)."""
    if Y is None:
        raise ValueError(
            "fitting requires y to be passed, but the target y is None: "
            "expected one target per example in X"
        )


def check_feature_array(
    x: Any, name: str, *, ndim: int, n_features: int | None, finite: bool = True
) -> np.ndarray:
    """Return ``x`` as a float64 array of ``ndim`` dimensions and the given width.

    Parameters
    ----------
    x : array-like
        The features to check.
    name : str
        How the argument is called in messages.
    ndim : int
        Required number of dimensions (1 for one feature vector, 2 for rows of them).
    n_features : int or None
        Required length of the last axis, or None to accept any.
    finite : bool, default=True
        Also require every entry to be finite (a pass over the whole array).
    """
    if isinstance(x, np.ndarray) and np.iscomplexobj(x):
        raise ValueError(f"{name} must hold real numbers, got complex numbers")
    try:
        array = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a numeric array; could not convert it: {error}") from None
    check_feature_shape(array, name, ndim=ndim, n_features=n_features)
    if finite and not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return array


def check_feature_shape(x: Any, name: str, *, ndim: int, n_features: int | None) -> None:
    """Raise ValueError, naming ``name``, unless the array or sparse matrix ``x`` has ``ndim``
    dimensions and a last axis of length ``n_features`` (any length if None)."""
    if x.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {x.shape}")
    if n_features is not None and x.shape[-1] != n_features:
        raise ValueError(
            f"{name} has {x.shape[-1]} features per row, expected n_features={n_features}"
        )


def check_labels(y: Any, name: str, *, n_labels: int, ndim: int = 1) -> np.ndarray:
    """Return ``y`` as an int64 array whose entries lie in ``[0, n_labels)``."""
    array = np.asarray(y)
    if array.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array of labels, got shape {array.shape}")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        integral = np.issubdtype(array.dtype, np.floating) and bool(
            np.all(np.isfinite(array)) and np.all(array == np.round(array))
        )
        if not integral:
            raise ValueError(f"{name} must hold finite integer labels, got dtype {array.dtype}")
    # Compared before the cast, which would wrap labels beyond the range of int64.
    if array.size and (array.min() < 0 or array.max() >= n_labels):
        raise ValueError(
            f"{name} has labels outside [0, {n_labels}): found {array.min()}..{array.max()}"
        )
    return array.astype(np.int64)


def check_random_state(seed: Any) -> np.random.RandomState:
    """Return the generator ``seed`` names, as scikit-learn's function of the same name.

    None gives NumPy's global generator, an integer a new generator seeded with it, and a
    RandomState itself; anything else raises ValueError.
    """
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, numbers.Integral):
        return np.random.RandomState(seed)
    if isinstance(seed, np.random.RandomState):
        return seed
    raise ValueError(f"{seed!r} cannot be used to seed a numpy.random.RandomState instance")


def check_class_labels(y: Any, name: str = "y") -> np.ndarray:
    """Return class labels ``y`` as a 1-D array; raise ValueError if NaN or not classes."""
    # Imported here, as in the other checks of targets: importing scikit-learn brings in much
    # of it and of SciPy, which structured learners do not need.
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import assert_all_finite, column_or_1d

    with errors_naming(name):
        array = column_or_1d(y, warn=True)
        if array.dtype.kind in "fc":
            assert_all_finite(array, input_name=name)
        check_classification_targets(array)
    return array


def check_indicator_targets(Y: Any, name: str = "Y") -> None:
    """Raise unless ``Y`` is a dense array of class labels per output (a 0/1 indicator, say).

    Raises
    ------
    TypeError
        If ``Y`` is a sparse matrix (naming ``name``; ``Y.toarray()`` makes it dense).
    ValueError
        If ``Y`` holds fractional or other non-class values, naming ``name``.
    """
    if sp.issparse(Y):
        raise TypeError(
            f"{name} must be a dense 0/1 indicator array, got a sparse matrix: pass "
            f"{name}.toarray()"
        )
    from sklearn.utils.multiclass import check_classification_targets

    with errors_naming(name):
        check_classification_targets(Y)


def check_real_targets(y: Any, name: str = "y") -> np.ndarray:
    """Return regression targets ``y`` as a finite 1-D float64 array; raise ValueError if not."""
    from sklearn.utils.validation import assert_all_finite, column_or_1d

    array = column_or_1d(y, warn=True)
    try:
        array = array.astype(np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must hold real numbers: {error}") from None
    assert_all_finite(array, input_name=name)
    return array


def check_binary_labels(y: Any, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Return the two classes of ``y`` (sorted) and ``y`` as ±1, +1 marking the second class."""
    array = check_class_labels(y, name)
    classes = np.unique(array)
    if len(classes) != 2:
        found = f"{len(classes)} class" + ("" if len(classes) == 1 else "es")
        raise ValueError(
            f"Only binary classification is supported: {name} must hold exactly two classes, "
            f"got {found}"
        )
    return classes, np.where(array == classes[1], 1.0, -1.0)


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` if it is an integer ``>= minimum``; raise ValueError otherwise."""
    check_value(value, name, [Interval(numbers.Integral, minimum, None, closed="left")])
    return int(value)


def check_positive_float(value: Any, name: str) -> float:
    """Return ``value`` as a float if it is finite and > 0; raise ValueError otherwise."""
    check_value(value, name, [Interval(numbers.Real, 0, None, closed="neither")])
    return float(value)


def check_finite_float(value: Any, name: str) -> float:
    """Return ``value`` as a float if it is a finite real number; raise ValueError otherwise."""
    check_value(value, name, [Interval(numbers.Real, None, None, closed="neither")])
    return float(value)


def check_weights(w: Any, size: int, *, finite: bool = True) -> np.ndarray:
    """Return a weight vector as a float64 array of length ``size``, finite unless told.

    ``finite=False`` skips the pass over all entries, for callers that check the part of
    ``w`` they read (a cost independent of ``size``).
    """
    w = check_feature_array(w, "w", ndim=1, n_features=None, finite=finite)
    if len(w) != size:
        raise ValueError(
            f"w has length {len(w)}, expected size_joint_feature={size} "
            "(the length of the joint feature vector φ(x, y))"
        )
    return w


def check_flag(value: Any, name: str) -> bool:
    """Return ``value`` as a bool if it is True or False; raise ValueError otherwise."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_class_weights(weights: Any, n_classes: int, name: str) -> np.ndarray:
    """Return per-class loss weights as a float64 array, all ones if ``weights`` is None.

    Raises ValueError unless they have shape (n_classes,) and are finite and non-negative.
    """
    if weights is None:
        return np.ones(n_classes)
    array = check_feature_array(weights, name, ndim=1, n_features=None, finite=False)
    if array.shape != (n_classes,):
        raise ValueError(f"{name} must have shape ({n_classes},), got {array.shape}")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{name} must hold finite, non-negative weights")
    return array


def take(data: Sequence[Any], indices: np.ndarray) -> Sequence[Any]:
    """Select examples by index from an array (fancy indexing) or any other sequence (a list)."""
    if isinstance(data, np.ndarray):
        return data[indices]
    return [data[i] for i in indices]
