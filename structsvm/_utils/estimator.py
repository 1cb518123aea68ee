"""scikit-learn's estimator protocol without importing scikit-learn.

Every estimator of the package derives from :class:`BaseEstimator`: its hyper-parameters are
the arguments of ``__init__``, stored under their own names, which :meth:`~BaseEstimator.get_params`
and :meth:`~BaseEstimator.set_params` read and write as scikit-learn's do, so ``sklearn.clone``,
``GridSearchCV`` and ``Pipeline`` take the estimators as they are. The mixins add what
scikit-learn's add: the estimator type in the tags and the default ``score``. Tags are
scikit-learn's own objects, built when scikit-learn asks for them (it is then imported).

Importing scikit-learn loads SciPy's statistics and optimisation packages and costs about
60 MB, which a structured fit does not need; this module lets ``import structsvm`` skip it.
The fitted-state error and the convergence warning are the package's own classes; once
``sklearn.exceptions`` is imported (by anyone who can catch or filter scikit-learn's classes)
they are raised as subclasses of scikit-learn's too, so ``except NotFittedError`` with
scikit-learn's class, and its warning filters, keep working.

References
----------
.. [1] Buitinck et al., "API design for machine learning software: experiences from the
   scikit-learn project", ECML PKDD Workshop on Languages for Data Mining and Machine
   Learning, 2013.
"""

from __future__ import annotations

import inspect
import sys
import warnings
from functools import cache
from typing import Any, ClassVar


class NotFittedError(ValueError, AttributeError):
    """A method that needs a fitted estimator was called before ``fit``.

    It is a ValueError and an AttributeError, as scikit-learn's class of the same name.
    """


class ConvergenceWarning(UserWarning):
    """A solver stopped at its iteration budget before reaching its tolerance."""


@cache
def _with_sklearn_base(own: type, module: str, name: str) -> type:
    """Return a subclass of ``own`` and of scikit-learn's class ``module.name``."""
    theirs = getattr(sys.modules[module], name)
    return type(own.__name__, (own, theirs), {"__module__": own.__module__,
                                              "__doc__": own.__doc__})


def _compatible(own: type) -> type:
    """Return ``own``, or its subclass that is scikit-learn's class too once that is imported."""
    if "sklearn.exceptions" not in sys.modules:
        return own
    return _with_sklearn_base(own, "sklearn.exceptions", own.__name__)


def not_fitted_error(message: str) -> NotFittedError:
    """Return a :class:`NotFittedError` with ``message`` (scikit-learn's class too, if loaded)."""
    return _compatible(NotFittedError)(message)


def warn_not_converged(message: str, stacklevel: int = 2) -> None:
    """Warn with a :class:`ConvergenceWarning` (scikit-learn's class too, if loaded)."""
    warnings.warn(message, _compatible(ConvergenceWarning), stacklevel=stacklevel + 1)


def check_is_fitted(estimator: Any, attribute: str) -> None:
    """Raise :class:`NotFittedError` unless ``estimator`` has the fitted ``attribute``."""
    if not hasattr(estimator, attribute):
        raise not_fitted_error(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )


class BaseEstimator:
    """Hyper-parameters from the signature of ``__init__``, read and set by name.

    Subclasses take every hyper-parameter as an explicit argument of ``__init__`` (no
    ``*args``/``**kwargs``) and store it unchanged under its own name.
    """

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """Return the sorted names of the arguments of ``__init__``."""
        if cls.__init__ is object.__init__:
            return []
        names = []
        for parameter in inspect.signature(cls.__init__).parameters.values():
            if parameter.name == "self" or parameter.kind == parameter.VAR_KEYWORD:
                continue
            if parameter.kind == parameter.VAR_POSITIONAL:
                raise RuntimeError(
                    f"{cls.__name__}.__init__ must name its parameters, not take *args"
                )
            names.append(parameter.name)
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Return the hyper-parameters by name; with ``deep``, those of nested estimators too.

        A nested estimator's parameters are named ``<parameter>__<its parameter>``.
        """
        params: dict[str, Any] = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                params.update((f"{name}__{key}", val) for key, val in value.get_params().items())
            params[name] = value
        return params

    def set_params(self, **params: Any) -> BaseEstimator:
        """Set hyper-parameters by name (``<parameter>__<its parameter>`` for nested ones).

        Raises
        ------
        ValueError
            If a name is not a parameter of this estimator.
        """
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, delimiter, sub_name = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {self}. "
                    f"Valid parameters are: {self._get_param_names()!r}."
                )
            if delimiter:
                nested.setdefault(name, {})[sub_name] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        """Return ``Name(parameter=value, ...)`` with the parameters that differ from defaults."""
        defaults = {
            name: parameter.default
            for name, parameter in inspect.signature(type(self).__init__).parameters.items()
        }
        changed = [
            f"{name}={value!r}"
            for name, value in self.get_params(deep=False).items()
            if defaults.get(name, inspect.Parameter.empty) is inspect.Parameter.empty
            or repr(value) != repr(defaults[name])
        ]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self) -> Any:
        """Return scikit-learn's default tags (scikit-learn calls this, so it is loaded)."""
        from sklearn.utils import Tags, TargetTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=None,
            regressor_tags=None,
            classifier_tags=None,
        )


class _SupervisedMixin:
    """An estimator whose fit requires targets: its type in the tags, ``score`` by a metric."""

    _estimator_type: ClassVar[str]
    _metric: ClassVar[str]

    def __sklearn_tags__(self) -> Any:
        import sklearn.utils

        tags = super().__sklearn_tags__()  # type: ignore[misc]
        kind = self._estimator_type
        tags.estimator_type = kind
        setattr(tags, f"{kind}_tags", getattr(sklearn.utils, f"{kind.capitalize()}Tags")())
        tags.target_tags.required = True
        return tags

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Return the metric of the class (see its docstring) of the predictions of X against y."""
        # Imported here: sklearn.metrics brings in much of scikit-learn.
        import sklearn.metrics

        metric = getattr(sklearn.metrics, self._metric)
        return float(metric(y, self.predict(X), sample_weight=sample_weight))  # type: ignore[attr-defined]


class ClassifierMixin(_SupervisedMixin):
    """A classifier; ``score`` is the (weighted) accuracy, as scikit-learn's ``accuracy_score``."""

    _estimator_type = "classifier"
    _metric = "accuracy_score"


class RegressorMixin(_SupervisedMixin):
    """A regressor; ``score`` is the coefficient of determination R², as ``r2_score``."""

    _estimator_type = "regressor"
    _metric = "r2_score"


class OutlierMixin:
    """An outlier detector: tagged so; ``fit_predict`` fits on X and labels X."""

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        tags.estimator_type = "outlier_detector"
        return tags

    def fit_predict(self, X: Any, y: Any = None, **kwargs: Any) -> Any:
        """Fit on X and return the labels of X (+1 inlier, -1 outlier)."""
        return self.fit(X, **kwargs).predict(X)  # type: ignore[attr-defined]
