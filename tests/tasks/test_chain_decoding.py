"""Second-order chains, constrained decoding, k-best lists and max-marginals against enumeration.

The ground truth is brute force: every labelling of a short sequence (``all_labelings``), kept
when it keeps the constraints (``allowed_labelings``), scored straight from the documented
weight layout (``chain_scores``).
"""

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

import tasks._chain
from structsvm import StructuredSVM, Task, check_task
from tasks import ChainTask, bio_constraints
from tests.references import allowed_labelings, chain_losses, chain_scores


def random_constrained_task(rng, n_labels, n_features, order, density, **options):
    """A task with random weights per label and about ``density`` of everything forbidden."""
    return ChainTask(
        n_labels,
        n_features,
        order=order,
        label_weights=rng.uniform(0.2, 3.0, n_labels),
        forbidden_transitions=rng.random((n_labels, n_labels)) < density,
        forbidden_first=rng.random(n_labels) < density,
        forbidden_last=rng.random(n_labels) < density,
        **options,
    )


def enumerated_order(scores, labelings):
    """Indices of the labellings by decreasing score, equal scores in lexicographic order."""
    return sorted(range(len(scores)), key=lambda r: (-scores[r], tuple(labelings[r])))


# ------------------------------------------------------------------------ oracles vs brute force
@settings(max_examples=60, deadline=None)
@given(
    order=st.sampled_from([1, 2]),
    n_labels=st.integers(2, 4),
    length=st.integers(1, 6),
    density=st.sampled_from([0.0, 0.2, 0.5]),
    transitions=st.booleans(),
    start_end=st.booleans(),
    bias=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_oracles_top_k_and_max_marginals_match_enumeration_of_the_allowed_labellings(
    order, n_labels, length, density, transitions, start_end, bias, seed
):
    rng = np.random.default_rng(seed)
    task = random_constrained_task(
        rng, n_labels, 2, order, density, transitions=transitions, start_end=start_end, bias=bias
    )
    x = rng.normal(size=(length, 2))
    w = rng.normal(size=task.size_joint_feature)
    y_true = rng.integers(0, n_labels, length)
    labelings = allowed_labelings(task, length)
    if len(labelings) == 0:
        for oracle in (
            lambda: task.argmax(x, w),
            lambda: task.loss_augmented_argmax(x, y_true, w),
            lambda: task.top_k(x, w, 3),
            lambda: task.max_marginals(x, w),
        ):
            with pytest.raises(ValueError, match=r"no labelling of .* keeps the task's"):
                oracle()
        return
    scores = chain_scores(task, x, labelings, w)
    allowed = {tuple(y) for y in labelings}

    y_hat = task.argmax(x, w)
    assert tuple(y_hat) in allowed
    assert task.score(x, y_hat, w) == pytest.approx(scores.max(), abs=1e-9)
    y_bad = task.loss_augmented_argmax(x, y_true, w)
    assert tuple(y_bad) in allowed
    augmented = chain_losses(task, y_true, labelings) + scores
    assert task.loss(y_true, y_bad) + task.score(x, y_bad, w) == pytest.approx(
        augmented.max(), abs=1e-9
    )

    k = int(rng.integers(1, 12))
    best, best_scores = task.top_k(x, w, k)
    assert best.shape == (min(k, len(labelings)), length)
    assert len({tuple(y) for y in best}) == len(best) and all(tuple(y) in allowed for y in best)
    np.testing.assert_allclose(best_scores, np.sort(scores)[::-1][: len(best)], atol=1e-9)
    np.testing.assert_allclose(best_scores, chain_scores(task, x, best, w), atol=1e-9)

    marginals = task.max_marginals(x, w)
    expected = np.full((length, n_labels), -np.inf)
    for t in range(length):
        np.maximum.at(expected[t], labelings[:, t], scores)
    np.testing.assert_allclose(marginals, expected, atol=1e-9)


@pytest.mark.parametrize("order", [1, 2])
def test_ties_go_to_the_lexicographically_first_labelling_in_every_decoder(order):
    # Small integer weights and features make every score exact, so ties are real ties.
    rng = np.random.default_rng(11)
    for _ in range(120):
        n_labels = int(rng.choice([2, 3]))
        task = random_constrained_task(
            rng, n_labels, 2, order, float(rng.choice([0.0, 0.3])),
            start_end=bool(rng.integers(2)),
        )
        length = int(rng.integers(1, 6))
        labelings = allowed_labelings(task, length)
        if len(labelings) == 0:
            continue
        x = rng.integers(-1, 2, size=(length, 2)).astype(float)
        w = rng.integers(-1, 2, size=task.size_joint_feature).astype(float)
        y_true = rng.integers(0, n_labels, length)
        np.testing.assert_array_equal(task.argmax(x, w), Task.argmax(task, x, w))
        np.testing.assert_array_equal(
            task.loss_augmented_argmax(x, y_true, w),
            Task.loss_augmented_argmax(task, x, y_true, w),
        )
        scores = chain_scores(task, x, labelings, w)
        ranked = labelings[enumerated_order(scores, labelings)]
        best, best_scores = task.top_k(x, w, 7)
        np.testing.assert_array_equal(best, ranked[:7])
        np.testing.assert_array_equal(best_scores, np.sort(scores)[::-1][:7])


# ------------------------------------------------------------------------ the second order
def test_second_order_layout_by_hand():
    task = ChainTask(2, 1, order=2, start_end=True)
    x = np.array([[1.0], [2.0], [3.0], [4.0]])
    phi = task.joint_feature(x, [1, 0, 1, 1])
    np.testing.assert_array_equal(phi[:2], [2, 8])  # feature sums per label
    np.testing.assert_array_equal(phi[2:6], [0, 1, 1, 1])  # pairs 1->0, 0->1, 1->1
    triples = np.zeros((2, 2, 2))
    triples[1, 0, 1] = triples[0, 1, 1] = 1
    np.testing.assert_array_equal(phi[6:14], triples.ravel())  # (1, 0, 1) and (0, 1, 1)
    np.testing.assert_array_equal(phi[14:18], [0, 1, 0, 1])  # first label 1, last label 1
    assert task.size_joint_feature == len(phi) == 2 + 4 + 8 + 4


def test_triples_can_overrule_pairs_and_emissions():
    # Emissions favour label 0 everywhere and pairs are free, but three 0s in a row cost 5.
    task = ChainTask(2, 1, order=2)
    w = np.zeros(task.size_joint_feature)
    w[0] = 1.0
    w[task._triples_at] = -5.0  # triple (0, 0, 0)
    np.testing.assert_array_equal(task.argmax(np.ones((5, 1)), w), [0, 0, 1, 0, 0])
    first_order = ChainTask(2, 1)
    np.testing.assert_array_equal(
        first_order.argmax(np.ones((5, 1)), np.r_[1.0, 0.0, np.zeros(4)]), [0] * 5
    )


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("sparse", [False, True])
def test_batches_equal_single_examples_and_dense_equals_sparse(order, sparse):
    rng = np.random.default_rng(12)
    task = random_constrained_task(rng, 4, 6, order, 0.15, start_end=True, bias=True)
    allowed = {length: allowed_labelings(task, length) for length in range(1, 7)}
    lengths = [t for t in rng.integers(1, 7, 25) if len(allowed[t])]
    X = [(rng.integers(-3, 4, (t, 6)) * (rng.random((t, 6)) < 0.4)).astype(float) for t in lengths]
    X_used = [scipy.sparse.csr_matrix(x) for x in X] if sparse else X
    Y = [allowed[t][rng.integers(len(allowed[t]))] for t in lengths]
    w = rng.integers(-4, 5, task.size_joint_feature) / 4.0

    phi = task.batch_joint_feature(X_used, Y).toarray()
    np.testing.assert_array_equal(phi, task.batch_joint_feature(X, Y).toarray())
    np.testing.assert_array_equal(phi @ w, task.batch_score(X_used, Y, w))
    for k, y in enumerate(Y):
        dense_phi = task.joint_feature(X[k], y)
        np.testing.assert_array_equal(phi[k], dense_phi)
        np.testing.assert_allclose(dense_phi @ w, chain_scores(task, X[k], y[np.newaxis], w))
    for got, x in zip(task.batch_argmax(X_used, w), X, strict=True):
        np.testing.assert_array_equal(got, task.argmax(x, w))
    for got, x, y in zip(task.batch_loss_augmented_argmax(X_used, Y, w), X, Y, strict=True):
        np.testing.assert_array_equal(got, task.loss_augmented_argmax(x, y, w))
    for x_used, x in list(zip(X_used, X, strict=True))[:5]:
        np.testing.assert_array_equal(task.top_k(x_used, w, 4)[0], task.top_k(x, w, 4)[0])
        np.testing.assert_array_equal(task.max_marginals(x_used, w), task.max_marginals(x, w))


def test_a_batch_decoded_in_short_runs_gets_the_labellings_of_one_run(monkeypatch):
    rng = np.random.default_rng(13)
    task = ChainTask(3, 5)
    X = [rng.normal(size=(t, 5)) for t in rng.integers(1, 9, 70)]
    w = rng.normal(size=task.size_joint_feature)
    whole = task.batch_argmax(X, w)
    # Runs of at most 8 positions of 5 float64 features: one to eight sequences each.
    monkeypatch.setattr(tasks._chain, "STACKED_BYTES", 8 * 5 * 8)
    assert len(tasks._chain._stacked_runs(X, 5)) > 1
    for mine, theirs in zip(task.batch_argmax(X, w), whole, strict=True):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("order", [1, 2])
def test_check_task_passes_with_second_order_and_constraints(order, label_sequences):
    X, Y = label_sequences(12, 3, (1, 5), 0.5, seed=order)
    task = ChainTask(
        3, X[0].shape[1], order=order, start_end=True, bias=True,
        forbidden_transitions=[(2, 0)], forbidden_first=[1],
    )
    Y = [_repaired(task, y) for y in Y]
    assert check_task(task, X, Y, max_examples=12).ok


def _repaired(task, y):
    """Make a label sequence keep the task's constraints (first label 0, 2 -> 0 becomes 2 -> 2)."""
    y = np.array(y)
    if task.forbidden_first[y[0]]:
        y[0] = 0
    for t in range(1, len(y)):
        if task.forbidden_transitions[y[t - 1], y[t]]:
            y[t] = y[t - 1]
    return y


# ------------------------------------------------------------------------ top_k and max_marginals
def test_top_k_lists_every_labelling_when_k_exceeds_their_number():
    task = ChainTask(2, 1, forbidden_transitions=np.array([[False, True], [False, False]]))
    # With 0 -> 1 forbidden, the allowed labellings of length 3 are 000, 100, 110, 111.
    best, scores = task.top_k(np.zeros((3, 1)), np.zeros(task.size_joint_feature), 10)
    np.testing.assert_array_equal(best, [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]])
    np.testing.assert_array_equal(scores, np.zeros(4))


def test_max_marginals_of_a_forbidden_first_label_are_minus_infinity():
    task = ChainTask(3, 1, forbidden_first=[2])
    marginals = task.max_marginals(np.ones((3, 1)), np.ones(task.size_joint_feature))
    assert marginals[0, 2] == -np.inf
    assert np.all(np.isfinite(marginals[1:]))


@pytest.mark.parametrize("k", [0, -1, 2.0, "3"])
def test_top_k_rejects_a_bad_k(k):
    task = ChainTask(2, 1)
    with pytest.raises(ValueError, match="k"):
        task.top_k(np.zeros((2, 1)), np.zeros(task.size_joint_feature), k)


def test_top_k_and_max_marginals_check_x_and_w():
    task = ChainTask(2, 3)
    w = np.zeros(task.size_joint_feature)
    with pytest.raises(ValueError, match=r"x has 2 features"):
        task.top_k(np.zeros((2, 2)), w, 1)
    with pytest.raises(ValueError, match="x is an empty sequence"):
        task.max_marginals(np.zeros((0, 3)), w)
    with pytest.raises(ValueError, match="w has length 3"):
        task.max_marginals(np.zeros((2, 3)), w[:3])


# ------------------------------------------------------------------------ constraints
@pytest.mark.parametrize(
    ("y", "message"),
    [
        ([0, 2, 1], r"Y\[1\] has the forbidden transition 2 -> 1 at positions 1, 2"),
        ([1, 0], r"Y\[1\] starts with the forbidden first label 1"),
        ([0, 0, 2], r"Y\[1\] ends with the forbidden last label 2"),
    ],
)
def test_training_labels_that_break_the_constraints_are_rejected(y, message):
    task = ChainTask(3, 1, forbidden_transitions=[(2, 1)], forbidden_first=[1], forbidden_last=[2])
    X = [np.zeros((2, 1)), np.zeros((len(y), 1))]
    task.check_data(X, [[0, 1], [0] * len(y)])  # the same shapes, allowed
    with pytest.raises(ValueError, match=message):
        task.check_data(X, [[0, 1], y])


def test_fitting_on_labels_that_break_the_constraints_fails_before_training():
    task = ChainTask(2, 1, forbidden_transitions=[(1, 0)])
    model = StructuredSVM(task, solver="bcfw")
    with pytest.raises(ValueError, match=r"Y\[0\] has the forbidden transition 1 -> 0"):
        model.fit([np.ones((3, 1))], [[0, 1, 0]])
    assert not hasattr(model, "w_")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"order": 3}, "order must be 1 or 2"),
        ({"order": True}, "order must be 1 or 2"),
        ({"order": 2.0}, "order must be 1 or 2"),
        ({"forbidden_transitions": np.zeros((2, 2), dtype=bool)}, r"shape \(3, 3\)"),
        ({"forbidden_transitions": [(0, 3)]}, "forbidden_transitions names labels outside"),
        ({"forbidden_transitions": [0, 1]}, "list of \\(previous, next\\) integer label pairs"),
        ({"forbidden_transitions": [(0.5, 1)]}, "forbidden_transitions must be"),
        ({"forbidden_first": [True, False]}, r"forbidden_first as a boolean mask"),
        ({"forbidden_last": [-1]}, "forbidden_last names labels outside"),
        ({"forbidden_last": [[0]]}, "forbidden_last must be"),
    ],
)
def test_bad_order_and_constraints_are_rejected(arguments, message):
    with pytest.raises(ValueError, match=message):
        ChainTask(3, 2, **arguments)


def test_constraints_as_pairs_and_as_masks_are_the_same():
    mask = np.zeros((3, 3), dtype=bool)
    mask[0, 2] = mask[1, 1] = True
    by_pairs = ChainTask(3, 1, forbidden_transitions=[(0, 2), (1, 1)], forbidden_first=[2])
    by_masks = ChainTask(3, 1, forbidden_transitions=mask, forbidden_first=[False, False, True])
    np.testing.assert_array_equal(by_pairs.forbidden_transitions, by_masks.forbidden_transitions)
    np.testing.assert_array_equal(by_pairs.forbidden_first, by_masks.forbidden_first)
    assert not by_pairs.forbidden_last.any()


# ------------------------------------------------------------------------ BIO chunk tags
TAGS = np.array(["B-NP", "B-VP", "I-NP", "I-VP", "O"], dtype=object)


def bio_valid(tags):
    """Whether a tag sequence is valid BIO, read straight from the scheme's definition."""
    previous = "O"
    for tag in tags:
        if tag.startswith("I-") and previous[2:] != tag[2:]:
            return False
        previous = tag
    return True


def test_bio_constraints_forbid_exactly_the_invalid_tag_sequences():
    constraints = bio_constraints(TAGS)
    task = ChainTask(len(TAGS), 1, **constraints)
    assert constraints["forbidden_transitions"][4, 2]  # O -> I-NP
    assert constraints["forbidden_transitions"][3, 2]  # I-VP -> I-NP
    assert not constraints["forbidden_transitions"][0, 2]  # B-NP -> I-NP
    kept = {tuple(y) for y in allowed_labelings(task, 3)}
    for y in np.ndindex(*(len(TAGS),) * 3):
        assert (y in kept) == bio_valid(TAGS[list(y)])


def test_bio_decoding_never_returns_an_invalid_tag_sequence():
    rng = np.random.default_rng(13)
    task = ChainTask(len(TAGS), 4, **bio_constraints(TAGS))
    unconstrained = ChainTask(len(TAGS), 4)
    X = [rng.normal(size=(int(t), 4)) for t in rng.integers(1, 12, 40)]
    w = 3 * rng.normal(size=task.size_joint_feature)
    assert not all(bio_valid(TAGS[y]) for y in unconstrained.batch_argmax(X, w))
    assert all(bio_valid(TAGS[y]) for y in task.batch_argmax(X, w))
    for x in X[:10]:
        assert all(bio_valid(TAGS[y]) for y in task.top_k(x, w, 5)[0])


def test_bio_constraints_reject_tags_outside_the_scheme():
    with pytest.raises(ValueError, match="'X-NP'"):
        bio_constraints(["B-NP", "X-NP"])
    with pytest.raises(ValueError, match="'I-'"):
        bio_constraints(["I-"])
