"""Exact MAP inference as an integer programme over the local polytope, solved by HiGHS."""

from __future__ import annotations

import numpy as np

from structsvm._utils.validation import check_positive_float
from structsvm.inference._graph import PairwiseModel
from structsvm.inference._lp import local_polytope
from structsvm.inference._result import InferenceResult


def solve_ilp(
    model: PairwiseModel, relaxed: bool, *, time_limit: float | None = None
) -> InferenceResult:
    """Maximise over the local polytope with integral node marginals (``scipy.optimize.milp``).

    Integral node marginals force every edge marginal to the product of its two one-hot node
    marginals, so the integer points of this programme are exactly the labellings. The MIP
    gap tolerance is set to zero; HiGHS still accepts absolute gaps below its own tolerance
    (1e-6). If ``time_limit`` (seconds) stops the search, the best labelling found is returned
    uncertified with HiGHS's dual bound (the unary argmax if none was found).
    """
    # Imported here: scipy.optimize costs about 27 MB, which most fits do not need.
    from scipy.optimize import Bounds, LinearConstraint, milp

    options: dict[str, float] = {"mip_rel_gap": 0.0}
    if time_limit is not None:
        options["time_limit"] = check_positive_float(time_limit, "time_limit")
    polytope = local_polytope(model)
    integrality = np.zeros(polytope.cost.size)
    integrality[: polytope.n_node_variables] = 1
    solution = milp(
        polytope.cost,
        constraints=LinearConstraint(polytope.A_eq, polytope.b_eq, polytope.b_eq),
        integrality=integrality,
        bounds=Bounds(0.0, 1.0),
        options=options,
    )
    if solution.x is None:
        labels = np.argmax(model.unary, axis=1).astype(np.int64)
    else:
        nodes = polytope.node_marginals(solution.x, model.n_states)
        labels = np.argmax(nodes, axis=1).astype(np.int64)
    score = model.score(labels)
    certified = bool(solution.status == 0)
    dual_bound = getattr(solution, "mip_dual_bound", None)
    if certified:
        bound = score
    elif dual_bound is not None and np.isfinite(dual_bound):
        bound = max(-float(dual_bound), score)
    else:
        bound = np.inf
    n_nodes_explored = getattr(solution, "mip_node_count", None)
    return InferenceResult(
        labels, score, float(bound), certified, None, None, "ilp", int(n_nodes_explored or 1)
    )
