"""RankingSVM: the pairwise SVM's optimum from rows with query ids, and the ranking metrics."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.metrics import ndcg_score

from structsvm import RankingSVM, mean_ndcg, pairwise_accuracy
from tests.references import pairwise_differences, preference_pairs, solve_pairwise_svm


def _documents(seed, n_queries=4, per_query=(3, 12), d=3):
    """Rows of documents with query ids shuffled (queries not contiguous) and tied grades."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(*per_query, size=n_queries)
    qid = np.repeat(10 * np.arange(n_queries) + 7, sizes)
    X = rng.normal(size=(len(qid), d))
    y = np.clip(np.round(X @ np.array([1.0, -0.5, 0.3][:d]) + rng.normal(size=len(qid))), 0, 3)
    order = rng.permutation(len(qid))
    return X[order], y[order], qid[order]


def _by_query(X, y, qid):
    ids = np.unique(qid)
    return [X[qid == q] for q in ids], [y[qid == q] for q in ids]


@pytest.mark.parametrize("solver", ["1-slack", "n-slack"])
@pytest.mark.parametrize("sparse", [False, True])
def test_optimum_is_the_linear_svm_on_pair_differences(solver, sparse):
    X, y, qid = _documents(0)
    C = 0.5
    w_ref, reference = solve_pairwise_svm(pairwise_differences(*_by_query(X, y, qid)), C)
    ranker = RankingSVM(C=C, solver=solver, tol=1e-8)
    ranker.fit(sp.csr_matrix(X) if sparse else X, y, qid)
    assert ranker.svm_.primal_objective_ == pytest.approx(reference, rel=1e-5)
    np.testing.assert_allclose(ranker.coef_, w_ref, atol=1e-3)


def test_without_query_ids_all_rows_are_one_query():
    X, y, _ = _documents(1)
    C = 2.0
    _, reference = solve_pairwise_svm(pairwise_differences([X], [y]), C)
    ranker = RankingSVM(C=C, tol=1e-8).fit(X, y)
    assert ranker.svm_.primal_objective_ == pytest.approx(reference, rel=1e-5)


def test_scores_predict_and_score():
    X, y, qid = _documents(2)
    ranker = RankingSVM(C=1.0).fit(X, y, qid)
    np.testing.assert_allclose(ranker.decision_function(X), X @ ranker.coef_)
    np.testing.assert_array_equal(ranker.predict(X), ranker.decision_function(X))
    assert ranker.score(X, y, qid) == pairwise_accuracy(y, X @ ranker.coef_, qid)
    assert ranker.score(X, y, qid) > 0.7
    assert ranker.n_features_in_ == 3
    with pytest.raises(ValueError, match="one query id per row"):
        RankingSVM().fit(X, y, qid[:-1])
    with pytest.raises(NotFittedError):
        RankingSVM().decision_function(X)


def test_pairwise_accuracy_counts_pairs_of_each_query_with_ties_as_half():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 40)
    scores = rng.integers(0, 4, 40).astype(float)
    qid = rng.integers(0, 3, 40)
    correct = total = 0.0
    for q in np.unique(qid):
        g, s = y[qid == q], scores[qid == q]
        for i, j in preference_pairs(g):
            total += 1
            correct += 1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0
    assert pairwise_accuracy(y, scores, qid) == pytest.approx(correct / total)
    assert pairwise_accuracy(y, np.zeros(40), qid) == 0.5
    with pytest.raises(ValueError, match="no preference pairs"):
        pairwise_accuracy(np.ones(4), np.arange(4.0), [0, 0, 1, 1])


def test_mean_ndcg_averages_scikit_learn_per_query_over_queries_with_two_documents():
    rng = np.random.default_rng(4)
    y, scores = rng.integers(0, 4, 30), rng.normal(size=30)
    qid = np.concatenate([np.repeat([0, 1, 2], [12, 17, 1])])
    expected = np.mean(
        [ndcg_score([y[qid == q]], [scores[qid == q]], k=5) for q in (0, 1)]
    )
    assert mean_ndcg(y, scores, qid, k=5) == pytest.approx(expected)
    with pytest.raises(ValueError, match="at least two documents"):
        mean_ndcg([1.0], [0.3], [0])
