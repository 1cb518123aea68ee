"""structsvm.jax: the structured hinge as a differentiable JAX function."""

import numpy as np
import pytest

jax = pytest.importorskip(
    "jax", reason="JAX is not installed (optional extra: structsvm-learn[jax])"
)

import jax.numpy as jnp  # noqa: E402

from structsvm.hinge import decode as decode_arrays  # noqa: E402
from structsvm.hinge import structured_hinge as hinge_arrays  # noqa: E402
from structsvm.jax import decode, perceptron_loss, structured_hinge  # noqa: E402
from tasks.structures import ChainStructure  # noqa: E402


@pytest.mark.parametrize("compiled", [False, True])
def test_loss_and_gradient_are_the_cores_also_under_jit(chain_batch, compiled):
    structure = ChainStructure(3)
    weights = jnp.array([1.0, 2.0, -0.5])

    def weighted_total(unary, transitions):
        losses = structured_hinge(structure, (unary, transitions), chain_batch.truth,
                                  chain_batch.mask)
        return (losses * weights).sum()

    value_and_grad = jax.value_and_grad(weighted_total, argnums=(0, 1))
    if compiled:
        value_and_grad = jax.jit(value_and_grad)
    unary = jnp.asarray(chain_batch.unary, dtype=jnp.float32)
    transitions = jnp.asarray(chain_batch.transitions, dtype=jnp.float32)
    value, (unary_grad, transitions_grad) = value_and_grad(unary, transitions)
    expected = hinge_arrays(
        structure, (np.asarray(unary), np.asarray(transitions)), chain_batch.truth,
        chain_batch.mask,
    )
    weighted = np.array([1.0, 2.0, -0.5])
    assert float(value) == pytest.approx(expected.losses @ weighted, rel=1e-5)
    np.testing.assert_allclose(unary_grad, expected.gradients[0] * weighted[:, None, None])
    np.testing.assert_allclose(
        transitions_grad, np.einsum("b,bij->ij", weighted, expected.gradients[1])
    )


def test_the_perceptron_loss_vanishes_at_the_decoded_labelling(chain_batch):
    structure = ChainStructure(3)
    scores = (jnp.asarray(chain_batch.unary), jnp.asarray(chain_batch.transitions))
    predicted = decode(structure, scores, chain_batch.mask)
    np.testing.assert_array_equal(
        predicted, decode_arrays(structure, (chain_batch.unary, chain_batch.transitions),
                                 chain_batch.mask)
    )
    losses = perceptron_loss(structure, scores, predicted, chain_batch.mask)
    np.testing.assert_allclose(losses, 0.0, atol=1e-6)
