"""``@Phylanx``: decorate a NumPy-style Python function to run it as PhySL.

At decoration the options are checked (:mod:`.options`), the function's source
is found (:mod:`.source`) and checked: unsupported syntax is a located
:class:`PhylanxSyntaxError` right there.  On first use it is translated once
(:mod:`.translator`, names given by the state's :mod:`.linking`), compiled
into the compiler state, and every call then binds the arguments like Python
(:mod:`.arguments`), passes NumPy arrays without copying, runs the compiled
function and returns NumPy values (0-d results as NumPy scalars, tuples when
the Python function returns tuples).
"""
from __future__ import annotations

import functools
import inspect
import itertools
import threading
import types
import weakref
from typing import Any

from .. import execution_tree
from ..compiler import scopes
from ..compiler.compiler import deep_recursion
from ..compiler.rewrite import inline
from ..errors import PhylanxRuntimeError
from ..exceptions import InvalidDecoratorArgumentError
from ..language import ast as past
from ..language import to_physl
from ..runtime import evaluation
from ..runtime.forkjoin import evaluate
from ..runtime.futures import Future
from ..session import PhylanxSession
from ..source import user_line
from ..values import Builtin, Function, call_function, from_python, to_python
from . import arguments, checks, instrument
from .global_values import Loaded, compiled, loaded_value, read
from .linking import linker_of
from .markers import DecoratedFunction
from .options import caller_loc, check_options, definition_loc
from .physl_names import renamed
from .source import docstring_source, function_source
from .translator import translate

_LOCK = threading.RLock()
_lambda_ids = itertools.count()


def _let_go(frame: list, slot: int, function: Function, linker: weakref.ref,
            used: tuple) -> None:
    """A dropped decorated function's slot no longer holds it (if it still does): a
    call by its name is then a located error saying so; the slots of the Python values
    it read or assigned that no live function uses let their values go (all of them if
    its linker went too: every function the linker named is gone, and a later linker
    of the state names other slots)."""
    if slot < len(frame) and frame[slot] is function:
        frame[slot] = Builtin(function.name, functools.partial(_dropped, function.name))
    _release(frame, linker, used)


def _release(frame: list, linker: weakref.ref, used: tuple) -> None:
    """A user of the global slots ``used`` is gone (see :func:`_let_go`)."""
    live = linker()
    if live is not None:
        live.release_slots(frame, used)
    else:
        for value_slot in used:
            if value_slot < len(frame):
                frame[value_slot] = None


class _SlotUse:
    """A use of a program's global slots that outlives the program's decorated function:
    every function value its calls make (a closure: returned, stored in a global or a
    list) holds it (``values.Function.keeps``), and the slots keep their values while one
    lives.  The closure holds this, not the decorated function: a call node of the
    program caching the closure would otherwise keep the function from ever dropping."""

    __slots__ = ("__weakref__",)

    def __init__(self, frame: list, linker, used: tuple):
        linker.use_slots(used)
        weakref.finalize(self, _release, frame, weakref.ref(linker), used).atexit = False


def _dropped(name: str, *args: Any, **kwargs: Any) -> Any:
    raise PhylanxRuntimeError(
        f"'{name}' is no longer defined: its decorated function was dropped (a function "
        "value that outlives it, returned to Python, cannot call it by name; keep the "
        "decorated function)")


class PhylanxDecorator(DecoratedFunction):
    """The object ``@Phylanx`` returns (the original's ``_PhylanxDecorator``)."""

    def __init__(self, fn, **options: Any):
        if not isinstance(fn, types.FunctionType):
            raise InvalidDecoratorArgumentError(
                f"@Phylanx decorates functions, not {type(fn).__name__} objects")
        check_options(options, definition_loc(fn))
        self.python = fn
        self.kwargs = options
        self.debug = options.get("debug", PhylanxSession.debug)
        self.performance = options.get("performance", False)
        self.print_progress = options.get("print_progress", PhylanxSession.print_progress)
        self.disable_decorator = options.get("disable_decorator",
                                             PhylanxSession.disable_decorator)
        self.localities = options.get("localities")   # None or 1: this process
        # the globals free names are resolved in (the original's fglobals option)
        self.fglobals = options.get("fglobals")
        if self.fglobals is None:
            self.fglobals = fn.__globals__
        self.state = options.get("compiler_state") or execution_tree.global_compiler_state()
        self.__perfdata__ = (None, None, None)
        functools.update_wrapper(self, fn)
        self._translation = None
        self._compiled = False
        self._compiling = False
        self._function: Function | None = None
        self._roots: list = []         # the compiled programs (the state keeps them weakly)
        self._slots: list = []
        self._writeback: list = []
        self._signature = inspect.signature(fn)
        # calls passing exactly the positional parameters skip Signature.bind (slow)
        params = self._signature.parameters.values()
        self._plain_arity = (len(self._signature.parameters) if all(
            p.kind is p.POSITIONAL_OR_KEYWORD for p in params) else -1)
        self._doc_src = options.get("doc_src", False)
        startatlineone = options.get("startatlineone", PhylanxSession.startatlineone)
        source = options.get("source")
        if self._doc_src:
            self._node, self.file, text, self.locator = docstring_source(fn, source)
        else:
            src = function_source(fn, source)
            self._node, self.file, text = src.node, src.file, src.text
            if startatlineone:
                own = "\n".join(text.splitlines()[self._node.lineno - 1:])
                self.locator = checks.Locator(self.file, -(self._node.lineno - 1), own)
            else:
                self.locator = src.locator()
            checks.check_function(self._node, self.locator)
        self._source_text = text
        base = fn.__name__ if fn.__name__ != "<lambda>" else f"__Physl_lambda_{next(_lambda_ids)}"
        self.linker = linker_of(self.state, PhylanxDecorator)
        self.state_name = self.linker.unique(base, self)
        # PhySL text in the state may call it by this name, not define it again (the
        # linker withdraws this for a plain function it translates: a helper's name is
        # the decorated code's binding alone, compiler/scopes.py)
        self.state.compiler.globals.public[self.state_name] = \
            f"{fn.__qualname__} ({fn.__code__.co_filename}:{fn.__code__.co_firstlineno})"
        if self.debug:
            self._ensure_compiled()
            print(self.get_physl_source())

    # -- translation and compilation ---------------------------------------
    @property
    def translation(self):
        if self._translation is None:
            with _LOCK:
                if self._translation is None:
                    with deep_recursion():   # the translator recurses along the Python AST
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
                         self.linker, defaults, self.fglobals)

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
        if self.state_name != name:   # its own slot, not another function's of its name
            program = renamed(program, name, self.state_name)
        return Translation(program, self.state_name)

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
                declared = state.compile_text(past.Program((past.Call(
                    "define", (past.Identifier(dep.state_name), past.Literal(None))),)),
                    self.file, owned=True, linked=True)
                self._roots.append(declared)
                state.run(declared)
            else:
                dep._ensure_compiled()
        declare = tuple(past.Call("define", (past.Identifier(name), past.Literal(None)))
                        for name in tr.externals)
        program = past.Program(declare + tr.program.body, tr.program.loc)
        # the Python globals it assigns are per call (compiler/scopes.py): marked before
        # the code using them is compiled
        assigned = {state.declare_linked(name): (get, put)
                    for name, (get, put) in tr.externals.items() if put}
        if assigned:
            scopes.mark_per_evaluation(
                state.globals,
                {slot: self._loader(get) for slot, (get, _) in assigned.items()},
                {slot: self._storer(put) for slot, (_, put) in assigned.items()})
        # what the closures its calls make hold (its slots' use, once known: _SlotUse)
        keeper = types.SimpleNamespace(token=None)
        # the helpers this function calls, so that the inlining pass sees their bodies
        with inline.linked(self._linked_definitions()):
            node = state.compile_text(program, self.file, owned=True, linked=True,
                                      owner=keeper)
        self._roots.append(node)       # (the state holds its roots weakly: owned)
        state.run(node)
        slot = state.compiler.globals.linked_slot
        self._function = state.globals[slot(tr.state_name)]
        externals = {}
        self._collect_externals(externals, set())
        self._slots = [(slot(name), get) for name, (get, _) in externals.items()]
        self._writeback = [(slot(name), put) for name, (_, put) in externals.items() if put]
        # once this function is dropped, so is its program: its name's slot lets the
        # function go (a decorated function is callable by name as long as it lives),
        # and so do the values it loaded that no live function reads
        used = tuple(sorted({s for s, _ in self._slots}))
        self.linker.use_slots(used)
        keeper.token = _SlotUse(state.globals, self.linker, used)
        # (the linker weakly: held by the finalizer, it and its state would outlive the
        # collection that drops their last function)
        weakref.finalize(self, _let_go, state.globals, slot(tr.state_name), self._function,
                         weakref.ref(self.linker), used).atexit = False
        self._compiled = True
        if self.print_progress:
            print(f"physl: compiled {self.__name__}({self.file})")

    def _linked_definitions(self) -> dict:
        """Global name -> ``define`` of every decorated helper this function reaches
        (compiled into the same state: ``compiler/rewrite/inline.py`` may inline them)."""
        out: dict = {}
        stack = [dep for dep in self.translation.deps if dep is not self]
        while stack:
            dep = stack.pop()
            if dep.state is not self.state or dep.state_name in out:
                continue
            body = dep.translation.program.body
            if len(body) == 1:
                out[dep.state_name] = body[0]
            stack.extend(d for d in dep.translation.deps if d is not self)
        return out

    def _collect_externals(self, out: dict, seen: set) -> None:
        if id(self) in seen:
            return
        seen.add(id(self))
        out.update(self.translation.externals)
        for dep in self.translation.deps:
            dep._collect_externals(out, seen)

    # -- calling ------------------------------------------------------------
    def _bind(self, args, kwargs, locate=None) -> list | tuple:
        if not kwargs and len(args) == self._plain_arity:
            return args
        # located at the caller's line (frames: _bind, __call__ or lazy, the caller),
        # or where ``locate()`` says
        return arguments.bind(self.python, self._signature, args, kwargs,
                              locate() if locate else caller_loc(2))

    def _argument(self, value, passed: list | None = None):
        if (isinstance(value, execution_tree.variable)
                and isinstance(value.value, LazyFunction)):
            value = value.value.decorated   # its globals are loaded as a call's
        if isinstance(value, (DecoratedFunction, types.FunctionType)):
            dec = compiled(self.linker, value)
            if passed is not None and dec is not self:
                passed.append(dec)   # its free names are loaded before the call, like ours
            return dec._function
        return from_python(value)

    def _load(self, get, held: list | None = None) -> Any:
        """The current value of a Python global (``get`` reads it), as a call loads it
        (nil if it does not exist yet; a function's decorated function appended to
        ``held``)."""
        return loaded_value(self.linker, get, held)

    def _loader(self, get):
        # the state's global frame keeps the loader: it holds the linker, not this
        # function (which would then never be dropped, nor its program)
        linker = self.linker
        return lambda: loaded_value(linker, get)

    @staticmethod
    def _storer(put):
        return lambda value: put(to_python(value))

    def _arguments(self, args) -> tuple[list, list]:
        passed: list = []
        return [self._argument(a, passed) for a in args], passed

    def _externals(self, passed=()) -> tuple[list, list]:
        """(slot, getter) of the Python globals this call reads, (slot, setter) of those
        it assigns: its own and its dependencies', and those of functions passed."""
        slots, writeback = self._slots, self._writeback
        if passed:
            slots, writeback = list(slots), list(writeback)
            for dec in passed:
                slots += dec._slots
                writeback += dec._writeback
        return slots, writeback

    def with_globals(self, passed, fn, *args) -> Any:
        """``fn(*args)`` as one evaluation that sees the Python globals this call uses,
        read from their modules when it starts.  Those it assigns (``global x``) live in
        the evaluation's own frame (``compiler/scopes.py``: two calls running at once on
        two Python threads each see their own assignments) and are written back to their
        modules when it ends, even by an error (one it loaded and left keeps its object:
        ``global_values.Loaded``); a call nested in an evaluation (PhySL ->
        Python -> PhySL) shares that frame, as Python code shares its module's globals.
        Globals it only reads are loaded into the shared global frame (each call loads
        the modules' current values: what Python's reads would see)."""
        slots, writeback = self._externals(passed)
        if not slots:
            return evaluate(fn, *args)
        g = self.state.globals
        # the decorated functions of the functions loaded: alive until the evaluation
        # ends (rebound meanwhile, by Python code it calls or another thread, a dropped
        # one would take its name from its running program)
        held: list = []
        if not writeback:
            for slot, get in slots:
                g[slot] = self._load(get, held)
            return evaluate(fn, *args)
        key = scopes.overlay_key(g)
        loaded_key = (key, "loaded")
        overlay = evaluation.lookup(key)
        nested = overlay is not None
        # what the evaluation loaded into its frame (the calls nested in it add theirs)
        loaded = evaluation.lookup(loaded_key) if nested else {}
        if not nested:
            overlay = {}
        for slot, get in slots:
            if scopes.is_per_evaluation(g, slot):
                if not (nested and slot in overlay):
                    record = loaded[slot] = Loaded(*read(self.linker, get, held))
                    overlay[slot] = record.value
            else:
                g[slot] = self._load(get, held)
        try:
            if nested:
                return fn(*args)
            return evaluation.run_with({key: overlay, loaded_key: loaded}, fn, *args)
        finally:
            for slot, put in writeback:
                value = overlay.get(slot)
                record = loaded.get(slot)
                # a value the evaluation loaded and left: the global was not assigned and
                # keeps its object (its converted copy in its place, a list would no
                # longer be its aliases', a decorated function would be dropped, and
                # with it its name)
                if record is None:
                    put(to_python(value))
                else:
                    record.write_back(value, put)

    def _run(self, values: list, passed=(), keywords: dict | None = None) -> Any:
        with deep_recursion():
            result = self.with_globals(passed, self._evaluate, values, keywords)
        return result

    def _evaluate(self, values: list, keywords: dict | None) -> Any:
        result = call_function(self._function, values, keywords, self.__name__)
        if isinstance(result, Future):
            result = result.result()
        return result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.disable_decorator:
            return self.python(*args, **kwargs)
        if not self._compiled:
            self._ensure_compiled()
        keywords = None
        if self._doc_src:   # the PhySL define's parameters bind the call, keywords too
            values, passed = self._arguments(args)
            keywords = {k: self._argument(v, passed) for k, v in kwargs.items()} or None
        else:
            values, passed = self._arguments(self._bind(args, kwargs))
        if self.performance:
            with instrument.measure(self) as perf:
                result = self._run(values, passed, keywords)
            self.__perfdata__ = perf.data
        else:
            result = self._run(values, passed, keywords)
        result = to_python(result)
        return result

    def lazy(self, *args: Any, **kwargs: Any):
        """An unevaluated ``execution_tree.variable`` of this call (addendum B.5).

        Without arguments it wraps the function itself (``.eval(a, b)`` calls it);
        with arguments, a bound call: ``.eval(*more)`` runs it, appending ``more``
        to the bound arguments.  Keywords bind as in a call.
        """
        if self.disable_decorator:
            return functools.partial(self.python, *args, **kwargs)
        self._ensure_compiled()
        et = execution_tree
        if not args and not kwargs:
            return et.variable(LazyFunction(self), name=self.__name__)
        try:   # arguments that can never bind fail here, at the caller's line
            self._signature.bind_partial(*args, **kwargs)
        except TypeError:
            self._bind(args, kwargs)
        bound = list(args)
        keywords = kwargs

        def call(*more: Any):   # (arguments that cannot bind: located at eval's line)
            values, passed = self._arguments(self._bind((*bound, *more), keywords,
                                                        user_line))
            return self._run(values, passed)
        return et.variable(et.primitive(f"{self.state_name}_bound", call, partial=True))

    # -- introspection ------------------------------------------------------
    def get_physl_source(self) -> str:
        """The generated PhySL text (locations are kept in the AST, not in the text)."""
        return to_physl(self.translation.program)

    def ir(self, *args: Any, locs: bool = False, **kwargs: Any) -> str:
        """The IR of this function (docs/ir.md), specialised for ``args`` when given: the
        facts (shapes, dtypes, kinds) that follow from their values."""
        from ..ir.specialise import signature_of
        from ..ir.text import renumbered, show
        signature = signature_of(self._bind(args, kwargs)) if args or kwargs else None
        return show(renumbered(self.ir_function(signature)), locs)

    def ir_function(self, signature=None):
        """The IR ``Function`` of this function (specialised for ``signature``, a tuple
        of ``ir.Facts``, when given), its helpers inlined as when it is compiled."""
        from ..compiler.through_ir import function_ir
        with inline.linked(self._linked_definitions()):
            return function_ir(self.translation.program, self.translation.state_name,
                               signature)

    @property
    def __src__(self) -> str:
        return self.get_physl_source()

    def generate_ast(self) -> list:
        return list(self.translation.program.body)

    def tree(self) -> list[str]:
        """``[newick, dot]`` topology of this function's execution tree."""
        self._ensure_compiled()
        return instrument.topology(self._function, self.state_name)

    def tree_picture(self, path: str, by: str = "time") -> str:
        """Draw this function's tree (.svg or .png), coloured by the counters of the last
        ``performance=True`` call (zero otherwise); returns the engine ("dot"/"python")."""
        self._ensure_compiled()
        return instrument.picture(self._function, path, by, self.__name__)

    def __repr__(self) -> str:
        return f"<Phylanx function {self.__name__}>"

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)


class LazyFunction(execution_tree.primitive):
    """The expression of ``f.lazy()``: ``f`` itself.  Called with arguments
    (``.eval(x)``), a call of ``f``; its value (``.eval()``, ``v()``, the variable
    passed to PhySL: ``phylanx.evaluate``, ``execution_tree.invoke``, inside a list) is
    the decorated function, whose every call is an ordinary call: it reads the Python
    globals as they are then.  (The compiled function value it was would run with the
    globals some earlier call loaded, or nil.)  Passed to a decorated function, it is
    passed as ``f`` is (its compiled value, its globals loaded with the caller's:
    ``PhylanxDecorator._argument``).  Holding the decorated function keeps its name
    (a recursive call)."""

    __slots__ = ("decorated",)

    def __init__(self, decorated: PhylanxDecorator):
        super().__init__(decorated.state_name, lambda: decorated)   # (not assignable)
        self.decorated = decorated

    def raw(self, *args: Any) -> Any:
        if not args:
            return self.decorated
        decorated = self.decorated
        if not decorated._doc_src:   # arguments that cannot bind: located at eval's line
            decorated._bind(args, {}, user_line)
        return from_python(decorated(*args))


class LazyDecorator(DecoratedFunction):
    """``Phylanx.lazy(decorated)``: calling it returns ``decorated.lazy(*args)``."""

    def __init__(self, decorated: PhylanxDecorator):
        if not isinstance(decorated, PhylanxDecorator):
            raise InvalidDecoratorArgumentError("Phylanx.lazy needs a @Phylanx function")
        self.decorated = decorated

    def decorator(self) -> PhylanxDecorator:
        return self.decorated

    def __call__(self, *args: Any, **kwargs: Any):
        return self.decorated.lazy(*args, **kwargs)

    def tree(self) -> list[str]:
        return self.decorated.tree()


def Phylanx(*args: Any, **kwargs: Any):  # noqa: N802 - the original's name
    """``@Phylanx`` or ``@Phylanx(debug=True, ...)`` (options: see :mod:`.options`)."""
    check_options(kwargs, caller_loc(1))
    if len(args) == 1 and not kwargs and isinstance(args[0], types.FunctionType):
        return PhylanxDecorator(args[0])
    if args:
        raise InvalidDecoratorArgumentError(
            f"@Phylanx takes keyword options only, got {args[0]!r}; write @Phylanx or "
            "@Phylanx(debug=True, ...)")
    return lambda fn: PhylanxDecorator(fn, **kwargs)


Phylanx.lazy = LazyDecorator  # type: ignore[attr-defined]
