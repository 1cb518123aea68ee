"""Chunk-level evaluation as the CoNLL-2000 shared task's ``conlleval`` script computes it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from structsvm._utils.validation import check_examples


def _split_tag(tag: str, sentence: int, position: int) -> tuple[str, str]:
    """Return (prefix, type) of a BIO tag: ``"B-NP"`` → ``("B", "NP")``, ``"O"`` → ``("O", "")``."""
    if not isinstance(tag, str):
        raise TypeError(
            f"tag {tag!r} (sentence {sentence}, position {position}) must be a str such as "
            f"'O' or 'B-NP', got {type(tag).__name__}"
        )
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
    TypeError
        If tags is not a sequence (a list, tuple or array) of str.
    ValueError
        If a tag is not ``O``, ``B-TYPE`` or ``I-TYPE``.

    References
    ----------
    E. F. Tjong Kim Sang. ``conlleval``, the evaluation script of the CoNLL-2000 shared task.
    https://www.clips.uantwerpen.be/conll2000/chunking/conlleval.txt

    Examples
    --------
    >>> extract_chunks(["B-NP", "I-NP", "I-VP", "O", "B-PP"])
    [('NP', 0, 2), ('VP', 2, 3), ('PP', 4, 5)]
    """
    check_examples(tags, "tags", of="tags")
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


def _fraction(numerator: float, denominator: float) -> float:
    """Return ``numerator / denominator``, or 0 when the denominator is 0, as conlleval does."""
    return numerator / denominator if denominator else 0.0


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
        return _fraction(self.n_correct, self.n_predicted)

    @property
    def recall(self) -> float:
        """``n_correct / n_true`` (0 when there is no reference chunk)."""
        return _fraction(self.n_correct, self.n_true)

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall (0 when both are 0)."""
        p, r = self.precision, self.recall
        return _fraction(2 * p * r, p + r)


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
        return _fraction(self.n_correct_tags, self.n_tokens)

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
        predictions convert with :meth:`tasks.TagEncoder.inverse_transform`.

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

    References
    ----------
    E. F. Tjong Kim Sang and S. Buchholz. Introduction to the CoNLL-2000 shared task:
    chunking. In *Proceedings of CoNLL-2000 and LLL-2000*, pages 127–132, 2000.

    E. F. Tjong Kim Sang. ``conlleval``, the evaluation script of the CoNLL-2000 shared task.
    https://www.clips.uantwerpen.be/conll2000/chunking/conlleval.txt

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
    check_examples(true_tags, "true_tags", of="tag sequences")
    check_examples(predicted_tags, "predicted_tags", of="tag sequences")
    if len(true_tags) != len(predicted_tags):
        raise ValueError(
            f"true_tags has {len(true_tags)} sentences but predicted_tags has "
            f"{len(predicted_tags)}"
        )
    true_counts, predicted_counts, correct_counts = Counter(), Counter(), Counter()
    n_tokens = n_correct_tags = 0
    for k, (truth, guess) in enumerate(zip(true_tags, predicted_tags, strict=True)):
        if isinstance(truth, str) or isinstance(guess, str):
            raise ValueError(
                f"sentence {k} is a string: true_tags and predicted_tags must hold one "
                "sequence of tags per sentence"
            )
        check_examples(truth, f"true_tags[{k}]", of="tags")
        check_examples(guess, f"predicted_tags[{k}]", of="tags")
        if len(truth) != len(guess):
            raise ValueError(
                f"sentence {k} has {len(truth)} reference tags but {len(guess)} predicted tags: "
                f"true_tags[{k}] and predicted_tags[{k}] must have the same length"
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
    totals = (sum(counts.values()) for counts in (true_counts, predicted_counts, correct_counts))
    return ChunkScores(*totals, n_tokens, n_correct_tags, per_type)
