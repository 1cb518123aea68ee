"""Latent multiclass classification: each class is a mixture of linear models (its sub-classes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from structsvm._compiled_oracle import CompiledOracle, no_add_features, no_labelling_score
from structsvm._task import LatentTask, overrides_any
from structsvm._utils.validation import check_labels, check_positive_int
from tasks._kmeans import kmeans_within_labels
from tasks._multiclass import MulticlassTask, _one_row

Pair = tuple[int, int]


class LatentMulticlassTask(LatentTask):
    """Multiclass classification where every class owns ``n_subclasses`` hidden sub-classes.

    An output is a pair ``(y, h)``: the class y in ``0 .. n_classes - 1`` and its sub-class h in
    ``0 .. n_subclasses - 1``. The joint feature map copies x into the block of sub-class
    ``z = y * n_subclasses + h`` (Crammer & Singer's map over the sub-classes), so each
    sub-class has its own weight row and a class scores an input by its best sub-class: a
    mixture of linear models per class, as in the latent SVM of Felzenszwalb et al. and the
    digit demonstration of Yu & Joachims. The loss is 0/1 on the class.

    Parameters
    ----------
    n_classes : int
        Number of observed classes (at least 2).
    n_subclasses : int
        Hidden sub-classes per class (at least 1; with 1 this is the multiclass task).
    n_features : int
        Width of an input vector x.

    Notes
    -----
    Ties go to the smallest sub-class index ``z`` (``numpy.argmax``). Training starts
    (:meth:`initial_latent`) from k-means clusters of the inputs of each class.

    References
    ----------
    C.-N. J. Yu and T. Joachims, "Learning structural SVMs with latent variables", ICML 2009.
    P. Felzenszwalb, D. McAllester and D. Ramanan, "A discriminatively trained, multiscale,
    deformable part model", CVPR 2008.
    """

    def __init__(self, n_classes: int, n_subclasses: int, n_features: int) -> None:
        self.n_classes = check_positive_int(n_classes, "n_classes", minimum=2)
        self.n_subclasses = check_positive_int(n_subclasses, "n_subclasses")
        self.n_features = check_positive_int(n_features, "n_features")
        # The sub-classes as classes, whose loss is the 0/1 loss of their classes.
        class_losses = 1.0 - np.eye(self.n_classes)
        same_class = np.ones((self.n_subclasses, self.n_subclasses))
        self._subclasses = MulticlassTask(
            self.n_classes * self.n_subclasses, self.n_features, np.kron(class_losses, same_class)
        )
        self.size_joint_feature = self._subclasses.size_joint_feature

    def __repr__(self) -> str:
        return (
            f"LatentMulticlassTask(n_classes={self.n_classes}, "
            f"n_subclasses={self.n_subclasses}, n_features={self.n_features})"
        )

    def _subclass(self, output: Pair) -> int:
        y, h = output
        return int(y) * self.n_subclasses + int(h)

    def _pair(self, subclass: int) -> Pair:
        return divmod(int(subclass), self.n_subclasses)

    def joint_feature(self, x: np.ndarray, y: Pair) -> np.ndarray:
        """Return x copied into the block of sub-class ``y[0] * n_subclasses + y[1]``."""
        return self._subclasses.joint_feature(x, self._subclass(y))

    def loss(self, y_true: Pair, y: Pair) -> float:
        """Return 1.0 if the classes differ, else 0.0 (the sub-classes do not count)."""
        return float(int(y_true[0]) != int(y[0]))

    def max_loss(self, y_true: Pair) -> float:
        """Return 1.0."""
        return 1.0

    def outputs(self, x: np.ndarray) -> list[Pair]:
        """Every pair (class, sub-class), by sub-class index."""
        return [self._pair(z) for z in range(self.n_classes * self.n_subclasses)]

    def latent_outputs(self, x: np.ndarray, y: int) -> range:
        """Every sub-class of a class."""
        return range(self.n_subclasses)

    def argmax(self, x: np.ndarray, w: np.ndarray) -> Pair:
        """Return the best (class, sub-class)."""
        return self.batch_argmax(_one_row(x), w)[0]

    def loss_augmented_argmax(self, x: np.ndarray, y_true: Pair, w: np.ndarray) -> Pair:
        """Return the (class, sub-class) maximising the 0/1 loss of the class plus the score."""
        return self.batch_loss_augmented_argmax(_one_row(x), [y_true], w)[0]

    def latent_argmax(self, x: np.ndarray, y: int, w: np.ndarray) -> int:
        """Return the best sub-class of class y."""
        return int(self.batch_latent_argmax(_one_row(x), [y], w)[0])

    def compiled_oracle(self, X, Y) -> CompiledOracle | None:
        """Return the multiclass task's compiled oracle over the sub-classes.

        ``Y`` holds pairs (class, sub-class); a pair's labels are its sub-class
        ``[y * n_subclasses + h]``. None for a subclass that overrides an oracle, the loss or
        the joint feature.
        """
        if overrides_any(self, LatentMulticlassTask):
            return None
        return self._subclasses.compiled_oracle(X, self._subclass_array(Y))._replace(
            to_output=lambda labels: self._pair(labels[0]),
            to_labels=lambda y: np.array([self._subclass(y)], dtype=np.int64),
            n_outputs=None,
            labelling_score=no_labelling_score,
            add_features=no_add_features,
        )

    def check_data(self, X: Any, Y: Any = None) -> tuple[Any, Any]:
        """Return X as a finite (n, n_features) array (or CSR rows) and Y as class labels."""
        X, _ = self._subclasses.check_data(X)
        if Y is not None:
            Y = check_labels(Y, "Y", n_labels=self.n_classes)
            super().check_data(X, Y)
        return X, Y

    def initial_latent(
        self, X: Any, Y: Sequence[int], random_state: int | None = None
    ) -> list[int]:
        """Cluster the inputs of each class by k-means into (at most) ``n_subclasses`` groups.

        A class with fewer examples than sub-classes gives each example its own sub-class.
        """
        Y = np.asarray(Y, dtype=np.int64)
        latent = kmeans_within_labels(X, Y, self.n_subclasses, random_state)
        return [int(h) for h in latent]

    def _subclass_array(self, Y: Sequence[Pair]) -> np.ndarray:
        return np.array([self._subclass(y) for y in Y], dtype=np.int64)

    def batch_joint_feature(self, X: Any, Y: Sequence[Pair]):
        """Return the rows of every example as a CSR matrix."""
        return self._subclasses.batch_joint_feature(X, self._subclass_array(Y))

    def batch_loss(self, Y_true: Sequence[Pair], Y: Sequence[Pair]) -> np.ndarray:
        """Return the 0/1 loss of the classes of every example."""
        return self._subclasses.batch_loss(self._subclass_array(Y_true), self._subclass_array(Y))

    def batch_argmax(self, X: Any, w: np.ndarray) -> list[Pair]:
        """Return the best (class, sub-class) of every input (one matrix product)."""
        return [self._pair(z) for z in self._subclasses.batch_argmax(X, w)]

    def batch_loss_augmented_argmax(
        self, X: Any, Y_true: Sequence[Pair], w: np.ndarray
    ) -> list[Pair]:
        """Return the most violating (class, sub-class) of every example."""
        subclasses = self._subclasses.batch_loss_augmented_argmax(
            X, self._subclass_array(Y_true), w
        )
        return [self._pair(z) for z in subclasses]

    def batch_latent_argmax(self, X: Any, Y: Sequence[int], w: np.ndarray) -> np.ndarray:
        """Return the best sub-class of every example's class."""
        Y = np.asarray(Y, dtype=np.int64)
        scores = self._subclasses._class_scores(X, w).reshape(-1, self.n_classes, self.n_subclasses)
        return np.argmax(scores[np.arange(len(Y)), Y], axis=1)

    def batch_score(self, X: Any, Y: Sequence[Pair], w: np.ndarray) -> np.ndarray:
        """Return ``w · φ(X[i], Y[i])`` for every example."""
        return self._subclasses.batch_score(X, self._subclass_array(Y), w)
