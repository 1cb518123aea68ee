"""Default options of the structural SVM solvers, by solver name: the one table of them.

The solver functions take their keyword defaults from here and the estimators read the
iteration budget from here, so a default is never written twice.
"""

from __future__ import annotations

from typing import Any

SOLVER_DEFAULTS: dict[str, dict[str, Any]] = {
    # Most n-slack constraints end with a zero dual variable: dropping them after one idle
    # iteration keeps the sub-QPs small (the oracle finds those needed again).
    "n-slack": {"tol": 1e-3, "max_iter": 200, "inactive_window": 1, "max_block_constraints": 150},
    # One constraint per iteration: more iterations, and constraints stay longer.
    "1-slack": {"tol": 1e-3, "max_iter": 2000, "inactive_window": 50, "smoothing": 0.3},
    # The papers' values: Osokin et al. sweep every 10 passes, Shah et al. time out after 10,
    # and Frank–Wolfe steps certified by the last evaluation are Lacoste-Julien et al.'s.
    "bcfw": {
        "tol": 1e-3, "max_iter": 500, "averaging": True, "order": "random", "gap_sweep_every": 10,
        "gap_mixing": 0.1, "cache_size": 0, "cache_timeout": 10, "gap_check_every": 1,
        "step": "fw", "keep_best": False,
    },
    "dual-cd": {"tol": 1e-3, "max_iter": 1000, "order": "random"},
}
