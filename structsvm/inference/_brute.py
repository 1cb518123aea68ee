"""Exact inference by enumerating every labelling, for tiny models."""

from __future__ import annotations

import numpy as np

from structsvm._utils.validation import check_positive_int
from structsvm.inference._graph import PairwiseModel
from structsvm.inference._result import InferenceResult

_CHUNK = 1 << 16


def solve_brute(
    model: PairwiseModel, relaxed: bool, *, max_labellings: int = 1_000_000
) -> InferenceResult:
    """Score all n_states ** n_nodes labellings and return the first best one.

    Labellings are visited in lexicographic order (node 0 most significant), so ties go to the
    lexicographically smallest. Options: ``max_labellings``, the most labellings it agrees to
    enumerate (a ValueError beyond).
    """
    limit = check_positive_int(max_labellings, "max_labellings")
    n_nodes, n_states = model.n_nodes, model.n_states
    count = n_states**n_nodes
    if count > limit:
        raise ValueError(
            f"brute force would enumerate n_states ** n_nodes = {n_states}**{n_nodes} labellings, "
            f"more than max_labellings={limit}; use another method or raise max_labellings"
        )
    place_values = n_states ** np.arange(n_nodes - 1, -1, -1, dtype=np.int64)
    first, second = model.edges[:, 0], model.edges[:, 1]
    table = model.table_of(np.arange(model.n_edges))
    best_score, best_labels = -np.inf, None
    for start in range(0, count, _CHUNK):
        codes = np.arange(start, min(start + _CHUNK, count), dtype=np.int64)
        labellings = (codes[:, None] // place_values) % n_states
        scores = model.unary[np.arange(n_nodes), labellings].sum(axis=1)
        scores += model.tables[table, labellings[:, first], labellings[:, second]].sum(axis=1)
        winner = int(np.argmax(scores))
        if scores[winner] > best_score:
            best_score, best_labels = scores[winner], labellings[winner]
    labels = best_labels.astype(np.int64)
    score = model.score(labels)
    return InferenceResult(labels, score, score, True, None, None, "brute", 1)
