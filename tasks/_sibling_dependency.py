"""Second-order projective dependency parsing with adjacent siblings (McDonald & Pereira 2006)."""

from __future__ import annotations

from typing import Any

import numpy as np

from structsvm._compiled_oracle import CompiledOracle
from tasks._dependency import DependencyTask, heads_of
from tasks._dependency_features import ArcFeatures, ParseInput, arc_scores
from tasks._dependency_oracle import dependency_loss
from tasks._sibling_dependency_oracle import (
    decode_sibling_tree,
    sibling_dependency_decode,
    sibling_dependency_features,
    sibling_dependency_scores,
    sibling_tree_columns,
)
from tasks._sibling_features import sibling_scores


class SiblingDependencyTask(DependencyTask):
    """Projective dependency parsing scored by arcs and adjacent siblings.

    As :class:`DependencyTask` with Eisner's decoder (same inputs, outputs and loss), but a
    tree scores, besides its arcs, every sibling part ``(h, s, d)``: word d hanging from h next
    to s, the dependent of h before d on the same side going outward from h (none for the
    closest), hashed from the tags and words of h, s and d (:mod:`tasks._sibling_features`)
    into the same ``features.n_features`` columns. The best projective tree is found by
    McDonald & Pereira's second-order extension of Eisner's algorithm, O(n³) like the first
    order's; the loss is still a sum over arcs, so loss-augmented decoding stays exact.

    Parameters
    ----------
    features : ArcFeatures, optional
        The arc features and the width of φ (default ``ArcFeatures()``, 2**20 columns).
    punctuation_weight : float, default=1.0
        The loss of a wrong head on a punctuation word.

    References
    ----------
    R. McDonald and F. Pereira, "Online learning of approximate dependency parsing
    algorithms", EACL 2006. J. Eisner, "Three new probabilistic models for dependency
    parsing", COLING 1996.
    """

    def __init__(
        self, features: ArcFeatures | None = None, punctuation_weight: float = 1.0
    ) -> None:
        super().__init__(features, decoder="eisner", punctuation_weight=punctuation_weight)

    def __repr__(self) -> str:
        return (
            f"SiblingDependencyTask({self.features!r}, "
            f"punctuation_weight={self.punctuation_weight!r})"
        )

    def sparse_joint_feature(self, x: ParseInput, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return the non-zero entries of φ(x, y), arcs' and sibling parts', as sorted columns
        and counts."""
        return sibling_tree_columns(
            x.words, x.tags, x.prefixes, heads_of(y), self.size_joint_feature
        )

    def _decode(self, x: ParseInput, y_true: Any, w: np.ndarray) -> np.ndarray:
        """Score the arcs and sibling parts of x and decode them (loss-augmented if y_true)."""
        arcs = arc_scores(x.words, x.tags, x.prefixes, w, self.size_joint_feature)
        siblings = sibling_scores(x.words, x.tags, w, self.size_joint_feature)
        if y_true is None:
            gold, weights = np.zeros(0, dtype=np.int64), np.zeros(0)
        else:
            gold = heads_of(y_true)
            weights = self._weights(y_true, len(gold))
        return decode_sibling_tree(arcs, siblings, gold, weights, y_true is not None)

    def compiled_oracle(self, X, Y) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        Example i's part scores are its arc scores on top of its sibling scores (see
        :func:`~tasks._sibling_dependency_oracle.sibling_dependency_scores`); an output's
        labels are its heads. None for a subclass that overrides an oracle, the loss or the
        joint feature.
        """
        functions = (
            sibling_dependency_scores,
            sibling_dependency_decode,
            sibling_dependency_features,
            dependency_loss,
        )
        return self._compiled_oracle(SiblingDependencyTask, functions, X, Y)
