"""The entry points of graph inference: check the model, pick the method, pass its options."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from structsvm._utils.validation import check_feature_array
from structsvm.inference._ad3 import solve_ad3
from structsvm.inference._brute import brute_labellings, solve_brute
from structsvm.inference._graph import PairwiseModel, check_model
from structsvm.inference._graph_cuts import solve_expansion, solve_qpbo, solve_swap
from structsvm.inference._ilp import solve_ilp
from structsvm.inference._lp import solve_lp
from structsvm.inference._max_product import forest_labellings, solve_max_product
from structsvm.inference._result import InferenceResult
from structsvm.inference._trws import solve_trws

_METHODS: dict[str, Callable[..., InferenceResult]] = {
    "brute": solve_brute,
    "ilp": solve_ilp,
    "lp": solve_lp,
    "max-product": solve_max_product,
    "ad3": solve_ad3,
    "trws": solve_trws,
    "expansion": solve_expansion,
    "swap": solve_swap,
    "qpbo": solve_qpbo,
}

INFERENCE_METHODS: tuple[str, ...] = tuple(_METHODS)
"""The names of the methods :func:`infer` accepts."""


def infer(
    unary: ArrayLike,
    edges: ArrayLike,
    pairwise: ArrayLike,
    method: str = "trws",
    *,
    relaxed: bool = False,
    **options: Any,
) -> InferenceResult:
    """Find a labelling of a pairwise model with the highest score.

    The objective is Σ_i unary[i, y_i] + Σ_e pairwise[e, y_u, y_v] over labellings y, with
    edge e = (u, v) = ``edges[e]``. Loss-augmented inference is the same call with the loss
    folded into ``unary`` (see :func:`hamming_augmented_unary`).

    Parameters
    ----------
    unary : array-like of shape (n_nodes, n_states)
        Finite unary scores.
    edges : array-like of int, shape (n_edges, 2)
        Pairs of distinct node indices; any graph (possibly without edges, disconnected, with
        repeated pairs).
    pairwise : array-like of shape (n_edges, n_states, n_states) or (n_states, n_states)
        ``pairwise[e, a, b]`` scores y_u = a and y_v = b on edge e = (u, v); a single
        (n_states, n_states) table is shared by all edges without being copied.
    method : str, default="trws"
        One of :data:`INFERENCE_METHODS`:

        - ``"brute"``: enumeration of all labellings (tiny models only); option
          ``max_labellings``.
        - ``"ilp"``: exact integer programme over the local polytope (HiGHS); option
          ``time_limit``.
        - ``"lp"``: linear relaxation over the local polytope (HiGHS), rounded; option
          ``time_limit``.
        - ``"max-product"``: exact on trees and forests; damped loopy max-product on graphs
          with cycles, certified only when its score meets its bound; options ``max_iter``,
          ``damping``, ``tol`` and ``schedule`` (``"parallel"`` sweeps, or ``"serial"``
          ones that visit the nodes in order and back).
        - ``"ad3"``: alternating directions dual decomposition of the local-polytope LP,
          with exact active-set edge subproblems, started from a few round trips of TRW-S,
          rounded by local search, with its dual bound; options ``max_iter``, ``eta``,
          ``tol``, ``warm_start``.
        - ``"trws"``: sequential tree-reweighted message passing, exact on forests; on graphs
          with cycles the best labelling its passes decode, improved by local search and,
          unless certified, by a cycle of expansion moves when the costs are metric, with the
          TRW bound; options ``max_iter``, ``tol``.
        - ``"expansion"``: α-expansion by graph cuts, for pairwise scores whose costs are a
          metric (Potts, truncated linear); exact with two states; option ``max_cycles``.
        - ``"swap"``: αβ-swap by graph cuts, for semi-metric costs (also truncated
          quadratic); exact with two states; option ``max_cycles``.
        - ``"qpbo"``: QPBO (roof duality) for two states and any pairwise scores; nodes it
          leaves open are completed by local search; certified when it labels every node.
    relaxed : bool, default=False
        For the relaxations ("lp", "ad3"), also return the fractional node and edge marginals
        (and let AD3 run on after a certificate until it has solved the relaxation); the other
        methods ignore it and return None marginals.
    **options
        Options of the chosen method (listed above).

    Returns
    -------
    InferenceResult
        The labelling, its score, an upper bound on the maximum and whether it is certified.

    Raises
    ------
    ValueError
        For malformed potentials or edges (naming the argument), an unknown method, an
        option the method does not take, or pairwise scores the method cannot handle (graph
        cuts; naming the method and its condition).

    References
    ----------
    Y. Boykov, O. Veksler and R. Zabih. Fast approximate energy minimization via graph cuts.
    IEEE TPAMI 23(11), 2001.

    Y. Boykov and V. Kolmogorov. An experimental comparison of min-cut/max-flow algorithms for
    energy minimization in vision. IEEE TPAMI 26(9), 2004.

    V. Kolmogorov. Convergent tree-reweighted message passing for energy minimization. IEEE
    TPAMI 28(10), 2006.

    V. Kolmogorov and C. Rother. Minimizing nonsubmodular functions with graph cuts — a
    review. IEEE TPAMI 29(7), 2007.

    A. F. T. Martins, M. A. T. Figueiredo, P. M. Q. Aguiar, N. A. Smith and E. P. Xing. AD3:
    alternating directions dual decomposition for MAP inference in graphical models. JMLR 16,
    2015.

    J. Pearl. Probabilistic Reasoning in Intelligent Systems. Morgan Kaufmann, 1988.

    Y. Weiss and W. T. Freeman. On the optimality of solutions of the max-product
    belief-propagation algorithm in arbitrary graphs. IEEE Trans. Inf. Theory 47(2), 2001.

    M. J. Wainwright and M. I. Jordan. Graphical models, exponential families, and variational
    inference. Foundations and Trends in Machine Learning 1(1–2), 2008.
    """
    solver = _checked_method(method, options)
    model: PairwiseModel = check_model(unary, edges, pairwise)
    return solver(model, bool(relaxed), **options)


def infer_many(
    unaries: ArrayLike,
    edges: ArrayLike,
    pairwise: ArrayLike,
    method: str = "trws",
    *,
    relaxed: bool = False,
    **options: Any,
) -> list[InferenceResult]:
    """Run :func:`infer` on many models that share their graph and pairwise scores.

    Model m maximises Σ_i unaries[m, i, y_i] + Σ_e pairwise[e, y_u, y_v]. The answers are
    those of ``infer(unaries[m], edges, pairwise, method, relaxed=relaxed, **options)`` for
    every m, but two cases are computed for the whole stack at once: ``"max-product"`` or
    ``"trws"`` on a forest (the schedule is built once, all upward and downward passes run in
    one compiled call) and ``"brute"`` (every model scored against every labelling in a few
    array operations). Other methods and graphs with cycles call :func:`infer` model by model.

    Parameters
    ----------
    unaries : array-like of shape (n_models, n_nodes, n_states)
        Finite unary scores of every model.
    edges, pairwise, method, relaxed, **options
        As for :func:`infer`; ``pairwise`` is shared by all models.

    Returns
    -------
    list of InferenceResult
        One per model, in order.

    Raises
    ------
    ValueError
        As :func:`infer`, and if ``unaries`` is not a 3-D finite array with at least one model.
    """
    solver = _checked_method(method, options)
    stack = check_feature_array(unaries, "unaries", ndim=3, n_features=None)
    if stack.shape[0] == 0:
        raise ValueError("unaries must hold at least one model, got shape (0, ...)")
    model = check_model(stack[0], edges, pairwise)
    if method == "brute":
        labels = brute_labellings(model, stack, **options)
    elif method in ("max-product", "trws") and model.is_forest():
        labels = forest_labellings(model, stack, **options)
    else:
        return [
            solver(check_model(unary, edges, pairwise), bool(relaxed), **options) for unary in stack
        ]
    scores = np.take_along_axis(stack, labels[:, :, None], axis=2).sum(axis=(1, 2))
    scores += model.pairwise_scores(labels)
    return [
        InferenceResult(row, float(score), float(score), True, None, None, method, 1)
        for row, score in zip(labels, scores, strict=True)
    ]


def _checked_method(method: str, options: dict[str, Any]) -> Callable[..., InferenceResult]:
    """Return the solver of ``method``; raise ValueError for an unknown method or option."""
    solver = _METHODS.get(method) if isinstance(method, str) else None
    if solver is None:
        raise ValueError(
            f"method must be one of {', '.join(map(repr, INFERENCE_METHODS))}, got {method!r}"
        )
    accepted = [
        name
        for name, parameter in inspect.signature(solver).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        takes = f"its options are {', '.join(accepted)}" if accepted else "it takes no options"
        raise ValueError(
            f"method {method!r} takes no option {', '.join(map(repr, unknown))}; {takes}"
        )
    return solver
