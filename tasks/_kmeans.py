"""The k-means initialisation of the hidden parts shared by the latent tasks."""

from __future__ import annotations

from typing import Any

import numpy as np


def kmeans_within_labels(
    inputs: Any, labels: np.ndarray, n_clusters: int, random_state: int | None
) -> np.ndarray:
    """Return a cluster index for every row of ``inputs``, clustering each label on its own.

    The rows of every label are clustered by k-means into (at most) ``n_clusters`` groups;
    a label with fewer rows than that gives each row its own group, one with a single row
    (or ``n_clusters == 1``) puts all its rows in group 0.
    """
    # Imported here: sklearn.cluster brings in much of scikit-learn.
    from sklearn.cluster import KMeans

    hidden = np.zeros(len(labels), dtype=np.int64)
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        n_groups = min(n_clusters, len(members))
        if n_groups == 1:
            continue
        kmeans = KMeans(n_clusters=n_groups, n_init=10, random_state=random_state)
        hidden[members] = kmeans.fit_predict(inputs[members])
    return hidden
