"""A compiled function handed to compiled code by address: the same results as a direct call,
exceptions that propagate, and callers cached by the callee's signature alone."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import types

from structsvm._native_function import NativeFunction


@numba.njit(cache=True)
def shifted_rows(data, i, w):
    rows, shift = data
    if i < 0:
        raise IndexError("no such row")
    return rows[i] * w + shift, (i, shift)


@numba.njit(cache=True)
def summed_calls(fns, data, w, n):
    total = 0.0
    for i in range(n):
        row, (k, shift) = fns[0](data, i, w)
        total += row.sum() + k * shift
    return total


@numba.njit
def call_at(fns, data, w, i):
    return fns[0](data, i, w)


@numba.njit
def call_at_scalar(fns, x):
    return fns[0](x)


DATA = (np.arange(12.0).reshape(4, 3), 1.5)
W = np.array([1.0, -2.0, 0.5])


@pytest.fixture(scope="module")
def shifted():
    return NativeFunction(shifted_rows, (numba.typeof(DATA), types.int64, types.float64[::1]))


def test_its_type_is_the_signature_compiled_for(shifted):
    signature = shifted.numba_type.signature
    assert signature.args == (numba.typeof(DATA), types.int64, types.float64[::1])
    shifted_rows.compile(signature.args)
    assert signature.return_type == shifted_rows.overloads[signature.args].signature.return_type


def test_compiling_for_compiled_callers_leaves_the_python_callable_dispatcher_uncompiled():
    @numba.njit
    def doubled(x):
        return 2.0 * x

    native = NativeFunction(doubled, (types.float64,))
    assert not doubled.overloads
    assert call_at_scalar((native,), 1.5) == 3.0
    assert native(1.5) == 3.0 and list(doubled.overloads) == [(types.float64,)]


def test_compiled_code_calling_it_gets_the_direct_call_results(shifted):
    expected = sum(DATA[0][i] @ W + 3 * 1.5 + i * 1.5 for i in range(4))
    assert summed_calls((shifted,), DATA, W, 4) == pytest.approx(expected, rel=1e-15)
    row, pair = call_at((shifted,), DATA, W, 2)
    np.testing.assert_array_equal(row, shifted_rows(DATA, 2, W)[0])
    assert pair == (2, 1.5)


def test_a_call_from_python_runs_the_dispatcher(shifted):
    np.testing.assert_array_equal(shifted(DATA, 1, W)[0], shifted_rows(DATA, 1, W)[0])


def test_an_exception_raised_by_the_callee_reaches_the_caller(shifted):
    with pytest.raises(IndexError, match="no such row"):
        call_at((shifted,), DATA, W, -1)


CALLER = textwrap.dedent(
    """
    import numba


    @numba.njit(cache=True)
    def caller(fns, x):
        return fns[0](x) + 1.0
    """
)

RUN = textwrap.dedent(
    """
    import json, sys
    from numba import types
    from numba.core import event
    sys.path.insert(0, sys.argv[1])
    from structsvm._native_function import NativeFunction
    import callee_module, caller_module

    compiled = []

    class Compilations(event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    event.register("numba:compile", Compilations())
    handle = NativeFunction(callee_module.scaled, (types.float64,))
    print(json.dumps({"value": caller_module.caller((handle,), 2.0), "compiled": compiled}))
    """
)


def run_caller(folder, cache_dir):
    """Return the caller's value and the compilations of a new process on ``cache_dir``."""
    (folder / "caller_module.py").write_text(CALLER)
    result = subprocess.run(
        [sys.executable, "-c", RUN, str(folder)],
        cwd=Path(__file__).resolve().parents[2],
        env=dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir)),
        capture_output=True, text=True, check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def test_a_cached_caller_serves_a_new_process_whose_callee_changed(tmp_path):
    def write_callee(body):
        (tmp_path / "callee_module.py").write_text(
            f"import numba\n\n@numba.njit(cache=True)\ndef scaled(x):\n    return {body}\n"
        )

    write_callee("2.0 * x")
    assert run_caller(tmp_path, tmp_path / "cache") == {
        "value": 5.0, "compiled": ["scaled__native", "caller"]
    }
    write_callee("3.0 * x  # changed")
    assert run_caller(tmp_path, tmp_path / "cache") == {
        "value": 7.0, "compiled": ["scaled__native"]
    }
