"""CoNLL-U files: words, heads and comments read; multiword tokens and empty nodes set aside."""

import numpy as np
import pytest

from structsvm.io import DependencySentence, FileFormatError, read_conllu, write_conllu

TREEBANK = (
    "# sent_id = 1\n"
    "# text = Don't go.\n"
    "1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t3:aux\t_\n"
    "2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t3:advmod\t_\n"
    "3\tgo\tgo\tVERB\tVB\t_\t0\troot\t0:root\t_\n"
    "3.1\tgone\tgo\tVERB\tVBN\t_\t_\t_\t3:conj\t_\n"
    "4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t3:punct\tSpaceAfter=No\n"
    "\n"
    "# sent_id = 2\n"
    "1\tYes\tyes\tINTJ\tUH\t_\t0\troot\t0:root\t_\n"
    "\n"
)


@pytest.fixture
def treebank(tmp_path):
    path = tmp_path / "tiny.conllu"
    path.write_text(TREEBANK, encoding="utf-8")
    return path


def test_reads_words_heads_and_comments(treebank):
    first, second = read_conllu(treebank)
    assert first.words == ["Do", "n't", "go", "."]
    assert first.upos == ["AUX", "PART", "VERB", "PUNCT"]
    np.testing.assert_array_equal(first.heads, [3, 3, 0, 3])
    assert first.deprels == ["aux", "advmod", "root", "punct"]
    assert first.comments == ["# sent_id = 1", "# text = Don't go."]
    assert [position for position, _ in first.other_lines] == [0, 3]
    assert len(second) == 1 and second.heads.tolist() == [0]


def test_writing_gives_back_the_lines_read(treebank, tmp_path):
    copy = tmp_path / "copy.conllu"
    write_conllu(copy, read_conllu(treebank))
    assert copy.read_text(encoding="utf-8") == TREEBANK


def test_a_sentence_made_in_code_gets_placeholder_fields(tmp_path):
    sentence = DependencySentence(["Hi", "!"], ["INTJ", "PUNCT"], [0, 1], ["root", "punct"])
    path = tmp_path / "made.conllu"
    write_conllu(path, [sentence])
    (back,) = read_conllu(path)
    assert back.words == sentence.words and back.lemmas == ["_", "_"]
    np.testing.assert_array_equal(back.heads, [0, 1])


def test_missing_heads_read_as_minus_one(tmp_path):
    path = tmp_path / "raw.conllu"
    path.write_text("1\tHi\t_\tINTJ\t_\t_\t_\t_\t_\t_\n\n", encoding="utf-8")
    assert read_conllu(path)[0].heads.tolist() == [-1]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1\tHi\t_\tINTJ\n", r"line 1: expected 10 tab-separated fields, got 4"),
        ("2\tHi\t_\tINTJ\t_\t_\t0\troot\t_\t_\n", r"line 1: word ID 2 out of order"),
        ("x\tHi\t_\tINTJ\t_\t_\t0\troot\t_\t_\n", r"line 1: ID 'x' is neither"),
        ("1\tHi\t_\tINTJ\t_\t_\t2\troot\t_\t_\n", r"line 1: HEAD 2 is beyond"),
        ("1\tHi\t_\tINTJ\t_\t_\t1\troot\t_\t_\n", r"line 1: word 1 is its own head"),
        ("1\tHi\t_\tINTJ\t_\t_\tno\troot\t_\t_\n", r"line 1: HEAD must be a word number"),
        ("1\tHi\t_\t\t_\t_\t0\troot\t_\t_\n", r"line 1: FORM and UPOS must not be empty"),
        (
            "1\tHi\t_\tINTJ\t_\t_\t0\troot\t_\t_\n# late\n",
            r"line 2: a comment line inside a sentence",
        ),
        ("# alone\n\n", r"line 1: a sentence without words"),
    ],
)
def test_a_malformed_file_is_refused_naming_file_and_line(tmp_path, text, reason):
    path = tmp_path / "bad.conllu"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FileFormatError, match=f"^bad\\.conllu, {reason}"):
        read_conllu(path)
