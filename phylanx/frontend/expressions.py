"""Python expressions -> PhySL AST (the expression half of the translator).

Every node built here carries the location of the Python node it came from,
so compile and run-time errors point at the user's line and column.  Names
are resolved in this order: locals of the enclosing translated scopes, the
function itself (recursion), then the Python namespace (closure cells,
module globals, built-ins) through :mod:`.resolve`.
"""
from __future__ import annotations

import ast

from ..compiler.compiler import CONSTANTS
from ..errors import PhylanxTypeError
from ..language import ast as past
from ..primitives import registry
from ..primitives.frontend_support.python_builtins import PYTHON_BUILTINS, PYTHON_METHODS
from ..primitives.matrixops.numpy_random import GENERATOR_METHODS
from . import arguments, definite, tables
from .classes import ClassMixin
from .markers import DecoratedFunction
from .numpy_calls import NumpyMixin, array_literal, sized_shape
from .resolve import Kind, primitive_stub

#: primitives printed as infix operators in the generated PhySL (easier to read)
_INFIX = {prim: op for op, (_, prim) in past.BINARY_OPS.items()}
_PREFIX = {"__minus": "-", "__not": "!"}


class ExpressionMixin(ClassMixin, NumpyMixin):
    """Expression rules; mixed into :class:`~.translator.FunctionTranslator`."""

    # -- helpers ------------------------------------------------------------
    def call(self, func: str, args, node):
        infix = _INFIX.get(func)
        if infix is not None and len(args) == 2 and not any(
                isinstance(a, past.KeywordArg) for a in args):
            return past.BinOp(infix, args[0], args[1], self.loc(node))
        if func in _PREFIX and len(args) == 1:
            return past.UnaryOp(_PREFIX[func], args[0], self.loc(node))
        return past.Call(func, tuple(args), None, self.loc(node))

    def lit(self, value, node) -> past.Literal:
        return past.Literal(value, self.loc(node))

    def ident(self, name: str, node, raw: bool = False) -> past.Identifier:
        return past.Identifier(name if raw else local_name(name), self.loc(node))

    def need_primitive(self, name: str, node, what: str) -> str:
        if registry.lookup(name) is None:
            raise self.error(node, f"{what} is not supported: Phylanx has no primitive '{name}'")
        return name

    def exprs(self, nodes) -> list:
        return [self.expr(n) for n in nodes]

    def expr(self, node):
        done = self.__dict__.get("translated")
        if done and id(node) in done:   # already translated (and pinned) by the caller
            return done[id(node)]
        method = getattr(self, "x_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"unsupported Python expression: {type(node).__name__}")
        return method(node)

    # -- literals -----------------------------------------------------------
    def x_Constant(self, node):
        v = node.value
        if v is Ellipsis:
            raise self.error(node, "'...' is not supported here")
        return self.constant(v, node)

    def constant(self, v, node):
        """A Python constant as PhySL: ``True``/``False`` are Python's booleans (the
        PhySL names ``True``/``False``; ``true`` is NumPy's ``np.True_``), so
        ``True + True`` is 2 as in Python; ints are Python's (unbounded)."""
        if type(v) is bool:
            return past.Identifier("True" if v else "False", self.loc(node))
        if type(v) is complex:   # PhySL has no complex literal: built by a call
            return self.call("__pycomplex", [self.lit(v.real, node), self.lit(v.imag, node)],
                             node)
        return self.lit(v, node)

    def x_List(self, node):
        return self.call("list", self.exprs(node.elts), node)

    def x_Tuple(self, node):
        # a tuple stays a tuple: hashable, a per-axis index, the operand of % formatting
        return self.call("tuple", self.exprs(node.elts), node)

    def x_Dict(self, node):
        if any(k is None for k in node.keys):
            raise self.error(node, "'**' in a dict literal is not supported; build the dict "
                                   "with explicit keys")
        pairs = [self.call("list", [self.expr(k), self.expr(v)], k)
                 for k, v in zip(node.keys, node.values)]
        return self.call("dict", [self.call("list", pairs, node)], node)

    def x_JoinedStr(self, node):
        fmt, args = [], []
        for part in node.values:
            if isinstance(part, ast.Constant):
                fmt.append(str(part.value).replace("{", "{{").replace("}", "}}"))
                continue
            spec = ""
            if part.format_spec is not None:
                if not all(isinstance(p, ast.Constant) for p in part.format_spec.values):
                    raise self.error(part, "computed format specs in f-strings are not "
                                           "supported; write the spec literally")
                spec = ":" + "".join(str(p.value) for p in part.format_spec.values)
            value = self.expr(part.value)
            if part.conversion in (ord("r"), ord("a")):
                # {x!r}, {x!a} and {x=} (which is {x!r}) are Python's repr()/ascii() of x
                name = "repr" if part.conversion == ord("r") else "ascii"
                value = self.call("__pybuiltin", [self.lit(name, part),
                                                  self.call("list", [], part), value], part)
            elif part.conversion == ord("s"):
                # Python's str(): lists of numbers show as [1, 2], not as NumPy scalars
                value = self.call("__pystr", [value], part)
            elif not spec:
                # Python's format(x, ""): str(x), but all digits of a float32 scalar
                value = self.call("__pyformat", [value], part)
            fmt.append("{" + spec + "}")
            args.append(value)
        return self.call("format", [self.lit("".join(fmt), node), *args], node)

    # -- operators ----------------------------------------------------------
    def x_BinOp(self, node):
        prim = tables.BINARY_OPS[type(node.op)]
        self.need_primitive(prim, node, f"the operator {_op_text(node.op)}")
        return self.call(prim, [self.expr(node.left), self.expr(node.right)], node)

    def x_UnaryOp(self, node):
        prim = tables.UNARY_OPS[type(node.op)]
        if (prim in ("__minus", "__pos") and isinstance(node.operand, ast.Constant)
                and isinstance(node.operand.value, (int, float))
                and not isinstance(node.operand.value, bool)):
            value = node.operand.value
            return self.lit(-value if prim == "__minus" else value, node)
        return self.call(prim, [self.expr(node.operand)], node)

    def x_BoolOp(self, node):
        return self.short_circuit(isinstance(node.op, ast.And), self.exprs(node.values),
                                  node.values)

    def short_circuit(self, is_and: bool, values: list, srcs: list):
        """Python's ``and``/``or``: the value of the deciding operand, each evaluated at
        most once and tested with Python's truth (``if``), so an array of several elements
        is NumPy's ambiguous-truth ``ValueError`` (the element-wise ``__and``/``__or`` would
        give an array, also for comparisons and ``0 < a < 5``)."""
        result = values[-1]
        for value, src in zip(reversed(values[:-1]), reversed(srcs[:-1])):
            tmp = self.temp(src)
            test = self.ident(tmp, src)
            branch = [result, test] if is_and else [test, result]
            result = self.call("block", [self.define(tmp, value, src),
                                         self.call("if", [test, *branch], src)], src)
        return result

    def x_Compare(self, node):
        classes = self.class_comparison(node)   # type(x) is int, x.dtype == np.float32
        if classes is not None:
            return classes
        return self.comparison_chain(self.expr(node.left), node, 0)

    def comparison_chain(self, left, node, i: int):
        """``a < b < c``: ``b`` is evaluated once, and ``c`` only when ``a < b`` holds."""
        op, right = node.ops[i], self.expr(node.comparators[i])
        if i == len(node.ops) - 1:
            return self.compare(op, left, right, node)
        out: list = []
        right = self.pinned(right, node.comparators[i], out)
        test = self.short_circuit(True, [self.compare(op, left, right, node),
                                         self.comparison_chain(right, node, i + 1)],
                                  [node, node])
        return self.call("block", [*out, test], node) if out else test

    def compare(self, op, left, right, node):
        """One comparison of the translated operands ``left`` and ``right``."""
        if isinstance(op, (ast.In, ast.NotIn)):
            test = self.call("__contains", [right, left], node)
            return self.call("__pynot", [test], node) if isinstance(op, ast.NotIn) else test
        if isinstance(op, (ast.Is, ast.IsNot)):
            test = self.call("__is", [left, right], node)
            return self.call("__pynot", [test], node) if isinstance(op, ast.IsNot) else test
        return self.call(tables.COMPARE_OPS[type(op)], [left, right], node)

    def x_IfExp(self, node):
        return self.call("if", [self.expr(node.test), self.expr(node.body),
                                self.expr(node.orelse)], node)

    # -- names and attributes ----------------------------------------------
    def x_Name(self, node):
        name = node.id
        if self.is_local(name):
            free = self.unbound.get(definite.key(node))
            if free is not None:   # may be unassigned here: Python's UnboundLocalError
                return self.call("__bound", [self.ident(name, node), self.lit(name, node)] +
                                 ([self.constant(True, node)] if free else []), node)
            return self.ident(name, node)
        if name in self.global_names():
            return self.ident(self.external_global(name, node), node)
        if name == self.fn_name:
            return self.ident(self.state_name, node)
        res = self.resolver.lookup(name)
        if res is None:   # neither a Python binding nor a primitive (resolve.py)
            raise self.loc.name_error(node, name)
        return self.value_of(res, name, node)

    def value_of(self, res, name, node):
        kind, obj = res.kind, res.value
        if kind in (Kind.DECORATED, Kind.FUNCTION):
            return self.ident(self.dependency(obj, node), node)
        if kind is Kind.DTYPE:
            return self.lit(res.extra, node)
        if kind is Kind.NUMPY_FUNC:
            return self.ident(self.numpy_name(res.extra, node), node, raw=True)
        if kind is Kind.PRIMITIVE:
            return self.ident(res.extra, node, raw=True)
        if kind is Kind.BUILTIN:
            if name in tables.BUILTIN_DTYPES:
                return self.lit(tables.BUILTIN_DTYPES[name], node)
            if name not in tables.BUILTIN_CALLS:
                raise self.error(node, f"the built-in '{name}' cannot be used as a value inside "
                                       "a Phylanx function")
            return self.ident(self.need_primitive(tables.BUILTIN_CALLS[name], node,
                                                  f"the built-in '{name}' as a value"), node,
                              raw=True)
        if kind is Kind.VALUE:
            return self.ident(self.external(res, name, node), node)
        raise self.error(node, f"'{name}' ({type(obj).__name__}) cannot be used as a value "
                               "inside a Phylanx function")

    def x_Attribute(self, node):
        if node.attr == "__name__":
            return self.name_attribute(node)
        if node.attr == "__class__":   # x.__class__ is type(x)
            return self.call("__pytype", [self.expr(node.value)], node)
        qual = self.qualified(node)
        if qual is not None:
            module, dotted = qual
            if module == "numpy":
                last = dotted.rsplit(".", 1)[-1]
                if dotted in tables.NUMPY_CONSTANTS:
                    return self.lit(tables.NUMPY_CONSTANTS[dotted], node)
                if last in tables.NUMPY_DTYPES:
                    return self.lit(tables.NUMPY_DTYPES[last], node)
                return self.ident(self.numpy_name(dotted, node), node, raw=True)
            if module == "math" and dotted in tables.MATH_CONSTANTS:
                return self.lit(tables.MATH_CONSTANTS[dotted], node)
            if module == "phylanx.ops":
                return self.ident(self.ops_name(dotted, node), node, raw=True)
            raise self.error(node, f"'{module}.{dotted}' cannot be used inside a Phylanx "
                                   "function")
        prim = tables.ATTRIBUTES.get(node.attr)
        if prim is None:
            raise self.error(node, f"attribute '.{node.attr}' is not supported (supported: "
                             f"{', '.join(sorted(tables.ATTRIBUTES))})")
        self.need_primitive(prim, node, f"the attribute '.{node.attr}'")
        return self.call(prim, [self.expr(node.value)], node)

    def ops_name(self, dotted: str, node) -> str:
        """The primitive ``phylanx.ops.<dotted>`` names (a located error if none)."""
        from .resolve import callable_by_name
        if "." in dotted or not callable_by_name(dotted):
            raise self.error(node, f"phylanx.ops has no primitive '{dotted}'")
        return dotted

    def qualified(self, node):
        """``("numpy", "linalg.inv")`` for module attribute chains, None for values."""
        if isinstance(node, ast.Name):
            if self.is_local(node.id) or node.id in self.global_names():
                return None
            res = self.resolver.lookup(node.id)
            if res is None or res.kind is not Kind.MODULE:
                return None
            return res.extra
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            if base is None:
                return None
            return base[0], f"{base[1]}.{node.attr}" if base[1] else node.attr
        return None

    # -- subscripts ---------------------------------------------------------
    def x_Subscript(self, node):
        return self.call("__subscript", [self.expr(node.value), *self.indices(node.slice)], node)

    def indices(self, index):
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        return [self.index(p) for p in parts]

    def index(self, p):
        if isinstance(p, ast.Constant) and p.value is None or (
                isinstance(p, ast.Attribute) and p.attr == "newaxis"):
            return self.call("__newaxis", [], p)
        if isinstance(p, ast.Constant) and p.value is Ellipsis:
            return self.call("__ellipsis", [], p)
        if isinstance(p, ast.Slice):
            bounds = [p.lower, p.upper] + ([p.step] if p.step is not None else [])
            return self.call("list", [self.lit(None, p) if b is None else self.expr(b)
                                      for b in bounds], p)
        if isinstance(p, ast.List):
            literal = array_literal(p)
            if literal is not None:
                return past.ArrayLiteral(literal[0], literal[1], literal[2], self.loc(p))
            return self.call("__array", [self.expr(p)], p)
        if _plain_index(p):
            return self.expr(p)
        # the index's kind is known only at run time: a list must be NumPy's index
        # array and a tuple one index per axis, never PhySL's list-as-a-range
        return self.call("__pyindex", [self.expr(p)], p)

    # -- functions ----------------------------------------------------------
    def x_Lambda(self, node):
        return self.function_value(node, "lambda")

    def x_Set(self, node):
        return self.call("__pyset", [self.lit("set", node),
                                     self.call("list", self.exprs(node.elts), node)], node)

    # -- calls --------------------------------------------------------------
    def arguments(self, node, skip_keywords=(), user_function=False):
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise self.error(a, "'*' arguments are not supported; pass them one by one")
            args.append(self.expr(a))
        for k in node.keywords:
            if k.arg is None:
                raise self.error(k, "'**' arguments are not supported; pass keywords one by one")
            if k.arg in skip_keywords:
                continue
            key = local_name(k.arg) if user_function else k.arg
            args.append(past.KeywordArg(key, self.expr(k.value), self.loc(k.value)))
        return args

    def x_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name):
            name = func.id
            if self.is_local(name) or name in self.global_names():
                target = local_name(name) if self.is_local(name) else \
                    self.external_global(name, func)
                return self.call(target, self.arguments(node, user_function=True), node)
            if name == self.fn_name:
                self.check_call_shape(self.pyfunc, node)
                return self.call(self.state_name, self.arguments(node, user_function=True),
                                 node)
            res = self.resolver.lookup(name)
            if res is None:   # neither a Python binding nor a primitive (resolve.py)
                raise self.loc.name_error(func, name)
            return self.call_resolved(res, name, node)
        if isinstance(func, ast.Attribute):
            qual = self.qualified(func)
            if qual is not None:
                module, dotted = qual
                if module in ("numpy", "math"):
                    return self.numpy_call(dotted, node, module)
                if module == "phylanx.ops":
                    return self.call(self.ops_name(dotted, func), self.arguments(node), node)
                raise self.error(func, f"functions of module '{module}' cannot be called inside "
                                       "a Phylanx function (only numpy, math and phylanx.ops)")
            return self.method_call(func, node)
        # any other callee: an expression whose value is a function
        return self.call("apply", [self.expr(func), self.call("list", self.arguments(node),
                                                               node)], node)

    def call_resolved(self, res, name, node):
        kind = res.kind
        if kind is Kind.FUNCTION and primitive_stub(res.value, name):
            return self.call(name, self.arguments(node), node)   # the original's stand-ins
        if kind in (Kind.DECORATED, Kind.FUNCTION):
            self.check_call_shape(res.value, node)
            return self.call(self.dependency(res.value, node),
                             self.arguments(node, user_function=True), node)
        if kind is Kind.NUMPY_FUNC:
            return self.numpy_call(res.extra, node, "numpy")
        if kind is Kind.PRIMITIVE:
            return self.call(res.extra, self.arguments(node), node)
        if kind is Kind.BUILTIN:
            return self.builtin_call(name, node)
        if kind is Kind.DTYPE:
            return self.call("__pycast", [*self.arguments(node), self.lit(res.extra, node)],
                             node)
        if kind is Kind.VALUE and callable(res.value):
            return self.call(self.external(res, name, node), self.arguments(node), node)
        if kind is Kind.PRANGE:
            raise self.error(node, "prange(...) can only be used as the iterable of a for loop")
        raise self.error(node.func, f"'{name}' ({type(res.value).__name__}) cannot be called "
                                    "inside a Phylanx function")

    def check_call_shape(self, target, node):
        """A call of a Python or decorated function that Python would reject for its
        arguments (how many, which keywords) is Python's ``TypeError``, raised here at
        translation (the first call) and located at the call."""
        if isinstance(target, DecoratedFunction):
            target = target.decorator()
            if target._doc_src:
                return   # its parameters are those of the PhySL define, checked there
            target = target.python
        if any(isinstance(a, ast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            return
        message = arguments.python_message(target, (None,) * len(node.args),
                                           {k.arg: None for k in node.keywords})
        if message is not None:
            raise PhylanxTypeError(message, self.loc(node))

    def builtin_call(self, name, node):
        if name == "print":
            return self.print_call(node)
        if name == "str" and len(node.args) + len(node.keywords) != 1:
            if node.args or node.keywords:
                raise self.error(node, "only str(x) of one value is supported; use an f-string "
                                       "to join several values")
            return self.lit("", node)
        if name in ("list", "tuple", "dict") and not node.args and not node.keywords:
            return self.call(name, [], node)
        if name in ("set", "frozenset"):
            return self.call("__pyset", [self.lit(name, node), *self.arguments(node)], node)
        if name == "dict":   # Python's dict(): a copy of a mapping, pairs, key=value
            return self.call("__pydict", self.keywords_last(self.arguments(node), node), node)
        if name in ("max", "min") and node.keywords:
            return self.extreme_with_keywords(name, node)
        if name in tables.BUILTIN_DTYPES:
            if not node.args:   # float() is 0.0, int() is 0, bool() is False
                return self.constant({"int": 0, "float": 0.0, "bool": False,
                                      "complex": 0j}[name], node)
            # Python's conversion: a Python number (int(x) is unbounded, never np.int64)
            return self.call("__pyconvert", [*self.arguments(node), self.lit(name, node)],
                             node)
        if name == "format":
            return self.format_call(node)
        if name in PYTHON_BUILTINS and (name != "pow" or len(node.args) == 3):
            return self.call("__pybuiltin", [self.lit(name, node),
                                             *self.keywords_last(self.arguments(node), node)],
                             node)
        classes = self.class_call(name, node)   # isinstance, issubclass, type
        if classes is not None:
            return classes
        prim = tables.BUILTIN_CALLS.get(name)
        if prim is None:
            raise self.error(node.func, f"the built-in '{name}' is not supported inside a "
                                        "Phylanx function")
        self.need_primitive(prim, node.func, f"the built-in '{name}'")
        value = self.call(prim, self.arguments(node), node)
        if name in tables.BUILTIN_BOOL_RESULTS:
            return self.call("__pyconvert", [value, self.lit("bool", node)], node)
        return value

    def format_call(self, node):
        """``format(v, spec)`` -> ``format("{:spec}", v)`` (Python's built-in format)."""
        args = node.args
        spec = args[1] if len(args) == 2 else None
        if node.keywords or not args or len(args) > 2 or not (
                spec is None or isinstance(spec, ast.Constant) and isinstance(spec.value, str)):
            raise self.error(node, "only format(value) and format(value, 'spec') with a "
                                   "literal spec are supported; use an f-string")
        text = "{:" + spec.value + "}" if spec is not None else "{}"
        return self.call("format", [self.lit(text, node), self.expr(args[0])], node)

    def print_call(self, node):
        """``print(*values, sep=s, end=e)`` -> ``__print(s, e, values...)`` (Python's text)."""
        keywords = {"sep": self.lit(None, node), "end": self.lit(None, node)}
        for k in node.keywords:
            if k.arg == "flush":
                continue   # every print is flushed
            if k.arg not in keywords:
                raise self.error(k, f"print(..., {k.arg}=...) is not supported; print to "
                                    "stdout, or return the values and write them in Python")
            keywords[k.arg] = self.expr(k.value)
        values = self.arguments(node, skip_keywords=("sep", "end", "flush"))
        return self.call("__print", [keywords["sep"], keywords["end"], *values], node)

    def extreme_with_keywords(self, name, node):
        """``max(items, key=f, default=d)`` -> ``__best(items, f, true, d, true)``."""
        keywords = {k.arg: k for k in node.keywords}
        unknown = set(keywords) - {"key", "default"}
        if unknown or len(node.args) != 1:
            bad = keywords[sorted(unknown)[0]] if unknown else node
            raise self.error(bad, f"{name}() takes one iterable and the keywords key= and "
                                  "default= here")
        key = keywords.get("key")
        args = [self.expr(node.args[0]), self.lit(None, node) if key is None else
                self.expr(key.value), self.lit(name == "max", node)]
        if "default" in keywords:
            args += [self.expr(keywords["default"].value), self.lit(True, node)]
        return self.call("__best", args, node)

    def method_call(self, func, node, receiver=None):
        method = func.attr
        if method in tables.SHAPE_METHODS and receiver is None and \
                not sized_shape(node.args if method == "reshape" else [None]):
            # x.squeeze() of a 1x1 array is a 0-d array in NumPy, the primitive's scalar
            # is made one (not for a NumPy scalar receiver, whose method gives a scalar)
            out: list = []
            receiver = self.pinned(self.expr(func.value), node, out)
            value = self.call("__asndarray", [self.method_call(func, node, receiver),
                                              receiver], node)
            return self.call("block", [*out, value], node) if out else value
        prim = tables.METHODS.get(method)
        if prim is None and method in PYTHON_METHODS:
            # text.upper(), s.add(x): str's and set's own methods (a located error on others)
            return self.call("__pymethod", [
                self.expr(func.value), self.lit(method, node),
                *self.keywords_last(self.arguments(node), node)], node)
        if prim is None and method in GENERATOR_METHODS:
            # rng.normal(...) of a numpy.random.Generator or RandomState: its own method
            return self.call("__random_method", [
                self.expr(func.value), self.lit(method, node),
                *self.keywords_last(self.arguments(node), node)], node)
        if prim is None:
            raise self.error(func, f"method '.{method}()' is not supported (supported: "
                             f"{', '.join(sorted(tables.METHODS))})")
        self.need_primitive(prim, func, f"the method '.{method}()'")
        receiver = self.expr(func.value) if receiver is None else receiver
        if method in ("std", "var"):
            return self.moment(method, node, receiver)
        if method in ("reshape", "argmax", "argmin"):
            lowered = self.numpy_keywords(method, node, receiver)
            if lowered is not None:
                return lowered
        args = self.arguments(node)
        positional = [a for a in args if not isinstance(a, past.KeywordArg)]
        if method in ("reshape", "transpose") and len(positional) > 1:
            keywords = [a for a in args if isinstance(a, past.KeywordArg)]
            args = [self.call("list", positional, node), *keywords]
        # x.argmin(axis=1) -> argmin(x, 1) when the primitive takes axis by position only
        value = self.keyword_call(prim, method, [receiver, *args], node)
        return self.call("__nptuple", [value], node) if method == "nonzero" else value

def local_name(name: str) -> str:
    """The PhySL name of a Python local: names of primitives and constants get a ``_``
    suffix, because inside a function a variable would hide the primitive."""
    while name in CONSTANTS or registry.lookup(name) is not None:
        name += "_"
    return name


def _plain_index(node) -> bool:
    """True if the subscript index ``node`` cannot be a list or a tuple (a number, a
    string, arithmetic that gives numbers or arrays): no ``__pyindex`` needed."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return True   # -x, not x, ~x never give a list or a tuple
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, (ast.Add, ast.Mult)):
            # list + list, tuple * n: plain only when an operand is a number
            return any(isinstance(v, ast.Constant) and isinstance(v.value, (int, float))
                       for v in (node.left, node.right)) and \
                (isinstance(node.op, ast.Add) or all(_plain_index(v)
                                                     for v in (node.left, node.right)))
        return True
    return False


def _op_text(op) -> str:
    return {ast.FloorDiv: "//", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|",
            ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>", ast.Pow: "**"}.get(
        type(op), type(op).__name__)
