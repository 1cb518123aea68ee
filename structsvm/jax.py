"""The structured hinge and perceptron losses as differentiable JAX functions.

The loss of score arrays is a :func:`jax.custom_vjp` function: the forward pass calls the
structure's compiled decoder on the host (:func:`jax.pure_callback`, so it also runs under
:func:`jax.jit`) and the backward pass returns the subgradient ``parts(ŷ) − parts(y)`` of
:mod:`structsvm.hinge`, weighted by the incoming cotangent. An optional extra:
``pip install "structsvm-learn[jax]"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

try:
    import jax
    import jax.numpy as jnp
except ImportError as error:  # pragma: no cover - exercised without JAX only
    raise ImportError("structsvm.jax needs JAX: pip install 'structsvm-learn[jax]'") from error

import numpy as np

from structsvm.hinge import Structure
from structsvm.hinge import decode as decode_arrays
from structsvm.hinge import perceptron_loss as perceptron_loss_arrays
from structsvm.hinge import structured_hinge as structured_hinge_arrays
from structsvm.hinge._structure import batch_size

__all__ = ["decode", "perceptron_loss", "structured_hinge"]


def _host_margin_loss(
    structure: Structure, augmented: bool, scores: tuple, truth: Any, mask: Any
) -> tuple[jax.Array, tuple[jax.Array, ...]]:
    """Return the losses and per-example subgradients, computed by the decoder on the host."""
    dtype = scores[0].dtype
    batch = batch_size(structure, scores)
    shapes = (
        jax.ShapeDtypeStruct((batch,), dtype),
        tuple(
            jax.ShapeDtypeStruct((batch, *s.shape[s.ndim - n :]), s.dtype)
            for s, n in zip(scores, structure.score_ndims, strict=True)
        ),
    )

    def on_host(scores, truth, mask):
        loss = structured_hinge_arrays if augmented else perceptron_loss_arrays
        masked = None if mask is None else np.asarray(mask)
        result = loss(structure, [np.asarray(s) for s in scores], np.asarray(truth), masked)
        return (
            result.losses.astype(dtype),
            tuple(g.astype(s.dtype) for g, s in zip(result.gradients, scores, strict=True)),
        )

    return jax.pure_callback(on_host, shapes, scores, truth, mask)


@partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _margin_loss(structure: Structure, augmented: bool, scores: tuple, truth: Any, mask: Any):
    return _host_margin_loss(structure, augmented, scores, truth, mask)[0]


def _margin_loss_forward(structure, augmented, scores, truth, mask):
    losses, gradients = _host_margin_loss(structure, augmented, scores, truth, mask)
    return losses, (gradients, scores)


def _margin_loss_backward(structure, augmented, residuals, cotangent):
    gradients, scores = residuals
    score_cotangents = []
    for gradient, score in zip(gradients, scores, strict=True):
        weighted = gradient * cotangent.reshape(-1, *[1] * (gradient.ndim - 1))
        shared = score.ndim < gradient.ndim
        score_cotangents.append(weighted.sum(axis=0) if shared else weighted)
    return tuple(score_cotangents), None, None


_margin_loss.defvjp(_margin_loss_forward, _margin_loss_backward)


def structured_hinge(
    structure: Structure, scores: Sequence[jax.Array], truth: Any, mask: Any = None
) -> jax.Array:
    """Return the structured hinge ``max_ŷ [Δ(y, ŷ) + s(ŷ)] − s(y)`` of every example.

    The arguments are those of :func:`structsvm.hinge.structured_hinge`, the scores as JAX
    arrays; the result, of shape (batch,), is differentiable in every score array.
    """
    return _margin_loss(structure, True, tuple(scores), jnp.asarray(truth), mask)


def perceptron_loss(
    structure: Structure, scores: Sequence[jax.Array], truth: Any, mask: Any = None
) -> jax.Array:
    """Return the structured perceptron loss ``max_ŷ s(ŷ) − s(y)`` of every example."""
    return _margin_loss(structure, False, tuple(scores), jnp.asarray(truth), mask)


def decode(structure: Structure, scores: Sequence[jax.Array], mask: Any = None) -> np.ndarray:
    """Return the best labelling of every example (a NumPy int64 array; padding holds 0)."""
    masked = None if mask is None else np.asarray(mask)
    return decode_arrays(structure, [np.asarray(s) for s in scores], masked)
