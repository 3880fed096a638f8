"""Every primitive with a NumPy twin, called from decorated Python code.

For each primitive whose oracle *is* a NumPy function (``np.sqrt``, ``np.sum`` ...),
a module with ``@Phylanx def f(a0, a1): return np.<twin>(a0, a1)`` is written and
imported; the decorated function must agree with its own undecorated ``.python``
on the primitive's samples.  This checks the frontend's NumPy mapping and the
primitive together, with NumPy (the plain Python run) as the oracle.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx.errors import PhylanxError
from phylanx.primitives.registry import all_specs

from .families import samples_for
from .harness import as_phylanx_arguments, assert_same, decorated_numpy_module, quiet_numpy


def numpy_twin(spec) -> str | None:
    """``"sqrt"`` when the spec's oracle is ``np.sqrt`` itself (or ``np.linalg.x``)."""
    oracle = spec.oracle
    name = getattr(oracle, "__name__", None)
    if name is None or name == "<lambda>":
        return None
    if getattr(np, name, None) is oracle:
        return name
    if getattr(np.linalg, name, None) is oracle:
        return f"linalg.{name}"
    return None


def _cases():
    cases = []
    for spec in all_specs():
        twin = numpy_twin(spec)
        if twin is None:
            continue
        for i, args in enumerate(samples_for(spec)[:6]):
            cases.append(pytest.param(spec.name, twin, args, id=f"{spec.name}-{i}"))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    """One generated module holding a decorated function per (twin, arity)."""
    wanted = sorted({(twin, len(args)) for _, twin, args in (c.values for c in CASES)})
    calls = [(f"{twin.replace('.', '_')}_{n}", twin, n) for twin, n in wanted]
    return decorated_numpy_module(tmp_path_factory.mktemp("roundtrip"), "numpy_twins", calls)


def test_there_are_twins():
    assert len(CASES) > 100


@pytest.mark.parametrize("name, twin, args", CASES)
def test_decorated_numpy_call_matches_plain_python(twins, name, twin, args):
    fn = getattr(twins, f"{twin.replace('.', '_')}_{len(args)}")
    values = as_phylanx_arguments(args)
    with quiet_numpy():
        try:
            expected = fn.python(*values)
        except Exception:  # noqa: BLE001 - NumPy refuses: phylanx must refuse too, located
            with pytest.raises(PhylanxError):
                fn(*values)
            return
        actual = fn(*values)
    if isinstance(expected, tuple):
        expected = list(expected)
    assert_same(actual, expected, dtype="kind", where=f"np.{twin}")
