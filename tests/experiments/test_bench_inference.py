"""The inference benchmark runs end to end on small grids and its rows are consistent."""

from experiments.bench_inference import grid_edges, main


def test_grid_edges_are_the_four_neighbourhood():
    edges = grid_edges(2, 3)
    assert sorted(map(tuple, edges.tolist())) == [
        (0, 1),
        (0, 3),
        (1, 2),
        (1, 4),
        (2, 5),
        (3, 4),
        (4, 5),
    ]


def test_benchmark_runs_on_small_grids(capsys):
    methods = ("ilp", "lp", "max-product", "ad3")
    rows = main(runs=(((3, 3, 2), methods), ((2, 4, 3), methods)), time_limit=10.0)
    assert [row["method"] for row in rows] == ["ilp", "lp", "max-product", "ad3"] * 2
    for grid in ("3x3x2", "2x4x3"):
        exact = next(row for row in rows if row["grid"] == grid and row["method"] == "ilp")
        assert exact["certified"]
        for row in rows:
            if row["grid"] == grid:
                assert row["score"] <= exact["score"] + 1e-7 <= row["bound"] + 2e-7
                assert row["nodes_per_second"] > 0
    assert "nodes/s" in capsys.readouterr().out
