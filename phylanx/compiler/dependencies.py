"""Dependencies between the statements of a ``block``: which may overlap.

A statement ``define(x, V)`` or ``store(x, V)`` may run concurrently with the
statements after it, up to the first one that

* reads or assigns ``x`` (it needs the value, or would be overwritten),
* assigns a variable ``V`` reads (``V`` must see the value from before), or
* is *impure*: calls a function value (unknown code), has side effects
  (``cout``, file I/O, in-place changes of a list or array, ``store`` into a
  slice), jumps (``break``/``continue``/``return``) or uses a higher-order
  primitive;

and only if ``V`` itself assigns nothing and is pure.  Variables are compared
by name, which is conservative (two variables of one name count as one).  The
runtime (``runtime/overlap.py``) spawns such a statement only once the policy
has measured ``V`` as expensive; everything else keeps program order.

:func:`mark_local_work` marks, once per compile, the subtrees that hold no
communicating or impure primitive (the scheduler's side table, ``Choice.local_reads``):
with several localities their later siblings need not wait for them
(``distributed/local_work.py``).
"""
from __future__ import annotations

from ..primitives import registry
from ..runtime.nodes import ORDERED, Node

_PURE_INTERNAL = frozenset(("literal", "array", "access-variable", "block"))
_IMPURE_NAMES = frozenset(("return", "break", "continue", "call-function"))


def _primitive_is_pure(name: str) -> bool:
    spec = registry.lookup(name)
    if spec is None:
        return False
    # the registry's flags, not the docs, say what may be reordered; ORDERED primitives
    # communicate, so every rank must run them in program order
    # a rewrite's primitive that only calls the function the rewrite built from pure
    # code (flags["pure_function"]) is as pure as its operands
    higher = spec.higher_order and not spec.flags.get("pure_function")
    return not (spec.side_effects or higher or name in _IMPURE_NAMES or name in ORDERED)


_pure_cache: dict[str, bool] = {}


def primitive_is_pure(name: str) -> bool:
    """The registry's word on ``name`` (cached): no side effects, not higher-order,
    not a jump, not an ordered collective."""
    pure = _pure_cache.get(name)
    if pure is None:
        pure = _pure_cache[name] = _primitive_is_pure(name)
    return pure


#: primitives of the plan's own making that neither compute nor communicate
_LOCAL_INTERNAL = frozenset(("literal", "access-variable", "array"))


def mark_local_work(roots: list[Node]) -> None:
    """Mark, once per compile, in the scheduler's side table (``Choice.local_reads``)
    every node whose subtree holds no communicating or impure primitive: the variables
    it reads (a tuple), else None.  Such a subtree can communicate only through a tiled
    variable, which the distributed layer checks when it is forked
    (``distributed/local_work.py``), so its later siblings need not wait for it."""
    for root in roots:
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, children_done = stack.pop()
            if node.is_const:
                node.choice.local_reads = ()
            elif not children_done:
                stack.append((node, True))
                stack.extend((c, False) for c in node.children)
            else:
                node.choice.local_reads = _local_reads(node)


def _local_reads(node: Node) -> tuple | None:
    p = node.primitive
    if p == "access-variable":
        return None if node.variable is None else (node.variable,)
    if p not in _LOCAL_INTERNAL and not primitive_is_pure(p):
        return None
    reads: dict = {}
    for child in node.children:
        below = child.choice.local_reads
        if below is None:
            return None
        reads.update(dict.fromkeys(below))
    return tuple(reads)


def summarize(node: Node) -> tuple[set[str], set[str], bool]:
    """``(reads, writes, impure)`` of evaluating ``node`` (function bodies not entered)."""
    reads: set[str] = set()
    writes: set[str] = set()
    impure = False
    stack = [node]
    while stack:
        n = stack.pop()
        p = n.primitive
        if p == "lambda" or n.is_const:
            continue
        if p == "access-variable":
            reads.add(n.instance)
        elif p in ("define-variable", "define-function"):
            writes.add(n.instance)
            if p == "define-function":
                continue          # its child is the body, not run here
        elif p == "store":
            if len(n.children) == 1:
                writes.add(n.instance)
            else:
                impure = True     # into a slice: changes a shared container
        elif p == "for_each":
            if n.instance:
                writes.add(n.instance)
        elif p in _IMPURE_NAMES:
            impure = True
        elif p not in _PURE_INTERNAL:
            pure = _pure_cache.get(p)
            if pure is None:
                pure = _pure_cache[p] = _primitive_is_pure(p)
            impure = impure or not pure
        stack.extend(n.children)
    return reads, writes, impure


def overlap_plan(stmts: list[Node]) -> dict[int, tuple[Node, int]]:
    """``{i: (V, j)}``: statement ``i`` (computing ``V``) may overlap statements
    ``i+1 .. j-1``.  Empty when nothing may (the block then runs as before)."""
    n = len(stmts)
    if n < 3:
        return {}
    summaries = [summarize(s) for s in stmts]
    plan: dict[int, tuple[Node, int]] = {}
    for i, stmt in enumerate(stmts[:-1]):
        if stmt.primitive not in ("define-variable", "store") or len(stmt.children) != 1:
            continue
        value = stmt.children[0]
        if value.is_const or value.primitive == "access-variable":
            continue
        v_reads, v_writes, v_impure = summarize(value)
        if v_writes or v_impure:
            continue
        var = stmt.instance
        join = n
        for k in range(i + 1, n):
            reads, writes, impure = summaries[k]
            if impure or var in reads or var in writes or (writes & v_reads):
                join = k
                break
        if join > i + 1:
            plan[i] = (value, join)
    return plan


# -- the same summary on the AST, for the rewrites of compiler/rewrite ---------------

#: forms whose operands are evaluated only under a condition, or not at all here
CONDITIONAL = frozenset(("if", "while", "for", "for_each", "__and", "__or", "&&", "||",
                         "lambda", "parallel_block", "async", "parallel_map", "case"))


def summarize_expr(expr, user_names: frozenset = frozenset(),
                   jumps_pure: bool = False) -> tuple[set, set, bool]:
    """``(reads, writes, impure)`` of evaluating the AST ``expr``, by the rules of
    :func:`summarize` (function bodies not entered).  A call of a name in
    ``user_names`` (a variable or function the program defines) calls unknown code;
    ``jumps_pure``: ``break``/``continue``/``return`` do not count as impure."""
    from ..language import ast
    reads: set[str] = set()
    writes: set[str] = set()
    impure = False
    stack = [expr]
    while stack:
        e = stack.pop()
        t = type(e)
        if t is ast.Identifier:
            reads.add(e.name)
        elif t is ast.BinOp:
            stack += (e.left, e.right)
        elif t is ast.UnaryOp:
            stack.append(e.operand)
        elif t is ast.KeywordArg:
            stack.append(e.value)
        elif t is ast.QuotedList:
            stack.extend(e.items)
        elif t is ast.Call:
            f, args = e.func, e.args
            if f == "lambda":
                continue
            if f in ("define", "define_global") and args and type(args[0]) is ast.Identifier:
                writes.add(args[0].name)
                if len(args) == 2:
                    stack.append(args[1])
                continue                 # a function definition: its body is not run here
            if f == "store" and len(args) == 2 and type(args[0]) is ast.Identifier:
                writes.add(args[0].name)
                stack.append(args[1])
                continue
            if (f == "for_each" and len(args) == 2 and type(args[0]) is ast.Call
                    and args[0].func == "lambda" and len(args[0].args) == 2
                    and type(args[0].args[0]) is ast.Identifier):
                writes.add(args[0].args[0].name)
                stack += (args[0].args[1], args[1])
                continue
            if jumps_pure and f in ("break", "continue", "return"):
                pass
            elif (e.attribute is not None or f in user_names or f in _IMPURE_NAMES
                    or f == "store"):
                impure = True            # unknown code, a jump or a store into a slice
            elif f not in _PURE_INTERNAL:
                pure = _pure_cache.get(f)
                if pure is None:
                    pure = _pure_cache[f] = _primitive_is_pure(f)
                impure = impure or not pure
            stack.extend(args)
    return reads, writes, impure
