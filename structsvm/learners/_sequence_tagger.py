"""A sequence tagger on per-token feature dicts and string tags, trained as a structural SVM."""

from __future__ import annotations

from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from structsvm._utils.validation import (
    BOOLEAN,
    Interval,
    ParameterConstraints,
    check_consistent_length,
    check_examples,
    check_targets_given,
    validate_parameters,
)
from structsvm.learners._feature_dicts import SequenceVectorizer, check_sentences
from structsvm.learners._flat import flat_parameter_constraints, structural_svm_for


def check_tag_sequences(y: Any, X: Any) -> list[list[str]]:
    """Return the tag sequences y as lists of str, one per sentence of X and as long; or raise."""
    check_examples(y, "y", of="tag sequences (lists of str), one per sentence")
    check_consistent_length(X, y)
    result = []
    for k, (sentence, tags) in enumerate(zip(X, y, strict=True)):
        check_examples(tags, f"y[{k}]", of="str tags")
        tags = list(tags)
        if len(tags) != len(sentence):
            raise ValueError(f"y[{k}] has {len(tags)} tags but X[{k}] has {len(sentence)} tokens")
        for tag in tags:
            if not isinstance(tag, str):
                raise TypeError(f"y[{k}] holds {tag!r}: tags must be str")
        result.append(tags)
    return result


class SequenceTagger(BaseEstimator):
    """Tag sequences from per-token feature dicts, as sklearn-crfsuite's CRF, by a structural SVM.

    ``fit(X, y)`` takes sentences of feature dicts (``X[k][t]`` a dict from str to a number,
    bool, str or list of str: see :class:`~structsvm.learners.SequenceVectorizer`) and their
    string tags (``y[k][t]``), turns the dicts into sparse rows, the tags into the labels of a
    first-order :class:`tasks.ChainTask` (emissions, transitions, Hamming loss) and trains a
    :class:`~structsvm.StructuredSVM` on it. ``predict`` returns string tags; features unseen in
    ``fit`` are ignored.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the slacks.
    solver : {"auto", "n-slack", "1-slack", "bcfw", "dual-cd"}, default="auto"
        How the structural SVM is trained (see :class:`~structsvm.StructuredSVM`).
    tol : float, default=1e-3
        Stop when the duality gap is at most ``tol`` times the primal objective.
    max_iter : int, optional
        Most solver iterations; the solver's default when None.
    hash_features : int, optional
        Hash the feature names into this many columns instead of fitting a vocabulary.
    bio : bool, default=False
        The tags are BIO tags: decode only labellings in which ``I-X`` follows ``B-X`` or
        ``I-X`` (:func:`tasks.chunking.bio_constraints`).
    random_state : int, RandomState or None, default=None
        Seed of the solvers' random order.
    n_jobs : int or None, default=None
        Workers for the oracle calls, as in :class:`~structsvm.StructuredSVM`.
    progress : bool, default=False
        Show a progress bar during fit.
    verbose : int, default=0
        Log every solver iteration to the ``structsvm`` logger when >= 1.

    Attributes
    ----------
    classes_ : ndarray of str
        The tags seen in fit, sorted; label l of the chain is ``classes_[l]``.
    vectorizer_ : SequenceVectorizer
        The fitted feature names (or hashing).
    svm_ : StructuredSVM
        The fitted structural SVM on the chain.

    Examples
    --------
    >>> X = [[{"w": "Ana"}, {"w": "ríe"}], [{"w": "Luis"}, {"w": "ríe"}]]
    >>> y = [["B-PER", "O"], ["B-PER", "O"]]
    >>> SequenceTagger(C=10.0).fit(X, y).predict([[{"w": "ríe"}, {"w": "Ana"}]])
    [['O', 'B-PER']]
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        **flat_parameter_constraints(),
        "hash_features": [Interval(Integral, 1, None, closed="left"), None],
        "bio": [BOOLEAN],
    }

    def __init__(
        self,
        *,
        C: float = 1.0,
        solver: str = "auto",
        tol: float = 1e-3,
        max_iter: int | None = None,
        hash_features: int | None = None,
        bio: bool = False,
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
        progress: bool = False,
        verbose: int = 0,
    ) -> None:
        self.C = C
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.hash_features = hash_features
        self.bio = bio
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress
        self.verbose = verbose

    def fit(self, X: Any, y: Any) -> SequenceTagger:
        """Train on sentences of feature dicts X and their tag sequences y; return self."""
        validate_parameters(self)
        check_targets_given(y)
        check_sentences(X)
        tags = check_tag_sequences(y, X)
        self.classes_ = np.array(sorted({tag for sequence in tags for tag in sequence}))
        if len(self.classes_) < 2:
            raise ValueError(f"y must hold two distinct tags or more, got {self.classes_.tolist()}")
        index = {tag: label for label, tag in enumerate(self.classes_)}
        labels = [np.array([index[tag] for tag in sequence], dtype=np.int64) for sequence in tags]
        self.vectorizer_ = SequenceVectorizer(hash_features=self.hash_features)
        inputs = self.vectorizer_.fit_transform(X)
        # The framework knows no concrete task at import time (see MulticlassSVM).
        from tasks import ChainTask, bio_constraints

        constraints = bio_constraints(self.classes_) if self.bio else {}
        task = ChainTask(len(self.classes_), self.vectorizer_.n_features_, **constraints)
        self.svm_ = structural_svm_for(self, task).fit(inputs, labels)
        return self

    def predict(self, X: Any) -> list[list[str]]:
        """Return the tags of every sentence of feature dicts in X."""
        check_is_fitted(self, "svm_")
        labels = self.svm_.predict(self.vectorizer_.transform(X))
        return [self.classes_[sequence].tolist() for sequence in labels]
