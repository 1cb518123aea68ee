"""The valid label sequences of BIO chunk tags, as constraints of a linear-chain task."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def bio_constraints(tags: Sequence[str]) -> dict[str, np.ndarray]:
    """Return the forbidden transitions and first labels of BIO tags, as ChainTask keywords.

    In the BIO scheme (Ramshaw & Marcus, 1995) a chunk of type X is ``B-X`` followed by any
    number of ``I-X``: ``I-X`` may follow only ``B-X`` or ``I-X``, and never starts a sentence,
    so that decoding never returns, say, ``O → I-NP``.

    Parameters
    ----------
    tags : sequence of str
        The tag of every label, label l having ``tags[l]``: for example a fitted
        :class:`TagEncoder`'s ``classes_``. Each is ``O``, ``B-X`` or ``I-X``.

    Returns
    -------
    dict
        ``forbidden_transitions``, an (L, L) boolean mask true where ``I-X`` would follow
        anything but ``B-X`` or ``I-X``, and ``forbidden_first``, an (L,) mask true at every
        ``I-X``: pass them on with ``ChainTask(L, d, **bio_constraints(tags))``.

    Raises
    ------
    ValueError
        If a tag is not of the BIO form; the message names it.

    Examples
    --------
    >>> constraints = bio_constraints(["B-NP", "I-NP", "O"])
    >>> constraints["forbidden_transitions"].astype(int).tolist()
    [[0, 0, 0], [0, 0, 0], [0, 1, 0]]
    >>> constraints["forbidden_first"].tolist()
    [False, True, False]

    References
    ----------
    L. A. Ramshaw and M. P. Marcus. Text chunking using transformation-based learning. In
    *Proceedings of the Third Workshop on Very Large Corpora*, pages 82–94, 1995.
    """
    tags = [str(tag) for tag in tags]
    for tag in tags:
        if tag != "O" and (tag[:2] not in ("B-", "I-") or len(tag) == 2):
            raise ValueError(f"tags must be O, B-X or I-X (BIO chunk tags), got {tag!r}")
    chunk_types = np.array([tag[2:] for tag in tags], dtype=object)
    inside = np.array([tag.startswith("I-") for tag in tags])
    in_chunk = np.array([tag != "O" for tag in tags])
    # I-X (column) may follow a previous tag (row) only if that tag is B-X or I-X.
    same_chunk = in_chunk[:, np.newaxis] & (chunk_types[:, np.newaxis] == chunk_types)
    return {
        "forbidden_transitions": inside[np.newaxis, :] & ~same_chunk,
        "forbidden_first": inside.copy(),
    }
