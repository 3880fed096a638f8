"""Python function -> PhySL AST: statements, scopes and functions.

:func:`translate` turns one decorated Python function into a
``define(name, params..., body)`` PhySL AST whose every node is located at
the user's Python source.  Statement rules live here, assignments in
:mod:`.assignments`, expression rules in :mod:`.expressions`.  Python scoping
is kept: the names a function assigns are its locals (``define`` on first
assignment, ``store`` after), ``global`` and ``nonlocal`` are honoured, a
``return`` in tail position is just the function's value and any other
``return`` becomes ``return(value)``.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import itertools
from typing import Any

from ..errors import PYTHON_CLASSES
from ..language import ast as past
from . import checks, definite
from .assignments import AssignmentMixin
from .comprehensions import ComprehensionMixin
from .expressions import ExpressionMixin, local_name
from .resolve import Kind, Resolver
from .scopes import (
    Scope,
    Translation,
    always_returns,
    needs_predeclare,
    scalar_accumulators,
    scope_names,
)

TRANSLATIONS = itertools.count(1)   # how many functions were translated (tests count it)
#: the built-in exceptions ``raise E(...)`` takes: those a Phylanx class stands for
_EXCEPTIONS = {"Exception"} | {cls.__name__ for cls in PYTHON_CLASSES
                               if getattr(builtins, cls.__name__, None) is cls}


class FunctionTranslator(AssignmentMixin, ComprehensionMixin, ExpressionMixin):
    """Translates one decorated function (and what is nested in it)."""

    def __init__(self, fn_node, pyfunc, locator: checks.Locator, state_name: str, linker,
                 default_values=None, fglobals: dict | None = None):
        self.fn_node = fn_node
        self.fn_name = getattr(fn_node, "name", None)
        self.pyfunc = pyfunc
        self.state_name = state_name
        self.loc = locator
        self.error = locator.error
        self.resolver = Resolver(pyfunc, fglobals)
        self.linker = linker
        self.default_values = default_values or {}
        self.scope: Scope | None = None
        self.temps = itertools.count(1)
        self.deps: list = []
        self.externals: dict = {}
        self.loop_kinds: list[str] = []
        #: per enclosing loop, the flag its ``break`` sets (a loop with ``else``) or None
        self.break_flags: list[str | None] = []
        #: per enclosing ``except`` block, the variable holding the exception it handles
        self.handled: list[str] = []
        self.unbound: dict = {}   # reads needing __bound (definite.key -> free), all scopes

    # -- scopes -------------------------------------------------------------
    def is_local(self, name: str) -> bool:
        s = self.scope
        while s is not None:
            if name in s.globals:
                return False
            if name not in s.nonlocals:
                if s.kind == "function" and name in s.locals:
                    return True
                if s.kind == "lambda" and name in s.declared:
                    return True
            s = s.parent
        return False

    def function_scope(self) -> Scope:
        s = self.scope
        while s.kind != "function":
            s = s.parent
        return s

    def global_names(self) -> set:
        s = self.scope
        while s is not None and s.kind != "function":
            s = s.parent
        return s.globals if s is not None else set()

    def declared_anywhere(self, name: str) -> bool:
        s = self.scope
        while s is not None:
            if name in s.declared:
                return True
            s = s.parent
        return False

    def temp(self, node) -> str:
        return f"__t{next(self.temps)}"

    def define(self, name: str, value, node):
        self.scope.declared.add(name)
        return self.call("define", [self.ident(name, node), value], node)

    @contextlib.contextmanager
    def lambda_scope(self, target):
        """A PhySL lambda with one parameter bound to ``target`` (a name or a tuple)."""
        outer = self.scope
        self.scope = Scope("lambda", outer)
        try:
            if isinstance(target, ast.Name):
                self.scope.declared.add(target.id)
                yield target.id, []
            else:
                param = self.temp(target)
                self.scope.declared.add(param)
                yield param, self.assign(target, self.ident(param, target), target)
        finally:
            self.scope = outer

    # -- links to other functions and Python values --------------------------
    def dependency(self, obj, node) -> str:
        dec = self.linker.decorator_for(obj, node, self.loc)
        if dec not in self.deps:
            self.deps.append(dec)
        return dec.state_name

    def external(self, res, name, node) -> str:
        key = self.resolver.key(name, res.where)
        mangled = self.linker.external_name(key, name)
        self.externals[mangled] = (self.resolver.getter(name, res.where), None)
        return mangled

    def external_global(self, name, node) -> str:
        g = self.resolver.globals
        mangled = self.linker.external_name(("global", id(g), name), name)
        self.externals[mangled] = (lambda: g.get(name), self.resolver.setter(name, "global"))
        return mangled

    # -- functions ----------------------------------------------------------
    def function_value(self, fn, name: str | None, top: bool = False):
        """``define(name, params..., body)`` (or a ``lambda`` when name is 'lambda')."""
        locals_, globals_, nonlocals, params = scope_names(fn)
        defaults = self.parameter_defaults(fn, top)
        outer = self.scope
        self.scope = Scope("function", outer, params, locals_, globals_, nonlocals)
        self.scope.accumulators = scalar_accumulators(fn)
        saved_loops, self.loop_kinds = self.loop_kinds, []
        saved_flags, self.break_flags = self.break_flags, []
        try:
            # locals read where they may be unassigned start as __unbound() (the reads are
            # checked); the others read before assignment in the text start as nil
            found = definite.unbound_reads(fn)
            self.unbound.update(found.reads)
            checked = found.names - set(params)
            pre = [self.define(n, self.call("__unbound", [], fn) if n in checked else
                               self.lit(None, fn), fn)
                   for n in sorted(checked.union(needs_predeclare(fn, locals_, params)))]
            if isinstance(fn, ast.Lambda):
                body = self.expr(fn.body)
            else:
                body = self.block(pre + self.tail(fn.body), fn)
                pre = []
            if pre:
                body = self.call("block", [*pre, body], fn)
        finally:
            self.scope = outer
            self.loop_kinds = saved_loops
            self.break_flags = saved_flags
        # a nested def's defaults are evaluated once, where the def runs (Python's rule):
        # into the parameters of a wrapper called right there, which the function's
        # PhySL defaults (evaluated at each call) then only read
        held = {p: (self.ident(self.temp(fn), fn) if not top else d)
                for p, d in defaults.items()}
        plist = []
        for p in params:
            if p in held:
                plist.append(past.KeywordArg(local_name(p), held[p], self.loc(fn)))
            elif plist and isinstance(plist[-1], past.KeywordArg):
                raise self.error(fn, f"parameter '{p}' without a default follows parameters "
                                     "with defaults; give it a default or move it first")
            else:
                plist.append(self.ident(p, fn))
        if name == "lambda":
            value = self.call("lambda", [*plist, body], fn)
            if top or not defaults:
                return value
            wrapper = self.call("lambda", [*held.values(), value], fn)
            return self.call("apply", [wrapper, self.call("list", list(defaults.values()), fn)],
                             fn)
        if not plist:
            body = self.call("lambda", [body], fn)
        return self.call("define", [self.ident(name, fn), *plist, body], fn)

    def parameter_defaults(self, fn, top: bool) -> dict:
        a = fn.args
        positional = a.posonlyargs + a.args
        pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
        pairs += [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
        out = {}
        for arg, default in pairs:
            if top and arg.arg in self.default_values:
                out[arg.arg] = self.value_literal(self.default_values[arg.arg], default,
                                                  arg.arg)
            else:
                out[arg.arg] = self.expr(default)
        return out

    def value_literal(self, value, node, param):
        """A Python default value as PhySL: a literal when it cannot change, else a global
        slot holding the very object, so every call shares it as in Python (a default
        ``acc=[]`` appended to grows from call to call)."""
        if value is None or type(value) in (bool, int, float, str):
            return self.lit(value, node)
        if type(value) is tuple and all(v is None or type(v) in (bool, int, float, str)
                                        for v in value):
            return self.call("tuple", [self.lit(v, node) for v in value], node)
        mangled = self.linker.external_name(("default", id(self.fn_node), param),
                                            f"default_{param}")
        self.externals[mangled] = ((lambda v=value: v), None)
        return self.ident(mangled, node)

    # -- statement lists ----------------------------------------------------
    def block(self, exprs, node):
        if len(exprs) == 1:
            return exprs[0]
        return self.call("block", exprs, node)

    def tail(self, stmts) -> list:
        """Statements whose last value is the function's result."""
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Return):
                out.append(self.return_value(s))
                return out
            if isinstance(s, ast.If) and (i == len(stmts) - 1 or always_returns(s.body)):
                rest = stmts[i + 1:]
                then = self.block(self.tail(s.body), s)
                other = self.block(self.tail(s.orelse + rest), s)
                out.append(self.call("if", [self.expr(s.test), then, other], s))
                return out
            if isinstance(s, ast.Raise):
                out.append(self.stmt(s))
                return out
            out.extend(self.stmt_list([s]))
        out.append(self.lit(None, stmts[-1] if stmts else None))
        return out

    def return_value(self, node):
        if node.value is None:
            return self.lit(None, node)
        return self.expr(node.value)

    def stmt_list(self, stmts) -> list:
        out = []
        for s in stmts:
            e = self.stmt(s)
            if e is None:
                continue
            out.extend(e if isinstance(e, list) else [e])
        return out

    def body(self, stmts, node):
        exprs = self.stmt_list(stmts)
        return self.block(exprs, node) if exprs else self.call("block", [], node)

    def stmt(self, node):
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"unsupported Python statement: {type(node).__name__}")
        return method(node)

    # -- simple statements --------------------------------------------------
    def s_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None   # a docstring or a bare string: no effect
        return self.expr(node.value)

    def s_Pass(self, node):
        return None

    def s_Global(self, node):
        return None

    s_Nonlocal = s_Global

    def s_Return(self, node):
        if "parallel" in self.loop_kinds:
            raise self.error(node, "return inside a prange loop is not supported")
        value = [] if node.value is None else [self.expr(node.value)]
        return self.call("return", value, node)

    def s_Break(self, node):
        if self.loop_kinds and self.loop_kinds[-1] == "parallel":
            raise self.error(node, "break inside a prange loop is not supported: iterations "
                                   "run concurrently")
        flag = self.break_flags[-1] if self.break_flags else None
        if flag is not None:   # the loop has an else: record that it was left by break
            return self.call("block", [self.call("store", [self.ident(flag, node),
                                                           self.constant(True, node)], node),
                                       self.call("break", [], node)], node)
        return self.call("break", [], node)

    def s_Continue(self, node):
        if self.loop_kinds and self.loop_kinds[-1] == "parallel":
            return self.call("return", [], node)   # ends this iteration's function call
        return self.call("continue", [], node)

    def s_Assert(self, node):
        # Python's assert: the test's truth is Python's (an array of several elements is
        # NumPy's ValueError), the message is evaluated only when the test fails
        failed = self.call("assert", [self.constant(False, node)] +
                           ([self.expr(node.msg)] if node.msg else []), node)
        return self.call("if", [self.call("__pynot", [self.expr(node.test)], node), failed],
                         node)

    def s_Try(self, node):
        """``try``/``except``/``else``/``finally`` as ``__try``: the handlers are tried in
        order; ``except E as e`` binds ``e`` (``__caught()``, Python's exception class)."""
        body = self.body(node.body, node)
        handlers = []
        for h in node.handlers:
            var = h.name or self.temp(h)
            self.handled.append(var)
            try:
                stmts = [self.assign_name(var, self.call("__caught", [], h), h),
                         *self.stmt_list(h.body)]
            finally:
                self.handled.pop()
            handlers += [self.lit(self.exception_kinds(h.type), h), self.block(stmts, h)]
        orelse = self.body(node.orelse, node.orelse[0]) if node.orelse else self.lit(None, node)
        final = self.body(node.finalbody, node.finalbody[0]) if node.finalbody else \
            self.lit(None, node)
        return self.call("__try", [body, orelse, final, *handlers], node)

    def exception_kinds(self, kind) -> str:
        """The built-in exception classes an ``except`` names, as ``"A|B"`` ("" for all)."""
        names = [] if kind is None else kind.elts if isinstance(kind, ast.Tuple) else [kind]
        out = []
        for n in names:
            if not (isinstance(n, ast.Name) and isinstance(getattr(builtins, n.id, None), type)
                    and issubclass(getattr(builtins, n.id), BaseException)):
                raise self.error(n, "except takes built-in exception classes (ValueError, "
                                    "(TypeError, KeyError), Exception ...) here")
            out.append(n.id)
        return "|".join(out)

    def s_Raise(self, node):
        exc = node.exc
        if exc is None:   # a bare raise: the exception being handled, again
            if not self.handled:
                raise self.error(node, "a bare 'raise' is only supported inside an except "
                                       "block")
            return self.call("__reraise", [self.ident(self.handled[-1], node)], node)
        if isinstance(exc, ast.Name) and self.is_local(exc.id):
            return self.call("__reraise", [self.expr(exc)], node)
        if isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name) and \
                exc.func.id in _EXCEPTIONS and len(exc.args) <= 1 and not exc.keywords:
            msg = self.expr(exc.args[0]) if exc.args else self.lit("", exc)
            return self.call("__raise", [self.lit(exc.func.id, exc), msg], node)
        if isinstance(exc, ast.Name) and exc.id in _EXCEPTIONS:
            return self.call("__raise", [self.lit(exc.id, exc), self.lit("", exc)], node)
        raise self.error(node, "only 'raise ValueError(message)' (or another built-in "
                               "exception with one message) is supported")

    def s_FunctionDef(self, node):
        if node.decorator_list:
            raise self.error(node.decorator_list[0], "decorators on nested functions are not "
                                                     "supported")
        return self.assign_name(node.name, self.function_value(node, "lambda"), node)

    # -- compound statements ------------------------------------------------
    def s_If(self, node):
        args = [self.expr(node.test), self.body(node.body, node)]
        if node.orelse:
            args.append(self.body(node.orelse, node.orelse[0]))
        return self.call("if", args, node)

    def s_While(self, node):
        test = self.expr(node.test)
        flag = self.loop_flag(node)
        self.loop_kinds.append("loop")
        try:
            loop = self.call("while", [test, self.body(node.body, node)], node)
        finally:
            self.loop_kinds.pop()
            self.break_flags.pop()
        return self.with_else(loop, flag, node)

    def loop_flag(self, node) -> str | None:
        """The flag a ``break`` of this loop sets when the loop has an ``else``."""
        flag = self.temp(node) if node.orelse else None
        self.break_flags.append(flag)
        return flag

    def with_else(self, loop, flag, node):
        """``loop`` and its ``else`` block, run when no ``break`` ended the loop."""
        if flag is None:
            return loop
        orelse = self.body(node.orelse, node.orelse[0])
        return self.call("block", [
            self.define(flag, self.constant(False, node), node), loop,
            self.call("if", [self.call("__pynot", [self.ident(flag, node)], node), orelse],
                      node)], node)

    def s_For(self, node):
        it = node.iter
        if isinstance(it, ast.Call) and self.is_prange(it.func):
            if node.orelse:
                raise self.error(node.orelse[0], "'for ... else' is not supported on a prange "
                                                 "loop (it has no break)")
            return self.parallel_for(node)
        iterable = self.expr(it)
        flag = self.loop_flag(node)
        self.loop_kinds.append("loop")
        try:
            if isinstance(node.target, ast.Name):
                var = node.target.id
                if var in self.global_names():
                    raise self.error(node.target, "this loop variable cannot be a global; "
                                                  "use a local name")
                self.scope.declared.add(var)
                param, prologue = var, []
            else:
                param = self.temp(node.target)
                self.scope.declared.add(param)
                pairs = (isinstance(iterable, past.Call) and len(node.target.elts) == 2 and
                         iterable.func in ("__enumerate", "__items") or
                         isinstance(iterable, past.Call) and iterable.func == "__zip" and
                         len(iterable.args) == len(node.target.elts))
                prologue = self.assign(node.target, self.ident(param, node.target), node,
                                       pairs=pairs)
            body = prologue + self.stmt_list(node.body)
        finally:
            self.loop_kinds.pop()
            self.break_flags.pop()
        fn = self.call("lambda", [self.ident(param, node.target),
                                  self.block(body, node) if body else self.lit(None, node)], node)
        return self.with_else(self.call("for_each", [fn, iterable], node), flag, node)

    def is_prange(self, func) -> bool:
        if isinstance(func, ast.Name):
            if self.is_local(func.id):
                return False
            res = self.resolver.lookup(func.id)
            return res is not None and res.kind is Kind.PRANGE
        if isinstance(func, ast.Attribute) and func.attr == "prange":
            return self.qualified(func) is not None
        return False

    def parallel_for(self, node):
        call = node.iter
        rng = self.call("range", self.arguments(call), call)
        self.loop_kinds.append("parallel")
        self.break_flags.append(None)
        try:
            with self.lambda_scope(node.target) as (param, prologue):
                body = prologue + self.stmt_list(node.body)
                fn = self.call("lambda", [self.ident(param, node.target),
                                          self.block(body, node) if body else
                                          self.lit(None, node)], node)
        finally:
            self.loop_kinds.pop()
            self.break_flags.pop()
        return self.call("parallel_map", [fn, rng], node)

    def s_With(self, node):
        if len(node.items) != 1 or node.items[0].optional_vars is not None or \
                not self.is_parallel(node.items[0].context_expr):
            raise self.error(node, "only 'with parallel:' is supported (from phylanx import "
                                   "parallel); other context managers cannot be translated")
        return self.call("parallel_block", self.stmt_list(node.body) or [self.lit(None, node)],
                         node)

    def is_parallel(self, expr) -> bool:
        if isinstance(expr, ast.Name) and not self.is_local(expr.id):
            res = self.resolver.lookup(expr.id)
            return res is not None and res.kind is Kind.PARALLEL
        if isinstance(expr, ast.Attribute) and expr.attr == "parallel":
            return self.qualified(expr) is not None
        return False


def translate(fn_node, pyfunc, locator, state_name: str, linker,
              default_values: dict[str, Any] | None = None,
              fglobals: dict | None = None) -> Translation:
    """Translate the parsed ``def`` of ``pyfunc`` into a :class:`Translation` (free names
    are resolved in ``fglobals``, by default ``pyfunc.__globals__``)."""
    checks.check_function(fn_node, locator)
    tr = FunctionTranslator(fn_node, pyfunc, locator, state_name, linker, default_values,
                            fglobals)
    define = tr.function_value(fn_node, state_name, top=True)
    next(TRANSLATIONS)
    _, _, _, params = scope_names(fn_node)
    return Translation(past.Program((define,), locator(fn_node)), state_name, tr.deps,
                       tr.externals, params, tr.resolver.bound)
