"""
Denoising a grid
================

Every pixel of a small binary image is a node of a 4-neighbourhood grid
(:func:`tasks.grid_edges`); :class:`tasks.GraphTask` learns how much a pixel's noisy value
counts (the unary weights) and how much neighbours agree (the pairwise weights). Inference on
the grid, which has cycles, runs loopy max-product (:func:`structsvm.infer`). The pairwise term
cleans up the noise that thresholding each pixel alone leaves.
"""

import matplotlib.pyplot as plt
import numpy as np

from structsvm import StructuredSVM
from tasks import GraphTask, grid_edges

SIZE = 10


def noisy_squares(n_images, seed):
    """Binary images holding one square, seen through heavy Gaussian noise."""
    rng = np.random.default_rng(seed)
    X, Y = [], []
    for _ in range(n_images):
        clean = np.zeros((SIZE, SIZE), dtype=int)
        top, left = rng.integers(0, SIZE // 2, 2)
        clean[top : top + SIZE // 2, left : left + SIZE // 2] = 1
        noisy = clean + rng.normal(scale=0.9, size=clean.shape)
        X.append((np.c_[noisy.ravel(), np.ones(clean.size)], grid_edges(clean.shape)))
        Y.append(clean.ravel())
    return X, Y


X_train, Y_train = noisy_squares(12, seed=0)
X_test, Y_test = noisy_squares(10, seed=1)
task = GraphTask(n_states=2, n_features=2, inference_method="max-product")
model = StructuredSVM(task, C=1.0, solver="1-slack", max_iter=40).fit(X_train, Y_train)
predicted = model.predict(X_test)
thresholded = [x[0][:, 0] > 0.5 for x in X_test]
print(f"pixels right: {model.score(X_test, Y_test):.3f}, "
      f"thresholding: {np.mean(np.concatenate(thresholded) == np.concatenate(Y_test)):.3f}")

# %%
# Three test images: noisy input, thresholded, denoised by the grid model, truth.
figure, axes = plt.subplots(3, 4, figsize=(8, 6))
for row in range(3):
    panels = [X_test[row][0][:, 0], thresholded[row], predicted[row], Y_test[row]]
    for ax, image, title in zip(
        axes[row], panels, ["noisy", "thresholded", "grid model", "truth"], strict=True
    ):
        ax.imshow(np.reshape(image, (SIZE, SIZE)), cmap="gray")
        ax.set_axis_off()
        if row == 0:
            ax.set_title(title)
figure.tight_layout()
