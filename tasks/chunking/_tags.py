"""Chunk tags as the integer labels of a linear-chain task, and back."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import numpy as np

from structsvm._utils.estimator import not_fitted_error
from structsvm._utils.validation import check_iterable, check_labels


class TagEncoder:
    """Map chunk tags to integer labels ``range(n_tags)`` and back, sentence by sentence.

    Like :class:`sklearn.preprocessing.LabelEncoder`, but on lists of tag sequences: the
    labels follow the sorted tags, ``classes_[label]`` is the tag of a label.

    Attributes
    ----------
    classes_ : ndarray of str
        The tags seen in ``fit``, sorted.

    Examples
    --------
    >>> encoder = TagEncoder().fit([["B-NP", "I-NP", "O"]])
    >>> [y.tolist() for y in encoder.transform([["O", "B-NP"]])]
    [[2, 0]]
    >>> encoder.inverse_transform([np.array([1, 2])])
    [['I-NP', 'O']]
    """

    def fit(self, tag_sequences: Iterable[Sequence[str]]) -> TagEncoder:
        """Collect the tags of the training sentences.

        Parameters
        ----------
        tag_sequences : iterable of sequence of str
            The tags of every sentence (for example ``[s.tags for s in sentences]``).

        Returns
        -------
        self
        """
        tags = sorted(set(itertools.chain.from_iterable(_tag_lists(tag_sequences))))
        if not tags:
            raise ValueError("no tags to fit: the tag sequences are empty")
        self.classes_ = np.array(tags, dtype=object)
        self._index = {tag: label for label, tag in enumerate(tags)}
        return self

    def fit_transform(self, tag_sequences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Fit, then return the labels of the same sequences."""
        return self.fit(tag_sequences).transform(tag_sequences)

    def transform(self, tag_sequences: Iterable[Sequence[str]]) -> list[np.ndarray]:
        """Return one int64 label array per sentence.

        Raises
        ------
        ValueError
            If a tag was not seen in ``fit``; the message names it and its sentence.
        """
        index = self._fitted_index()
        result = []
        for k, tags in enumerate(_tag_lists(tag_sequences)):
            try:
                result.append(np.array([index[tag] for tag in tags], dtype=np.int64))
            except KeyError as error:
                raise ValueError(
                    f"sentence {k} has the tag {error.args[0]!r}, not seen in fit; known tags: "
                    f"{', '.join(self.classes_)}"
                ) from None
        return result

    def inverse_transform(self, label_sequences: Iterable[Sequence[int]]) -> list[list[str]]:
        """Return the tags of integer label arrays (for example predictions)."""
        self._fitted_index()
        n_tags = len(self.classes_)
        result = []
        check_iterable(label_sequences, "label_sequences", of="label sequences, one per sentence")
        for k, labels in enumerate(label_sequences):
            labels = check_labels(labels, f"label_sequences[{k}]", n_labels=n_tags)
            result.append(self.classes_[labels].tolist())
        return result

    def _fitted_index(self) -> dict[str, int]:
        if not hasattr(self, "_index"):
            raise not_fitted_error("This TagEncoder instance is not fitted yet: call fit first")
        return self._index


def _tag_lists(tag_sequences: object) -> list[list[str]]:
    """Return the tag sequences as lists of str; raise TypeError naming the one that is not."""
    check_iterable(tag_sequences, "tag_sequences", of="tag sequences, one per sentence")
    result = []
    for k, tags in enumerate(tag_sequences):
        check_iterable(tags, f"tag_sequences[{k}]", of="str tags")
        tags = list(tags)
        for tag in tags:
            if not isinstance(tag, str):
                raise TypeError(
                    f"tag_sequences[{k}] holds the tag {tag!r} of type {type(tag).__name__}, "
                    "expected str"
                )
        result.append(tags)
    return result
