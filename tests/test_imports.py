"""Importing the packages leaves the heavy optional modules unimported until they are used."""

import subprocess
import sys

import pytest

# Plotting, Dask, joblib (with multiprocessing and asyncio), the progress bar, the command line,
# scikit-learn (which loads SciPy's statistics and optimisation) and the parts of SciPy a
# structured fit does not use are imported by the functions that use them.
LAZY = (
    "matplotlib",
    "joblib",
    "multiprocessing",
    "asyncio",
    "structsvm.plotting",
    "structsvm.cli",
    "dask",
    "distributed",
    "pandas",
    "numba.cuda",
    "tqdm",
    "sklearn",
    "scipy.stats",
    "scipy.optimize",
    "scipy.linalg",
    "scipy.spatial",
)


def test_importing_the_packages_imports_none_of_the_lazy_modules():
    # One fresh process: the modules imported by structsvm alone, then by tasks on top of it.
    probe = (
        "import sys\n"
        "for package in ('structsvm', 'tasks'):\n"
        "    __import__(package)\n"
        f"    print(package, *(name for name in {LAZY!r} if name in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.splitlines() == ["structsvm", "tasks"]


def test_the_lazily_imported_names_still_work():
    from structsvm import mean_ndcg

    assert mean_ndcg([2.0, 1.0, 0.0], [0.3, 0.2, 0.1]) == pytest.approx(1.0)


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in kilobytes on Linux")
def test_the_packages_add_little_memory_to_the_libraries_a_fit_needs():
    # Numba, NumPy, SciPy's sparse matrices and cvxopt are what a fit runs on (about 105 MB);
    # structsvm and tasks add about 12 MB of their own.
    peak = "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    libraries = "import numba, numpy, scipy.sparse, cvxopt"

    def peak_kilobytes(imports):
        result = subprocess.run(
            [sys.executable, "-c", f"{imports}; {peak}"],
            capture_output=True, text=True, check=True, timeout=120,
        )
        return int(result.stdout)

    added = peak_kilobytes(f"{libraries}; import structsvm, tasks") - peak_kilobytes(libraries)
    assert added < 40 * 1024
