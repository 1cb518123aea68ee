"""The compiled oracle: how a task hands its structure to every solver's compiled passes.

A task that can decode in Numba describes itself once, by four compiled functions over data it
prepares once per fit (:class:`CompiledOracle`); every solver owns its compiled passes and
writes them once against these four functions, so that a new task is fast under every solver
and a new solver is fast on every task. An output crosses the protocol as its *labels*: the
int64 array ``np.ravel(y)``, of a length fixed by the example (one class, one label per
position, per node, …).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import logging
import os
import pkgutil
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
import scipy.sparse
from numba.core.errors import NumbaExperimentalFeatureWarning

if TYPE_CHECKING:
    from structsvm._task import Task

LOGGER = logging.getLogger("structsvm")

# The passes take the oracle's functions as arguments, which Numba compiles as first-class
# functions and warns about once per compilation; the protocol relies on it by design. The
# message may begin with terminal colour codes.
warnings.filterwarnings(
    "ignore", message=".*First-class function type", category=NumbaExperimentalFeatureWarning
)


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
def no_labelling_score(data, i, w, scores, labels):
    """The absent ``labelling_score`` of :class:`CompiledOracle`: NaN, whatever it is asked."""
    return np.nan


@numba.njit(cache=True)
def no_add_features(data, i, labels, scale, out):
    """The absent ``add_features`` of :class:`CompiledOracle`: False, ``out`` untouched."""
    return False


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

    def functions(self) -> tuple[Any, Any, Any, Any, Any, Any]:
        """Return ``(scores, decode, features, loss, labelling_score, add_features)``.

        The compiled passes take this tuple as an argument; :func:`stable_dispatcher` gives
        each function an identity that Numba's on-disk cache can find again in a new process.
        """
        guard_pass_caches()
        return (
            stable_dispatcher(self.scores),
            stable_dispatcher(self.decode),
            stable_dispatcher(self.features),
            stable_dispatcher(self.loss),
            stable_dispatcher(self.labelling_score),
            stable_dispatcher(self.add_features),
        )

    @property
    def offers_labelling_score(self) -> bool:
        """Whether the task offers ``labelling_score`` (passes then keep the part scores)."""
        return self.labelling_score is not no_labelling_score

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


@functools.cache
def guard_pass_caches() -> None:
    """Let the on-disk caches of the compiled passes drop entries they can no longer write.

    A pass's cache index keys its entries by the oracle functions they were compiled for, and
    writing it back fails once one of those is gone. Every compiled function of
    :mod:`structsvm.solvers` that takes the oracle's functions (its argument ``fns``) then
    empties its index and writes the new entry alone: the cache loses old entries, never a fit.
    """
    package = importlib.import_module("structsvm.solvers")
    for info in pkgutil.iter_modules(package.__path__, "structsvm.solvers."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            cache = getattr(value, "_cache", None)
            function = getattr(value, "py_func", None)
            if function is None or not hasattr(cache, "flush"):
                continue
            if "fns" in inspect.signature(function).parameters:
                _guard_cache(cache)


def _guard_cache(cache: Any) -> None:
    """Wrap ``cache.save_overload`` so that an unwritable index is emptied, then written."""
    save = cache.save_overload

    def save_overload(sig: Any, data: Any) -> None:
        try:
            save(sig, data)
        except ReferenceError:
            LOGGER.info("a compiled pass's cache index named vanished oracles: emptied")
            cache.flush()
            save(sig, data)

    if not getattr(save, "guarded", False):
        save_overload.guarded = True
        cache.save_overload = save_overload


def stable_dispatcher(dispatcher: Any) -> Any:
    """Give a Numba dispatcher an identity fixed by its code; return it.

    Numba caches a compiled function that takes another by the argument's identity, a random
    UUID per process unless set. The UUID set here is made of the function's module, name and
    source file's modification time and size, so a pass compiled once is found again by a new
    process, and compiled anew when the oracle's file changes. A dispatcher whose identity was
    already fixed is returned as it is.
    """
    if getattr(dispatcher, "_MemoMixin__uuid", None) is not None:
        return dispatcher
    function = dispatcher.py_func
    try:
        source = inspect.getsourcefile(function)
        stamp = os.stat(source) if source else None
    except (OSError, TypeError):
        stamp = None
    where = "" if stamp is None else f"{source}:{stamp.st_mtime_ns}:{stamp.st_size}"
    identity = f"{function.__module__}.{function.__qualname__}:{where}"
    if stamp is None:
        # No source to stamp: an identity unique to this process, as Numba's own.
        identity += f":{os.getpid()}:{id(dispatcher)}"
    dispatcher._set_uuid(hashlib.sha256(identity.encode()).hexdigest())
    return dispatcher


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
