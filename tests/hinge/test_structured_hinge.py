"""The structured hinge of given part scores: its value, subgradient and argmax by enumeration."""

import itertools

import numpy as np
import pytest

from structsvm.hinge import decode, perceptron_loss, structured_hinge
from tasks.structures import (
    ChainStructure,
    DependencyStructure,
    GraphStructure,
    MulticlassStructure,
    SegmentStructure,
)
from tests.references import every_tree


def chain_score(unary, transitions, y):
    pairs = itertools.pairwise(y)
    return unary[np.arange(len(y)), y].sum() + sum(transitions[a, b] for a, b in pairs)


def graph_score(unary, pairwise, edges, y):
    return unary[np.arange(len(y)), y].sum() + sum(
        pairwise[e, y[u], y[v]] for e, (u, v) in enumerate(edges)
    )


def enumerated_max(score, n_nodes, n_states, truth, augmented=True):
    """Return max_y [Δ(truth, y) + score(y)] over all labellings, and the first maximiser."""
    best, best_y = -np.inf, None
    for y in itertools.product(range(n_states), repeat=n_nodes):
        y = np.array(y)
        value = score(y) + (np.sum(y != truth) if augmented else 0.0)
        if value > best:
            best, best_y = value, y
    return best, best_y


@pytest.mark.parametrize("augmented", [True, False])
def test_the_chain_hinge_and_subgradient_are_those_of_enumeration(chain_batch, augmented):
    unary, transitions, truth, mask, lengths = chain_batch
    loss = structured_hinge if augmented else perceptron_loss
    result = loss(ChainStructure(3), (unary, transitions), truth, mask)
    for k, length in enumerate(lengths):
        u, y = unary[k, :length], truth[k, :length]
        best, best_y = enumerated_max(
            lambda z, u=u: chain_score(u, transitions, z), length, 3, y, augmented
        )
        assert result.losses[k] == pytest.approx(best - chain_score(u, transitions, y))
        np.testing.assert_array_equal(result.labels[k, :length], best_y)
        expected_unary = np.zeros((4, 3))
        expected_unary[np.arange(length), best_y] += 1
        expected_unary[np.arange(length), y] -= 1
        np.testing.assert_allclose(result.gradients[0][k], expected_unary)
        expected_transitions = np.zeros((3, 3))
        np.add.at(expected_transitions, (best_y[:-1], best_y[1:]), 1)
        np.add.at(expected_transitions, (y[:-1], y[1:]), -1)
        np.testing.assert_allclose(result.gradients[1][k], expected_transitions)


def test_per_example_transitions_decode_each_chain_with_its_own(chain_batch):
    unary, _, truth, mask, _ = chain_batch
    rng = np.random.default_rng(4)
    per_example = rng.normal(size=(3, 3, 3))
    result = structured_hinge(ChainStructure(3), (unary, per_example), truth, mask)
    for k in range(3):
        alone = structured_hinge(
            ChainStructure(3), (unary[k : k + 1], per_example[k]), truth[k : k + 1],
            mask[k : k + 1],
        )
        assert result.losses[k] == pytest.approx(alone.losses[0])


def test_the_hinge_is_the_perceptron_loss_plus_at_least_zero_and_the_truth_decodes_to_zero():
    rng = np.random.default_rng(5)
    structure = ChainStructure(4)
    unary, transitions = rng.normal(size=(6, 5, 4)), rng.normal(size=(4, 4))
    truth = decode(structure, (unary, transitions))
    assert np.all(perceptron_loss(structure, (unary, transitions), truth).losses == 0)
    hinge = structured_hinge(structure, (unary, transitions), truth).losses
    assert np.all(hinge >= 0)


def test_the_multiclass_hinge_is_crammer_and_singers():
    rng = np.random.default_rng(6)
    scores, truth = rng.normal(size=(8, 5)), rng.integers(0, 5, size=8)
    result = structured_hinge(MulticlassStructure(5), (scores,), truth)
    rival = scores + 1.0
    rival[np.arange(8), truth] = scores[np.arange(8), truth]
    expected = rival.max(axis=1) - scores[np.arange(8), truth]
    np.testing.assert_allclose(result.losses, expected)
    np.testing.assert_array_equal(result.labels, np.argmax(rival, axis=1))


def test_the_graph_hinge_on_a_tree_is_that_of_enumeration():
    rng = np.random.default_rng(7)
    edges = np.array([[0, 1], [1, 2], [1, 3]])
    unary, pairwise = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 3, 3, 3))
    truth = rng.integers(0, 3, size=(2, 4))
    result = structured_hinge(GraphStructure(edges, 3), (unary, pairwise), truth)
    for k in range(2):
        def score(y, k=k):
            return graph_score(unary[k], pairwise[k], edges, y)

        best, best_y = enumerated_max(score, 4, 3, truth[k])
        assert result.losses[k] == pytest.approx(best - score(truth[k]))
        np.testing.assert_array_equal(result.labels[k], best_y)


@pytest.mark.parametrize(
    ("structure", "shapes", "truth"),
    [
        (ChainStructure(3), [(2, 5, 3), (3, 3)], np.array([[0, 2, 1, 1, 0], [2, 2, 0, 1, 1]])),
        (MulticlassStructure(4), [(3, 4)], np.array([0, 3, 1])),
        (GraphStructure([[0, 1], [1, 2]], 3), [(2, 3, 3), (2, 3, 3)], np.array([[0, 1, 2]] * 2)),
        (DependencyStructure(), [(2, 4, 4)], np.array([[2, 0, 2], [0, 1, 2]])),
        (SegmentStructure(2, 3), [(2, 4, 6), (2, 3), (2, 2)], np.array([[0, 2, 1, 3]] * 2)),
    ],
)
def test_the_subgradient_matches_finite_differences_at_a_generic_point(structure, shapes, truth):
    rng = np.random.default_rng(8)
    scores = [rng.normal(size=shape) for shape in shapes]
    directions = [rng.normal(size=shape) for shape in shapes]
    result = structured_hinge(structure, scores, truth)
    step = 1e-6

    def total(sign):
        moved = [s + sign * step * d for s, d in zip(scores, directions)]
        return structured_hinge(structure, moved, truth).losses.sum()

    slope = (total(1) - total(-1)) / (2 * step)
    predicted = sum(
        (g * d).sum() for g, d in zip(result.gradients, directions)
    )
    assert slope == pytest.approx(predicted, abs=1e-6)


def test_the_hinge_of_a_linear_chain_is_the_structural_svms_slack_and_its_gradient_is_phi(
    linear_chain_problem,
):
    # The bridge: unary scores X E^T and transitions T from w are the chain task's w · φ.
    task, X, Y, padded, truth, mask = linear_chain_problem
    w = np.random.default_rng(12).normal(size=task.size_joint_feature)
    emissions, transitions = w[:12].reshape(3, 4), w[12:].reshape(3, 3)
    result = structured_hinge(
        ChainStructure(3), (padded @ emissions.T, transitions), truth, mask
    )
    for k, (x, y) in enumerate(zip(X, Y)):
        y_hat = task.loss_augmented_argmax(x, y, w)
        difference = task.joint_feature(x, y_hat) - task.joint_feature(x, y)
        assert result.losses[k] == pytest.approx(task.loss(y, y_hat) + w @ difference)
        gradient = np.concatenate([
            (result.gradients[0][k].T @ padded[k]).ravel(), result.gradients[1][k].ravel()
        ])
        np.testing.assert_allclose(gradient, difference, atol=1e-12)


def test_at_a_fitted_structural_svms_weights_its_primal_is_half_the_norm_plus_c_times_the_hinges(
    linear_chain_problem,
):
    from structsvm import StructuredSVM

    task, X, Y, padded, truth, mask = linear_chain_problem
    svm = StructuredSVM(task, C=0.5, max_iter=3, solver="n-slack")
    with pytest.warns(Warning):
        svm.fit(X, Y)
    emissions, transitions = svm.w_[:12].reshape(3, 4), svm.w_[12:].reshape(3, 3)
    hinges = structured_hinge(
        ChainStructure(3), (padded @ emissions.T, transitions), truth, mask
    ).losses
    primal = 0.5 * svm.w_ @ svm.w_ + 0.5 * hinges.sum()
    assert primal == pytest.approx(svm.primal_objective_, rel=1e-10)


@pytest.mark.parametrize(
    ("mask", "message"),
    [
        (np.array([[True, False, True]]), "prefix"),
        (np.array([[False, False, False]]), "at least one"),
        (np.ones((1, 4), dtype=bool), "shape"),
    ],
)
def test_a_mask_that_is_not_a_prefix_of_each_row_is_refused(mask, message):
    rng = np.random.default_rng(10)
    with pytest.raises(ValueError, match=message):
        structured_hinge(
            ChainStructure(2), (rng.normal(size=(1, 3, 2)), np.zeros((2, 2))), [[0, 1, 0]], mask
        )


def test_score_arrays_of_the_wrong_number_of_axes_are_refused():
    with pytest.raises(ValueError, match="axes"):
        structured_hinge(ChainStructure(2), (np.zeros((1, 1, 3, 2)), np.zeros((2, 2))), [[0]])



@pytest.mark.parametrize(
    ("structure", "scores"),
    [
        (MulticlassStructure(3), (np.zeros((2, 3)),)),
        (GraphStructure([[0, 1]], 2), (np.zeros((2, 2, 2)), np.zeros((1, 2, 2)))),
    ],
)
def test_structures_without_variable_lengths_refuse_a_mask(structure, scores):
    with pytest.raises(ValueError, match="no mask"):
        structured_hinge(structure, scores, np.zeros((2, 2), dtype=int), np.ones((2, 2), bool))


def test_a_loss_matrix_sets_the_multiclass_margin():
    loss_matrix = np.array([[0.0, 2.0], [0.5, 0.0]])
    result = structured_hinge(
        MulticlassStructure(2, loss_matrix), (np.zeros((2, 2)),), np.array([0, 1])
    )
    np.testing.assert_allclose(result.losses, [2.0, 0.5])
    np.testing.assert_array_equal(result.labels, [1, 0])


@pytest.mark.parametrize(("decoder", "projective"), [("eisner", True), ("chu-liu-edmonds", False)])
def test_the_tree_hinge_of_sentences_of_different_lengths_is_that_of_enumeration(
    decoder, projective
):
    rng = np.random.default_rng(12)
    lengths = np.array([4, 2, 3])
    arcs = rng.normal(size=(3, 5, 5))
    truth = np.array([[2, 0, 2, 3], [0, 1, 0, 0], [3, 3, 0, 0]])
    mask = np.arange(4) < lengths[:, None]
    result = structured_hinge(DependencyStructure(decoder), (arcs,), truth, mask=mask)
    for k, n in enumerate(lengths):
        def value(heads, k=k, n=n):
            score = sum(arcs[k, h, d] for d, h in enumerate(heads, start=1))
            return score + np.sum(heads != truth[k, :n])

        best = max(every_tree(n, projective), key=value)
        true_score = sum(arcs[k, h, d] for d, h in enumerate(truth[k, :n], start=1))
        assert result.losses[k] == pytest.approx(value(best) - true_score)
        np.testing.assert_array_equal(result.labels[k, :n], best)
        expected = np.zeros((5, 5))
        expected[best, np.arange(1, n + 1)] += 1.0
        expected[truth[k, :n], np.arange(1, n + 1)] -= 1.0
        np.testing.assert_array_equal(result.gradients[0][k], expected)


def every_segmentation(length, n_labels, max_length):
    """Yield the (start, stop, label) segments of every segmentation of ``length`` tokens."""
    if length == 0:
        yield []
        return
    for size in range(1, min(max_length, length) + 1):
        for label in range(n_labels):
            for rest in every_segmentation(length - size, n_labels, max_length):
                yield [(0, size, label)] + [(s + size, e + size, k) for s, e, k in rest]


def segment_codes(segments, length, n_labels):
    codes = np.empty(length, dtype=np.int64)
    for start, stop, label in segments:
        codes[start], codes[start + 1 : stop] = label, n_labels + label
    return codes


@pytest.mark.parametrize("segment_loss", [False, True])
def test_the_segment_hinge_of_sequences_of_different_lengths_is_that_of_enumeration(
    segment_loss,
):
    rng = np.random.default_rng(13)
    K, L, lengths = 2, 3, np.array([4, 2, 3])
    tokens, per_length = rng.normal(size=(3, 4, 3 * K)), rng.normal(size=(K, L))
    transitions = rng.normal(size=(K, K))
    truth = np.array([[0, 2, 1, 3], [1, 0, 0, 0], [1, 3, 3, 0]])
    mask = np.arange(4) < lengths[:, None]
    structure = SegmentStructure(K, L, segment_loss=segment_loss)
    result = structured_hinge(structure, (tokens, per_length, transitions), truth, mask=mask)
    for k, n in enumerate(lengths):
        def score(segments, k=k):
            total = sum(
                tokens[k, s, label] + tokens[k, s:e, K + label].sum()
                + tokens[k, e - 1, 2 * K + label] + per_length[label, e - s - 1]
                for s, e, label in segments
            )
            return total + sum(
                transitions[a[2], b[2]] for a, b in itertools.pairwise(segments)
            )

        true_segments = next(
            segments for segments in every_segmentation(n, K, L)
            if np.array_equal(segment_codes(segments, n, K), truth[k, :n])
        )

        def loss(segments, true_segments=true_segments, k=k, n=n):
            if segment_loss:
                return len(set(segments) ^ set(true_segments))
            return np.sum(segment_codes(segments, n, K) != truth[k, :n])

        best = max(every_segmentation(n, K, L), key=lambda y: score(y) + loss(y))
        assert result.losses[k] == pytest.approx(
            score(best) + loss(best) - score(true_segments)
        )
