"""The answer of every inference method: a labelling, its score, a bound and how sure it is."""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np


@dataclass(frozen=True)
class InferenceResult:
    """A labelling of a pairwise graphical model found by :func:`~structsvm.inference.infer`.

    Attributes
    ----------
    labels : ndarray of int64, shape (n_nodes,)
        The labelling returned, always integral (a relaxation's fractional solution is rounded).
    score : float
        The objective Σ_i unary[i, y_i] + Σ_e pairwise[e, y_u, y_v] at ``labels``.
    bound : float
        An upper bound on the maximum of the objective over all labellings. It equals ``score``
        when the labelling is certified; otherwise it is the method's dual bound (the LP value,
        the AD3 dual, the bound of the reparametrisation by the max-product messages), or
        ``inf`` when the method has none (an ILP stopped before any bound).
    certified : bool
        True when ``labels`` is proven to maximise the objective.
    node_marginals : ndarray of shape (n_nodes, n_states) or None
        The fractional node solution of a relaxation ("lp", "ad3") when ``relaxed=True``;
        None otherwise.
    edge_marginals : ndarray of shape (n_edges, n_states, n_states) or None
        The fractional edge solution of a relaxation, as ``node_marginals``.
    method : str
        The name of the method that produced the result.
    n_iter : int
        Iterations the method ran (message-passing sweeps, AD3 iterations, simplex or
        branch-and-bound iterations as reported by HiGHS; 1 for a single exact pass).
    """

    labels: np.ndarray
    score: float
    bound: float
    certified: bool
    node_marginals: np.ndarray | None
    edge_marginals: np.ndarray | None
    method: str
    n_iter: int


GAP_TOLERANCE = 1e-9
"""A labelling whose score is within this relative gap of an upper bound counts as optimal."""


@numba.njit(cache=True, inline="always")
def gap_closed(score: float, bound: float, tolerance: float) -> bool:
    """Return True if ``bound`` exceeds ``score`` by at most ``tolerance`` · max(1, |score|)."""
    return bound - score <= tolerance * max(1.0, abs(score))


def closes_gap(score: float, bound: float) -> bool:
    """Return True if ``bound`` (an upper bound on the maximum) proves ``score`` optimal."""
    return bool(gap_closed(score, bound, GAP_TOLERANCE))
