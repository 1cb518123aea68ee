"""Dependency trees as a structure scored from outside: one score per head → dependent arc."""

from __future__ import annotations

import numpy as np

from structsvm.hinge import Structure
from tasks._dependency_oracle import CHU_LIU_EDMONDS, EISNER, decode_tree

DECODERS = {"eisner": EISNER, "chu-liu-edmonds": CHU_LIU_EDMONDS}


class DependencyStructure(Structure):
    """First-order dependency trees over sentences, scored by their arcs.

    ``s(y) = Σ_d arcs[y_d, d]`` over the words ``d = 1 … n`` of a sentence, ``y_d`` the head
    of word d (0 the root, which takes exactly one word); Δ is the number of words with a wrong
    head. Decoding is :class:`tasks.DependencyTask`'s: Eisner's projective decoder or
    Chu–Liu/Edmonds', loss-augmented by adding the loss to the arc scores.

    Parameters
    ----------
    decoder : {"eisner", "chu-liu-edmonds"}, default="eisner"

    Notes
    -----
    Score arrays: ``arcs`` (batch, N + 1, N + 1), ``arcs[k, h, d]`` the score of the arc
    h → d in sentence k (row and column 0: the root). Labellings: heads (batch, N) int64,
    ``heads[k, d - 1]`` for word d; a ``mask`` (batch, N) marks each sentence's words (a
    prefix), and the arcs of words past a sentence's end play no part.
    """

    score_names = ("arcs",)
    score_ndims = (2,)

    def __init__(self, decoder: str = "eisner") -> None:
        if decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {sorted(DECODERS)}, got {decoder!r}")
        self.decoder = decoder

    def lengths(self, scores: tuple[np.ndarray, ...], mask: np.ndarray | None) -> np.ndarray:
        """Return each sentence's number of words: from the prefix ``mask`` (batch, N)."""
        arcs = scores[0]
        if arcs.ndim != 3 or arcs.shape[1] != arcs.shape[2] or arcs.shape[1] < 2:
            raise ValueError(
                f"arcs must have shape (batch, N + 1, N + 1) with N >= 1, got {arcs.shape}"
            )
        words = arcs.shape[1] - 1
        if mask is None:
            return np.full(arcs.shape[0], words, dtype=np.int64)
        return super().lengths((arcs[:, 1:],), mask)  # one row per word

    def decode(
        self, scores: tuple[np.ndarray, ...], lengths: np.ndarray, truth: np.ndarray | None
    ) -> np.ndarray:
        """Return the best tree of every sentence (loss-augmented when ``truth`` is given)."""
        (arcs,) = scores
        heads = np.zeros((len(lengths), arcs.shape[1] - 1), dtype=np.int64)
        for k, n in enumerate(lengths):
            gold = np.zeros(n, dtype=np.int64) if truth is None else truth[k, :n]
            heads[k, :n] = decode_tree(
                np.array(arcs[k, : n + 1, : n + 1], dtype=np.float64), DECODERS[self.decoder],
                np.ascontiguousarray(gold, dtype=np.int64), np.ones(n), truth is not None,
            )
        return heads

    def parts(
        self, labels: np.ndarray, lengths: np.ndarray, shapes: tuple[tuple[int, ...], ...]
    ) -> tuple[np.ndarray, ...]:
        """Return every tree's arcs as 0/1 matrices of the arc scores' shape."""
        size = shapes[0][0]
        labels = np.asarray(labels, dtype=np.int64)
        valid = np.arange(size - 1) < lengths[:, None]
        if labels.shape != valid.shape:
            raise ValueError(f"heads have shape {labels.shape}, expected {valid.shape}")
        sentences, words = np.nonzero(valid)
        heads = labels[sentences, words]
        if heads.size and (heads.min() < 0 or np.any(heads > lengths[sentences])):
            raise ValueError("a head must be 0 (the root) or a word of its sentence")
        arcs = np.zeros((len(lengths), size, size))
        arcs[sentences, heads, words + 1] = 1.0
        return (arcs,)

    def loss(self, truth: np.ndarray, labels: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return the number of words of every sentence with a wrong head."""
        valid = np.arange(truth.shape[1]) < lengths[:, None]
        return ((truth != labels) & valid).sum(axis=1).astype(np.float64)
