"""The compiled oracle of the latent multiclass task, over completed outputs (y, h).

:meth:`tasks.LatentMulticlassTask.compiled_oracle` serves the convex structural SVM of a round
of the latent SVM, whose outputs are pairs (class, sub-class). It is the multiclass oracle
(:mod:`tasks._multiclass_oracle`) over the sub-classes ``z = y * n_subclasses + h`` with the
0/1 loss of their classes; ``data`` is that oracle's data (its first seven entries) followed
by the number of sub-classes per class. A pair's labels are ``[y, h]`` (``np.ravel`` of the pair).
"""

from __future__ import annotations

import numba
import numpy as np

from structsvm._compiled_oracle import ScoreTable
from tasks._multiclass_oracle import (
    dense_class_scores,
    multiclass_decode,
    multiclass_features,
    multiclass_loss,
    multiclass_scores,
)


@numba.njit(cache=True)
def subclass_scores(data, i, w):
    """Return the (1, n_classes * n_subclasses) scores of every sub-class."""
    return multiclass_scores(data[:7], i, w)


@numba.njit(cache=True)
def pair_decode(data, i, w, scores, augmented):
    """Return ``[y, h]`` of the best sub-class (plus its class's loss), ties to the smallest."""
    subclass = multiclass_decode(data[:7], i, w, scores, augmented)[0]
    labels = np.empty(2, dtype=np.int64)
    labels[0], labels[1] = subclass // data[7], subclass % data[7]
    return labels


@numba.njit(cache=True)
def _subclass_of(labels, n_subclasses):
    subclass = np.empty(1, dtype=np.int64)
    subclass[0] = labels[0] * n_subclasses + labels[1]
    return subclass


@numba.njit(cache=True)
def pair_features(data, i, labels):
    """Return x_i copied into the block of the pair's sub-class."""
    return multiclass_features(data[:7], i, _subclass_of(labels, data[7]))


@numba.njit(cache=True)
def pair_loss(data, i, labels):
    """Return the 0/1 loss of the pair's class."""
    return multiclass_loss(data[:7], i, _subclass_of(labels, data[7]))


def batch_subclass_scores(data: tuple, w: np.ndarray) -> ScoreTable:
    """Score every dense input at once (see :func:`tasks._multiclass_oracle.dense_class_scores`)."""
    return dense_class_scores(data[:7], w)


def pair_output(labels: np.ndarray) -> tuple[int, int]:
    """Return the pair (class, sub-class) of its labels."""
    return int(labels[0]), int(labels[1])
