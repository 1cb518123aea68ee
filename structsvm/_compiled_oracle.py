"""The compiled oracle: how a task hands its structure to every solver's compiled passes.

A task that can decode in Numba describes itself once, by four compiled functions over data it
prepares once per fit (:class:`CompiledOracle`); every solver owns its compiled passes and
writes them once against these four functions, so that a new task is fast under every solver
and a new solver is fast on every task. An output crosses the protocol as its *labels*: the
int64 array ``np.ravel(y)``, of a length fixed by the example (one class, one label per
position, per node, …).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
import scipy.sparse
from numba.core import types

from structsvm._native_function import NativeFunction

if TYPE_CHECKING:
    from structsvm._task import Task

LOGGER = logging.getLogger("structsvm")


#: The compiled oracle's functions, in the order of :meth:`CompiledOracle.functions`.
ORACLE_FUNCTIONS = ("scores", "decode", "features", "loss", "labelling_score", "add_features")

#: Numba's type of an example's part scores: a C-contiguous 2-D float64 array.
PART_SCORES = types.float64[:, ::1]


class ScoreTable(NamedTuple):
    """The part scores of every example at one ``w``, stacked: what a batched scoring makes.

    Attributes
    ----------
    scores : ndarray of shape (rows, columns), float64, C-contiguous
        Example i's part scores are the rows ``offsets[i]:offsets[i + 1]``, equal to
        ``CompiledOracle.scores(data, i, w)``.
    offsets : ndarray of shape (n + 1,), int64
    """

    scores: np.ndarray
    offsets: np.ndarray


@numba.njit(cache=True)
def unscored(data, i, w):
    """The ``scores`` of passes that take every example's part scores from a
    :class:`ScoreTable` and never call it: raises if called (``i`` is never negative)."""
    if i >= 0:
        raise RuntimeError("scores called by a pass that scores every example at once")
    return np.zeros((0, 0))


@numba.njit(cache=True)
def unfeatured(data, i, labels):
    """The ``features`` of passes that add φ by the task's ``add_features`` and take ``w · φ``
    by its ``labelling_score``, and never call it: raises if called (``i`` is never negative)."""
    if i >= 0:
        raise RuntimeError("features called by a pass that adds them by add_features")
    return np.zeros(0, dtype=np.int64), np.zeros(0)


@numba.njit(cache=True)
def no_labelling_score(data, i, w, scores, labels):
    """The absent ``labelling_score`` of :class:`CompiledOracle`: NaN, whatever it is asked."""
    return np.nan


@numba.njit(cache=True)
def no_add_features(data, i, labels, scale, out):
    """The absent ``add_features`` of :class:`CompiledOracle`: False, ``out`` untouched."""
    return False


#: The stand-ins that :meth:`CompiledOracle.functions` hands a pass for the functions it never
#: calls, by name.
STAND_INS = {"scores": unscored, "features": unfeatured}


class CompiledOracle(NamedTuple):
    """A task's oracle as Numba functions over training data prepared once per fit.

    Returned by :meth:`structsvm.Task.compiled_oracle`. Each function is a
    ``numba.njit(cache=True)`` function (a dispatcher); ``data`` is a tuple of arrays and
    scalars that they read and never write; ``i`` numbers the examples of the (X, Y) the oracle
    was prepared for, and ``labels`` is an output as an int64 array (``np.ravel(y)``).

    ``scores(data, i, w) -> ndarray (rows, columns)``
        Example i's part scores at ``w`` (a chain's unary scores, one row per position; a
        class's score, one row): a fresh C-contiguous float64 array.
    ``decode(data, i, w, scores, augmented) -> labels``
        The output maximising ``w · φ(x_i, y)``, plus ``Δ(y_i, y)`` if ``augmented``, from
        example i's part scores (which it may overwrite) and the other weights in ``w``; exact,
        with the same ties as the task's Python oracles.
    ``features(data, i, labels) -> (indices, values)``
        φ(x_i, y): distinct int64 column indices in increasing order and their float64 values,
        as :meth:`~structsvm.Task.sparse_joint_feature` gives them.
    ``loss(data, i, labels) -> float``
        Δ(y_i, y).

    Two more functions are optional shortcuts that a task may offer for speed; the passes use
    them where offered and the four above otherwise:

    ``labelling_score(data, i, w, scores, labels) -> float``
        ``w · φ(x_i, y)`` computed from example i's part scores as ``scores`` returned them
        (before any loss augmentation), or NaN if not offered (:func:`no_labelling_score`).
    ``add_features(data, i, labels, scale, out) -> bool``
        Adds ``scale · φ(x_i, y)`` into the dense float64 vector ``out`` and returns True, or
        returns False with ``out`` untouched if not offered (:func:`no_add_features`). The
        same sums as ``features`` up to rounding.

    Attributes
    ----------
    data : tuple
    scores, decode, features, loss : numba dispatchers
    n_examples : int
    labelling_score, add_features : numba dispatchers
        The optional shortcuts; :func:`no_labelling_score` and :func:`no_add_features` when
        the task does not offer them.
    batch_scores : callable or None
        Optional Python function ``batch_scores(data, w) -> ScoreTable`` that scores every
        example at once (a BLAS product for dense inputs); passes at a fixed ``w`` use it instead
        of ``scores``, with the same results up to the rounding of the products.
    to_output : callable or None
        Turns the labels of example i back into the task's output, ``to_output(labels)``
        (None: the labels array is the output).
    to_labels : callable or None
        Turns an output into its labels, ``to_labels(y)``, for a task whose outputs are not
        integer arrays (None: ``np.ravel(y)`` as int64, :func:`labels_of`). The solvers ask it
        for the true outputs' labels; an example's labels have one length whatever the output.
    n_outputs : int or None
        Set by a task whose every example has the same few outputs, the single labels
        ``0, …, n_outputs − 1`` (the classes of a multiclass task): solvers that work on every
        output of an example at once (exact dual coordinate descent) need it. None otherwise.
    exact : bool, default=True
        False when ``decode`` may miss the maximum (approximate inference, as loopy
        max-product on graphs with cycles): the passes then report their duality gaps as not
        certified, as for outputs the task does not certify
        (:meth:`~structsvm.Task.is_certified`).
    """

    data: tuple
    scores: Any
    decode: Any
    features: Any
    loss: Any
    n_examples: int
    batch_scores: Callable[[tuple, np.ndarray], ScoreTable] | None = None
    to_output: Callable[[np.ndarray], Any] | None = None
    to_labels: Callable[[Any], np.ndarray] | None = None
    n_outputs: int | None = None
    exact: bool = True
    labelling_score: Any = no_labelling_score
    add_features: Any = no_add_features

    def functions(
        self, used: Collection[str] = ORACLE_FUNCTIONS, *, uncalled: Collection[str] = ()
    ) -> tuple[Any, ...]:
        """Return ``(scores, decode, features, loss, labelling_score, add_features)`` compiled.

        Each function named in ``used`` is compiled for the protocol's argument types over
        ``data`` (``i`` an int64; ``w``, ``labels``, ``out`` and the part scores C-contiguous
        float64 and int64 arrays) and handed to the compiled passes by address
        (:class:`~structsvm._native_function.NativeFunction`), so that a pass is compiled once
        per signature and never again with a task's code; the others are None, and a pass
        that calls none of them compiles none of them. The functions named in ``uncalled``,
        which the calling pass never calls on this oracle (``scores`` where it reads
        :attr:`batch_scores`, ``features`` where it has both shortcuts), get a stand-in of
        their signature that raises if called (:data:`STAND_INS`): the same compiled pass,
        without compiling the task's function.

        Raises
        ------
        ValueError
            If ``used`` names a function the protocol does not have, or ``uncalled`` one that
            has no stand-in.
        TypeError
            If ``scores`` returns another type than a C-contiguous 2-D float64 array.
        """
        unknown = sorted(set(used) - set(ORACLE_FUNCTIONS))
        if unknown:
            raise ValueError(f"used names {unknown}; expected names among {ORACLE_FUNCTIONS}")
        unknown = sorted(set(uncalled) - set(STAND_INS))
        if unknown:
            raise ValueError(f"uncalled names {unknown}; expected names among {list(STAND_INS)}")
        data = numba.typeof(self.data)
        example = (data, types.int64)
        w, labels = types.float64[::1], types.int64[::1]
        arguments = {
            "scores": (*example, w),
            "decode": (*example, w, PART_SCORES, types.boolean),
            "features": (*example, labels),
            "loss": (*example, labels),
            "labelling_score": (*example, w, PART_SCORES, labels),
            "add_features": (*example, labels, types.float64, w),
        }
        functions = tuple(
            NativeFunction(
                STAND_INS[name] if name in uncalled else getattr(self, name), arguments[name]
            )
            if name in used
            else None
            for name in ORACLE_FUNCTIONS
        )
        scores = functions[0]
        if scores is not None and scores.numba_type.signature.return_type != PART_SCORES:
            raise TypeError(
                f"the compiled oracle's scores ({self.scores.py_func.__qualname__}) returned "
                f"{scores.numba_type.signature.return_type}; expected {PART_SCORES}"
            )
        return functions

    @property
    def offers_labelling_score(self) -> bool:
        """Whether the task offers ``labelling_score`` (passes then keep the part scores)."""
        return self.labelling_score is not no_labelling_score

    @property
    def offers_add_features(self) -> bool:
        """Whether the task offers ``add_features``."""
        return self.add_features is not no_add_features

    def output(self, labels: np.ndarray) -> Any:
        """Return the task's output of ``labels``."""
        return labels if self.to_output is None else self.to_output(labels)

    def labels(self, y: Any) -> np.ndarray:
        """Return the labels of the task's output ``y``."""
        return labels_of(y) if self.to_labels is None else self.to_labels(y)

    def feature_rows(self, Y: Sequence[Any], size: int) -> scipy.sparse.csr_matrix:
        """Return the rows φ(x_i, y_i) of the outputs ``Y``, one per example, as a CSR matrix.

        ``size`` is the length of φ. Built from ``features``, so as sparse as φ is, whatever
        the task's own ``batch_joint_feature`` makes.
        """
        rows = [self.features(self.data, i, self.labels(y)) for i, y in enumerate(Y)]
        indptr = offsets_of([len(indices) for indices, _ in rows])
        if not rows:
            return scipy.sparse.csr_matrix((0, size))
        indices = np.concatenate([indices for indices, _ in rows])
        values = np.concatenate([values for _, values in rows])
        return scipy.sparse.csr_matrix((values, indices, indptr), shape=(len(rows), size))


def csr_arrays(matrix: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return a 2-D matrix as CSR arrays for compiled data (copies).

    Int64 row pointers and columns and float64 values; a dense array keeps every entry, zeros
    included.
    """
    if not scipy.sparse.issparse(matrix):
        dense = np.asarray(matrix, dtype=np.float64)
        n, d = dense.shape
        columns = np.tile(np.arange(d, dtype=np.int64), n)
        return np.arange(0, n * d + 1, d, dtype=np.int64), columns, dense.ravel().copy()
    csr = scipy.sparse.csr_matrix(matrix)
    return csr.indptr.astype(np.int64), csr.indices.astype(np.int64), csr.data.astype(np.float64)


def offsets_of(counts: Sequence[int]) -> np.ndarray:
    """Return where each of consecutive parts of the given sizes begins, and the end (int64)."""
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def labels_of(y: Any) -> np.ndarray:
    """Return an output as the protocol's labels, ``np.ravel(y)`` as int64."""
    return np.ravel(np.asarray(y)).astype(np.int64)


def find_compiled_oracle(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    *,
    compiled: bool | None,
    purpose: str,
) -> CompiledOracle | None:
    """Return the task's compiled oracle for a solver's passes, or None; never silently.

    Parameters
    ----------
    task : Task
    X, Y : the training set, as the task's ``check_data`` returned it
    compiled : bool or None
        True: the compiled passes are required; False: the caller runs its passes in Python;
        None: compiled where the task offers it.
    purpose : str
        What the passes are for (a solver and its options), for the message.

    Raises
    ------
    ValueError
        If ``compiled`` is True and the task offers no compiled oracle.
    """
    if compiled is False:
        LOGGER.info("%s: passes in Python, as compiled=False asks", purpose)
        return None
    oracle = task.compiled_oracle(X, Y)
    if oracle is None:
        message = (
            f"{purpose}: {type(task).__name__} offers no compiled oracle "
            "(Task.compiled_oracle), so the passes call its Python methods"
        )
        if compiled:
            raise ValueError(f"compiled=True cannot be met. {message}")
        LOGGER.info(message)
    return oracle
