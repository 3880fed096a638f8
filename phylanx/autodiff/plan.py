"""Backward plans: the reverse pass of a recorded path, compiled once per signature.

Why: :func:`.tape.backward` re-derives the reverse pass from the tape on every call
(which entries are primitives, which rule each has, which operands want a cotangent,
whether each cotangent needs fitting to its operand), about half of its Python time on
a small loss.  A :class:`BackwardPlan` decides all that once, for a *signature* of the
tape: per recorded entry, its primitive, its tree node, its tracked operands' producers
and their shapes and dtypes (so the differentiated arguments' shapes and dtypes, and
which arguments are differentiated, are part of it).  A call whose tape has a signature
seen before runs the plan: the rules of the entries that reach the result, in reverse
order, each operand's cotangent fitted only when its shape or dtype differs.

Control flow stays right by construction: the tape records the path that ran, and the
path (the nodes, in order) is part of the signature, so a call that takes another branch
or makes another number of iterations gets another plan (built on first sight, then
reused).  Kept on the tape path (:func:`.tape.backward`), decided per signature and
remembered: nested differentiation (the reverse pass is recorded on outer tapes), tapes
holding containers (lists, tuples, dicts: their entries and items), values changed
through another name, and entries without a VJP rule (whose located error the tape path
raises).  A plan is immutable once built (tuples only): the same plan serves
concurrent calls, each with its own tape and cotangents.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..errors import PhylanxError
from . import tape as tapes
from .containers import carries_gradient, is_container
from .table import VJP

#: plans kept per differentiated function (a function called with ever new shapes
#: builds a plan per shape: the oldest are dropped past this many)
PLANS_PER_FUNCTION = 16

#: a recorded path longer than this many entries runs on the tape, with no plan: a
#: plan's key grows with its path, and a long path is mostly a loop whose count depends
#: on the data (a new signature nearly every call: 16 keys of a 1e5-iteration loop would
#: hold about 100 MB for plans never reused)
LONGEST_PLANNED_PATH = 4096


def signature(entries: list, start: int) -> tuple:
    """What a plan of ``entries[:start + 1]`` depends on (see the module doc), flat."""
    key: list = [start]
    append = key.append
    for entry in entries[:start + 1]:
        append(entry.name)
        append(entry.node)
        parents = entry.parents
        append(len(parents))
        for pos, parent in enumerate(parents):
            if parent is None:
                append(None)
                continue
            append(parent.index)
            arg = entry.args[pos] if pos < len(entry.args) else None
            if isinstance(arg, (np.ndarray, np.generic)):
                append(arg.shape)
                append(arg.dtype)
            else:
                append(type(arg))
    return tuple(key)


class BackwardPlan:
    """The reverse pass of one signature: ``steps`` in reverse evaluation order, each
    ``(index, rule, selective, wanted, targets)`` with ``targets`` the operands that get
    a cotangent, ``(position, parent index, shape, dtype)``; ``leaves`` the indices of
    the differentiated inputs reached."""

    __slots__ = ("steps", "leaves", "size")

    def __init__(self, steps: tuple, leaves: frozenset, size: int) -> None:
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "leaves", leaves)
        object.__setattr__(self, "size", size)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a backward plan is immutable once built")

    def run(self, entries: list, start: int, seed: Any) -> dict[int, Any]:
        """Cotangents of the leaf entries (by index), as :func:`.tape.backward`."""
        cts: list = [None] * self.size
        cts[start] = seed
        leaves = self.leaves
        result: dict[int, Any] = {}
        for index, rule, is_selective, wanted, targets in self.steps:
            ct = cts[index]
            if ct is None:
                continue
            if index in leaves:
                result[index] = ct
                continue
            cts[index] = None          # free it as soon as it is used, as the tape path
            entry = entries[index]
            try:
                if entry.saved is not None:     # what the forward kept (saved.py)
                    grads = rule(ct, entry.out, *entry.args, wanted=wanted,
                                 saved=entry.saved)
                elif is_selective:
                    grads = rule(ct, entry.out, *entry.args, wanted=wanted)
                else:
                    grads = rule(ct, entry.out, *entry.args)
            except PhylanxError as e:
                raise tapes.located(e, entry)
            except Exception as e:
                raise tapes.rule_failed(e, entry) from e
            count = len(grads)
            for pos, parent, shape, dtype in targets:
                g = grads[pos] if pos < count else None
                if g is None:
                    continue
                if type(g) is not np.ndarray or g.shape != shape or g.dtype != dtype:
                    g = tapes.fitted_cotangent(g, entry, pos)
                previous = cts[parent]
                cts[parent] = g if previous is None else previous + g
        return result


def build(entries: list, start: int) -> BackwardPlan | None:
    """The plan of ``entries[:start + 1]``, or None when the tape path must serve it
    (module doc)."""
    reached = {start}
    steps = []
    leaves = set()
    for index in range(start, -1, -1):
        if index not in reached:
            continue
        entry = entries[index]
        if entry.name == tapes.LEAF:
            leaves.add(index)
            steps.append((index, None, False, None, ()))
            continue
        rule = VJP.get(entry.name)
        if rule is None or is_container(entry.out) \
                or any(is_container(a) for a in entry.args):
            return None                # a container, a special entry, no rule: the tape's
        targets = []
        for pos, parent in enumerate(entry.parents):
            if parent is None:
                continue
            arg = entry.args[pos] if pos < len(entry.args) else None
            if not carries_gradient(arg):
                continue               # integer and boolean operands get no gradient
            reached.add(parent.index)
            targets.append((pos, parent.index, np.shape(arg), tapes._float_dtype(arg)))
        wanted = tuple(p is not None for p in entry.parents)
        steps.append((index, rule, bool(getattr(rule, "selective", False)), wanted,
                      tuple(targets)))
    return BackwardPlan(tuple(steps), frozenset(leaves), start + 1)


class PlanCache:
    """The plans of one differentiated function, by signature (None: the tape path);
    ``builds`` counts the plans built (tests check that a signature builds once)."""

    def __init__(self) -> None:
        self._plans: dict[tuple, BackwardPlan | None] = {}
        self._lock = threading.Lock()
        self.builds = 0

    def backward(self, tape: tapes.Tape, result: Any, seed: Any) -> dict[int, Any]:
        """:func:`.tape.backward` through the plan of the tape's signature."""
        start = tape.producer.get(id(result))
        if start is None or tape.outer is not None or start.index >= LONGEST_PLANNED_PATH:
            return tapes.backward(tape, result, seed)
        entries = tape.entries
        key = signature(entries, start.index)
        plan = self._plans.get(key, False)
        if plan is not False:
            with self._lock:        # the least recently used plan is the one dropped
                self._plans[key] = self._plans.pop(key, plan)
        else:
            plan = build(entries, start.index)
            with self._lock:
                self.builds += 1
                if len(self._plans) >= PLANS_PER_FUNCTION:
                    self._plans.pop(next(iter(self._plans)))
                self._plans[key] = plan
        if plan is None:
            return tapes.backward(tape, result, seed)
        return plan.run(entries, start.index, seed)
