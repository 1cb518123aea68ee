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


def project_modules_after(statements):
    """Return the structsvm and tasks modules loaded by ``statements`` in a fresh process."""
    probe = (
        f"{statements}\n"
        "import sys\n"
        "print(*sorted(m for m in sys.modules if m.split('.')[0] in ('structsvm', 'tasks')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(result.stdout.split())


def test_importing_the_packages_loads_none_of_their_modules():
    loaded = project_modules_after("import structsvm, tasks")
    assert loaded == {"structsvm", "structsvm._utils", "structsvm._utils.lazy_exports", "tasks"}


def test_a_name_loads_the_modules_it_needs_and_no_others():
    loaded = project_modules_after(
        "from structsvm import StructuredSVM\nfrom tasks import ChainTask"
    )
    assert {"structsvm.learners._ssvm", "structsvm.solvers._one_slack", "tasks._chain"} <= loaded
    unused = {
        "structsvm.inference", "structsvm.kernels", "structsvm.learners._ranking",
        "tasks._dependency", "tasks._graph", "tasks._alignment", "tasks.chunking",
    }
    assert not unused & loaded


def test_cvxopt_is_loaded_by_the_first_qp_that_needs_it():
    # A fit whose working-set QPs its active-set method solves (the OCR letters' 1-slack fit)
    # never loads cvxopt's libraries.
    marker = "import sys\nprint('cvxopt' if 'cvxopt' in sys.modules else '')"
    assert "cvxopt" not in project_modules_after(f"import structsvm.qp\n{marker}")
    solved = project_modules_after(
        "import numpy as np\n"
        "from structsvm.qp import solve_qp\n"
        "solve_qp(np.eye(2), np.ones(2))\n"
        f"{marker}"
    )
    assert "cvxopt" in solved


def test_subpackages_and_submodules_are_attributes_once_asked_for():
    import structsvm
    import tasks

    assert structsvm.solvers.SOLVERS["1-slack"] is structsvm.solvers.one_slack
    assert tasks.chunking.read_conll is tasks.read_conll
    assert "StructuredSVM" in dir(structsvm) and "ChainTask" in dir(tasks)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = structsvm.no_such_name


def test_the_lazily_imported_names_still_work():
    from structsvm import mean_ndcg

    assert mean_ndcg([2.0, 1.0, 0.0], [0.3, 0.2, 0.1]) == pytest.approx(1.0)


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in kilobytes on Linux")
def test_the_packages_add_little_memory_to_the_libraries_a_fit_needs():
    # Numba, NumPy, SciPy's sparse matrices and cvxopt (once a QP needs it) are what a fit runs on;
    # the modules of a structural SVM on a chain add about 9 MB of their own.
    peak = "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    libraries = "import numba, numpy, scipy.sparse, cvxopt"

    def peak_kilobytes(imports):
        result = subprocess.run(
            [sys.executable, "-c", f"{imports}; {peak}"],
            capture_output=True, text=True, check=True, timeout=120,
        )
        return int(result.stdout)

    fit = "from structsvm import StructuredSVM; from tasks import ChainTask"
    added = peak_kilobytes(f"{libraries}; {fit}") - peak_kilobytes(libraries)
    assert added < 20 * 1024
