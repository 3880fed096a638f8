"""``@Phylanx``: decorate a NumPy-style Python function to run it as PhySL.

At decoration the function's source is parsed and checked (unsupported syntax
is a located :class:`PhylanxSyntaxError` right there).  On first use it is
translated once (:mod:`.translator`), compiled into the compiler state, and
every call then binds the arguments like Python, passes NumPy arrays without
copying, runs the compiled function and returns NumPy values (0-d results as
NumPy scalars, tuples when the Python function returns tuples).
"""
from __future__ import annotations

import ast
import functools
import inspect
import itertools
import linecache
import re
import textwrap
import threading
import types
from typing import Any

from .. import execution_tree
from ..compiler.compiler import CONSTANTS, call_value
from ..errors import PhylanxError, PhylanxTypeError
from ..exceptions import InvalidDecoratorArgumentError
from ..language import ast as past
from ..language import to_physl
from ..primitives import registry
from ..runtime.futures import Future
from ..session import PhylanxSession
from ..values import Function, from_python, to_python
from . import checks, instrument
from .translator import translate

OPTIONS = ("debug", "performance", "startatlineone", "print_progress", "disable_decorator",
           "doc_src", "compiler_state", "localities", "target", "fglobals")
_LOCK = threading.RLock()
_lambda_ids = itertools.count()


class UnknownOptionError(InvalidDecoratorArgumentError, NotImplementedError):
    """``@Phylanx(bad=...)``: an option the decorator does not know."""


class Linker:
    """Per compiler state: unique PhySL names for functions and Python values."""

    def __init__(self, state):
        self.state = state
        self.used: dict[str, Any] = {}
        self.helpers: dict[int, tuple[Any, PhylanxDecorator]] = {}

    def unique(self, base: str, key: Any) -> str:
        for n in itertools.count(1):
            name = base if n == 1 else f"{base}_{n}"
            owner = self.used.get(name)
            if owner is not None and owner == key:
                return name
            if owner is None and name not in CONSTANTS and registry.lookup(name) is None:
                self.used[name] = key
                return name
        raise AssertionError("unreachable")

    def external_name(self, key: tuple, name: str) -> str:
        return self.unique(name, key)

    def decorator_for(self, obj, node=None, locator=None) -> PhylanxDecorator:
        if isinstance(obj, LazyDecorator):
            obj = obj.decorated
        if isinstance(obj, PhylanxDecorator):
            if obj.state is not self.state and locator is not None:
                raise locator.error(node, f"'{obj.__name__}' was decorated with another "
                                          "compiler_state and cannot be called from here")
            return obj
        entry = self.helpers.get(id(obj))
        if entry is not None and entry[0] is obj:
            return entry[1]
        try:
            helper = PhylanxDecorator(obj, compiler_state=self.state)
        except PhylanxError:
            raise
        except (OSError, TypeError) as e:
            if locator is None:
                raise PhylanxTypeError(f"cannot translate {obj!r}: {e}") from None
            raise locator.error(node, f"cannot translate '{getattr(obj, '__name__', obj)}': "
                                      "its Python source is not available") from None
        self.helpers[id(obj)] = (obj, helper)
        return helper


def linker_of(state) -> Linker:
    linker = state.__dict__.get("_frontend_linker")
    if linker is None:
        linker = state._frontend_linker = Linker(state)
    return linker


def _function_source(fn) -> tuple[ast.AST, str, int, int, str]:
    """(def or lambda node, file, line offset, column shift, dedented source)."""
    lines, first = inspect.getsourcelines(fn)
    source = "".join(lines)
    indent = len(lines[0]) - len(lines[0].lstrip())
    text = textwrap.dedent(source)
    file = inspect.getsourcefile(fn) or fn.__code__.co_filename
    if fn.__name__ != "<lambda>":
        tree = ast.parse(text)
        node = tree.body[0]
        if not isinstance(node, ast.FunctionDef):
            raise PhylanxTypeError(f"@Phylanx needs a function, got {type(node).__name__}")
        return node, file, first - 1, indent, text
    found = _lambda_in_file(fn, file)
    if found is not None:
        return found
    # a lambda: parse the smallest enclosing statement text and find it by its parameters
    params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    for candidate in (text, text.strip().rstrip(",)") + "\n", "(" + text.strip() + ")"):
        try:
            tree = ast.parse(candidate)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == params:
                return node, file, first - 1, indent, text
    raise PhylanxTypeError("cannot find the source of this lambda; define it with def")


def _lambda_in_file(fn, file: str):
    """The lambda node of ``fn`` found by where its code starts in the file (two lambdas
    with the same parameters on one line, ``f(lambda x: x + 1, lambda x: 2 * x)``, are told
    apart by column), or None when positions or the file's source are not available."""
    starts = [(line, col) for line, _, col, end in fn.__code__.co_positions()
              if line is not None and col is not None and end is not None and end > col]
    lines = linecache.getlines(file)
    if not starts or not lines:
        return None
    text = "".join(lines)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    start = min(starts)
    params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Lambda) and (node.body.lineno, node.body.col_offset) == start
                and [a.arg for a in node.args.args] == params):
            return node, file, 0, 0, text
    return None


_STRING_OPENING = re.compile(r"[rRuU]?(\"\"\"|'''|\"|')")


def _docstring_source(fn):
    """(docstring node, file, PhySL text, locator) of a ``doc_src`` function; the text
    stands at the docstring's own lines and columns, so PhySL errors point into the file."""
    node, file, offset, indent, _ = _function_source(fn)
    locator = checks.Locator(file, offset, None, indent)
    doc = node.body[0] if node.body else None
    if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
            and isinstance(doc.value.value, str)):
        raise locator.error(node, "@Phylanx(doc_src=True) needs a docstring holding the "
                                  "PhySL source, e.g. \"\"\"define(f, x, x + 1)\"\"\"")
    line, col = doc.lineno + offset, doc.col_offset + indent
    opening = _STRING_OPENING.match(linecache.getline(file, line)[col:])
    col += opening.end() if opening else 0
    return doc, file, "\n" * (line - 1) + " " * col + doc.value.value, locator


class PhylanxDecorator:
    """The object ``@Phylanx`` returns (the original's ``_PhylanxDecorator``)."""

    def __init__(self, fn, **options: Any):
        for key in options:
            if key not in OPTIONS:
                raise UnknownOptionError(f"Unknown Phylanx argument '{key}'.")
        if not isinstance(fn, types.FunctionType):
            raise InvalidDecoratorArgumentError(
                f"@Phylanx decorates functions, not {type(fn).__name__} objects")
        target = options.get("target", "PhySL")
        if target != "PhySL":
            raise NotImplementedError(f"Unknown target '{target}' (only 'PhySL')")
        self.python = fn
        self.kwargs = options
        self.debug = options.get("debug", PhylanxSession.debug)
        self.performance = options.get("performance", False)
        self.print_progress = options.get("print_progress", PhylanxSession.print_progress)
        self.disable_decorator = options.get("disable_decorator",
                                             PhylanxSession.disable_decorator)
        self.localities = options.get("localities")
        self.state = options.get("compiler_state") or execution_tree.global_compiler_state()
        self.__perfdata__ = (None, None, None)
        functools.update_wrapper(self, fn)
        self._translation = None
        self._compiled = False
        self._compiling = False
        self._function: Function | None = None
        self._slots: list = []
        self._writeback: list = []
        self._signature = inspect.signature(fn)
        # calls passing exactly the positional parameters skip Signature.bind (slow)
        params = self._signature.parameters.values()
        self._plain_arity = (len(self._signature.parameters) if all(
            p.kind is p.POSITIONAL_OR_KEYWORD for p in params) else -1)
        self._doc_src = options.get("doc_src", False)
        startatlineone = options.get("startatlineone", PhylanxSession.startatlineone)
        if self._doc_src:
            self._node, self.file, text, self.locator = _docstring_source(fn)
        else:
            self._node, self.file, offset, indent, text = _function_source(fn)
            if startatlineone:
                own = "\n".join(text.splitlines()[self._node.lineno - 1:])
                self.locator = checks.Locator(self.file, -(self._node.lineno - 1), own)
            else:
                self.locator = checks.Locator(self.file, offset, None, indent)
            checks.check_function(self._node, self.locator)
        self._source_text = text
        base = fn.__name__ if fn.__name__ != "<lambda>" else f"__Physl_lambda_{next(_lambda_ids)}"
        self.state_name = linker_of(self.state).unique(base, self)
        if self.debug:
            self._ensure_compiled()
            print(self.get_physl_source())

    # -- translation and compilation ---------------------------------------
    @property
    def translation(self):
        if self._translation is None:
            with _LOCK:
                if self._translation is None:
                    self._translation = self._translate()
        return self._translation

    def _translate(self):
        if self.print_progress:
            print(f"physl: compiling {self.__name__}({self.file})")
        if self._doc_src:
            return self._docstring_translation()
        defaults = {p.name: p.default for p in self._signature.parameters.values()
                    if p.default is not inspect.Parameter.empty}
        # Translated once per function and kept on this object.  There is no on-disk
        # cache: translation takes a few milliseconds (benchmarks/overhead.py measures
        # it), less than reading and validating a cache entry would save.
        return translate(self._node, self.python, self.locator, self.state_name,
                         linker_of(self.state), defaults)

    def _docstring_translation(self):
        from ..language import parse
        from .translator import Translation
        program = parse(self._source_text, self.file)
        name = self.python.__name__
        defined = [e.args[0].name for e in program.body if isinstance(e, past.Call)
                   and e.func == "define" and e.args and isinstance(e.args[0], past.Identifier)]
        if name not in defined:
            also = f"; it defines {', '.join(defined)}" if defined else ""
            raise self.locator.error(self._node, "the PhySL docstring of a doc_src function "
                                     f"must define '{name}', e.g. define({name}, x, x + 1)"
                                     + also)
        return Translation(program, name)

    def _ensure_compiled(self) -> None:
        if self._compiled:
            return
        with _LOCK:
            if self._compiled or self._compiling:
                return
            self._compiling = True
            try:
                self._compile()
            finally:
                self._compiling = False

    def _compile(self) -> None:
        tr = self.translation
        state = self.state
        for dep in tr.deps:
            if dep is self:
                continue
            if dep._compiling:   # mutual recursion: declare the name, defined later
                state.run(state.compile_text(past.Program((past.Call(
                    "define", (past.Identifier(dep.state_name), past.Literal(None))),)),
                    self.file))
            else:
                dep._ensure_compiled()
        declare = tuple(past.Call("define", (past.Identifier(name), past.Literal(None)))
                        for name in tr.externals)
        program = past.Program(declare + tr.program.body, tr.program.loc)
        node = state.compile_text(program, self.file)
        state.run(node)
        self._function = state.lookup(tr.state_name)
        externals = {}
        self._collect_externals(externals, set())
        slots = state.compiler.globals.slots
        self._slots = [(slots[name], get) for name, (get, _) in externals.items()]
        self._writeback = [(slots[name], put) for name, (_, put) in externals.items() if put]
        self._compiled = True
        if self.print_progress:
            print(f"physl: compiled {self.__name__}({self.file})")

    def _collect_externals(self, out: dict, seen: set) -> None:
        if id(self) in seen:
            return
        seen.add(id(self))
        out.update(self.translation.externals)
        for dep in self.translation.deps:
            dep._collect_externals(out, seen)

    # -- calling ------------------------------------------------------------
    def _bind(self, args, kwargs) -> list | tuple:
        if not kwargs and len(args) == self._plain_arity:
            return args
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise PhylanxTypeError(f"{self.__name__}(): {e}",
                                   self.locator(self._node)) from None
        bound.apply_defaults()
        return [bound.arguments[p] for p in self._signature.parameters]

    def _argument(self, value, passed: list | None = None):
        if isinstance(value, (PhylanxDecorator, LazyDecorator, types.FunctionType)):
            dec = linker_of(self.state).decorator_for(value)
            dec._ensure_compiled()
            if passed is not None and dec is not self:
                passed.append(dec)   # its free names are loaded before the call, like ours
            return dec._function
        return from_python(value)

    def _arguments(self, args) -> tuple[list, list]:
        passed: list = []
        return [self._argument(a, passed) for a in args], passed

    def _run(self, values: list, passed=()) -> Any:
        g = self.state.globals
        slots, writeback = self._slots, self._writeback
        if passed:
            slots, writeback = list(slots), list(writeback)
            for dec in passed:
                slots += dec._slots
                writeback += dec._writeback
        for slot, get in slots:
            try:
                g[slot] = self._argument(get())
            except (KeyError, ValueError):
                g[slot] = None
        try:
            result = call_value(self._function, values, None, self.__name__)
            if isinstance(result, Future):
                result = result.result()
        finally:
            for slot, put in writeback:
                put(to_python(g[slot]))
        return result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.disable_decorator:
            return self.python(*args, **kwargs)
        if not self._compiled:
            self._ensure_compiled()
        if self._doc_src:
            values, passed = self._arguments(args)
        else:
            values, passed = self._arguments(self._bind(args, kwargs))
        if self.performance:
            with instrument.measure(self) as perf:
                result = self._run(values, passed)
            self.__perfdata__ = perf.data
        else:
            result = self._run(values, passed)
        result = to_python(result)
        if self.translation.returns_tuple and isinstance(result, list):
            result = tuple(result)
        return result

    def lazy(self, *args: Any, **kwargs: Any):
        """An unevaluated ``execution_tree.variable`` of this call (the function if no args)."""
        if self.disable_decorator:
            return functools.partial(self.python, *args, **kwargs) if args or kwargs \
                else self.python
        self._ensure_compiled()
        if not args and not kwargs:
            return self._function
        values, passed = self._arguments(self._bind(args, kwargs))
        return execution_tree.variable(None, _thunk=lambda: self._run(values, passed))

    # -- introspection ------------------------------------------------------
    def get_physl_source(self) -> str:
        """The generated PhySL text (locations are kept in the AST, not in the text)."""
        return to_physl(self.translation.program)

    @property
    def __src__(self) -> str:
        return self.get_physl_source()

    def generate_ast(self) -> list:
        return list(self.translation.program.body)

    def tree(self) -> list[str]:
        """``[newick, dot]`` topology of this function's execution tree."""
        self._ensure_compiled()
        return instrument.topology(self._function, self.state_name)

    def __repr__(self) -> str:
        return f"<Phylanx function {self.__name__}>"

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)


class LazyDecorator:
    """``Phylanx.lazy(decorated)``: calling it returns ``decorated.lazy(*args)``."""

    def __init__(self, decorated: PhylanxDecorator):
        if not isinstance(decorated, PhylanxDecorator):
            raise InvalidDecoratorArgumentError("Phylanx.lazy needs a @Phylanx function")
        self.decorated = decorated

    def __call__(self, *args: Any, **kwargs: Any):
        return self.decorated.lazy(*args, **kwargs)

    def tree(self) -> list[str]:
        return self.decorated.tree()


def Phylanx(*args: Any, **kwargs: Any):  # noqa: N802 - the original's name
    """``@Phylanx`` or ``@Phylanx(debug=True, ...)`` (options: see :data:`OPTIONS`)."""
    for key in kwargs:
        if key not in OPTIONS:
            raise UnknownOptionError(f"Unknown Phylanx argument '{key}'.")
    if len(args) == 1 and not kwargs and isinstance(args[0], types.FunctionType):
        return PhylanxDecorator(args[0])
    if args:
        raise InvalidDecoratorArgumentError(
            f"@Phylanx takes keyword options only, got {args[0]!r}; write @Phylanx or "
            "@Phylanx(debug=True, ...)")
    return lambda fn: PhylanxDecorator(fn, **kwargs)


Phylanx.lazy = LazyDecorator  # type: ignore[attr-defined]
