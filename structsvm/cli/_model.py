"""The model file of the command-line tool: a fitted structural SVM and how to read its data."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from structsvm.io import ModelFileError, load, save
from structsvm.learners import StructuredSVM


class CommandLineError(Exception):
    """A failure the command line reports as one line on stderr, with a non-zero exit status."""


@dataclass
class SavedModel:
    """What ``structsvm learn`` writes and ``structsvm classify`` reads (a model file).

    Attributes
    ----------
    kind : {"multiclass", "hmm", "rank", "parse"}
        The task: which files the model reads and which predictions it writes.
    svm : StructuredSVM
        The fitted structural SVM, with its task.
    labels : ndarray or None
        multiclass: the class label of every class index (as read, floats); hmm: the tag of
        every label; rank: None.
    n_features : int
        The width of the training data: the highest feature id the model weighs.
    options : dict
        The options of ``structsvm learn`` that made the model, for the record.
    labeller : object or None
        parse: the :class:`tasks.ArcLabeller` that gives predicted arcs their relations;
        None for the other tasks.
    """

    kind: str
    svm: StructuredSVM
    labels: np.ndarray | None
    n_features: int
    options: dict[str, Any] = field(default_factory=dict)
    labeller: Any = None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model to ``path`` as a model file (see :func:`structsvm.save`)."""
        save(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> SavedModel:
        """Read a model written by :meth:`save`; loading runs no code (see :func:`structsvm.load`).

        Raises
        ------
        CommandLineError
            If the file does not exist or does not hold a model of ``structsvm learn``.
        """
        try:
            model = load(path)
        except FileNotFoundError:
            raise CommandLineError(f"{os.fspath(path)}: no such model file") from None
        except (IsADirectoryError, PermissionError) as error:
            raise CommandLineError(f"{os.fspath(path)}: cannot read it ({error})") from None
        except ModelFileError as error:
            raise CommandLineError(
                f"{os.fspath(path)}: not a model file of 'structsvm learn' ({error.reason})"
            ) from None
        if not isinstance(model, cls):
            raise CommandLineError(
                f"{os.fspath(path)}: not a model file of 'structsvm learn' "
                f"(it holds a {type(model).__name__})"
            )
        return model
