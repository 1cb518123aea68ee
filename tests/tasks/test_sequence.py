"""The linear-chain task: Viterbi oracles against brute-force enumeration, layout, validation."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

from structsvm import ConvergenceWarning, StructuredPerceptron, StructuredSVM, Task
from tasks import ChainTask, split_sequences
from tasks._chain_features import shell_sort
from tests.references import all_labelings, chain_losses, chain_scores


def random_task(rng, n_labels, n_features, transitions, start_end, bias):
    return ChainTask(
        n_labels,
        n_features,
        transitions=transitions,
        start_end=start_end,
        bias=bias,
        label_weights=rng.uniform(0.2, 3.0, n_labels),
    )


# ------------------------------------------------------------------------ oracles vs brute force
@settings(max_examples=50, deadline=None)
@given(
    n_labels=st.integers(2, 5),
    n_features=st.integers(1, 3),
    length=st.integers(1, 6),
    transitions=st.booleans(),
    start_end=st.booleans(),
    bias=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_oracles_reach_the_enumerated_maximum(
    n_labels, n_features, length, transitions, start_end, bias, seed
):
    rng = np.random.default_rng(seed)
    task = random_task(rng, n_labels, n_features, transitions, start_end, bias)
    x = rng.normal(size=(length, n_features))
    y_true = rng.integers(0, n_labels, length)
    w = rng.normal(size=task.size_joint_feature)
    labelings = all_labelings(n_labels, length)
    scores = chain_scores(task, x, labelings, w)
    augmented = chain_losses(task, y_true, labelings) + scores

    y_hat = task.argmax(x, w)
    assert y_hat.shape == (length,)
    assert task.score(x, y_hat, w) == pytest.approx(scores.max(), abs=1e-9)

    y_bad = task.loss_augmented_argmax(x, y_true, w)
    assert task.loss(y_true, y_bad) + task.score(x, y_bad, w) == pytest.approx(
        augmented.max(), abs=1e-9
    )


@pytest.mark.parametrize("start_end", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_score_of_joint_feature_matches_the_documented_layout(start_end, bias):
    rng = np.random.default_rng(0)
    task = random_task(rng, 3, 2, True, start_end, bias)
    x = rng.normal(size=(4, 2))
    labelings = all_labelings(3, 4)
    w = rng.normal(size=task.size_joint_feature)
    by_features = np.array([task.joint_feature(x, y) @ w for y in labelings])
    np.testing.assert_allclose(by_features, chain_scores(task, x, labelings, w))


def test_ties_go_to_the_lexicographically_first_labelling_like_enumeration():
    # Small integer weights and features make every score exact, so ties are real ties.
    rng = np.random.default_rng(1)
    for _ in range(200):
        n_labels = int(rng.choice([2, 3, 5]))
        task = ChainTask(n_labels, 2, start_end=bool(rng.integers(2)), bias=bool(rng.integers(2)))
        length = int(rng.integers(1, 5))
        x = rng.integers(-1, 2, size=(length, 2)).astype(float)
        w = rng.integers(-1, 2, size=task.size_joint_feature).astype(float)
        y_true = rng.integers(0, n_labels, length)
        np.testing.assert_array_equal(task.argmax(x, w), Task.argmax(task, x, w))
        np.testing.assert_array_equal(
            task.loss_augmented_argmax(x, y_true, w),
            Task.loss_augmented_argmax(task, x, y_true, w),
        )


def test_zero_weights_predict_label_zero_everywhere():
    task = ChainTask(4, 3, start_end=True, bias=True)
    x = np.random.default_rng(2).normal(size=(5, 3))
    np.testing.assert_array_equal(task.argmax(x, np.zeros(task.size_joint_feature)), [0] * 5)


def test_zero_weights_make_the_loss_augmented_oracle_pick_the_first_wrong_label():
    task = ChainTask(3, 2)
    x, w = np.ones((4, 2)), np.zeros(task.size_joint_feature)
    np.testing.assert_array_equal(task.loss_augmented_argmax(x, [0, 1, 2, 0], w), [1, 0, 0, 1])


def test_a_sequence_of_length_one_takes_the_best_unary_plus_start_and_end():
    task = ChainTask(3, 2, start_end=True, bias=True)
    E = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    A = np.full((3, 3), 100.0)  # no pair of neighbours: must not matter
    start, end, bias = np.array([0.0, 0.0, 0.4]), np.array([0.0, 0.3, 0.0]), np.zeros(3)
    w = np.concatenate([E.ravel(), A.ravel(), start, end, bias])
    x = np.array([[1.0, 0.8]])  # unaries 1.0, 0.8, 0.9 -> with start/end 1.0, 1.1, 1.3
    np.testing.assert_array_equal(task.argmax(x, w), [2])
    assert task.score(x, [2], w) == pytest.approx(1.3)
    # Losing one position is worth 1: the wrong labels 0 and 1 reach 2.0 and 2.1.
    np.testing.assert_array_equal(task.loss_augmented_argmax(x, [2], w), [1])


def test_transitions_can_overrule_the_emissions():
    task = ChainTask(2, 1)
    emissions = [1.0, 0.0]  # label 0 scores x, label 1 scores nothing
    transitions = [[-5.0, 0.0], [0.0, 0.0]]  # 0 followed by 0 is expensive
    w = np.concatenate([emissions, np.ravel(transitions)])
    x = np.ones((3, 1))
    np.testing.assert_array_equal(task.argmax(x, w), [0, 1, 0])


# ------------------------------------------------------------------------ features and loss
def test_joint_feature_layout_by_hand():
    task = ChainTask(2, 2, start_end=True, bias=True)
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    phi = task.joint_feature(x, [1, 1, 0])
    np.testing.assert_array_equal(phi[:4], [5, 6, 4, 6])  # feature sums per label
    np.testing.assert_array_equal(phi[4:8], [0, 0, 1, 1])  # transitions 1->0 and 1->1
    np.testing.assert_array_equal(phi[8:10], [0, 1])  # first label 1
    np.testing.assert_array_equal(phi[10:12], [1, 0])  # last label 0
    np.testing.assert_array_equal(phi[12:14], [1, 2])  # label counts
    assert task.size_joint_feature == len(phi) == 14


@pytest.mark.parametrize("density", [1.0, 0.05])
def test_long_sequences_count_every_label_pair_and_triple(density):
    # Hundreds of pairs and triples, many repeated, on both emission paths: the counts are
    # those of a plain tally.
    rng = np.random.default_rng(5)
    n, d = 4, 6
    task = ChainTask(n, d, order=2)
    x = rng.normal(size=(300, d)) * (rng.random((300, d)) < density)
    y = rng.integers(0, n, 300)
    pairs, triples = np.zeros((n, n)), np.zeros((n, n, n))
    np.add.at(pairs, (y[:-1], y[1:]), 1.0)
    np.add.at(triples, (y[:-2], y[1:-1], y[2:]), 1.0)
    phi = task.batch_joint_feature([x], [y]).toarray().ravel()
    np.testing.assert_array_equal(phi[n * d : n * d + n * n], pairs.ravel())
    np.testing.assert_array_equal(phi[n * d + n * n : n * d + n * n + n**3], triples.ravel())


@pytest.mark.parametrize("size", [0, 1, 2, 12, 13, 40, 41, 500])
def test_shell_sort_orders_like_numpy(size):
    keys = np.random.default_rng(size).integers(-20, 20, size)
    expected = np.sort(keys)
    shell_sort(keys)
    np.testing.assert_array_equal(keys, expected)


@pytest.mark.parametrize(
    ("options", "size"),
    [
        ({}, 3 * 5 + 9),
        ({"transitions": False}, 3 * 5),
        ({"start_end": True}, 3 * 5 + 9 + 6),
        ({"bias": True}, 3 * 5 + 9 + 3),
        ({"transitions": False, "start_end": True, "bias": True}, 3 * 5 + 6 + 3),
    ],
)
def test_size_joint_feature_counts_the_blocks_switched_on(options, size):
    task = ChainTask(3, 5, **options)
    assert task.size_joint_feature == size
    x = np.ones((4, 5))
    assert task.joint_feature(x, [0, 1, 2, 0]).shape == (size,)
    assert len(task.argmax(x, np.ones(size))) == 4


def test_weighted_hamming_loss_and_its_maximum():
    task = ChainTask(3, 1, label_weights=[1.0, 2.0, 0.5])
    y_true = np.array([0, 1, 2, 1])
    assert task.loss(y_true, y_true) == 0.0
    assert task.loss(y_true, [0, 0, 0, 1]) == 2.0 + 0.5
    assert task.max_loss(y_true) == 1.0 + 2.0 + 0.5 + 2.0
    assert ChainTask(3, 1).loss(y_true, [2, 2, 2, 2]) == 3.0


def test_outputs_enumerates_every_labelling_in_lexicographic_order():
    outputs = [tuple(y) for y in ChainTask(3, 1).outputs(np.zeros((2, 1)))]
    assert outputs == list(itertools.product(range(3), repeat=2))


# ------------------------------------------------------------------------ batches
def random_batch(rng, task, n_sequences):
    lengths = rng.integers(1, 9, n_sequences)
    X = [rng.normal(size=(t, task.n_features)) for t in lengths]
    Y = [rng.integers(0, task.n_labels, t) for t in lengths]
    return X, Y


@pytest.mark.parametrize("transitions", [False, True])
@pytest.mark.parametrize("start_end", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_batch_methods_equal_the_single_example_methods(transitions, start_end, bias):
    rng = np.random.default_rng(3)
    task = random_task(rng, 4, 3, transitions, start_end, bias)
    X, Y = random_batch(rng, task, 25)
    for x in X[::2]:
        x[:, 1] = 0.0  # features that are exactly zero, as blank pixels are
    Y_other = [rng.integers(0, 4, len(y)) for y in Y]
    w = rng.normal(size=task.size_joint_feature)

    for batch, single in zip(task.batch_argmax(X, w), [task.argmax(x, w) for x in X], strict=True):
        np.testing.assert_array_equal(batch, single)
    batch = task.batch_loss_augmented_argmax(X, Y, w)
    for k, (x, y) in enumerate(zip(X, Y, strict=True)):
        np.testing.assert_array_equal(batch[k], task.loss_augmented_argmax(x, y, w))

    phi = task.batch_joint_feature(X, Y_other)
    assert scipy.sparse.issparse(phi) and phi.shape == (25, task.size_joint_feature)
    np.testing.assert_allclose(
        phi.toarray(), [task.joint_feature(x, y) for x, y in zip(X, Y_other, strict=True)]
    )
    scores = [task.score(x, y, w) for x, y in zip(X, Y_other, strict=True)]
    np.testing.assert_allclose(task.batch_score(X, Y_other, w), scores)
    np.testing.assert_allclose(
        task.batch_loss(Y, Y_other), [task.loss(y, z) for y, z in zip(Y, Y_other, strict=True)]
    )


def test_split_sequences_round_trips_concatenated_data():
    rng = np.random.default_rng(4)
    task = ChainTask(3, 2)
    X, Y = random_batch(rng, task, 10)
    lengths = [len(y) for y in Y]
    for parts, whole in [(X, np.concatenate(X)), (Y, np.concatenate(Y))]:
        split = split_sequences(whole, lengths)
        assert len(split) == len(parts)
        for a, b in zip(split, parts, strict=True):
            np.testing.assert_array_equal(a, b)
    task.check_data(split_sequences(np.concatenate(X), lengths), Y)


# ------------------------------------------------------------------------ validation
GOOD_X = [np.zeros((2, 3)), np.zeros((1, 3)), np.zeros((3, 3))]
GOOD_Y = [np.array([0, 1]), np.array([1]), np.array([0, 0, 1])]


def replaced(items, index, value):
    items = list(items)
    items[index] = value
    return items


@pytest.mark.parametrize(
    ("X", "Y", "message"),
    [
        ([], None, "X is empty"),
        (np.zeros((6, 3)), None, "split_sequences"),
        (replaced(GOOD_X, 1, np.zeros((1, 4))), None, r"X\[1\] has 4 features"),
        (replaced(GOOD_X, 2, np.zeros(3)), None, r"X\[2\] must be a 2-D"),
        (replaced(GOOD_X, 0, np.zeros((0, 3))), None, r"X\[0\] is an empty sequence"),
        (replaced(GOOD_X, 2, np.full((3, 3), np.nan)), None, r"X\[2\] contains NaN"),
        (replaced(GOOD_X, 1, [["a", "b", "c"]]), None, r"X\[1\] must be a numeric"),
        (GOOD_X, GOOD_Y[:2], "X and Y have different lengths"),
        (GOOD_X, replaced(GOOD_Y, 2, np.array([0, 1])), r"Y\[2\] has 2 labels but X\[2\]"),
        (GOOD_X, replaced(GOOD_Y, 0, np.array([0, 2])), r"Y\[0\] has labels outside"),
        (GOOD_X, replaced(GOOD_Y, 1, np.array([-1])), r"Y\[1\] has labels outside"),
        (GOOD_X, replaced(GOOD_Y, 1, np.array([0.5])), r"Y\[1\] must hold finite integer"),
        (GOOD_X, replaced(GOOD_Y, 0, np.array([[0, 1]])), r"Y\[0\] must be a 1-D"),
    ],
)
def test_check_data_names_the_bad_sequence(X, Y, message):
    with pytest.raises(ValueError, match=message):
        ChainTask(2, 3).check_data(X, Y)


def test_check_data_keeps_integer_arrays_and_returns_the_rest_as_float_with_int_labels():
    integer = [x.astype(np.uint8) for x in GOOD_X]
    X, Y = ChainTask(2, 3).check_data(integer, [list(y) for y in GOOD_Y])
    assert all(x is kept for x, kept in zip(X, integer, strict=True))
    assert all(y.dtype == np.int64 for y in Y)
    X, _ = ChainTask(2, 3).check_data([x.astype(np.float32).tolist() for x in GOOD_X[:2]])
    assert all(x.dtype == np.float64 and x.ndim == 2 for x in X)
    X, _ = ChainTask(2, 3).check_data(
        [scipy.sparse.csr_matrix(GOOD_X[0]), np.ones((2, 3), dtype=np.uint8)]
    )
    assert all(scipy.sparse.isspmatrix_csr(x) and x.dtype == np.float64 for x in X)


def integer_batch(rng, task, n_sequences, dtype):
    """Sequences of ``dtype`` (pixels 0/1 for uint8 and bool, small signed integers else)."""
    lengths = rng.integers(1, 9, n_sequences)
    low, high = (0, 2) if dtype in (np.uint8, np.bool_) else (-3, 4)
    X = [rng.integers(low, high, (t, task.n_features)).astype(dtype) for t in lengths]
    Y = [rng.integers(0, task.n_labels, t) for t in lengths]
    return X, Y


def assert_same_labellings(got, want):
    assert len(got) == len(want)
    for mine, theirs in zip(got, want, strict=True):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("dtype", [np.uint8, np.bool_, np.int64, "mixed"])
@pytest.mark.parametrize("order", [1, 2])
def test_integer_sequences_give_the_results_of_their_float64_copies_bit_for_bit(dtype, order):
    # 80 sequences: batches large enough for the threaded paths; "mixed" stacks int8 and uint8
    # sequences as int16.
    rng = np.random.default_rng(8)
    task = ChainTask(4, 5, start_end=True, bias=True, order=order)
    X, Y = integer_batch(rng, task, 80, np.int8 if dtype == "mixed" else dtype)
    if dtype == "mixed":
        X = [x.astype(np.uint8) * 3 if k % 2 else x for k, x in enumerate(X)]
    X_float = [x.astype(np.float64) for x in X]
    Y_other = [rng.integers(0, task.n_labels, len(y)) for y in Y]
    w = rng.normal(size=task.size_joint_feature)

    checked, _ = task.check_data(X, Y)
    assert all(x is kept for x, kept in zip(checked, X, strict=True))
    assert_same_labellings(task.batch_argmax(X, w), task.batch_argmax(X_float, w))
    assert_same_labellings(
        task.batch_loss_augmented_argmax(X, Y, w), task.batch_loss_augmented_argmax(X_float, Y, w)
    )
    got, want = task.batch_joint_feature(X, Y_other), task.batch_joint_feature(X_float, Y_other)
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.data, want.data)
    np.testing.assert_array_equal(
        task.batch_score(X, Y_other, w), task.batch_score(X_float, Y_other, w)
    )
    if order == 1:
        assert_same_labellings(
            task.batch_slack_rescaled_argmax(X, Y, w),
            task.batch_slack_rescaled_argmax(X_float, Y, w),
        )
    for x, x_float, y in list(zip(X, X_float, Y_other, strict=True))[:5]:
        np.testing.assert_array_equal(task.joint_feature(x, y), task.joint_feature(x_float, y))
        for got, want in zip(
            task.sparse_joint_feature(x, y), task.sparse_joint_feature(x_float, y), strict=True
        ):
            np.testing.assert_array_equal(got, want)
        assert task.score(x, y, w) == task.score(x_float, y, w)
        np.testing.assert_array_equal(task.argmax(x, w), task.argmax(x_float, w))
        np.testing.assert_array_equal(
            task.loss_augmented_argmax(x, y, w), task.loss_augmented_argmax(x_float, y, w)
        )
        for got, want in zip(task.top_k(x, w, 3), task.top_k(x_float, w, 3), strict=True):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(task.max_marginals(x, w), task.max_marginals(x_float, w))


@pytest.mark.parametrize(
    ("learner", "options"),
    [
        (StructuredPerceptron, {"max_epochs": 5, "averaged": True}),
        (StructuredSVM, {"solver": "n-slack", "max_iter": 15}),
        (StructuredSVM, {"solver": "1-slack", "max_iter": 30}),
        (StructuredSVM, {"solver": "bcfw", "max_iter": 10}),
    ],
)
def test_a_fit_on_uint8_pixels_learns_the_weights_of_the_fit_on_their_float64_copies(
    learner, options
):
    rng = np.random.default_rng(9)
    task = ChainTask(3, 6)
    X, Y = integer_batch(rng, task, 70, np.uint8)
    X_float = [x.astype(np.float64) for x in X]
    fitted = []
    for data in (X, X_float):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fitted.append(learner(task, random_state=0, **options).fit(data, Y))
    np.testing.assert_array_equal(fitted[0].w_, fitted[1].w_)
    assert_same_labellings(fitted[0].predict(X), fitted[1].predict(X_float))


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"n_labels": 1, "n_features": 2}, "n_labels"),
        ({"n_labels": 2.0, "n_features": 2}, "n_labels"),
        ({"n_labels": 2, "n_features": 0}, "n_features"),
        ({"n_labels": 2, "n_features": 2, "transitions": "yes"}, "transitions"),
        ({"n_labels": 2, "n_features": 2, "start_end": 1}, "start_end"),
        ({"n_labels": 2, "n_features": 2, "bias": None}, "bias"),
        ({"n_labels": 2, "n_features": 2, "label_weights": [1.0]}, "label_weights"),
        ({"n_labels": 2, "n_features": 2, "label_weights": [1.0, -1.0]}, "label_weights"),
        ({"n_labels": 2, "n_features": 2, "label_weights": [1.0, np.inf]}, "label_weights"),
    ],
)
def test_bad_task_parameters_are_rejected(arguments, message):
    with pytest.raises(ValueError, match=message):
        ChainTask(**arguments)


@pytest.mark.parametrize(
    ("lengths", "message"),
    [
        ([2, 2], "lengths sum to 4 but X has 5"),
        ([3, 0, 2], "lengths must all be positive"),
        ([2.5, 2.5], "lengths must be a non-empty 1-D array of integers"),
        ([], "lengths must be a non-empty"),
    ],
)
def test_split_sequences_rejects_bad_lengths(lengths, message):
    with pytest.raises(ValueError, match=message):
        split_sequences(np.zeros((5, 2)), lengths)


def test_oracles_reject_a_weight_vector_of_the_wrong_size():
    task = ChainTask(2, 3)
    with pytest.raises(ValueError, match="w has length 5, expected size_joint_feature=10"):
        task.argmax(np.zeros((2, 3)), np.zeros(5))
    with pytest.raises(ValueError, match="w contains NaN"):
        nan_weights = np.full(task.size_joint_feature, np.nan)
        task.loss_augmented_argmax(np.zeros((2, 3)), [0, 1], nan_weights)


def test_losses_reject_outputs_of_different_lengths():
    task = ChainTask(2, 3)
    with pytest.raises(ValueError, match="y has shape"):
        task.loss([0, 1], [0])
    with pytest.raises(ValueError, match="as many labels as Y_true"):
        task.batch_loss([[0, 1]], [[0]])
    w = np.zeros(task.size_joint_feature)
    with pytest.raises(ValueError, match="one label per position"):
        task.batch_loss_augmented_argmax([np.zeros((2, 3))], [[0]], w)


# ------------------------------------------------------------------------ sparse sequences
SPARSE_FORMATS = ["csr", "csc", "coo", "lil"]


def sparse_copy(X, fmt):
    return [scipy.sparse.csr_matrix(x).asformat(fmt) for x in X]


def exact_batch(rng, task, n_sequences):
    """Sequences of small integers with many zeros, so every score is computed exactly."""
    lengths = rng.integers(1, 7, n_sequences)
    mask = [rng.random((t, task.n_features)) < 0.3 for t in lengths]
    X = [rng.integers(-3, 4, (t, task.n_features)) * m for t, m in zip(lengths, mask)]
    Y = [rng.integers(0, task.n_labels, t) for t in lengths]
    return [x.astype(float) for x in X], Y


@pytest.mark.parametrize("fmt", SPARSE_FORMATS)
@pytest.mark.parametrize("transitions", [False, True])
@pytest.mark.parametrize("start_end", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_sparse_sequences_give_exactly_the_dense_results(fmt, transitions, start_end, bias):
    rng = np.random.default_rng(5)
    task = random_task(rng, 4, 9, transitions, start_end, bias)
    task.label_weights = np.array([1.0, 2.0, 0.5, 0.25])
    X, Y = exact_batch(rng, task, 30)
    X_sparse, _ = task.check_data(sparse_copy(X, fmt), Y)
    assert all(scipy.sparse.isspmatrix_csr(x) and x.dtype == np.float64 for x in X_sparse)
    Y_other = [rng.integers(0, task.n_labels, len(y)) for y in Y]
    w = rng.integers(-4, 5, task.size_joint_feature) / 4.0

    dense_phi = task.batch_joint_feature(X, Y_other)
    sparse_phi = task.batch_joint_feature(X_sparse, Y_other)
    assert scipy.sparse.isspmatrix_csr(sparse_phi)
    np.testing.assert_array_equal(sparse_phi.toarray(), dense_phi.toarray())
    np.testing.assert_array_equal(sparse_phi.indices, dense_phi.indices)
    np.testing.assert_array_equal(
        task.batch_score(X_sparse, Y_other, w), task.batch_score(X, Y_other, w)
    )
    np.testing.assert_array_equal(task._unary_scores(X_sparse, w)[0], task._unary_scores(X, w)[0])
    for got, want in zip(task.batch_argmax(X_sparse, w), task.batch_argmax(X, w)):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(
        task.batch_loss_augmented_argmax(X_sparse, Y, w), task.batch_loss_augmented_argmax(X, Y, w)
    ):
        np.testing.assert_array_equal(got, want)
    for x_sparse, x, y in list(zip(X_sparse, X, Y_other))[:6]:
        phi = task.joint_feature(x_sparse, y)
        assert scipy.sparse.isspmatrix_csr(phi) and phi.shape == (1, task.size_joint_feature)
        np.testing.assert_array_equal(phi.toarray().ravel(), task.joint_feature(x, y))
        indices, values = task.sparse_joint_feature(x_sparse, y)
        np.testing.assert_array_equal(indices, np.flatnonzero(task.joint_feature(x, y)))
        np.testing.assert_array_equal(values, task.joint_feature(x, y)[indices])
        assert task.score(x_sparse, y, w) == task.score(x, y, w)
        np.testing.assert_array_equal(task.argmax(x_sparse, w), task.argmax(x, w))
        np.testing.assert_array_equal(
            task.loss_augmented_argmax(x_sparse, y, w), task.loss_augmented_argmax(x, y, w)
        )


def test_sparse_and_dense_agree_to_rounding_on_real_valued_features():
    rng = np.random.default_rng(6)
    task = random_task(rng, 5, 20, True, True, True)
    X, Y = random_batch(rng, task, 40)
    X = [x * (rng.random(x.shape) < 0.2) for x in X]
    X_sparse, _ = task.check_data(sparse_copy(X, "coo"), Y)
    w = rng.normal(size=task.size_joint_feature)
    # The joint features add the same terms in the same order: the same bits.
    np.testing.assert_array_equal(
        task.batch_joint_feature(X_sparse, Y).toarray(), task.batch_joint_feature(X, Y).toarray()
    )
    np.testing.assert_allclose(task.batch_score(X_sparse, Y, w), task.batch_score(X, Y, w))
    for got, want in zip(task.batch_argmax(X_sparse, w), task.batch_argmax(X, w)):
        np.testing.assert_array_equal(got, want)


def test_a_mixed_list_of_dense_and_sparse_sequences_is_held_as_sparse():
    rng = np.random.default_rng(7)
    task = ChainTask(3, 5, start_end=True)
    X, Y = exact_batch(rng, task, 6)
    mixed = [scipy.sparse.csc_matrix(x) if k % 2 else x for k, x in enumerate(X)]
    X_checked, _ = task.check_data(mixed, Y)
    assert all(scipy.sparse.isspmatrix_csr(x) for x in X_checked)
    w = rng.integers(-2, 3, task.size_joint_feature).astype(float)
    for batch in (mixed, X_checked):
        np.testing.assert_array_equal(
            task.batch_joint_feature(batch, Y).toarray(), task.batch_joint_feature(X, Y).toarray()
        )
        np.testing.assert_array_equal(task.batch_score(batch, Y, w), task.batch_score(X, Y, w))
        for got, want in zip(task.batch_argmax(batch, w), task.batch_argmax(X, w)):
            np.testing.assert_array_equal(got, want)


def test_check_data_does_not_touch_the_callers_sparse_matrices():
    x = scipy.sparse.csr_matrix(
        (np.array([1, 2, 3]), np.array([2, 0, 2]), np.array([0, 3])), shape=(1, 3)
    )
    (checked,), _ = ChainTask(2, 3).check_data([x])
    np.testing.assert_array_equal(checked.indices, [0, 2])
    np.testing.assert_array_equal(checked.data, [2.0, 4.0])
    np.testing.assert_array_equal(x.indices, [2, 0, 2])


SPARSE_GOOD_X = [scipy.sparse.csr_matrix(x) for x in GOOD_X]


@pytest.mark.parametrize(
    ("X", "message"),
    [
        (replaced(SPARSE_GOOD_X, 1, scipy.sparse.csr_matrix((1, 4))), r"X\[1\] has 4 features"),
        (replaced(SPARSE_GOOD_X, 0, scipy.sparse.csr_matrix((0, 3))), r"X\[0\] is an empty"),
        (
            replaced(SPARSE_GOOD_X, 2, scipy.sparse.csr_matrix(np.full((3, 3), np.inf))),
            r"X\[2\] contains NaN or infinite",
        ),
        (
            replaced(SPARSE_GOOD_X, 1, scipy.sparse.coo_array(np.ones(3))),
            r"X\[1\] must be a 2-D",
        ),
        (
            replaced(SPARSE_GOOD_X, 2, scipy.sparse.csr_matrix(np.ones((3, 3), dtype=complex))),
            r"X\[2\] must be a numeric",
        ),
        (replaced(GOOD_X, 1, scipy.sparse.csr_matrix((1, 2))), r"X\[1\] has 2 features"),
    ],
)
def test_check_data_names_the_bad_sparse_sequence(X, message):
    with pytest.raises(ValueError, match=message):
        ChainTask(2, 3).check_data(X)


def test_oracles_reject_non_finite_weights_where_they_read_them():
    task = ChainTask(2, 3, start_end=True)
    x = scipy.sparse.csr_matrix(np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]]))
    w = np.zeros(task.size_joint_feature)
    w[task.n_features + 2] = np.nan  # emission of label 1 for feature 2, which x has
    with pytest.raises(ValueError, match="w contains NaN"):
        task.argmax(x, w)
    w = np.zeros(task.size_joint_feature)
    w[-1] = np.inf  # an end weight
    with pytest.raises(ValueError, match="w contains NaN or infinite"):
        task.batch_score([x], [[0, 1]], w)
    w = np.zeros(task.size_joint_feature)
    w[0] = 1e308
    with pytest.raises(ValueError, match="overflow"), np.errstate(over="ignore"):
        task.argmax(1e10 * x.toarray(), w)


@pytest.mark.parametrize("density", [1.0, 0.05])
def test_emission_sums_add_in_position_order_on_every_path(density):
    # The batch's features are a sparse product; one sequence's compiled features sum by a dense
    # accumulator when it stores at least n_features entries and by sorting its entries
    # otherwise: each must add every column's terms in position order.
    rng = np.random.default_rng(11)
    task = ChainTask(3, 8)
    X = [rng.normal(size=(n, 8)) * (rng.random((n, 8)) < density) for n in (1, 4, 9, 30)]
    Y = [rng.integers(0, 3, len(x)) for x in X]
    phi = task.batch_joint_feature(X, Y).toarray()
    oracle = task.compiled_oracle(X, Y)
    for i, (row, x, y) in enumerate(zip(phi, X, Y, strict=True)):
        emissions = np.zeros((3, 8))
        for position, label in zip(x, y, strict=True):
            emissions[label] = emissions[label] + position
        np.testing.assert_array_equal(row[:24], emissions.ravel())
        compiled = np.zeros(task.size_joint_feature)
        indices, values = oracle.features(oracle.data, i, y)
        compiled[indices] = values
        np.testing.assert_array_equal(compiled[:24], emissions.ravel())


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    "options",
    [{}, {"order": 2}, {"transitions": False}, {"start_end": False, "bias": False},
     {"transitions": False, "start_end": False, "bias": False}],
)
def test_a_batchs_joint_features_are_the_compiled_oracles_bit_for_bit(options, sparse):
    rng = np.random.default_rng(12)
    task = ChainTask(4, 6, **options)
    X = [rng.normal(size=(n, 6)) * (rng.random((n, 6)) < 0.4) for n in rng.integers(1, 8, 40)]
    X = [scipy.sparse.csr_matrix(x) for x in X] if sparse else X
    Y = [rng.integers(0, 4, x.shape[0]) for x in X]
    batch = task.batch_joint_feature(X, Y)
    assert batch.has_canonical_format and batch.shape == (40, task.size_joint_feature)
    oracle = task.compiled_oracle(X, Y)
    for i, y in enumerate(Y):
        indices, values = oracle.features(oracle.data, i, y)
        np.testing.assert_array_equal(batch[i].indices, indices)
        np.testing.assert_array_equal(batch[i].data.view(np.int64), values.view(np.int64))
        single = task.sparse_joint_feature(X[i], y)
        assert single[0].dtype == np.int64
        np.testing.assert_array_equal(single[0], indices)
        np.testing.assert_array_equal(single[1], values)
