"""Handwritten words with a convolutional network under the chain's structured hinge.

On the OCR letters data (Taskar, Guestrin & Koller, NIPS 2003), large split (folds 1–9 train,
fold 0 test), a small convolutional network maps each 16×8 letter image to 26 unary scores;
with a learned 26×26 transition matrix it is trained end to end with the chain's structured
hinge (:mod:`structsvm.torch`, Viterbi as the loss-augmented decoder; Chen, Schwing, Yuille &
Urtasun, ICML 2015). Beside it, in the same run: the same network trained per letter with
cross-entropy (no chain) and the linear structural SVM on the pixels. Prints letter accuracy,
training time and the share of a training step spent in the hinge's decoding, then a few test
words with their predictions. Needs PyTorch (``pip install "structsvm-learn[torch]"``).

Run ``python -m experiments.neural_ocr --help`` for the options.
"""

from __future__ import annotations

import argparse
import time
import warnings
from typing import NamedTuple

import numpy as np
import torch
from sklearn.exceptions import ConvergenceWarning

from experiments._measure import format_table
from structsvm import StructuredSVM
from structsvm.datasets import SequenceDataset, ocr_letters_split
from structsvm.torch import StructuredHingeLoss, decode
from tasks import ChainTask
from tasks.structures import ChainStructure

N_LETTERS = 26
MODELS = ("chain-hinge", "cross-entropy", "linear-ssvm")


class Words(NamedTuple):
    """Words with their letter images stacked: word k is rows ``offsets[k]:offsets[k + 1]``."""

    images: torch.Tensor
    letters: torch.Tensor
    offsets: np.ndarray
    names: np.ndarray


class Batch(NamedTuple):
    """Padded words: the images of their letters, the true letters and the prefix mask."""

    images: torch.Tensor
    truth: torch.Tensor
    mask: torch.Tensor


def stacked_words(data: SequenceDataset) -> Words:
    """Return the words' letter images as one (letters, 1, 16, 8) float32 tensor."""
    pixels = np.concatenate(data.X).reshape(-1, 1, 16, 8)
    lengths = np.array([len(y) for y in data.Y])
    return Words(
        torch.from_numpy(pixels.astype(np.float32)),
        torch.from_numpy(np.concatenate(data.Y)),
        np.concatenate(([0], np.cumsum(lengths))),
        data.words,
    )


def padded_batch(words: Words, chosen: np.ndarray) -> Batch:
    """Return the chosen words padded to the longest, their letters in mask order."""
    lengths = words.offsets[chosen + 1] - words.offsets[chosen]
    mask = np.arange(lengths.max()) < lengths[:, None]
    rows = np.concatenate([np.arange(words.offsets[k], words.offsets[k + 1]) for k in chosen])
    truth = torch.zeros(mask.shape, dtype=torch.int64)
    mask = torch.from_numpy(mask)
    truth[mask] = words.letters[rows]
    return Batch(words.images[rows], truth, mask)


def letter_network() -> torch.nn.Sequential:
    """Return the network from a 16×8 letter image to its 26 unary scores."""
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.Conv2d(16, 32, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Flatten(),
        torch.nn.Dropout(0.25),
        torch.nn.Linear(32 * 8 * 4, 128),
        torch.nn.ReLU(),
        torch.nn.Linear(128, N_LETTERS),
    )


class ChainScorer(torch.nn.Module):
    """The letter network's unary scores of padded words and a learned transition matrix."""

    def __init__(self) -> None:
        super().__init__()
        self.letters = letter_network()
        self.transitions = torch.nn.Parameter(torch.zeros(N_LETTERS, N_LETTERS))

    def forward(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """Return the unary scores (words, T, 26), zero at padding, and the transitions."""
        letter_scores = self.letters(batch.images)
        unary = letter_scores.new_zeros((*batch.mask.shape, N_LETTERS))
        unary[batch.mask] = letter_scores
        return unary, self.transitions


class Training(NamedTuple):
    """A trained scorer, its training time (wall clock and CPU of all threads) and the wall
    seconds spent in the hinge's forward pass (the decoding)."""

    scorer: ChainScorer
    seconds: float
    cpu_seconds: float
    hinge_seconds: float


def train(train_words: Words, chain: bool, args: argparse.Namespace) -> Training:
    """Train a scorer with the chain hinge (``chain``) or per letter with cross-entropy.

    Adam on batches of ``args.batch_size`` words for ``args.epochs`` epochs; the hinge of a
    batch is summed over its words and divided by its number of letters, as the cross-entropy
    is averaged over them.
    """
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    scorer = ChainScorer()
    optimiser = torch.optim.Adam(scorer.parameters(), lr=args.lr)
    hinge = StructuredHingeLoss(ChainStructure(N_LETTERS), reduction="sum")
    n_words = len(train_words.offsets) - 1
    hinge_seconds = 0.0
    start, cpu_start = time.perf_counter(), time.process_time()
    for _ in range(args.epochs):
        scorer.train()
        order = rng.permutation(n_words)
        for first in range(0, n_words, args.batch_size):
            batch = padded_batch(train_words, order[first : first + args.batch_size])
            unary, transitions = scorer(batch)
            if chain:
                before = time.perf_counter()
                loss = hinge((unary, transitions), batch.truth, batch.mask) / batch.mask.sum()
                hinge_seconds += time.perf_counter() - before
            else:
                loss = torch.nn.functional.cross_entropy(
                    unary[batch.mask], batch.truth[batch.mask]
                )
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return Training(
        scorer, time.perf_counter() - start, time.process_time() - cpu_start, hinge_seconds
    )


def predict(scorer: ChainScorer, words: Words, chain: bool) -> Batch:
    """Return the predicted letters of every word (Viterbi if ``chain``, else per letter).

    The result is a padded batch of all words, its ``truth`` holding the predictions.
    """
    scorer.eval()
    batch = padded_batch(words, np.arange(len(words.offsets) - 1))
    with torch.no_grad():
        unary, transitions = scorer(batch)
    if chain:
        letters = decode(ChainStructure(N_LETTERS), (unary, transitions), batch.mask)
    else:
        letters = unary.argmax(dim=2)
    return batch._replace(truth=letters)


def letter_accuracy(predicted: Batch, words: Words) -> float:
    """Return the share of letters of all words predicted right."""
    return float((predicted.truth[predicted.mask] == words.letters).double().mean())


def linear_ssvm(
    train: SequenceDataset, test: SequenceDataset, args: argparse.Namespace
) -> tuple[float, float, float, list[np.ndarray]]:
    """Train the linear chain's structural SVM on the pixels.

    Returns its test letter accuracy, wall and CPU seconds, and its test predictions.
    """
    model = StructuredSVM(ChainTask(N_LETTERS, 128), C=args.C, tol=args.tol)
    start, cpu_start = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(train.X, train.Y)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    return model.score(test.X, test.Y), seconds, cpu_seconds, model.predict(test.X)


def spelled(letters: np.ndarray) -> str:
    """Return the letters 0..25 as a word."""
    return "".join(chr(ord("a") + int(k)) for k in letters)


def run(args: argparse.Namespace) -> list[dict[str, object]]:
    """Train and evaluate the requested models on the large split; print the table."""
    torch.set_num_threads(args.threads)
    train_data, test_data = ocr_letters_split("large")
    train_words, test_words = stacked_words(train_data), stacked_words(test_data)
    print(
        f"OCR letters, large split: {len(train_data.X)} training words "
        f"({train_data.n_letters} letters), {len(test_data.X)} test words "
        f"({test_data.n_letters} letters); {args.epochs} epochs of batches of "
        f"{args.batch_size} words, {args.threads} threads"
    )
    rows, shown = [], {}
    for name in args.models:
        if name == "linear-ssvm":
            accuracy, seconds, cpu_seconds, predictions = linear_ssvm(train_data, test_data, args)
            rows.append({"model": f"linear SSVM (C={args.C:g})", "letter accuracy": accuracy,
                         "train time (s)": seconds, "CPU time (s)": cpu_seconds,
                         "hinge share of a step": "-"})
            print(format_table(rows[-1:]), flush=True)
            shown[name] = [spelled(y) for y in predictions]
            continue
        chain = name == "chain-hinge"
        training = train(train_words, chain, args)
        predicted = predict(training.scorer, test_words, chain)
        rows.append({
            "model": "CNN + chain hinge" if chain else "CNN + cross-entropy per letter",
            "letter accuracy": letter_accuracy(predicted, test_words),
            "train time (s)": training.seconds,
            "CPU time (s)": training.cpu_seconds,
            "hinge share of a step": training.hinge_seconds / training.seconds if chain else "-",
        })
        lengths = predicted.mask.sum(dim=1)
        shown[name] = [spelled(p[:n]) for p, n in zip(predicted.truth, lengths, strict=True)]
        print(format_table(rows[-1:]), flush=True)
    print()
    print(format_table(rows))
    print()
    examples = [{"word": spelled(y)} for y in test_data.Y[: args.shown]]
    for name, words in shown.items():
        for row, word in zip(examples, words, strict=False):
            row[name] = word
    print(format_table(examples))
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.neural_ocr", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS),
                        help="models to train (default: all)")
    parser.add_argument("--epochs", type=int, default=10, help="network epochs (default: 10)")
    parser.add_argument("--batch-size", type=int, default=64, help="words per batch")
    parser.add_argument("--lr", type=float, default=2e-3, help="Adam's learning rate")
    parser.add_argument("--C", type=float, default=0.1, help="the linear SSVM's C")
    parser.add_argument("--tol", type=float, default=1e-2,
                        help="the linear SSVM's relative duality gap (default: 0.01)")
    parser.add_argument("--threads", type=int, default=2, help="PyTorch's threads")
    parser.add_argument("--shown", type=int, default=8, help="test words printed")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    """Entry point of ``python -m experiments.neural_ocr``."""
    return run(parse_args(argv))


if __name__ == "__main__":
    main()
