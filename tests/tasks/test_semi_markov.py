"""The semi-Markov task: decoding and loss-augmented decoding against every segmentation of
short inputs, scored by an independent joint feature; constraints, losses, the compiled oracle."""

import numpy as np
import pytest
import scipy.sparse

from structsvm import StructuredSVM, check_task
from tasks import SemiMarkovTask
from tests.tasks.compiled_checks import assert_same_one_slack_fit

K, D, L = 3, 4, 3


def every_segmentation(length, max_lengths):
    """Yield every segmentation of ``length`` tokens as a list of (start, stop, label)."""
    if length == 0:
        yield []
        return
    for label, longest in enumerate(max_lengths):
        for size in range(1, min(longest, length) + 1):
            for rest in every_segmentation(length - size, max_lengths):
                yield [(0, size, label)] + [(s + size, e + size, k) for s, e, k in rest]


def codes_of(segments, length):
    codes = np.empty(length, dtype=np.int64)
    for start, stop, label in segments:
        codes[start], codes[start + 1 : stop] = label, K + label
    return codes


def score_of(x, segments, w):
    """w·φ written out from the model's definition, segment by segment."""
    first, every, last = (w[b * K * D : (b + 1) * K * D].reshape(K, D) for b in range(3))
    lengths = w[3 * K * D : 3 * K * D + K * L].reshape(K, L)
    transitions = w[3 * K * D + K * L :].reshape(K, K)
    total = 0.0
    for n, (start, stop, label) in enumerate(segments):
        total += first[label] @ x[start] + last[label] @ x[stop - 1]
        total += sum(every[label] @ x[t] for t in range(start, stop))
        total += lengths[label, stop - start - 1]
        if n:
            total += transitions[segments[n - 1][2], label]
    return total


def hamming(true_segments, segments, length):
    return float(np.sum(codes_of(true_segments, length) != codes_of(segments, length)))


def segment_difference(true_segments, segments, length):
    return float(len(set(true_segments) ^ set(segments)))


LOSSES = {"hamming": hamming, "segments": segment_difference}


@pytest.fixture
def problem():
    rng = np.random.default_rng(3)
    max_lengths = [1, 3, 2]
    X = [rng.normal(size=(length, D)) for length in (1, 2, 3, 5, 6)]
    segmentations = [list(every_segmentation(len(x), max_lengths)) for x in X]
    truth = [s[rng.integers(len(s))] for s in segmentations]
    return rng, max_lengths, X, segmentations, truth


@pytest.mark.parametrize("loss", ["hamming", "segments"])
def test_decoding_finds_the_best_of_every_segmentation(problem, loss):
    rng, max_lengths, X, segmentations, truth = problem
    task = SemiMarkovTask(K, D, max_length=L, max_lengths=max_lengths, loss=loss)
    for _ in range(5):
        w = rng.normal(size=task.size_joint_feature)
        for x, candidates, true in zip(X, segmentations, truth, strict=True):
            length = len(x)
            scores = [score_of(x, s, w) for s in candidates]
            best = candidates[int(np.argmax(scores))]
            np.testing.assert_array_equal(task.argmax(x, w), codes_of(best, length))
            values = [LOSSES[loss](true, s, length) + score_of(x, s, w) for s in candidates]
            best = candidates[int(np.argmax(values))]
            augmented = task.loss_augmented_argmax(x, codes_of(true, length), w)
            np.testing.assert_array_equal(augmented, codes_of(best, length))


def test_joint_feature_and_losses_follow_the_segments(problem):
    rng, max_lengths, X, segmentations, truth = problem
    task = SemiMarkovTask(K, D, max_length=L, max_lengths=max_lengths)
    segments_task = SemiMarkovTask(K, D, max_length=L, max_lengths=max_lengths, loss="segments")
    w = rng.normal(size=task.size_joint_feature)
    for x, candidates, true in zip(X, segmentations, truth, strict=True):
        for segments in candidates[:20]:
            y = codes_of(segments, len(x))
            assert task.score(x, y, w) == pytest.approx(score_of(x, segments, w))
            assert task.segments(y) == segments
            y_true = codes_of(true, len(x))
            assert task.loss(y_true, y) == hamming(true, segments, len(x))
            assert segments_task.loss(y_true, y) == segment_difference(true, segments, len(x))
            assert segments_task.loss(y_true, y) <= segments_task.max_loss(y_true)
    Y = [codes_of(segments[0], len(x)) for x, segments in zip(X, segmentations, strict=True)]
    stacked = task.batch_joint_feature(X, Y)
    assert scipy.sparse.issparse(stacked) and stacked.shape == (len(X), task.size_joint_feature)
    for row, x, y in zip(stacked.toarray(), X, Y, strict=True):
        np.testing.assert_array_equal(row, task.joint_feature(x, y))


def test_two_neighbouring_segments_of_one_label_stay_apart():
    task = SemiMarkovTask(2, 1, max_length=2, loss="segments")
    one, two = np.array([1, 3]), np.array([1, 1])
    assert task.segments(one) == [(0, 2, 1)] and task.segments(two) == [(0, 1, 1), (1, 2, 1)]
    assert task.loss(one, two) == 3.0 and SemiMarkovTask(2, 1).loss(one, two) == 1.0


def test_no_segment_is_longer_than_its_label_allows():
    task = SemiMarkovTask(2, 1, max_length=3, max_lengths=[1, 3])
    w = np.zeros(task.size_joint_feature)
    w[task.size_joint_feature - 4 :] = 5.0  # transitions reward many segments...
    w[: 3 * 2] = [10.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # ...and label 0 everywhere
    y = task.argmax(np.ones((4, 1)), w)
    np.testing.assert_array_equal(y, [0, 0, 0, 0])
    with pytest.raises(ValueError, match="longer than 1 tokens"):
        task.check_data([np.ones((2, 1))], [np.array([0, 2])])
    with pytest.raises(ValueError, match="no segment of label k begins"):
        task.check_data([np.ones((2, 1))], [np.array([2, 3])])


@pytest.mark.parametrize("loss", ["hamming", "segments"])
def test_check_task_passes_on_dense_and_sparse_inputs(problem, loss):
    _, max_lengths, X, _, truth = problem
    task = SemiMarkovTask(K, D, max_length=L, max_lengths=max_lengths, loss=loss)
    Y = [codes_of(t, len(x)) for x, t in zip(X, truth, strict=True)]
    for inputs in (X, [scipy.sparse.csr_matrix(x) for x in X]):
        report = check_task(task, inputs, Y)
        assert report.ok, report


def test_the_compiled_oracle_trains_as_the_python_methods(problem):
    _, max_lengths, X, _, truth = problem
    task = SemiMarkovTask(K, D, max_length=L, max_lengths=max_lengths)
    Y = [codes_of(t, len(x)) for x, t in zip(X, truth, strict=True)]
    assert task.compiled_oracle(*task.check_data(X, Y)) is not None
    assert_same_one_slack_fit(task, *task.check_data(X, Y), C=1.0)


def test_a_structural_svm_learns_segments_a_chain_cannot_weigh():
    # Two-token names are label 1, one-token names label 0: only the length tells them apart.
    task = SemiMarkovTask(3, 2, max_length=2, max_lengths=[1, 2, 1], loss="segments")
    name, other = [1.0, 0.0], [0.0, 1.0]
    X = [np.array([other, name, name, other]), np.array([name, other]), np.array([name, name])]
    Y = [np.array([2, 1, 4, 2]), np.array([0, 2]), np.array([1, 4])]
    model = StructuredSVM(task, C=10.0, tol=1e-4).fit(X, Y)
    for x, y in zip(X, Y, strict=True):
        np.testing.assert_array_equal(model.predict([x])[0], y)
