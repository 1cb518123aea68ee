"""A sequence tagger on per-token feature dicts and string tags, trained as a structural SVM."""

from __future__ import annotations

from numbers import Integral
from typing import Any, ClassVar

import numpy as np

from structsvm._utils.estimator import BaseEstimator, check_is_fitted
from structsvm._utils.validation import (
    BOOLEAN,
    Interval,
    Options,
    ParameterConstraints,
    check_consistent_length,
    check_examples,
    check_targets_given,
    validate_parameters,
)
from structsvm.learners._feature_dicts import SequenceVectorizer, check_sentences
from structsvm.learners._flat import PASSED_ON, flat_parameter_constraints, structural_svm_for
from structsvm.solvers import SOLVER_DEFAULTS


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


def bio_segments(tags: list[str], max_length: int) -> list[tuple[int, int, str]]:
    """Return the entities and outside tokens of BIO tags as ``(start, stop, type)`` segments.

    Every ``O`` token is a segment of type ``O``; an entity starts at ``B-X`` (or at ``I-X``
    after another type, as conlleval reads it) and is cut into pieces of at most
    ``max_length`` tokens.
    """
    segments: list[tuple[int, int, str]] = []
    for position, tag in enumerate(tags):
        kind = tag[2:] if tag[:2] in ("B-", "I-") else "O"
        if (tag != "O" and kind == "O") or tag in ("B-", "I-"):
            raise ValueError(f"segments need BIO tags (O, B-X, I-X), got {tag!r}")
        if segments:
            start, _, previous = segments[-1]
            goes_on = tag.startswith("I-") and previous == kind
            if goes_on and position - start < max_length:
                segments[-1] = (start, position + 1, kind)
                continue
        segments.append((position, position + 1, kind))
    return segments


class SequenceTagger(BaseEstimator):
    """Tag sequences from per-token feature dicts, as sklearn-crfsuite's CRF, by a structural SVM.

    ``fit(X, y)`` takes sentences of feature dicts (``X[k][t]`` a dict from str to a number,
    bool, str or list of str: see :class:`~structsvm.learners.SequenceVectorizer`) and their
    string tags (``y[k][t]``), turns the dicts into sparse rows, the tags into the labels of a
    first-order :class:`tasks.ChainTask` (emissions, transitions, Hamming loss) and trains a
    :class:`~structsvm.StructuredSVM` on it. ``predict`` returns string tags; features unseen in
    ``fit`` are ignored.

    With ``segments=L`` the tags must be BIO tags, and the model is a
    :class:`tasks.SemiMarkovTask` over entities of at most L tokens (first-token, every-token
    and last-token features, length, transitions; each ``O`` token a segment of its own), with
    the loss ``segment_loss``; training entities longer than L tokens are cut into pieces.

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
        ``I-X`` (:func:`tasks.chunking.bio_constraints`); the chain only.
    segments : int, optional
        Train a semi-Markov model over BIO entities of at most this many tokens instead of a
        chain over the tags.
    segment_loss : {"hamming", "segments"}, default="hamming"
        The semi-Markov model's loss: wrong BIO tags, or entities in one tagging but not the
        other (see :class:`tasks.SemiMarkovTask`).
    step, order, averaging, gap_check_every, keep_best, gap_sweep_every, gap_mixing, \
cache_size, cache_timeout
        bcfw's options, passed on to :class:`~structsvm.StructuredSVM` (which validates them
        and documents them), with its defaults.
    inactive_window : int, optional
        The cutting-plane solvers' option, as in :class:`~structsvm.StructuredSVM`.
    random_state : int, RandomState or None, default=None
        Seed of the solvers' random order.
    n_jobs : int or None, default=None
        Workers for the oracle calls, as in :class:`~structsvm.StructuredSVM`.
    warm_start : bool, default=False
        A fit on the same sentences and tags continues the earlier fit (see ``warm_start`` of
        :class:`~structsvm.StructuredSVM`); with bcfw C may change, which walks a
        regularisation path, each C starting from the dual point of the last.
    progress : bool, default=False
        Show a progress bar during fit.
    verbose : int, default=0
        Log every solver iteration to the ``structsvm`` logger when >= 1.

    Attributes
    ----------
    classes_ : ndarray of str
        The tags seen in fit, sorted; label l of the chain is ``classes_[l]``.
    segment_types_ : ndarray of str
        With ``segments``: the entity types and ``O``, sorted; label k of the segment task.
    vectorizer_ : SequenceVectorizer
        The fitted feature names (or hashing).
    svm_ : StructuredSVM
        The fitted structural SVM on the chain or the segments; its ``history_`` holds the
        certified duality gaps.

    Examples
    --------
    >>> X = [[{"w": "Ana"}, {"w": "ríe"}], [{"w": "Luis"}, {"w": "ríe"}]]
    >>> y = [["B-PER", "O"], ["B-PER", "O"]]
    >>> SequenceTagger(C=10.0).fit(X, y).predict([[{"w": "ríe"}, {"w": "Ana"}]])
    [['O', 'B-PER']]
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        **flat_parameter_constraints(PASSED_ON),
        "hash_features": [Interval(Integral, 1, None, closed="left"), None],
        "bio": [BOOLEAN],
        "segments": [Interval(Integral, 1, None, closed="left"), None],
        "segment_loss": [Options("hamming", "segments")],
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
        segments: int | None = None,
        segment_loss: str = "hamming",
        step: str = SOLVER_DEFAULTS["bcfw"]["step"],
        order: str = SOLVER_DEFAULTS["bcfw"]["order"],
        averaging: bool = SOLVER_DEFAULTS["bcfw"]["averaging"],
        gap_check_every: int = SOLVER_DEFAULTS["bcfw"]["gap_check_every"],
        keep_best: bool = SOLVER_DEFAULTS["bcfw"]["keep_best"],
        gap_sweep_every: int = SOLVER_DEFAULTS["bcfw"]["gap_sweep_every"],
        gap_mixing: float = SOLVER_DEFAULTS["bcfw"]["gap_mixing"],
        cache_size: int = SOLVER_DEFAULTS["bcfw"]["cache_size"],
        cache_timeout: int = SOLVER_DEFAULTS["bcfw"]["cache_timeout"],
        inactive_window: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
        warm_start: bool = False,
        progress: bool = False,
        verbose: int = 0,
    ) -> None:
        self.C = C
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.hash_features = hash_features
        self.bio = bio
        self.segments = segments
        self.segment_loss = segment_loss
        self.step = step
        self.order = order
        self.averaging = averaging
        self.gap_check_every = gap_check_every
        self.keep_best = keep_best
        self.gap_sweep_every = gap_sweep_every
        self.gap_mixing = gap_mixing
        self.cache_size = cache_size
        self.cache_timeout = cache_timeout
        self.inactive_window = inactive_window
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.warm_start = warm_start
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
        self.vectorizer_ = SequenceVectorizer(hash_features=self.hash_features)
        inputs = self.vectorizer_.fit_transform(X)
        task, labels = (self._chain if self.segments is None else self._segment_task)(tags)
        svm = structural_svm_for(self, task)
        if self.warm_start and hasattr(self, "svm_"):
            svm = self.svm_.set_params(**svm.get_params(deep=False))
        self.svm_ = svm.fit(inputs, labels)
        return self

    def _chain(self, tags: list[list[str]]) -> tuple[Any, list[np.ndarray]]:
        """Return the chain over the tags and the label sequences of ``tags``."""
        # The framework knows no concrete task at import time (see MulticlassSVM).
        from tasks import ChainTask, bio_constraints

        index = {tag: label for label, tag in enumerate(self.classes_)}
        labels = [np.array([index[tag] for tag in sequence], dtype=np.int64) for sequence in tags]
        constraints = bio_constraints(self.classes_) if self.bio else {}
        task = ChainTask(len(self.classes_), self.vectorizer_.n_features_, **constraints)
        return task, labels

    def _segment_task(self, tags: list[list[str]]) -> tuple[Any, list[np.ndarray]]:
        """Return the semi-Markov task over BIO entities and the codes of ``tags``."""
        from tasks import SemiMarkovTask

        segmentations = [bio_segments(sequence, self.segments) for sequence in tags]
        types = sorted({kind for segments in segmentations for _, _, kind in segments} | {"O"})
        self.segment_types_ = np.array(types)
        index = {kind: label for label, kind in enumerate(types)}
        max_lengths = [1 if kind == "O" else self.segments for kind in types]
        task = SemiMarkovTask(
            len(types),
            self.vectorizer_.n_features_,
            max_length=self.segments,
            max_lengths=max_lengths,
            loss=self.segment_loss,
        )
        codes = [
            task.codes([(s, e, index[kind]) for s, e, kind in segments], len(sequence))
            for segments, sequence in zip(segmentations, tags, strict=True)
        ]
        return task, codes

    def predict(self, X: Any) -> list[list[str]]:
        """Return the tags of every sentence of feature dicts in X."""
        check_is_fitted(self, "svm_")
        outputs = self.svm_.predict(self.vectorizer_.transform(X))
        if self.segments is None:
            return [self.classes_[sequence].tolist() for sequence in outputs]
        return [self._bio_tags(codes) for codes in outputs]

    def score(self, X: Any, y: Any) -> float:
        """Return the fraction of tokens of X whose predicted tag is the tag in y."""
        tags = check_tag_sequences(y, X)
        predicted = self.predict(X)
        pairs = zip(predicted, tags, strict=True)
        right = sum(a == b for p, t in pairs for a, b in zip(p, t, strict=True))
        return right / sum(len(t) for t in tags)

    def _bio_tags(self, codes: np.ndarray) -> list[str]:
        """Return the BIO tags of a segmentation's codes."""
        tags = []
        n_types = len(self.segment_types_)
        for code in codes:
            kind = self.segment_types_[code % n_types]
            tags.append("O" if kind == "O" else ("B-" if code < n_types else "I-") + kind)
        return tags
