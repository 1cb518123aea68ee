"""The labels of dependency arcs (their relations), predicted one arc at a time.

An unlabelled parser (:class:`tasks.DependencyTask`) finds the tree; :class:`ArcLabeller`
then gives every arc its relation (``nsubj``, ``obj``, …) by a multiclass structural SVM
(:class:`tasks.MulticlassTask`, Crammer & Singer's) over the arc's hashed features, the
parser's templates but the surrounding tags' back-offs to three, trained on the arcs of the
true trees. Labelled attachment (LAS) counts the words whose head and relation are both
right.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm.learners import StructuredSVM
from tasks._dependency import heads_of
from tasks._dependency_features import ParseInput, arc_rows, packed
from tasks._multiclass import MulticlassTask


class ArcLabeller:
    """Predicts the relation of every arc of a tree from the arc's features.

    Parameters
    ----------
    n_features : int, default=2**18
        The columns the arc features are hashed into for the labeller (its weights are
        ``n_features`` per relation).
    C : float, default=0.1
        The structural SVM's C (its objective sums the hinge losses of the arcs).
    max_iter : int, optional
        The solver's most iterations (its default when None).

    Attributes
    ----------
    relations_ : ndarray of str
        The relations seen in training, sorted.
    svm_ : StructuredSVM
        The fitted classifier of arcs (on a :class:`tasks.MulticlassTask`, solver "auto").
    """

    def __init__(self, n_features: int = 2**18, C: float = 0.1, max_iter: int | None = None):
        self.n_features = n_features
        self.C = C
        self.max_iter = max_iter

    def arc_rows(self, X: Sequence[ParseInput], heads: Sequence[Any]) -> sp.csr_matrix:
        """Return one row of arc features per word of every sentence (its arc from its head).

        The rows hold sorted distinct columns (int32 when ``n_features`` allows) and counts.
        """
        tree_heads = np.concatenate([heads_of(y) for y in heads])
        data = (*packed(X), tree_heads, self.n_features, False)
        n_rows = len(tree_heads)
        indptr = np.zeros(n_rows + 1, dtype=np.int64)
        arc_rows(*data, indptr, np.zeros(0, dtype=np.int32), np.zeros(0))
        index_type = np.int32 if self.n_features <= np.iinfo(np.int32).max else np.int64
        columns, counts = np.empty(indptr[-1], dtype=index_type), np.empty(indptr[-1])
        arc_rows(*data, indptr, columns, counts)
        if indptr[-1] <= np.iinfo(np.int32).max:
            indptr = indptr.astype(np.int32)
        return sp.csr_matrix((counts, columns, indptr), shape=(n_rows, self.n_features))

    def fit(
        self, X: Sequence[ParseInput], heads: Sequence[Any], relations: Sequence[Sequence[str]]
    ) -> ArcLabeller:
        """Train on the arcs of true trees (``heads``) and their ``relations``; return self."""
        targets = np.array([label for sentence in relations for label in sentence])
        self.relations_, encoded = np.unique(targets, return_inverse=True)
        task = MulticlassTask(len(self.relations_), self.n_features)
        self.svm_ = StructuredSVM(task, C=self.C, max_iter=self.max_iter)
        self.svm_.fit(self.arc_rows(X, heads), encoded.ravel())
        return self

    def predict(self, X: Sequence[ParseInput], heads: Sequence[Any]) -> list[list[str]]:
        """Return the relation of every arc of the trees ``heads`` of X, sentence by sentence."""
        predicted = self.relations_[self.svm_.predict(self.arc_rows(X, heads))]
        ends = np.cumsum([x.n_words for x in X])
        return [part.tolist() for part in np.split(predicted, ends[:-1])]
