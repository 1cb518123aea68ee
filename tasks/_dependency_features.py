"""Hashed first-order arc features of dependency parsing, after McDonald, Crammer & Pereira 2005.

:class:`ArcFeatures` turns sentences (words and part-of-speech tags) into the inputs of
:class:`tasks.DependencyTask`: every word and tag as a 62-bit code (a BLAKE2 digest of its
text, so the same in every process), with the root as position 0. The features of an arc from
head h to dependent d are then hashed from these codes in compiled code, where they are used,
into ``n_features`` columns: memory grows with the words of a sentence, not with its arcs.

The templates (McDonald et al. 2005, table 1), each once alone and once joined with the arc's
direction and distance (1, 2, 3, 4, 5, 6–10, more than 10 words):

* unigram: head word and tag, head word, head tag, and the same of the dependent;
* bigram: the four of head and dependent word and tag, each three of them, the two words, the
  two tags, and one's word with the other's tag (both ways: not in table 1, but in the
  authors' MSTParser);
* surrounding: the head's and dependent's tags with the tags next to them (before or after
  each, four templates), and each of these backed off to three tags, one left out (twelve
  distinct templates);
* one side's word with the other side's tag and the tag before or after the other side's
  word (four templates);
* in between: the head's and dependent's tags with each distinct tag between them;
* the direction and distance alone;
* the unigram and bigram templates with words again, every word longer than 5 letters cut to
  its 5-letter prefix, for the arcs with such a word.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import NamedTuple

import numba
import numpy as np

#: The 5-letter prefixes of words longer than that are features of their own.
PREFIX_LENGTH = 5

#: The codes of the root's word and tag, and of the tags before the first and after the last
#: word (outside the range of text codes, which are below 2**62).
ROOT_CODE = 2**62 + 1
START_CODE = 2**62 + 2
END_CODE = 2**62 + 3
NO_PREFIX = 0

#: The number of templates before the in-between ones (an arc has at most twice that many
#: features plus two per distinct tag between its words).
N_FIXED_TEMPLATES = 48


class ParseInput(NamedTuple):
    """A sentence as :class:`tasks.DependencyTask` takes it; position 0 is the root.

    Attributes
    ----------
    words, tags, prefixes : ndarray of int64, shape (n + 1,)
        The codes of the words (lower-cased), of their tags and of their 5-letter prefixes
        (:data:`NO_PREFIX` for words of at most 5 letters).
    punctuation : ndarray of bool, shape (n,)
        Which words are punctuation (their tag is one of :attr:`ArcFeatures.punctuation_tags`).
    """

    words: np.ndarray
    tags: np.ndarray
    prefixes: np.ndarray
    punctuation: np.ndarray

    @property
    def n_words(self) -> int:
        """The number of words (without the root)."""
        return len(self.words) - 1


class PackedInputs(NamedTuple):
    """Inputs concatenated for compiled code: sentence i's codes are
    ``words[token_offsets[i]:token_offsets[i + 1]]`` (root included), and likewise."""

    words: np.ndarray
    tags: np.ndarray
    prefixes: np.ndarray
    token_offsets: np.ndarray


def packed(X: Sequence[ParseInput]) -> PackedInputs:
    """Return the codes of sentences concatenated, with where each sentence starts."""
    token_offsets = np.zeros(len(X) + 1, dtype=np.int64)
    np.cumsum([len(x.words) for x in X], out=token_offsets[1:])
    return PackedInputs(
        np.concatenate([x.words for x in X]),
        np.concatenate([x.tags for x in X]),
        np.concatenate([x.prefixes for x in X]),
        token_offsets,
    )


def text_code(text: str) -> int:
    """Return the 62-bit code of a word or tag: the first bytes of its BLAKE2 digest."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 2


class ArcFeatures:
    """Turns sentences into :class:`ParseInput` and states the width of the arc features.

    Parameters
    ----------
    n_features : int, default=2**20
        The number of columns the arc features are hashed into (the length of φ); collisions
        share a weight.
    punctuation_tags : sequence of str, default=("PUNCT",)
        The tags of punctuation words (Universal Dependencies' UPOS for punctuation), for the
        loss's punctuation weight and for scores without punctuation.
    """

    def __init__(self, n_features: int = 2**20, punctuation_tags: Sequence[str] = ("PUNCT",)):
        if isinstance(n_features, bool) or not isinstance(n_features, int) or n_features < 1:
            raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
        self.n_features = n_features
        self.punctuation_tags = tuple(punctuation_tags)

    def __repr__(self) -> str:
        return f"ArcFeatures(n_features={self.n_features})"

    def sentence(self, words: Sequence[str], tags: Sequence[str]) -> ParseInput:
        """Return the input of one sentence, given its words and their tags."""
        if len(words) != len(tags) or len(words) == 0:
            raise ValueError(
                f"a sentence needs at least one word and one tag per word, got {len(words)} "
                f"words and {len(tags)} tags"
            )
        lowered = [word.lower() for word in words]
        return ParseInput(
            words=np.array([ROOT_CODE, *map(text_code, lowered)], dtype=np.int64),
            tags=np.array([ROOT_CODE, *map(text_code, tags)], dtype=np.int64),
            prefixes=np.array(
                [
                    NO_PREFIX,
                    *(
                        text_code(word[:PREFIX_LENGTH]) if len(word) > PREFIX_LENGTH else NO_PREFIX
                        for word in lowered
                    ),
                ],
                dtype=np.int64,
            ),
            punctuation=np.array([tag in self.punctuation_tags for tag in tags], dtype=bool),
        )

    def transform(self, sentences: Sequence[object]) -> list[ParseInput]:
        """Return the inputs of sentences that have ``words`` and ``upos`` (as CoNLL-U's)."""
        return [self.sentence(sentence.words, sentence.upos) for sentence in sentences]


# ------------------------------------------------------------------------- compiled hashing
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True)
def _mix(state, value):
    """Return the hash state after taking in one more int64 value (splitmix64's finaliser)."""
    z = (state ^ np.uint64(value)) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True)
def _emit(out, count, width, joined, template, a, b, c, d):
    """Write the column of a template's parts, alone and joined with ``joined``; return count."""
    state = _mix(_mix(_mix(_mix(_mix(np.uint64(0), template), a), b), c), d)
    out[count] = np.int64(state % np.uint64(width))
    out[count + 1] = np.int64(_mix(state, joined) % np.uint64(width))
    return count + 2


@numba.njit(cache=True)
def distance_bucket(h, d):
    """Return the arc's direction and distance as one number (1-7 rightward, 9-15 leftward)."""
    distance = abs(h - d)
    bucket = distance if distance <= 5 else (6 if distance <= 10 else 7)
    return bucket if h < d else 8 + bucket


@numba.njit(cache=True)
def arc_columns(words, tags, prefixes, h, d, between, n_between, width, out, backoffs=True):
    """Write the feature columns of the arc h → d into ``out``; return how many.

    ``backoffs=False`` leaves out the surrounding tags' back-offs to three tags.

    ``between[:n_between]`` are the distinct tags of the words strictly between h and d.
    ``out`` must hold ``2 * (N_FIXED_TEMPLATES + n_between)`` entries.
    """
    n = len(words) - 1
    joined = distance_bucket(h, d)
    hw, ht, hp = words[h], tags[h], prefixes[h]
    dw, dt, dp = words[d], tags[d], prefixes[d]
    h_before = tags[h - 1] if h > 0 else START_CODE
    h_after = tags[h + 1] if h < n else END_CODE
    d_before = tags[d - 1] if d > 0 else START_CODE
    d_after = tags[d + 1] if d < n else END_CODE
    # a word's 5-letter prefix if it is longer, else the word itself
    hq = hp if hp != NO_PREFIX else hw
    dq = dp if dp != NO_PREFIX else dw
    k = 0
    # unigram
    k = _emit(out, k, width, joined, 1, hw, ht, 0, 0)
    k = _emit(out, k, width, joined, 2, hw, 0, 0, 0)
    k = _emit(out, k, width, joined, 3, ht, 0, 0, 0)
    k = _emit(out, k, width, joined, 4, dw, dt, 0, 0)
    k = _emit(out, k, width, joined, 5, dw, 0, 0, 0)
    k = _emit(out, k, width, joined, 6, dt, 0, 0, 0)
    # bigram
    k = _emit(out, k, width, joined, 7, hw, ht, dw, dt)
    k = _emit(out, k, width, joined, 8, ht, dw, dt, 0)
    k = _emit(out, k, width, joined, 9, hw, dw, dt, 0)
    k = _emit(out, k, width, joined, 10, hw, ht, dt, 0)
    k = _emit(out, k, width, joined, 11, hw, ht, dw, 0)
    k = _emit(out, k, width, joined, 12, hw, dw, 0, 0)
    k = _emit(out, k, width, joined, 13, ht, dt, 0, 0)
    k = _emit(out, k, width, joined, 42, hw, dt, 0, 0)
    k = _emit(out, k, width, joined, 43, ht, dw, 0, 0)
    # surrounding: a tag next to the head's and one next to the dependent's (before or after
    # each) with both, and (with ``backoffs``) backed off to three tags, one of the four out
    h_next = (h_before, h_after)
    d_next = (d_before, d_after)
    for side in range(2):
        if backoffs:
            k = _emit(out, k, width, joined, 14 + side, h_next[side], ht, dt, 0)
            k = _emit(out, k, width, joined, 16 + side, ht, d_next[side], dt, 0)
        for other in range(2):
            pair = 2 * side + other
            k = _emit(out, k, width, joined, 18 + pair, h_next[side], ht, d_next[other], dt)
            if backoffs:
                k = _emit(out, k, width, joined, 22 + pair, h_next[side], d_next[other], dt, 0)
                k = _emit(out, k, width, joined, 26 + pair, h_next[side], ht, d_next[other], 0)
        # one side's word with the other side's tag and a tag next to the other side's word
        k = _emit(out, k, width, joined, 46 + side, hw, dt, d_next[side], 0)
        k = _emit(out, k, width, joined, 48 + side, h_next[side], ht, dw, 0)
    # direction and distance alone
    k = _emit(out, k, width, joined, 30, 0, 0, 0, 0)
    # the templates with words again, long words cut to their prefixes (when one is long)
    if hp != NO_PREFIX:
        k = _emit(out, k, width, joined, 31, hq, ht, 0, 0)
        k = _emit(out, k, width, joined, 32, hq, 0, 0, 0)
        k = _emit(out, k, width, joined, 33, hq, ht, dt, 0)
        k = _emit(out, k, width, joined, 44, hq, dt, 0, 0)
    if dp != NO_PREFIX:
        k = _emit(out, k, width, joined, 34, dq, dt, 0, 0)
        k = _emit(out, k, width, joined, 35, dq, 0, 0, 0)
        k = _emit(out, k, width, joined, 36, ht, dq, dt, 0)
        k = _emit(out, k, width, joined, 45, ht, dq, 0, 0)
    if hp != NO_PREFIX or dp != NO_PREFIX:
        k = _emit(out, k, width, joined, 37, hq, ht, dq, dt)
        k = _emit(out, k, width, joined, 38, hq, dq, dt, 0)
        k = _emit(out, k, width, joined, 39, hq, ht, dq, 0)
        k = _emit(out, k, width, joined, 40, hq, dq, 0, 0)
    # in between
    for b in range(n_between):
        k = _emit(out, k, width, joined, 41, ht, between[b], dt, 0)
    return k


@numba.njit(cache=True)
def tags_between(tags, h, d, between):
    """Write the distinct tags strictly between h and d into ``between``; return how many."""
    count = 0
    for position in range(min(h, d) + 1, max(h, d)):
        count = _add_distinct(between, count, tags[position])
    return count


@numba.njit(cache=True)
def _add_distinct(between, count, tag):
    """Append ``tag`` to ``between[:count]`` unless it is there; return the new count."""
    for b in range(count):
        if between[b] == tag:
            return count
    between[count] = tag
    return count + 1


@numba.njit(cache=True)
def arc_scores(words, tags, prefixes, w, width):
    """Return the (n + 1, n + 1) arc scores ``scores[h, d] = w · f(h, d)`` of a sentence.

    Arcs into the root and from a word to itself are not scored (0).
    """
    n1 = len(words)
    scores = np.zeros((n1, n1))
    between = np.empty(n1, dtype=np.int64)
    out = np.empty(2 * (N_FIXED_TEMPLATES + n1), dtype=np.int64)
    for low in range(n1):
        n_between = 0
        for high in range(low + 1, n1):
            count = arc_columns(words, tags, prefixes, low, high, between, n_between, width, out)
            total = 0.0
            for k in range(count):
                total += w[out[k]]
            scores[low, high] = total
            if low > 0:
                count = arc_columns(
                    words, tags, prefixes, high, low, between, n_between, width, out
                )
                total = 0.0
                for k in range(count):
                    total += w[out[k]]
                scores[high, low] = total
            n_between = _add_distinct(between, n_between, tags[high])
    return scores


@numba.njit(cache=True)
def tree_arc_columns(words, tags, prefixes, heads, width):
    """Return the feature columns of every arc of a tree, as CSR ``(columns, indptr)``.

    Row d - 1 holds the columns of the arc into word d (duplicates kept, in template order).
    """
    n1 = len(words)
    between = np.empty(n1, dtype=np.int64)
    columns = np.empty(2 * (N_FIXED_TEMPLATES + n1) * (n1 - 1), dtype=np.int64)
    indptr = np.zeros(n1, dtype=np.int64)
    for d in range(1, n1):
        h = heads[d - 1]
        n_between = tags_between(tags, h, d, between)
        begin = indptr[d - 1]
        count = arc_columns(words, tags, prefixes, h, d, between, n_between, width, columns[begin:])
        indptr[d] = begin + count
    return columns[: indptr[n1 - 1]], indptr


@numba.njit(cache=True)
def _distinct_counts(sorted_columns, columns, counts, start, fill):
    """Return how many distinct values ``sorted_columns`` holds; with ``fill``, write them to
    ``columns[start:]`` and how often each occurs to ``counts[start:]``."""
    m = 0
    for k in range(len(sorted_columns)):
        if k == 0 or sorted_columns[k] != sorted_columns[k - 1]:
            if fill:
                columns[start + m], counts[start + m] = sorted_columns[k], 0.0
            m += 1
        if fill:
            counts[start + m - 1] += 1.0
    return m


@numba.njit(cache=True)
def tree_columns(words, tags, prefixes, heads, width):
    """Return φ of a tree, the summed features of its arcs, as sorted columns and counts."""
    columns = np.sort(tree_arc_columns(words, tags, prefixes, heads, width)[0])
    indices = np.empty(len(columns), dtype=np.int64)
    values = np.empty(len(columns))
    m = _distinct_counts(columns, indices, values, 0, True)
    return indices[:m], values[:m]


@numba.njit(cache=True)
def arc_rows(words, tags, prefixes, token_offsets, heads, width, backoffs, indptr, columns, counts):
    """Write the features of the arcs of trees as CSR rows, one per word: distinct sorted columns.

    Sentence i is ``words[token_offsets[i]:token_offsets[i + 1]]`` (root included), and the
    heads of its words are ``heads[token_offsets[i] - i:token_offsets[i + 1] - i - 1]``. With
    empty ``columns`` this sets the row pointers ``indptr`` (one more than the words); given
    ``columns`` and ``counts`` of ``indptr[-1]`` entries, it fills them (a column's count is
    how many of the arc's templates hash to it); ``backoffs`` as for :func:`arc_columns`.
    """
    fill = len(columns) > 0
    longest = np.max(np.diff(token_offsets))
    between = np.empty(longest, dtype=np.int64)
    out = np.empty(2 * (N_FIXED_TEMPLATES + longest), dtype=np.int64)
    row = 0
    for i in range(len(token_offsets) - 1):
        begin, end = token_offsets[i], token_offsets[i + 1]
        words_i, tags_i, prefixes_i = words[begin:end], tags[begin:end], prefixes[begin:end]
        for d in range(1, end - begin):
            h = heads[row]
            n_between = tags_between(tags_i, h, d, between)
            count = arc_columns(
                words_i, tags_i, prefixes_i, h, d, between, n_between, width, out, backoffs
            )
            m = _distinct_counts(np.sort(out[:count]), columns, counts, indptr[row], fill)
            if not fill:
                indptr[row + 1] = indptr[row] + m
            row += 1
