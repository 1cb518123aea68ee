"""The compiled oracle of the graph labelling tasks (:meth:`tasks.GraphTask.compiled_oracle`).

The training graphs are stacked once per fit (node features, edges and edge features as CSR
rows, every graph's max-product schedule); an output's labels are its states, node by node.

The data also holds, graph by graph, what the last inference on it left: TRW-S's messages
or AD3's multipliers, distributions and step. A learner decodes every graph many times with
weights that change little from one call to the next; with ``warm_calls`` each call starts
from that state instead of from scratch. Both are sound starts at any weights (TRW-S's bound
holds for any messages, AD3's for any multipliers that sum to zero at every node), and a
graph's calls depend only on the weights it was decoded at before, in their order.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from structsvm.inference._ad3 import Ad3Options, Ad3State, ad3, ad3_state
from structsvm.inference._max_product import max_product_labels
from structsvm.inference._result import GAP_TOLERANCE
from structsvm.inference._trws import trws
from tasks._multiclass_oracle import class_scores_into

DECODERS = ("max-product", "trws", "ad3")
"""The inference methods of the compiled oracle, numbered as ``GraphOracleData.decoder``."""

TRWS, AD3 = DECODERS.index("trws"), DECODERS.index("ad3")


class GraphOracleData(NamedTuple):
    """The training graphs of a graph task, stacked (``CompiledOracle.data``).

    Graph i has the nodes ``node_offsets[i]:node_offsets[i + 1]`` and the edges
    ``edge_offsets[i]:edge_offsets[i + 1]`` of the stacked arrays; the ``block_`` rows are
    the map of the pairwise blocks (``pairwise_block_map`` of every edge feature), transposed;
    ``forest`` tells graph by graph whether max-product's schedule is exact. Graphs with
    cycles are decoded by ``DECODERS[decoder]``, with ``max_iter``, ``damping``, ``tol`` and
    ``serial`` (max-product, TRW-S) or ``ad3_options``. With ``warm_calls``, the rows of
    graph i in ``messages`` (TRW-S's, by edge) and in ``ad3_states`` (by edge and node, and
    row i of ``eta`` and ``started``) are where its last call ended and its next starts;
    otherwise they are empty and every call starts afresh.
    """

    node_offsets: np.ndarray
    node_indptr: np.ndarray
    node_columns: np.ndarray
    node_values: np.ndarray
    edge_offsets: np.ndarray
    edges: np.ndarray
    edge_indptr: np.ndarray
    edge_columns: np.ndarray
    edge_values: np.ndarray
    block_indptr: np.ndarray
    block_columns: np.ndarray
    block_values: np.ndarray
    truth: np.ndarray
    costs: np.ndarray
    forest: np.ndarray
    order: np.ndarray
    parent: np.ndarray
    parent_edge: np.ndarray
    child_is_second: np.ndarray
    n_states: int
    n_features: int
    pairwise_at: int
    max_iter: int
    damping: float
    tol: float
    serial: bool
    decoder: int
    ad3_options: Ad3Options
    warm_calls: bool
    messages: np.ndarray
    ad3_states: Ad3State


@numba.njit(cache=True)
def graph_scores(data, i, w):
    """Return the (n_nodes, n_states) unary scores ``U[s] · x_n`` of graph i."""
    begin, end = data.node_offsets[i], data.node_offsets[i + 1]
    indptr, columns, values = data.node_indptr, data.node_columns, data.node_values
    scores = np.empty((end - begin, data.n_states))
    return class_scores_into(indptr, columns, values, begin, w, data.n_features, scores)


@numba.njit(cache=True)
def scheduled_labels(scores, tables, edges, forest, data, begin, end):
    """Return max-product's labelling with the schedule and loopy options in ``data``, of the
    nodes ``begin:end``."""
    return max_product_labels(
        scores, tables, edges, forest, data.order[begin:end], data.parent[begin:end],
        data.parent_edge[begin:end], data.child_is_second[begin:end], data.max_iter,
        data.damping, data.tol, data.serial,
    )


@numba.njit(cache=True)
def _edge_tables(data, i, w):
    """Return the (n_edges, n_states, n_states) pairwise tables of graph i at ``w``."""
    n_states = data.n_states
    width = n_states * n_states
    n_rows = len(data.block_indptr) - 1
    pair_weights = np.zeros(n_rows)
    for row in range(n_rows):
        for p in range(data.block_indptr[row], data.block_indptr[row + 1]):
            pair_weights[row] += data.block_values[p] * w[data.pairwise_at + data.block_columns[p]]
    begin, end = data.edge_offsets[i], data.edge_offsets[i + 1]
    tables = np.zeros((end - begin, n_states, n_states))
    for edge in range(begin, end):
        table = tables[edge - begin].reshape(width)
        for p in range(data.edge_indptr[edge], data.edge_indptr[edge + 1]):
            feature, value = data.edge_columns[p], data.edge_values[p]
            for pair in range(width):
                table[pair] += value * pair_weights[feature * width + pair]
    return tables


@numba.njit(cache=True)
def graph_decode(data, i, w, scores, augmented):
    """Return the labelling of graph i (plus the weighted Hamming loss if augmented).

    Max-product's on a forest; on a graph with cycles, that of ``DECODERS[data.decoder]``.
    """
    return decode_graph(data, i, w, scores, augmented)[0]


@numba.njit(cache=True)
def decode_graph(data, i, w, scores, augmented):
    """Return :func:`graph_decode`'s labelling and the iterations run: TRW-S's round trips or
    AD3's iterations on a graph with cycles, 0 for max-product (its sweeps are not counted)."""
    node_begin, node_end = data.node_offsets[i], data.node_offsets[i + 1]
    edge_begin, edge_end = data.edge_offsets[i], data.edge_offsets[i + 1]
    if augmented:
        for node in range(node_begin, node_end):
            truth, cost = data.truth[node], data.costs[node]
            for state in range(data.n_states):
                if state != truth:
                    scores[node - node_begin, state] += cost
    tables = _edge_tables(data, i, w)
    edges = data.edges[edge_begin:edge_end]
    if data.decoder == TRWS and not data.forest[i]:
        if data.warm_calls:
            messages = data.messages[edge_begin:edge_end]
        else:
            messages = np.zeros((edge_end - edge_begin, 2, data.n_states))
        found = trws(scores, tables, True, edges, data.max_iter, data.tol, GAP_TOLERANCE, messages)
        return found[0], found[2]
    if data.decoder == AD3 and not data.forest[i]:
        if data.warm_calls:
            state = _ad3_state_of(data.ad3_states, i, node_begin, node_end, edge_begin, edge_end)
        else:
            state = ad3_state(node_end - node_begin, edge_end - edge_begin, data.n_states)
        found = ad3(scores, tables, True, edges, data.ad3_options, GAP_TOLERANCE, True, state)
        return found[0], found[2]
    labels = scheduled_labels(scores, tables, edges, data.forest[i], data, node_begin, node_end)
    return labels, 0


@numba.njit(cache=True)
def _ad3_state_of(states, i, node_begin, node_end, edge_begin, edge_end):
    """Return the views of graph i's rows of the stacked AD3 states."""
    return Ad3State(
        states.messages[edge_begin:edge_end],
        states.multipliers[2 * edge_begin : 2 * edge_end],
        states.p[node_begin:node_end],
        states.support[edge_begin:edge_end],
        states.weight[edge_begin:edge_end],
        states.support_size[edge_begin:edge_end],
        states.eta[i : i + 1],
        states.started[i : i + 1],
    )


@numba.njit(cache=True)
def graph_features(data, i, labels):
    """Return φ(x_i, y): the node features by state, then the pairwise blocks' statistics."""
    node_begin, node_end = data.node_offsets[i], data.node_offsets[i + 1]
    edge_begin, edge_end = data.edge_offsets[i], data.edge_offsets[i + 1]
    block_row_size = np.max(np.diff(data.block_indptr)) if len(data.block_indptr) > 1 else 0
    edge_entries = data.edge_indptr[edge_end] - data.edge_indptr[edge_begin]
    count = data.node_indptr[node_end] - data.node_indptr[node_begin]
    count += edge_entries * block_row_size
    indices = np.empty(count, dtype=np.int64)
    values = np.empty(count)
    k = 0
    for node in range(node_begin, node_end):
        offset = labels[node - node_begin] * data.n_features
        for p in range(data.node_indptr[node], data.node_indptr[node + 1]):
            indices[k] = offset + data.node_columns[p]
            values[k] = data.node_values[p]
            k += 1
    for edge in range(edge_begin, edge_end):
        pair = labels[data.edges[edge, 0]] * data.n_states + labels[data.edges[edge, 1]]
        for p in range(data.edge_indptr[edge], data.edge_indptr[edge + 1]):
            row = data.edge_columns[p] * data.n_states * data.n_states + pair
            for q in range(data.block_indptr[row], data.block_indptr[row + 1]):
                indices[k] = data.pairwise_at + data.block_columns[q]
                values[k] = data.edge_values[p] * data.block_values[q]
                k += 1
    return merged_entries(indices[:k], values[:k])


@numba.njit(cache=True)
def merged_entries(indices, values):
    """Return the entries sorted by index, those of one index summed, zero sums left out."""
    order = np.argsort(indices, kind="mergesort")
    merged_indices = np.empty(len(indices), dtype=np.int64)
    merged_values = np.empty(len(indices))
    n = -1
    for k in order:
        if n >= 0 and merged_indices[n] == indices[k]:
            merged_values[n] += values[k]
        else:
            if n < 0 or merged_values[n] != 0.0:
                n += 1
            merged_indices[n] = indices[k]
            merged_values[n] = values[k]
    if n >= 0 and merged_values[n] != 0.0:
        n += 1
    return merged_indices[:n].copy(), merged_values[:n].copy()


@numba.njit(cache=True)
def graph_loss(data, i, labels):
    """Return the weighted Hamming loss ``Σ_n cost_n · [y_n ≠ truth_n]``."""
    begin, end = data.node_offsets[i], data.node_offsets[i + 1]
    loss = 0.0
    for node in range(begin, end):
        if labels[node - begin] != data.truth[node]:
            loss += data.costs[node]
    return loss
