"""The BAliBASE experiment runs end to end on tiny synthetic families in BAliBASE's formats."""

import numpy as np

from experiments.alignment import main, pairs_of, read_family

RESIDUES = "ARNDCQEGHILKMFPSTWYV"


def write_family(directory, name, rows, core):
    """Write a test as BAliBASE does: an MSF file and an XML file with its core columns."""
    names = [f"seq{k}" for k in range(len(rows))]
    header = "\n".join(f" Name: {n} oo  Len: {len(rows[0])}  Check: 0  Weight: 1.0" for n in names)
    body = "\n".join(f"{n}   {row.replace('-', '.')}" for n, row in zip(names, rows, strict=True))
    (directory / f"{name}.msf").write_text(
        f"PileUp\n\n MSF: {len(rows[0])}  Type: P\n\n{header}\n\n//\n\n{body}\n"
    )
    flags = " ".join("1" if flag else "0" for flag in core)
    (directory / f"{name}.xml").write_text(
        '<?xml version="1.0"?>\n<macsim><alignment><column-score>'
        "<colsco-name>coreblock</colsco-name>"
        f"<colsco-data>{flags}</colsco-data></column-score></alignment></macsim>\n"
    )


def synthetic_family(rng, length=30, n_sequences=3):
    """Mutated copies of one sequence, with a gap or two, all columns core but the ends."""
    ancestor = rng.choice(list(RESIDUES), length)
    rows = []
    for _ in range(n_sequences):
        row = np.where(rng.random(length) < 0.3, rng.choice(list(RESIDUES), length), ancestor)
        row[rng.integers(0, length, 2)] = "-"
        rows.append("".join(row))
    core = np.ones(length, dtype=bool)
    core[:3] = core[-3:] = False
    return rows, core


def test_the_experiment_compares_learned_costs_with_blosum62(tmp_path, capsys):
    rng = np.random.default_rng(0)
    for reference, numbers in (("RV11", ("11001", "11002")), ("RV12", ("12001", "12002"))):
        (tmp_path / reference).mkdir()
        for number in numbers:
            rows, core = synthetic_family(rng)
            write_family(tmp_path / reference, f"BB{number}", rows, core)
    rows = main(["--data-dir", str(tmp_path), "--max-iter", "5", "--repeats", "2"])
    assert [(row["mode"], row["model"]) for row in rows] == [
        ("global", "BLOSUM62 11/1"),
        ("global", "learned"),
        ("local", "BLOSUM62 11/1"),
        ("local", "learned"),
    ]
    assert all(0.0 <= row["Q held out"] <= 1.0 and row["ms 300x300"] > 0 for row in rows)
    assert "pairs: 6 training, 6 held out" in capsys.readouterr().out


def test_a_pair_keeps_the_residues_of_shared_columns_and_their_core(tmp_path):
    write_family(tmp_path, "BB1", ["AC-DE", "A-GDE"], np.array([1, 1, 1, 0, 1], dtype=bool))
    (pair,) = pairs_of(read_family(tmp_path / "BB1.msf"))
    assert (pair.a, pair.b) == ("ACDE", "AGDE")
    assert pair.partners.tolist() == [0, -1, 2, 3]
    assert pair.core.tolist() == [True, False, False, True]
