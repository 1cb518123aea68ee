"""Outputs of graph labelling tasks beyond plain labellings: relaxed and loss-weighted ones."""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from structsvm._task import Task
from structsvm.inference import INFERENCE_METHODS, InferenceResult


def _arrays_equal(record: Any, other: object) -> bool:
    """Tell whether ``other`` is a record of the same type with equal arrays, field by field."""
    return isinstance(other, type(record)) and all(
        np.array_equal(getattr(record, field.name), getattr(other, field.name))
        for field in fields(record)
    )


@dataclass(frozen=True, eq=False)
class RelaxedLabelling:
    """A point of the local polytope of a graph: node and edge marginals, not a labelling.

    What a graph task's loss-augmented oracle returns when inference cannot certify a
    labelling: a relaxation's fractional optimum, or the one-hot marginals of an approximate
    labelling. Its joint feature and loss are those of the marginals (Finley & Joachims, ICML
    2008); of one-hot marginals, those of the labelling.

    Attributes
    ----------
    node_marginals : ndarray of shape (n_nodes, n_states)
        ``μ_i(s)``; every row sums to 1.
    edge_marginals : ndarray of shape (n_edges, n_states, n_states)
        ``μ_uv(s, t)`` of every edge (u, v); its row and column sums are the node marginals.

    References
    ----------
    T. Finley and T. Joachims, "Training structural SVMs when exact inference is
    intractable", ICML 2008.
    """

    node_marginals: np.ndarray
    edge_marginals: np.ndarray

    @classmethod
    def from_labels(cls, labels: np.ndarray, edges: np.ndarray, n_states: int) -> RelaxedLabelling:
        """Return the one-hot marginals of a labelling."""
        labels = np.asarray(labels, dtype=np.int64)
        edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        nodes = np.zeros((len(labels), n_states))
        nodes[np.arange(len(labels)), labels] = 1.0
        pairs = np.zeros((len(edges), n_states, n_states))
        pairs[np.arange(len(edges)), labels[edges[:, 0]], labels[edges[:, 1]]] = 1.0
        return cls(nodes, pairs)

    @property
    def labels(self) -> np.ndarray:
        """The labelling that rounds the node marginals (the most likely state of each node)."""
        return np.argmax(self.node_marginals, axis=1)

    def key(self) -> bytes:
        """Return a digest of the marginals, which tells different relaxed outputs apart."""
        digest = hashlib.blake2b(digest_size=16)
        for array in (self.node_marginals, self.edge_marginals):
            array = np.ascontiguousarray(array, dtype=np.float64)
            digest.update(str(array.shape).encode())
            digest.update(array.tobytes())
        return digest.digest()

    __eq__ = _arrays_equal
    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class WeightedLabels:
    """A true labelling together with the loss weight of every node.

    Graph tasks' ``check_data`` pairs the true labelling of an input with node weights in this
    form, so that the loss weighs node i by ``node_weights[i]``; ``np.asarray`` gives the labels.

    Attributes
    ----------
    labels : ndarray of shape (n_nodes,), int64
    node_weights : ndarray of shape (n_nodes,), float64, finite and non-negative
    """

    labels: np.ndarray
    node_weights: np.ndarray

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.labels if dtype is None else self.labels.astype(dtype)

    def __len__(self) -> int:
        return len(self.labels)

    __eq__ = _arrays_equal
    __hash__ = None  # type: ignore[assignment]


def weighted_hamming(labels: np.ndarray, costs: np.ndarray, y: Any) -> float:
    """Return ``Σ_i costs[i] · (1 − μ_i(labels_i))`` of a labelling or a relaxed output y.

    For a labelling ``μ_i`` is its one-hot indicator: the Hamming loss weighted by ``costs``.
    """
    if isinstance(y, RelaxedLabelling):
        agreement = y.node_marginals[np.arange(len(labels)), labels]
        return float(np.sum(costs * (1.0 - agreement)))
    guess = np.asarray(y, dtype=np.int64)
    if guess.shape != labels.shape:
        raise ValueError(f"y has shape {guess.shape} but y_true has shape {labels.shape}")
    return float(np.sum(costs * (guess != labels)))


class RelaxedOutputsTask(Task):
    """A task whose oracles run :func:`structsvm.inference.infer` and may answer relaxed.

    Relaxed outputs (:meth:`_oracle_output`) compare by their marginals, are keyed by a digest
    of them and are never certified maximisers; labellings are handled as by the base class.
    """

    def _set_inference(self, method: str, options: Any) -> None:
        """Check and set ``inference_method`` and ``inference_options``."""
        if method not in INFERENCE_METHODS:
            raise ValueError(f"inference_method must be one of {INFERENCE_METHODS}, got {method!r}")
        if options is not None and not isinstance(options, dict):
            raise TypeError(
                f"inference_options must be a dict of keyword arguments of infer, "
                f"got {type(options).__name__}"
            )
        self.inference_method = method
        self.inference_options = dict(options or {})

    def with_inference_method(self, method: str, **options: Any) -> RelaxedOutputsTask:
        """Return a copy of the task that infers with ``method`` (and ``options``, if given).

        ``StructuredSVM(switch_to=...)`` calls it to continue training with a stronger oracle.
        """
        other = copy.copy(self)
        other._set_inference(method, options or None)
        return other

    def _oracle_output(self, result: InferenceResult, edges: np.ndarray, n_states: int) -> Any:
        """Return the labelling if inference certifies it, else a :class:`RelaxedLabelling`:
        the relaxation's marginals where inference gives them, else one-hot ones."""
        if result.certified:
            return result.labels
        if result.node_marginals is not None and result.edge_marginals is not None:
            return RelaxedLabelling(result.node_marginals, result.edge_marginals)
        return RelaxedLabelling.from_labels(result.labels, edges, n_states)

    def outputs_equal(self, y: Any, other: Any) -> bool:
        """Tell whether two outputs are the same labelling, or the same relaxed output."""
        if isinstance(y, RelaxedLabelling) or isinstance(other, RelaxedLabelling):
            return isinstance(y, RelaxedLabelling) and y == other
        return super().outputs_equal(y, other)

    def output_key(self, y: Any) -> bytes:
        """Return a digest that tells outputs apart (of the marginals, for relaxed outputs)."""
        if isinstance(y, RelaxedLabelling):
            return y.key()
        return super().output_key(y)

    def is_certified(self, y: Any) -> bool:
        """Tell whether an oracle output is a certified maximiser: a labelling, not relaxed."""
        return not isinstance(y, RelaxedLabelling)
