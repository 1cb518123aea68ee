"""The ranking benchmark runs on small queries, and both methods reach the same optimum."""

import pytest

from experiments.bench_ranking import TARGET, main


def test_benchmark_runs_and_both_methods_end_within_the_target_of_the_bound(capsys):
    results = main(sizes=(20, 40), n_queries=2, n_features=5, max_pairs=1_000)
    small, large = results["rows"]
    for row in results["rows"]:
        assert row["bound"] <= row["ours_primal"] <= (1 + TARGET) * row["bound"]
    assert small["reduction_primal"] == pytest.approx(small["bound"], rel=TARGET)
    assert "reduction_seconds" not in large  # 2 queries of 40 documents have > 1000 pairs
    assert "skipped" in capsys.readouterr().out
