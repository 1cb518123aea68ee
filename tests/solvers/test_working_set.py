"""Inner products of constraint vectors: the same matrix whichever way they are stored."""

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm.solvers._working_set import FeatureSpace, GramWorkingSet, inner_products


@pytest.mark.parametrize("density", [0.5, 0.02, 0.001])
@pytest.mark.parametrize("columns", [300, 50_000])
def test_inner_products_of_dense_and_sparse_vectors_agree(density, columns):
    rng = np.random.default_rng(0)
    left = sp.random(40, columns, density=density, format="csr", random_state=rng)
    right = sp.random(25, columns, density=density, format="csr", random_state=rng)
    expected = left.toarray() @ right.toarray().T

    for a, b in [(left, right), (left.toarray(), right), (left, right.toarray())]:
        product = inner_products(a, b)
        assert isinstance(product, np.ndarray)
        np.testing.assert_allclose(product, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("density", [0.5, 0.02, 0.001])
def test_the_gram_matrix_of_one_block_is_its_products_exactly_symmetric(density):
    rng = np.random.default_rng(2)
    block = sp.random(60, 400, density=density, format="csr", random_state=rng)
    dense = block.toarray()

    gram = inner_products(block, block)

    np.testing.assert_allclose(gram, dense @ dense.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(gram, gram.T)


def test_a_gram_working_set_keeps_the_gram_matrix_of_its_vectors():
    rng = np.random.default_rng(1)
    working_set = GramWorkingSet(FeatureSpace(30))
    for batch in range(3):
        vectors = sp.random(4, 30, density=0.3, format="csr", random_state=rng)
        keys = [(0, 4 * batch + k) for k in range(4)]
        working_set.add(vectors, np.ones(4), np.zeros(4, dtype=np.int64), keys)
    working_set.keep(np.arange(12) % 3 != 1)

    dense = working_set.vectors.toarray()
    np.testing.assert_allclose(working_set.gram, dense @ dense.T, rtol=1e-12)
    rows = np.array([0, 3, 5])
    np.testing.assert_allclose(working_set.gram_of(rows), dense[rows] @ dense[rows].T)
