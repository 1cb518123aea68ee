"""A package's public names, each imported from the module that defines it when first used.

A package's ``__init__`` names its exports by module and takes ``__all__``, ``__getattr__`` and
``__dir__`` from :func:`lazy_exports` (PEP 562), so that ``import structsvm`` loads none of the
learners, tasks or readers a program does not use.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple


class LazyExports(NamedTuple):
    """A package's ``__all__``, ``__getattr__`` and ``__dir__``."""

    all: list[str]
    getattr: Callable[[str], Any]
    dir: Callable[[], list[str]]


def lazy_exports(package: str, origins: Mapping[str, Sequence[str]]) -> LazyExports:
    """Return the exports of ``package``, which takes from each module of ``origins`` its names.

    A name is imported from its module on first access and kept in the package's namespace; a
    subpackage or submodule is imported when it is first accessed as an attribute.

    Parameters
    ----------
    package : str
        The package's name (its ``__name__``).
    origins : mapping of str to sequence of str
        The absolute name of each module the package re-exports from, with the names it takes.
    """
    source = {name: module for module, names in origins.items() for name in names}

    def __getattr__(name: str) -> Any:
        namespace = vars(sys.modules[package])
        if name in source:
            value = getattr(importlib.import_module(source[name]), name)
        elif importlib.util.find_spec(f"{package}.{name}") is not None:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(source))

    return LazyExports(list(source), __getattr__, __dir__)
