"""A batch of chains of different lengths, shared by the core's and the adapters' tests."""

from typing import NamedTuple

import numpy as np
import pytest


class ChainBatch(NamedTuple):
    unary: np.ndarray
    transitions: np.ndarray
    truth: np.ndarray
    mask: np.ndarray
    lengths: np.ndarray


@pytest.fixture
def chain_batch():
    """Three chains of lengths 4, 2 and 3 over 3 labels, padded to 4, shared transitions."""
    rng = np.random.default_rng(3)
    lengths = np.array([4, 2, 3])
    mask = np.arange(4) < lengths[:, None]
    truth = rng.integers(0, 3, size=(3, 4))
    return ChainBatch(rng.normal(size=(3, 4, 3)), rng.normal(size=(3, 3)), truth, mask, lengths)


@pytest.fixture
def linear_chain_problem():
    """Four sequences of 4 features over 3 labels, padded, with a chain task's random w."""
    from tasks import ChainTask

    rng = np.random.default_rng(11)
    X = [rng.normal(size=(length, 4)) for length in (3, 5, 2, 4)]
    Y = [rng.integers(0, 3, size=len(x)) for x in X]
    padded = np.zeros((4, 5, 4))
    truth = np.zeros((4, 5), dtype=np.int64)
    mask = np.zeros((4, 5), dtype=bool)
    for k, (x, y) in enumerate(zip(X, Y)):
        padded[k, : len(x)], truth[k, : len(y)], mask[k, : len(x)] = x, y, True
    return ChainTask(3, 4), X, Y, padded, truth, mask
