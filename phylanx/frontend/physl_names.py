"""The PhySL of a ``doc_src`` function under the name its linker gave it.

A ``doc_src`` function's docstring defines it by its Python name; two such functions
of one name in one compiler state would share that name's slot (the second compiled
replaces the first, whose recursion then runs the other's body).  The define and the
references to it are renamed to the function's unique name, where they are free:
under a parameter of that name (of a ``define`` or ``lambda``) the name is the
parameter's.  A program that binds the name otherwise (a nested ``define``, a loop
variable), or already uses the new name, is refused, located, rather than renamed
into a different program.
"""
from __future__ import annotations

import dataclasses

from ..compiler.rewrite.tree import rebuild
from ..errors import PhylanxSyntaxError
from ..language import ast as past

_DEFINES = ("define", "define_global")


def renamed(program: past.Program, old: str, new: str) -> past.Program:
    """``program`` with its top-level ``define(old, ...)`` and the free references to
    ``old`` named ``new``."""
    for node in _walk(program.body):
        if _names(node, new):
            raise _refused(node, old, f"its PhySL already uses '{new}', the name it would "
                                      "take")
    body = []
    for e in program.body:
        if type(e) is past.Call and e.func in _DEFINES and e.args and \
                e.args[0] == past.Identifier(old):
            e = dataclasses.replace(e, args=(dataclasses.replace(e.args[0], name=new),
                                             *_renamed(e.args[1:], old, new)))
        else:
            e = _rename(e, old, new)
        body.append(e)
    return dataclasses.replace(program, body=tuple(body))


def _renamed(args: tuple, old: str, new: str) -> tuple:
    """The parameters and body of a define (or a lambda's): unchanged under a
    parameter named ``old``."""
    if any(_parameter_name(p) == old for p in args[:-1]):
        return args
    return tuple(_rename(a, old, new) for a in args)


def _rename(e, old: str, new: str):
    t = type(e)
    if t is past.Identifier:
        return dataclasses.replace(e, name=new) if e.name == old else e
    if t is not past.Call:
        return rebuild(e, tuple(_rename(c, old, new) for c in past.children(e)))
    if e.func in _DEFINES and e.args and _parameter_name(e.args[0]) == old:
        raise _refused(e, old, f"its PhySL defines '{old}' again inside")
    if e.func == "for_each" and e.args and type(e.args[0]) is past.Call and \
            e.args[0].func == "lambda" and len(e.args[0].args) == 2 and \
            _parameter_name(e.args[0].args[0]) == old:
        raise _refused(e, old, f"a loop of its PhySL is over '{old}'")
    func = new if e.func == old else e.func
    if e.func == "lambda":
        args = _renamed(e.args, old, new)
    elif e.func in _DEFINES and e.args:
        args = (e.args[0], *_renamed(e.args[1:], old, new))
    else:
        args = tuple(_rename(a, old, new) for a in e.args)
    if func == e.func and all(a is b for a, b in zip(args, e.args)):
        return e
    return dataclasses.replace(e, func=func, args=args)


def _refused(node, old: str, why: str) -> PhylanxSyntaxError:
    return PhylanxSyntaxError(f"cannot rename the doc_src function '{old}' (another function "
                              f"has its name in the compiler state): {why}; rename it",
                              node.loc)


def _parameter_name(p) -> str | None:
    t = type(p)
    return p.name if t is past.Identifier or t is past.KeywordArg else None


def _names(node, name: str) -> bool:
    t = type(node)
    return (t is past.Identifier and node.name == name) or \
        (t is past.Call and node.func == name) or \
        (t is past.KeywordArg and node.name == name)


def _walk(nodes):
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(past.children(node))
