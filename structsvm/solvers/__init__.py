"""Optimisation methods for the structural SVM, one module each.

Every solver is a generator function ``solver(task, X, Y, C, **options)`` that yields a
:class:`SolverState` after each iteration, so a caller can stop, checkpoint or report progress
between iterations and keeps the latest weights. :data:`SOLVERS` names them and
:data:`SOLVER_DEFAULTS` holds their default options. The cutting-plane solvers share one loop
(:mod:`~structsvm.solvers._cutting_plane`), which also runs on training sets known only
through a joint kernel (:func:`joint_kernel_n_slack`).
"""

from structsvm.solvers._bcfw import bcfw, start_at_C
from structsvm.solvers._defaults import SOLVER_DEFAULTS
from structsvm.solvers._dual_cd import dual_coordinate_descent
from structsvm.solvers._n_slack import joint_kernel_n_slack, n_slack
from structsvm.solvers._one_slack import one_slack
from structsvm.solvers._state import SolverState

SOLVERS = {
    "n-slack": n_slack,
    "1-slack": one_slack,
    "bcfw": bcfw,
    "dual-cd": dual_coordinate_descent,
}

__all__ = [
    "SOLVERS", "SOLVER_DEFAULTS", "SolverState", "bcfw", "dual_coordinate_descent",
    "joint_kernel_n_slack", "n_slack", "one_slack", "start_at_C",
]
