"""Free names resolve as in Python, then as PhySL primitives (the original's rule); any other
name is Python's NameError, located."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

from phylanx import Phylanx, PhylanxError, PhylanxSyntaxError
from phylanx.frontend import PhylanxNameError

from .helpers import check


def _python_error(fn, *args) -> Exception:
    with pytest.raises(Exception) as info:
        fn.python(*args)
    return info.value


def _position(fn, text: str) -> tuple[int, int]:
    """(file line, 1-based column) of ``text`` in the source of ``fn``."""
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return first + i, line.index(text) + 1
    raise AssertionError(text)


def test_an_unknown_bare_call_is_pythons_name_error():
    @Phylanx
    def running_total(x):
        return running_sum(x)  # noqa: F821 - the point of the test

    expected = _python_error(running_total, np.arange(3.0))
    assert isinstance(expected, NameError)
    with pytest.raises(NameError) as info:
        running_total(np.arange(3.0))
    err = info.value
    assert isinstance(err, PhylanxNameError) and isinstance(err, PhylanxError)
    assert err.message == str(expected) == "name 'running_sum' is not defined"
    assert err.name == "running_sum"
    assert err.loc.file == __file__
    assert (err.loc.line, err.loc.col) == _position(running_total, "running_sum(")
    assert "^" in str(err)


def test_a_bare_primitive_name_without_a_python_binding_is_the_primitive():
    # the original passed unknown names through to PhySL (tests/compat/original_style
    # has more); a Python binding of the name wins (test below)
    @Phylanx
    def running_total(x):
        return cumsum(x)  # noqa: F821

    assert np.array_equal(running_total(np.arange(4.0)), np.cumsum(np.arange(4.0)))


def test_an_unknown_bare_name_used_as_a_value_is_a_name_error():
    @Phylanx
    def apply_it(x):
        f = hstack_all  # noqa: F821
        return f(x)

    with pytest.raises(PhylanxNameError, match="name 'hstack_all' is not defined") as info:
        apply_it(np.ones(2))
    assert (info.value.loc.line, info.value.loc.col) == _position(apply_it, "hstack_all")


def test_the_error_comes_at_the_first_call_also_for_a_branch_never_taken():
    # Python raises only when the line runs; Phylanx translates the whole function at
    # its first call, so it raises then (documented in docs/python-frontend.md)
    @Phylanx
    def rarely(x):
        if x > 100:
            return undefined_helper(x)  # noqa: F821
        return x

    assert rarely.python(1) == 1
    with pytest.raises(PhylanxNameError, match="undefined_helper"):
        rarely(1)


def test_a_global_defined_after_decoration_but_before_the_first_call_is_found():
    @Phylanx
    def uses_later(x):
        return later_helper(x) + LATER_SCALE  # noqa: F821

    globals()["later_helper"] = lambda x: x * 2   # as Python: names resolve when called
    globals()["LATER_SCALE"] = 10.0
    try:
        check(uses_later, np.arange(3.0))
    finally:
        del globals()["later_helper"], globals()["LATER_SCALE"]


def cumprod(x):   # a global of this name is the user's function, not the primitive
    return x + 100


def test_a_global_shadowing_a_primitive_name_is_the_users_function():
    @Phylanx
    def calls_global(x):
        return cumprod(x)

    assert calls_global.python(np.ones(2))[0] == 101
    check(calls_global, np.ones(2))


@Phylanx
def uses_builtins(x, items):
    total = 0
    for i in range(len(items)):
        total += abs(items[i])
    return (total, min(items), max(items), sum(items), np.cumsum(x), round(2.5),
            len(x), sorted(items), format(3.14159, ".2f"), format(7))


def test_resolvable_names_keep_working():
    check(uses_builtins, np.arange(4.0), [3, -1, 2])


def test_print_resolves_to_the_builtin(capsys):
    @Phylanx
    def shout(x):
        print("x is", x)
        return x

    shout(3)
    assert capsys.readouterr().out == "x is 3\n"


def test_a_builtin_python_knows_but_phylanx_does_not_translate_is_not_a_name_error():
    @Phylanx
    def introspects(x):
        return hasattr(x, "shape")

    with pytest.raises(PhylanxSyntaxError, match="the built-in 'hasattr' is not supported") \
            as info:
        introspects(np.ones(2))
    assert not isinstance(info.value, NameError)


def test_a_builtin_class_assigned_to_a_name_is_the_class():
    @Phylanx
    def passes_slice(x):
        f = slice   # the class itself (isinstance, type(x) is f), called as Python's
        return f(x)

    assert passes_slice(1) == passes_slice.python(1) == slice(1)

    @Phylanx
    def passes_hasattr(x):
        f = hasattr
        return f(x, "shape")

    with pytest.raises(PhylanxSyntaxError, match="'hasattr' cannot be used as a value"):
        passes_hasattr(1)


def test_builtins_are_those_of_the_functions_globals():
    # exec with custom __builtins__: Python resolves 'len' there, and so does Phylanx
    namespace = {"__builtins__": {"len": len, "range": range}}
    exec("def f(x):\n    return abs(x)\n", namespace)   # no abs in these builtins
    with pytest.raises(NameError):
        namespace["f"](-1)
    import linecache
    src = "def g(x):\n    return abs(x)\n"
    linecache.cache["<names-test>"] = (len(src), None, src.splitlines(True), "<names-test>")
    exec(compile(src, "<names-test>", "exec"), namespace)
    decorated = Phylanx(namespace["g"])
    with pytest.raises(PhylanxNameError, match="name 'abs' is not defined"):
        decorated(-1)


def fmap(f, x):   # the original's users' stand-ins for primitives (kept flake8 quiet)
    pass


def fold_left(*args):
    """A stand-in."""


def test_a_do_nothing_function_named_like_a_primitive_calls_the_primitive():
    @Phylanx
    def uses_stand_ins(x):
        return fmap(lambda v: v * 2, x), fold_left(lambda a, b: a + b, 0, x)

    assert uses_stand_ins([1, 2, 3]) == ([2, 4, 6], 6)   # the original called the primitives


def test_a_closure_variable_not_yet_assigned_is_not_the_primitive():
    # Python binds argsort to the enclosing function's cell: a NameError, as in Python,
    # never a quiet call of the primitive of that name
    def outer(x):
        @Phylanx
        def ordered(v):
            return argsort(v)

        result = ordered(x)
        argsort = None  # noqa: F841 - assigned after the call: the cell is still empty
        return result

    with pytest.raises(NameError, match="argsort"):
        outer(np.array([2.0, 1.0]))
