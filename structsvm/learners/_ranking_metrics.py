"""How well scores rank the documents of queries: pairwise accuracy and mean NDCG@k.

Both take flat arrays as SVM^rank files hold them: one row per document, its relevance grade,
its score and the id of its query (``sklearn.datasets.load_svmlight_file(query_id=True)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from structsvm._utils.pair_counts import count_pairs, swap_counts
from structsvm._utils.validation import check_feature_array, check_positive_int


def query_rows(qid: Any, n_rows: int) -> list[np.ndarray]:
    """Return the row indices of every query, queries in order of their sorted ids.

    Rows keep their order within a query; the rows of a query need not be contiguous. With
    ``qid=None`` all rows form one query.

    Raises
    ------
    ValueError
        If qid is not 1-D with one id per row, or holds NaN or infinity.
    """
    if qid is None:
        return [np.arange(n_rows)]
    ids = np.asarray(qid)
    if ids.ndim != 1 or len(ids) != n_rows:
        raise ValueError(
            f"qid must hold one query id per row: expected shape ({n_rows},), got {ids.shape}"
        )
    if ids.dtype.kind in "fc" and not np.all(np.isfinite(ids)):
        raise ValueError("qid must hold query ids, got NaN or infinite values")
    _, codes, sizes = np.unique(ids, return_inverse=True, return_counts=True)
    order = np.argsort(codes.ravel(), kind="stable")
    return np.split(order, np.cumsum(sizes)[:-1])


def _grades_and_scores(y: Any, scores: Any) -> tuple[np.ndarray, np.ndarray]:
    grades = check_feature_array(y, "y", ndim=1, n_features=None)
    values = check_feature_array(scores, "scores", ndim=1, n_features=None)
    if len(values) != len(grades):
        raise ValueError(f"y has {len(grades)} grades but scores has {len(values)} scores")
    return grades, values


def pairwise_accuracy(y: Any, scores: Any, qid: Any = None) -> float:
    """Return the fraction of preference pairs that the scores order correctly.

    The pairs are the documents (i, j) of one query with ``y[i] > y[j]``, pooled over all
    queries (each pair counts once, as in the ranking SVM's objective). A pair counts 1 when
    ``scores[i] > scores[j]``, ½ when the scores are equal and 0 otherwise, so constant scores
    get 0.5. It is one minus the fraction of swapped pairs, counted in O(m log m) per query.

    Parameters
    ----------
    y : array of shape (n,)
        Relevance grades; higher is more relevant.
    scores : array of shape (n,)
        Predicted scores (e.g. :meth:`RankingSVM.decision_function`).
    qid : array of shape (n,), optional
        Query id of every row; None means one query.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the arrays do not match, or no query has two documents of different grades.
    """
    grades, values = _grades_and_scores(y, scores)
    n_pairs = correct = ties = 0
    for rows in query_rows(qid, len(grades)):
        g, s = grades[rows], values[rows]
        pairs = count_pairs(g)
        # Pairs with s_i <= s_j are not correct; with the grades negated, the pairs counted
        # are those with s_j <= s_i, and the rest (s_i < s_j) are the reversed ones.
        not_correct = int(swap_counts(g, s, s)[0].sum())
        not_reversed = int(swap_counts(-g, s, s)[0].sum())
        n_pairs += pairs
        correct += pairs - not_correct
        ties += not_correct - (pairs - not_reversed)
    if n_pairs == 0:
        raise ValueError("y gives no preference pairs: no query has documents of different grades")
    return (correct + 0.5 * ties) / n_pairs


def mean_ndcg(y: Any, scores: Any, qid: Any = None, *, k: int | None = 10) -> float:
    """Return NDCG@k averaged over the queries, with scikit-learn's ``ndcg_score`` per query.

    Gains are the grades themselves (``ndcg_score``'s linear gain, discount ``1/log2(rank+1)``);
    documents with equal scores share their positions' gains (``ignore_ties=False``). Queries
    with a single document are left out (NDCG is not defined for them); a query whose grades
    are all zero has NDCG 0, as in ``ndcg_score``.

    Parameters
    ----------
    y : array of shape (n,)
        Non-negative relevance grades.
    scores : array of shape (n,)
        Predicted scores.
    qid : array of shape (n,), optional
        Query id of every row; None means one query.
    k : int or None, default=10
        Only the top k positions count; None for all.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the arrays do not match, a grade is negative, or no query has two documents.
    """
    # Imported here: sklearn.metrics brings in much of scikit-learn (model selection, SVMs,
    # linear models), which ``import structsvm`` does not need.
    from sklearn.metrics import ndcg_score

    grades, values = _grades_and_scores(y, scores)
    if k is not None:
        k = check_positive_int(k, "k")
    per_query = [
        ndcg_score(grades[rows][None, :], values[rows][None, :], k=k)
        for rows in query_rows(qid, len(grades))
        if len(rows) > 1
    ]
    if not per_query:
        raise ValueError("NDCG needs a query with at least two documents: y has none")
    return float(np.mean(per_query))
