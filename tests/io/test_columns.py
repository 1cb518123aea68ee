"""CoNLL-style column files: any number of columns, documents, encodings, errors by line."""

import pytest

from structsvm.io import FileFormatError, read_columns

NER = """-DOCSTART- -DOCSTART- O

Melbourne NP B-LOC
( Fpa O
Australia NP B-LOC
) Fpt O


-DOCSTART- -DOCSTART- O
El DA O
Abogado NC B-PER
General AQ I-PER
"""


def test_sentences_are_tuples_of_columns_split_by_blank_and_docstart_lines():
    sentences = read_columns(NER.splitlines())
    assert sentences == [
        (
            ("Melbourne", "(", "Australia", ")"),
            ("NP", "Fpa", "NP", "Fpt"),
            ("B-LOC", "O", "B-LOC", "O"),
        ),
        (("El", "Abogado", "General"), ("DA", "NC", "AQ"), ("O", "B-PER", "I-PER")),
    ]


@pytest.mark.parametrize("n_columns", [1, 2, 5])
def test_any_number_of_columns_is_read(n_columns):
    lines = [" ".join(f"c{c}t{t}" for c in range(n_columns)) for t in range(3)]
    (sentence,) = read_columns([*lines, ""])
    assert len(sentence) == n_columns
    assert sentence[-1] == tuple(f"c{n_columns - 1}t{t}" for t in range(3))


def test_a_docstart_line_ends_the_sentence_before_it():
    lines = ["a X", "-DOCSTART- -X-", "b Y"]
    assert read_columns(lines) == [(("a",), ("X",)), (("b",), ("Y",))]
    assert read_columns([]) == [] and read_columns(["", "  ", "-DOCSTART-"]) == []


def test_a_file_is_read_in_the_encoding_given(tmp_path):
    path = tmp_path / "esp.train"
    path.write_bytes("Peñarroya NP B-ORG\nEspaña NP B-LOC\n".encode("latin-1"))
    (sentence,) = read_columns(path, encoding="latin-1")
    assert sentence[0] == ("Peñarroya", "España")
    with pytest.raises(FileFormatError, match=r"esp\.train, line 1: bytes that are not utf-8"):
        read_columns(path)


def test_a_line_with_other_columns_names_the_file_and_the_line(tmp_path):
    path = tmp_path / "ned.testa"
    path.write_text("De Art O\n\ntekst N\n", encoding="utf-8")
    with pytest.raises(FileFormatError, match=r"ned\.testa, line 3: expected 3 columns") as error:
        read_columns(path)
    assert error.value.line == 3 and error.value.path == str(path)
    with pytest.raises(FileFormatError, match=r"<lines>, line 1: expected 2 columns, found 3"):
        read_columns(["De Art O"], n_columns=2)


def test_what_is_not_lines_of_text_is_refused():
    with pytest.raises(TypeError, match="source"):
        read_columns({"a X"})
    with pytest.raises(TypeError, match="line 2"):
        read_columns(["a X", 3])
    with pytest.raises(ValueError, match="n_columns"):
        read_columns(["a X"], n_columns=0)
