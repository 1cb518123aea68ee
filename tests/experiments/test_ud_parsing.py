"""The UD parsing experiment runs both orders end to end on a tiny treebank in EWT's file names."""

import pytest

from experiments.ud_parsing import DEV, TRAIN, main

TREEBANK = (
    "1\tthe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n"
    "2\tdog\tdog\tNOUN\tNN\t_\t3\tnsubj\t_\t_\n"
    "3\tbarks\tbark\tVERB\tVBZ\t_\t0\troot\t_\t_\n"
    "4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_\n"
    "\n"
    "1\tcats\tcat\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n"
    "2\tchase\tchase\tVERB\tVBP\t_\t0\troot\t_\t_\n"
    "3\tthe\tthe\tDET\tDT\t_\t4\tdet\t_\t_\n"
    "4\tanimals\tanimal\tNOUN\tNNS\t_\t2\tobj\t_\t_\n"
    "\n"
)


def test_the_experiment_prints_the_attachment_scores(tmp_path, capsys):
    (tmp_path / TRAIN).write_text(TREEBANK, encoding="utf-8")
    (tmp_path / DEV).write_text(TREEBANK, encoding="utf-8")
    main(["--data-dir", str(tmp_path), "--n-features", str(2**12), "--C", "10", "--max-iter", "5",
          "--punctuation-weight", "0.5"])
    out = capsys.readouterr().out
    assert "EWT train: 2 sentences, 8 words; dev: 2 sentences, 8 words" in out
    lines = out.splitlines()
    header = next(k for k, line in enumerate(lines) if line.startswith("order  UAS "))
    for order, row in zip(("1", "2"), lines[header + 1 : header + 3], strict=True):
        assert row.split()[:2] == [order, "100.000"]  # learnt by heart
    assert "load average" in out


def test_held_out_training_sentences_take_the_place_of_the_dev_split(tmp_path, capsys):
    (tmp_path / TRAIN).write_text(TREEBANK, encoding="utf-8")
    (tmp_path / DEV).write_text("not CoNLL-U\n", encoding="utf-8")  # never read
    main(["--data-dir", str(tmp_path), "--n-features", str(2**12), "--orders", "1",
          "--held-out", "1"])
    out = capsys.readouterr().out
    assert "EWT train: 1 sentences, 4 words; held out: 1 sentences, 4 words" in out
    with pytest.raises(SystemExit, match="--held-out must be below 2"):
        main(["--data-dir", str(tmp_path), "--held-out", "2"])
