"""Bad calls of decorated functions fail with the TypeError message Python gives."""
from __future__ import annotations

import inspect

import pytest

from phylanx import Phylanx, PhylanxError, PhylanxTypeError
from phylanx.frontend.arguments import _stub


@Phylanx
def two(x, y):
    return x - y


@Phylanx
def with_defaults(x, y=2.0, *, scale=1.0):
    return (x + y) * scale


@Phylanx
def positional_only(x, /, y):
    return x * y


BAD_CALLS = [
    (two, (1.0,), {"z": 2.0}),                  # unexpected keyword, not "missing y"
    (two, (1.0,), {"x": 2.0}),                  # multiple values for x
    (two, (1.0, 2.0, 3.0), {}),                 # too many positional
    (two, (), {}),                              # two missing
    (two, (1.0,), {}),                          # one missing
    (two, (), {"y": 1.0}),                      # missing x given y
    (with_defaults, (1.0, 2.0, 3.0), {}),       # keyword-only passed by position
    (with_defaults, (), {"scale": 2.0}),        # missing x
    (with_defaults, (1.0,), {"scal": 2.0}),     # misspelt keyword
    (positional_only, (), {"x": 1.0, "y": 2.0}),   # positional-only by keyword
]


@pytest.mark.parametrize("fn, args, kwargs", BAD_CALLS,
                         ids=[f"{f.__name__}{a}{k}" for f, a, k in BAD_CALLS])
def test_bad_calls_say_what_python_says(fn, args, kwargs):
    with pytest.raises(TypeError) as python:
        fn.python(*args, **kwargs)
    with pytest.raises(PhylanxTypeError) as ours:
        fn(*args, **kwargs)   # the error points at this line, the call
    assert str(python.value) in str(ours.value)
    assert ours.value.loc.file == __file__
    assert "fn(*args, **kwargs)" in ours.value.loc.source_line()


def test_good_calls_bind_like_python():
    for fn, args, kwargs in [(two, (1.0,), {"y": 3.0}), (with_defaults, (1.0,), {}),
                             (with_defaults, (1.0,), {"scale": 3.0, "y": 0.5}),
                             (positional_only, (2.0,), {"y": 4.0})]:
        assert fn(*args, **kwargs) == fn.python(*args, **kwargs)


def test_lazy_calls_bind_the_same_way():
    with pytest.raises(PhylanxTypeError, match="unexpected keyword argument 'z'"):
        two.lazy(1.0, z=2.0)


def test_a_bad_call_between_decorated_functions_is_located_at_the_call():
    @Phylanx
    def caller(x):
        return two(x, z=2.0)

    with pytest.raises(TypeError) as python:
        two.python(1.0, z=2.0)   # (caller.python would call the decorated two)
    with pytest.raises(PhylanxTypeError) as ours:
        caller(1.0)
    assert str(python.value) == ours.value.message
    assert "return two(x, z=2.0)" in ours.value.loc.source_line()


def plain_helper(a, b):
    return a + b


def test_a_bad_call_of_a_plain_helper_and_of_itself():
    @Phylanx
    def calls_helper(x):
        return plain_helper(x, x, x)

    @Phylanx
    def recurses(n):
        if n > 0:
            return recurses(n - 1, 2)
        return n

    with pytest.raises(TypeError) as python:
        calls_helper.python(1.0)
    with pytest.raises(PhylanxError) as ours:
        calls_helper(1.0)
    assert str(python.value) == ours.value.message
    with pytest.raises(TypeError) as python:
        recurses.python(2, 2)   # the undecorated function, called as the recursion calls it
    with pytest.raises(PhylanxError) as ours:
        recurses(3)
    assert str(python.value) == ours.value.message
    assert "recurses(n - 1, 2)" in ours.value.loc.source_line()


def test_the_stub_has_the_signature_of_the_function():
    def everything(a, b=1, /, c=2, *rest, d, e=3, **more):
        return a

    assert inspect.signature(_stub(everything)) == inspect.signature(everything)


def test_doc_src_functions_take_keywords_by_their_physl_names():
    @Phylanx(doc_src=True)
    def minus(a, b):
        """define(minus, a, b, a - b)"""

    assert minus(5, b=2) == 3
    assert minus(b=5, a=2) == -3   # dropped keywords would have been a wrong result
    with pytest.raises(PhylanxTypeError, match="no argument named 'c'"):
        minus(1, c=3)
