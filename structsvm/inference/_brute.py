"""Exact inference by enumerating every labelling, for tiny models."""

from __future__ import annotations

import numpy as np

from structsvm._utils.validation import check_positive_int
from structsvm.inference._graph import PairwiseModel
from structsvm.inference._result import InferenceResult

_CHUNK = 1 << 16

MAX_LABELLINGS = 1_000_000
"""The default of the option ``max_labellings``."""


def solve_brute(
    model: PairwiseModel, relaxed: bool, *, max_labellings: int = MAX_LABELLINGS
) -> InferenceResult:
    """Score all n_states ** n_nodes labellings and return the first best one.

    Labellings are visited in lexicographic order (node 0 most significant), so ties go to the
    lexicographically smallest. Options: ``max_labellings``, the most labellings it agrees to
    enumerate (a ValueError beyond).
    """
    count = _labelling_count(model, max_labellings)
    best_score, best_labels = -np.inf, None
    for start in range(0, count, _CHUNK):
        labellings = _labellings(model, start, min(start + _CHUNK, count))
        scores = model.unary[np.arange(model.n_nodes), labellings].sum(axis=1)
        scores += model.pairwise_scores(labellings)
        winner = int(np.argmax(scores))
        if scores[winner] > best_score:
            best_score, best_labels = scores[winner], labellings[winner]
    labels = best_labels.astype(np.int64)
    score = model.score(labels)
    return InferenceResult(labels, score, score, True, None, None, "brute", 1)


def brute_labellings(
    model: PairwiseModel, unaries: np.ndarray, max_labellings: int = MAX_LABELLINGS
) -> np.ndarray:
    """Return the labelling :func:`solve_brute` finds for each of many unary score arrays.

    ``unaries`` has shape (n_models, n_nodes, n_states) and takes the place of
    ``model.unary``; all models are scored against every labelling at once, a block of
    models at a time, so that the cost is a few array operations rather than a call per model.
    """
    count = _labelling_count(model, max_labellings)
    labellings = _labellings(model, 0, count)
    pairwise = model.pairwise_scores(labellings)
    nodes = np.arange(model.n_nodes)
    block = max(1, _CHUNK // count)
    best = np.empty(len(unaries), dtype=np.int64)
    for start in range(0, len(unaries), block):
        scores = unaries[start : start + block][:, nodes, labellings].sum(axis=2) + pairwise
        best[start : start + block] = np.argmax(scores, axis=1)
    return labellings[best]


def labelling_count(
    n_states: int, n_nodes: int, *, max_labellings: int = MAX_LABELLINGS
) -> int | None:
    """Return ``n_states ** n_nodes``, the labellings brute force visits; None beyond the limit.

    Raises ValueError if ``max_labellings`` is not a positive integer.
    """
    count = n_states**n_nodes
    return count if count <= check_positive_int(max_labellings, "max_labellings") else None


def _labelling_count(model: PairwiseModel, max_labellings: int) -> int:
    count = labelling_count(model.n_states, model.n_nodes, max_labellings=max_labellings)
    if count is None:
        limit = check_positive_int(max_labellings, "max_labellings")
        raise ValueError(
            f"brute force would enumerate n_states ** n_nodes = {model.n_states}**"
            f"{model.n_nodes} labellings, more than max_labellings={limit}; use another method "
            "or raise max_labellings"
        )
    return count


def _labellings(model: PairwiseModel, start: int, stop: int) -> np.ndarray:
    """Return labellings number ``start`` to ``stop`` in lexicographic order, int64 rows."""
    place_values = model.n_states ** np.arange(model.n_nodes - 1, -1, -1, dtype=np.int64)
    codes = np.arange(start, stop, dtype=np.int64)
    return (codes[:, None] // place_values) % model.n_states
