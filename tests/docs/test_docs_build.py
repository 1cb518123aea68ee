"""The documentation builds without a warning, and its pages show in a real browser.

Marked ``docs`` (deselect with ``-m "not docs"``): one Sphinx build runs every gallery example
and documents every public name, about a minute on two cores.
"""

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PUBLIC_MODULES = {
    "structsvm": None,
    "structsvm.kernels": "structsvm",
    "structsvm.inference": "structsvm",
    "structsvm.io": "structsvm",
    "structsvm.hinge": None,
    "tasks": None,
    "tasks.chunking": "tasks",
    "tasks.structures": None,
}
"""Modules whose ``__all__`` the API reference covers, with the package re-exporting them."""

pytestmark = pytest.mark.docs
pytest.importorskip("sphinx", reason="the docs extra is not installed")
pytest.importorskip("numpydoc", reason="the docs extra is not installed")
pytest.importorskip("sphinx_gallery", reason="the docs extra is not installed")


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    """Build the site once, with warnings as errors, as the README's command does."""
    out = tmp_path_factory.mktemp("html")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    command = [sys.executable, "-m", "sphinx", "-W", "-b", "html", "docs", str(out)]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    return out


def test_every_public_name_has_an_api_page(html):
    missing = []
    for module_name, parent in PUBLIC_MODULES.items():
        module = importlib.import_module(module_name)
        for name in module.__all__:
            candidates = [html / "api" / f"{module_name}.{name}.html"]
            if parent is not None:
                candidates.append(html / "api" / f"{parent}.{name}.html")
            if not any(page.is_file() for page in candidates):
                missing.append(f"{module_name}.{name}")
    assert not missing, f"no API page for {missing}"


def test_every_example_is_in_the_gallery_with_a_figure(html):
    for script in sorted((ROOT / "examples").glob("plot_*.py")):
        assert (html / "auto_examples" / f"{script.stem}.html").is_file(), script.name
        images = list((html / "_images").glob(f"sphx_glr_{script.stem}_*.png"))
        assert images, f"{script.name} drew no figure"


def test_guide_pages_and_benchmarks_are_built(html):
    guide = ROOT / "docs" / "user_guide"
    for source in guide.glob("*.rst"):
        assert (html / "user_guide" / f"{source.stem}.html").is_file(), source.name
    benchmarks = (html / "benchmarks.html").read_text(encoding="utf-8")
    assert "OCR letters, small split" in benchmarks and "<table" in benchmarks


def _chrome_driver():
    """A headless Chromium driven by Selenium, or a skip saying what is missing."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if browser is None or driver_path is None:
        pytest.skip(
            "Chromium or chromedriver is not installed "
            "(on Debian: apt-get install chromium chromium-driver); the browser check needs both"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    service = webdriver.ChromeService(executable_path=driver_path)
    return webdriver.Chrome(options=options, service=service)


LOADED_IMAGES = "return Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0)"
"""Script returning the page's images that the browser loaded and decoded."""


def test_pages_render_in_chromium(html):
    driver = _chrome_driver()
    try:
        driver.get((html / "auto_examples" / "plot_grid_denoising.html").as_uri())
        loaded = driver.execute_script(LOADED_IMAGES + ".map(i => i.src)")
        assert any("sphx_glr_plot_grid_denoising_001" in src for src in loaded), loaded

        driver.get((html / "auto_examples" / "index.html").as_uri())
        thumbnails = driver.execute_script(LOADED_IMAGES + ".length")
        assert thumbnails >= len(list((ROOT / "examples").glob("plot_*.py")))

        driver.get((html / "api" / "structsvm.StructuredSVM.html").as_uri())
        signature = driver.execute_script(
            "const d = document.querySelector('dl.py.class dt'); return d && d.innerText"
        )
        assert signature and "StructuredSVM" in signature
        assert "Parameters" in driver.execute_script("return document.body.innerText")
    finally:
        driver.quit()
