"""The benchmark tables' writer: the tables file, and the README's headline taken from it."""

import re
from pathlib import Path

import pytest

from experiments import benchmarks

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "docs" / "benchmark_tables.md"
MACHINE = "Measured on x86_64 with 2 cores, Python 3.11, by `python -m experiments.benchmarks`."
SMALL = "**OCR letters, small split** (3 words):\n\n| learner | time |\n|---|---|\n| a | 1 s |"
LARGE = "**OCR letters, large split** (9 words):\n\n| learner | time |\n|---|---|\n| b | 2 s |"


def test_markdown_table_has_a_header_a_rule_and_a_row_per_dict():
    rows = [{"learner": "a", "time": "1 s"}, {"learner": "b", "time": "2 s"}]
    assert benchmarks.markdown_table(rows) == (
        "| learner | time |\n|---|---|\n| a | 1 s |\n| b | 2 s |"
    )


def test_the_tables_file_is_replaced_and_the_headline_is_its_small_split(tmp_path):
    text = "\n\n".join([MACHINE, SMALL, LARGE])
    tables = tmp_path / "tables.md"
    tables.write_text("stale")
    benchmarks.write_tables(tables, text)
    assert tables.read_text() == f"{benchmarks.TABLES_NOTE}\n\n{text}\n"
    assert benchmarks.headline(tables.read_text()) == f"{MACHINE}\n\n{SMALL}"
    assert benchmarks.headline(text) == f"{MACHINE}\n\n{SMALL}"


def test_a_headline_needs_the_small_split_and_the_machine():
    with pytest.raises(ValueError, match="small split"):
        benchmarks.headline(f"{MACHINE}\n\n{LARGE}")
    with pytest.raises(ValueError, match="Measured on"):
        benchmarks.headline(SMALL)
    with pytest.raises(SystemExit):
        benchmarks.parse_args(["--ocr-splits", "large", "--readme", "README.md"])


def test_the_headline_is_written_between_the_readme_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{benchmarks.BEGIN}\nold table\n{benchmarks.END}\noutro\n")
    benchmarks.write_into_readme(readme, "new table")
    assert readme.read_text() == f"intro\n{benchmarks.BEGIN}\nnew table\n{benchmarks.END}\noutro\n"
    (tmp_path / "plain.md").write_text("no markers")
    with pytest.raises(ValueError, match="benchmarks:begin"):
        benchmarks.write_into_readme(tmp_path / "plain.md", "new table")


def test_the_readme_headline_is_the_one_of_the_documentation_tables():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(
        re.escape(benchmarks.BEGIN) + r"\n(.*?)\n" + re.escape(benchmarks.END), readme, re.S
    )
    assert block is not None, "the README has no benchmark markers"
    assert block.group(1) == benchmarks.headline(TABLES.read_text(encoding="utf-8"))
