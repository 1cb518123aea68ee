"""experiments.neural_ocr: its batches of padded words and its training loops, on a few words."""

import argparse

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (optional extra: structsvm-learn[torch])"
)

from experiments.neural_ocr import (  # noqa: E402
    letter_accuracy,
    padded_batch,
    predict,
    stacked_words,
    train,
)
from structsvm.datasets import ocr_letters_split  # noqa: E402


@pytest.fixture(scope="module")
def few_words():
    train_data, _ = ocr_letters_split("small")
    return stacked_words(train_data.select(np.arange(len(train_data.X)) < 12))


def test_a_batch_pads_the_words_and_keeps_their_letters_in_mask_order(few_words):
    chosen = np.array([3, 0, 7])
    batch = padded_batch(few_words, chosen)
    lengths = few_words.offsets[chosen + 1] - few_words.offsets[chosen]
    assert batch.mask.sum(dim=1).tolist() == lengths.tolist()
    for row, k in enumerate(chosen):
        letters = few_words.letters[few_words.offsets[k] : few_words.offsets[k + 1]]
        assert torch.equal(batch.truth[row, : lengths[row]], letters)
    assert len(batch.images) == lengths.sum()


@pytest.mark.parametrize("chain", [True, False])
def test_an_epoch_trains_and_every_letter_is_predicted(few_words, chain):
    args = argparse.Namespace(epochs=1, batch_size=5, lr=1e-3, seed=0)
    training = train(few_words, chain, args)
    assert training.seconds > 0 and (training.hinge_seconds > 0) == chain
    predicted = predict(training.scorer, few_words, chain)
    assert predicted.truth.shape == predicted.mask.shape
    assert 0.0 <= letter_accuracy(predicted, few_words) <= 1.0
