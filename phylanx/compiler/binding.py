"""Binding call arguments to a primitive's declared signature (§2.4).

Positional arguments fill slots from the left, ``__arg(k, v)`` fills the slot
named ``k``; a slot skipped in the middle takes the Python default of the
implementation (which the registry tests keep equal to the pattern default).
Every mistake is a located :class:`PhylanxCompileError` naming the primitive.
"""
from __future__ import annotations

import inspect
from typing import Any

from ..errors import PhylanxCompileError
from ..language.ast import KeywordArg
from ..primitives.registry import PrimitiveSpec

_NO_DEFAULT = object()
#: id(spec) -> (spec, its defaults): the spec is held and checked by identity (a spec
#: made at a dropped one's address must not get the dropped one's defaults)
_defaults_cache: dict[int, tuple[PrimitiveSpec, list[Any]]] = {}


def python_defaults(spec: PrimitiveSpec) -> list[Any]:
    """Defaults of ``spec.impl`` per positional parameter (``_NO_DEFAULT`` if none)."""
    key = id(spec)
    entry = _defaults_cache.get(key)
    if entry is None or entry[0] is not spec:
        out = []
        try:
            params = inspect.signature(spec.impl).parameters.values()
        except (TypeError, ValueError):
            params = []
        for p in params:
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                out.append(_NO_DEFAULT if p.default is p.empty else p.default)
        entry = _defaults_cache[key] = (spec, out)
    return entry[1]


def bind(spec: PrimitiveSpec, name: str, args: tuple, loc) -> tuple[list, list[int]]:
    """Order ``args`` (AST) by slot.

    Returns ``(slots, filled)``: ``slots[i]`` is the AST given for slot ``i`` or None
    where the slot was skipped (the caller inserts the default), and the list of
    slot indices that were given.  Variadic arguments follow the last slot.
    """
    sig = spec.signature
    params = sig.params
    variadic = any(p.variadic for p in params)
    positional: list = []
    keywords: dict[str, Any] = {}
    for a in args:
        if isinstance(a, KeywordArg):
            if a.name in keywords:
                raise PhylanxCompileError(f"keyword argument '{a.name}' given twice", a.loc, name)
            keywords[a.name] = a
        elif keywords:
            raise PhylanxCompileError(
                "keyword arguments should not be followed by non-keyword arguments", a.loc, name)
        else:
            positional.append(a)
    hi = sig.max_args
    if hi is not None and len(positional) > hi:
        raise PhylanxCompileError(
            f"too many arguments (expected {sig.arity_text()}, supplied {len(positional)})",
            loc, name)
    if variadic:
        if keywords:
            k = next(iter(keywords.values()))
            raise PhylanxCompileError(f"unexpected keyword argument '{k.name}'", k.loc, name)
        if len(positional) < sig.min_args:
            raise PhylanxCompileError(
                f"too few arguments (expected {sig.arity_text()}, supplied {len(positional)})",
                loc, name)
        return positional, list(range(len(positional)))
    slots: list = list(positional) + [None] * (len(params) - len(positional))
    named = sig.keywords
    for key, kw in keywords.items():
        if key not in named:
            known = ", ".join(named) or "none"
            raise PhylanxCompileError(
                f"unknown keyword argument '{key}' (keywords: {known})", kw.loc, name)
        i = named[key]
        if slots[i] is not None:
            raise PhylanxCompileError(f"argument '{key}' given twice", kw.loc, name)
        slots[i] = kw.value
    for p in params:
        if p.required and slots[p.index] is None:
            label = p.name or f"{p.index + 1}"
            raise PhylanxCompileError(
                f"missing argument {label} (expected {sig.arity_text()} arguments, "
                f"supplied {len(positional) + len(keywords)})", loc, name)
    while slots and slots[-1] is None:
        slots.pop()
    filled = [i for i, s in enumerate(slots) if s is not None]
    return slots, filled


def default_for(spec: PrimitiveSpec, index: int, name: str, loc) -> Any:
    defaults = python_defaults(spec)
    if index < len(defaults) and defaults[index] is not _NO_DEFAULT:
        return defaults[index]
    raise PhylanxCompileError(f"argument {index + 1} cannot be omitted", loc, name)
