"""The one entry point of graph inference: check the model, pick the method, pass its options."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from numpy.typing import ArrayLike

from structsvm.inference._ad3 import solve_ad3
from structsvm.inference._brute import solve_brute
from structsvm.inference._graph import PairwiseModel, check_model
from structsvm.inference._ilp import solve_ilp
from structsvm.inference._lp import solve_lp
from structsvm.inference._max_product import solve_max_product
from structsvm.inference._result import InferenceResult

_METHODS: dict[str, Callable[..., InferenceResult]] = {
    "brute": solve_brute,
    "ilp": solve_ilp,
    "lp": solve_lp,
    "max-product": solve_max_product,
    "ad3": solve_ad3,
}

INFERENCE_METHODS: tuple[str, ...] = tuple(_METHODS)
"""The names of the methods :func:`infer` accepts."""


def infer(
    unary: ArrayLike,
    edges: ArrayLike,
    pairwise: ArrayLike,
    method: str = "max-product",
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
    method : str, default="max-product"
        One of :data:`INFERENCE_METHODS`:

        - ``"brute"``: enumeration of all labellings (tiny models only); option
          ``max_labellings``.
        - ``"ilp"``: exact integer programme over the local polytope (HiGHS); option
          ``time_limit``.
        - ``"lp"``: linear relaxation over the local polytope (HiGHS), rounded; option
          ``time_limit``.
        - ``"max-product"``: exact on trees and forests; damped loopy max-product on graphs
          with cycles, certified only when its score meets its bound; options ``max_iter``,
          ``damping``, ``tol``.
        - ``"ad3"``: alternating directions dual decomposition of the local-polytope LP,
          with exact active-set edge subproblems, rounded, with its dual bound; options
          ``max_iter``, ``eta``, ``tol``.
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
        For malformed potentials or edges (naming the argument), an unknown method or an
        option the method does not take.

    References
    ----------
    A. F. T. Martins, M. A. T. Figueiredo, P. M. Q. Aguiar, N. A. Smith and E. P. Xing. AD3:
    alternating directions dual decomposition for MAP inference in graphical models. JMLR 16,
    2015.

    J. Pearl. Probabilistic Reasoning in Intelligent Systems. Morgan Kaufmann, 1988.

    Y. Weiss and W. T. Freeman. On the optimality of solutions of the max-product
    belief-propagation algorithm in arbitrary graphs. IEEE Trans. Inf. Theory 47(2), 2001.

    M. J. Wainwright and M. I. Jordan. Graphical models, exponential families, and variational
    inference. Foundations and Trends in Machine Learning 1(1–2), 2008.
    """
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
    model: PairwiseModel = check_model(unary, edges, pairwise)
    return solver(model, bool(relaxed), **options)
