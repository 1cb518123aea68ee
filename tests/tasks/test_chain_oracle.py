"""ChainTask's compiled oracle answers as enumeration and as the task's Python methods do."""

import numpy as np
import pytest
import scipy.sparse as sp

import tasks._chain
from structsvm import Task
from tasks import ChainTask
from tasks._chain_oracle import chain_decode, chain_decode_constrained, chain_weights
from tests.tasks.compiled_checks import assert_optional_functions_agree

BLOCKS = {
    "plain": {},
    "start, end and bias": {"start_end": True, "bias": True},
    "no transitions, weighted loss": {"transitions": False, "label_weights": [1.0, 2.5, 0.5]},
}
CONSTRAINTS = {
    "forbidden_transitions": [(0, 1), (2, 2)],
    "forbidden_first": [1],
    "forbidden_last": [0],
}
VARIANTS = [
    (order, blocks, constrained)
    for order in (1, 2)
    for blocks in BLOCKS
    for constrained in (False, True)
]


def chain_problem(order, blocks, constrained, storage, seed=0, n_sequences=8):
    """A task and short sequences of 4 small-integer features, so that labellings often tie.

    ``storage``: "sparse" sequences, "dense" ones with most entries non-zero (scored at once
    by a BLAS product) or "dense, mostly zeros" (scored at once from their stored entries).
    """
    options = {**BLOCKS[blocks], **(CONSTRAINTS if constrained else {})}
    task = ChainTask(3, 4, order=order, **options)
    rng = np.random.default_rng(seed)
    keep = 0.2 if storage == "dense, mostly zeros" else 0.8
    X, Y = [], []
    for _ in range(n_sequences):
        length = int(rng.integers(1, 5))
        x = rng.integers(-2, 3, size=(length, 4)) * (rng.random((length, 4)) < keep)
        allowed = list(task.outputs(x))
        X.append(sp.csr_matrix(x) if storage == "sparse" else x.astype(float))
        Y.append(allowed[rng.integers(len(allowed))])
    return task, *task.check_data(X, Y)


def weight_draws(task, seed):
    """Small integer weights (exact scores, many ties), then real-valued ones."""
    rng = np.random.default_rng(seed)
    return [
        rng.integers(-1, 2, size=task.size_joint_feature).astype(float),
        rng.normal(size=task.size_joint_feature),
    ]


@pytest.mark.parametrize("storage", ["dense", "dense, mostly zeros", "sparse"])
@pytest.mark.parametrize(("order", "blocks", "constrained"), VARIANTS)
def test_decode_is_the_best_allowed_labelling_with_the_python_oracles_ties(
    order, blocks, constrained, storage
):
    task, X, Y = chain_problem(order, blocks, constrained, storage)
    oracle = task.compiled_oracle(X, Y)
    scores, decode = oracle.functions()[:2]
    for w in weight_draws(task, seed=1):
        for i, (x, y) in enumerate(zip(X, Y, strict=True)):
            # The base class's oracles enumerate the allowed labellings in lexicographic order.
            best = decode(oracle.data, i, w, scores(oracle.data, i, w), False)
            np.testing.assert_array_equal(best, Task.argmax(task, x, w))
            np.testing.assert_array_equal(best, task.argmax(x, w))
            augmented = decode(oracle.data, i, w, scores(oracle.data, i, w), True)
            np.testing.assert_array_equal(augmented, Task.loss_augmented_argmax(task, x, y, w))
            np.testing.assert_array_equal(augmented, task.loss_augmented_argmax(x, y, w))
            assert augmented.dtype == np.int64


@pytest.mark.parametrize("storage", ["dense", "sparse"])
@pytest.mark.parametrize(("order", "blocks", "constrained"), VARIANTS)
def test_features_and_loss_are_the_tasks(order, blocks, constrained, storage):
    task, X, Y = chain_problem(order, blocks, constrained, storage, seed=2)
    oracle = task.compiled_oracle(X, Y)
    features, loss = oracle.functions()[2:4]
    rng = np.random.default_rng(3)
    for i, (x, y) in enumerate(zip(X, Y, strict=True)):
        for labels in (y, rng.integers(0, 3, size=len(y))):
            labels = labels.astype(np.int64)
            indices, values = features(oracle.data, i, labels)
            expected_indices, expected_values = task.sparse_joint_feature(x, labels)
            np.testing.assert_array_equal(indices, expected_indices)
            np.testing.assert_array_equal(values, expected_values)
            assert loss(oracle.data, i, labels) == task.loss(y, labels)


@pytest.mark.parametrize("storage", ["dense", "dense, mostly zeros", "sparse"])
@pytest.mark.parametrize(("order", "blocks", "constrained"), VARIANTS)
def test_labelling_score_and_add_features_agree_with_features(
    order, blocks, constrained, storage
):
    # Any labelling, forbidden ones too: w·φ knows nothing of the constraints.
    task, X, Y = chain_problem(order, blocks, constrained, storage, seed=7)
    oracle = task.compiled_oracle(X, Y)
    rng = np.random.default_rng(8)
    for w in weight_draws(task, seed=9):
        for i, y in enumerate(Y):
            for labels in (y, rng.integers(0, 3, size=len(y))):
                assert_optional_functions_agree(
                    oracle, i, labels.astype(np.int64), w, task.size_joint_feature
                )


@pytest.mark.parametrize("storage", ["dense", "dense, mostly zeros", "sparse"])
@pytest.mark.parametrize("blocks", list(BLOCKS))
def test_the_scores_are_the_unary_scores_and_a_batch_scores_the_same_rows(blocks, storage):
    task, X, Y = chain_problem(1, blocks, False, storage, seed=4, n_sequences=20)
    oracle = task.compiled_oracle(X, Y)
    scores = oracle.functions()[0]
    w = np.random.default_rng(5).normal(size=task.size_joint_feature)
    unary, offsets = task._unary_scores(X, w)
    table = oracle.batch_scores(oracle.data, w)
    np.testing.assert_array_equal(table.offsets, offsets)
    for i in range(len(X)):
        rows = scores(oracle.data, i, w)
        np.testing.assert_allclose(rows, unary[offsets[i] : offsets[i + 1]], rtol=1e-13)
        batch_rows = table.scores[table.offsets[i] : table.offsets[i + 1]]
        if storage == "dense":
            np.testing.assert_allclose(batch_rows, rows, rtol=1e-13, atol=1e-15)
        else:
            # Both sum the stored entries in the same order.
            np.testing.assert_array_equal(batch_rows, rows)


@pytest.mark.parametrize("order", [1, 2])
def test_decode_keeps_the_constraints_whatever_the_weights(order):
    task, X, Y = chain_problem(order, "start, end and bias", True, "dense", seed=6)
    w = np.zeros(task.size_joint_feature)
    # Weights that favour exactly the forbidden transitions and first and last labels.
    pairs = w[task._transitions_at : task._triples_at].reshape(3, 3)
    pairs[task.forbidden_transitions] = 100.0
    w[task._start_at : task._end_at][task.forbidden_first] = 100.0
    w[task._end_at : task._bias_at][task.forbidden_last] = 100.0
    oracle = task.compiled_oracle(X, Y)
    scores, decode = oracle.functions()[:2]
    for i in range(len(X)):
        for augmented in (False, True):
            labels = decode(oracle.data, i, w, scores(oracle.data, i, w), augmented)
            assert task._violation(labels, np.array([0, len(labels)])) is None


@pytest.mark.parametrize("blocks", list(BLOCKS))
def test_a_chain_without_constraints_reads_the_weights_its_compiled_copy_gives(blocks):
    task, _, _ = chain_problem(1, blocks, False, "dense")
    for w in weight_draws(task, 5):
        read = task._decoding_weights(w)
        copied = chain_weights(task._chain_data(), w)
        for got, expected in zip((read[0], read[2], read[3]), copied, strict=True):
            np.testing.assert_array_equal(got, expected)
            assert got.flags.c_contiguous and not np.shares_memory(got, w)


@pytest.mark.parametrize("constrained", [False, True])
def test_only_a_chain_with_constraints_decodes_with_the_constrained_copy(
    constrained, monkeypatch
):
    task, X, Y = chain_problem(1, "start, end and bias", constrained, "dense")
    expected = chain_decode_constrained if constrained else chain_decode
    assert task.compiled_oracle(X, Y).decode is expected
    w = weight_draws(task, 6)[1]
    labels = task.batch_argmax(X, w)

    def no_copy(*arguments):
        raise AssertionError("the weights were copied by the compiled function")

    monkeypatch.setattr(tasks._chain, "chain_weights", no_copy)
    if constrained:
        with pytest.raises(AssertionError, match="copied"):
            task.batch_argmax(X, w)
    else:
        for got, expected_labels in zip(task.batch_argmax(X, w), labels, strict=True):
            np.testing.assert_array_equal(got, expected_labels)


class ChangedLoss(ChainTask):
    """A chain task whose loss is not the compiled oracle's (unchanged here, but overridden)."""

    def loss(self, y_true, y):
        return super().loss(y_true, y)


def test_a_subclass_that_overrides_an_oracle_or_the_loss_has_no_compiled_oracle():
    task, X, Y = chain_problem(1, "plain", False, "dense")
    assert task.compiled_oracle(X, Y) is not None
    assert ChangedLoss(3, 4).compiled_oracle(X, Y) is None


@pytest.mark.parametrize("labels", [[1, 2], [1, 1]])
def test_the_joint_feature_of_rows_with_unsorted_or_repeated_columns_is_the_dense_ones(labels):
    # Rows of a sparse matrix not in canonical form: columns out of order, one stored twice.
    x = sp.csr_matrix(
        (np.array([1.0, 2.0, 3.0, 0.5, 5.0]), np.array([2, 0, 1, 3, 3]), np.array([0, 3, 5])),
        shape=(2, 4),
    )
    task, y = ChainTask(3, 4), np.array(labels)
    np.testing.assert_array_equal(
        task.joint_feature(x, y).toarray().ravel(), task.joint_feature(x.toarray(), y)
    )
