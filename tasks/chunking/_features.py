"""Chunking features: the templates of Sha & Pereira (2003) as sparse binary matrices."""

from __future__ import annotations

import contextlib
import gc
import itertools
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache

import numpy as np
import scipy.sparse

from structsvm._utils.estimator import BaseEstimator, not_fitted_error
from structsvm._utils.validation import check_examples, check_positive_int
from tasks.chunking._conll import Sentence


@lru_cache(maxsize=1 << 17)
def _word_features(word: str) -> tuple[str, ...]:
    """Features of the current word alone: identity, case, affixes, shape (cached per word)."""
    features = [f"w[0]={word}", f"lower={word.lower()}"]
    for k in (1, 2, 3):
        if len(word) >= k:
            features.append(f"prefix{k}={word[:k]}")
            features.append(f"suffix{k}={word[-k:]}")
    features.append(f"shape={_shape(word)}")
    if word.istitle():
        features.append("title")
    if word.isupper():
        features.append("upper")
    if any(c.isdigit() for c in word):
        features.append("has_digit")
    if "-" in word:
        features.append("has_hyphen")
    return tuple(features)


@lru_cache(maxsize=1 << 17)
def _word_context(word: str) -> tuple[str, ...]:
    """The word seen from its neighbours: ``w[-2]``, ``w[-1]``, ``w[+1]``, ``w[+2]``."""
    return (f"w[-2]={word}", f"w[-1]={word}", f"w[+1]={word}", f"w[+2]={word}")


@lru_cache(maxsize=1 << 17)
def _pos_gram(*tags: str) -> tuple[str, ...]:
    """A POS n-gram at every place of the token described in the window -2..+2, leftmost first.

    One tag: ``pos[-2]`` … ``pos[+2]``; two: ``pos[-2]|pos[-1]`` … ``pos[+1]|pos[+2]``; three:
    ``pos[-2]|pos[-1]|pos[0]`` … ``pos[0]|pos[+1]|pos[+2]``.
    """
    value = "|".join(tags)
    offsets = ("-2", "-1", "0", "+1", "+2")
    return tuple(
        "|".join(f"pos[{offset}]" for offset in offsets[at : at + len(tags)]) + f"={value}"
        for at in range(6 - len(tags))
    )


def _shape(word: str) -> str:
    """Word shape with runs collapsed: ``Confidence`` → ``Xx``, ``1.5`` → ``d.d``."""
    codes = (
        "X" if char.isupper() else "x" if char.islower() else "d" if char.isdigit() else char
        for char in word
    )
    return "".join(code for code, _ in itertools.groupby(codes))


class ChunkingFeatures(BaseEstimator):
    """Binary indicator features for chunking, one sparse row per token.

    Every token gets the feature strings of :meth:`token_features`; ``fit`` builds the
    vocabulary of features seen (at least ``min_count`` times) and ``transform`` turns each
    sentence into a CSR matrix of shape (T, n_features) with a 1 in the column of every
    feature the token has, ready for :class:`tasks.ChainTask`. Features not in the vocabulary
    are ignored.

    The templates are those of Sha & Pereira (2003) as in CRFsuite's chunking example, plus
    affix and shape features of the current word. For the token at position t (offsets
    outside the sentence are left out, so the first and last tokens have fewer features):

    * ``bias``, always on; ``BOS`` on the first token, ``EOS`` on the last;
    * the current word ``w[0]``, its lower case, prefixes and suffixes of 1 to 3 characters,
      its shape (``Xx``, ``d.d``, ...) and flags ``title``, ``upper``, ``has_digit``,
      ``has_hyphen``;
    * the words ``w[-2]``, ``w[-1]``, ``w[+1]``, ``w[+2]`` and the bigrams ``w[-1]|w[0]``,
      ``w[0]|w[+1]``;
    * the POS tags ``pos[-2]`` … ``pos[+2]``, the POS bigrams ``pos[-2]|pos[-1]``,
      ``pos[-1]|pos[0]``, ``pos[0]|pos[+1]``, ``pos[+1]|pos[+2]`` and the POS trigrams
      ``pos[-2]|pos[-1]|pos[0]``, ``pos[-1]|pos[0]|pos[+1]``, ``pos[0]|pos[+1]|pos[+2]``.

    Parameters
    ----------
    min_count : int, default=1
        Keep only features that fire on at least this many tokens of the training data.

    Attributes
    ----------
    vocabulary_ : dict of str to int
        Column of every kept feature; columns follow the sorted feature strings.
    feature_names_ : ndarray of str
        The feature string of every column.
    n_features_ : int
        Number of columns of the matrices ``transform`` returns.

    References
    ----------
    F. Sha and F. Pereira. Shallow parsing with conditional random fields. In *Proceedings of
    HLT-NAACL 2003*, pages 134–141, 2003.

    N. Okazaki. CRFsuite: a fast implementation of conditional random fields (CRFs), 2007.
    http://www.chokkan.org/software/crfsuite/

    Examples
    --------
    >>> from tasks.chunking import read_conll
    >>> sentences = read_conll(["He PRP B-NP", "reckons VBZ B-VP", ""])
    >>> features = ChunkingFeatures()
    >>> X = features.fit_transform(sentences)
    >>> X[0].shape == (2, features.n_features_)
    True
    >>> xseq = [features.token_features(s) for s in sentences]  # for pycrfsuite.Trainer
    """

    def __init__(self, min_count: int = 1) -> None:
        self.min_count = min_count

    def token_features(self, sentence: Sentence) -> list[list[str]]:
        """Return the feature strings of every token of a sentence.

        This is the one definition of the features: ``transform`` maps these strings to
        columns, and the lists can be given as they are to python-crfsuite
        (``Trainer.append(xseq, yseq)``, ``Tagger.tag(xseq)``), where each string is a
        binary attribute.

        Parameters
        ----------
        sentence : Sentence
            A sentence with words and POS tags.

        Returns
        -------
        list of list of str
            ``result[t]`` lists the features of token t, without repeats.
        """
        words, pos = sentence.words, sentence.pos
        if pos is None:
            raise ValueError("ChunkingFeatures needs POS tags: the sentence has pos=None")
        n = len(words)
        # Feature strings built once per word, tag, tag pair and tag triple, and reused: this
        # saves building and hashing most strings again (the word bigrams stay per token).
        word = [_word_features(w) for w in words]
        near = [_word_context(w) for w in words]
        tag = [_pos_gram(p) for p in pos]
        pair = [_pos_gram(a, b) for a, b in itertools.pairwise(pos)]
        triple = [_pos_gram(a, b, c) for a, b, c in zip(pos, pos[1:], pos[2:], strict=False)]
        result = []
        for t in range(n):
            features = ["bias", *word[t], tag[t][2]]
            if t == 0:
                features.append("BOS")
            if t >= 1:
                bigram = f"w[-1]|w[0]={words[t - 1]}|{words[t]}"
                features += [near[t - 1][1], bigram, tag[t - 1][1], pair[t - 1][1]]
            if t >= 2:
                features += [near[t - 2][0], tag[t - 2][0], pair[t - 2][0], triple[t - 2][0]]
            if t + 1 < n:
                bigram = f"w[0]|w[+1]={words[t]}|{words[t + 1]}"
                features += [near[t + 1][2], bigram, tag[t + 1][3], pair[t][2]]
                if t >= 1:
                    features.append(triple[t - 1][1])
            else:
                features.append("EOS")
            if t + 2 < n:
                features += [near[t + 2][3], tag[t + 2][4], pair[t + 1][3], triple[t][2]]
            result.append(features)
        return result

    def fit(self, sentences: Sequence[Sentence], y: object = None) -> ChunkingFeatures:
        """Build the feature vocabulary from training sentences.

        Parameters
        ----------
        sentences : sequence of Sentence
            Sentences with words and POS tags.
        y : ignored

        Returns
        -------
        self
        """
        with _gc_paused():
            self._fit_columns(*self._first_seen_ids(sentences)[:2])
        return self

    def transform(self, sentences: Sequence[Sentence]) -> list[scipy.sparse.csr_matrix]:
        """Return one binary feature matrix per sentence.

        Parameters
        ----------
        sentences : sequence of Sentence
            Sentences with words and POS tags.

        Returns
        -------
        list of scipy.sparse.csr_matrix
            ``X[k]`` has shape ``(len(sentences[k]), n_features_)``, float64, with a 1 for every
            feature of every token that is in the vocabulary.
        """
        self._check_fitted()
        _check_sentences(sentences)
        with _gc_paused():
            column_of = self.vocabulary_.get
            columns, row_lengths, sentence_lengths = _numbered_occurrences(
                (self.token_features(s) for s in sentences),
                lambda names: map(column_of, names, itertools.repeat(-1)),
            )
            return self._assemble(columns, row_lengths, sentence_lengths)

    def fit_transform(
        self, sentences: Sequence[Sentence], y: object = None
    ) -> list[scipy.sparse.csr_matrix]:
        """Fit the vocabulary and transform the same sentences (features computed once)."""
        with _gc_paused():
            ids, names, row_lengths, sentence_lengths = self._first_seen_ids(sentences)
            columns = self._fit_columns(ids, names)
            del ids, names  # not held while the matrices are built
            return self._assemble(columns, row_lengths, sentence_lengths)

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        """Return the feature string of every column, as an array of str."""
        self._check_fitted()
        return self.feature_names_.copy()

    def _check_fitted(self) -> None:
        """Raise NotFittedError unless ``fit`` or ``fit_transform`` has built the vocabulary."""
        if not hasattr(self, "vocabulary_"):
            raise not_fitted_error(
                "This ChunkingFeatures instance is not fitted yet: call fit or fit_transform"
            )

    def _first_seen_ids(
        self, sentences: Sequence[Sentence]
    ) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray]:
        """Number the distinct feature strings in order of first occurrence.

        Returns the number of every feature occurrence in order, the distinct strings, the
        features per token and the tokens per sentence.
        """
        _check_sentences(sentences)
        # The numbering is done in C; one string of each distinct feature is kept.
        first_seen: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        ids, row_lengths, sentence_lengths = _numbered_occurrences(
            (self.token_features(s) for s in sentences),
            lambda names: map(first_seen.__getitem__, names),
        )
        return ids, list(first_seen), row_lengths, sentence_lengths

    def _fit_columns(self, ids: np.ndarray, names: list[str]) -> np.ndarray:
        """Build the vocabulary from the numbered feature occurrences and the distinct strings
        (see ``_first_seen_ids``); return the columns of the occurrences (-1: pruned)."""
        min_count = check_positive_int(self.min_count, "min_count")
        kept = np.flatnonzero(np.bincount(ids, minlength=len(names)) >= min_count)
        if len(kept) == 0:
            raise ValueError(
                f"no feature occurs at least min_count={min_count} times in the sentences"
            )
        kept_names = [names[i] for i in kept]
        order = sorted(range(len(kept)), key=kept_names.__getitem__)
        # The columns of all occurrences take int32 where they fit, as the matrices keep them.
        index_type = np.int32 if len(kept) < np.iinfo(np.int32).max else np.int64
        column_of_id = np.full(len(names), -1, dtype=index_type)
        column_of_id[kept[order]] = np.arange(len(kept))
        sorted_names = [kept_names[i] for i in order]
        self.vocabulary_ = dict(zip(sorted_names, range(len(sorted_names)), strict=True))
        self.feature_names_ = np.array(sorted_names, dtype=object)
        self.n_features_ = len(sorted_names)
        return column_of_id[ids]

    def _assemble(
        self, columns: np.ndarray, row_lengths: np.ndarray, sentence_lengths: np.ndarray
    ) -> list[scipy.sparse.csr_matrix]:
        """Cut the columns of all feature occurrences (-1: unknown) into per-sentence CSRs.

        No array of one entry per occurrence is made beyond the matrices' own (the known
        occurrences are counted token by token, and the columns are used as they are when all
        are known): on a corpus such arrays are the largest temporaries.
        """
        known = columns >= 0
        indptr = np.zeros(len(row_lengths) + 1, dtype=np.int64)
        if known.all():
            np.cumsum(row_lengths, out=indptr[1:])
        else:
            known_per_row = np.zeros(len(row_lengths), dtype=np.int64)
            nonempty = row_lengths > 0
            if nonempty.any():
                starts = np.cumsum(row_lengths) - row_lengths
                known_per_row[nonempty] = np.add.reduceat(
                    known, starts[nonempty], dtype=np.int64
                )
            np.cumsum(known_per_row, out=indptr[1:])
            columns = columns[known]
        del known
        all_rows = scipy.sparse.csr_matrix(
            (np.ones(len(columns)), columns, indptr),
            shape=(len(row_lengths), self.n_features_),
        )
        all_rows.sort_indices()
        matrices = []
        bounds = np.zeros(len(sentence_lengths) + 1, dtype=np.int64)
        np.cumsum(sentence_lengths, out=bounds[1:])
        for start, stop in itertools.pairwise(bounds.tolist()):
            begin, end = indptr[start], indptr[stop]
            data, indices = all_rows.data[begin:end], all_rows.indices[begin:end]
            matrix = scipy.sparse.csr_matrix(
                (data, indices, indptr[start : stop + 1] - begin),
                shape=(stop - start, self.n_features_),
            )
            # SciPy copies a small view of a large array into a matrix of its own; the matrices
            # keep views of the corpus's two arrays instead, which ChainTask stacks without a
            # copy (one copy of the stored entries, not two, while a model trains on them).
            matrix.data, matrix.indices = data, indices
            matrices.append(matrix)
        return matrices


def _numbered_occurrences(
    sentences: Iterable[list[list[str]]], numbers: Callable[[Iterable[str]], Iterable[int]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Number the feature strings of every token, one sentence at a time.

    ``sentences`` gives the feature strings of each sentence's tokens and ``numbers`` maps
    strings to their numbers. The strings of a sentence are dropped once numbered, so
    only the numbers of all the occurrences are held at once, never their strings.

    Returns
    -------
    numbers : ndarray of int64
        The number of every feature occurrence, token after token.
    row_lengths, sentence_lengths : ndarrays of int64
        The features of every token, and the tokens of every sentence.
    """
    occurrences, row_lengths, sentence_lengths = array("q"), array("q"), array("q")
    for tokens in sentences:
        sentence_lengths.append(len(tokens))
        row_lengths.extend(map(len, tokens))
        occurrences.extend(numbers(itertools.chain.from_iterable(tokens)))
    arrays = (occurrences, row_lengths, sentence_lengths)
    return tuple(np.frombuffer(values, dtype=np.int64) for values in arrays)


def _check_sentences(sentences: object) -> None:
    """Raise TypeError unless ``sentences`` is a sequence of :class:`Sentence` objects."""
    check_examples(sentences, "sentences", of="Sentence objects (see read_conll)")
    for k, sentence in enumerate(sentences):
        if not isinstance(sentence, Sentence):
            raise TypeError(
                f"sentences[{k}] must be a Sentence (see read_conll), got {type(sentence).__name__}"
            )


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of acyclic lists and strings are made.

    The collector would otherwise walk the growing heap again and again (a third of the time
    of ``fit_transform`` on CoNLL-2000); nothing built here forms reference cycles.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
