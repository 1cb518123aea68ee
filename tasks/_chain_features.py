"""Joint features of linear chains, as the rows of a CSR matrix: a batch's in NumPy, one
sequence's compiled (for the compiled oracle).

φ of a sequence holds, in increasing column order: the emission sums ``Σ_{t: y_t = l} x_t`` per
label, the counts of label pairs and triples, the first and last labels, and the label counts
(:class:`tasks.ChainTask`). Positions are read in CSR form, so the work grows with the stored
entries; every sum adds its terms in position order, so dense and sparse give the same bits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np
import scipy.sparse

from structsvm._utils.parallel import run_in_parts

if TYPE_CHECKING:
    from tasks._chain_oracle import ChainData


def dense_rows_as_csr(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(indptr, indices, data)`` (int64, int64, float64) of the non-zero entries of a
    dense (N, d) array of any real type, row by row, in contiguous arrays of their own.

    (``np.nonzero`` gives strided views of one array holding the row indices too, which the
    column indices would otherwise keep alive.)
    """
    rows, columns = np.nonzero(X)
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=X.shape[0]), out=indptr[1:])
    values = X[rows, columns].astype(np.float64)
    return indptr, np.ascontiguousarray(columns, dtype=np.int64), values


def features_csr(data: ChainData, size: int) -> scipy.sparse.csr_matrix:
    """Return the joint feature of every sequence of ``data`` as the rows of a CSR matrix.

    ``size`` is the length of φ. Built with NumPy and SciPy, without compiling: the emission
    sums are one sparse product, ``P @ X`` with ``P[(k, l), t] = 1`` where sequence k has label
    l at position t, which adds the terms of every sum in position order, as
    :func:`sequence_features` does, and leaves out the sums that are exactly zero; the label
    pairs, triples and labels are counted by :func:`numpy.unique`. The matrix is canonical
    (sorted, distinct columns), with the same entries as :func:`sequence_features` writes.
    """
    offsets, labels = data.offsets, data.labels
    n_sequences, n_labels, n_features = len(offsets) - 1, data.n_labels, data.n_features
    n_positions = int(offsets[-1])
    sequence = np.repeat(np.arange(n_sequences, dtype=np.int64), np.diff(offsets))
    # The (sequence, label) pairs that occur, increasing, and the pair of each position.
    pairs, pair_of, pair_counts = np.unique(
        sequence * n_labels + labels, return_inverse=True, return_counts=True
    )
    pair_sequence, pair_label = np.divmod(pairs, n_labels)
    by_pair = scipy.sparse.csr_matrix(
        (np.ones(n_positions), pair_of, np.arange(n_positions + 1)),
        shape=(n_positions, len(pairs)),
    ).T.tocsr()
    sums = by_pair @ scipy.sparse.csr_matrix(
        (data.values, data.indices, data.indptr), shape=(n_positions, n_features)
    )
    sums.sort_indices()
    # A sequence's pairs are consecutive rows of the sums, in label order: its emissions. The
    # columns are shifted by label in place, in the smallest index type that holds them.
    index = np.int32 if max(size, sums.nnz) <= np.iinfo(np.int32).max else np.int64
    columns = sums.indices.astype(index, copy=False)
    columns += np.repeat((pair_label * n_features).astype(index), np.diff(sums.indptr))
    first_pairs = np.searchsorted(pair_sequence, np.arange(n_sequences + 1))
    emissions = scipy.sparse.csr_matrix(
        (sums.data, columns, sums.indptr[first_pairs]), shape=(n_sequences, size)
    )
    blocks = []
    if data.use_transitions:
        t = np.flatnonzero(followed_by(offsets, 1))
        codes = labels[t] * n_labels + labels[t + 1]
        blocks.append(_counted(sequence[t], codes, n_labels**2, data.transitions_at))
    if data.use_triples:
        t = np.flatnonzero(followed_by(offsets, 2))
        codes = (labels[t] * n_labels + labels[t + 1]) * n_labels + labels[t + 2]
        blocks.append(_counted(sequence[t], codes, n_labels**3, data.triples_at))
    if data.use_start_end:
        every, ones = np.arange(n_sequences, dtype=np.int64), np.ones(n_sequences)
        blocks.append((every, data.start_at + labels[offsets[:-1]], ones))
        blocks.append((every, data.end_at + labels[offsets[1:] - 1], ones))
    if data.use_bias:
        blocks.append((pair_sequence, data.bias_at + pair_label, pair_counts.astype(np.float64)))
    if not blocks:
        return emissions
    # Rows made from (row, column) entries in this order keep their columns increasing.
    rows, columns, values = (np.concatenate(part) for part in zip(*blocks, strict=True))
    chain_part = scipy.sparse.csr_matrix((values, (rows, columns)), shape=(n_sequences, size))
    chain_part.has_sorted_indices = True
    # The two have no column in common: the sum takes each entry as it is.
    return emissions + chain_part


def followed_by(offsets: np.ndarray, count: int) -> np.ndarray:
    """Return, for every position of the sequences that ``offsets`` delimits, whether at least
    ``count`` more positions of its sequence follow it (bool, shape (offsets[-1],))."""
    lengths = np.diff(offsets)
    place = np.arange(offsets[-1]) - np.repeat(offsets[:-1], lengths)
    return place < np.repeat(lengths, lengths) - count


def _counted(
    rows: np.ndarray, codes: np.ndarray, n_codes: int, at: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the (row, column, count) of each code (0 .. n_codes - 1) that occurs in a row,
    at column ``at + code``, sorted by row and column."""
    keys, counts = np.unique(rows * n_codes + codes, return_counts=True)
    row, code = np.divmod(keys, n_codes)
    return row, at + code, counts.astype(np.float64)


@numba.njit(cache=True, inline="always")
def entries_bound(data: ChainData, first: int, stop: int) -> int:
    """Return a bound on the entries of the joint feature of the sequence in rows ``first:stop``.

    Its emissions take at most the stored entries of its rows; its chain part (transitions,
    start, end, bias) at most ``2 * length + 2 + min(length, n_labels)``.
    """
    length = stop - first
    return data.indptr[stop] - data.indptr[first] + 2 * length + 2 + min(length, data.n_labels)


@numba.njit(cache=True)
def sequence_features(
    data: ChainData, first: int, stop: int, labels: np.ndarray, indices: np.ndarray,
    values: np.ndarray,
) -> int:
    """Write φ of the sequence in rows ``first:stop``, labelled ``labels``, into the arrays.

    Returns the number of entries written, in increasing column order.
    """
    label_counts = np.zeros(data.n_labels)
    for label in labels:
        label_counts[label] += 1.0
    if data.n_features <= data.indptr[stop] - data.indptr[first]:
        nnz = _accumulated_emissions(data, first, labels, label_counts, indices, values)
    else:
        nnz = _sorted_emissions(data, first, stop, labels, indices, values)
    return nnz + _chain_part_features(data, labels, label_counts, indices[nnz:], values[nnz:])


@numba.njit(cache=True, inline="always")
def _accumulated_emissions(
    data: ChainData, first: int, labels: np.ndarray, label_counts: np.ndarray,
    indices: np.ndarray, values: np.ndarray,
) -> int:
    """Write the emission sums of the rows from ``first`` by a dense accumulator per label.

    For sequences that store at least ``n_features`` entries: each sum adds its terms in
    position order, as :func:`_sorted_emissions` does, so both give the same bits. A label at
    one position only takes that row's entries as they are, when its columns increase.
    """
    X_indptr, X_indices, X_data = data.indptr, data.indices, data.values
    n_features = data.n_features
    totals = np.zeros(n_features)
    nnz = 0
    for label in range(len(label_counts)):
        if label_counts[label] == 0:
            continue
        offset = label * n_features
        if label_counts[label] == 1:
            t = first
            while labels[t - first] != label:
                t += 1
            copied = _copy_increasing_row(
                X_indices, X_data, X_indptr[t], X_indptr[t + 1], offset, indices[nnz:],
                values[nnz:],
            )
            if copied >= 0:
                nnz += copied
                continue
        for t in range(first, first + len(labels)):
            if labels[t - first] != label:
                continue
            for p in range(X_indptr[t], X_indptr[t + 1]):
                totals[X_indices[p]] += X_data[p]
        # Every column is written and kept if its sum is not zero, without a branch: the
        # arrays have room past the emissions (the bound counts the chain part too).
        for column in range(n_features):
            total = totals[column]
            indices[nnz] = offset + column
            values[nnz] = total
            nnz += total != 0.0
            totals[column] = 0.0
    return nnz


@numba.njit(cache=True, inline="always")
def _copy_increasing_row(
    X_indices: np.ndarray, X_data: np.ndarray, begin: int, end: int, offset: int,
    indices: np.ndarray, data: np.ndarray,
) -> int:
    """Write the non-zero entries ``begin:end`` at columns shifted by ``offset``; return how many.

    Returns -1 (what was written is then to be overwritten) if the columns do not increase.
    """
    nnz = 0
    previous = -1
    for p in range(begin, end):
        column = X_indices[p]
        if column <= previous:
            return -1
        previous = column
        if X_data[p] != 0.0:
            indices[nnz] = offset + column
            data[nnz] = X_data[p]
            nnz += 1
    return nnz


@numba.njit(cache=True, inline="always")
def _sorted_emissions(
    data: ChainData, first: int, stop: int, labels: np.ndarray, indices: np.ndarray,
    values: np.ndarray,
) -> int:
    """Write the emission sums of rows ``first:stop`` by sorting their stored entries."""
    X_indptr, X_indices, X_data, n_labels = data.indptr, data.indices, data.values, data.n_labels
    label_entries = np.zeros(n_labels + 1, dtype=np.int64)
    nnz = 0
    # Emissions: bucket the stored entries by their position's label (a counting sort), then
    # sort each bucket by (column, entry number), so that the entries of one column are
    # summed in position order.
    entries_at = X_indptr[first]
    n_entries = X_indptr[stop] - entries_at
    for t in range(first, stop):
        label_entries[labels[t - first] + 1] += X_indptr[t + 1] - X_indptr[t]
    for label in range(n_labels):
        label_entries[label + 1] += label_entries[label]
    keys = np.empty(n_entries, dtype=np.int64)
    for t in range(first, stop):
        label = labels[t - first]
        for p in range(X_indptr[t], X_indptr[t + 1]):
            keys[label_entries[label]] = X_indices[p] * n_entries + (p - entries_at)
            label_entries[label] += 1
    bucket_start = 0
    for label in range(n_labels):
        bucket_stop = label_entries[label]
        shell_sort(keys[bucket_start:bucket_stop])
        position = bucket_start
        while position < bucket_stop:
            column = keys[position] // n_entries
            total = 0.0
            while position < bucket_stop and keys[position] // n_entries == column:
                total += X_data[entries_at + keys[position] % n_entries]
                position += 1
            if total != 0.0:
                indices[nnz] = label * data.n_features + column
                values[nnz] = total
                nnz += 1
        bucket_start = bucket_stop
    return nnz


@numba.njit(cache=True, inline="always")
def _chain_part_features(
    data: ChainData, labels: np.ndarray, label_counts: np.ndarray, indices: np.ndarray,
    values: np.ndarray,
) -> int:
    """Write the transition, triple, start, end and bias entries of a labelling."""
    # The pair and triple codes are written where their entries go, then sorted and counted
    # in place (the bound leaves room for every code).
    n_labels, length = data.n_labels, len(labels)
    nnz = 0
    if data.use_transitions and length > 1:
        codes = indices[nnz:]
        for t in range(length - 1):
            codes[t] = labels[t] * n_labels + labels[t + 1]
        nnz += _count_codes(codes, length - 1, data.transitions_at, values[nnz:])
    if data.use_triples and length > 2:
        codes = indices[nnz:]
        for t in range(length - 2):
            codes[t] = (labels[t] * n_labels + labels[t + 1]) * n_labels + labels[t + 2]
        nnz += _count_codes(codes, length - 2, data.triples_at, values[nnz:])
    if data.use_start_end:
        indices[nnz] = data.start_at + labels[0]
        values[nnz] = 1.0
        indices[nnz + 1] = data.end_at + labels[length - 1]
        values[nnz + 1] = 1.0
        nnz += 2
    if data.use_bias:
        for label in range(n_labels):
            if label_counts[label] > 0:
                indices[nnz] = data.bias_at + label
                values[nnz] = label_counts[label]
                nnz += 1
    return nnz


@numba.njit(cache=True)
def _count_codes(codes: np.ndarray, n_codes: int, at: int, counts: np.ndarray) -> int:
    """Turn ``codes[:n_codes]`` into the distinct columns ``at + code``, increasing, in place.

    ``counts`` receives how often each occurs; returns how many distinct codes there are.
    """
    shell_sort(codes[:n_codes])
    n_distinct = position = 0
    while position < n_codes:
        code = codes[position]
        run = 0
        while position < n_codes and codes[position] == code:
            run += 1
            position += 1
        codes[n_distinct] = at + code
        counts[n_distinct] = run
        n_distinct += 1
    return n_distinct


@numba.njit(cache=True)
def shell_sort(keys: np.ndarray) -> None:
    """Sort ``keys`` in place in increasing order (Shell's sort, Knuth's gaps 1, 4, 13, …).

    The few short runs of a sequence's codes and entries sort about as fast as by a quicksort,
    and the function compiles in about an eighth of the CPU time of Numba's ``ndarray.sort``.

    References
    ----------
    D. L. Shell, "A high-speed sorting procedure", Communications of the ACM 2(7), 1959.
    D. E. Knuth, The Art of Computer Programming, vol. 3, 2nd ed., §5.2.1, 1998.
    """
    n = len(keys)
    gap = 1
    while gap < n // 3:
        gap = 3 * gap + 1
    while gap > 0:
        for k in range(gap, n):
            key, into = keys[k], k
            while into >= gap and keys[into - gap] > key:
                keys[into] = keys[into - gap]
                into -= gap
            keys[into] = key
        gap //= 3


@numba.njit(cache=True, inline="always")
def add_position_scores(
    X_indptr: np.ndarray, X_indices: np.ndarray, X_data: np.ndarray, emissions: np.ndarray,
    t: int, row: np.ndarray,
) -> None:
    """Add ``x_t · emissions[l]`` to ``row[l]`` for CSR row t, term by term in entry order.

    Four entries are added per sweep over the labels, each sum kept in a register meanwhile:
    the same additions in the same order, a quarter of the loads and stores of ``row``.
    """
    p, stop = X_indptr[t], X_indptr[t + 1]
    while p + 4 <= stop:
        j_0, j_1, j_2, j_3 = X_indices[p], X_indices[p + 1], X_indices[p + 2], X_indices[p + 3]
        v_0, v_1, v_2, v_3 = X_data[p], X_data[p + 1], X_data[p + 2], X_data[p + 3]
        for label in range(row.shape[0]):
            total = row[label]
            total += v_0 * emissions[label, j_0]
            total += v_1 * emissions[label, j_1]
            total += v_2 * emissions[label, j_2]
            total += v_3 * emissions[label, j_3]
            row[label] = total
        p += 4
    for rest in range(p, stop):
        j, value = X_indices[rest], X_data[rest]
        for label in range(row.shape[0]):
            row[label] += value * emissions[label, j]


@numba.njit(cache=True, nogil=True)
def add_unary_scores(
    X_indptr: np.ndarray, X_indices: np.ndarray, X_data: np.ndarray, emissions: np.ndarray,
    first: int, stop: int, unary: np.ndarray,
) -> None:
    """Add ``x_t · emissions[l]`` to ``unary[t, l]`` for the CSR rows ``first:stop``.

    Releases the GIL, so that runs of rows are scored on threads.
    """
    for t in range(first, stop):
        add_position_scores(X_indptr, X_indices, X_data, emissions, t, unary[t])


#: The fewest rows that :func:`sparse_unary_scores` gives a thread of their own.
ROWS_PER_THREAD = 256


def sparse_unary_scores(
    X_indptr: np.ndarray, X_indices: np.ndarray, X_data: np.ndarray, emissions: np.ndarray
) -> np.ndarray:
    """Return ``X_all @ emissions.T`` for CSR rows ``X_all``, shape (N, n_labels).

    Reads only the columns of ``emissions`` (L, d) that the rows store, so a batch of short
    sparse sequences costs its stored entries times L, not ``L * d``. Runs of rows are scored
    on Numba's number of threads (:func:`numba.get_num_threads`); every row is summed by the
    same serial code, so the result does not depend on the number of threads.
    """
    unary = np.zeros((len(X_indptr) - 1, emissions.shape[0]))

    def run(first: int, stop: int) -> None:
        add_unary_scores(X_indptr, X_indices, X_data, emissions, first, stop, unary)

    run_in_parts(run, len(unary), -(-len(unary) // ROWS_PER_THREAD))
    return unary
