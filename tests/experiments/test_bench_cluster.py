"""The cluster benchmark runs end to end on a few images, both ways giving the serial weights."""

import pytest

pytest.importorskip("dask.distributed")

from experiments.bench_cluster import main


def test_benchmark_runs_and_the_resident_fit_sends_the_same_per_iteration_for_4n(capsys):
    rows = main(n=15, n_workers=2, max_iter=2, processes=False)
    resident = {row["n"]: row for row in rows if row["way"] == "resident"}
    joblib_dask = {row["n"]: row for row in rows if row["way"] == "joblib-dask"}
    assert set(resident) == set(joblib_dask) == {15, 60}
    assert all(row["max_difference_from_serial"] < 1e-10 for row in rows)
    assert resident[15]["scatters"] == resident[60]["scatters"] == 1
    assert resident[15]["sent_bytes_per_iteration"] == resident[60]["sent_bytes_per_iteration"]
    assert joblib_dask[60]["sent_bytes_per_iteration"] > resident[60]["sent_bytes_per_iteration"]
    assert "s/iter" in capsys.readouterr().out
