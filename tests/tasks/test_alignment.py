"""AlignmentTask: Gotoh's global and local aligners against every alignment of short sequences."""

import itertools

import numpy as np
import pytest

from structsvm import StructuredSVM, check_task
from tasks import PROTEIN_ALPHABET, AlignmentTask, SequencePair, blosum62
from tests.tasks.compiled_checks import assert_compiled_oracle_answers_as_python

MODES = ("global", "local")


def every_alignment(n, m):
    """Every set of aligned pairs of sequences of lengths n and m, as partner arrays."""
    for size in range(min(n, m) + 1):
        for rows in itertools.combinations(range(n), size):
            for columns in itertools.combinations(range(m), size):
                partners = np.full(n, -1)
                partners[list(rows)] = columns
                yield partners


def alignment_score(x, partners, substitution, gaps, global_mode):
    """The score of an alignment as a biologist computes it: pairs, then every gap's cost.

    ``gaps`` are the weights (open, extend, end open, end extend) of a gap of k residues,
    scored ``open + k extend``; local alignment does not score end gaps.
    """
    gap_open, gap_extend, end_open, end_extend = gaps
    pairs = [(r, c) for r, c in enumerate(partners) if c >= 0]
    score = sum(substitution[x.a[r], x.b[c]] for r, c in pairs)
    bounds = [(-1, -1), *pairs, (len(x.a), len(x.b))]
    for k, ((r0, c0), (r1, c1)) in enumerate(itertools.pairwise(bounds)):
        at_end = k == 0 or k == len(bounds) - 2
        if at_end and not global_mode:
            continue
        opening, extension = (end_open, end_extend) if at_end else (gap_open, gap_extend)
        for gapped in (r1 - r0 - 1, c1 - c0 - 1):
            if gapped > 0:
                score += opening + gapped * extension
    return score


def random_problem(rng, task, n_symbols):
    """A random pair of short sequences, a random symmetric matrix and random gap weights."""
    x = SequencePair(
        rng.integers(0, n_symbols, rng.integers(1, 5)),
        rng.integers(0, n_symbols, rng.integers(1, 5)),
    )
    scale = rng.choice([0.1, 1.0, 10.0])
    substitution = rng.normal(size=(n_symbols, n_symbols)) * scale
    substitution = substitution + substitution.T
    gaps = rng.normal(size=4) * scale
    w = task.weights(substitution, -gaps[0], -gaps[1], -gaps[2], -gaps[3])
    if not task.scored_ends:
        gaps[2:] = 0.0
    return x, substitution, gaps, w


@pytest.mark.parametrize("mode", MODES)
def test_both_aligners_find_the_best_of_every_alignment(mode):
    rng = np.random.default_rng(0)
    task = AlignmentTask("ACGT", mode=mode)
    for _ in range(300):
        x, substitution, gaps, w = random_problem(rng, task, 4)
        scores = [
            alignment_score(x, y, substitution, gaps, mode == "global")
            for y in every_alignment(len(x.a), len(x.b))
        ]
        found = alignment_score(x, task.argmax(x, w), substitution, gaps, mode == "global")
        assert found == pytest.approx(max(scores), abs=1e-9)


@pytest.mark.parametrize("mode", MODES)
def test_loss_augmented_aligners_find_the_most_violating_alignment(mode):
    rng = np.random.default_rng(1)
    task = AlignmentTask("ACGT", mode=mode)
    for _ in range(300):
        x, substitution, gaps, w = random_problem(rng, task, 4)
        candidates = list(every_alignment(len(x.a), len(x.b)))
        truth = candidates[rng.integers(len(candidates))]

        def value(y, truth=truth, x=x, substitution=substitution, gaps=gaps):
            missed = sum(1 for r, c in enumerate(truth) if c >= 0 and y[r] != c)
            return missed + alignment_score(x, y, substitution, gaps, mode == "global")

        found = task.loss_augmented_argmax(x, truth, w)
        assert value(found) == pytest.approx(max(value(y) for y in candidates), abs=1e-9)


@pytest.mark.parametrize("mode", MODES)
def test_the_joint_feature_map_scores_an_alignment_as_its_pairs_and_gaps(mode):
    rng = np.random.default_rng(2)
    task = AlignmentTask("ACGT", mode=mode)
    for _ in range(50):
        x, substitution, gaps, w = random_problem(rng, task, 4)
        for y in every_alignment(len(x.a), len(x.b)):
            expected = alignment_score(x, y, substitution, gaps, mode == "global")
            assert task.score(x, y, w) == pytest.approx(expected, abs=1e-9)


def test_the_loss_counts_the_true_pairs_left_out():
    task = AlignmentTask("ACGT")
    truth = np.array([0, -1, 1, 2])
    assert task.loss(truth, truth) == 0.0
    assert task.loss(truth, np.array([0, 1, -1, 2])) == 1.0
    assert task.loss(truth, np.full(4, -1)) == task.max_loss(truth) == 3.0


def test_local_alignment_is_the_best_segment_pair_and_may_be_empty():
    task = AlignmentTask(mode="local")
    w = task.weights(blosum62(), 11.0, 1.0)
    x = task.pair("PPPPWWWWPPPP", "GGWWWWGG")
    assert task.argmax(x, w).tolist() == [-1] * 4 + [2, 3, 4, 5] + [-1] * 4
    assert task.argmax(task.pair("W", "P"), w).tolist() == [-1]


def test_global_alignment_pays_end_gaps_at_their_own_costs():
    task = AlignmentTask()
    x = task.pair("WWWW", "PPWWWWPP")
    free_ends = task.weights(blosum62(), 11.0, 1.0, end_gap_open=0.0, end_gap_extend=0.0)
    assert task.argmax(x, free_ends).tolist() == [2, 3, 4, 5]
    assert task.score(x, np.array([2, 3, 4, 5]), free_ends) == 4 * 11


def test_identical_sequences_align_residue_to_residue_under_blosum62():
    for mode in MODES:
        task = AlignmentTask(mode=mode)
        x = task.pair("MKTAYIAKQRQISFVKSHFSRQ", "MKTAYIAKQRQISFVKSHFSRQ")
        assert task.argmax(x, task.weights(blosum62(), 11.0, 1.0)).tolist() == list(range(22))


def test_blosum62_is_the_published_symmetric_matrix():
    matrix = blosum62()
    assert matrix.shape == (23, 23)
    np.testing.assert_array_equal(matrix, matrix.T)
    index = PROTEIN_ALPHABET.index
    assert matrix[index("W"), index("W")] == 11 and matrix[index("C"), index("C")] == 9
    assert matrix[index("A"), index("R")] == -1 and matrix[index("I"), index("V")] == 3
    assert blosum62("WC").tolist() == [[11, -2], [-2, 9]]
    with pytest.raises(ValueError, match="BLOSUM62 has no scores"):
        blosum62("ACJ")


def test_weights_and_substitution_matrix_are_inverse():
    task = AlignmentTask()
    w = task.weights(blosum62(), 11.0, 1.0)
    np.testing.assert_array_equal(task.substitution_matrix(w), blosum62())
    assert w[task.n_pairs :].tolist() == [-11.0, -1.0, -11.0, -1.0]
    assert AlignmentTask(mode="local").size_joint_feature == task.size_joint_feature - 2


def test_encode_maps_letters_to_codes_and_others_to_the_unknown_symbol():
    task = AlignmentTask("ACGTN", unknown="N")
    assert task.encode("acgU").tolist() == [0, 1, 2, 4]
    with pytest.raises(ValueError, match="letter 'U' at position 3"):
        AlignmentTask("ACGT", unknown=None).encode("ACGU")


def test_check_data_names_the_example_at_fault():
    task = AlignmentTask("ACGT")
    x = task.pair("ACG", "AC")
    X, Y = task.check_data([x, tuple(x)], [[0, 1, -1], np.array([-1, 0, 1])])
    assert isinstance(X[1], SequencePair) and Y[0].dtype == np.int64
    with pytest.raises(ValueError, match=r"Y\[0\] must hold partners .* increasing"):
        task.check_data([x], [[1, 0, -1]])
    with pytest.raises(ValueError, match=r"Y\[0\] must be an integer array of 3 partners"):
        task.check_data([x], [[0, 1]])
    with pytest.raises(ValueError, match=r"X\[0\]\.b has codes outside \[0, 4\)"):
        task.check_data([SequencePair(x.a, np.array([7]))])


@pytest.fixture
def short_pairs():
    """Twenty random DNA pairs and alignments of them, checked by the task."""
    rng = np.random.default_rng(3)
    task = AlignmentTask("ACGT")
    X = [
        SequencePair(rng.integers(0, 4, rng.integers(1, 6)), rng.integers(0, 4, rng.integers(1, 6)))
        for _ in range(20)
    ]
    Y = [task.argmax(x, rng.normal(size=task.size_joint_feature)) for x in X]
    return X, Y


@pytest.mark.parametrize("mode", MODES)
def test_check_task_passes(mode, short_pairs):
    task = AlignmentTask("ACGT", mode=mode)
    X, Y = task.check_data(*short_pairs)
    assert check_task(task, X, Y).ok


@pytest.mark.parametrize("mode", MODES)
def test_the_compiled_oracle_answers_as_the_python_methods(mode, short_pairs):
    task = AlignmentTask("ACGT", mode=mode)
    assert_compiled_oracle_answers_as_python(task, *short_pairs, draws=5)


def test_a_subclass_that_changes_the_loss_gets_no_compiled_oracle(short_pairs):
    class Weighted(AlignmentTask):
        def loss(self, y_true, y):
            return 2 * super().loss(y_true, y)

    task = Weighted("ACGT")
    assert task.compiled_oracle(*task.check_data(*short_pairs)) is None


def test_learning_recovers_a_hidden_substitution_matrix():
    rng = np.random.default_rng(5)
    task = AlignmentTask("ACGT", mode="global")
    hidden = np.eye(4) * 4 - 1
    hidden[0, 2] = hidden[2, 0] = 3.0  # A and G are interchangeable
    w_hidden = task.weights(hidden, 3.0, 1.0, 0.0, 0.0)

    def pairs(n):
        X = []
        for _ in range(n):
            a = rng.integers(0, 4, 12)
            b = np.where(rng.random(12) < 0.4, np.where(a == 0, 2, np.where(a == 2, 0, a)), a)
            X.append(SequencePair(a, b[rng.random(12) < 0.9]))
        return X, [task.argmax(x, w_hidden) for x in X]

    X_train, Y_train = pairs(30)
    X_test, Y_test = pairs(30)
    svm = StructuredSVM(task, C=10.0, solver="1-slack", max_iter=200).fit(X_train, Y_train)
    learned = np.mean(
        [task.loss(y, svm.predict([x])[0]) for x, y in zip(X_test, Y_test, strict=True)]
    )
    untrained = np.mean(
        [
            task.loss(y, task.argmax(x, np.zeros(task.size_joint_feature)))
            for x, y in zip(X_test, Y_test, strict=True)
        ]
    )
    assert learned < 0.25 * untrained
