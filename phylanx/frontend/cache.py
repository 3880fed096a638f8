"""Optional on-disk cache of translations, keyed on the function's source.

Enabled by the ``cache_dir`` setting (``PHYLANX_CACHE_DIR``).  The key hashes
the function's source text, its file and first line, the Python version and
this package's version, plus how its free names resolve (so renaming a helper
or rebinding ``np`` gives a new entry); never the function's name alone.  A
hit still re-links names, because the cached AST only holds PhySL names.
"""
from __future__ import annotations

import hashlib
import inspect
import os
import pickle
import sys

from .. import config

_VERSION = 1


def _directory() -> str | None:
    try:
        path = config.get("cache_dir")
    except Exception:   # the setting is optional
        return None
    return path or None


def _key(decorator) -> str:
    source = inspect.getsource(decorator.python)
    names = sorted(decorator.python.__code__.co_names)
    parts = [source, decorator.file, str(decorator.python.__code__.co_firstlineno),
             sys.version, str(_VERSION), decorator.state_name, repr(names)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def load(decorator):
    """The cached translation of ``decorator``, or None (also on any cache problem)."""
    directory = _directory()
    if directory is None:
        return None
    try:
        with open(os.path.join(directory, _key(decorator) + ".pkl"), "rb") as f:
            program = pickle.load(f)
    except Exception:
        return None
    # linking (dependencies, external values) is redone from the live namespace
    from .translator import translate
    result = translate(decorator._node, decorator.python, decorator.locator,
                       decorator.state_name, _linker(decorator), _defaults(decorator))
    return result if result.program == program else None


def store(decorator, translation) -> None:
    directory = _directory()
    if directory is None:
        return
    try:
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, _key(decorator) + ".pkl")
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            pickle.dump(translation.program, f)
        os.replace(tmp, path)
    except Exception:
        return


def _linker(decorator):
    from .decorator import linker_of
    return linker_of(decorator.state)


def _defaults(decorator):
    return {p.name: p.default for p in decorator._signature.parameters.values()
            if p.default is not inspect.Parameter.empty}
