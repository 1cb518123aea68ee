"""Sphinx configuration of the structsvm documentation.

Build it from the root of the repository with ``python -m sphinx -W -b html docs docs/_build/html``.
"""

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # document this checkout, not another installed copy
os.environ.setdefault("MPLBACKEND", "Agg")

import structsvm  # noqa: E402

project = "structsvm"
author = "the structsvm developers"
copyright = "the structsvm developers"
release = version = structsvm.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_theme_options = {"description": "Structured prediction with max-margin methods"}
nitpicky = False

autosummary_generate = True

# The modules of the API reference, and the shorter public path re-exporting some of their names.
API_MODULES = [
    "structsvm",
    "structsvm.kernels",
    "structsvm.inference",
    "structsvm.hinge",
    "structsvm.torch",
    "structsvm.jax",
    "structsvm.io",
    "structsvm.datasets",
    "structsvm.plotting",
    "tasks",
    "tasks.chunking",
    "tasks.structures",
]
RE_EXPORTED_BY = {
    "structsvm.kernels": "structsvm",
    "structsvm.inference": "structsvm",
    "structsvm.io": "structsvm",
    "tasks.chunking": "tasks",
}


def _documented_elsewhere():
    """Map a module to its names re-exported by a shorter path, documented only there."""
    import importlib

    elsewhere = {}
    for name, parent_name in RE_EXPORTED_BY.items():
        module, parent = importlib.import_module(name), importlib.import_module(parent_name)
        elsewhere[name] = {
            item: f"{parent_name}.{item}"
            for item in module.__all__
            if getattr(parent, item, None) is getattr(module, item)
        }
    return elsewhere


autosummary_context = {"documented_elsewhere": _documented_elsewhere()}
autosummary_ignore_module_all = False
autodoc_default_options = {"members": True, "inherited-members": False}
# The adapters' frameworks are optional extras: where one is not installed, it is mocked so that
# its adapter's page still builds from the docstrings.
autodoc_mock_imports = [
    name for name in ("torch", "jax") if importlib.util.find_spec(name) is None
]
autodoc_typehints = "none"  # the numpydoc Parameters sections say the types

numpydoc_show_class_members = False  # the autosummary templates list the members
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

intersphinx_mapping = {}

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
}


def markdown_as_rst(path):
    """Convert a Markdown file of paragraphs, inline code, bold and tables to reStructuredText.

    ``docs/benchmark_tables.md``, which ``python -m experiments.benchmarks --tables`` writes, is
    the one home of the benchmark tables; the benchmarks page shows them converted.
    """
    out, table = [], []

    def inline(line):
        parts = line.split("`")
        return "".join(f"``{part}``" if k % 2 else part for k, part in enumerate(parts))

    def flush_table():
        rows = [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in table]
        rows = [row for row in rows if not all(set(cell) <= set("-: ") for cell in row)]
        out.extend(["", ".. list-table::", "   :header-rows: 1", ""])
        for row in rows:
            for k, cell in enumerate(row):
                out.append(f"   {'* -' if k == 0 else '  -'} {inline(cell) or ' '}")
        out.append("")
        table.clear()

    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        if table:
            flush_table()
        if not line.startswith("<!--"):
            out.append(inline(line))
    if table:
        flush_table()
    return "\n".join(out) + "\n"


GENERATED = Path(__file__).resolve().parent / "_generated"
GENERATED.mkdir(exist_ok=True)
(GENERATED / "benchmark_tables.rst").write_text(
    markdown_as_rst(Path(__file__).resolve().parent / "benchmark_tables.md")
)
exclude_patterns.append("_generated")


def skip_metadata_routing(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated ``set_*_request`` methods, which are not ours."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", skip_metadata_routing)
