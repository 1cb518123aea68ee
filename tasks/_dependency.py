"""First-order (arc-factored) dependency parsing, after McDonald, Crammer & Pereira (ACL 2005).

The input is a sentence (:class:`ParseInput`, made by :class:`ArcFeatures`), the output its
tree as the head of every word (0 for the root). A tree scores the sum of its arcs' scores,
``w · f(h, d)`` over hashed features of the head, the dependent, the words around and between
them, and the arc's direction and distance; the loss counts the words with a wrong head.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import CompiledOracle
from structsvm._task import Task, array_key, overrides_any
from structsvm._utils.validation import check_examples, check_weights
from tasks._dependency_features import (
    ArcFeatures,
    ParseInput,
    arc_scores,
    packed,
    tree_columns,
)
from tasks._dependency_oracle import (
    CHU_LIU_EDMONDS,
    EISNER,
    decode_tree,
    dependency_decode,
    dependency_features,
    dependency_loss,
    dependency_scores,
    wrong_heads,
)

DECODERS = {"eisner": EISNER, "chu-liu-edmonds": CHU_LIU_EDMONDS}


class ReferenceTree(NamedTuple):
    """A true output as :meth:`DependencyTask.check_data` keeps it: heads and loss weights.

    Attributes
    ----------
    heads : ndarray of int64, shape (n,)
    weights : ndarray of float64, shape (n,)
        What a wrong head of each word costs (the punctuation weight for punctuation, else 1).
    """

    heads: np.ndarray
    weights: np.ndarray


def heads_of(y: Any) -> np.ndarray:
    """Return the heads of an output (a head array or a :class:`ReferenceTree`) as int64."""
    heads = y.heads if isinstance(y, ReferenceTree) else y
    return np.asarray(heads, dtype=np.int64)


class DependencyTask(Task):
    """Arc-factored dependency parsing with projective or non-projective decoding.

    x is a :class:`ParseInput` (``task.inputs(sentences)`` makes them); y is the int64 array
    of the n words' heads, word d's head at ``y[d - 1]``, 0 for the root; exactly one word
    hangs from the root. φ(x, y) sums the hashed features of the tree's arcs
    (:mod:`tasks._dependency_features`), so ``w · φ`` is the sum of the arc scores. The loss is
    the number of words with a wrong head, punctuation words counting ``punctuation_weight``
    each; it is a sum over arcs, so loss-augmented decoding adds it to the arc scores and stays
    exact. ``decoder="eisner"`` searches projective trees (Eisner's O(n³) dynamic program),
    ``"chu-liu-edmonds"`` all trees (Chu–Liu/Edmonds, O(n³) here); both compiled with Numba,
    with the ties :mod:`tasks._dependency_oracle` states.

    Parameters
    ----------
    features : ArcFeatures, optional
        The arc features and their width (default ``ArcFeatures()``, 2**20 columns).
    decoder : {"eisner", "chu-liu-edmonds"}, default="eisner"
    punctuation_weight : float, default=1.0
        The loss of a wrong head on a punctuation word (0: punctuation does not count).

    References
    ----------
    R. McDonald, K. Crammer and F. Pereira, "Online large-margin training of dependency
    parsers", ACL 2005. J. Eisner, "Three new probabilistic models for dependency parsing",
    COLING 1996. Y. J. Chu and T. H. Liu, "On the shortest arborescence of a directed graph",
    Science Sinica 14, 1965. J. Edmonds, "Optimum branchings", J. Res. NBS 71B, 1967.
    """

    def __init__(
        self,
        features: ArcFeatures | None = None,
        decoder: str = "eisner",
        punctuation_weight: float = 1.0,
    ) -> None:
        if decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {sorted(DECODERS)}, got {decoder!r}")
        weight = float(punctuation_weight)
        if not np.isfinite(weight) or weight < 0:
            raise ValueError(f"punctuation_weight must be finite and >= 0, got {weight!r}")
        self.features = ArcFeatures() if features is None else features
        self.decoder = decoder
        self.punctuation_weight = weight
        self.size_joint_feature = self.features.n_features

    def __repr__(self) -> str:
        return (
            f"DependencyTask({self.features!r}, decoder={self.decoder!r}, "
            f"punctuation_weight={self.punctuation_weight!r})"
        )

    # ----------------------------------------------------------------- inputs and outputs
    def inputs(self, sentences: Sequence[Any]) -> list[ParseInput]:
        """Return the inputs of sentences with ``words`` and ``upos`` (CoNLL-U's)."""
        return self.features.transform(sentences)

    def word_weights(self, x: ParseInput) -> np.ndarray:
        """Return the loss weight of every word of x (punctuation's or 1)."""
        return np.where(x.punctuation, self.punctuation_weight, 1.0)

    def reference(self, x: ParseInput, heads: Any) -> ReferenceTree:
        """Return the true output of x with heads ``heads`` (and its words' loss weights)."""
        return ReferenceTree(heads_of(heads), self.word_weights(x))

    # ----------------------------------------------------------------- the contract
    def joint_feature(self, x: ParseInput, y: Any) -> np.ndarray:
        """Return φ(x, y), the summed arc features of the tree y."""
        indices, values = self.sparse_joint_feature(x, y)
        phi = np.zeros(self.size_joint_feature)
        phi[indices] = values
        return phi

    def sparse_joint_feature(self, x: ParseInput, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return the non-zero entries of φ(x, y) as sorted columns and counts."""
        return tree_columns(x.words, x.tags, x.prefixes, heads_of(y), self.size_joint_feature)

    def batch_joint_feature(self, X: Sequence[ParseInput], Y: Sequence[Any]) -> sp.csr_matrix:
        """Return the rows φ(x_i, y_i) as a CSR matrix (a dense one would be n × 2**20)."""
        rows = [self.sparse_joint_feature(x, y) for x, y in zip(X, Y, strict=True)]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(indices) for indices, _ in rows], out=indptr[1:])
        return sp.csr_matrix(
            (
                np.concatenate([values for _, values in rows]),
                np.concatenate([indices for indices, _ in rows]),
                indptr,
            ),
            shape=(len(rows), self.size_joint_feature),
        )

    def loss(self, y_true: Any, y: Any) -> float:
        """Return the weighted number of words whose head in y differs from y_true's.

        The weights are y_true's if it is a :class:`ReferenceTree` (as ``check_data`` makes
        the true outputs), else 1 for every word.
        """
        gold = heads_of(y_true)
        return float(wrong_heads(gold, heads_of(y), self._weights(y_true, len(gold))))

    def max_loss(self, y_true: Any) -> float:
        """Return the loss of getting every head wrong."""
        return float(np.sum(self._weights(y_true, len(heads_of(y_true)))))

    @staticmethod
    def _weights(y_true: Any, n: int) -> np.ndarray:
        return y_true.weights if isinstance(y_true, ReferenceTree) else np.ones(n)

    def argmax(self, x: ParseInput, w: np.ndarray) -> np.ndarray:
        """Return the heads of the best tree of x."""
        return self._decode(x, None, self._checked(w))

    def loss_augmented_argmax(self, x: ParseInput, y_true: Any, w: np.ndarray) -> np.ndarray:
        """Return the heads of the tree maximising ``Δ(y_true, y) + w · φ(x, y)``."""
        return self._decode(x, y_true, self._checked(w))

    def batch_argmax(self, X: Sequence[ParseInput], w: np.ndarray) -> list[np.ndarray]:
        """Return ``argmax(x, w)`` for every input (``w`` checked once)."""
        w = self._checked(w)
        return [self._decode(x, None, w) for x in X]

    def batch_loss_augmented_argmax(
        self, X: Sequence[ParseInput], Y_true: Sequence[Any], w: np.ndarray
    ) -> list[np.ndarray]:
        """Return ``loss_augmented_argmax(x, y_true, w)`` for every example (``w`` checked once)."""
        w = self._checked(w)
        return [self._decode(x, y, w) for x, y in zip(X, Y_true, strict=True)]

    def _checked(self, w: np.ndarray) -> np.ndarray:
        return check_weights(w, self.size_joint_feature)

    def _decode(self, x: ParseInput, y_true: Any, w: np.ndarray) -> np.ndarray:
        """Score the arcs of x and decode them (loss-augmented against ``y_true`` if given)."""
        scores = arc_scores(x.words, x.tags, x.prefixes, w, self.size_joint_feature)
        if y_true is None:
            gold, weights = np.zeros(0, dtype=np.int64), np.zeros(0)
        else:
            gold = heads_of(y_true)
            weights = self._weights(y_true, len(gold))
        return decode_tree(scores, DECODERS[self.decoder], gold, weights, y_true is not None)

    def outputs(self, x: ParseInput) -> Iterator[np.ndarray]:
        """Enumerate every single-root tree of x (projective ones for Eisner); tiny x only."""
        n = x.n_words
        for candidate in itertools.product(range(n + 1), repeat=n):
            heads = np.array(candidate, dtype=np.int64)
            if is_tree(heads) and (self.decoder != "eisner" or is_projective(heads)):
                yield heads

    def outputs_equal(self, y: Any, other: Any) -> bool:
        """Tell whether two outputs have the same heads."""
        return bool(np.array_equal(heads_of(y), heads_of(other)))

    def output_key(self, y: Any) -> Hashable:
        """Return a key of an output's heads."""
        return array_key(heads_of(y))

    def check_data(self, X: Sequence[Any], Y: Sequence[Any] | None = None):
        """Return X as a list of :class:`ParseInput` and Y as :class:`ReferenceTree` s.

        Raises
        ------
        ValueError
            If an input is not a :class:`ParseInput` or an output is not a single-root tree
            of its sentence's words; the message names the example.
        """
        check_examples(X, "X")
        if len(X) == 0:
            raise ValueError("X is empty: expected at least one sentence")
        inputs = []
        for k, x in enumerate(X):
            if not isinstance(x, ParseInput):
                raise ValueError(
                    f"X[{k}] must be a ParseInput (see DependencyTask.inputs), got "
                    f"{type(x).__name__}"
                )
            inputs.append(x)
        if Y is None:
            return inputs, None
        check_examples(Y, "Y")
        if len(Y) != len(X):
            raise ValueError(
                f"X and Y have different lengths: X has {len(X)} examples, Y has {len(Y)}"
            )
        outputs = []
        for k, (x, y) in enumerate(zip(inputs, Y, strict=True)):
            heads = np.asarray(y.heads if isinstance(y, ReferenceTree) else y)
            if (
                heads.shape != (x.n_words,)
                or not np.issubdtype(heads.dtype, np.integer)
                or not is_tree(heads.astype(np.int64))
            ):
                raise ValueError(
                    f"Y[{k}] must be the heads of a single-root tree over the {x.n_words} "
                    f"words of X[{k}] (integers in [0, n], one 0, no cycles)"
                )
            outputs.append(self.reference(x, heads))
        return inputs, outputs

    # ----------------------------------------------------------------- compiled oracle
    def compiled_oracle(self, X, Y) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        Example i's part scores are its (n + 1, n + 1) arc scores; an output's labels are its
        heads. None for a subclass that overrides an oracle, the loss or the joint feature.
        """
        functions = (dependency_scores, dependency_decode, dependency_features, dependency_loss)
        return self._compiled_oracle(DependencyTask, functions, X, Y)

    def _compiled_oracle(
        self, owner: type, functions: tuple, X: Sequence[ParseInput], Y: Sequence[Any]
    ) -> CompiledOracle | None:
        """Return the compiled oracle of ``functions`` (scores, decode, features, loss) over
        the data laid out in :mod:`tasks._dependency_oracle`; None if the class of self
        overrides, below ``owner``, a method whose answers they reproduce."""
        if overrides_any(self, owner, _COMPILED_METHODS):
            return None
        inputs = packed(X)
        word_offsets = inputs.token_offsets - np.arange(len(X) + 1)
        references = [
            y if isinstance(y, ReferenceTree) else self.reference(x, y)
            for x, y in zip(X, Y, strict=True)
        ]
        data = (
            *inputs,
            np.concatenate([y.heads for y in references]),
            np.concatenate([y.weights for y in references]),
            word_offsets,
            self.size_joint_feature,
            DECODERS[self.decoder],
        )
        return CompiledOracle(data, *functions, n_examples=len(X), to_labels=heads_of)


def is_tree(heads: np.ndarray) -> bool:
    """Tell whether heads (word d's at ``heads[d - 1]``) form a single-root tree."""
    n = len(heads)
    if n == 0 or np.any(heads < 0) or np.any(heads > n) or np.count_nonzero(heads == 0) != 1:
        return False
    for d in range(1, n + 1):
        node, steps = d, 0
        while node != 0:
            node = heads[node - 1]
            steps += 1
            if steps > n:
                return False
    return True


def is_projective(heads: np.ndarray) -> bool:
    """Tell whether a tree's arcs do not cross: the words under every arc descend from its head."""
    for d in range(1, len(heads) + 1):
        h = heads[d - 1]
        for between in range(min(h, d) + 1, max(h, d)):
            node = between
            while node != 0 and node != h:
                node = heads[node - 1]
            if node != h:
                return False
    return True


# The methods whose answers the compiled oracle reproduces.
_COMPILED_METHODS = (
    "argmax",
    "batch_argmax",
    "batch_loss_augmented_argmax",
    "batch_joint_feature",
    "loss_augmented_argmax",
    "loss",
    "joint_feature",
    "sparse_joint_feature",
    "_decode",
)
