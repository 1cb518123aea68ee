"""structsvm.torch: the structured hinge as a differentiable PyTorch function."""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (optional extra: structsvm-learn[torch])"
)

from structsvm.hinge import structured_hinge as hinge_arrays  # noqa: E402
from structsvm.torch import (  # noqa: E402
    PerceptronLoss,
    StructuredHingeLoss,
    decode,
    perceptron_loss,
    structured_hinge,
)
from tasks.structures import ChainStructure, MulticlassStructure  # noqa: E402


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_loss_and_gradient_are_the_cores_in_the_scores_dtype(chain_batch, dtype):
    unary = torch.tensor(chain_batch.unary, dtype=dtype, requires_grad=True)
    transitions = torch.tensor(chain_batch.transitions, dtype=dtype, requires_grad=True)
    mask = torch.from_numpy(chain_batch.mask)
    losses = structured_hinge(
        ChainStructure(3), (unary, transitions), torch.from_numpy(chain_batch.truth), mask
    )
    weights = torch.tensor([1.0, 2.0, -0.5], dtype=dtype)
    (losses * weights).sum().backward()
    expected = hinge_arrays(
        ChainStructure(3), (unary.detach().numpy(), transitions.detach().numpy()),
        chain_batch.truth, chain_batch.mask,
    )
    assert losses.dtype == unary.grad.dtype == transitions.grad.dtype == dtype
    np.testing.assert_allclose(losses.detach().numpy(), expected.losses, rtol=1e-6)
    weighted = np.array([1.0, 2.0, -0.5])
    np.testing.assert_allclose(
        unary.grad.numpy(), expected.gradients[0] * weighted[:, None, None], atol=1e-6
    )
    np.testing.assert_allclose(
        transitions.grad.numpy(),
        np.einsum("b,bij->ij", weighted, expected.gradients[1]),
        atol=1e-6,
    )


def test_the_gradient_passes_finite_differences_at_a_generic_point():
    generator = torch.Generator().manual_seed(0)
    unary = torch.randn(2, 5, 3, dtype=torch.float64, generator=generator, requires_grad=True)
    transitions = torch.randn(2, 3, 3, dtype=torch.float64, generator=generator,
                              requires_grad=True)
    truth = torch.tensor([[0, 2, 1, 1, 0], [2, 2, 0, 1, 1]])
    assert torch.autograd.gradcheck(
        lambda u, t: structured_hinge(ChainStructure(3), (u, t), truth),
        (unary, transitions), eps=1e-6, atol=1e-5,
    )


def test_a_linear_network_over_phi_has_the_structural_svms_slacks_and_their_subgradient(
    linear_chain_problem,
):
    # The bridge: a bias-free linear layer gives the unary scores, a parameter the transitions.
    task, X, Y, padded, truth, mask = linear_chain_problem
    w = np.random.default_rng(13).normal(size=task.size_joint_feature)
    layer = torch.nn.Linear(4, 3, bias=False, dtype=torch.float64)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(w[:12].reshape(3, 4)))
    transitions = torch.nn.Parameter(torch.from_numpy(w[12:].reshape(3, 3).copy()))
    loss = StructuredHingeLoss(ChainStructure(3), reduction="sum")
    total = loss((layer(torch.from_numpy(padded)), transitions), truth, mask)
    total.backward()
    slacks, subgradient = 0.0, np.zeros_like(w)
    for x, y in zip(X, Y):
        y_hat = task.loss_augmented_argmax(x, y, w)
        difference = task.joint_feature(x, y_hat) - task.joint_feature(x, y)
        slacks += task.loss(y, y_hat) + w @ difference
        subgradient += difference
    assert total.item() == pytest.approx(slacks)
    gradient = np.concatenate([layer.weight.grad.numpy().ravel(), transitions.grad.numpy().ravel()])
    np.testing.assert_allclose(gradient, subgradient, atol=1e-12)


def test_the_perceptron_loss_is_zero_at_the_decoded_labelling_and_the_modules_reduce():
    generator = torch.Generator().manual_seed(1)
    scores = torch.randn(6, 4, generator=generator, requires_grad=True)
    structure = MulticlassStructure(4)
    predicted = decode(structure, (scores,))
    assert torch.equal(predicted, scores.argmax(dim=1))
    assert torch.all(perceptron_loss(structure, (scores,), predicted) == 0)
    truth = torch.tensor([0, 1, 2, 3, 0, 1])
    each = StructuredHingeLoss(structure, reduction="none")((scores,), truth)
    assert each.shape == (6,)
    assert StructuredHingeLoss(structure)((scores,), truth).item() == pytest.approx(
        each.mean().item()
    )
    assert PerceptronLoss(structure, "sum")((scores,), truth).item() == pytest.approx(
        perceptron_loss(structure, (scores,), truth).sum().item()
    )
    with pytest.raises(ValueError, match="reduction"):
        StructuredHingeLoss(structure, reduction="max")
