"""Ranking by pairwise preferences as a structured task (the ranking SVM of Joachims, 2002)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import CompiledOracle, csr_arrays, offsets_of
from structsvm._task import ORACLE_METHODS, Task, overrides_any
from structsvm._utils.pair_counts import count_pairs, pairs_below_above, swap_counts
from structsvm._utils.validation import (
    check_examples,
    check_feature_array,
    check_positive_int,
    check_weights,
)
from tasks._multiclass import check_rows
from tasks._ranking_oracle import (
    dense_document_scores,
    ranking_decode,
    ranking_features,
    ranking_labels,
    ranking_loss,
    ranking_output,
    ranking_scores,
)


class RankingTask(Task):
    r"""Ranking the documents of a query: the ranking SVM (Joachims, 2002) as a structural SVM.

    An example is one query: x is an (m, d) array (or scipy.sparse matrix) of its documents'
    features and y their relevance grades, shape (m,), ints or floats; a higher grade is more
    relevant. A query's preference pairs are ``P(y) = {(i, j) : y_i > y_j}``; documents of
    equal grade are not compared.

    **Outputs.** An output of a query with grades y assigns every pair of ``P(y)`` a sign
    ``ȳ_ij = +1`` (in order) or ``−1`` (swapped); every one of the ``2^|P(y)|`` assignments
    is an output (they need not be transitive). Outputs are arrays in one of two forms:

    * a 1-D array r of length m (grades or ranks): the pairs ``P(r)``, all in order. The true
      output is the grades y themselves.
    * an (m, 2) array ``[y, s]``: the pairs ``P(y)``, where (i, j) is kept in order when
      ``s_i − ½ > s_j + ½`` (``s_i − s_j > 1`` up to rounding) and swapped otherwise. This is
      what the loss-augmented oracle returns, for the scores ``s = x w``.

    Outputs compare as arrays: two different arrays may still assign the same signs.

    **Joint feature and loss.**

    .. math:: \phi(x, \bar y) = \tfrac12 \sum_{(i, j) \in P} \bar y_{ij} (x_i - x_j), \qquad
              \Delta(y, \bar y) = \#\{(i, j) \in P(y) : \bar y_{ij} = -1\}

    (the number of swapped pairs; for an output with pairs other than ``P(y)``, the pairs of
    ``P(y)`` it does not keep in order).

    A structural SVM on this task is the pairwise ranking SVM of Joachims (2002): a query's
    slack is the sum of its pairs' hinges ``max(0, 1 − w·(x_i − x_j))``.

    **Oracles.** ``loss_augmented_argmax`` returns ``[y, x w]``; φ and Δ count every
    document's swapped pairs in O(m log m) (:func:`~structsvm._utils.pair_counts.swap_counts`).
    ``argmax`` returns the ranks by score (m − 1 for the best document; equal scores ranked by
    position, the earlier one higher), which maximise ``w·φ`` over the outputs of every pair
    set.

    Parameters
    ----------
    n_features : int
        Width d of a document's feature vector; the weights w have this length.

    References
    ----------
    T. Joachims. Optimizing search engines using clickthrough data. KDD 2002.
    T. Joachims. Training linear SVMs in linear time. KDD 2006.
    """

    def __init__(self, n_features: int) -> None:
        self.n_features = check_positive_int(n_features, "n_features")
        self.size_joint_feature = self.n_features

    def __repr__(self) -> str:
        return f"RankingTask(n_features={self.n_features})"

    def joint_feature(self, x: Any, y: np.ndarray) -> np.ndarray:
        """Return φ(x, ȳ) = ½ Σ_{(i, j) ∈ P} ȳ_ij (x_i − x_j), shape (n_features,)."""
        grades, upper, lower = _keys(y, x.shape[0], "documents in x")
        below, above = pairs_below_above(grades)
        as_upper, as_lower = swap_counts(grades, upper, lower)
        # Document i gains ȳ_ij over its worse-graded partners j and loses ȳ_ji over its
        # better-graded ones: (below − 2·as_upper) − (above − 2·as_lower), halved.
        weights = 0.5 * (below - above) - as_upper + as_lower
        return np.asarray(x.T @ weights, dtype=np.float64).ravel()

    def loss(self, y_true: np.ndarray, y: np.ndarray) -> float:
        """Return the number of pairs of ``P(y_true)`` that ȳ does not keep in order."""
        grades = np.asarray(y_true, dtype=np.float64)
        _, upper, lower = _keys(y, len(grades), "grades in y_true")
        as_upper, _ = swap_counts(grades, upper, lower)
        return float(as_upper.sum())

    def max_loss(self, y_true: np.ndarray) -> float:
        """Return ``|P(y_true)|``, the number of preference pairs (all swapped)."""
        return float(count_pairs(np.asarray(y_true)))

    def argmax(self, x: Any, w: np.ndarray) -> np.ndarray:
        """Return the ranks of the documents ordered by score ``x w`` (m−1 for the best).

        Equal scores are ranked by position: the earlier document gets the higher rank.
        """
        scores = self._scores(x, w)
        ranks = np.empty(len(scores), dtype=np.int64)
        ranks[np.argsort(-scores, kind="stable")] = np.arange(len(scores) - 1, -1, -1)
        return ranks

    def loss_augmented_argmax(self, x: Any, y_true: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Return ``[y_true, x w]``: swap exactly the pairs with ``s_i − ½ <= s_j + ½``.

        Swapping (i, j) changes ``Δ + w·φ`` by ``1 − w·(x_i − x_j)``; a pair whose swap gains
        exactly zero is swapped.
        """
        scores = self._scores(x, w)
        return np.column_stack([np.asarray(y_true, dtype=np.float64), scores])

    def compiled_oracle(self, X, Y) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        Its labels are described in :mod:`tasks._ranking_oracle` (the outputs are float
        arrays). None for a subclass that overrides an oracle, the loss or the joint feature.
        """
        if overrides_any(self, RankingTask, (*ORACLE_METHODS, "_scores")):
            return None
        documents = offsets_of([x.shape[0] for x in X])
        grade_ranks, n_grades, balances = [], [], []
        for y in Y:
            levels, grade_rank = np.unique(y, return_inverse=True)
            below, above = pairs_below_above(y)
            grade_ranks.append(grade_rank.ravel())
            n_grades.append(len(levels))
            balances.append(below - above)
        dense = not any(sp.issparse(x) for x in X)
        stacked = np.concatenate(X) if dense else sp.vstack([sp.csr_matrix(x) for x in X])
        indptr, columns, values = csr_arrays(stacked)
        data = (
            indptr,
            columns,
            values,
            documents,
            np.concatenate(Y).astype(np.float64),
            np.concatenate(grade_ranks).astype(np.int64),
            np.array(n_grades, dtype=np.int64),
            np.concatenate(balances).astype(np.int64),
            self.n_features,
            values.reshape(-1, self.n_features) if dense else np.zeros((0, 0)),
        )
        functions = (ranking_scores, ranking_decode, ranking_features, ranking_loss)
        return CompiledOracle(
            data, *functions, n_examples=len(X), to_output=ranking_output, to_labels=ranking_labels,
            batch_scores=dense_document_scores if dense else None,
        )

    def _scores(self, x: Any, w: np.ndarray) -> np.ndarray:
        """Return the documents' scores ``x w`` for finite weights w of length n_features."""
        w = check_weights(w, self.size_joint_feature)
        return np.asarray(x @ w, dtype=np.float64).ravel()

    def check_data(self, X: Sequence[Any], Y: Sequence[Any] | None = None):
        """Return the queries as float arrays (CSR for sparse ones) and the grades as floats.

        Raises
        ------
        ValueError
            If X is empty, a query is not 2-D with ``n_features`` columns and at least one
            document, holds NaN or infinite values, or its grades are not a finite 1-D array
            of one grade per document.
        """
        check_examples(X, "X", of="queries")
        if len(X) == 0:
            raise ValueError("X is empty: expected at least one query")
        queries = [self._check_query(x, k) for k, x in enumerate(X)]
        if Y is None:
            return queries, None
        check_examples(Y, "Y", of="grade arrays")
        if len(Y) != len(queries):
            raise ValueError(
                f"X and Y have different lengths: X has {len(queries)} queries, Y has {len(Y)}"
            )
        return queries, [_check_grades(y, queries[k].shape[0], k) for k, y in enumerate(Y)]

    def _check_query(self, x: Any, k: int) -> Any:
        query = check_rows(x, f"X[{k}]", self.n_features)
        if query.shape[0] == 0:
            raise ValueError(f"X[{k}] is an empty query: expected at least one document")
        return query


def _keys(
    y: np.ndarray, n_documents: int, documents: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (grades, upper, lower) of an output in either form (see :class:`RankingTask`).

    A pair (i, j) of the grades' pairs is in order when ``upper[i] > lower[j]``. The output
    must rank ``n_documents`` documents (``documents`` names them in the error).
    """
    array = np.asarray(y, dtype=np.float64)
    if not (array.ndim == 1 or (array.ndim == 2 and array.shape[1] == 2)):
        raise ValueError(
            f"y must be a ranking output, a 1-D array of grades or an (m, 2) array "
            f"[grades, scores]; got shape {array.shape}"
        )
    if len(array) != n_documents:
        raise ValueError(f"y ranks {len(array)} documents but there are {n_documents} {documents}")
    if array.ndim == 1:
        return array, array, array
    grades, scores = array[:, 0], array[:, 1]
    return grades, scores - 0.5, scores + 0.5


def _check_grades(y: Any, n_documents: int, k: int) -> np.ndarray:
    grades = check_feature_array(y, f"Y[{k}]", ndim=1, n_features=None)
    if len(grades) != n_documents:
        raise ValueError(f"Y[{k}] has {len(grades)} grades for {n_documents} documents in X[{k}]")
    return grades
