"""The structured hinge and perceptron losses of scores given from outside, with subgradients.

For a structure with part scores s and the true labelling y, the structured hinge (margin
rescaling; Tsochantaridis et al., JMLR 2005) is

    ℓ(s) = max_ŷ [Δ(y, ŷ) + s(ŷ)] − s(y),

a convex, piecewise linear function of the scores whose subgradient is the difference of the
part counts ``parts(ŷ) − parts(y)`` at the loss-augmented argmax ŷ. With Δ = 0 it is the
structured perceptron's loss. Both are framework-neutral: NumPy arrays in and out, the argmax
taken by the structure's compiled decoder; :mod:`structsvm.torch` and :mod:`structsvm.jax`
wrap them as differentiable functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from structsvm.hinge._structure import Structure, batch_size


class HingeResult(NamedTuple):
    """The losses of a batch, the labellings that attain them and the subgradients.

    Attributes
    ----------
    losses : ndarray of shape (batch,)
        ``Δ(y, ŷ) + s(ŷ) − s(y)`` of every example (Δ = 0 for the perceptron loss).
    labels : ndarray of int64
        The maximising labellings ŷ, batch axis first.
    gradients : tuple of ndarray
        ``parts(ŷ) − parts(y)`` of every example, one array of shape ``(batch,) + shape``
        per score array (also for a score array shared by the batch).
    """

    losses: np.ndarray
    labels: np.ndarray
    gradients: tuple[np.ndarray, ...]


def structured_hinge(
    structure: Structure,
    scores: Sequence[ArrayLike],
    truth: ArrayLike,
    mask: ArrayLike | None = None,
) -> HingeResult:
    """Return the structured hinge of every example of a batch and its subgradient.

    Parameters
    ----------
    structure : Structure
        The output structure (for example :class:`tasks.structures.ChainStructure`).
    scores : sequence of array-like
        The part scores, in the order of ``structure.score_names``, each with a leading
        batch axis or shared by the batch.
    truth : array-like of int
        The true labellings, batch axis first (padding positions are ignored).
    mask : array-like of bool of shape (batch, T), optional
        For structures of variable length: True on each example's positions, a prefix.
    """
    return _margin_loss(structure, scores, truth, mask, augmented=True)


def perceptron_loss(
    structure: Structure,
    scores: Sequence[ArrayLike],
    truth: ArrayLike,
    mask: ArrayLike | None = None,
) -> HingeResult:
    """Return the structured perceptron loss ``max_ŷ s(ŷ) − s(y)`` and its subgradient.

    The parameters are those of :func:`structured_hinge`.
    """
    return _margin_loss(structure, scores, truth, mask, augmented=False)


def decode(
    structure: Structure, scores: Sequence[ArrayLike], mask: ArrayLike | None = None
) -> np.ndarray:
    """Return the best labelling ``argmax_y s(y)`` of every example of a batch.

    The parameters are those of :func:`structured_hinge`; padding positions of the result
    hold 0.
    """
    scores = check_scores(structure, scores)
    return structure.decode(scores, structure.lengths(scores, mask), None)


def check_scores(structure: Structure, scores: Sequence[ArrayLike]) -> tuple[np.ndarray, ...]:
    """Return the score arrays as float64 arrays, checked against the structure's axes."""
    if len(scores) != len(structure.score_names):
        raise ValueError(
            f"{type(structure).__name__} takes {len(structure.score_names)} score arrays "
            f"{structure.score_names}, got {len(scores)}"
        )
    arrays = tuple(np.asarray(array, dtype=np.float64) for array in scores)
    for array, name, ndim in zip(
        arrays, structure.score_names, structure.score_ndims, strict=True
    ):
        if array.ndim not in (ndim, ndim + 1):
            raise ValueError(
                f"{name} has {array.ndim} axes, expected {ndim} (shared) or {ndim + 1} (batched)"
            )
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} holds values that are not finite")
    return arrays


def _margin_loss(
    structure: Structure,
    scores: Sequence[ArrayLike],
    truth: ArrayLike,
    mask: ArrayLike | None,
    augmented: bool,
) -> HingeResult:
    """Return the hinge (``augmented``) or perceptron loss, labellings and subgradients."""
    scores = check_scores(structure, scores)
    lengths = structure.lengths(scores, mask)
    truth = np.asarray(truth, dtype=np.int64)
    if truth.shape[:1] != (batch_size(structure, scores),):
        raise ValueError(f"truth has shape {truth.shape}, expected the batch axis first")
    labels = structure.decode(scores, lengths, truth if augmented else None)
    shapes = tuple(
        array.shape[array.ndim - ndim :]
        for array, ndim in zip(scores, structure.score_ndims, strict=True)
    )
    predicted = structure.parts(labels, lengths, shapes)
    true = structure.parts(truth, lengths, shapes)
    gradients = tuple(p - q for p, q in zip(predicted, true, strict=True))
    losses = structure.loss(truth, labels, lengths) if augmented else np.zeros(len(lengths))
    for array, gradient in zip(scores, gradients, strict=True):
        losses = losses + (gradient * array).reshape(len(gradient), -1).sum(axis=1)
    return HingeResult(losses, labels, gradients)
