"""Property: the generated functions of ``test_python_values_property`` grown with the
constructs where decorated and undecorated code used to differ (issue 31): views and
writes through them, every element-wise NumPy function on every dtype (and against
Python scalars), default arguments and closures (in loops, nested defs, comprehensions),
NumPy's global random stream, and code that raises Python's errors, caught or not.

Each test mixes the statements of one group with the base grammar's and compares the
decorated function with the undecorated one: equal values (NaN-aware), the same types
and dtypes at every depth, or the same built-in exception class.  Warnings are not
compared (NumPy's ``RuntimeWarning`` of ``sqrt(-1)`` and the like are ignored in both).

Left out, as open differences documented in docs/python-frontend.md: ``v += e`` into a
read-only view with an ``e`` its dtype cannot hold (two errors; NumPy names the read-only
output, phylanx the value: the generator writes only booleans into read-only views with
an operator); ``b ** 2`` of a bool
array (int64, NumPy's ``**`` shortcut gives int8); closures reading the variable of a
generator expression are refused (a located error; generators are evaluated eagerly).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import Phylanx
from phylanx.errors import PhylanxError
from phylanx.primitives.registry import all_specs

from .test_python_values_property import ARGS, Grammar, program_text, same_kind_and_value

DTYPES = ["bool_", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
SIGNED = [d for d in DTYPES if not d.startswith(("u", "b"))]


def _numpy_elementwise() -> tuple[list[str], list[str]]:
    """(unary, binary) NumPy names of the element-wise primitives with a NumPy oracle."""
    unary, binary = set(), set()
    for spec in all_specs():
        name = getattr(spec.oracle, "__name__", None)
        if not spec.elementwise or name is None or getattr(np, name, None) is not spec.oracle:
            continue
        if spec.signature.min_args == 1:
            unary.add(name)
        elif spec.signature.min_args == 2:
            binary.add(name)
    # primitives whose oracle is not NumPy's function object but which NumPy spells so
    binary.update(["add", "subtract", "multiply", "true_divide", "divide", "maximum", "minimum",
                   "logical_and", "logical_or", "logical_xor"])
    return sorted(unary), sorted(binary)


UNARY, BINARY = _numpy_elementwise()
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "<", "==", ">="]
VIEWS = ["{w}.ravel()", "np.ravel({w})", "{w}.real", "np.real({w})", "{w}.T", "{w}.transpose()",
         "np.transpose({w})", "{w}.swapaxes(0, 1)", "np.swapaxes({w}, 0, 1)", "{w}[:, 1:]",
         "{w}[::-1]", "{w}.reshape(3, 2)", "np.moveaxis({w}, 0, 1)", "{w}.view()",
         # read-only views: a write is NumPy's ValueError
         "np.diagonal({w})", "{w}.diagonal()", "np.broadcast_to({w}, (2, 2, 3))"]
READ_ONLY = VIEWS[-3:]
DRAWS = ["np.random.rand()", "np.random.rand(2)", "np.random.randint(0, 10)",
         "np.random.randint(5, size=3)", "np.random.normal()",
         "np.random.normal(1.0, 2.0, size=(2,))", "np.random.uniform(-1, 1)",
         "np.random.random()", "np.random.choice(5)", "np.random.choice([1, 2, 3])",
         "np.random.permutation(4)", "np.random.random_sample(2)",
         "np.random.standard_normal(2)"]
SEED = 20261206
CAUGHT = ["TypeError", "(TypeError, ValueError)", "Exception"]
CATCH = ["ValueError", "TypeError", "IndexError", "(ValueError, TypeError)", "Exception"]


class Constructs(Grammar):
    """The base grammar plus the statements of one group of constructs."""

    def __init__(self, draw, group: str):
        super().__init__(draw)
        self.group = group

    def statement(self, indent="    "):
        if self.draw(st.booleans()):
            return super().statement(indent)
        return getattr(self, "s_" + self.group)(indent)

    def name(self, prefix="t") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def dtype(self, options=DTYPES) -> str:
        return "np." + self.pick(options)

    # -- views and writes through them ----------------------------------------
    def s_views(self, indent):
        w, v = self.fresh("value"), self.fresh("value")
        template = self.pick(VIEWS)
        view = template.format(w=w)
        value = self.pick([self.expr("int", 1), self.expr("float", 1), self.expr("bool", 0)])
        augmented = self.expr("bool", 0) if template in READ_ONLY else value   # docstring
        write = self.pick([f"{v}[0] = {value}", f"{v}[-1] = {value}", f"{v} += {augmented}",
                           f"{v} *= 2", f"{v}[...] = {value}", f"{v}.fill({value})",
                           f"{v}[0] -= 1"])
        lines = [f"{indent}{w} = arr.astype({self.dtype()})", f"{indent}{v} = {view}"]
        if self.draw(st.booleans()):
            return lines + [f"{indent}{write}"]
        caught = self.fresh("int")
        return lines + [f"{indent}{caught} = 0", f"{indent}try:", f"{indent}    {write}",
                        f"{indent}except {self.pick(['ValueError', 'TypeError'])}:",
                        f"{indent}    {caught} = -1"]

    # -- every element-wise function, every dtype --------------------------------
    def operand(self):
        kind = self.draw(st.integers(0, 3))
        if kind == 0:   # unsigned and bool only from non-negative data (no undefined casts)
            return f"arr.astype({self.dtype()})"
        if kind == 1:
            return f"(arr - 2.5).astype({self.dtype(SIGNED)})"
        if kind == 2:
            return f"np.arange(3).astype({self.dtype()})"
        return self.pick(["2", "-3", "0.5", "True", "300", "x", "a", "np.float32(1.5)", "1j"])

    def s_dtypes(self, indent):
        first = self.pick([f"arr.astype({self.dtype()})",
                           f"(arr - 2.5).astype({self.dtype(SIGNED)})"])
        kind = self.draw(st.integers(0, 2))
        if kind == 0:
            value = f"np.{self.pick(UNARY)}({first})"
        elif kind == 1:
            pair = [first, self.operand()]
            if self.draw(st.booleans()):
                pair.reverse()
            value = f"np.{self.pick(BINARY)}({pair[0]}, {pair[1]})"
        else:
            op = self.pick(OPERATORS)
            if op == "**" and "bool" in first:
                op = "*"   # open difference: b ** 2 of a bool array (docs/python-frontend.md)
            value = self.pick([f"({first} {op} {self.operand()})", f"(-{first})",
                               f"abs({first})", f"(~{first})"])
        v = self.fresh("value")
        if self.draw(st.booleans()):   # an error ends the function: it is compared as such
            return [f"{indent}{v} = {value}"]
        # else caught (NumPy's "no loop" UFuncTypeError is a TypeError), so that the
        # statements after it are compared too
        return [f"{indent}try:", f"{indent}    {v} = {value}",
                f"{indent}except {self.pick(CAUGHT)}:",
                f"{indent}    {v} = None"]

    # -- default arguments and closures ----------------------------------------
    def s_closures(self, indent):
        n = self.draw(st.integers(0, 3))
        e = self.expr("int", 1)
        fs, g, c = self.name("fs"), self.name("g"), self.name("c")
        choice = self.draw(st.integers(0, 7))
        if choice == 0:   # lambda defaults in a loop keep each value
            lines = [f"{fs} = []", f"for k in range({n}):",
                     f"    {fs}.append(lambda j=k, m={e}: j * m)",
                     f"{self.fresh('list')} = [f() for f in {fs}]"]
        elif choice == 1:   # a nested def's defaults: the values when the def ran
            lines = [f"{c} = {e}", f"def {g}(p={c}, q={self.expr('float', 1)}, *, r={c} + 1):",
                     "    return p, q, r", f"{c} = {self.expr('int', 1)}",
                     f"{self.fresh('tuple')} = ({g}(), {g}(1), {g}(r=0), {c})"]
        elif choice == 2:   # a mutable default is shared by the calls
            lines = [f"def {g}(y, acc=[]):", "    acc.append(y)", "    return list(acc)",
                     f"{g}({e})", f"{self.fresh('list')} = {g}({self.expr('int', 1)})"]
        elif choice == 3:   # closures of a comprehension see the variable's last value
            cond = self.pick(["", " if k % 2 == 0", f" if k < {e}"])
            lines = [f"{self.fresh('list')} = [f() for f in [lambda: k * {e} for k in "
                     f"range({n}){cond}]]"]
        elif choice == 4:   # ... in a dict comprehension, and with an early-binding default
            lines = [f"{c} = {{k: (lambda: k + {e}) for k in range({n})}}",
                     f"{self.fresh('dict')} = {{k: f() for k, f in {c}.items()}}",
                     f"{self.fresh('list')} = [f() for f in [lambda k=k: k for k in "
                     f"range({n})]]"]
        elif choice == 5:   # nested comprehensions: one scope each
            lines = [f"{c} = [[lambda: (i, k) for k in range(2)] for i in range({n})]",
                     f"{self.fresh('list')} = [[f() for f in row] for row in {c}]"]
        elif choice == 6:   # in a generator expression, the variable bound by a default
            lines = [f"{self.fresh('list')} = [f() for f in list(lambda k=k: k - {e} for k in "
                     f"range({n}))]"]
        else:   # a closure made in a for loop binds late too
            lines = [f"{fs} = []", f"for k in range({n}):", f"    {fs}.append(lambda: k + {e})",
                     f"{self.fresh('list')} = [f() for f in {fs}]"]
        return [indent + line for line in lines]

    # -- NumPy's global random stream ------------------------------------------
    def s_random(self, indent):
        # seeded here, or drawn from where the test seeded the stream before the call
        lines = [f"np.random.seed({self.draw(st.integers(0, 99))})"] if \
            self.draw(st.booleans()) else []
        draws = [self.pick(DRAWS) for _ in range(self.draw(st.integers(1, 3)))]
        if self.draw(st.booleans()):
            s = self.name("s")
            lines += [f"{s} = [1, 2, 3, 4]", f"np.random.shuffle({s})",
                      f"{self.fresh('value')} = {s}"]
        lines.append(f"{self.fresh('value')} = ({', '.join(draws)},)")
        return [indent + line for line in lines]

    # -- Python's errors (issue 31 item 7) --------------------------------------
    def s_errors(self, indent):
        i, f = self.expr("int", 1), self.pick(["x", f"({self.expr('float', 1)})"])
        raising = self.pick([
            f"[1, 2, 3][{f}]", f"({i}, 2)[{f}]", f"arr[{f}]", f"arr[{i} % 2, {f}]",
            f"(0 < arr < {i})", f"({i} < arr[0] <= 4)", f"bool(arr[:{i} % 3, 0])",
            f"bool(arr > {i})", "(not arr)", f"(arr and {i})", "(1 if arr[0] else 0)",
            f"[1, 2, 3][{i} % 5]", f"arr[{i} % 3 - 1, 0]",
        ])
        v = self.fresh("value")
        if self.draw(st.integers(0, 3)) == 0:
            return [f"{indent}{v} = {raising}"]
        return [f"{indent}try:", f"{indent}    {v} = {raising}",
                f"{indent}except {self.pick(CATCH)}:", f"{indent}    {v} = -1"]


@st.composite
def programs(draw, group: str):
    return program_text(draw, Constructs(draw, group))


def python_class(error: BaseException) -> type:
    """The built-in class an error stands for (NumPy's UFuncTypeError is a TypeError)."""
    return next(c for c in type(error).__mro__ if c.__module__ == "builtins")


def decorated_equals_undecorated(source: str, args) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # numbers are compared, not warnings
        warnings.simplefilter("ignore", SyntaxWarning)    # [1, 2][0.5] is what is tested
        namespace: dict = {"np": np}
        exec(compile(source, "<generated>", "exec"), namespace)
        python = namespace["generated"]
        arr = np.arange(6.0).reshape(2, 3)
        np.random.seed(SEED)   # both start from the same place of NumPy's global stream
        try:
            want = python(*args, arr.copy())
        except Exception as e:   # noqa: BLE001 - the oracle may fail: then Phylanx must too
            want = e
        want_next = np.random.random()
        decorated = Phylanx(source=source)(python)
        np.random.seed(SEED)
        try:
            got = decorated(*args, arr.copy())
            # ... and leave it where the undecorated function left it
            assert np.random.random() == want_next, f"the random stream moved\n{source}"
        except PhylanxError as e:
            if not isinstance(want, Exception):
                raise AssertionError(f"Python returned {want!r}, Phylanx raised {e!r}\n"
                                     f"args={args}\n{source}") from e
            assert isinstance(e, python_class(want)), \
                f"Python raised {want!r}, Phylanx {e!r}\nargs={args}\n{source}"
            return
    if isinstance(want, Exception):
        raise AssertionError(f"Python raised {want!r}, Phylanx returned {got!r}\n"
                             f"args={args}\n{source}")
    problem = same_kind_and_value(got, want)
    assert problem is None, f"{problem}\nargs={args}\n{source}"


@settings(max_examples=30, deadline=None)
@given(programs("views"), ARGS)
def test_views_and_writes_through_them(source, args):
    decorated_equals_undecorated(source, args)


@settings(max_examples=50, deadline=None)
@given(programs("dtypes"), ARGS)
def test_elementwise_functions_on_every_dtype(source, args):
    decorated_equals_undecorated(source, args)


@settings(max_examples=30, deadline=None)
@given(programs("closures"), ARGS)
def test_default_arguments_and_closures(source, args):
    decorated_equals_undecorated(source, args)


@settings(max_examples=20, deadline=None)
@given(programs("random"), ARGS)
def test_global_random_stream(source, args):
    decorated_equals_undecorated(source, args)


@settings(max_examples=30, deadline=None)
@given(programs("errors"), ARGS)
def test_python_errors_raised_and_caught(source, args):
    decorated_equals_undecorated(source, args)


# -- differences the generator found, fixed; kept as plain examples ------------------------
FOUND = {
    # NumPy's dtype names uint16/32/64 and complex64 were unknown to the frontend
    "every_dtype_name": """
def generated(arr):
    return tuple(arr.astype(t) for t in (np.uint16, np.uint32, np.uint64, np.complex64))
""",
    # x += v on a read-only view silently made x a new array instead of NumPy's ValueError
    "augmented_write_into_a_read_only_view": """
def generated(arr):
    w = arr.copy()
    v = np.diagonal(w)
    try:
        v += 1
    except ValueError:
        return w, v, -1
    return w, v, 0
""",
}


@pytest.mark.parametrize("source", FOUND.values(), ids=FOUND.keys())
def test_differences_found_by_the_generator(source):
    namespace: dict = {"np": np}
    exec(compile(source, "<found>", "exec"), namespace)
    python = namespace["generated"]
    arr = np.arange(6.0).reshape(2, 3)
    want = python(arr.copy())
    got = Phylanx(source=source)(python)(arr.copy())
    problem = same_kind_and_value(got, want)
    assert problem is None, f"{problem}\n{source}"
