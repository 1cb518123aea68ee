"""The oracle benchmark runs end to end on a few words and its decoders agree."""

import shutil

from experiments.bench_oracles import C_COMPILERS, main


def test_benchmark_runs_on_a_few_words_and_the_decoders_agree(capsys):
    results = main(n_words=15, repeats=1, threads=(1, 2), rounds=1, measure_compile=False)
    assert [row["oracle"] for row in results["rows"]] == ["argmax", "loss-augmented argmax"]
    has_compiler = any(shutil.which(name) for name in C_COMPILERS)
    for row in results["rows"]:
        assert row["agrees"]
        assert row["letters_per_second"] > 0 and row["numpy_letters_per_second"] > 0
        assert (row["c_ratio"] is not None) == has_compiler
    assert set(results["threads"]) == {"compiled summed pass", "generic pass"}
    for timings in results["threads"].values():
        assert timings["identical"]
        assert set(timings["seconds"]) == {1, 2}
    output = capsys.readouterr().out
    assert "letters/s" in output and "load average" in output
