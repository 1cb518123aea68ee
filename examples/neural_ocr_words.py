"""
Handwritten words read by a network under the chain's hinge
============================================================

A small convolutional network scores each 16×8 letter image of the OCR letters (Taskar,
Guestrin & Koller, NIPS 2003) with 26 unary scores; a learned transition matrix scores each
pair of neighbouring letters; Viterbi reads the word. The network is trained end to end on the
chain's structured hinge (:mod:`structsvm.torch`, :doc:`/user_guide/neural_scores`). Here on
2,000 words for 3 epochs, about a minute on two cores; ``python -m experiments.neural_ocr``
trains on the whole large split. Needs PyTorch (``pip install "structsvm-learn[torch]"``), so
the documentation shows this script without running it.
"""

import matplotlib.pyplot as plt
import numpy as np
import torch

from structsvm.datasets import ocr_letters_split
from structsvm.torch import StructuredHingeLoss, decode
from tasks.structures import ChainStructure

torch.manual_seed(0)
train, test = ocr_letters_split("large")
train = train.select(np.arange(len(train.X)) < 2000)


def padded(X, Y):
    """Return the words' letter images (letters, 1, 16, 8), true letters and prefix mask."""
    lengths = torch.tensor([len(y) for y in Y])
    mask = torch.arange(int(lengths.max())) < lengths[:, None]
    images = torch.from_numpy(np.concatenate(X).astype(np.float32)).reshape(-1, 1, 16, 8)
    truth = torch.zeros(mask.shape, dtype=torch.int64)
    truth[mask] = torch.from_numpy(np.concatenate(Y))
    return images, truth, mask


network = torch.nn.Sequential(
    torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(),
    torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Flatten(), torch.nn.Linear(32 * 8 * 4, 128), torch.nn.ReLU(),
    torch.nn.Linear(128, 26),
)
transitions = torch.nn.Parameter(torch.zeros(26, 26))
chain = ChainStructure(26)
hinge = StructuredHingeLoss(chain, reduction="sum")
optimiser = torch.optim.Adam([*network.parameters(), transitions], lr=2e-3)


def unary_scores(images, mask):
    """Return the network's scores of every letter, placed in the padded (words, T, 26)."""
    unary = torch.zeros((*mask.shape, 26))
    unary[mask] = network(images)
    return unary


for epoch in range(3):
    order = np.random.default_rng(epoch).permutation(len(train.X))
    for first in range(0, len(order), 64):
        batch = order[first : first + 64]
        images, truth, mask = padded([train.X[k] for k in batch], [train.Y[k] for k in batch])
        loss = hinge((unary_scores(images, mask), transitions), truth, mask) / mask.sum()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()

images, truth, mask = padded(test.X, test.Y)
with torch.no_grad():
    predicted = decode(chain, (unary_scores(images, mask), transitions), mask)
print(f"test letter accuracy {(predicted == truth)[mask].float().mean().item():.3f}")



def spelled(letters):
    """Return letters 0..25 as a word."""
    return "".join(chr(ord("a") + int(c)) for c in letters)


# %%
# A few test words: the images of their letters, the true word and the one read.
shown = [0, 40, 80, 120, 160, 200]
figure, axes = plt.subplots(len(shown), 1, figsize=(6, 1.2 * len(shown)))
for axis, k in zip(axes, shown, strict=True):
    letters = test.X[k].reshape(-1, 16, 8)
    axis.imshow(np.concatenate(list(letters), axis=1), cmap="gray_r")
    true_word, read = (spelled(word[mask[k]]) for word in (truth[k], predicted[k]))
    axis.set_title(f"{true_word} → {read}", fontsize=9)
    axis.axis("off")
figure.tight_layout()
plt.show()
