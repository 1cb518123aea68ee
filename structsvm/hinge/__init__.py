"""Structured hinge losses of part scores given from outside, for training networks.

A :class:`Structure` (ready-made ones in :mod:`tasks.structures`: chains, multiclass, graphs)
says which parts a labelling selects, decodes with a compiled decoder and gives the loss Δ.
:func:`structured_hinge` returns ``max_ŷ [Δ(y, ŷ) + s(ŷ)] − s(y)`` of a batch with its
subgradient ``parts(ŷ) − parts(y)``; :func:`perceptron_loss` is the same with Δ = 0 and
:func:`decode` predicts. All are NumPy in and out; :mod:`structsvm.torch` and
:mod:`structsvm.jax` make them differentiable functions of tensors.
"""

from structsvm.hinge._hinge import (
    HingeResult,
    check_scores,
    decode,
    perceptron_loss,
    structured_hinge,
)
from structsvm.hinge._structure import Structure

__all__ = [
    "HingeResult",
    "Structure",
    "check_scores",
    "decode",
    "perceptron_loss",
    "structured_hinge",
]
