"""The compiled-oracle protocol: cacheable identities of its functions and the lookup rule."""

import logging
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

from structsvm import CompiledOracle, Task
from structsvm._compiled_oracle import (
    _guard_cache,
    find_compiled_oracle,
    guard_pass_caches,
    labels_of,
    stable_dispatcher,
)
from tasks import MulticlassTask
from tests.compiled_tasks import pair_problem

IDENTITY = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    import oracle_module
    from structsvm._compiled_oracle import stable_dispatcher
    print(stable_dispatcher(oracle_module.double)._uuid)
    """
)


def identity_in_new_process(folder):
    """Return the identity a fresh interpreter gives ``oracle_module.double`` in ``folder``."""
    run = subprocess.run(
        [sys.executable, "-c", IDENTITY, str(folder)], capture_output=True, text=True, check=True
    )
    return run.stdout.strip()


def write_module(folder, body):
    (folder / "oracle_module.py").write_text(
        "import numba\n\n@numba.njit(cache=True)\ndef double(x):\n    return " + body + "\n"
    )


def test_a_function_keeps_its_identity_across_processes(tmp_path):
    write_module(tmp_path, "2 * x")
    assert identity_in_new_process(tmp_path) == identity_in_new_process(tmp_path)


def test_a_changed_source_file_gives_a_new_identity(tmp_path):
    write_module(tmp_path, "2 * x")
    before = identity_in_new_process(tmp_path)
    write_module(tmp_path, "x + x + 0")
    assert identity_in_new_process(tmp_path) != before


def test_an_identity_already_fixed_is_kept():
    @numba.njit
    def triple(x):
        return 3 * x

    first = stable_dispatcher(triple)._uuid
    assert stable_dispatcher(triple)._uuid == first


def test_labels_are_the_raveled_output_as_int64():
    labels = labels_of(np.array([[1, 0], [2, 1]], dtype=np.int8))
    assert labels.dtype == np.int64
    np.testing.assert_array_equal(labels, [1, 0, 2, 1])


class PlainTask(Task):
    size_joint_feature = 1


def test_a_task_without_compiled_oracle_is_logged(caplog):
    with caplog.at_level(logging.INFO, logger="structsvm"):
        assert find_compiled_oracle(PlainTask(), [0], [0], compiled=None, purpose="test") is None
    assert "offers no compiled oracle" in caplog.text


def test_a_required_compiled_oracle_that_is_missing_raises():
    with pytest.raises(ValueError, match="compiled=True"):
        find_compiled_oracle(PlainTask(), [0], [0], compiled=True, purpose="test")


def test_compiled_false_skips_the_oracle(digits_split):
    X, _, Y, _ = digits_split
    task = MulticlassTask(10, X.shape[1])
    X, Y = task.check_data(X, Y)
    assert find_compiled_oracle(task, X, Y, compiled=False, purpose="test") is None
    found = find_compiled_oracle(task, X, Y, compiled=None, purpose="test")
    assert isinstance(found, CompiledOracle)


class IndexNamingVanishedOracles:
    """A pass's cache whose index cannot be written until it is emptied."""

    def __init__(self):
        self.entries, self.flushed = {"old": "entry"}, 0

    def save_overload(self, sig, data):
        if "old" in self.entries:
            raise ReferenceError("underlying object has vanished")
        self.entries[sig] = data

    def flush(self):
        self.flushed += 1
        self.entries.clear()


def test_a_pass_cache_that_cannot_be_written_is_emptied_and_keeps_the_new_entry():
    cache = IndexNamingVanishedOracles()
    _guard_cache(cache)
    _guard_cache(cache)  # guarding twice wraps once
    cache.save_overload("signature", "compiled")
    assert cache.flushed == 1 and cache.entries == {"signature": "compiled"}


def test_every_compiled_pass_of_the_solvers_is_guarded():
    from structsvm.solvers._summed_pass import block_sums

    guard_pass_caches()
    assert getattr(block_sums._cache.save_overload, "guarded", False)


def test_the_oracle_makes_the_true_joint_features_as_sparse_rows():
    task, X, Y = pair_problem(7)
    rows = task.compiled_oracle(X, Y).feature_rows(Y, task.size_joint_feature)
    assert rows.format == "csr" and rows.shape == (7, task.size_joint_feature)
    np.testing.assert_array_equal(rows.toarray(), task.batch_joint_feature(X, Y))
