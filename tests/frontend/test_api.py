"""Decorator API, NumPy mapping, attributes, methods, values in and out, translate CLI."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import phylanx
from phylanx import Phylanx, parallel
from phylanx.cli.translate import main as translate_main
from phylanx.frontend import translator
from phylanx.util import prange

from .helpers import check, same

matrices = hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1,
                                                   max_side=5),
                      elements=st.floats(-10, 10))


@Phylanx
def array_api(x):
    rows, cols = x.shape
    t = x.T
    return (x.sum(axis=0), x.mean(), x.max(axis=1), x.reshape(cols, rows), x.astype(np.int64),
            t @ x, np.matmul(x, t), x.ndim, x.size, x.dtype, rows // 2, cols ** 2, rows % 2,
            np.linalg.norm(x), np.abs(x).min(), x.copy(), np.zeros_like(x),
            np.ones((2, cols)), np.array([[1, 2], [3, 4]]), x[0, :], x[:, -1], x[::-1, 0])


@given(matrices)
@settings(max_examples=25, deadline=None)
def test_array_attributes_methods_and_numpy_functions(x):
    check(array_api, x)


@Phylanx
def locals_are_not_constants(e, pi):
    sum = e + pi
    max = sum * 2
    return sum, max, np.pi


def test_local_names_never_become_constants_or_primitives():
    check(locals_are_not_constants, 1.0, 2.0)


@Phylanx
def none_checks(x, y=None):
    if y is None:
        y = x
    return x is not None and y is not None, y


def test_is_none_and_defaults():
    check(none_checks, 3)
    check(none_checks, 3, y=4)


@Phylanx
def values_in_out(a, lst, tup, d, s, flag):
    return a, lst, tup, d, s, flag, None


def test_values_round_trip_and_arrays_are_not_copied():
    arr = np.arange(4.0)
    out = values_in_out(arr, [1, 2], (3, 4), {"k": 5}, "text", True)
    assert out[0] is arr
    assert same(out, values_in_out.python(arr, [1, 2], (3, 4), {"k": 5}, "text", True))
    assert isinstance(out, tuple)


@Phylanx
def scalar_result(x):
    return np.sum(x)


def test_zero_d_results_are_numpy_scalars():
    assert isinstance(scalar_result(np.arange(3)), np.integer)
    assert isinstance(scalar_result(np.arange(3.0)), np.floating)


@Phylanx
def comprehensions(n):
    squares = [i * i for i in range(n) if i % 2 == 0]
    pairs = [i + j for i in range(n) for j in range(i)]
    table = {i: i * 2 for i in range(n)}
    total = sum(x for x in squares)
    return squares, pairs, table, total, max(squares) if squares else -1


@given(st.integers(0, 7))
@settings(max_examples=10, deadline=None)
def test_comprehensions_with_filters_nested_and_dict(n):
    check(comprehensions, n)


@Phylanx
def in_place(n):
    out = np.zeros(n)
    with parallel:
        a = n + 1
        b = n * 2
    for i in prange(n):
        out[i] = i * a + b
    return out


def test_parallel_block_and_prange():
    check(in_place, 6)


@Phylanx
def counted(x):
    return x + 1


def test_translation_happens_once_per_function():
    before = next(translator.TRANSLATIONS)
    for i in range(5):
        counted(i)
    after = next(translator.TRANSLATIONS)
    assert after - before <= 2   # one translation (plus the two counter reads' own step)


def test_decorated_object_members():
    @Phylanx(performance=True)
    def f(x):
        return x * 2 + 1

    assert f.python(3) == 7
    assert f(3) == 7
    assert "define(f" in f.get_physl_source() and f.__src__ == f.get_physl_source()
    assert len(f.generate_ast()) == 1
    newick, dot = f.tree()
    assert newick.endswith(";") and dot.startswith("graph")
    csv, _, _ = f.__perfdata__
    assert csv.startswith("primitive_instance,display_name,count,time,eval_direct")
    assert ",1," in csv
    lazy = f.lazy(4)
    assert lazy.eval() == 9
    assert Phylanx.lazy(f)(5).eval() == 11


def test_debug_prints_physl_and_options_are_kept(capsys):
    @Phylanx(debug=True, print_progress=False, localities=None, startatlineone=True)
    def g(x):
        return x - 1

    assert "define(g" in capsys.readouterr().out
    assert g(3) == 2


def test_doc_src_uses_the_docstring_as_physl():
    @Phylanx(doc_src=True)
    def h(x):
        """define(h, x, x * 10)"""

    assert h(2) == 20


@Phylanx(doc_src=True)
def doc_defines_another_name(x):
    """define(other_name, x, x)"""


@Phylanx(doc_src=True)
def doc_does_not_parse(x):
    """
    define(doc_does_not_parse, x,
           x + )
    """


def test_doc_src_errors_point_into_the_docstring():
    here = doc_does_not_parse.python.__code__.co_firstlineno
    with pytest.raises(phylanx.PhylanxSyntaxError, match=f"test_api.py:{here + 4}:16"):
        doc_does_not_parse(1)
    with pytest.raises(phylanx.PhylanxSyntaxError, match="must define 'doc_defines_another_name'"
                       ".*it defines other_name"):
        doc_defines_another_name(1)


def test_doc_src_without_a_docstring_is_an_error_at_decoration():
    with pytest.raises(phylanx.PhylanxSyntaxError, match="needs a docstring"):
        @Phylanx(doc_src=True)
        def no_docstring(x):
            return x


def test_public_imports():
    assert phylanx.Phylanx is Phylanx
    assert list(prange(3)) == [0, 1, 2]


def test_translate_cli_prints_physl_of_each_function(tmp_path, capsys):
    src = tmp_path / "prog.py"
    src.write_text("import numpy as np\nfrom phylanx import Phylanx\n\n"
                   "@Phylanx\ndef first(x):\n    return np.exp(x)\n\n"
                   "@Phylanx\ndef second(x):\n    return first(x) + 1\n")
    assert translate_main([str(src)]) == 0
    out = capsys.readouterr().out
    assert "# first" in out and "exp(x)" in out and "# second" in out


def test_translate_cli_reports_located_errors(tmp_path, capsys):
    src = tmp_path / "bad.py"
    src.write_text("from phylanx import Phylanx\n\n@Phylanx\ndef f(x):\n"
                   "    class A:\n        pass\n    return x\n")
    assert translate_main([str(src)]) == 1
    assert f"{src}:5:5" in capsys.readouterr().err


def test_translate_cli_shows_plain_helpers_and_their_errors(tmp_path, capsys):
    # a plain function called from a decorated one is translated too: its PhySL is shown,
    # and what cannot be translated in it is a located error, not a silent success
    src = tmp_path / "helpers.py"
    src.write_text("import numpy as np\nfrom phylanx import Phylanx\n\n"
                   "def scale(x):\n    return 2 * x\n\n"
                   "def interp(x):\n    return np.busday_count(x, x)\n\n"
                   "@Phylanx\ndef good(x):\n    return scale(x)\n\n"
                   "@Phylanx\ndef bad(x):\n    return interp(x)\n")
    assert translate_main([str(src)]) == 1
    out, err = capsys.readouterr()
    assert "# scale" in out and "2 * x" in out and "# good" in out
    assert f"{src}:8:12" in err and "np.busday_count" in err


@pytest.mark.parametrize("bad", ["np.fft.fft(x)", "x.unknown()", "np.newaxis"])
def test_unsupported_expressions_raise_syntax_errors(bad):
    namespace = {"Phylanx": Phylanx, "np": np}
    import linecache
    name = f"<api-test-{abs(hash(bad))}>"
    src = f"@Phylanx\ndef f(x):\n    return {bad}\n"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    exec(compile(src, name, "exec"), namespace)  # noqa: S102
    with pytest.raises(phylanx.PhylanxSyntaxError):
        namespace["f"](np.arange(3.0))
