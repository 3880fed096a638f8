"""Execution-tree nodes and the closures that evaluate them.

The compiler turns every primitive call into a :class:`Node` whose ``run(frame)``
is a specialised Python closure: operands that are literals are captured as
values, operator calls of arity one and two get their own closure, and errors
are caught once per node to attach the node's location.  ``run`` is set while the
compiler builds the node (:meth:`Node.set_run`) and never after: what adapts while
the program runs (inline or task, a closure variant, counting, recording) is the
node's entry in the scheduler's side table, ``node.choice`` (``choices.py``), and
a parent evaluates a child as ``child.choice.call(frame)``.

A frame is a Python list: slot 0 is the enclosing frame (the closure link),
the other slots hold arguments and locals (resolved to indices at compile time).

Operands are dispatched by kind before the kernel runs, never by letting it fail: each
closure tests every operand that is not a literal with one ``type(x) in kinds``, where
``kinds`` (:func:`operand_kinds`, fixed when the node is built) holds the classes its
kernel does not take: ``Future`` (an ``async`` value, unless the primitive is declared
``takes_futures``) and the registered kind (the distributed layer's ``DistributedArray``,
see :func:`register_operand_kind`, unless it is declared ``takes_tiled``).  Such an
operand goes to :func:`dispatch_operands`: futures are waited for, a tiled array goes to
its dispatcher (the primitive's rule or a located refusal), and the kernel is called once
on what it takes.  A kernel's exception is located at its node and raised
(:func:`node_failed`); nothing is ever run again.  Containers never hold futures: a
``takes_futures`` builder (``list``) or a higher-order primitive that collects results
gives a future of the container instead (``futures.gathered``), a kind like any other.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import (
    PhylanxError,
    PhylanxRecursionError,
    PhylanxRuntimeError,
    phylanx_class,
)
from ..source import SourceLoc
from ..values import ControlSignal
from . import comm_order
from .choices import Choice, timed_task
from .forkjoin import fork_join
from .futures import Future, waited


class Node:
    """One node of an execution tree."""

    __slots__ = (
        "run", "primitive", "loc", "children", "instance", "seq", "compile_id",
        "inline", "count", "time_ns", "parent", "choice",
        "value", "is_const", "slot", "function_source",
        "variable", "blas", "takes_tiled", "elementwise", "future_free", "plan",
        "__weakref__",
    )

    def __init__(self, primitive: str, loc: SourceLoc | None, children: tuple = (),
                 instance: str | None = None):
        self.primitive = primitive
        self.loc = loc
        self.children = tuple(children)
        self.instance = instance
        self.seq = 0
        self.compile_id = 0
        # the plan settings it was compiled under (``config.plan_key``; 0: not known):
        # its distributed operations' messages carry it, ranks must agree on it
        self.plan = 0
        self.count = 0
        self.time_ns = 0
        self.parent: Node | None = None
        # the scheduler's side-table entry: every choice made while the program runs
        self.choice = Choice(self)
        self.value: Any = None
        self.is_const = False
        self.slot: int | None = None   # set on reads of a local of the current frame
        self.function_source = None   # a function body's compile-time record (autodiff)
        # (scope position, frame -> owning frame, slot) of the variable a node reads or
        # binds (access-variable, define-variable, store, for_each's loop variable): a
        # compiled loop (fusion/loops.py) reads and writes them
        self.variable: tuple | None = None
        # a product BLAS computes (the primitive's flag ``blas``, set by the compiler)
        self.blas = False
        # the primitive's flags ``takes_tiled`` and ``elementwise`` (set by the compiler):
        # whether operands of the registered kind reach the kernel (see build_eager)
        self.takes_tiled = False
        self.elementwise = False
        # the value is never a future (set by the compiler): a kernel's value, a read of
        # a local only ever bound to such values (scopes.FunctionScope.future_free)
        self.future_free = False
        self.inline: Callable[[list], Any] = _unbuilt
        self.run: Callable[[list], Any] = _unbuilt
        for child in self.children:
            child.parent = self

    def set_run(self, fn: Callable[[list], Any]) -> Node:
        """Give the node its closure: compile-time construction only (the compiler,
        in-place reuse and fusion build it in turn); afterwards it never changes."""
        self.inline = fn
        self.run = fn
        self.choice.rebase(fn)
        return self

    @property
    def eval_direct(self) -> int:
        """The policy's decision: 1 inline, 0 as a task, -1 undecided (side table)."""
        return self.choice.eval_direct

    @property
    def watched(self) -> bool:
        return self.choice.watched

    # -- naming (§2.5) ------------------------------------------------------
    @property
    def display_name(self) -> str:
        name = self.primitive.lstrip("_") or self.primitive
        if self.instance:
            name += f"/{self.instance}"
        if self.loc is not None and self.loc.line > 0:
            name += f"({self.loc.line}, {self.loc.col})"
        return name

    @property
    def full_name(self) -> str:
        inst = f"${self.instance}" if self.instance else ""
        line = self.loc.line if self.loc is not None else -1
        col = self.loc.col if self.loc is not None else -1
        return f"/phylanx$0/{self.primitive}${self.seq}{inst}/{self.compile_id}${line}${col}"

    def walk(self):
        """This node and all nodes below it, parents first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    # -- errors -------------------------------------------------------------
    def locate(self, error: PhylanxError) -> PhylanxError:
        if error.loc is None:
            error.loc = self.loc
        if error.primitive is None:
            error.primitive = self.primitive
        return error

    def wrap(self, exc: BaseException) -> PhylanxError:
        """A located PhylanxError for an internal exception raised by a kernel."""
        return wrap_exception(exc, self.loc, self.primitive)

    def __repr__(self) -> str:
        return f"<Node {self.display_name}>"


def wrap_exception(exc: BaseException, loc: Any, primitive: str | None) -> PhylanxError:
    """The PhylanxError standing for an internal exception a kernel raised, of the Phylanx
    class standing for the Python one, so ``except ZeroDivisionError`` (or NumPy's
    AxisError, LinAlgError ...) around the call still catches it."""
    if isinstance(exc, RecursionError):
        return PhylanxRecursionError("recursion too deep", loc, primitive)
    cls = phylanx_class(type(exc))
    text = str(exc) or type(exc).__name__
    if isinstance(exc, KeyError):
        text = f"key {text} not found"
    return cls(text, loc, primitive)


def _unbuilt(frame: list) -> Any:  # pragma: no cover - guards compiler bugs
    raise PhylanxRuntimeError("internal error: node evaluated before it was built")


def constant(value: Any, loc: SourceLoc | None = None) -> Node:
    """A literal operand."""
    node = Node("literal", loc)
    node.value = value
    node.is_const = True

    def run(frame: list) -> Any:
        return value

    return node.set_run(run)


def resolve_args(node: Node, frame: list) -> list:
    """Evaluate a node's children, spawning those the policy marked asynchronous.

    The asynchronous ones are spawned first, the others are evaluated here, and
    the tasks are joined last (``fork_join``), so the spawned work overlaps with
    everything else this node needs.  If every child is asynchronous, the last
    one runs here: this thread would only wait otherwise.
    """
    children = node.children
    spawn = [c.choice.eval_direct == 0 for c in children]
    if not any(spawn):
        return [c.choice.call(frame) for c in children]
    if all(spawn):
        spawn[-1] = False
    quiet = None
    if comm_order.enabled() and not any(writes_frame(c) for c in children):
        # (a sibling assigning a variable could bind a tiled array before another reads it)
        quiet = comm_order.silent(children, frame)
    return fork_join([timed_task(c.choice, frame) if s else _thunk(c.choice, frame)
                      for c, s in zip(children, spawn)], spawn, quiet=quiet)


def _thunk(entry: Choice, frame: list) -> Callable[[], Any]:
    return lambda: entry.call(frame)   # read late: the side table may change it


def writes_frame(node: Node) -> bool:
    """True if evaluating ``node`` may assign a variable of the frame it runs in
    (``define``, ``store``, a ``for_each`` loop variable), or communicates in program
    order (``ORDERED``): such a node must not run concurrently with its siblings.
    Function bodies (``lambda``) are not entered: defining a function does not run it.
    (Any node given a tiled array may communicate too; with several localities
    ``comm_order.py`` keeps the communication of concurrent siblings in program order.)"""
    stack = [node]
    while stack:
        n = stack.pop()
        p = n.primitive
        if p in _WRITERS or p in ORDERED or (p == "for_each" and n.instance):
            return True
        if p != "lambda":
            stack.extend(n.children)
    return False


_WRITERS = frozenset(("define-variable", "define-function", "store"))


def build_eager(node: Node, impl: Callable[..., Any]) -> Node:
    """Give ``node`` a closure that evaluates its children, then calls ``impl``.

    The closures are specialised by arity and by which operands are literals:
    this is the hot path of every program (``operand_tests.py`` generates them from one
    table of shapes).  Children locate their own errors, so only the kernel call sits
    in the ``try``.  An operand of a kind the kernel does not take (see
    :func:`operand_kinds`) goes to :func:`dispatch_operands` before the kernel runs; the
    kernel is called once, and its exception is located.  Operands known never to be
    futures (``Node.future_free``: literals, kernels' values, locals only ever bound to
    such values) leave one kind to test, with one ``is`` each; otherwise
    ``type(x) in kinds`` tests them all.
    """
    from .operand_tests import kernel_closure, shape_of
    children = node.children
    kinds = operand_kinds(node)
    run = kernel_closure(node, impl, kinds, _NoKind)
    if (shape_of(node) == "local_literal" and len(kinds) <= 1
            and children[0].future_free and (not kinds or node.elementwise)):
        # parents may evaluate it in place (see slot_op) without a kind test: the slot
        # never holds a future, and an element-wise kernel given a tiled array goes
        # tile by tile (its rule's answer)
        run.slot_op = (children[0].slot, impl, children[1].value)
    node.set_run(run)
    dynamic = sum(not c.is_const and c.slot is None for c in children)
    if dynamic >= 2:
        from .policy import watch_children
        watch_children(node)
    return node


def slot_op(node: Node) -> tuple:
    """``(run, slot, impl, constant)`` if ``node`` is ``local <op> literal`` (``n - 1``,
    ``n < 2``), else ``(None, 0, None, None)``.

    Offered only where no operand kind needs a test: the local never holds a future
    (``Node.future_free``: calls bind parameters to values, and the function binds it
    only to values) and a tiled array would go to the kernel anyway (element-wise).  A
    parent that calls it once per evaluation of its own (a recursive call's argument, an
    ``if``'s condition) may evaluate it in place while ``node.choice.call is run``,
    saving a Python call, exactly as :func:`build_eager`'s closure would: ``impl(frame[slot],
    constant)``, an exception going to ``node_failed(node, impl, (frame[slot], constant),
    exc)``.  While the side table layers something on it (counting, recording), the
    parent calls ``node.choice.call`` again.
    """
    run = node.inline
    op = getattr(run, "slot_op", None)
    if op is None:
        return None, 0, None, None
    return (run, *op)


class _NoKind:
    """The class of no value: the kind tested when none is registered or applies."""


#: [kind, dispatcher]: see :func:`register_operand_kind`
_kind: list = [_NoKind, None]

#: primitives whose operands may be sequences of arrays (``concatenate(tuple(x, y))``):
#: a list or tuple operand holding a value of the registered kind goes to its
#: dispatcher like a top-level one (filled by the layer that registers the kind)
SEQUENCE_OPERANDS: set[str] = set()

#: primitives whose kernels take ``async`` values as they are (builders that only hold
#: them, declared with the flag ``takes_futures``; filled by the registry)
TAKES_FUTURES: set[str] = set()


def register_operand_kind(kind: type, dispatcher: Callable[..., Any]) -> None:
    """Make operands of exactly ``kind`` go to ``dispatcher(node, impl, args)`` instead of
    the kernel, for every primitive not declared ``takes_tiled``.  Registered once, on
    import of the layer that defines the kind (``phylanx.distributed.darray``, which
    ``import phylanx`` loads before anything compiles)."""
    if _kind[0] is not _NoKind and _kind[0] is not kind:
        raise ValueError(f"operand kind {_kind[0].__name__} is already registered")
    _kind[0], _kind[1] = kind, dispatcher


def registered_kind() -> type:
    """The registered operand kind (a class no value has if none is registered)."""
    return _kind[0]


def operand_kinds(node: Node) -> frozenset:
    """The classes of operands ``node``'s kernel does not take, which its closures hand to
    :func:`dispatch_operands`: ``Future`` unless the primitive is declared
    ``takes_futures`` or no operand can be one (``Node.future_free``), the registered kind
    unless it is declared ``takes_tiled``.  Every closure that calls a kernel tests its
    operands against them (this module's, ``operand_tests.py``'s, ``inplace.py``'s)."""
    kinds = set()
    if node.primitive not in TAKES_FUTURES and not all(
            c.is_const or c.future_free for c in node.children):
        kinds.add(Future)
    if not takes_kind(node):
        kinds.add(_kind[0])
        if node.primitive in SEQUENCE_OPERANDS:
            kinds.update((list, tuple))
    return frozenset(kinds)


def takes_kind(node: Node) -> bool:
    """True if ``node``'s kernel is given operands of the registered kind as they are."""
    return _kind[0] is _NoKind or node.takes_tiled


def call(node: Node, impl: Callable[..., Any], args) -> Any:
    """``impl(*args)`` exactly as ``node``'s closure calls it (for evaluators outside this
    module, such as fusion's unfused paths): operands dispatched by kind, an exception
    located by :func:`node_failed`."""
    kinds = operand_kinds(node)
    for x in args:
        if type(x) in kinds:
            return dispatch_operands(node, impl, args)
    try:
        return impl(*args)
    except Exception as e:  # also ControlSignal: node_failed passes it on
        return node_failed(node, impl, args, e)


def dispatch_operands(node: Node, impl: Callable[..., Any], args) -> Any:
    """An operand of a kind ``node``'s kernel does not take reached it (its closure tested
    them, see :func:`operand_kinds`): futures are waited for (their errors are located
    where they happened), then an operand of the registered kind goes to its dispatcher
    unless the primitive takes it, and the kernel is called once on the values."""
    if node.primitive not in TAKES_FUTURES:
        args = [waited(a) for a in args]
    if not takes_kind(node):
        kind = _kind[0]
        nested = node.primitive in SEQUENCE_OPERANDS
        for a in args:
            if type(a) is kind or (nested and type(a) in (list, tuple)
                                   and any(type(e) is kind for e in a)):
                return dispatch_kind(node, impl, args)
    try:
        return impl(*args)
    except Exception as e:  # also ControlSignal: node_failed passes it on
        return node_failed(node, impl, args, e)


def dispatch_kind(node: Node, impl: Callable[..., Any], args) -> Any:
    """An operand of the registered kind reached ``node``: its dispatcher decides (the
    primitive's rule, or a refusal), its errors located at ``node``."""
    try:
        return _kind[1](node, impl, tuple(args))
    except PhylanxError as e:
        raise node.locate(e) from None
    except ControlSignal:
        raise
    except Exception as e:
        raise node.wrap(e) from e


#: ``handler(node, impl, args, exc)`` translating a kernel's exception into the located
#: error it stands for (a tiled array inside a list: only top-level operands are
#: dispatched by kind, the kernel meets the nested one when it converts it and raises).
#: A translation, never a retry: the handler must not call ``impl``.  NotImplemented:
#: not mine
operand_handlers: list[Callable[..., Any]] = []

#: primitives that communicate in program order (collectives of the distributed
#: layer): a subtree holding one is never spawned concurrently with its siblings
ORDERED: set[str] = set()


def node_failed(node: Node, impl: Callable[..., Any], args, exc: Exception) -> Any:
    """A kernel raised ``exc``: raise it located at ``node`` (a ``ControlSignal`` passes
    as it is: break/continue/return are not errors).  The kernel is never run again:
    its operands were dispatched by kind before it ran (:func:`dispatch_operands`)."""
    if isinstance(exc, ControlSignal):
        raise exc
    for handler in operand_handlers:   # e.g. tiled arrays (phylanx.distributed.darray)
        try:
            result = handler(node, impl, args, exc)
        except PhylanxError as e:
            raise node.locate(e) from None
        except ControlSignal:
            raise
        except Exception as e:
            raise node.wrap(e) from e
        if result is not NotImplemented:   # pragma: no cover - handlers only raise
            raise PhylanxRuntimeError(
                "internal error: an operand handler returned a value instead of raising",
                node.loc, node.primitive)
    if isinstance(exc, PhylanxError):
        raise node.locate(exc)
    raise node.wrap(exc) from exc
