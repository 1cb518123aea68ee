"""Optimisation methods for the structural SVM, one module each.

Every solver is a generator function ``solver(task, X, Y, C, **options)`` that yields a
:class:`~structsvm.solvers._cutting_plane.SolverState` after each iteration, so a caller can
stop, checkpoint or report progress between iterations and keeps the latest weights.
"""

from structsvm.solvers._bcfw import bcfw
from structsvm.solvers._n_slack import n_slack
from structsvm.solvers._one_slack import one_slack

SOLVERS = {"n-slack": n_slack, "1-slack": one_slack, "bcfw": bcfw}

__all__ = ["SOLVERS", "bcfw", "n_slack", "one_slack"]
