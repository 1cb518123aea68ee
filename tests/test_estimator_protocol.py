"""The estimators keep scikit-learn's protocol without importing scikit-learn.

Parameters are read and set by name (nested ones as ``outer__inner``), the repr shows the
parameters that differ from their defaults, pipelines and clones take the estimators, and the
fitted-state error and the convergence warning are scikit-learn's classes once it is imported.
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
from sklearn.exceptions import NotFittedError as SklearnNotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from structsvm import ConvergenceWarning, MulticlassSVM, NotFittedError, StructuredSVM
from structsvm._utils.estimator import BaseEstimator, warn_not_converged
from tasks import ChainTask


def test_without_scikit_learn_the_errors_are_the_package_own_classes():
    probe = (
        "import sys, warnings\n"
        "import numpy as np\n"
        "from structsvm import ConvergenceWarning, NotFittedError, StructuredSVM\n"
        "from structsvm._utils.estimator import warn_not_converged\n"
        "from tasks import ChainTask\n"
        "try:\n"
        "    StructuredSVM(ChainTask(2, 2)).predict([np.zeros((3, 2))])\n"
        "except NotFittedError as error:\n"
        "    print(type(error).__mro__[1].__name__)\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    warn_not_converged('stopped')\n"
        "print(caught[0].category is ConvergenceWarning, 'sklearn' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.splitlines() == ["ValueError", "True False"]


def test_with_scikit_learn_loaded_its_classes_catch_the_errors_and_warnings():
    with pytest.raises(SklearnNotFittedError) as raised:
        StructuredSVM(ChainTask(2, 2)).predict([np.zeros((3, 2))])
    assert isinstance(raised.value, NotFittedError)
    assert isinstance(raised.value, AttributeError)
    with pytest.warns(SklearnConvergenceWarning) as caught:
        warn_not_converged("stopped")
    assert issubclass(caught[0].category, ConvergenceWarning)


class Inner(BaseEstimator):
    def __init__(self, a=1):
        self.a = a


class Outer(BaseEstimator):
    def __init__(self, inner=None, b=2.0):
        self.inner = inner
        self.b = b


def test_get_params_and_set_params_reach_nested_estimators():
    outer = Outer(Inner(5))
    assert outer.get_params(deep=False) == {"inner": outer.inner, "b": 2.0}
    assert outer.get_params() == {"inner": outer.inner, "inner__a": 5, "b": 2.0}
    assert outer.set_params(b=3.0, inner__a=7) is outer
    assert (outer.b, outer.inner.a) == (3.0, 7)
    with pytest.raises(ValueError, match="Invalid parameter 'gamma' for estimator Outer"):
        outer.set_params(gamma=1.0)
    assert repr(outer) == "Outer(b=3.0, inner=Inner(a=7))"


def test_the_repr_names_the_parameters_that_differ_from_their_defaults():
    assert repr(MulticlassSVM()) == "MulticlassSVM()"
    assert repr(MulticlassSVM(C=0.5, solver="bcfw")) == "MulticlassSVM(C=0.5, solver='bcfw')"


def test_a_pipeline_and_a_clone_take_the_flat_estimators(points_around):
    X, y = points_around([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]], 20, 0.5, seed=0)
    pipeline = make_pipeline(StandardScaler(), MulticlassSVM(C=1.0, random_state=0)).fit(X, y)
    scaled = StandardScaler().fit_transform(X)
    model = clone(MulticlassSVM(C=1.0, random_state=0)).fit(scaled, y)
    np.testing.assert_array_equal(pipeline.predict(X), model.predict(scaled))
    assert pipeline.score(X, y) == model.score(scaled, y) == np.mean(model.predict(scaled) == y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clone(pipeline).get_params()["multiclasssvm__C"] == 1.0
