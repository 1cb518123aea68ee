"""
OCR letters with a chain
========================

Handwritten words (Taskar, Guestrin & Koller, NIPS 2003; shipped with structsvm) are sequences
of 16×8 binary letter images. :class:`tasks.ChainTask` scores each letter by its pixels and each
pair of neighbouring letters by a transition matrix, decoded by Viterbi. A chain beats
classifying every letter on its own because the transitions know which letters follow which.
"""

import matplotlib.pyplot as plt
import numpy as np

from structsvm import StructuredSVM
from structsvm.datasets import ocr_letters_split
from tasks import ChainTask

train, test = ocr_letters_split("small")
train = train.select(np.arange(len(train.X)) < 100)  # a small budget: 100 training words
test = test.select(np.arange(len(test.X)) < 300)
n_labels, n_features = len(train.label_names), train.X[0].shape[1]

scores = {}
for transitions in (False, True):
    task = ChainTask(n_labels, n_features, transitions=transitions)
    model = StructuredSVM(task, C=0.1, solver="1-slack", max_iter=40).fit(train.X, train.Y)
    scores["chain" if transitions else "letters alone"] = model.score(test.X, test.Y)
print(scores)

# %%
# The transition block of the chain's weights: row the previous letter, column the next one.
w_transitions = model.w_[n_labels * n_features : n_labels * n_features + n_labels**2]
figure, (bars, matrix) = plt.subplots(1, 2, figsize=(10, 4))
bars.bar(list(scores), list(scores.values()))
bars.set_ylim(0, 1)
bars.set_ylabel("test accuracy per letter")
image = matrix.imshow(w_transitions.reshape(n_labels, n_labels), cmap="RdBu_r")
matrix.set_xticks(range(n_labels), train.label_names, fontsize=6)
matrix.set_yticks(range(n_labels), train.label_names, fontsize=6)
matrix.set_title("transition weights")
figure.colorbar(image, ax=matrix)
figure.tight_layout()
