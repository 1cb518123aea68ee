"""A first fit compiles only what it runs, once, in a few seconds; the next process none of it.

A fresh process with an empty, private Numba cache makes the first 1-slack fit of a chain and
reports what Numba compiled for the project (each function once per signature) and the CPU
seconds the fit took, almost all of them compiling; a second process on the same cache finds
everything there and compiles nothing. A first BCFW fit with Frank–Wolfe steps compiles none of
the pairwise steps, and no first fit compiles Numba's shape-mismatch message.
"""

import json
import os
import string
import subprocess
import sys
from pathlib import Path

import pytest

#: The project's compilations a first 1-slack fit of a first-order chain makes: its compiled
#: oracle's decode, loss, labelling score and added features (no second-order decoder), each
#: once for the protocol's signature and without Python wrappers; stand-ins for the scores and
#: the features, which a pass that scores every example at once and adds φ itself never calls;
#: and the 1-slack pass, which calls them by address (7 now). The training set's joint
#: features are built without compiling, small helpers and the Viterbi are inlined into their
#: callers and the pass runs on threads without a parallel loop; a helper compiled on its own
#: again, a duplicate specialisation, a pass compiled with the oracle's code or an unused
#: function raises the count.
MOST_COMPILATIONS = 7

#: CPU seconds of the first fit: loose, so that a loaded machine passes, but well under what a
#: fit that compiled every helper and parallel loop on its own took.
MOST_CPU_SECONDS = 20.0

#: The problems a fit is made on: the task, then the source of X and of Y (``rng`` given).
PROBLEMS = {
    "chain": (
        "ChainTask(4, 6)",
        "[rng.normal(size=(t, 6)) for t in rng.integers(2, 7, 30)]",
        "[rng.integers(0, 4, len(x)) for x in X]",
    ),
    "multiclass": (
        "MulticlassTask(4, 6)", "list(rng.normal(size=(60, 6)))", "list(rng.integers(0, 4, 60))"
    ),
}

FIT = string.Template("""
import json, time
import numpy as np
from numba.core import event
from structsvm import StructuredSVM
from tasks import ChainTask, MulticlassTask

compiled, numbas = [], []


class Compilations(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        function = ev.data["dispatcher"].py_func
        name = f"{function.__module__}.{function.__qualname__}"
        if (function.__module__ or "").split(".")[0] in ("structsvm", "tasks"):
            compiled.append(name)
        else:
            numbas.append(name)


rng = np.random.default_rng(0)
X = $x
Y = $y
event.register("numba:compile", Compilations())
start = time.process_time()
StructuredSVM($task, C=1.0, max_iter=5, **$options).fit(X, Y)
print(json.dumps(dict(seconds=time.process_time() - start, compiled=compiled, numba=numbas)))
""")


def fit_in_a_fresh_process(cache_dir, options="{'solver': '1-slack'}", problem="chain"):
    """Return the seconds and compilations (the project's, and Numba's own functions') of
    FIT on one of the PROBLEMS, with the estimator's ``options`` (a dict's source), in a new
    process on Numba's ``cache_dir``."""
    task, x, y = PROBLEMS[problem]
    source = FIT.substitute(task=task, x=x, y=y, options=options)
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", source],
        cwd=Path(__file__).resolve().parents[2],
        env=dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir)),
        capture_output=True, text=True, check=True, timeout=900,
    )
    return json.loads(result.stdout.splitlines()[-1])


def test_a_first_one_slack_fit_on_an_empty_numba_cache_compiles_little(tmp_path):
    first_fit = fit_in_a_fresh_process(tmp_path)
    assert len(first_fit["compiled"]) <= MOST_COMPILATIONS, first_fit["compiled"]
    assert "tasks._viterbi_second_order.decode_second_order" not in first_fit["compiled"]
    assert first_fit["seconds"] < MOST_CPU_SECONDS
    assert fit_in_a_fresh_process(tmp_path)["compiled"] == []


def test_a_first_frank_wolfe_fit_never_compiles_the_pairwise_steps(tmp_path):
    compiled = fit_in_a_fresh_process(tmp_path, "{'solver': 'bcfw'}")["compiled"]
    assert "structsvm.solvers._bcfw_pass.frank_wolfe_pass" in compiled
    pairwise = {"pairwise_pass", "pairwise_visit", "labelling_scores", "labelling_value"}
    assert pairwise.isdisjoint(name.rsplit(".", 1)[1] for name in compiled), compiled


@pytest.mark.parametrize(
    ("problem", "options"),
    [
        ("chain", "{'solver': '1-slack'}"), ("chain", "{'solver': 'bcfw'}"),
        ("chain", "{'solver': 'bcfw', 'step': 'pairwise'}"), ("multiclass", "{}"),
    ],
)
def test_a_first_fit_compiles_no_error_message_of_an_array_assigned_to_a_slice(
    tmp_path, problem, options
):
    # Numba formats the shapes of a mismatched slice assignment with its string functions,
    # which take seconds to compile; the passes copy arrays element by element instead.
    compiled = fit_in_a_fresh_process(tmp_path, options, problem)["numba"]
    assert not any("raise_with_shape_context" in name for name in compiled), compiled
