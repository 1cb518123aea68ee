"""The Python examples of the README and of the documentation's pages run as written.

Each file's examples run one after another in one namespace, as in a user's script, in a
temporary directory; the examples of a reStructuredText page are its ``.. code-block:: python``
blocks. A block that starts with ``# needs a running Dask cluster`` is shown, not run; one that
starts with ``# needs the optional module NAME`` runs where NAME is installed.
"""

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import cloudpickle
import pytest

ROOT = Path(__file__).resolve().parents[2]
NEEDS_A_CLUSTER = "# needs a running Dask cluster"
NEEDS_A_MODULE = "# needs the optional module "
BUILT = {"_build", "_templates", "api", "_generated", "auto_examples"}
"""Folders of docs/ that a build writes, not pages of the documentation's source."""
PAGES = sorted((ROOT / "docs").rglob("*.rst"), key=str)
PAGES = [
    page
    for page in PAGES
    if not BUILT & set(page.parts) and page.name != "sg_execution_times.rst"
]
EXPECTED = {
    "README.md": {"printed": ["accuracy", "duality gap"]},
    "custom_task.rst": {"printed": ["check_task(MyTask): 5 problems", "[not_a_maximiser]"]},
    "running.rst": {"printed": ["True"], "files": ["convergence.png", "fit.ckpt", "model.ssvm"]},
    "model_files.rst": {"printed": ["True", "is not one of structsvm's", "mine"]},
    "tasks.rst": {"printed": ["True -inf", "Hamming loss", "pixels right"]},
    "coming_from.rst": {"files": ["tagged.dat"]},
    "inference.rst": {"printed": ["True"]},
    "svm_toolkit.rst": {"printed": ["[0 1]", "[ 1 -1]", "rbf: test accuracy"]},
}
"""What some files' examples print or write, beyond running without an error."""


def python_examples(path):
    """Return the Python examples of a Markdown or reStructuredText file, in order."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    examples, lines = [], text.splitlines()
    for k, line in enumerate(lines):
        if line.strip() == ".. code-block:: python":
            indent = len(line) - len(line.lstrip())
            block = []
            for body in lines[k + 1 :]:
                if body.strip() and len(body) - len(body.lstrip()) <= indent:
                    break
                block.append(body)
            examples.append(textwrap.dedent("\n".join(block)).strip() + "\n")
    return examples


def run_examples(path, examples, tmp_path, monkeypatch):
    # A user's script is the __main__ module: its classes pickle by reference within the
    # process and by value for joblib's workers. A registered module reproduces both.
    script = types.ModuleType(f"example_script_{path.stem}")
    monkeypatch.setitem(sys.modules, script.__name__, script)
    cloudpickle.register_pickle_by_value(script)
    monkeypatch.chdir(tmp_path)
    try:
        for code in examples:
            if not code.startswith(NEEDS_A_CLUSTER) and has_the_modules_it_needs(code):
                exec(compile(code, str(path), "exec"), script.__dict__)
    finally:
        cloudpickle.unregister_pickle_by_value(script)


def has_the_modules_it_needs(code):
    """Return whether the optional module an example names in its first line is installed."""
    first_line = code.splitlines()[0]
    if not first_line.startswith(NEEDS_A_MODULE):
        return True
    return importlib.util.find_spec(first_line.removeprefix(NEEDS_A_MODULE).strip()) is not None


def check_expected(name, printed, tmp_path):
    expected = EXPECTED.get(name, {})
    for text in expected.get("printed", []):
        assert text in printed, f"{name}: its examples did not print {text!r}"
    for file in expected.get("files", []):
        assert (tmp_path / file).exists(), f"{name}: its examples did not write {file}"


def test_the_readme_example_runs(tmp_path, monkeypatch, capsys):
    readme = ROOT / "README.md"
    examples = python_examples(readme)
    assert examples, "the README has no Python example"
    run_examples(readme, examples, tmp_path, monkeypatch)
    check_expected(readme.name, capsys.readouterr().out, tmp_path)


PAGES_WITH_EXAMPLES = [page for page in PAGES if page.name in EXPECTED or python_examples(page)]
"""The pages with Python examples, and those whose examples are expected to print or write."""


@pytest.mark.parametrize(
    "page", PAGES_WITH_EXAMPLES, ids=lambda page: str(page.relative_to(ROOT / "docs"))
)
def test_the_examples_of_a_documentation_page_run(page, tmp_path, monkeypatch, capsys):
    examples = python_examples(page)
    assert examples, f"{page.name} lost its examples"
    run_examples(page, examples, tmp_path, monkeypatch)
    check_expected(page.name, capsys.readouterr().out, tmp_path)


def test_the_fast_task_example_runs(tmp_path):
    # The guide's page on fast tasks shows this gallery script, which the gallery runs only
    # with the docs extra: here it runs as a user runs it.
    script = ROOT / "examples" / "plot_fast_task.py"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    run = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "check_task(FewChangesTask): no problems" in run.stdout
    assert "converged True" in run.stdout


def test_every_page_with_expectations_exists():
    names = {page.name for page in PAGES} | {"README.md"}
    assert set(EXPECTED) <= names
