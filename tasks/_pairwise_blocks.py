"""How a pairwise weight block is parametrised: free, symmetric or antisymmetric.

A block's n_states × n_states matrix ``P`` is ``vec(P) = Tᵀ θ`` of its weights θ, with one
weight per entry (free), per entry of the upper triangle with the diagonal (``P = Pᵀ``) or
strictly above it (``P = −Pᵀ``); the joint feature of edge statistics ``M`` is ``T vec(M)``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

PAIRWISE_KINDS = ("free", "symmetric", "antisymmetric")


def pairwise_block_map(n_states: int, kind: str) -> sp.csr_matrix:
    """Return the map ``T`` (n_weights × n_states²) of a pairwise block of the given kind.

    Parameters
    ----------
    n_states : int
    kind : {"free", "symmetric", "antisymmetric"}

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_weights, n_states ** 2)
        n_weights is n_states², n_states (n_states + 1) / 2 or n_states (n_states − 1) / 2.
        Row k holds +1 at the entries (s, t) that weight k scores, and −1 at the mirrored
        entries of an antisymmetric block.
    """
    if kind not in PAIRWISE_KINDS:
        raise ValueError(f"kind must be one of {PAIRWISE_KINDS}, got {kind!r}")
    size = n_states * n_states
    if kind == "free":
        return sp.identity(size, format="csr")
    upper, lower = np.triu_indices(n_states, k=0 if kind == "symmetric" else 1)
    n_weights = len(upper)
    weights = np.arange(n_weights)
    mirrored = upper != lower
    rows = np.concatenate([weights, weights[mirrored]])
    columns = np.concatenate([upper * n_states + lower, (lower * n_states + upper)[mirrored]])
    sign = 1.0 if kind == "symmetric" else -1.0
    values = np.concatenate([np.ones(n_weights), np.full(int(mirrored.sum()), sign)])
    return sp.csr_matrix((values, (rows, columns)), shape=(n_weights, size))
