"""Attachment scores of dependency parses: unlabelled (UAS) and labelled (LAS)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np


class AttachmentScores(NamedTuple):
    """The share of words with the right head (UAS) and the right head and relation (LAS).

    Attributes
    ----------
    uas, las : float
        Over every word.
    uas_without_punctuation, las_without_punctuation : float
        Over the words that are not punctuation.
    n_words, n_words_without_punctuation : int
    """

    uas: float
    las: float
    uas_without_punctuation: float
    las_without_punctuation: float
    n_words: int
    n_words_without_punctuation: int


def attachment_scores(
    gold: Sequence[Any],
    heads: Sequence[Any],
    relations: Sequence[Sequence[str]],
    punctuation_tags: Sequence[str] = ("PUNCT",),
) -> AttachmentScores:
    """Return the attachment scores of predicted trees against true sentences.

    Parameters
    ----------
    gold : sequence of sentences with ``heads``, ``deprels`` and ``upos`` (CoNLL-U's)
    heads : sequence of int arrays, the predicted heads of every sentence
    relations : sequence of lists of str, the predicted relation of every word
    punctuation_tags : sequence of str, default=("PUNCT",)
        The UPOS tags of the words left out of the scores without punctuation.
    """
    right_head, right_both, punctuation = [], [], []
    for sentence, tree, labels in zip(gold, heads, relations, strict=True):
        head_ok = np.asarray(tree) == sentence.heads
        right_head.append(head_ok)
        right_both.append(head_ok & (np.asarray(labels) == np.asarray(sentence.deprels)))
        punctuation.append(np.isin(sentence.upos, punctuation_tags))
    head_ok, both_ok, punct = map(np.concatenate, (right_head, right_both, punctuation))
    kept = ~punct
    return AttachmentScores(
        uas=float(head_ok.mean()),
        las=float(both_ok.mean()),
        uas_without_punctuation=float(head_ok[kept].mean()),
        las_without_punctuation=float(both_ok[kept].mean()),
        n_words=int(head_ok.size),
        n_words_without_punctuation=int(kept.sum()),
    )
