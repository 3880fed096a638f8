"""The original's ``phylanx.execution_tree`` API (§1.8) over our compiler and runtime.

``compiler_state`` holds one global scope; ``compile`` parses, compiles and runs
top-level definitions; ``eval`` compiles a snippet (cached), runs it and, when the
result is a function, calls it with the (converted) arguments.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any

from .compiler import Compiler
from .compiler.compiler import deep_recursion
from .errors import PhylanxError, PhylanxRuntimeError, PhylanxTypeError
from .language import ast as past
from .language import parse
from .runtime.forkjoin import evaluate
from .runtime.futures import Future
from .values import (
    Builtin,
    ControlSignal,
    Function,
    call_function,
    from_python,
    to_python,
    type_name,
)


class compiler_state:  # noqa: N801 - the original's name
    """A compilation environment: every primitive plus what was defined in it."""

    def __init__(self, name: str = "", codename: str = "<physl>"):
        self.name = name
        self.codename = codename
        self.compiler = Compiler(codename)
        # the compiled roots in order: a root, or a weak reference to one its owner holds
        # (a decorated function's: the state must not keep a dropped function's program)
        self._roots: list[Any] = []
        self._prune_at = 128
        self._cache: dict[tuple[str, str], Any] = {}
        self._lock = threading.RLock()

    @property
    def snippets(self) -> list:
        """Every live compiled root, in order of compilation (instrumentation walks them)."""
        with self._lock:
            roots = [r() if type(r) is weakref.ref else r for r in self._roots]
        return [r for r in roots if r is not None]

    @property
    def globals(self) -> list:
        return self.compiler.globals.frame

    def compile_text(self, code: Any, file_name: str | None = None, *, owned: bool = False,
                     linked: bool = False, owner=None):
        """Compile PhySL text, an AST or a list of ASTs into a runnable node.  ``owned``:
        the caller holds the node for as long as it is wanted; the state keeps it weakly
        (a decorated function's program lives as long as the function).  ``linked``: it
        is the code of ``@Phylanx`` functions (the frontend's), which binds the names its
        linker gave (``compiler/scopes.py``: two namespaces).  ``owner``: its ``token`` is
        what the functions its calls make hold (``values.Function.keeps``)."""
        file_name = file_name or self.codename
        if isinstance(code, str):
            key = (file_name, code)
            node = self._cache.get(key)
            if node is not None:
                return node
            program = parse(code, file_name)
        elif isinstance(code, past.Program):
            key, program = None, code
        elif isinstance(code, (list, tuple)):
            key, program = None, past.Program(tuple(code))
        else:
            key, program = None, past.Program((code,))
        with self._lock:
            self.compiler.file_name = file_name
            scope = self.compiler.globals
            outer, scope.linking = scope.linking, linked
            self.compiler.owner = owner
            try:
                node = self.compiler.compile_program(program)
            finally:
                scope.linking = outer
                self.compiler.owner = None
            self._keep(node, owned and key is None)
        if key is not None:
            self._cache[key] = node
        return node

    def _keep(self, node: Any, weak: bool) -> None:
        if not weak:
            self._roots.append(node)
            return
        self._roots.append(weakref.ref(node))
        if len(self._roots) >= self._prune_at:
            # the dropped ones' references go; the list at most doubles before the next
            # look (amortised constant time per root)
            self._roots = [r for r in self._roots if type(r) is not weakref.ref or r()]
            self._prune_at = max(128, 2 * len(self._roots))

    def run(self, node) -> Any:
        try:
            with deep_recursion():
                return evaluate(node.choice.call, self.globals)
        except PhylanxError:
            raise
        except ControlSignal as jump:   # break() with no loop around it
            raise jump.as_error() from None
        except Exception as e:  # an internal failure: still located at the program
            raise PhylanxRuntimeError(f"internal error: {type(e).__name__}: {e}",
                                      node.loc) from e

    def declare_linked(self, name: str) -> int:
        """The slot of ``name`` in the decorated code's namespace (declared if new)."""
        with self._lock:
            scope = self.compiler.globals
            outer, scope.linking = scope.linking, True
            try:
                return scope.declare(name)
            finally:
                scope.linking = outer

    def lookup(self, name: str) -> Any:
        slot = self.compiler.globals.slots.get(name)
        if slot is None:
            raise PhylanxError(f"'{name}' is not defined in compiler state '{self.name}'")
        return self.globals[slot]


_global_state: compiler_state | None = None


def global_compiler_state(name: str | None = None, file_name: str | None = None) -> compiler_state:
    """The shared compiler state used by ``@Phylanx`` (created on first use)."""
    global _global_state
    if _global_state is None:
        _global_state = compiler_state(name or "phylanx", file_name or "<phylanx>")
    return _global_state


def compile(state: compiler_state, file_name: str, func_name: str, code: Any) -> str:  # noqa: A001
    """Compile ``code`` and run its top-level definitions; returns ``func_name``."""
    state.run(state.compile_text(code, file_name))
    return func_name


def _resolve(value: Any) -> Any:
    return value.result() if isinstance(value, Future) else value


def invoke(fn: Any, args: tuple, kwargs: dict) -> Any:
    """Call a PhySL function value from Python (arguments and result converted)."""
    values = [from_python(a) for a in args]
    kw = {k: from_python(v) for k, v in kwargs.items()} if kwargs else None
    try:
        with deep_recursion():
            result = evaluate(call_function, fn, values, kw, getattr(fn, "name", "function"))
    except ControlSignal as jump:   # break() in a function called from Python
        raise jump.as_error() from None
    except PhylanxError as err:    # a wrong call from Python: point at the definition
        if err.loc is None:
            err.loc = getattr(fn, "loc", None)
        raise
    return to_python(result)


def _looks_like_file(text: str) -> bool:
    """A file name, not code: no spaces or parentheses, and a file-like form."""
    if any(c in text for c in " \t\n(),"):
        return False
    return text.startswith("<") or text.endswith((".py", ".physl")) or "/" in text


def eval(state: compiler_state, code: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A001
    """Compile and run ``code``; if the result is a function, call it with the arguments.

    Also accepts the original's ``eval(state, file_name, code, *args)`` form.
    """
    file_name = kwargs.pop("file_name", None)
    if (file_name is None and isinstance(code, str) and args and isinstance(args[0], str)
            and _looks_like_file(code)):
        file_name, code, args = code, args[0], args[1:]
    result = _resolve(state.run(state.compile_text(code, file_name)))
    if isinstance(result, Function) and not args and not kwargs and result.min_args > 0:
        return result  # a function that needs arguments, asked for without any
    if isinstance(result, (Function, Builtin)):
        return invoke(result, args, kwargs)
    if args or kwargs:
        raise PhylanxTypeError(f"the code evaluates to a {type_name(result)}, not a function; "
                               "it cannot take arguments")
    return to_python(result)


def code_for(state: compiler_state, file_name: str, func_name: str) -> Any:
    """The function object of a previously compiled function."""
    return state.lookup(func_name)


class bound_code_for:  # noqa: N801 - the original's name
    """A function with bound arguments (``target-reference``); call ``eval()`` to run it."""

    def __init__(self, state: compiler_state, file_name: str, func_name: str,
                 *args: Any, **kwargs: Any):
        self.fn = code_for(state, file_name, func_name)
        self.args, self.kwargs = args, kwargs

    def eval(self, *more: Any) -> Any:
        return invoke(self.fn, self.args + more, self.kwargs)

    __call__ = eval


class _Parallel:
    """Marker for ``with parallel:`` blocks in decorated functions."""

    @staticmethod
    def is_parallel_block() -> bool:
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


parallel = _Parallel()

from .variable import primitive, variable, variable_impl  # noqa: E402  (uses invoke above)

__all__ = [
    "bound_code_for", "code_for", "compile", "compiler_state", "eval", "global_compiler_state",
    "parallel", "primitive", "variable", "variable_impl",
]


# -- instrumentation (§1.8, §5) ---------------------------------------------
def enable_measurements(state: compiler_state, reset_counters: bool = False) -> list[str]:
    """Count and time every node compiled in ``state`` so far."""
    from .instrumentation import enable_measurements as enable
    return enable(state.snippets, reset_counters)


def retrieve_counter_data(state: compiler_state) -> str:
    """The counters of every node of ``state`` as CSV (§5.1)."""
    from .instrumentation import counter_csv
    return counter_csv(state.snippets)


def _function_tree(state: compiler_state, code: str):
    for root in reversed(state.snippets):
        for node in root.walk():
            if node.primitive == "define-function" and node.instance == code:
                return node
    return state.compile_text(code)


def retrieve_newick_tree_topology(state: compiler_state, file_name: str, code: str) -> str:
    from .instrumentation import newick_tree
    return newick_tree(code, _function_tree(state, code))


def retrieve_dot_tree_topology(state: compiler_state, file_name: str, code: str) -> str:
    from .instrumentation import dot_tree
    return dot_tree(code, _function_tree(state, code))


def retrieve_tree_topology(state: compiler_state, file_name: str, code: str) -> list[str]:
    """``[newick, dot]`` of the function (or code) ``code``."""
    return [retrieve_newick_tree_topology(state, file_name, code),
            retrieve_dot_tree_topology(state, file_name, code)]
