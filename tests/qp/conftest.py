"""Working sets of the simplex-dual QP, shared by the tests of the QP solvers."""

import numpy as np
import pytest


@pytest.fixture(scope="session")
def random_problem():
    """Factory ``(seed, m, p, n_groups, duplicates=0) -> (vectors, offsets, groups)``.

    Constraint vectors, losses and groups of a random working set; ``duplicates`` repeats its
    first rows at the end.
    """

    def make(seed, m, p, n_groups, duplicates=0):
        rng = np.random.default_rng(seed)
        vectors = rng.normal(size=(m, p)) * rng.uniform(0.1, 3.0, size=(m, 1))
        offsets = rng.uniform(0.5, 2.0, size=m)
        groups = 2 * rng.integers(0, n_groups, size=m) + 1
        if duplicates:
            vectors = np.vstack([vectors, vectors[:duplicates]])
            offsets = np.concatenate([offsets, offsets[:duplicates]])
            groups = np.concatenate([groups, groups[:duplicates]])
        return vectors, offsets, groups

    return make
