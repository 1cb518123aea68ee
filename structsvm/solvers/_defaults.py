"""Default options of the structural SVM solvers, by solver name: the one table of them.

The solver functions take their keyword defaults from here and the estimators read the
iteration budget from here, so a default is never written twice.
"""

from __future__ import annotations

from typing import Any

SOLVER_DEFAULTS: dict[str, dict[str, Any]] = {
    # Every example whose slack is violated adds a constraint, so the n-slack working set is
    # mostly constraints that end with a zero dual variable: dropping them after one idle
    # iteration keeps the sub-QPs small, and those needed again are found again.
    "n-slack": {"tol": 1e-3, "max_iter": 200, "inactive_window": 1, "max_block_constraints": 150},
    # One constraint per iteration: more iterations, and constraints stay longer.
    "1-slack": {"tol": 1e-3, "max_iter": 2000, "inactive_window": 50, "smoothing": 0.3},
    # gap_sweep_every and gap_mixing only matter with order="gap"; cache_timeout only with a
    # cache (cache_size > 0): Osokin et al. sweep every 10 passes, Shah et al. time out after 10.
    "bcfw": {
        "tol": 1e-3,
        "max_iter": 500,
        "averaging": True,
        "order": "random",
        "gap_sweep_every": 10,
        "gap_mixing": 0.1,
        "cache_size": 0,
        "cache_timeout": 10,
        # The certified gap costs n oracle calls, as many as a pass: 1 checks after every pass.
        "gap_check_every": 1,
        # Frank–Wolfe steps, certified by the last evaluation: the iterates of Lacoste-Julien
        # et al.; step="pairwise" and keep_best=True are faster to a small gap.
        "step": "fw",
        "keep_best": False,
    },
    # One pass solves every example's subproblem exactly; the convergence is linear.
    "dual-cd": {"tol": 1e-3, "max_iter": 1000, "order": "random"},
}
