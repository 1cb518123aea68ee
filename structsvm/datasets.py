"""Loaders for the data sets that ship with structsvm."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from structsvm._task import Task

if TYPE_CHECKING:
    import numpy.typing as npt

OCR_SPLITS = ("small", "large")


@dataclass
class SequenceDataset:
    """Labelled sequences: ``X[k]`` is a (T_k, d) numeric array, ``Y[k]`` a (T_k,) int array."""

    X: list[np.ndarray]
    Y: list[np.ndarray]
    folds: np.ndarray
    words: np.ndarray
    label_names: list[str]

    def select(self, mask: np.ndarray) -> SequenceDataset:
        """Return the sequences where the boolean ``mask`` is true."""
        indices = np.flatnonzero(mask)
        return SequenceDataset(
            X=[self.X[i] for i in indices],
            Y=[self.Y[i] for i in indices],
            folds=self.folds[indices],
            words=self.words[indices],
            label_names=self.label_names,
        )

    @property
    def n_letters(self) -> int:
        """Total number of positions over all sequences."""
        return int(sum(len(y) for y in self.Y))


def load_ocr_letters(dtype: npt.DTypeLike = np.float64) -> SequenceDataset:
    """Load the OCR letters data set (Taskar, Guestrin & Koller, NIPS 2003).

    6,877 handwritten words; each letter is a 16×8 binary image flattened to 128 features
    (values 0/1 of ``dtype``: float64 by default, uint8 as stored, an eighth of the memory),
    labelled 0..25 for 'a'..'z'. ``folds`` gives the 10 cross-validation folds of the original
    data. See ``structsvm/data/README.md`` for sources.

    Raises
    ------
    ValueError
        If ``dtype`` is not a numeric type.
    """
    pixel_type = np.dtype(dtype)
    if pixel_type.kind not in "uif":
        raise ValueError(f"dtype must be a numeric type (as np.float64, np.uint8), got {dtype!r}")
    with resources.files("structsvm").joinpath("data/ocr_letters.npz").open("rb") as handle:
        data = np.load(handle)
        pixels = data["X"].astype(pixel_type, copy=False)
        letters = data["y"].astype(np.int64)
        lengths = data["lengths"].astype(np.int64)
        folds = data["folds"].astype(np.int64)
        words = data["words"]
    word_starts = np.cumsum(lengths)[:-1]
    return SequenceDataset(
        X=np.split(pixels, word_starts),
        Y=np.split(letters, word_starts),
        folds=folds,
        words=words,
        label_names=[chr(ord("a") + k) for k in range(26)],
    )


def ocr_letters_split(
    split: str = "small", dtype: npt.DTypeLike = np.float64
) -> tuple[SequenceDataset, SequenceDataset]:
    """Return the (train, test) halves of a standard OCR letters split.

    Parameters
    ----------
    split : {"small", "large"}
        "small": train on fold 1 (704 words), test on the other nine folds.
        "large": train on folds 1–9 (6,251 words), test on fold 0 (626 words).
    dtype : numeric type, default=np.float64
        The pixels' type (:func:`load_ocr_letters`).
    """
    if split not in OCR_SPLITS:
        raise ValueError(f"split must be one of {OCR_SPLITS}, got {split!r}")
    data = load_ocr_letters(dtype)
    train_mask = data.folds == 1 if split == "small" else data.folds != 0
    return data.select(train_mask), data.select(~train_mask)


@dataclass
class ImageDataset:
    """Labelled images: ``images[k]`` is a (rows, columns, 3) uint8 RGB array, ``labels[k]``
    a (rows, columns) int64 array of per-pixel labels."""

    images: list[np.ndarray]
    labels: list[np.ndarray]

    @property
    def n_pixels(self) -> int:
        """Total number of pixels over all images."""
        return int(sum(label.size for label in self.labels))


def load_snakes() -> tuple[ImageDataset, ImageDataset]:
    """Load the snakes data set (Nowozin, Rother, Bagon, Sharp, Yao & Kohli, ICCV 2011).

    Synthetic images of 4 to 11 pixels a side, each holding a "snake" of ten cells on a blue
    background; a cell's colour tells which way the snake goes on. The labels number the
    cells 1..10 from head to tail, 0 for the background. 200 training and 100 test images,
    returned as (train, test). See ``structsvm/data/README.md`` for the source.

    References
    ----------
    S. Nowozin, C. Rother, S. Bagon, T. Sharp, B. Yao and P. Kohli, "Decision tree fields",
    ICCV 2011.
    """
    with resources.files("structsvm").joinpath("data/snakes.npz").open("rb") as handle:
        data = dict(np.load(handle))
    halves = []
    for part in ("train", "test"):
        shapes = data[f"shapes_{part}"].astype(np.int64)
        starts = np.cumsum(shapes.prod(axis=1))[:-1]
        pixels = np.split(data[f"X_{part}"], starts)
        labels = np.split(data[f"Y_{part}"].astype(np.int64), starts)
        halves.append(
            ImageDataset(
                images=[p.reshape(r, c, 3) for p, (r, c) in zip(pixels, shapes, strict=True)],
                labels=[y.reshape(r, c) for y, (r, c) in zip(labels, shapes, strict=True)],
            )
        )
    return halves[0], halves[1]


SCENE_LABELS = ("beach", "sunset", "fall foliage", "field", "mountain", "urban")
"""The names of the scene data set's labels, in the order of its columns."""


@dataclass
class MultiLabelDataset:
    """Inputs with a set of labels each: ``X`` (n, d) float64, ``Y`` (n, k) int64 0/1."""

    X: np.ndarray
    Y: np.ndarray
    label_names: tuple[str, ...]


def load_scene() -> tuple[MultiLabelDataset, MultiLabelDataset]:
    """Load the scene data set (Boutell, Luo, Shen & Brown, Pattern Recognition 2004).

    Images described by 294 colour and texture features, each with a 0/1 indicator of the six
    labels :data:`SCENE_LABELS` (several may be on). 1,211 training and 1,196 test images,
    returned as (train, test). See ``structsvm/data/README.md`` for the source.

    References
    ----------
    M. R. Boutell, J. Luo, X. Shen and C. M. Brown, "Learning multi-label scene
    classification", Pattern Recognition 37(9), 2004.
    """
    with resources.files("structsvm").joinpath("data/scene.npz").open("rb") as handle:
        data = dict(np.load(handle))
    return tuple(
        MultiLabelDataset(
            X=data[f"X_{part}"].astype(np.float64),
            Y=data[f"Y_{part}"].astype(np.int64),
            label_names=SCENE_LABELS,
        )
        for part in ("train", "test")
    )


def make_separable(
    task: Task,
    sample_input: Callable[[np.random.Generator], Any],
    n_examples: int,
    min_margin: float,
    random_state: int | None = None,
) -> tuple[list[Any], list[Any], np.ndarray]:
    """Sample a data set that a planted unit vector separates with a known margin.

    Inputs come from ``sample_input(rng)``; each is labelled by its best output under a random
    unit vector ``u`` and kept only if that output beats every other by at least ``min_margin``
    (rejection sampling), so ``u`` separates the returned data with margin >= ``min_margin``.
    The task must enumerate its outputs (``outputs(x)``).

    Returns
    -------
    X : list of inputs
    Y : list of outputs
    u : ndarray of shape (task.size_joint_feature,)
        The planted separator, of unit length.
    """
    rng = np.random.default_rng(random_state)
    u = rng.normal(size=task.size_joint_feature)
    u /= np.linalg.norm(u)
    X, Y = [], []
    while len(X) < n_examples:
        x = sample_input(rng)
        candidates = list(task.outputs(x))
        scores = np.array([task.score(x, y, u) for y in candidates])
        best, second = np.sort(scores)[::-1][:2]
        if best - second >= min_margin:
            X.append(x)
            Y.append(candidates[int(np.argmax(scores))])
    return X, Y, u
