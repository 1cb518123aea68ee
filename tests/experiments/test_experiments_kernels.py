"""Smoke test of the kernel experiment script."""

from experiments.kernels import main


def test_runs_and_writes_its_pictures(tmp_path, capsys):
    rows = main(["--out-dir", str(tmp_path), "--seed", "1"])
    assert (tmp_path / "kernels_xor.png").stat().st_size > 0
    assert (tmp_path / "kernels_circles.png").stat().st_size > 0
    printed = capsys.readouterr().out
    assert "test acc" in printed and "subsequence SVM" in printed
    by_model = {(row["task"], row["model"]): row for row in rows}
    assert by_model[("circles", "RBF SVM")]["test"] > 0.9
    assert by_model[("circles", "linear SVM")]["test"] < 0.8
    assert by_model[("words", "subsequence SVM")]["test"] > 0.5
