"""FASTA and MSF files: hand-written files and malformed ones, errors naming file and line."""

import pytest

from structsvm.io import FileFormatError, read_fasta, read_msf

MSF = """PileUp

   MSF:   12  Type: P    Check:  7038   ..

 Name: first oo  Len:   12  Check:  4681  Weight:  10.0
 Name: second oo  Len:   12  Check:  1914  Weight:  10.0

//

           1                    12
first       ...GKGDPK KP
second      MQ~~KRPMN AF

first       .
second      W
"""


def write_text(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_fasta_records_keep_file_order_and_join_their_lines(tmp_path):
    path = write_text(tmp_path, "two.tfa", ">b1 first protein\nMKV\nLA-\n\n>a2\nGG*\n")
    assert read_fasta(path) == {"b1": "MKVLA-", "a2": "GG*"}


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("MKV\n>a\nMK\n", 1, "sequence before the first '>' header"),
        (">a\nMK\n>\nMK\n", 3, "must name its sequence"),
        (">a\nMK\n>a\nMK\n", 3, "appears twice"),
        (">a\n>b\nMK\n", 1, "record 'a' has no sequence"),
        (">a\nMK\nM1K\n", 3, "'1' is not a residue letter or a gap"),
    ],
)
def test_malformed_fasta_names_the_file_and_the_line(tmp_path, text, line, reason):
    path = write_text(tmp_path, "bad.fa", text)
    with pytest.raises(FileFormatError, match=reason) as error:
        read_fasta(path)
    assert error.value.line == line and str(error.value).startswith(f"bad.fa, line {line}:")


def test_fasta_without_header_is_refused(tmp_path):
    with pytest.raises(FileFormatError, match="not a FASTA file"):
        read_fasta(write_text(tmp_path, "empty.fa", "\n"))


def test_msf_rows_are_joined_over_blocks_with_gaps_as_dashes(tmp_path):
    aligned = read_msf(write_text(tmp_path, "pair.msf", MSF))
    assert aligned == {"first": "---GKGDPKKP-", "second": "MQ--KRPMNAFW"}


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        (MSF.replace("//", "/"), None, "no '//' line"),
        (MSF.replace("second      MQ", "third       MQ"), 12, "row of 'third'"),
        (MSF.replace("KP\nsecond", "K1\nsecond"), 11, "'1' is not a residue letter"),
        (MSF.replace("second      W", "second      WW"), None, "differ in length"),
        (MSF.replace(" Name: second", " Name: first"), 6, "named twice"),
    ],
)
def test_malformed_msf_names_the_file_and_the_line(tmp_path, text, line, reason):
    path = write_text(tmp_path, "bad.msf", text)
    with pytest.raises(FileFormatError, match=reason) as error:
        read_msf(path)
    assert error.value.line == line and str(error.value).startswith("bad.msf")
