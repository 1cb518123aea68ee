"""The Chow–Liu tree of binary labels: a maximum spanning tree of their mutual information."""

from __future__ import annotations

import numpy as np


def label_mutual_information(Y: np.ndarray) -> np.ndarray:
    """Return the empirical mutual information (in nats) of every pair of columns of Y.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_labels), values 0 and 1

    Returns
    -------
    ndarray of shape (n_labels, n_labels)
        Symmetric; entry (u, v) is Σ_ab p(a, b) log(p(a, b) / (p(a) p(b))) over the joint
        frequencies of columns u and v (0 log 0 = 0). The diagonal holds each column's entropy.
    """
    # Counts in integers, so that a combination never seen has probability exactly 0.
    Y = np.asarray(Y, dtype=np.int64)
    n = Y.shape[0]
    on_on = Y.T @ Y
    on = np.diag(on_on)
    counts = {
        (1, 1): on_on,
        (1, 0): on[:, None] - on_on,
        (0, 1): on[None, :] - on_on,
        (0, 0): n - on[:, None] - on[None, :] + on_on,
    }
    marginal = {1: on / n, 0: 1.0 - on / n}
    information = np.zeros(on_on.shape)
    for (a, b), count in counts.items():
        p = count / n
        independent = np.outer(marginal[a], marginal[b])
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = p * np.log(p / independent)
        information += np.where(p > 0, terms, 0.0)
    return information


def chow_liu_tree(Y: np.ndarray) -> np.ndarray:
    """Return the edges of the Chow–Liu tree of the binary label columns of Y.

    The maximum spanning tree of the complete graph weighted by
    :func:`label_mutual_information` (Chow & Liu); it spans all labels even where the
    information is zero.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_labels), values 0 and 1

    Returns
    -------
    ndarray of int64, shape (n_labels - 1, 2)
        The edges (u, v), u < v, in lexicographic order.

    References
    ----------
    C. K. Chow and C. N. Liu, "Approximating discrete probability distributions with
    dependence trees", IEEE Transactions on Information Theory 14(3), 1968.
    """
    # Imported here: SciPy's graph routines load scipy.linalg, about 11 MB, unused by most fits.
    from scipy.sparse.csgraph import minimum_spanning_tree

    information = label_mutual_information(Y)
    # Positive costs ordered as −MI: a zero would be a missing edge to SciPy.
    cost = np.triu(1.0 + information.max() - information, k=1)
    tree = minimum_spanning_tree(cost).tocoo()
    edges = np.sort(np.column_stack([tree.row, tree.col]).astype(np.int64), axis=1)
    return edges[np.lexsort((edges[:, 1], edges[:, 0]))].reshape(-1, 2)
