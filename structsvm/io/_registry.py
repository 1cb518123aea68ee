"""The closed registry of classes and functions a model file may name.

A model file names every object by the name of its class; loading looks that name up here and
nowhere else, so nothing is ever imported by name from a file. The registry holds the
project's own classes: the public ones under their public names (``structsvm.StructuredSVM``,
``tasks.ChainTask``), and the classes the solvers, learners, kernels, inference and tasks
keep their state in under their module's name (``structsvm.solvers._bcfw.BCFWDual``), and
Python's built-in exception classes as values (``builtins.RuntimeError``). Other
classes, a user's own task for one, are added by :func:`register` or passed to
:func:`structsvm.load` as ``task_classes``. Functions an object holds as a value (such as the
default output key of an oracle pass) are named the same way, from a short explicit list.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterable
from types import FunctionType
from typing import Any

_PUBLIC_NAMESPACES = (
    "structsvm",
    "structsvm.learners",
    "structsvm.kernels",
    "structsvm.solvers",
    "structsvm.qp",
    "structsvm.inference",
    "tasks",
    "tasks.chunking",
)
"""Modules whose ``__all__`` gives the public names of the project's classes, first one wins."""

_STATE_PACKAGES = (
    "structsvm.solvers",
    "structsvm.learners",
    "structsvm.kernels",
    "structsvm.qp",
    "structsvm.inference",
    "tasks",
)
"""Packages every class of which may hold a fitted estimator's or a solver's state."""

_STATE_MODULES = (
    "structsvm._task",
    "structsvm._compiled_oracle",
    "structsvm._utils.parallel",
    "structsvm.cli._model",
)
"""Single modules whose classes may hold state."""

_HELD_FUNCTIONS = ("structsvm._task.array_key",)
"""Project functions an object may hold as a value (``module.name``)."""

_PROJECT_ROOTS = ("structsvm", "tasks")

_user_classes: dict[str, type] = {}
_user_functions: dict[str, Callable[..., Any]] = {}


def qualified_name(obj: type | Callable[..., Any]) -> str:
    """Return ``module.qualname`` of a class or function."""
    return f"{obj.__module__}.{obj.__qualname__}"


def is_project_class(cls: type) -> bool:
    """Tell whether a class is defined in the structsvm or tasks packages."""
    return cls.__module__.split(".")[0] in _PROJECT_ROOTS


@functools.cache
def _project_classes() -> dict[str, type]:
    """Return the project's classes by the name a model file gives them."""
    classes: dict[str, type] = {}
    for namespace in _PUBLIC_NAMESPACES:
        module = importlib.import_module(namespace)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isclass(obj) and is_project_class(obj) and obj not in classes.values():
                classes[f"{namespace}.{name}"] = obj
    named = set(classes.values())
    for obj in vars(builtins).values():
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            classes[f"builtins.{obj.__name__}"] = obj
            named.add(obj)
    for module in _state_modules():
        for _, obj in sorted(vars(module).items()):
            if inspect.isclass(obj) and obj.__module__ == module.__name__ and obj not in named:
                classes[qualified_name(obj)] = obj
                named.add(obj)
    return classes


def _state_modules() -> Iterable[Any]:
    """Import and yield every module of :data:`_STATE_PACKAGES` and :data:`_STATE_MODULES`."""
    for package_name in _STATE_PACKAGES:
        package = importlib.import_module(package_name)
        yield package
        for info in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            yield importlib.import_module(info.name)
    for name in _STATE_MODULES:
        yield importlib.import_module(name)


@functools.cache
def _project_functions() -> dict[str, Callable[..., Any]]:
    """Return the project functions of :data:`_HELD_FUNCTIONS` by name."""
    functions = {}
    for name in _HELD_FUNCTIONS:
        module_name, _, attribute = name.rpartition(".")
        functions[name] = getattr(importlib.import_module(module_name), attribute)
    return functions


@functools.cache
def _project_names() -> dict[Any, str]:
    """Return the name of every project class and function, by the object."""
    return {obj: name for name, obj in [*_project_classes().items(), *_project_functions().items()]}


def register(obj: type | Callable[..., Any]) -> type | Callable[..., Any]:
    """Let model files name a class (a user's own task) or a function, for this process.

    The file names it ``module.qualname``; :func:`structsvm.load` rebuilds an object of a
    registered class from its attributes, without calling the class's ``__init__``. Usable
    as a class decorator; returns ``obj``.

    Raises
    ------
    TypeError
        If ``obj`` is neither a class nor a plain function.
    ValueError
        If ``obj`` is one of the project's own classes or functions, or another object is
        registered under its name.
    """
    if inspect.isclass(obj):
        table: dict[str, Any] = _user_classes
    elif isinstance(obj, FunctionType):
        table = _user_functions
    else:
        raise TypeError(f"register takes a class or a function, got {type(obj).__name__}")
    name = qualified_name(obj)
    if obj in _project_names():
        raise ValueError(f"{name} is one of structsvm's own and needs no registering")
    if table.get(name, obj) is not obj:
        raise ValueError(f"another object is already registered as {name}")
    table[name] = obj
    return obj


def name_of_class(cls: type) -> str:
    """Return the name a model file gives a class."""
    return _project_names().get(cls) or qualified_name(cls)


def name_of_function(function: Callable[..., Any]) -> str | None:
    """Return the name of a registered function, or None if it is not registered."""
    name = _project_names().get(function)
    if name is not None:
        return name
    name = qualified_name(function)
    return name if _user_functions.get(name) is function else None


def find_class(name: str, extra: dict[str, type]) -> type | None:
    """Return the class a model file names, from the registry or ``extra``; None if unknown."""
    return _project_classes().get(name) or _user_classes.get(name) or extra.get(name)


def find_function(name: str) -> Callable[..., Any] | None:
    """Return the registered function a model file names; None if unknown."""
    return _project_functions().get(name) or _user_functions.get(name)
