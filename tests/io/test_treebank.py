"""Penn Treebank trees: the reader and its errors, the preparation for a grammar, the brackets."""

import pytest

from structsvm.io import (
    FileFormatError,
    Tree,
    binarise,
    bracket_scores,
    collapse_unaries,
    labelled_brackets,
    parse_trees,
    prepare_tree,
    read_treebank,
    strip_empty,
    strip_function_tags,
    unbinarise,
)

TWO_TREES = """( (S
    (NP-SBJ-1 (DT The) (NN board) )
    (VP (VBD met)
      (NP (-NONE- *-1) ))
    (. .) ))
( (S (NP-SBJ (PRP It)) (VP (VBZ works)) (. .)))
"""


def test_a_file_holds_several_trees_without_their_unlabelled_wrappers(tmp_path):
    path = tmp_path / "wsj_0001.mrg"
    path.write_text(TWO_TREES)
    first, second = read_treebank(path)
    assert first.label == "S"
    assert first.words() == ["The", "board", "met", "*-1", "."]
    assert second.tagged_words() == [("PRP", "It"), ("VBZ", "works"), (".", ".")]
    assert str(second) == "(S (NP-SBJ (PRP It)) (VP (VBZ works)) (. .))"


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("( (S (NP (NN a))\n (VP (VB b)))\n)\n)", 4, "closes no open bracket"),
        ("(S (NP (NN a))\n (VP (VB b)", 2, "never closed"),
        ("word (S (NN a))", 1, "outside any bracket"),
        ("(S\n ()\n)", 2, "holds nothing"),
        ("(S (NN a) b)", 1, "mixes the word"),
        ("( (S (NN a)) (S (NN b)) )", 1, "exactly one tree"),
    ],
)
def test_malformed_brackets_are_reported_with_file_and_line(tmp_path, text, line, reason):
    path = tmp_path / "bad.mrg"
    path.write_text(text)
    with pytest.raises(FileFormatError, match=reason) as error:
        read_treebank(path)
    assert error.value.line == line
    assert str(error.value).startswith(f"bad.mrg, line {line}:")


def test_function_tags_and_indices_go_but_hyphenated_tags_stay():
    (tree,) = parse_trees("(S-TPC-1 (NP-SBJ=2 (-LRB- -LRB-) (NN a)) (PP-LOC-CLR (IN b)))")
    assert str(strip_function_tags(tree)) == "(S (NP (-LRB- -LRB-) (NN a)) (PP (IN b)))"


def test_empty_elements_and_the_constituents_they_empty_are_removed():
    (tree,) = parse_trees("(S (NP (-NONE- *)) (VP (VB go) (S (NP (-NONE- *T*)))) (. .))")
    assert str(strip_empty(tree)) == "(S (VP (VB go)) (. .))"
    assert strip_empty(parse_trees("(S (-NONE- *))")[0]) is None


def test_unary_chains_keep_their_top_label_and_phrases_over_one_word_stay():
    (tree,) = parse_trees("(S (VP (VP (VB go) (NP (QP (CD 5))))))")
    assert str(collapse_unaries(tree)) == "(S (VB go) (NP (CD 5)))"


def test_prepare_strips_then_collapses():
    tree = parse_trees(TWO_TREES)[0]
    assert str(prepare_tree(tree)) == "(S (NP (DT The) (NN board)) (VP (VBD met)) (. .))"


@pytest.mark.parametrize(
    ("markov", "expected"),
    [
        (0, "(A (B b) (@A (C c) (@A (D d) (E e))))"),
        (1, "(A (B b) (@A|B (C c) (@A|C (D d) (E e))))"),
        (2, "(A (B b) (@A|B (C c) (@A|B_C (D d) (E e))))"),
    ],
)
def test_binarisation_right_factors_with_markovised_labels(markov, expected):
    (tree,) = parse_trees("(A (B b) (C c) (D d) (E e))")
    binary = binarise(tree, markov)
    assert str(binary) == expected
    assert unbinarise(binary) == tree


def test_binarisation_keeps_the_brackets_of_the_original_tree():
    (tree,) = parse_trees("(S (NP (DT a) (JJ b) (NN c) (NN d)) (VP (VB e) (NP (NN f))) (. .))")
    binary = binarise(tree, 1)
    real = {key: n for key, n in labelled_brackets(binary).items() if key[0][0] != "@"}
    assert real == labelled_brackets(tree)


def test_brackets_count_the_root_and_leave_out_preterminals():
    (tree,) = parse_trees("(S (NP (NN a)) (VP (VB b) (NN c)))")
    assert labelled_brackets(tree) == {("NP", 0, 1): 1, ("VP", 1, 3): 1, ("S", 0, 3): 1}


def test_bracket_scores_are_evalb_micro_averages():
    gold = parse_trees("(S (NP (NN a) (NN b)) (VP (VB c) (NN d)))(S (NN a) (VB b))")
    predicted = parse_trees("(S (NN a) (VP (NN b) (VB c) (NN d)))(S (NN a) (VB b))")
    scores = bracket_scores(gold, predicted)
    # Sentence 1: predicted S, VP(1,4); gold S, NP(0,2), VP(2,4): one match. Sentence 2: S.
    assert (scores.matched, scores.n_gold, scores.n_predicted) == (2, 4, 3)
    assert scores.precision == pytest.approx(2 / 3)
    assert scores.recall == pytest.approx(2 / 4)
    assert scores.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert scores.exact_match == 0.5
    assert isinstance(gold[0], Tree)
