"""
A custom task in 30 lines
=========================

An ordinal task: three ordered classes, where predicting 0 for a 2 costs twice as much as
predicting 1. The task states φ, Δ and the outputs; the base class :class:`structsvm.Task`
finds both argmaxes by enumerating :meth:`~structsvm.Task.outputs`. :func:`structsvm.check_task`
checks the contract before training.
"""

import matplotlib.pyplot as plt
import numpy as np

import structsvm


class OrdinalTask(structsvm.Task):
    """Classes 0..k-1 in order; φ(x, y) places x in the block of class y; Δ = |y - y'|."""

    def __init__(self, n_classes, n_features):
        self.n_classes, self.n_features = n_classes, n_features
        self.size_joint_feature = n_classes * n_features

    def joint_feature(self, x, y):
        phi = np.zeros((self.n_classes, self.n_features))
        phi[y] = x
        return phi.ravel()

    def loss(self, y_true, y):
        return float(abs(y_true - y))

    def max_loss(self, y_true):
        return float(max(y_true, self.n_classes - 1 - y_true))

    def outputs(self, x):
        return range(self.n_classes)


rng = np.random.default_rng(0)
X = np.hstack([rng.normal(size=(150, 2)), np.ones((150, 1))])  # two features and a bias
Y = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.5, 0.5])  # three ordered classes
task = OrdinalTask(n_classes=3, n_features=3)
print(structsvm.check_task(task, X[:5], Y[:5]))
model = structsvm.StructuredSVM(task, C=10.0).fit(X, Y)
print(f"accuracy {model.score(X, Y):.3f}, duality gap {model.duality_gap_:.2e}")

# %%
# The learned regions of the three classes.
grid = np.stack(np.meshgrid(np.linspace(-3, 3, 120), np.linspace(-3, 3, 120)), axis=-1)
points = np.c_[grid.reshape(-1, 2), np.ones(grid.shape[0] * grid.shape[1])]
regions = np.asarray(model.predict(points)).reshape(grid.shape[:2])
plt.contourf(grid[..., 0], grid[..., 1], regions, levels=[-0.5, 0.5, 1.5, 2.5], alpha=0.3)
plt.scatter(X[:, 0], X[:, 1], c=Y, s=12, edgecolors="k", linewidths=0.3)
plt.title("ordinal structural SVM: predicted class regions")
plt.xlabel("feature 1")
plt.ylabel("feature 2")
