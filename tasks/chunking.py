"""Text chunking: CoNLL-2000 data, chunking features and chunk-level evaluation.

Text chunking divides a sentence into non-overlapping, non-recursive phrases (noun phrases,
verb phrases, ...). The CoNLL-2000 shared task (Tjong Kim Sang & Buchholz, 2000) poses it as
sequence labelling: every token gets a BIO tag, ``B-X`` for the first token of a chunk of type
X, ``I-X`` for the following tokens of that chunk and ``O`` outside any chunk. This module
gives the pieces around a linear-chain model such as :class:`tasks.ChainTask`:

* :func:`read_conll` reads the column format (``word POS chunk-tag``, one token a line, a blank
  line between sentences) into :class:`Sentence` objects;
* :class:`ChunkingFeatures` turns sentences into sparse binary feature matrices with the
  feature templates of Sha & Pereira (2003), as in CRFsuite's chunking example; the same
  feature strings, from :meth:`ChunkingFeatures.token_features`, feed python-crfsuite, so a
  CRF and a structural SVM can be compared on exactly the same features;
* :class:`TagEncoder` maps tag strings to the integer labels a :class:`~tasks.ChainTask` uses;
* :func:`chunk_scores` computes chunk precision, recall and F1 as the shared task's
  ``conlleval`` script does, and :func:`extract_chunks` lists the chunks of one sentence.

References
----------
E. F. Tjong Kim Sang and S. Buchholz. Introduction to the CoNLL-2000 shared task: chunking.
In *Proceedings of CoNLL-2000 and LLL-2000*, pages 127–132, 2000.

F. Sha and F. Pereira. Shallow parsing with conditional random fields. In *Proceedings of
HLT-NAACL 2003*, pages 134–141, 2003.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

__all__ = [
    "ChunkScores",
    "ChunkingFeatures",
    "Sentence",
    "TagEncoder",
    "TypeScores",
    "chunk_scores",
    "extract_chunks",
    "read_conll",
]

_FIELDS = ("words", "pos", "tags")
_DOCSTART = "-DOCSTART-"


# ----------------------------------------------------------------------------- reading
@dataclass(frozen=True)
class Sentence:
    """One sentence of a column file: its words and, when read, POS tags and chunk tags.

    Parameters
    ----------
    words : tuple of str
        The tokens, in order.
    pos : tuple of str or None
        One part-of-speech tag per token, or None when the file had no POS column.
    tags : tuple of str or None
        One chunk tag per token (``B-NP``, ``I-NP``, ``O``, ...), or None when the file had
        no chunk column (unlabelled text to tag).
    """

    words: tuple[str, ...]
    pos: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("words", "pos", "tags"):
            value = getattr(self, name)
            if value is None:
                continue
            object.__setattr__(self, name, tuple(value))
            if len(getattr(self, name)) != len(self.words):
                raise ValueError(
                    f"Sentence.{name} has {len(getattr(self, name))} entries but there are "
                    f"{len(self.words)} words"
                )

    def __len__(self) -> int:
        return len(self.words)


def read_conll(
    source: str | os.PathLike[str] | Iterable[str],
    columns: Sequence[str | None] = _FIELDS,
) -> list[Sentence]:
    """Read a file in the CoNLL-2000 column format into a list of sentences.

    Every non-blank line holds one token as whitespace-separated columns, by default
    ``word POS chunk-tag``; blank lines separate sentences. Several blank lines in a row,
    blank lines at the start or end, a missing final blank line and ``-DOCSTART-`` lines (a
    document boundary, as in CoNLL-2003 files) are all accepted; a ``-DOCSTART-`` line ends
    the sentence before it and is not a token.

    Parameters
    ----------
    source : str, path-like or iterable of str
        A file name, or the lines themselves (an open text file, a list of strings).
    columns : sequence of {"words", "pos", "tags", None}, default=("words", "pos", "tags")
        What each column holds, left to right; None skips a column. Every line must have
        exactly ``len(columns)`` columns. "words" is required; a field that is not named
        stays None in the sentences (for example ``columns=("words", "pos")`` for
        untagged text).

    Returns
    -------
    list of Sentence
        The sentences in file order; a file with no tokens gives an empty list.

    Raises
    ------
    ValueError
        If ``columns`` is invalid, or if a line does not have ``len(columns)`` columns; the
        message gives the file name (or ``<lines>``) and the 1-based line number.

    Examples
    --------
    >>> read_conll(["He PRP B-NP", "reckons VBZ B-VP", ""])
    [Sentence(words=('He', 'reckons'), pos=('PRP', 'VBZ'), tags=('B-NP', 'B-VP'))]
    """
    positions = _check_columns(columns)
    n_columns = len(columns)
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        with open(source, encoding="utf-8") as lines:
            return _read_lines(lines, name, positions, n_columns)
    name = getattr(source, "name", "<lines>")
    return _read_lines(source, str(name), positions, n_columns)


def _check_columns(columns: Sequence[str | None]) -> dict[str, int]:
    if isinstance(columns, str):
        raise ValueError(f"columns must be a sequence of names, got the string {columns!r}")
    positions: dict[str, int] = {}
    for index, column in enumerate(columns):
        if column is None:
            continue
        if column not in _FIELDS:
            raise ValueError(
                f"columns may hold only 'words', 'pos', 'tags' or None, got {column!r}"
            )
        if column in positions:
            raise ValueError(f"columns names {column!r} twice")
        positions[column] = index
    if "words" not in positions:
        raise ValueError(f"columns must include 'words', got {tuple(columns)!r}")
    return positions


def _read_lines(
    lines: Iterable[str], name: str, positions: dict[str, int], n_columns: int
) -> list[Sentence]:
    sentences: list[Sentence] = []
    rows: list[list[str]] = []

    def close_sentence() -> None:
        if rows:
            fields = {key: [row[index] for row in rows] for key, index in positions.items()}
            sentences.append(Sentence(**fields))
            rows.clear()

    for number, line in enumerate(lines, start=1):
        parts = line.split()
        if not parts:
            close_sentence()
            continue
        if parts[0] == _DOCSTART:
            close_sentence()
            continue
        if len(parts) != n_columns:
            raise ValueError(
                f"{name}:{number}: expected {n_columns} columns "
                f"({' '.join(str(c) for c in _column_names(positions, n_columns))}), "
                f"found {len(parts)}: {line.rstrip()!r}"
            )
        rows.append(parts)
    close_sentence()
    return sentences


def _column_names(positions: dict[str, int], n_columns: int) -> list[str]:
    names = ["_"] * n_columns
    for key, index in positions.items():
        names[index] = key
    return names


# ----------------------------------------------------------------------------- features
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


@lru_cache(maxsize=1 << 12)
def _pos_context(tag: str) -> tuple[str, ...]:
    """The POS tag at offsets -2, -1, 0, +1, +2 of the token described."""
    return tuple(f"pos[{offset}]={tag}" for offset in ("-2", "-1", "0", "+1", "+2"))


@lru_cache(maxsize=1 << 14)
def _pos_pair(first: str, second: str) -> tuple[str, ...]:
    """A POS bigram at offsets (-2,-1), (-1,0), (0,+1), (+1,+2) of the token described."""
    return (
        f"pos[-2]|pos[-1]={first}|{second}",
        f"pos[-1]|pos[0]={first}|{second}",
        f"pos[0]|pos[+1]={first}|{second}",
        f"pos[+1]|pos[+2]={first}|{second}",
    )


@lru_cache(maxsize=1 << 16)
def _pos_triple(first: str, second: str, third: str) -> tuple[str, ...]:
    """A POS trigram at offsets (-2,-1,0), (-1,0,+1), (0,+1,+2) of the token described."""
    return (
        f"pos[-2]|pos[-1]|pos[0]={first}|{second}|{third}",
        f"pos[-1]|pos[0]|pos[+1]={first}|{second}|{third}",
        f"pos[0]|pos[+1]|pos[+2]={first}|{second}|{third}",
    )


def _shape(word: str) -> str:
    """Word shape with runs collapsed: ``Confidence`` → ``Xx``, ``1.5`` → ``d.d``."""
    shape = []
    for char in word:
        if char.isupper():
            code = "X"
        elif char.islower():
            code = "x"
        elif char.isdigit():
            code = "d"
        else:
            code = char
        if not shape or shape[-1] != code:
            shape.append(code)
    return "".join(shape)


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

    Examples
    --------
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
        tag = [_pos_context(p) for p in pos]
        pair = [_pos_pair(a, b) for a, b in itertools.pairwise(pos)]
        triple = [_pos_triple(a, b, c) for a, b, c in zip(pos, pos[1:], pos[2:], strict=False)]
        result = []
        for t in range(n):
            features = ["bias", *word[t], tag[t][2]]
            if t == 0:
                features.append("BOS")
            if t >= 1:
                features += [
                    near[t - 1][1],
                    f"w[-1]|w[0]={words[t - 1]}|{words[t]}",
                    tag[t - 1][1],
                    pair[t - 1][1],
                ]
            if t >= 2:
                features += [near[t - 2][0], tag[t - 2][0], pair[t - 2][0], triple[t - 2][0]]
            if t + 1 < n:
                features += [
                    near[t + 1][2],
                    f"w[0]|w[+1]={words[t]}|{words[t + 1]}",
                    tag[t + 1][3],
                    pair[t][2],
                ]
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
            self._fit_columns(_flatten([self.token_features(s) for s in sentences])[0])
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
            ``X[k]`` has shape (len(sentences[k]), n_features_), float64, with a 1 for every
            feature of every token that is in the vocabulary.
        """
        if not hasattr(self, "vocabulary_"):
            raise NotFittedError(
                "This ChunkingFeatures instance is not fitted yet: call fit or fit_transform "
                "before transform"
            )
        with _gc_paused():
            token_features = [self.token_features(s) for s in sentences]
            flat, row_lengths, sentence_lengths = _flatten(token_features)
            columns = np.fromiter(
                map(self.vocabulary_.get, flat, itertools.repeat(-1)),
                dtype=np.int64,
                count=len(flat),
            )
            return self._assemble(columns, row_lengths, sentence_lengths)

    def fit_transform(
        self, sentences: Sequence[Sentence], y: object = None
    ) -> list[scipy.sparse.csr_matrix]:
        """Fit the vocabulary and transform the same sentences (features computed once)."""
        with _gc_paused():
            token_features = [self.token_features(s) for s in sentences]
            flat, row_lengths, sentence_lengths = _flatten(token_features)
            columns = self._fit_columns(flat)
            return self._assemble(columns, row_lengths, sentence_lengths)

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        """Return the feature string of every column, as an array of str."""
        if not hasattr(self, "feature_names_"):
            raise NotFittedError("This ChunkingFeatures instance is not fitted yet")
        return self.feature_names_.copy()

    def _fit_columns(self, flat: list[str]) -> np.ndarray:
        """Build the vocabulary from all feature occurrences; return their columns (-1: pruned)."""
        min_count = self.min_count
        if (
            isinstance(min_count, bool)
            or not isinstance(min_count, (int, np.integer))
            or min_count < 1
        ):
            raise ValueError(f"min_count must be a positive integer, got {min_count!r}")
        # Number the distinct strings in order of first occurrence, all in C.
        first_seen: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        ids = np.fromiter(map(first_seen.__getitem__, flat), dtype=np.int64, count=len(flat))
        names = list(first_seen)
        kept = np.flatnonzero(np.bincount(ids, minlength=len(names)) >= min_count)
        if len(kept) == 0:
            raise ValueError(
                f"no feature occurs at least min_count={min_count} times in the sentences"
            )
        kept_names = [names[i] for i in kept]
        order = sorted(range(len(kept)), key=kept_names.__getitem__)
        column_of_id = np.full(len(names), -1, dtype=np.int64)
        column_of_id[kept[order]] = np.arange(len(kept))
        sorted_names = [kept_names[i] for i in order]
        self.vocabulary_ = dict(zip(sorted_names, range(len(sorted_names)), strict=True))
        self.feature_names_ = np.array(sorted_names, dtype=object)
        self.n_features_ = len(sorted_names)
        return column_of_id[ids]

    def _assemble(
        self, columns: np.ndarray, row_lengths: np.ndarray, sentence_lengths: np.ndarray
    ) -> list[scipy.sparse.csr_matrix]:
        """Cut the columns of all feature occurrences (-1: unknown) into per-sentence CSRs."""
        rows = np.repeat(np.arange(len(row_lengths)), row_lengths)
        known = columns >= 0
        indptr = np.zeros(len(row_lengths) + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows[known], minlength=len(row_lengths)), out=indptr[1:])
        all_rows = scipy.sparse.csr_matrix(
            (np.ones(int(known.sum())), columns[known], indptr),
            shape=(len(row_lengths), self.n_features_),
        )
        all_rows.sort_indices()
        matrices = []
        bounds = np.zeros(len(sentence_lengths) + 1, dtype=np.int64)
        np.cumsum(sentence_lengths, out=bounds[1:])
        for start, stop in itertools.pairwise(bounds.tolist()):
            begin, end = indptr[start], indptr[stop]
            matrices.append(
                scipy.sparse.csr_matrix(
                    (
                        all_rows.data[begin:end],
                        all_rows.indices[begin:end],
                        indptr[start : stop + 1] - begin,
                    ),
                    shape=(stop - start, self.n_features_),
                )
            )
        return matrices


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


def _flatten(token_features: list[list[list[str]]]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Return all feature strings in order, the count per token and the tokens per sentence."""
    flat = list(itertools.chain.from_iterable(itertools.chain.from_iterable(token_features)))
    row_lengths = np.fromiter(
        map(len, itertools.chain.from_iterable(token_features)), dtype=np.int64
    )
    sentence_lengths = np.fromiter(map(len, token_features), dtype=np.int64)
    return flat, row_lengths, sentence_lengths


# ----------------------------------------------------------------------------- labels
class TagEncoder:
    """Map chunk tags to integer labels ``0 .. n_tags - 1`` and back, sentence by sentence.

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
        tags = sorted(set(itertools.chain.from_iterable(tag_sequences)))
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
        for k, tags in enumerate(tag_sequences):
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
        for k, labels in enumerate(label_sequences):
            labels = np.asarray(labels, dtype=np.int64)
            if labels.size and (labels.min() < 0 or labels.max() >= n_tags):
                raise ValueError(f"sentence {k} has labels outside 0 .. {n_tags - 1}")
            result.append(self.classes_[labels].tolist())
        return result

    def _fitted_index(self) -> dict[str, int]:
        if not hasattr(self, "_index"):
            raise NotFittedError("This TagEncoder instance is not fitted yet: call fit first")
        return self._index


# ----------------------------------------------------------------------------- evaluation
def _split_tag(tag: str, sentence: int, position: int) -> tuple[str, str]:
    """Return (prefix, type) of a BIO tag: ``"B-NP"`` → ``("B", "NP")``, ``"O"`` → ``("O", "")``."""
    if tag == "O":
        return "O", ""
    prefix, dash, chunk_type = tag.partition("-")
    if dash and prefix in ("B", "I") and chunk_type:
        return prefix, chunk_type
    raise ValueError(
        f"tag {tag!r} (sentence {sentence}, position {position}) is not a BIO tag: expected "
        f"'O' or 'B-TYPE' / 'I-TYPE'"
    )


def extract_chunks(tags: Sequence[str], *, sentence: int = 0) -> list[tuple[str, int, int]]:
    """Return the chunks of one sentence's BIO tags, by conlleval's rules.

    A chunk of type X starts at ``B-X``, and at ``I-X`` when it is the first token or follows
    ``O`` or a tag of another type (IOB1 files start chunks with ``I-``). It goes on over the
    following ``I-X`` tags and ends before the next ``B-``, ``O``, tag of another type, or at
    the end of the sentence. Two ``B-NP`` in a row are two chunks; ``I-NP I-VP`` is an NP
    then a VP.

    Parameters
    ----------
    tags : sequence of str
        ``O``, ``B-TYPE`` or ``I-TYPE`` for every token.
    sentence : int, default=0
        Index of the sentence, used only in error messages.

    Returns
    -------
    list of (str, int, int)
        ``(type, start, stop)`` for every chunk, tokens ``start .. stop - 1``, in order.

    Raises
    ------
    ValueError
        If a tag is not ``O``, ``B-TYPE`` or ``I-TYPE``.

    Examples
    --------
    >>> extract_chunks(["B-NP", "I-NP", "I-VP", "O", "B-PP"])
    [('NP', 0, 2), ('VP', 2, 3), ('PP', 4, 5)]
    """
    chunks = []
    open_type, open_start = "", -1
    for position, tag in enumerate(tags):
        prefix, chunk_type = _split_tag(tag, sentence, position)
        continues = prefix == "I" and chunk_type == open_type
        if open_type and not continues:
            chunks.append((open_type, open_start, position))
            open_type = ""
        if prefix != "O" and not continues:
            open_type, open_start = chunk_type, position
    if open_type:
        chunks.append((open_type, open_start, len(tags)))
    return chunks


@dataclass(frozen=True)
class TypeScores:
    """Chunk counts and scores of one chunk type (or of all types together).

    Precision, recall and F1 are fractions in [0, 1] (conlleval prints them as percentages).
    A score whose denominator is zero is 0, as in conlleval.

    Attributes
    ----------
    n_true : int
        Chunks in the reference tags.
    n_predicted : int
        Chunks in the predicted tags.
    n_correct : int
        Predicted chunks equal to a reference chunk: same type, same first and last token.
    """

    n_true: int
    n_predicted: int
    n_correct: int

    @property
    def precision(self) -> float:
        """``n_correct / n_predicted`` (0 when nothing is predicted)."""
        return self.n_correct / self.n_predicted if self.n_predicted else 0.0

    @property
    def recall(self) -> float:
        """``n_correct / n_true`` (0 when there is no reference chunk)."""
        return self.n_correct / self.n_true if self.n_true else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall (0 when both are 0)."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class ChunkScores(TypeScores):
    """Chunk-level scores over a corpus, overall and per chunk type, with token accuracy.

    All scores are fractions in [0, 1]; multiply by 100 for conlleval's figures.

    Attributes
    ----------
    n_tokens : int
        Number of tokens.
    n_correct_tags : int
        Tokens whose predicted tag equals the reference tag.
    per_type : dict of str to TypeScores
        Scores of every chunk type found in the reference or the predictions, sorted by
        type.
    """

    n_tokens: int = 0
    n_correct_tags: int = 0
    per_type: dict[str, TypeScores] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        """Fraction of tokens tagged correctly (0 when there are no tokens)."""
        return self.n_correct_tags / self.n_tokens if self.n_tokens else 0.0

    def report(self) -> str:
        """Return a summary in the layout of conlleval's output (scores in percent)."""
        lines = [
            f"processed {self.n_tokens} tokens with {self.n_true} phrases; "
            f"found: {self.n_predicted} phrases; correct: {self.n_correct}.",
            f"accuracy: {100 * self.accuracy:6.2f}%; precision: {100 * self.precision:6.2f}%; "
            f"recall: {100 * self.recall:6.2f}%; FB1: {100 * self.f1:6.2f}",
        ]
        for chunk_type, scores in self.per_type.items():
            lines.append(
                f"{chunk_type:>17}: precision: {100 * scores.precision:6.2f}%; "
                f"recall: {100 * scores.recall:6.2f}%; FB1: {100 * scores.f1:6.2f}  "
                f"{scores.n_predicted}"
            )
        return "\n".join(lines)


def chunk_scores(
    true_tags: Sequence[Sequence[str]], predicted_tags: Sequence[Sequence[str]]
) -> ChunkScores:
    """Score predicted chunk tags against reference tags, as conlleval does.

    The chunks of every sentence are read from its BIO tags with :func:`extract_chunks`
    (chunks never cross sentences). A predicted chunk is correct when a reference chunk has
    the same type, first token and last token. Precision is correct / predicted chunks,
    recall is correct / reference chunks, F1 their harmonic mean; token accuracy counts
    tokens whose tag is exactly right, ``O`` included.

    Parameters
    ----------
    true_tags : sequence of sequence of str
        Reference tags, one sequence per sentence.
    predicted_tags : sequence of sequence of str
        Predicted tags, one sequence per sentence, as long as the reference's. Integer
        predictions convert with :meth:`TagEncoder.inverse_transform`.

    Returns
    -------
    ChunkScores
        Counts, and precision, recall, F1 and accuracy as fractions in [0, 1] (not percent);
        a score whose denominator is zero is 0 (no division by zero).

    Raises
    ------
    ValueError
        If the two lists have different numbers of sentences, a sentence has different
        lengths in the two, or a tag is not ``O``, ``B-TYPE`` or ``I-TYPE``.

    Examples
    --------
    >>> scores = chunk_scores([["B-NP", "I-NP", "B-VP"]], [["B-NP", "B-NP", "B-VP"]])
    >>> scores.n_true, scores.n_predicted, scores.n_correct
    (2, 3, 1)
    >>> round(scores.f1, 3)
    0.4
    """
    if isinstance(true_tags, str) or isinstance(predicted_tags, str):
        raise ValueError("true_tags and predicted_tags must be lists of tag sequences")
    if len(true_tags) != len(predicted_tags):
        raise ValueError(
            f"true_tags has {len(true_tags)} sentences but predicted_tags has "
            f"{len(predicted_tags)}"
        )
    true_counts: Counter[str] = Counter()
    predicted_counts: Counter[str] = Counter()
    correct_counts: Counter[str] = Counter()
    n_tokens = n_correct_tags = 0
    for k, (truth, guess) in enumerate(zip(true_tags, predicted_tags, strict=True)):
        if isinstance(truth, str) or isinstance(guess, str):
            raise ValueError(
                f"sentence {k} is a string: true_tags and predicted_tags must hold one "
                "sequence of tags per sentence"
            )
        if len(truth) != len(guess):
            raise ValueError(
                f"sentence {k} has {len(truth)} reference tags but {len(guess)} predicted tags"
            )
        true_chunks = extract_chunks(truth, sentence=k)
        predicted_chunks = extract_chunks(guess, sentence=k)
        true_counts.update(chunk[0] for chunk in true_chunks)
        predicted_counts.update(chunk[0] for chunk in predicted_chunks)
        correct_counts.update(chunk[0] for chunk in set(true_chunks) & set(predicted_chunks))
        n_tokens += len(truth)
        n_correct_tags += sum(a == b for a, b in zip(truth, guess, strict=True))
    per_type = {
        chunk_type: TypeScores(
            true_counts[chunk_type], predicted_counts[chunk_type], correct_counts[chunk_type]
        )
        for chunk_type in sorted(true_counts.keys() | predicted_counts.keys())
    }
    return ChunkScores(
        n_true=sum(true_counts.values()),
        n_predicted=sum(predicted_counts.values()),
        n_correct=sum(correct_counts.values()),
        n_tokens=n_tokens,
        n_correct_tags=n_correct_tags,
        per_type=per_type,
    )
