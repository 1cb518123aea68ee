"""The structured hinge and perceptron losses as differentiable PyTorch functions.

Part scores computed by a network (for example a chain's unary scores from a convolutional
network and a learned transition matrix) go in as tensors; the loss comes out as a tensor
whose backward pass is the subgradient ``parts(ŷ) − parts(y)`` at the loss-augmented argmax,
found by the structure's compiled decoder (:mod:`structsvm.hinge`). Float32 and float64
tensors; the decoding runs on the CPU (tensors elsewhere are copied there and back). An
optional extra: ``pip install "structsvm-learn[torch]"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    import torch
except ImportError as error:  # pragma: no cover - exercised without PyTorch only
    raise ImportError(
        "structsvm.torch needs PyTorch: pip install 'structsvm-learn[torch]'"
    ) from error

import numpy as np

from structsvm.hinge import Structure
from structsvm.hinge import decode as decode_arrays
from structsvm.hinge import perceptron_loss as perceptron_loss_arrays
from structsvm.hinge import structured_hinge as structured_hinge_arrays

__all__ = [
    "PerceptronLoss",
    "StructuredHingeLoss",
    "decode",
    "perceptron_loss",
    "structured_hinge",
]

REDUCTIONS = ("mean", "sum", "none")


def _as_array(values: Any) -> np.ndarray | None:
    """Return a tensor (or array-like) as a NumPy array on the CPU; None stays None."""
    if values is None:
        return None
    if isinstance(values, torch.Tensor):
        return values.detach().cpu().numpy()
    return np.asarray(values)


class _MarginLoss(torch.autograd.Function):
    """Per-example margin losses of the score tensors; backward: weighted part differences."""

    @staticmethod
    def forward(ctx: Any, structure: Structure, truth: Any, mask: Any, augmented: bool,
                *scores: torch.Tensor) -> torch.Tensor:
        loss = structured_hinge_arrays if augmented else perceptron_loss_arrays
        result = loss(structure, [_as_array(s) for s in scores], _as_array(truth),
                      _as_array(mask))
        ctx.gradients = [
            torch.from_numpy(g).to(dtype=s.dtype, device=s.device)
            for g, s in zip(result.gradients, scores, strict=True)
        ]
        ctx.shared = [s.dim() == n for s, n in zip(scores, structure.score_ndims, strict=True)]
        return torch.from_numpy(result.losses).to(dtype=scores[0].dtype, device=scores[0].device)

    @staticmethod
    def backward(ctx: Any, grad_losses: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        grads = []
        for gradient, shared in zip(ctx.gradients, ctx.shared, strict=True):
            weights = grad_losses.to(gradient.dtype).reshape(-1, *[1] * (gradient.dim() - 1))
            weighted = gradient * weights
            grads.append(weighted.sum(dim=0) if shared else weighted)
        return (None, None, None, None, *grads)


def structured_hinge(
    structure: Structure, scores: Sequence[torch.Tensor], truth: Any, mask: Any = None
) -> torch.Tensor:
    """Return the structured hinge ``max_ŷ [Δ(y, ŷ) + s(ŷ)] − s(y)`` of every example.

    The arguments are those of :func:`structsvm.hinge.structured_hinge`, the scores as
    tensors (each batched or shared by the batch); the result, of shape (batch,) and the first
    score tensor's dtype, is differentiable in every score tensor.
    """
    return _MarginLoss.apply(structure, truth, mask, True, *scores)


def perceptron_loss(
    structure: Structure, scores: Sequence[torch.Tensor], truth: Any, mask: Any = None
) -> torch.Tensor:
    """Return the structured perceptron loss ``max_ŷ s(ŷ) − s(y)`` of every example.

    The arguments are those of :func:`structured_hinge`.
    """
    return _MarginLoss.apply(structure, truth, mask, False, *scores)


def decode(structure: Structure, scores: Sequence[torch.Tensor], mask: Any = None) -> torch.Tensor:
    """Return the best labelling of every example as an int64 tensor (padding holds 0)."""
    labels = decode_arrays(structure, [_as_array(s) for s in scores], _as_array(mask))
    return torch.from_numpy(labels)


class _ReducedLoss(torch.nn.Module):
    """A margin loss of a structure, reduced over the batch."""

    def __init__(self, structure: Structure, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in REDUCTIONS:
            raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
        self.structure = structure
        self.reduction = reduction

    def _reduce(self, losses: torch.Tensor) -> torch.Tensor:
        if self.reduction == "mean":
            return losses.mean()
        return losses.sum() if self.reduction == "sum" else losses


class StructuredHingeLoss(_ReducedLoss):
    """The structured hinge of a structure as a module: ``loss(scores, truth, mask=None)``.

    Parameters
    ----------
    structure : Structure
        For example :class:`tasks.structures.ChainStructure`.
    reduction : {"mean", "sum", "none"}, default="mean"
        How the per-example losses are reduced over the batch.
    """

    def forward(
        self, scores: Sequence[torch.Tensor], truth: Any, mask: Any = None
    ) -> torch.Tensor:
        """Return the reduced structured hinge of the batch."""
        return self._reduce(structured_hinge(self.structure, scores, truth, mask))


class PerceptronLoss(_ReducedLoss):
    """The structured perceptron loss (Δ = 0) as a module; see :class:`StructuredHingeLoss`."""

    def forward(
        self, scores: Sequence[torch.Tensor], truth: Any, mask: Any = None
    ) -> torch.Tensor:
        """Return the reduced perceptron loss of the batch."""
        return self._reduce(perceptron_loss(self.structure, scores, truth, mask))
