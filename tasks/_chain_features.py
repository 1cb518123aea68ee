"""Compiled construction of a linear chain's joint features as the rows of a CSR matrix.

For sequence k with positions x_t and labels y_t the joint feature holds, in order: the feature
sums ``Σ_{t: y_t = l} x_t`` for every label l (emissions), the counts of label pairs
``(y_t, y_{t+1})`` (transitions), of label triples ``(y_t, y_{t+1}, y_{t+2})`` (second-order
transitions), indicators of the first and last labels, and label counts
(bias). Building the CSR arrays directly, one sequence at a time with sorted column indices,
avoids the sort and duplicate summation of a COO conversion.

The positions are read in CSR form (``indptr``, ``indices``, ``data``), so the work and the
memory grow with the stored entries of the sequence, never with ``n_labels * n_features``;
dense positions go through :func:`dense_rows_as_csr` first. Every emission sum adds its terms
in position order, so dense and sparse positions of the same values give the same bits.
:func:`parallel_chain_features_csr` builds the same arrays with the sequences spread over
Numba's threads.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def dense_rows_as_csr(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(indptr, indices, data)`` of the non-zero entries of a dense (N, d) array."""
    n_rows, n_columns = X.shape
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    indices = np.empty(n_rows * n_columns, dtype=np.int64)
    data = np.empty(n_rows * n_columns, dtype=np.float64)
    nnz = 0
    for t in range(n_rows):
        for j in range(n_columns):
            if X[t, j] != 0.0:
                indices[nnz] = j
                data[nnz] = X[t, j]
                nnz += 1
        indptr[t + 1] = nnz
    return indptr, indices[:nnz], data[:nnz]


@numba.njit(cache=True)
def chain_features_csr(
    X_indptr: np.ndarray,
    X_indices: np.ndarray,
    X_data: np.ndarray,
    n_features: int,
    Y_all: np.ndarray,
    offsets: np.ndarray,
    n_labels: int,
    transitions_at: int,
    triples_at: int,
    start_at: int,
    end_at: int,
    bias_at: int,
    use_transitions: bool,
    use_triples: bool,
    use_start_end: bool,
    use_bias: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(indptr, indices, data)`` of the joint features of every sequence.

    ``X_indptr``, ``X_indices`` and ``X_data`` hold all N positions (rows of width
    ``n_features``) one sequence after another in CSR form; ``Y_all`` (N,) holds their labels
    and ``offsets`` (n + 1,) marks where each sequence starts. The ``*_at`` arguments are the
    column where each block begins. Emission sums that come out exactly zero are left out.
    """
    n_sequences = len(offsets) - 1
    bound = 0
    for k in range(n_sequences):
        bound += entries_bound(X_indptr, offsets[k], offsets[k + 1], n_labels)
    indptr = np.zeros(n_sequences + 1, dtype=np.int64)
    indices = np.empty(bound, dtype=np.int64)
    data = np.empty(bound, dtype=np.float64)
    for k in range(n_sequences):
        indptr[k + 1] = indptr[k] + sequence_features(
            X_indptr, X_indices, X_data, n_features, Y_all, offsets[k], offsets[k + 1],
            n_labels, transitions_at, triples_at, start_at, end_at, bias_at,
            use_transitions, use_triples, use_start_end, use_bias,
            indices[indptr[k] :], data[indptr[k] :],
        )
    return indptr, indices[: indptr[-1]], data[: indptr[-1]]


@numba.njit(cache=True, parallel=True)
def parallel_chain_features_csr(
    X_indptr: np.ndarray,
    X_indices: np.ndarray,
    X_data: np.ndarray,
    n_features: int,
    Y_all: np.ndarray,
    offsets: np.ndarray,
    n_labels: int,
    transitions_at: int,
    triples_at: int,
    start_at: int,
    end_at: int,
    bias_at: int,
    use_transitions: bool,
    use_triples: bool,
    use_start_end: bool,
    use_bias: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return :func:`chain_features_csr`'s result (same arguments), computed on threads.

    The sequences are processed in parallel on Numba's threads, each into a slot of its own
    (as long as its bound on the entries), and the rows are then moved down in place to close
    the gaps, in order (a row never moves past the start of its own slot, so it overwrites
    only entries already moved or unused); every row is built by the same serial code, so the
    result does not depend on the number of threads. Packing in place rather than into new
    arrays saves allocating and faulting in a second copy of the entries.
    """
    n_sequences = len(offsets) - 1
    slots = np.zeros(n_sequences + 1, dtype=np.int64)
    for k in range(n_sequences):
        slots[k + 1] = slots[k] + entries_bound(X_indptr, offsets[k], offsets[k + 1], n_labels)
    indices = np.empty(slots[-1], dtype=np.int64)
    data = np.empty(slots[-1], dtype=np.float64)
    sizes = np.zeros(n_sequences, dtype=np.int64)
    for k in numba.prange(n_sequences):
        sizes[k] = sequence_features(
            X_indptr, X_indices, X_data, n_features, Y_all, offsets[k], offsets[k + 1],
            n_labels, transitions_at, triples_at, start_at, end_at, bias_at,
            use_transitions, use_triples, use_start_end, use_bias,
            indices[slots[k] : slots[k + 1]], data[slots[k] : slots[k + 1]],
        )
    indptr = np.zeros(n_sequences + 1, dtype=np.int64)
    for k in range(n_sequences):
        begin, source = indptr[k], slots[k]
        for p in range(sizes[k]):
            indices[begin + p] = indices[source + p]
            data[begin + p] = data[source + p]
        indptr[k + 1] = begin + sizes[k]
    return indptr, indices[: indptr[-1]], data[: indptr[-1]]


@numba.njit(cache=True)
def entries_bound(X_indptr: np.ndarray, first: int, stop: int, n_labels: int) -> int:
    """Return a bound on the entries of the joint feature of the sequence in rows ``first:stop``.

    Its emissions take at most the stored entries of its rows; its chain part (transitions,
    start, end, bias) at most ``2 * length + 2 + min(length, n_labels)``.
    """
    length = stop - first
    return X_indptr[stop] - X_indptr[first] + 2 * length + 2 + min(length, n_labels)


@numba.njit(cache=True)
def sequence_features(
    X_indptr: np.ndarray,
    X_indices: np.ndarray,
    X_data: np.ndarray,
    n_features: int,
    Y_all: np.ndarray,
    first: int,
    stop: int,
    n_labels: int,
    transitions_at: int,
    triples_at: int,
    start_at: int,
    end_at: int,
    bias_at: int,
    use_transitions: bool,
    use_triples: bool,
    use_start_end: bool,
    use_bias: bool,
    indices: np.ndarray,
    data: np.ndarray,
) -> int:
    """Write the joint feature of the sequence in rows ``first:stop`` into ``indices``, ``data``.

    Returns the number of entries written, in increasing column order.
    """
    label_counts = np.zeros(n_labels)
    for t in range(first, stop):
        label_counts[Y_all[t]] += 1.0
    entries_at = X_indptr[first]
    if n_features <= X_indptr[stop] - entries_at:
        nnz = _accumulated_emissions(
            X_indptr, X_indices, X_data, n_features, Y_all, first, stop, label_counts,
            indices, data,
        )
    else:
        nnz = _sorted_emissions(
            X_indptr, X_indices, X_data, n_features, Y_all, first, stop, n_labels, indices, data
        )
    return nnz + _chain_part_features(
        Y_all, first, stop, n_labels, label_counts, transitions_at, triples_at, start_at,
        end_at, bias_at, use_transitions, use_triples, use_start_end, use_bias,
        indices[nnz:], data[nnz:],
    )


@numba.njit(cache=True)
def _accumulated_emissions(
    X_indptr: np.ndarray,
    X_indices: np.ndarray,
    X_data: np.ndarray,
    n_features: int,
    Y_all: np.ndarray,
    first: int,
    stop: int,
    label_counts: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
) -> int:
    """Write the emission sums of rows ``first:stop`` by a dense accumulator per label.

    For sequences that store at least ``n_features`` entries: each sum adds its terms in
    position order, as :func:`_sorted_emissions` does, so both give the same bits. A label at
    one position only takes that row's entries as they are, when its columns increase.
    """
    totals = np.zeros(n_features)
    nnz = 0
    for label in range(len(label_counts)):
        if label_counts[label] == 0:
            continue
        offset = label * n_features
        if label_counts[label] == 1:
            t = first
            while Y_all[t] != label:
                t += 1
            copied = _copy_increasing_row(
                X_indices, X_data, X_indptr[t], X_indptr[t + 1], offset, indices[nnz:],
                data[nnz:],
            )
            if copied >= 0:
                nnz += copied
                continue
        for t in range(first, stop):
            if Y_all[t] != label:
                continue
            for p in range(X_indptr[t], X_indptr[t + 1]):
                totals[X_indices[p]] += X_data[p]
        # Every column is written and kept if its sum is not zero, without a branch: the
        # arrays have room past the emissions (the bound counts the chain part too).
        for column in range(n_features):
            total = totals[column]
            indices[nnz] = offset + column
            data[nnz] = total
            nnz += total != 0.0
            totals[column] = 0.0
    return nnz


@numba.njit(cache=True)
def _copy_increasing_row(
    X_indices: np.ndarray,
    X_data: np.ndarray,
    begin: int,
    end: int,
    offset: int,
    indices: np.ndarray,
    data: np.ndarray,
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


@numba.njit(cache=True)
def _sorted_emissions(
    X_indptr: np.ndarray,
    X_indices: np.ndarray,
    X_data: np.ndarray,
    n_features: int,
    Y_all: np.ndarray,
    first: int,
    stop: int,
    n_labels: int,
    indices: np.ndarray,
    data: np.ndarray,
) -> int:
    """Write the emission sums of rows ``first:stop`` by sorting their stored entries."""
    label_entries = np.zeros(n_labels + 1, dtype=np.int64)
    nnz = 0
    # Emissions: bucket the stored entries by their position's label (a counting sort), then
    # sort each bucket by (column, entry number), so that the entries of one column are
    # summed in position order.
    entries_at = X_indptr[first]
    n_entries = X_indptr[stop] - entries_at
    for t in range(first, stop):
        label_entries[Y_all[t] + 1] += X_indptr[t + 1] - X_indptr[t]
    for label in range(n_labels):
        label_entries[label + 1] += label_entries[label]
    keys = np.empty(n_entries, dtype=np.int64)
    for t in range(first, stop):
        for p in range(X_indptr[t], X_indptr[t + 1]):
            keys[label_entries[Y_all[t]]] = X_indices[p] * n_entries + (p - entries_at)
            label_entries[Y_all[t]] += 1
    bucket_start = 0
    for label in range(n_labels):
        bucket_stop = label_entries[label]
        if bucket_stop - bucket_start > 1:
            keys[bucket_start:bucket_stop].sort()
        position = bucket_start
        while position < bucket_stop:
            column = keys[position] // n_entries
            total = 0.0
            while position < bucket_stop and keys[position] // n_entries == column:
                total += X_data[entries_at + keys[position] % n_entries]
                position += 1
            if total != 0.0:
                indices[nnz] = label * n_features + column
                data[nnz] = total
                nnz += 1
        bucket_start = bucket_stop
    return nnz


@numba.njit(cache=True)
def _chain_part_features(
    Y_all: np.ndarray,
    first: int,
    stop: int,
    n_labels: int,
    label_counts: np.ndarray,
    transitions_at: int,
    triples_at: int,
    start_at: int,
    end_at: int,
    bias_at: int,
    use_transitions: bool,
    use_triples: bool,
    use_start_end: bool,
    use_bias: bool,
    indices: np.ndarray,
    data: np.ndarray,
) -> int:
    """Write the transition, triple, start, end and bias entries of rows ``first:stop``."""
    # The pair and triple codes are written where their entries go, then sorted and counted
    # in place (the bound leaves room for every code).
    nnz = 0
    if use_transitions and stop - first > 1:
        codes = indices[nnz:]
        for t in range(first, stop - 1):
            codes[t - first] = Y_all[t] * n_labels + Y_all[t + 1]
        nnz += _count_codes(codes, stop - first - 1, transitions_at, data[nnz:])
    if use_triples and stop - first > 2:
        codes = indices[nnz:]
        for t in range(first, stop - 2):
            codes[t - first] = (Y_all[t] * n_labels + Y_all[t + 1]) * n_labels + Y_all[t + 2]
        nnz += _count_codes(codes, stop - first - 2, triples_at, data[nnz:])
    if use_start_end:
        indices[nnz] = start_at + Y_all[first]
        data[nnz] = 1.0
        indices[nnz + 1] = end_at + Y_all[stop - 1]
        data[nnz + 1] = 1.0
        nnz += 2
    if use_bias:
        for label in range(n_labels):
            if label_counts[label] > 0:
                indices[nnz] = bias_at + label
                data[nnz] = label_counts[label]
                nnz += 1
    return nnz


@numba.njit(cache=True)
def _count_codes(codes: np.ndarray, n_codes: int, at: int, counts: np.ndarray) -> int:
    """Turn ``codes[:n_codes]`` into the distinct columns ``at + code``, increasing, in place.

    ``counts`` receives how often each occurs; returns how many distinct codes there are. A
    short sequence's few codes are sorted by insertion, without the set-up of a quicksort.
    """
    if n_codes > 32:
        codes[:n_codes].sort()
    else:
        for k in range(1, n_codes):
            code, into = codes[k], k
            while into > 0 and codes[into - 1] > code:
                codes[into] = codes[into - 1]
                into -= 1
            codes[into] = code
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
def add_position_scores(
    X_indptr: np.ndarray,
    X_indices: np.ndarray,
    X_data: np.ndarray,
    emissions: np.ndarray,
    t: int,
    row: np.ndarray,
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


@numba.njit(cache=True)
def sparse_unary_scores(
    X_indptr: np.ndarray, X_indices: np.ndarray, X_data: np.ndarray, emissions: np.ndarray
) -> np.ndarray:
    """Return ``X_all @ emissions.T`` for CSR rows ``X_all``, shape (N, n_labels).

    Reads only the columns of ``emissions`` (L, d) that the rows store, so a batch of short
    sparse sequences costs its stored entries times L, not ``L * d``.
    """
    unary = np.zeros((len(X_indptr) - 1, emissions.shape[0]))
    for t in range(unary.shape[0]):
        add_position_scores(X_indptr, X_indices, X_data, emissions, t, unary[t])
    return unary


@numba.njit(cache=True, parallel=True)
def parallel_sparse_unary_scores(
    X_indptr: np.ndarray, X_indices: np.ndarray, X_data: np.ndarray, emissions: np.ndarray
) -> np.ndarray:
    """Return :func:`sparse_unary_scores`'s result, the positions scored on Numba's threads.

    Every row is summed by the same serial code, so the result does not depend on the number
    of threads.
    """
    unary = np.zeros((len(X_indptr) - 1, emissions.shape[0]))
    for t in numba.prange(unary.shape[0]):
        # A parallel loop counts in uint64: as int64, the row is the serial loop's type and
        # add_position_scores is compiled once for both.
        add_position_scores(X_indptr, X_indices, X_data, emissions, np.int64(t), unary[t])
    return unary
