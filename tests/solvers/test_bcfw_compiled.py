"""BCFW's compiled passes take the steps of its Python loop, on every task that offers a
compiled oracle and on no other."""

import joblib
import numpy as np
import pytest

from structsvm import Task
from structsvm.solvers import bcfw
from structsvm.solvers._bcfw_steps import pool_index_type
from tasks import ChainTask, MulticlassTask
from tests.references import dense_bcfw_passes
from tests.solvers.bcfw_problems import PROBLEMS, chain, multiclass, passes, tagging


@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("averaging", [True, False])
@pytest.mark.parametrize("order", ["random", "cyclic"])
def test_compiled_passes_take_the_steps_of_the_python_loop(problem, averaging, order):
    task, X, Y = PROBLEMS[problem]()
    assert task.compiled_oracle(X, Y) is not None
    options = {"averaging": averaging, "order": order}
    compiled = passes(task, X, Y, True, **options)
    generic = passes(task, X, Y, False, **options)
    assert len(compiled) == len(generic) == 7
    for (w, record, dual), (w_ref, record_ref, dual_ref) in zip(compiled, generic, strict=True):
        np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-10)
        for key in ("primal", "dual", "gap", "oracle_calls", "certified"):
            assert record[key] == pytest.approx(record_ref[key], rel=1e-10, abs=1e-10)
        iterate, iterate_ref = dual.iterate_and_offset(w)[0], dual_ref.iterate_and_offset(w_ref)[0]
        np.testing.assert_allclose(iterate, iterate_ref, rtol=0, atol=1e-10)
        np.testing.assert_allclose(dual.block_losses, dual_ref.block_losses, atol=1e-10)
        # Blocks keep their nonzero entries only, so an entry that rounds to zero on one path
        # and not on the other is left out of one: compare the blocks as vectors.
        for i in range(len(X)):
            block, block_ref = np.zeros(task.size_joint_feature), np.zeros(task.size_joint_feature)
            block[dual.block_indices[i]] = dual.block_values[i]
            block_ref[dual_ref.block_indices[i]] = dual_ref.block_values[i]
            np.testing.assert_allclose(block, block_ref, rtol=0, atol=1e-10)
        assert dual.steps == dual_ref.steps


@pytest.mark.parametrize("problem", ["sparse multiclass", "dense chain"])
def test_compiled_passes_equal_textbook_bcfw_with_dense_blocks(problem):
    task, X, Y = PROBLEMS[problem]()
    reference = dense_bcfw_passes(task, X, Y, 0.5, 6, True, "random", 2)
    for (w_ref, loss_ref), (w, record, _) in zip(
        reference, passes(task, X, Y, True), strict=True
    ):
        np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=1e-12)
        assert record["dual"] == pytest.approx(loss_ref - 0.5 * w_ref @ w_ref, rel=1e-10)


def test_a_run_continues_on_the_other_path_exactly():
    task, X, Y = chain(True)
    straight = passes(task, X, Y, False, n_passes=6)[-1]
    first = list(bcfw(task, X, Y, 0.5, tol=0.0, max_iter=3, random_state=2, compiled=False))
    later = list(bcfw(task, X, Y, 0.5, tol=0.0, max_iter=3, initial_state=first[-1]))
    np.testing.assert_allclose(later[-1].w, straight[0], rtol=0, atol=1e-10)
    assert later[-1].history[-1]["primal"] == pytest.approx(straight[1]["primal"], rel=1e-10)


def test_the_compiled_pass_calls_no_python_oracle():
    task, X, Y = multiclass(False)
    calls = []
    task.loss_augmented_argmax = lambda *args: calls.append(args)
    task.batch_loss_augmented_argmax = lambda *args: calls.append(args)
    list(bcfw(task, X, Y, 1.0, tol=0.0, max_iter=3))
    assert calls == []


class CountingMulticlass(MulticlassTask):
    """A user's subclass that changes an oracle: it must not run its parent's compiled one."""

    calls = 0

    def loss_augmented_argmax(self, x, y_true, w):
        CountingMulticlass.calls += 1
        return super().loss_augmented_argmax(x, y_true, w)


class PythonMulticlass(Task):
    """A task written in Python only."""

    size_joint_feature = 12

    def joint_feature(self, x, y):
        phi = np.zeros((3, 4))
        phi[y] = x
        return phi.ravel()

    def loss(self, y_true, y):
        return float(y_true != y)

    def outputs(self, x):
        return range(3)


def test_tasks_without_a_compiled_oracle_take_the_python_loop(caplog):
    rng = np.random.default_rng(3)
    Y = rng.integers(0, 3, 20)
    X = rng.normal(size=(20, 4)) + np.eye(3, 4)[Y]
    python_task = PythonMulticlass()
    assert python_task.compiled_oracle(X, Y) is None
    with caplog.at_level("INFO", logger="structsvm"):
        states = list(bcfw(python_task, X, Y, 1.0, tol=0.0, max_iter=2, random_state=0))
    assert "PythonMulticlass offers no compiled oracle" in caplog.text
    with pytest.raises(ValueError, match="compiled=True cannot be met"):
        next(bcfw(python_task, X, Y, 1.0, compiled=True))
    subclass = CountingMulticlass(3, 4)
    assert subclass.compiled_oracle(X, Y) is None
    list(bcfw(subclass, X, Y, 1.0, tol=0.0, max_iter=2, random_state=0))
    assert CountingMulticlass.calls == 2 * len(X)
    np.testing.assert_allclose(states[-1].w, passes(MulticlassTask(3, 4), X, Y, True,
                                                    n_passes=2, C=1.0, random_state=0)[-1][0])


@pytest.mark.parametrize(
    "options",
    [{"rescaling": "slack"}, {"slack_norm": 2}, {"cache_size": 2}],
    ids=["slack rescaling", "L2 slacks", "cache"],
)
def test_a_compiled_pass_asked_for_and_not_possible_raises(options):
    task, X, Y = multiclass(False)
    with pytest.raises(ValueError, match="compiled=True cannot be met"):
        next(bcfw(task, X, Y, 1.0, compiled=True, **options))
    # Not asked for: the Python loop, as with compiled=False.
    auto = passes(task, X, Y, None, n_passes=2, **options)
    python = passes(task, X, Y, False, n_passes=2, **options)
    np.testing.assert_array_equal(auto[-1][0], python[-1][0])


@pytest.mark.parametrize(
    "options",
    [{"order": 2}, {"forbidden_transitions": [(0, 1)], "forbidden_first": [2]}],
    ids=["second order", "constrained"],
)
@pytest.mark.parametrize("step", ["fw", "pairwise"])
def test_every_chain_with_a_compiled_oracle_runs_compiled(options, step):
    rng = np.random.default_rng(6)
    Y = [np.array([0, *rng.choice([0, 2], size=rng.integers(0, 5))]) for _ in range(20)]
    X = [np.eye(3, 4)[y] + rng.normal(size=(len(y), 4)) for y in Y]
    task = ChainTask(3, 4, **options)
    X, Y = task.check_data(X, Y)
    assert task.compiled_oracle(X, Y) is not None
    compiled = passes(task, X, Y, True, n_passes=4, step=step)
    python = passes(task, X, Y, False, n_passes=4, step=step)
    for (w, record, _), (w_ref, record_ref, _) in zip(compiled, python, strict=True):
        np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-10)
        assert record["primal"] == pytest.approx(record_ref["primal"], rel=1e-10)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_the_compiled_gap_evaluation_is_the_same_on_any_number_of_threads(problem):
    task, X, Y = PROBLEMS[problem]()
    one = passes(task, X, Y, True, n_passes=3)
    batch_calls = []
    task.batch_loss_augmented_argmax = lambda *args: batch_calls.append(args)
    with joblib.parallel_backend("threading"):
        two = passes(task, X, Y, True, n_passes=3, n_jobs=2)
    assert batch_calls == []
    for (w, record, _), (w_ref, record_ref, _) in zip(one, two, strict=True):
        np.testing.assert_array_equal(w, w_ref)
        assert record["primal"] == record_ref["primal"]


def test_a_users_task_with_its_own_compiled_oracle_runs_compiled():
    task, X, Y = tagging()
    calls = []
    task.loss_augmented_argmax = lambda *args: calls.append(args)
    states = list(bcfw(task, X, Y, 1.0, tol=0.0, max_iter=3, compiled=True, step="pairwise"))
    assert calls == []
    assert states[-1].dual_state.active_sets.outputs is None


def test_active_labels_widen_when_the_oracle_answers_a_label_their_type_cannot_hold():
    # The true classes fit in one byte; the oracle's first answer, class 299, does not.
    rng = np.random.default_rng(5)
    Y = rng.integers(0, 2, 20)
    X = rng.normal(size=(20, 3)) + np.eye(2, 3)[Y]
    loss_matrix = 1.0 - np.eye(300)
    loss_matrix[:, 299] = 2.0
    loss_matrix[299, 299] = 0.0
    task = MulticlassTask(300, 3, loss_matrix=loss_matrix)
    options = {"step": "pairwise", "n_passes": 3, "C": 1.0}
    compiled = passes(task, X, Y, True, **options)
    python = passes(task, X, Y, False, **options)
    assert compiled[-1][2].active_sets.labels.dtype == np.int64
    assert 299 in compiled[-1][2].active_sets.labels
    for (w, record, _), (w_ref, record_ref, _) in zip(compiled, python, strict=True):
        np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-10)
        assert record["dual"] == pytest.approx(record_ref["dual"], rel=1e-10)


def test_the_blocks_of_a_state_yielded_stay_as_they_were_while_the_pool_is_packed():
    task, X, Y = chain(True)
    states = bcfw(task, X, Y, 0.5, tol=0.0, max_iter=8, random_state=0)
    kept = []
    for state in states:
        dual = state.dual_state
        copies = [(i.copy(), v.copy()) for i, v in zip(dual.block_indices, dual.block_values)]
        kept.append((dual, copies))
    for dual, copies in kept:
        for indices, values, (indices_then, values_then) in zip(
            dual.block_indices, dual.block_values, copies, strict=True
        ):
            np.testing.assert_array_equal(indices, indices_then)
            np.testing.assert_array_equal(values, values_then)


def test_the_pool_keeps_int32_indices_when_every_index_fits():
    task, X, Y = chain(True)
    *_, (_, _, dual) = passes(task, X, Y, True, n_passes=2)
    assert {indices.dtype for indices in dual.block_indices} == {np.dtype(np.int32)}
    assert pool_index_type(2**31) is np.int32
    assert pool_index_type(2**31 + 1) is np.int64


def test_before_a_pass_the_blocks_of_the_last_state_move_into_a_packed_pool():
    task, X, Y = chain(True)
    held = None
    for state in bcfw(task, X, Y, 0.5, tol=0.0, max_iter=5, random_state=0):
        if held is not None:
            indices, values, copies = held
            pool = indices[0].base
            starts = [block.ctypes.data - pool.ctypes.data for block in indices]
            sizes = [block.nbytes for block in indices]
            assert all(block.base is pool for block in indices)
            np.testing.assert_array_equal(starts, np.cumsum([0, *sizes[:-1]]))
            for block_indices, block_values, (indices_then, values_then) in zip(
                indices, values, copies, strict=True
            ):
                np.testing.assert_array_equal(block_indices, indices_then)
                np.testing.assert_array_equal(block_values, values_then)
        dual = state.dual_state
        if state.history[-1]["iteration"] > 0:
            copies = [(i.copy(), v.copy()) for i, v in zip(dual.block_indices, dual.block_values)]
            held = (dual.block_indices, dual.block_values, copies)
