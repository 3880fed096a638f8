"""Shared machinery of the registry-driven tests: calling a primitive through
PhySL and comparing PhySL values with NumPy/Python expectations.

``call_primitive`` compiles ``lambda(arg0, ..., NAME(arg0, ...))`` once per
name and arity in a module-wide compiler state (the compiler's argument
binding is exercised, not just the kernel) and calls it with the arguments.
``assert_same`` compares recursively: arrays and scalars by shape, dtype
(exact or by kind) and NaN-aware closeness; lists, tuples, dicts, strings
and nil structurally.

Hand-written test modules use ``call`` (``NAME(a0, a1, ...)``), ``evaluate_with``
(any PhySL expression of ``a0, a1, ...``) and ``assert_like_numpy`` (the strict
comparison with a NumPy result: exact dtype, NumPy scalar for 0-d).
"""
from __future__ import annotations

import contextlib
import copy
import warnings
from typing import Any

import numpy as np

import phylanx
from phylanx.values import from_python

_STATE = phylanx.execution_tree.compiler_state("registry-tests", "<registry-tests>")

#: tolerances per floating dtype: float32 results may be computed differently
_TOLERANCES = {np.dtype(np.float32): (1e-5, 1e-6), np.dtype(np.float16): (1e-3, 1e-3)}
_DEFAULT_TOLERANCE = (1e-7, 1e-10)


def lambda_code(name: str, nargs: int) -> str:
    """``lambda(arg0, arg1, NAME(arg0, arg1))``: the primitive called with ``nargs`` values."""
    params = [f"arg{i}" for i in range(nargs)]
    call = f"{name}({', '.join(params)})"
    return f"lambda({', '.join(params + [call])})"


def call_primitive(name: str, *args: Any) -> Any:
    """Evaluate the primitive ``name`` through PhySL with ``args`` (deep-copied)."""
    return phylanx.execution_tree.eval(_STATE, lambda_code(name, len(args)),
                                       *copy.deepcopy(args))


def _parameters(nargs: int) -> str:
    return ", ".join(f"a{i}" for i in range(nargs))


def evaluate_with(code: str, *args: Any) -> Any:
    """``lambda(a0, a1, ..., CODE)`` evaluated with ``args``: CODE refers to ``a0, a1 ...``."""
    params = _parameters(len(args))
    return phylanx.evaluate(f"lambda({params + ', ' if params else ''}{code})", *args)


def call(name: str, *args: Any) -> Any:
    """``NAME(a0, a1, ...)`` through PhySL with the given Python/NumPy arguments."""
    return evaluate_with(f"{name}({_parameters(len(args))})", *args)


def as_phylanx_arguments(args: tuple) -> tuple:
    """What a primitive receives for these Python arguments (0-d arrays become scalars...)."""
    return tuple(from_python(a) for a in copy.deepcopy(args))


@contextlib.contextmanager
def quiet_numpy():
    """NumPy's floating-point warnings off (both sides see the same inputs)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _is_numeric(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic, bool, int, float, complex))


def describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype} array of shape {value.shape}"
    if isinstance(value, np.generic):
        return f"{value.dtype} scalar {value!r}"
    return f"{type(value).__name__} {value!r}"[:200]


def assert_same(actual: Any, expected: Any, dtype: str = "exact", where: str = "result") -> None:
    """Assert that ``actual`` (phylanx) equals ``expected``; ``dtype`` is "exact" or "kind"."""
    if expected is None or isinstance(expected, str):
        assert type(actual) is type(expected) and actual == expected, (
            f"{where}: expected {expected!r}, got {describe(actual)}")
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected a dict, got {describe(actual)}"
        assert sorted(map(str, actual)) == sorted(map(str, expected)), (
            f"{where}: keys {sorted(map(str, actual))} != {sorted(map(str, expected))}")
        for key in expected:
            assert_same(actual[key], expected[key], dtype, f"{where}[{key!r}]")
        return
    if isinstance(expected, (list, tuple, range)):
        assert isinstance(actual, (list, tuple, range)), (
            f"{where}: expected a list of {len(expected)}, got {describe(actual)}")
        assert len(actual) == len(expected), (
            f"{where}: list length {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, dtype, f"{where}[{i}]")
        return
    if _is_numeric(expected):
        assert _is_numeric(actual), f"{where}: expected {describe(expected)}, got " \
                                    f"{describe(actual)}"
        _assert_arrays(np.asarray(actual), np.asarray(expected), dtype, where)
        return
    assert actual == expected, f"{where}: expected {expected!r}, got {describe(actual)}"


def assert_like_numpy(actual: Any, expected: Any, rtol: float | None = None,
                      atol: float = 0.0) -> None:
    """``actual`` (phylanx) is the NumPy result ``expected``, strictly.

    An ndarray where NumPy's result has rank >= 1 and a NumPy scalar where it is 0-d
    (or a Python number); same shape and exact dtype; floating values NaN-aware close
    (``rtol`` defaults to 1e-5 for float32, 1e-12 otherwise), others exactly equal.
    """
    expected_array = np.asarray(expected)
    if expected_array.ndim == 0:
        assert isinstance(actual, np.generic), f"0-d result should be a NumPy scalar: {actual!r}"
    else:
        assert isinstance(actual, np.ndarray), f"expected an array, got {describe(actual)}"
    actual_array = np.asarray(actual)
    assert actual_array.shape == expected_array.shape, (
        f"shape {actual_array.shape} != expected {expected_array.shape}")
    assert actual_array.dtype == expected_array.dtype, (
        f"dtype {actual_array.dtype} != expected {expected_array.dtype}")
    if expected_array.dtype.kind in "fc":
        if rtol is None:
            rtol = 1e-5 if expected_array.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(actual_array, expected_array, rtol=rtol, atol=atol,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(actual_array, expected_array)


def _assert_arrays(actual: np.ndarray, expected: np.ndarray, dtype: str, where: str) -> None:
    assert actual.shape == expected.shape, (
        f"{where}: shape {actual.shape} != expected {expected.shape}")
    if dtype == "exact":
        assert actual.dtype == expected.dtype, (
            f"{where}: dtype {actual.dtype} != expected {expected.dtype}")
    else:
        assert _kind(actual.dtype) == _kind(expected.dtype), (
            f"{where}: dtype {actual.dtype} is not of the kind of {expected.dtype}")
    if expected.dtype.kind in "fc" or actual.dtype.kind in "fc":
        rtol, atol = _TOLERANCES.get(expected.dtype, _DEFAULT_TOLERANCE)
        if actual.dtype.kind in "fc" and actual.dtype.itemsize < expected.dtype.itemsize:
            rtol, atol = _TOLERANCES.get(actual.dtype, (rtol, atol))
        common = np.complex128 if "c" in (actual.dtype.kind, expected.dtype.kind) else np.float64
        ok = np.allclose(actual.astype(common), expected.astype(common),
                         rtol=rtol, atol=atol, equal_nan=True)
        assert ok, f"{where}: values differ\n  got      {actual!r}\n  expected {expected!r}"
    else:
        assert np.array_equal(actual, expected), (
            f"{where}: values differ\n  got      {actual!r}\n  expected {expected!r}")


def _kind(dtype: np.dtype) -> str:
    # unsigned and signed integers are one kind for this comparison
    return "i" if dtype.kind == "u" else dtype.kind


def decorated_numpy_module(folder, module_name: str, calls: list[tuple[str, str, int]]):
    """Write and import a module of ``@Phylanx`` functions, one per ``(function name,
    numpy attribute, arity)``: ``def name(a0, a1): return np.<attr>(a0, a1)``.

    The decorator needs real source, so the functions live in a file under ``folder``.
    """
    import importlib.util
    import sys

    lines = ["import numpy as np", "from phylanx import Phylanx", ""]
    for name, attr, arity in calls:
        params = ", ".join(f"a{i}" for i in range(arity))
        lines += ["@Phylanx", f"def {name}({params}):", f"    return np.{attr}({params})", ""]
    path = folder / f"{module_name}.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
