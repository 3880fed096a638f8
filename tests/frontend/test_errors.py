"""Located errors: unsupported syntax, bad calls, unsupported NumPy, run-time failures."""
from __future__ import annotations

import inspect
import itertools
import linecache

import numpy as np
import pytest

from phylanx import Phylanx, PhylanxError, PhylanxSyntaxError, PhylanxTypeError
from phylanx.exceptions import InvalidDecoratorArgumentError

THIS_FILE = __file__
_sources = itertools.count()


def line_of(fn, text: str) -> int:
    """File line number of the first line of ``fn`` containing ``text``."""
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError(text)


def define(src: str):
    """Decorate a function given as source (rejections happen at decoration)."""
    name = f"<frontend-test-{next(_sources)}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    namespace = {"Phylanx": Phylanx, "np": np, "__name__": "snippet"}
    exec(compile(src, name, "exec"), namespace)  # noqa: S102
    return namespace


@pytest.mark.parametrize("body, construct, hint", [
    ("    class A:\n        pass\n    return 1", "class definition", "outside"),
    ("    yield x", "yield", "list"),
    ("    import os\n    return 1", "import", "top of the file"),
    ("    del x\n    return 1", "del statement", "assign"),
    ("    return b'x'", "bytes literals", ""),
    ("    y = (z := 3)\n    return y", ":=", "own line"),
])
def test_unsupported_syntax_is_rejected_at_decoration_with_location(body, construct, hint):
    src = "@Phylanx\ndef f(x):\n" + body + "\n"
    with pytest.raises(PhylanxSyntaxError) as info:
        define(src)
    err = info.value
    assert err.loc.file.startswith("<frontend-test-")
    assert err.loc.line >= 3
    text = str(err)
    assert construct in text and hint in text
    assert "^" in text   # the caret under the offending column


def test_async_def_is_rejected():
    src = "@Phylanx\ndef f(x):\n    async def g():\n        pass\n    return 1\n"
    with pytest.raises(PhylanxSyntaxError, match="async"):
        define(src)


def test_star_args_are_rejected_with_the_parameter_located():
    with pytest.raises(PhylanxSyntaxError) as info:
        define("@Phylanx\ndef f(a, *rest):\n    return a\n")
    assert info.value.loc.line == 2 and info.value.loc.col == 11
    assert "*rest" in str(info.value)


def test_error_shows_file_line_column_source_and_caret():
    with pytest.raises(PhylanxSyntaxError) as info:
        define("@Phylanx\ndef f(x):\n    y = x\n    return b'y'\n")
    text = str(info.value)
    first = text.splitlines()[0]
    assert first.startswith(f"{info.value.loc.file}:4:12: ")
    lines = text.splitlines()
    caret_line = next(ln for ln in lines if ln.strip() == "^")
    assert caret_line.index("^") == lines[lines.index(caret_line) - 1].index("b'")


def test_unsupported_numpy_function_is_located_at_first_call():
    @Phylanx
    def uses_unknown(x):
        return np.fft.fft(x)

    with pytest.raises(PhylanxSyntaxError) as info:
        uses_unknown(np.arange(4.0))
    assert info.value.loc.line == line_of(uses_unknown.python, "np.fft")
    assert "fft" in str(info.value)


def test_undefined_name_is_located():
    @Phylanx
    def undefined(x):
        return x + not_defined_anywhere  # noqa: F821

    with pytest.raises(NameError, match="name 'not_defined_anywhere' is not defined") as info:
        undefined(1)
    assert isinstance(info.value, PhylanxError)
    assert info.value.loc.line == line_of(undefined.python, "return x + not_defined")


def test_runtime_error_names_primitive_and_points_at_python_line():
    @Phylanx
    def mismatch(a, b):
        c = a + 1  # noqa: F841
        return np.dot(a, b)

    with pytest.raises(PhylanxError) as info:
        mismatch(np.ones((2, 3)), np.ones((2, 3)))
    err = info.value
    assert err.loc.file == THIS_FILE
    assert err.loc.line == line_of(mismatch.python, "np.dot")
    assert "dot" in str(err)


def test_bad_index_points_at_subscript_line():
    @Phylanx
    def bad_index(a):
        return a[10]

    with pytest.raises(PhylanxError) as info:
        bad_index(np.arange(3))
    assert info.value.loc.line == line_of(bad_index.python, "a[10]")


def test_wrong_argument_count_and_keyword_are_type_errors():
    @Phylanx
    def two(a, b):
        return a + b

    # Python's own messages (tests/frontend/test_binding.py compares them all)
    with pytest.raises(PhylanxTypeError, match="missing 1 required positional argument: 'b'"):
        two(1)
    with pytest.raises(PhylanxTypeError, match="takes 2 positional arguments but 3 were"):
        two(1, 2, 3)
    with pytest.raises(PhylanxTypeError, match="unexpected keyword"):
        two(1, 2, c=3)


def test_unsupported_argument_type_is_a_type_error():
    @Phylanx
    def ident(a):
        return a

    with pytest.raises(PhylanxTypeError, match="object"):
        ident(object())


def test_unknown_decorator_option_and_positional_argument():
    with pytest.raises(NotImplementedError, match="Unknown Phylanx argument 'bogus'"):
        Phylanx(bogus=True)
    with pytest.raises(InvalidDecoratorArgumentError):
        Phylanx("PhySL")


def test_untranslatable_function_never_silently_falls_back():
    @Phylanx
    def with_method(x):
        return x.unknown_method()

    with pytest.raises(PhylanxSyntaxError, match="unknown_method"):
        with_method(np.arange(3))


def test_disable_decorator_runs_plain_python():
    @Phylanx(disable_decorator=True)
    def plain(x):
        return x.unknown_method()

    class Thing:
        def unknown_method(self):
            return 42

    assert plain(Thing()) == 42
