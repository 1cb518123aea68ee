"""Blocks of constraint rows that grow in place: new rows are written into spare storage.

A block of rows is a view of the first rows of a larger storage: a dense array, or the
``data``, ``indices`` and ``indptr`` arrays of a CSR matrix. :func:`appended` writes new rows
right after the block when the block holds every row written into its storage so far, and
otherwise (an older block, whose storage later rows have filled) copies into new storage;
:func:`selected` writes the chosen rows once into new storage. New storage has room for as
many rows again (geometric growth), so most appends copy only the new rows.

Storage is never written below its filled length, so the rows of a block never change, and
blocks that share storage are safe to keep: the filled length of every storage is kept in one
registry, by the storage's identity, and forgotten with the storage. A block holds only its
rows: copying, pickling or saving it (``np.save``, model files) writes no spare storage.

Storage is memory mapped for it alone: room never written takes no memory, and storage that
no block holds any more goes back to the system at once (freed to the C heap, it would stay
with the process and keep its peak memory up).
"""

from __future__ import annotations

import contextlib
import math
import mmap
import threading
import weakref
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from structsvm.solvers._oracle import FeatureMatrix

GROWTH = 2
"""New storage holds this many times the rows (and entries) written into it. SciPy copies the
parts of a CSR matrix that are views of less than half their storage, so it is at most 2."""

HUGE_PAGE = 2 << 20
"""The size of a transparent huge page (x86-64, and arm64 with 4 KB pages)."""


class _FilledLengths:
    """The number of rows written into each storage array, forgotten when the array is."""

    def __init__(self) -> None:
        self._rows: dict[int, int] = {}
        self._lock = threading.Lock()

    def register(self, storage: np.ndarray, rows: int) -> None:
        """Record new ``storage`` with its first ``rows`` rows written."""
        key = id(storage)
        self._rows[key] = rows
        weakref.finalize(storage, self._rows.pop, key, None).atexit = False

    def claim(self, storage: np.ndarray, rows: int, more: int) -> bool:
        """Take the ``more`` rows after the first ``rows`` of ``storage`` for writing.

        They are given once: only if exactly ``rows`` rows are written so far.
        """
        with self._lock:
            if self._rows.get(id(storage)) != rows:
                return False
            self._rows[id(storage)] = rows + more
            return True


_FILLED = _FilledLengths()


def _storage_of(view: np.ndarray) -> np.ndarray | None:
    """Return the array whose leading part ``view`` is, or None if it is not such a view."""
    base = view.base
    if (
        not isinstance(base, np.ndarray)
        or base.dtype != view.dtype
        or base.strides != view.strides
        or base.__array_interface__["data"][0] != view.__array_interface__["data"][0]
    ):
        return None
    return base


def _capacity(rows: int) -> int:
    return GROWTH * rows


def _empty(shape: tuple[int, ...], dtype: np.dtype, written: int) -> np.ndarray:
    """Return an uninitialised array in private pages mapped for it alone (at least one page),
    whose first ``written`` rows the caller writes at once.

    The whole huge pages of those rows ask to be huge pages where the system has them: writing
    them takes few page faults, and as a huge page is resident whole once touched, the rest (the
    room to grow) stays in small pages, resident only where written. Without private mappings
    (Windows) the C heap is used.
    """
    if not hasattr(mmap, "MAP_PRIVATE"):
        return np.empty(shape, dtype)
    row_bytes = math.prod(shape[1:]) * np.dtype(dtype).itemsize
    huge = written * row_bytes // HUGE_PAGE * HUGE_PAGE if hasattr(mmap, "MADV_HUGEPAGE") else 0
    # With huge pages, the array starts on a huge page's boundary (a huge page must be aligned),
    # the mapping one huge page longer for it; the pages before the start are never written.
    pages = mmap.mmap(
        -1, max(shape[0] * row_bytes, 1) + (HUGE_PAGE if huge else 0), flags=mmap.MAP_PRIVATE
    )
    start = 0
    if huge:
        start = -np.frombuffer(pages, np.uint8).ctypes.data % HUGE_PAGE
        with contextlib.suppress(OSError):  # a system without transparent huge pages
            pages.madvise(mmap.MADV_HUGEPAGE, start, huge)
    return np.ndarray(shape, dtype, buffer=pages, offset=start)


def appended(rows: FeatureMatrix, new: FeatureMatrix) -> FeatureMatrix:
    """Return the rows ``rows`` followed by ``new`` (CSR if either is sparse).

    The new rows are written after ``rows`` in its storage when ``rows`` is the longest block
    of it and there is room; otherwise both are copied into new storage. ``rows`` is unchanged.
    """
    if rows.shape[1] != new.shape[1]:
        raise ValueError(f"new rows must have {rows.shape[1]} columns, got {new.shape[1]}")
    if sp.issparse(rows) or sp.issparse(new):
        return _appended_csr(_as_csr(rows), _as_csr(new), _container(new))
    return _appended_dense(np.asarray(rows), np.asarray(new))


def selected(rows: FeatureMatrix, mask: np.ndarray) -> FeatureMatrix:
    """Return the rows where ``mask`` is true, written once into new storage with room to grow."""
    if sp.issparse(rows):
        return _selected_csr(_as_csr(rows), mask, _container(rows))
    kept = np.flatnonzero(mask)
    storage = _empty((_capacity(len(kept)), rows.shape[1]), rows.dtype, len(kept))
    view = storage[: len(kept)]
    np.take(rows, kept, axis=0, out=view, mode="clip")  # "raise" would write via a temporary
    _FILLED.register(storage, len(kept))
    return view


def _appended_dense(rows: np.ndarray, new: np.ndarray) -> np.ndarray:
    n, k = len(rows), len(new)
    dtype = np.result_type(rows, new)
    storage = _storage_of(rows)
    if (
        storage is None
        or storage.dtype != dtype
        or len(storage) < n + k
        or not _FILLED.claim(storage, n, k)
    ):
        storage = _empty((_capacity(n + k), rows.shape[1]), dtype, n + k)
        storage[:n] = rows
        _FILLED.register(storage, n + k)
    storage[n : n + k] = new
    return storage[: n + k]


class _CSRStorage(NamedTuple):
    """The arrays of CSR rows with spare room: entries ``data`` and ``indices``, row starts
    ``indptr``."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray

    @classmethod
    def allocate(
        cls, rows: int, entries: int, dtype: np.dtype, index_dtype: np.dtype
    ) -> _CSRStorage:
        """Return storage for ``rows`` rows of ``entries`` entries in all, with room to grow."""
        indptr = _empty((_capacity(rows) + 1,), index_dtype, rows + 1)
        indptr[0] = 0
        _FILLED.register(indptr, rows)
        return cls(
            _empty((_capacity(entries),), dtype, entries),
            _empty((_capacity(entries),), index_dtype, entries),
            indptr,
        )

    @classmethod
    def of(cls, rows: sp.csr_matrix) -> _CSRStorage | None:
        """Return the storage whose leading rows ``rows`` are, or None if it has none."""
        parts = [_storage_of(part) for part in (rows.data, rows.indices, rows.indptr)]
        return None if any(part is None for part in parts) else cls(*parts)

    def view(self, n: int, nnz: int, columns: int, container: type) -> sp.csr_matrix:
        """Return the first ``n`` rows, of ``nnz`` entries, as a CSR matrix sharing storage."""
        return container(
            (self.data[:nnz], self.indices[:nnz], self.indptr[: n + 1]), shape=(n, columns)
        )


def _container(matrix: FeatureMatrix) -> type:
    """Return the CSR class of ``matrix``'s kind: sparse array or sparse matrix."""
    return sp.csr_array if isinstance(matrix, sp.sparray) else sp.csr_matrix


def _as_csr(matrix: FeatureMatrix) -> sp.csr_matrix:
    if sp.issparse(matrix):
        return matrix if matrix.format == "csr" else matrix.tocsr()
    return sp.csr_matrix(matrix)


def _index_dtype(rows: int, columns: int, entries: int) -> np.dtype:
    """Return the index dtype SciPy gives a CSR matrix of this size (and keeps in a view)."""
    return np.dtype(sp.get_index_dtype(maxval=max(rows, columns, entries)))


def _appended_csr(rows: sp.csr_matrix, new: sp.csr_matrix, container: type) -> sp.csr_matrix:
    n, k, columns = rows.shape[0], new.shape[0], rows.shape[1]
    nnz, extra = int(rows.indptr[n]), int(new.indptr[k])
    dtype = np.result_type(rows.dtype, new.dtype)
    index_dtype = _index_dtype(n + k, columns, nnz + extra)
    storage = _CSRStorage.of(rows)
    if (
        storage is None
        or storage.data.dtype != dtype
        or storage.indptr.dtype != index_dtype
        or len(storage.indptr) < n + k + 1
        or len(storage.data) < nnz + extra
        or not _FILLED.claim(storage.indptr, n, k)
    ):
        storage = _CSRStorage.allocate(n + k, nnz + extra, dtype, index_dtype)
        storage.data[:nnz] = rows.data[:nnz]
        storage.indices[:nnz] = rows.indices[:nnz]
        storage.indptr[: n + 1] = rows.indptr
    storage.data[nnz : nnz + extra] = new.data[:extra]
    storage.indices[nnz : nnz + extra] = new.indices[:extra]
    np.add(new.indptr[1:], nnz, out=storage.indptr[n + 1 : n + k + 1], dtype=index_dtype)
    return storage.view(n + k, nnz + extra, columns, container)


def _selected_csr(rows: sp.csr_matrix, mask: np.ndarray, container: type) -> sp.csr_matrix:
    mask = np.asarray(mask, dtype=bool)
    lengths = np.diff(rows.indptr)[mask]
    k, nnz = len(lengths), int(lengths.sum())
    storage = _CSRStorage.allocate(k, nnz, rows.dtype, _index_dtype(k, rows.shape[1], nnz))
    np.cumsum(lengths, out=storage.indptr[1 : k + 1])
    runs = np.flatnonzero(np.diff(mask, prepend=False, append=False)).reshape(-1, 2)
    position = 0
    for start, stop in rows.indptr[runs].tolist():  # the entries of each run of kept rows
        end = position + stop - start
        storage.data[position:end] = rows.data[start:stop]
        storage.indices[position:end] = rows.indices[start:stop]
        position = end
    return storage.view(k, nnz, rows.shape[1], container)
