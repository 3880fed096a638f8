"""Python and NumPy features that decorated code used to refuse, now with the undecorated
function's value and type: complex literals and ``conjugate``, string methods, ``dict(...)``,
``np.nanargmax``/``np.nanargmin``, ``reshape(order=...)``, ``argmax(keepdims=True)``."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError

from .test_python_values_property import same_kind_and_value

EXPRESSIONS = [
    "2 + 3j", "(2 + 3j).conjugate()", "c.conjugate()", "c.conj()", "np.conjugate(c)",
    "x.conjugate()", "abs(3 - 4j)", "(1j * 1j).real",
    "s.upper()", "s.split()", "s.split(',', 1)", "'-'.join(['a', 'b'])", "s.strip()",
    "s.replace('b', 'x')", "s.startswith(' a')", "'{}={:.2f}'.format('k', x)", "s.count('b')",
    "s.find('c')", "s.title()", "'x'.center(5, '*')",
    "dict(d)", "dict(d, z=3)", "dict(a=1, b=2)", "dict([('p', 1), ('q', 2)])",
    "np.nanargmax(a)", "np.nanargmin(a)", "np.nanargmax(m, axis=1)", "np.nanargmin(m, 0)",
    "np.nanargmax(m, axis=0, keepdims=True)",
    "np.reshape(m, (3, 2), order='F')", "m.reshape((3, 2), order='F')",
    "m.reshape(3, 2, order='C')", "np.reshape(m, -1, order='F')",
    "np.argmax(m, keepdims=True)", "np.argmax(m, axis=1, keepdims=True)",
    "m.argmin(axis=0, keepdims=True)", "np.argmin(m, 1, keepdims=False)", "np.argmax(m, 1)",
]


def _pair(expression: str):
    source = f"import numpy as np\n\ndef f(a, m, c, s, d, x):\n    return {expression}\n"
    namespace: dict = {}
    exec(compile(source, "<features>", "exec"), namespace)
    return namespace["f"], Phylanx(source=source)(namespace["f"])


def _args():
    return (np.array([1.0, np.nan, 3.0]), np.array([[4.0, 1.0, 6.0], [2.0, 5.0, 0.5]]),
            np.array([1 + 2j, -1j]), " a,b c ", {"k": 1}, 2.5)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_decorated_equals_undecorated(expression):
    python, decorated = _pair(expression)
    problem = same_kind_and_value(decorated(*_args()), python(*_args()))
    assert problem is None, f"{expression}: {problem}"


@pytest.mark.parametrize("expression, error", [
    ("a.upper()", AttributeError), ("s.split(1)", TypeError), ("dict(a)", TypeError),
    ("np.nanargmax(np.array([np.nan, np.nan]))", ValueError), ("s.index('zz')", ValueError),
    ("m.reshape((4, 2), order='F')", ValueError)])
def test_errors_have_pythons_class(expression, error):
    python, decorated = _pair(expression)
    with pytest.raises(error):
        python(*_args())
    with pytest.raises(PhylanxError) as info:
        decorated(*_args())
    assert isinstance(info.value, error), repr(info.value)
    assert "<features>:4" in str(info.value)


SET_EXPRESSIONS = [
    "len({1, 2, 2})", "sorted({3, 1} | {2})", "{1, 2} & {2, 3}", "{1, 2} - {2}",
    "{1, 2} ^ {2, 3}", "2 in {1, 2}", "3 not in {1, 2}", "{v * 2 for v in xs}", "set(xs)",
    "frozenset(xs)", "set()", "sorted(set([3, 1, 3]))", "{1, 2} == {2, 1}", "{1} <= {1, 2}",
    "len(set('abca'))", "t.union({9})", "t.issubset({1, 2, 3, 4})", "sum(t)", "max(t)",
    "[v for v in sorted(t)]", "t.copy()", "{(1, 2), (1, 2)}", "{v % 2 for v in xs if v > 1}",
]


def _set_pair(body: str):
    source = f"def f(xs, t):\n{body}"
    namespace: dict = {}
    exec(compile(source, "<sets>", "exec"), namespace)
    return namespace["f"], Phylanx(source=source)(namespace["f"])


@pytest.mark.parametrize("expression", SET_EXPRESSIONS)
def test_sets_as_in_python(expression):
    python, decorated = _set_pair(f"    return {expression}\n")
    got, want = decorated([1, 2, 2, 3], {1, 2, 3}), python([1, 2, 2, 3], {1, 2, 3})
    assert type(got) is type(want) and got == want, f"{expression}: {got!r} != {want!r}"


def test_a_set_changed_in_place_is_the_callers():
    python, decorated = _set_pair("    t.add(5)\n    t.discard(1)\n    return len(t)\n")
    mine, theirs = {1, 2}, {1, 2}
    assert decorated(None, mine) == python(None, theirs) and mine == theirs == {2, 5}


def test_an_unhashable_set_element_is_pythons_type_error():
    python, decorated = _set_pair("    return {xs}\n")
    with pytest.raises(TypeError):
        python([1], None)
    with pytest.raises(PhylanxError) as info:
        decorated([1], None)
    assert isinstance(info.value, TypeError)


LOOP_ELSE = {
    "for_found": "    for v in xs:\n        if v == k:\n            r = 'found'\n"
                 "            break\n    else:\n        r = 'missing'\n    return r\n",
    "while_index": "    i = 0\n    while i < len(xs):\n        if xs[i] == k:\n            break\n"
                   "        i += 1\n    else:\n        i = -1\n    return i\n",
    "nested": "    out = []\n    for v in xs:\n        for w in xs:\n            if w == k:\n"
              "                break\n        else:\n            out.append(v)\n"
              "        if v == 2:\n            break\n    else:\n        out.append(99)\n"
              "    return out\n",
    "no_break": "    n = 0\n    for v in xs:\n        n += v\n    else:\n        n = n * 10\n"
                "    return n\n",
}


@pytest.mark.parametrize("name", sorted(LOOP_ELSE))
@pytest.mark.parametrize("xs, k", [([1, 2, 3], 2), ([1, 3], 2), ([], 2), ([5, 6], 5)])
def test_loop_else_runs_when_no_break_ended_the_loop(name, xs, k):
    source = f"def f(xs, k):\n{LOOP_ELSE[name]}"
    namespace: dict = {}
    exec(compile(source, "<loops>", "exec"), namespace)
    got = Phylanx(source=source)(namespace["f"])(list(xs), k)
    want = namespace["f"](list(xs), k)
    assert type(got) is type(want) and got == want


TRY_PROGRAMS = {
    "index": "    try:\n        v = xs[k]\n    except IndexError:\n        v = -1\n    return v\n",
    "all_clauses": "    out = []\n    try:\n        out.append(1)\n        if k > 2:\n"
                   "            raise ValueError('big')\n        out.append(2)\n"
                   "    except (TypeError, ValueError) as e:\n        out.append(str(e))\n"
                   "    else:\n        out.append('else')\n    finally:\n"
                   "        out.append('finally')\n    return out\n",
    "return_in_try": "    d = {'a': 1}\n    try:\n        return d[k]\n    except KeyError:\n"
                     "        return 0\n    finally:\n        d['b'] = 2\n",
    "reraise": "    try:\n        try:\n            raise KeyError('inner')\n"
               "        except KeyError:\n            raise\n    except KeyError:\n"
               "        return 'outer'\n",
    "numpy_error": "    try:\n        a = np.ones(3) @ np.ones(k)\n    except ValueError:\n"
                   "        a = -1.0\n    return a\n",
    "finally_on_break": "    n = 0\n    while True:\n        try:\n            n += 1\n"
                        "            if n > k:\n                break\n        finally:\n"
                        "            n += 10\n    return n\n",
    "not_caught": "    try:\n        v = xs[k]\n    except KeyError:\n        v = 0\n"
                  "    return v\n",
}


@pytest.mark.parametrize("name", sorted(TRY_PROGRAMS))
@pytest.mark.parametrize("xs, k", [([1, 2, 3], 2), ([1, 0], 1), ([5, 6], 5), ([4], 3)])
def test_try_except_else_finally_as_in_python(name, xs, k):
    source = f"import numpy as np\n\ndef f(xs, k):\n{TRY_PROGRAMS[name]}"
    namespace: dict = {}
    exec(compile(source, "<try>", "exec"), namespace)
    decorated = Phylanx(source=source)(namespace["f"])
    try:
        want = namespace["f"](list(xs), k)
    except Exception as error:  # noqa: BLE001 - then the same class must escape
        with pytest.raises(PhylanxError) as info:
            decorated(list(xs), k)
        assert isinstance(info.value, type(error)), repr(info.value)
        return
    got = decorated(list(xs), k)
    assert type(got) is type(want) and np.array_equal(got, want), f"{got!r} != {want!r}"


def test_a_bare_raise_outside_except_is_refused_where_written():
    source = "def f(x):\n    raise\n"
    namespace: dict = {}
    exec(compile(source, "<try>", "exec"), namespace)
    with pytest.raises(PhylanxError, match="bare 'raise' is only supported inside an except"):
        Phylanx(source=source)(namespace["f"])(1)
