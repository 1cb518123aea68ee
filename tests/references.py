"""Independent ground truth: the structural SVM primal QP with every constraint, solved by cvxopt.

Written directly against cvxopt (not the library's QP code): variables (w, ξ), objective
½‖w‖² + C Σ ξ_i, one constraint w · ψ_i(y) >= Δ(y_i, y) − ξ_i for every example i and every
output y ≠ y_i, and ξ >= 0.
"""

import numpy as np
from cvxopt import matrix, solvers


def solve_full_primal(task, X, Y, C):
    """Return (w, ξ, objective) of the structural SVM with all constraints enumerated."""
    n, p = len(X), task.size_joint_feature
    rows, offsets = [], []
    for i, (x, y_true) in enumerate(zip(X, Y)):
        phi_true = task.joint_feature(x, y_true)
        for y in task.outputs(x):
            if task.outputs_equal(y, y_true):
                continue
            row = np.zeros(p + n)
            row[:p] = -(phi_true - task.joint_feature(x, y))
            row[p + i] = -1.0
            rows.append(row)
            offsets.append(-task.loss(y_true, y))
    nonnegative_slacks = np.hstack([np.zeros((n, p)), -np.eye(n)])
    G = np.vstack([np.array(rows), nonnegative_slacks])
    h = np.concatenate([offsets, np.zeros(n)])
    P = np.zeros((p + n, p + n))
    P[:p, :p] = np.eye(p)
    q = np.concatenate([np.zeros(p), np.full(n, C)])
    options = {"show_progress": False, "abstol": 1e-11, "reltol": 1e-11, "feastol": 1e-10}
    solution = solvers.qp(matrix(P), matrix(q), matrix(G), matrix(h), options=options)
    z = np.array(solution["x"]).ravel()
    w, xi = z[:p], z[p:]
    return w, xi, 0.5 * w @ w + C * xi.sum()
