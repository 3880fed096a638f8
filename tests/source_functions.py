"""Functions a test writes as Python source text, decorated: the one helper of the tests
and test programs that generate programs (random chains, rule samples, spellings).

The text is registered in ``linecache`` under its own file name, so that the decorator
reads the source as it reads a file's and errors quote its lines
(``<gram_tiles sigmoid_gram>:2:``).  The distributed programs import it as a top-level
module (``tests/`` put on ``sys.path``), pytest's tests as ``tests.source_functions``.
"""
from __future__ import annotations

import itertools
import linecache
from collections.abc import Callable
from typing import Any

import numpy as np

from phylanx import Phylanx

_count = itertools.count()


def compiled(source: str, name: str, *, label: str | None = None, where: str | None = None,
             decorate: Callable[[Any], Any] = Phylanx) -> Any:
    """``decorate(f)`` of the function ``name`` that ``source`` defines (``np`` in its
    scope); the undecorated ``f`` is its ``.python``.  Its file name is ``where``, else
    ``<label name>``, else ``<name N>`` (N: unique, so that two texts defining one name
    keep their own lines)."""
    if where is None:
        where = f"<{label} {name}>" if label else f"<{name} {next(_count)}>"
    linecache.cache[where] = (len(source), None, source.splitlines(keepends=True), where)
    scope: dict = {"np": np}
    exec(compile(source, where, "exec"), scope)     # noqa: S102 - the test's own text
    fn = decorate(scope[name])
    if getattr(fn, "python", None) is not scope[name]:
        raise AssertionError(f"decorated {name} does not keep the undecorated function")
    return fn
