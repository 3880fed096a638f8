"""Optional and heavy libraries (SciPy, h5py ...) loaded on first use, not at ``import phylanx``.

Importing SciPy costs more than the rest of phylanx together, and most programs never
call a primitive that needs it.  A module binds the library's name to a proxy instead
of importing it, so the bodies that use it stay as they were::

    scipy = lazy_module("scipy")          # instead of ``import scipy.linalg``
    lapack = lazy_module("scipy.linalg.lapack")

    def lu(a):
        return scipy.linalg.lu(a)         # SciPy is imported here, on the first call

An attribute of the proxy that is a submodule (``scipy.linalg``) is imported too.
Values needed at *declaration* time (an oracle, a ufunc whose loops are inspected) are
wrapped with :func:`lazy_attribute`, a callable proxy that forwards calls and attribute
reads (``erf.types``) to the real object once it is needed.  :func:`lazy_functions`
makes every attribute such a proxy, for a module whose functions sit in tables built
at import time (``(("cg", sla.cg), ...)``).
"""
from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name`` and imports it when an attribute is first read."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module = None

    def __getattr__(self, attr: str) -> Any:
        # kept once imported: importlib.import_module costs ~3 us a call even then, as much
        # as a small solve's LAPACK call (linear_solver_lu of order 10 read it three times)
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        try:
            return getattr(module, attr)
        except AttributeError:
            # a submodule the package does not import itself (``scipy.sparse.linalg``)
            return importlib.import_module(f"{self._name}.{attr}")

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


class LazyAttribute:
    """Stands for ``module.attr``: calling it or reading its attributes imports ``module``."""

    __slots__ = ("_module", "_attr", "__name__", "_value")

    def __init__(self, module: str, attr: str) -> None:
        self._module = module
        self._attr = attr
        self.__name__ = attr
        self._value = None

    def resolve(self) -> Any:
        value = self._value                     # kept once imported (as LazyModule)
        if value is None:
            value = self._value = getattr(importlib.import_module(self._module), self._attr)
        return value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.resolve(), attr)

    def __repr__(self) -> str:
        return f"<lazy {self._module}.{self._attr}>"


def lazy_module(name: str) -> LazyModule:
    """A proxy for the module ``name`` (see the module docstring)."""
    return LazyModule(name)


class LazyFunctions:
    """Stands for a module of functions: ``proxy.f`` is ``lazy_attribute(name, "f")``."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> LazyAttribute:
        return LazyAttribute(self._name, attr)

    def __repr__(self) -> str:
        return f"<lazy functions of {self._name!r}>"


def lazy_functions(name: str) -> LazyFunctions:
    """A proxy whose attributes are :class:`LazyAttribute`: nothing imports until a call."""
    return LazyFunctions(name)


def lazy_attribute(module: str, attr: str) -> LazyAttribute:
    """A callable proxy for ``module.attr``, imported on first call or attribute read."""
    return LazyAttribute(module, attr)
