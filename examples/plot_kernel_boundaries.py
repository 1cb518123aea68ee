"""
Kernels and their decision boundaries
=====================================

:class:`structsvm.BinarySVM` solves the dual QP of the soft-margin SVM; the kernel decides the
shape of its decision boundary. On two interleaved moons a line cannot separate the classes, a
cubic polynomial nearly can, and the RBF kernel follows them. Support vectors are circled: the
points with a nonzero dual coefficient, on or inside the margin (dashed).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from structsvm import BinarySVM

X, y = make_moons(n_samples=80, noise=0.15, random_state=0)
y = 2 * y - 1  # labels -1 and +1
grid = np.stack(np.meshgrid(np.linspace(-1.5, 2.5, 100), np.linspace(-1, 1.5, 100)), axis=-1)
points = grid.reshape(-1, 2)

figure, axes = plt.subplots(1, 3, figsize=(12, 4), sharey=True)
for ax, (name, options) in zip(
    axes,
    [
        ("linear", {"kernel": "linear"}),
        ("polynomial, degree 3", {"kernel": "poly", "degree": 3, "coef0": 1.0}),
        ("RBF", {"kernel": "rbf", "gamma": 2.0}),
    ],
    strict=True,
):
    svm = BinarySVM(C=10.0, **options).fit(X, y)
    decision = svm.decision_function(points).reshape(grid.shape[:2])
    ax.contourf(grid[..., 0], grid[..., 1], decision > 0, alpha=0.2, cmap="coolwarm")
    ax.contour(grid[..., 0], grid[..., 1], decision, levels=[-1, 0, 1],
               linestyles=["--", "-", "--"], colors="k", linewidths=0.8)
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=15, edgecolors="k", linewidths=0.3)
    ax.scatter(*X[svm.support_].T, s=60, facecolors="none", edgecolors="k", linewidths=0.8)
    ax.set_title(f"{name}: accuracy {svm.score(X, y):.2f}, {len(svm.support_)} SVs")
figure.tight_layout()
