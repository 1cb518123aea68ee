"""The oracle benchmark runs end to end on a few words and its two decoders agree."""

from experiments.bench_oracles import main


def test_benchmark_runs_on_a_few_words_and_the_decoders_agree(capsys):
    results = main(n_words=15, repeats=1, threads=(1,), measure_compile=False)
    assert [row["oracle"] for row in results["rows"]] == ["argmax", "loss-augmented argmax"]
    for row in results["rows"]:
        assert row["agrees"]
        assert row["letters_per_second"] > 0 and row["numpy_letters_per_second"] > 0
    assert "letters/s" in capsys.readouterr().out
