"""Quadratic programmes, solved with cvxopt: the only package that imports it.

:func:`solve_qp` solves a general convex QP (the binary SVM's primal and dual);
:func:`solve_simplex_dual` solves the dual QP of a cutting-plane working set, first on a guessed
active set (a few linear systems, certified by the KKT conditions), otherwise by cvxopt's
interior-point method with KKT solvers that exploit the problem's structure.
"""

from structsvm.qp._cvxopt import QPResult, QPSolverError, QPSolverWarning, solve_qp
from structsvm.qp._simplex_dual import SimplexDualSolution, solve_simplex_dual

__all__ = [
    "QPResult",
    "QPSolverError",
    "QPSolverWarning",
    "SimplexDualSolution",
    "solve_qp",
    "solve_simplex_dual",
]
