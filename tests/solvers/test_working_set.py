"""Working sets: inner products of constraint vectors, the same matrix whichever way they are
stored, and rows that grow in place without ever changing the rows an older copy holds."""

import mmap

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm import StructuredSVM
from structsvm.solvers import _row_storage as row_storage
from structsvm.solvers._working_set import (
    FeatureSpace,
    GramWorkingSet,
    WorkingSet,
    inner_products,
)


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


COLUMNS = 20


def _block(kind, rows, seed):
    """``rows`` random constraint vectors, dense or CSR, and their dense values."""
    block = sp.random(rows, COLUMNS, density=0.3, format="csr", random_state=seed)
    return (block.toarray() if kind == "dense" else block), block.toarray()


def _add(working_set, kind, rows, seed):
    """Add ``rows`` random constraints; return their dense vectors."""
    vectors, dense = _block(kind, rows, seed)
    keys = [(seed, k) for k in range(rows)]
    working_set.add(vectors, np.full(rows, seed, float), np.zeros(rows, np.int64), keys)
    return dense


def _rows(working_set):
    vectors = working_set.vectors
    return vectors.toarray() if sp.issparse(vectors) else np.asarray(vectors)


def _memory(working_set):
    """The arrays that hold a working set's rows."""
    vectors = working_set.vectors
    return (vectors.data, vectors.indices, vectors.indptr) if sp.issparse(vectors) else (vectors,)


def _shares_storage(first, second):
    return all(np.shares_memory(a, b) for a, b in zip(_memory(first), _memory(second)))


@pytest.mark.parametrize("kind", ["dense", "csr"])
def test_appending_writes_after_the_rows_and_leaves_an_older_copys_rows_alone(kind):
    working_set = WorkingSet(FeatureSpace(COLUMNS))
    first = _add(working_set, kind, 5, seed=1)
    older = working_set.copy()

    second = _add(working_set, kind, 3, seed=2)

    assert _shares_storage(working_set, older)  # appended in place, not copied
    np.testing.assert_array_equal(_rows(working_set), np.vstack([first, second]))
    np.testing.assert_array_equal(_rows(older), first)


@pytest.mark.parametrize("kind", ["dense", "csr"])
@pytest.mark.parametrize("order", ["original first", "copy first"])
def test_an_older_copy_and_the_original_add_and_keep_only_their_own_rows(kind, order):
    original = WorkingSet(FeatureSpace(COLUMNS))
    common = _add(original, kind, 6, seed=1)
    working_sets = {"original": original, "older": original.copy()}
    names = ["original", "older"] if order == "original first" else ["older", "original"]
    expected = {}
    for seed, name in enumerate(names, start=2):
        expected[name] = np.vstack([common, _add(working_sets[name], kind, 4, seed)])

    assert not _shares_storage(working_sets["original"], working_sets["older"])
    for seed, (name, working_set) in enumerate(working_sets.items(), start=4):
        mask = np.arange(len(working_set)) % 3 != seed % 3
        working_set.keep(mask)
        expected[name] = np.vstack([expected[name][mask], _add(working_set, kind, 2, seed)])
    for name, working_set in working_sets.items():
        np.testing.assert_array_equal(_rows(working_set), expected[name])
        assert len(working_set.keys) == len(working_set.offsets) == len(expected[name])


@pytest.mark.parametrize("kind", ["dense", "csr"])
def test_keep_writes_the_kept_rows_into_new_storage_that_the_next_add_appends_to(kind):
    working_set = WorkingSet(FeatureSpace(COLUMNS))
    rows = np.vstack([_add(working_set, kind, 4, seed=1), _add(working_set, kind, 4, seed=2)])
    before = working_set.copy()
    mask = np.array([True, False, False, True, True, True, False, True])

    working_set.keep(mask)
    kept = working_set.copy()
    more = _add(working_set, kind, 3, seed=3)

    np.testing.assert_array_equal(_rows(before), rows)
    np.testing.assert_array_equal(_rows(kept), rows[mask])
    np.testing.assert_array_equal(_rows(working_set), np.vstack([rows[mask], more]))
    np.testing.assert_array_equal(working_set.offsets, [1, 1, 2, 2, 2, 3, 3, 3])
    assert not any(np.shares_memory(a, b) for a in _memory(before) for b in _memory(kept))
    assert _shares_storage(working_set, kept)


@pytest.mark.parametrize("container", [sp.csr_matrix, sp.csr_array])
def test_csr_rows_have_the_class_and_index_dtype_of_scipys_stacked_rows(container):
    blocks = [container(_block("csr", 3, seed)[0]) for seed in range(3)]
    working_set = WorkingSet(FeatureSpace(COLUMNS))
    for seed, block in enumerate(blocks):
        working_set.add(block, np.zeros(3), np.zeros(3, np.int64), [(seed, k) for k in range(3)])
    working_set.keep(np.arange(9) != 4)

    vectors, stacked = working_set.vectors, sp.vstack(blocks, format="csr")[np.arange(9) != 4]
    assert type(vectors) is type(stacked)
    assert vectors.indices.dtype == vectors.indptr.dtype == stacked.indices.dtype
    vectors.check_format(full_check=True)
    np.testing.assert_array_equal(vectors.toarray(), stacked.toarray())


@pytest.mark.parametrize("solver", ["1-slack", "n-slack"])
def test_a_checkpoint_holds_only_the_working_sets_rows(solver, chain_problem, tmp_path):
    task, X, Y = chain_problem(n_sequences=12)
    model = StructuredSVM(task, C=1.0, solver=solver, tol=1e-2).fit(X, Y)
    model.save_checkpoint(tmp_path / "grown.ckpt")
    rows = model.working_set_.vectors
    assert any(part.base.size > part.size for part in _memory(model.working_set_))  # spare room
    assert model.dual_state_.working_set is model.working_set_
    model.working_set_.vectors = rows.copy()  # rows in storage of their own size
    model.save_checkpoint(tmp_path / "compact.ckpt")

    loaded = StructuredSVM.load_checkpoint(tmp_path / "grown.ckpt")

    assert isinstance(loaded.working_set_.vectors, type(rows))
    np.testing.assert_array_equal(_rows(loaded.working_set_), _rows(model.working_set_))
    assert (tmp_path / "grown.ckpt").stat().st_size == (tmp_path / "compact.ckpt").stat().st_size


@pytest.mark.parametrize("kind", ["dense", "csr"])
def test_rows_of_another_width_are_refused(kind):
    working_set = WorkingSet(FeatureSpace(COLUMNS))
    _add(working_set, kind, 2, seed=1)
    vectors = np.ones((1, COLUMNS + 1))
    message = f"new rows must have {COLUMNS} columns, got {COLUMNS + 1}"

    with pytest.raises(ValueError, match=message):
        working_set.add(vectors, np.ones(1), np.zeros(1, np.int64), [(0, "wide")])


@pytest.mark.skipif(not hasattr(mmap, "MADV_HUGEPAGE"), reason="no transparent huge pages here")
@pytest.mark.parametrize("kind", ["dense", "csr"])
def test_storage_asks_for_aligned_huge_pages_only_over_whole_huge_pages_of_the_rows_written(
    kind, monkeypatch
):
    # A huge page is resident whole once touched: the room to grow stays in small pages.
    advice = []

    class Recording(mmap.mmap):
        def madvise(self, option, start=0, length=None):
            advice.append((option, start, length, len(self)))
            return super().madvise(option, start, length)

    monkeypatch.setattr(row_storage.mmap, "mmap", Recording)
    huge = row_storage.HUGE_PAGE
    dense = np.ones((5 * huge // (16 * COLUMNS), COLUMNS))  # 2.5 huge pages of float64
    vectors = dense if kind == "dense" else sp.csr_matrix(dense)
    working_set = WorkingSet(FeatureSpace(COLUMNS))
    n = len(dense)
    working_set.add(vectors, np.zeros(n), np.zeros(n, np.int64), range(n))

    np.testing.assert_array_equal(_rows(working_set), dense)
    assert max(length for *_, length, _ in advice) == 2 * huge  # of the values' 2.5 written
    for option, start, length, size in advice:
        # All written at once, with as much room again; the mapping a huge page longer, to
        # start the array on a huge page's boundary.
        written = (size - huge) // row_storage.GROWTH
        assert option == mmap.MADV_HUGEPAGE and start < huge
        assert length % huge == 0 and written - huge < length <= written
    rows = working_set.vectors
    arrays = [rows] if kind == "dense" else [rows.data, rows.indices]
    assert all(array.ctypes.data % huge == 0 for array in arrays)
