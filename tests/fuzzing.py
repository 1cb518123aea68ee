"""Generated bad and odd inputs, and what a public function must do with each.

An odd input is a :class:`Case`: its category (NaN, a ragged list, a wrong label...), the value,
and what the call must do with it (:class:`Expect`): refuse it with a ValueError or TypeError
whose message names the argument, accept it and give a sound result, or either of the two.
:func:`attempt` runs a call on a case and asserts exactly that; any other exception (an
IndexError, an AttributeError, a Numba typing error...) fails the test as it is.

The strategies draw the cases with hypothesis from ordinary data drawn as well: the place and
the value of a NaN, the scale of huge values, the label out of range, the wrong type.
"""

from __future__ import annotations

import enum
import math
import re
import reprlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FUZZ = settings(
    max_examples=40,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""Settings of every generated test: reproducible draws, no example database, no deadline."""


class Expect(enum.Enum):
    """What a call must do with an input."""

    REFUSE = "refused with a ValueError or TypeError naming the argument"
    ACCEPT = "accepted with a sound result"
    EITHER = "refused naming the argument, or accepted with a sound result"


REFUSE, ACCEPT, EITHER = Expect.REFUSE, Expect.ACCEPT, Expect.EITHER

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 40
_SHORT.maxlist = _SHORT.maxtuple = 4

_NOTHING = object()


@dataclass(frozen=True)
class Case:
    """One odd input.

    Attributes
    ----------
    category : str
        The kind of oddity, as the tally of the tests counts them.
    value : object
        The input.
    expect : Expect
        What the call must do with it.
    same_as : object
        For an input the call must accept, an ordinary input it must treat alike (the float
        array of an int array, the array of a nested list); unset if there is none.
    """

    category: str
    value: Any
    expect: Expect
    same_as: Any = _NOTHING

    def __repr__(self) -> str:
        return f"Case({self.category!r}, {_SHORT.repr(self.value)}, {self.expect.name})"

    def expecting(self, expect: Expect) -> Case:
        """Return the same input with another expectation."""
        return Case(self.category, self.value, expect, self.same_as)


def names_argument(message: str, names: Sequence[str]) -> bool:
    """Tell whether ``message`` mentions one of ``names`` as a word (``X`` also in ``X[2]``)."""
    return any(
        re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) for name in names
    )


def attempt(
    call: Callable[[Any], Any],
    case: Case,
    names: Sequence[str],
    *,
    sound: Callable[[Any], None] | None = None,
    observe: Callable[[Any], Any] = lambda result: result,
    errors: tuple[type[BaseException], ...] = (ValueError, TypeError),
) -> Any:
    """Call ``call(case.value)`` and assert that it does what ``case.expect`` asks.

    Parameters
    ----------
    call : callable
        Takes the input; it must build anything it changes (a fresh estimator per call).
    case : Case
        The input and its expectation.
    names : sequence of str
        The names by which an error message may name the argument at fault.
    sound : callable, optional
        Asserts that an accepted input gave a sound result (finite weights, known labels...).
    observe : callable, optional
        What of two results must agree for an input accepted ``same_as`` another; default
        the results themselves.
    errors : tuple of exception types, default=(ValueError, TypeError)
        The errors that count as a clear refusal; any other exception propagates.

    Returns
    -------
    The result, or None if the call refused the input.
    """
    try:
        result = call(case.value)
    except errors as error:
        assert case.expect is not ACCEPT, f"{case!r} was refused: {type(error).__name__}: {error}"
        assert not type(error).__module__.startswith("numba"), (
            f"{case!r} raised a Numba error: {error}"
        )
        assert names_argument(str(error), names), (
            f"{case!r}: the {type(error).__name__} names none of {list(names)}: {error}"
        )
        return None
    assert case.expect is not REFUSE, f"{case!r} was accepted, expected an error naming {names}"
    if sound is not None:
        sound(result)
    if case.same_as is not _NOTHING:
        assert_same(observe(result), observe(call(case.same_as)), case)
    return result


def assert_same(result: Any, expected: Any, case: Case) -> None:
    """Assert that two results agree: equal arrays (up to round-off), lists, strings."""
    if isinstance(result, list | tuple):
        assert len(result) == len(expected), f"{case!r}: {result} differs from {expected}"
        for part, expected_part in zip(result, expected, strict=True):
            assert_same(part, expected_part, case)
        return
    if sp.issparse(result):
        result, expected = result.toarray(), expected.toarray()
    result, expected = np.asarray(result), np.asarray(expected)
    if result.dtype.kind in "biuf" and expected.dtype.kind in "biuf":
        np.testing.assert_allclose(result, expected, rtol=1e-9, atol=0, err_msg=repr(case))
    else:
        np.testing.assert_array_equal(result, expected, err_msg=repr(case))


def assert_finite(values: Any, what: str) -> None:
    """Assert that an array (dense or sparse) of numbers holds no NaN or infinity."""
    array = values.toarray() if sp.issparse(values) else np.asarray(values, dtype=np.float64)
    assert np.all(np.isfinite(array)), f"{what} is not finite: {array}"


# ----------------------------------------------------------------------------- categories
WRONG_TYPE = "wrong type"
NON_FINITE = "NaN or infinity"
COMPLEX = "complex numbers"
TEXT = "text among the numbers"
NONE_ENTRY = "None among the numbers"
RAGGED = "ragged rows"
WRONG_NDIM = "wrong number of dimensions"
NO_ROWS = "no rows"
NO_COLUMNS = "no columns"
WRONG_WIDTH = "another number of features"
HUGE = "huge values"
TINY = "tiny values"
OTHER_DTYPE = "integer, boolean, float32 or object dtype"
OTHER_CONTAINER = "nested lists, tuples, strided or sparse arrays"
NO_EXAMPLES = "no examples"
WRONG_LENGTH = "mismatched lengths"
OUT_OF_RANGE = "labels out of range"
NOT_INTEGER = "labels that are not integers"
LABEL_SET = "wrong label set"
BAD_NUMBER = "invalid number"
ODD_NUMBER = "valid but extreme number"
ODD_TASK = "not a task"
UNPICKLABLE = "unpicklable task with n_jobs"
BAD_FILE = "missing, foreign or damaged file"
BAD_TEXT = "malformed text"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


NON_NUMERIC_TEXT = st.text(max_size=3).filter(lambda text: not _is_number(text))
"""Text that is no number ("1" or "nan" among numbers convert, as numpy converts them)."""


def odd_objects() -> st.SearchStrategy[Case]:
    """Values that are no kind of data: None, text, bytes, numbers, mappings, sets, objects."""
    values = st.one_of(
        st.none(),
        st.text(max_size=4),
        st.binary(max_size=4),
        st.integers(-5, 5),
        st.floats(),
        st.booleans(),
        st.dictionaries(st.text(max_size=2), st.integers(0, 3), max_size=2),
        st.frozensets(st.integers(0, 3), max_size=3),
        st.builds(object),
        st.just(len),
    )
    return values.map(lambda value: Case(WRONG_TYPE, value, REFUSE))


def matrices(
    rows: tuple[int, int] = (4, 7), columns: tuple[int, int] = (1, 3)
) -> st.SearchStrategy[np.ndarray]:
    """2-D float arrays of small integers (exact in every dtype), of sizes within the ranges."""
    return st.tuples(st.integers(*rows), st.integers(*columns), st.integers(0, 2**16)).map(
        lambda shape_seed: (
            np.random.default_rng(shape_seed[2])
            .integers(-3, 4, size=shape_seed[:2])
            .astype(np.float64)
        )
    )


def _with_entry(X: np.ndarray, row: int, column: int, value: Any, dtype: Any) -> np.ndarray:
    odd = X.astype(dtype)
    odd[row % X.shape[0], column % X.shape[1]] = value
    return odd


@st.composite
def odd_matrices(
    draw: st.DrawFn, X: np.ndarray, expect: dict[str, Expect | None] | None = None
) -> Case:
    """Odd versions of the 2-D array ``X`` of n examples and d features.

    Every category but WRONG_WIDTH is drawn; ``expect`` changes the expectation of a category,
    or leaves it out with None (WRONG_WIDTH is in only if ``expect`` sets it).
    """
    expect = {WRONG_WIDTH: None, **(expect or {})}
    n, d = X.shape
    row, column = draw(st.integers(0, n - 1)), draw(st.integers(0, d - 1))
    ragged = X.tolist()
    ragged[row] = ragged[row][:-1] if draw(st.booleans()) else [*ragged[row], 1.0]
    scale_up = 10.0 ** draw(st.integers(100, 300))
    scale_down = 10.0 ** -draw(st.integers(100, 320))
    width = draw(st.sampled_from([w for w in (1, 2, d + 1, d + 5) if w != d]))
    makers: dict[str, Callable[[], Case]] = {
        WRONG_TYPE: lambda: draw(odd_objects()),
        NON_FINITE: lambda: Case(
            NON_FINITE,
            _with_entry(X, row, column, draw(st.sampled_from([np.nan, np.inf, -np.inf])), float),
            REFUSE,
        ),
        COMPLEX: lambda: Case(
            COMPLEX,
            X + 1j * draw(st.floats(0.5, 2.0)) * (np.arange(X.size) % 2 == 0).reshape(X.shape),
            REFUSE,
        ),
        TEXT: lambda: Case(
            TEXT, _with_entry(X, row, column, draw(NON_NUMERIC_TEXT), object), REFUSE
        ),
        NONE_ENTRY: lambda: Case(NONE_ENTRY, _with_entry(X, row, column, None, object), REFUSE),
        RAGGED: lambda: Case(RAGGED, ragged, REFUSE),
        WRONG_NDIM: lambda: Case(
            WRONG_NDIM, draw(st.sampled_from([X.ravel(), X[:, :, None], X[None], X[0, 0]])), REFUSE
        ),
        NO_ROWS: lambda: Case(NO_ROWS, X[:0], REFUSE),
        NO_EXAMPLES: lambda: Case(NO_EXAMPLES, [], REFUSE),
        NO_COLUMNS: lambda: Case(NO_COLUMNS, X[:, :0], REFUSE),
        WRONG_WIDTH: lambda: Case(WRONG_WIDTH, np.resize(X, (n, width)), REFUSE),
        HUGE: lambda: Case(HUGE, X * scale_up, EITHER),
        TINY: lambda: Case(TINY, X * scale_down, ACCEPT),
        OTHER_DTYPE: lambda: draw(
            st.sampled_from(
                [
                    Case(OTHER_DTYPE, X.astype(np.int64), ACCEPT, X),
                    Case(OTHER_DTYPE, X > 0, ACCEPT, (X > 0).astype(np.float64)),
                    Case(OTHER_DTYPE, X.astype(np.float32), ACCEPT, X),
                    Case(OTHER_DTYPE, X.astype(object), ACCEPT, X),
                ]
            )
        ),
        OTHER_CONTAINER: lambda: draw(
            st.sampled_from(
                [
                    Case(OTHER_CONTAINER, X.tolist(), ACCEPT, X),
                    Case(OTHER_CONTAINER, tuple(map(tuple, X.tolist())), ACCEPT, X),
                    Case(OTHER_CONTAINER, np.asfortranarray(X), ACCEPT, X),
                    Case(OTHER_CONTAINER, np.repeat(X, 2, axis=1)[:, ::2], ACCEPT, X),
                    Case(OTHER_CONTAINER, sp.csr_matrix(X), EITHER, X),
                ]
            )
        ),
    }
    categories = [name for name in makers if expect.get(name, True) is not None]
    category = draw(st.sampled_from(categories))
    case = makers[category]()
    given = expect.get(category, True)
    return case if given is True or given is None else case.expecting(given)


@st.composite
def odd_example_lists(
    draw: st.DrawFn,
    X: list[np.ndarray],
    expect: dict[str, Expect | None] | None = None,
) -> Case:
    """Odd versions of a list of 2-D examples (sequences, queries, data sets).

    Either the list itself is odd (not a list, empty, holding None) or one of its examples is,
    drawn by :func:`odd_matrices` with ``expect``; the category says which.
    """
    k = draw(st.integers(0, len(X) - 1))
    level = draw(st.sampled_from(["list", "example"]))
    if level == "list":
        return draw(
            st.one_of(
                odd_objects(),
                st.just(Case(NO_EXAMPLES, [], REFUSE)),
                st.just(Case(NONE_ENTRY, [*X[:k], None, *X[k + 1 :]], REFUSE)),
                st.just(Case(OTHER_CONTAINER, tuple(X), ACCEPT, X)),
            )
        )
    example = X[k].toarray() if sp.issparse(X[k]) else X[k]
    inner = draw(odd_matrices(example, expect))
    odd = [*X[:k], inner.value, *X[k + 1 :]]
    same = inner.same_as if inner.same_as is _NOTHING else [*X[:k], inner.same_as, *X[k + 1 :]]
    return Case(inner.category, odd, inner.expect, same)


# ----------------------------------------------------------------------------- labels
@st.composite
def odd_class_labels(draw: st.DrawFn, y: np.ndarray, *, binary: bool = False) -> Case:
    """Odd versions of class labels ``y`` (two or more classes) for a classifier.

    A classifier takes any label values as classes, so strings, negative and huge labels are
    accepted (alike the labels they encode); NaN, fractions, one class, or a third class for a
    ``binary`` classifier are refused.
    """
    n = len(y)
    i = draw(st.integers(0, n - 1))
    classes = np.unique(y)
    names = np.array(
        draw(
            st.lists(
                st.text(min_size=1, max_size=3),
                min_size=len(classes),
                max_size=len(classes),
                unique=True,
            )
        )
    )
    names.sort()
    offset = draw(st.sampled_from([-7.0, 1e6, -1e15]))
    nan = y.astype(float)
    nan[i] = draw(st.sampled_from([np.nan, np.inf]))
    fraction = y.astype(float)
    fraction[i] += 0.5
    third = y.copy()
    third[i] = classes.max() + 1
    return draw(
        st.sampled_from(
            [
                draw(odd_objects()),
                Case(NON_FINITE, nan, REFUSE),
                Case(NOT_INTEGER, fraction, REFUSE),
                Case(COMPLEX, y + 1j, REFUSE),
                Case(LABEL_SET, np.zeros(n, dtype=y.dtype), REFUSE),
                Case(LABEL_SET, third, REFUSE if binary else ACCEPT),
                Case(WRONG_LENGTH, y[: draw(st.integers(0, n - 1))], REFUSE),
                Case(WRONG_LENGTH, np.concatenate([y, y[:1]]), REFUSE),
                Case(WRONG_NDIM, np.stack([y, y], axis=1), REFUSE),
                Case(WRONG_NDIM, y[:, None], EITHER, y),
                Case(NO_ROWS, y[:0], REFUSE),
                Case(OTHER_DTYPE, names[np.searchsorted(classes, y)], ACCEPT, y),
                Case(OTHER_DTYPE, y.astype(object), EITHER, y),
                Case(OTHER_DTYPE, y.astype(float) + offset, ACCEPT, y),
                Case(OTHER_CONTAINER, y.tolist(), ACCEPT, y),
            ]
        )
    )


@st.composite
def odd_label_vectors(draw: st.DrawFn, y: np.ndarray, n_labels: int) -> Case:
    """Odd versions of labels ``y`` in ``0 .. n_labels - 1`` (one per example) for a task."""
    n = len(y)
    i = draw(st.integers(0, n - 1))
    out = y.copy()
    out[i] = draw(st.sampled_from([n_labels, n_labels + 7, -1, -(2**40), 2**62]))
    nan = y.astype(float)
    nan[i] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    fraction = y.astype(float)
    fraction[i] += draw(st.sampled_from([0.5, 1e-9, -0.25]))
    text = y.astype(object)
    text[i] = draw(NON_NUMERIC_TEXT)
    return draw(
        st.sampled_from(
            [
                draw(odd_objects()),
                Case(OUT_OF_RANGE, out, REFUSE),
                Case(NON_FINITE, nan, REFUSE),
                Case(NOT_INTEGER, fraction, REFUSE),
                Case(NOT_INTEGER, text, REFUSE),
                Case(COMPLEX, y + 1j, REFUSE),
                Case(WRONG_LENGTH, y[: draw(st.integers(0, n - 1))], REFUSE),
                Case(WRONG_LENGTH, np.concatenate([y, y[:1]]), REFUSE),
                Case(WRONG_NDIM, np.stack([y, y], axis=1), REFUSE),
                Case(WRONG_NDIM, y[0], REFUSE),
                Case(OTHER_DTYPE, y.astype(float), ACCEPT, y),
                Case(OTHER_DTYPE, y.astype(np.uint8), ACCEPT, y),
                Case(OTHER_CONTAINER, y.tolist(), ACCEPT, y),
                Case(LABEL_SET, np.zeros_like(y), ACCEPT, np.zeros_like(y)),
            ]
        )
    )


@st.composite
def odd_labellings(draw: st.DrawFn, Y: list[np.ndarray], n_labels: int) -> Case:
    """Odd versions of a list of label arrays ``Y[k]`` in ``0 .. n_labels - 1``.

    Either the list is odd (wrong type, too short or long, empty) or one labelling is, drawn
    by :func:`odd_label_vectors` (whose wrong lengths are then a labelling too short or long for
    its sequence).
    """
    k = draw(st.integers(0, len(Y) - 1))
    if draw(st.booleans()):
        return draw(
            st.sampled_from(
                [
                    draw(odd_objects()),
                    Case(WRONG_LENGTH, Y[:k], REFUSE),
                    Case(WRONG_LENGTH, [*Y, Y[k]], REFUSE),
                    Case(OTHER_CONTAINER, tuple(Y), ACCEPT, Y),
                    Case(OTHER_CONTAINER, [y.tolist() for y in Y], ACCEPT, Y),
                ]
            )
        )
    inner = draw(odd_label_vectors(Y[k], n_labels))
    odd = [*Y[:k], inner.value, *Y[k + 1 :]]
    same = inner.same_as if inner.same_as is _NOTHING else [*Y[:k], inner.same_as, *Y[k + 1 :]]
    return Case(inner.category, odd, inner.expect, same)


# ----------------------------------------------------------------------------- numbers
def odd_numbers() -> st.SearchStrategy[Any]:
    """Numbers of every kind and range, and things that are not numbers."""
    return st.one_of(
        st.floats(),
        st.integers(-(2**70), 2**70),
        st.sampled_from([0, 1, 2, -1, 0.0, -0.0, 1e-300, 5e-324, 1e300, True, False]),
        st.complex_numbers(max_magnitude=10, allow_nan=False),
        st.sampled_from([np.float64(np.nan), np.int64(3), np.float32(0.5), np.array(2.0)]),
        st.text(max_size=3),
        st.none(),
        st.lists(st.floats(0, 2), min_size=1, max_size=2),
    )


def is_real(value: Any) -> bool:
    """Tell whether ``value`` is a finite real number (not a bool, not an array)."""
    if isinstance(value, bool | np.bool_):
        return False
    return is_integer(value) or (isinstance(value, float | np.floating) and math.isfinite(value))


def is_integer(value: Any) -> bool:
    """Tell whether ``value`` is an integer (not a bool)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
