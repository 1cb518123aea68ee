"""The README's Python examples run as written, one after another as in a user's script."""

import re
import sys
import types
from pathlib import Path

import cloudpickle

README = Path(__file__).resolve().parents[2] / "README.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
NEEDS_A_CLUSTER = "# needs a running Dask cluster"


def test_the_readme_has_examples():
    assert len(EXAMPLES) >= 5


def test_readme_examples_run_in_order(tmp_path, monkeypatch, capsys):
    # A user's script is the __main__ module: its classes pickle by reference within the
    # process and by value for joblib's workers. A registered module reproduces both.
    script = types.ModuleType("readme_script")
    monkeypatch.setitem(sys.modules, script.__name__, script)
    cloudpickle.register_pickle_by_value(script)
    monkeypatch.chdir(tmp_path)
    try:
        for code in EXAMPLES:
            if not code.startswith(NEEDS_A_CLUSTER):
                exec(compile(code, str(README), "exec"), script.__dict__)
    finally:
        cloudpickle.unregister_pickle_by_value(script)
    printed = capsys.readouterr().out
    assert "accuracy" in printed
    assert "True" in printed
    assert (tmp_path / "convergence.png").exists()
