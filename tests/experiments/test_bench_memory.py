"""The memory benchmark records every step of a job with its resident memory and peak."""

import sys

import numpy as np
import pytest

from experiments.bench_memory import Recorder, main

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/status")


def test_a_step_peaks_at_least_at_what_it_allocates_and_touches():
    recorder = Recorder(traced=True)
    recorder.run("64 MB", lambda: np.ones(8 << 20).sum())
    step = recorder.steps[-1]
    assert step.step == "64 MB" and step.added >= 60 and step.peak >= step.rss
    assert 64 <= step.traced_peak < 70
    assert "64 MB" in recorder.table()


def test_the_main_job_is_measured_step_by_step(capsys):
    main(["ocr", "--learners", "perceptron", "--no-plot"])
    table = capsys.readouterr().out.split("\n\n")[-1]
    steps = [line.split("  ")[0] for line in table.splitlines()[1:]]
    assert steps == [
        "interpreter", "import numpy", "import scipy.sparse", "import numba",
        "import experiments.ocr_letters", "data", "fit perceptron", "score perceptron",
    ]
