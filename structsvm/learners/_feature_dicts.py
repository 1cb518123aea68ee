"""Per-token feature dicts, as sklearn-crfsuite takes them, turned into sparse sequence inputs.

A sentence is a list of tokens, each a dict of features: ``{"word.lower()": "madrid",
"word.istitle()": True, "len": 6.0, "suffixes": ["id", "rid"]}``. :class:`SequenceVectorizer`
names every feature as CRFsuite does (a number or a bool is the feature ``key`` with that
value; a string is ``key:value`` with value 1; a list of strings is one ``key:item`` per item)
and turns each sentence into a CSR matrix, one row per token, the input of
:class:`tasks.ChainTask` and of the segment task.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from numbers import Real
from typing import Any

import numpy as np
import scipy.sparse

from structsvm._utils.estimator import BaseEstimator, not_fitted_error
from structsvm._utils.validation import check_examples, check_positive_int


def token_items(token: Any, sentence: int, position: int) -> Iterator[tuple[str, float]]:
    """Yield the ``(name, value)`` of every feature of one token's dict, CRFsuite's naming.

    Raises
    ------
    TypeError
        If the token is not a dict of str keys to numbers, bools, str or lists of str; the
        message names the sentence and the position.
    """
    if not isinstance(token, dict):
        raise TypeError(
            f"X[{sentence}][{position}] must be a dict of features, got {type(token).__name__}"
        )
    for key, value in token.items():
        if not isinstance(key, str):
            raise TypeError(
                f"X[{sentence}][{position}] has the key {key!r}: feature names must be str"
            )
        if isinstance(value, str):
            yield f"{key}:{value}", 1.0
        elif isinstance(value, bool | Real):
            yield key, float(value)
        elif isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
            for item in value:
                yield f"{key}:{item}", 1.0
        else:
            raise TypeError(
                f"X[{sentence}][{position}][{key!r}] is a {type(value).__name__}: a feature's "
                "value must be a number, a bool, a str or a list of str"
            )


def check_sentences(X: Any) -> Sequence[Sequence[Any]]:
    """Return X if it is a sequence of sentences, each a sequence of tokens; else raise."""
    check_examples(X, "X", of="sentences (lists of per-token feature dicts)")
    for k, sentence in enumerate(X):
        check_examples(sentence, f"X[{k}]", of="per-token feature dicts")
    return X


class SequenceVectorizer(BaseEstimator):
    """Turn sentences of per-token feature dicts into one CSR matrix per sentence.

    The inputs are those of sklearn-crfsuite: ``X[k][t]`` is the dict of token t of sentence k,
    from str to a number (the feature's value), a bool (1 or 0), a str (the one-hot feature
    ``key:value``) or a list of str (one ``key:item`` per item). ``fit`` collects the names
    into a vocabulary, or, with ``hash_features``, nothing is learnt and every name is hashed
    into that many columns (MurmurHash3, colliding features add up). Features unknown to the
    vocabulary are ignored by ``transform``.

    Parameters
    ----------
    hash_features : int, optional
        Hash feature names into this many columns instead of fitting a vocabulary.

    Attributes
    ----------
    vocabulary_ : dict of str to int
        The column of every feature name seen in ``fit`` (sorted names); empty when hashing.
    n_features_ : int
        The number of columns of the matrices.

    Examples
    --------
    >>> vectorizer = SequenceVectorizer().fit([[{"w": "la", "title": False}, {"w": "Paz"}]])
    >>> vectorizer.vocabulary_
    {'title': 0, 'w:Paz': 1, 'w:la': 2}
    >>> vectorizer.transform([[{"w": "Paz", "new": 1.0}]])[0].toarray().tolist()
    [[0.0, 1.0, 0.0]]
    """

    def __init__(self, hash_features: int | None = None) -> None:
        self.hash_features = hash_features

    def fit(self, X: Sequence[Sequence[dict[str, Any]]], y: object = None) -> SequenceVectorizer:
        """Collect the feature names of the sentences X (nothing to collect when hashing)."""
        check_sentences(X)
        if self.hash_features is not None:
            self.n_features_ = check_positive_int(self.hash_features, "hash_features")
            self.vocabulary_: dict[str, int] = {}
            return self
        names = {
            name
            for k, sentence in enumerate(X)
            for t, token in enumerate(sentence)
            for name, _ in token_items(token, k, t)
        }
        if not names:
            raise ValueError("X holds no feature: every token's dict is empty")
        self.vocabulary_ = {name: column for column, name in enumerate(sorted(names))}
        self.n_features_ = len(self.vocabulary_)
        return self

    def transform(self, X: Sequence[Sequence[dict[str, Any]]]) -> list[scipy.sparse.csr_matrix]:
        """Return one float64 CSR matrix of shape ``(len(X[k]), n_features_)`` per sentence."""
        if not hasattr(self, "n_features_"):
            raise not_fitted_error("This SequenceVectorizer is not fitted yet: call fit first")
        check_sentences(X)
        vocabulary, hashed = self.vocabulary_, self.hash_features is not None
        if hashed:
            # Imported here: importing scikit-learn brings in much of it and of SciPy.
            from sklearn.utils import murmurhash3_32
        columns: list[int] = []
        values: list[float] = []
        row_ends = [0]
        for k, sentence in enumerate(X):
            for t, token in enumerate(sentence):
                for name, value in token_items(token, k, t):
                    if hashed:
                        column = murmurhash3_32(name, positive=True) % self.n_features_
                    else:
                        column = vocabulary.get(name, -1)
                        if column < 0:
                            continue
                    columns.append(column)
                    values.append(value)
                row_ends.append(len(columns))
        indptr = np.asarray(row_ends, dtype=np.int64)
        indices = np.asarray(columns, dtype=np.int64)
        data = np.asarray(values, dtype=np.float64)
        matrices = []
        start = 0
        for sentence in X:
            stop = start + len(sentence)
            low, high = indptr[start], indptr[stop]
            matrix = scipy.sparse.csr_matrix(
                (data[low:high], indices[low:high], indptr[start : stop + 1] - low),
                shape=(len(sentence), self.n_features_),
            )
            matrix.sum_duplicates()
            matrices.append(matrix)
            start = stop
        return matrices

    def fit_transform(
        self, X: Sequence[Sequence[dict[str, Any]]], y: object = None
    ) -> list[scipy.sparse.csr_matrix]:
        """Fit, then return the matrices of the same sentences."""
        return self.fit(X).transform(X)
