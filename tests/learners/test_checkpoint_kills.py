"""A fit killed at any moment (SIGKILL, no cleanup) loses nothing its checkpoint file held.

A fit that checkpoints after every iteration runs in a subprocess, which is killed at random
moments of the fit, many of them during the writes. Every time, the checkpoint file either
does not exist yet or loads, and a resumed fit reaches exactly the uninterrupted result.
"""

import signal
import subprocess
import sys
import time
import warnings

import joblib
import numpy as np
import pytest

from structsvm import StructuredSVM

KILLS = 5
SETTINGS = {"solver": "1-slack", "tol": 1e-6, "max_iter": 400}

FIT_IN_A_SUBPROCESS = """
import sys
import warnings

import joblib

from structsvm import StructuredSVM

task, X, Y, settings = joblib.load(sys.argv[1])
model = StructuredSVM(task, checkpoint=sys.argv[2], checkpoint_every=1, **settings)
print("fitting", flush=True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    model.fit(X, Y)
print("done", flush=True)
"""


def quietly(fit, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit(*args)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_fit_killed_at_random_moments_resumes_from_its_checkpoint(tmp_path, chain_problem):
    task, X, Y = chain_problem(n_sequences=40)
    reference = quietly(StructuredSVM(task, **SETTINGS).fit, X, Y)
    problem = tmp_path / "problem.joblib"
    joblib.dump((task, X, Y, SETTINGS), problem)
    rng = np.random.default_rng(0)
    duration = None
    outcomes = {"no checkpoint yet": 0, "resumed": 0, "finished": 0}
    for kill in range(KILLS + 1):
        path = tmp_path / f"fit{kill}.ckpt"
        child = subprocess.Popen(
            [sys.executable, "-c", FIT_IN_A_SUBPROCESS, str(problem), str(path)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout.readline().strip() == "fitting"
        started = time.perf_counter()
        if duration is None:  # the first run times an uninterrupted fit with its checkpoints
            assert child.stdout.readline().strip() == "done"
            duration = time.perf_counter() - started
            child.wait()
            child.stdout.close()
            finished = StructuredSVM.load_checkpoint(path)
            assert finished.converged_ and finished.n_iter_ == reference.n_iter_
            np.testing.assert_allclose(finished.w_, reference.w_, rtol=1e-9, atol=1e-12)
            continue
        time.sleep(rng.uniform(0.0, duration))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(f".{path.name}.")]
        for temporary in leftovers:  # a write cut short leaves its temporary file, never `path`
            temporary.unlink()
        if not path.exists():
            outcomes["no checkpoint yet"] += 1
            continue
        resumed = StructuredSVM.load_checkpoint(path)
        if resumed.converged_:
            outcomes["finished"] += 1
        else:
            outcomes["resumed"] += 1
        resumed.set_params(checkpoint=None, max_iter=max(1, SETTINGS["max_iter"] - resumed.n_iter_))
        quietly(resumed.fit, X, Y)
        assert resumed.n_iter_ == reference.n_iter_
        np.testing.assert_allclose(resumed.w_, reference.w_, rtol=1e-9, atol=1e-12)
    assert sum(outcomes.values()) == KILLS
