"""Linking decorated functions within one compiler state.

All ``@Phylanx`` functions compiled into one compiler state share its global
scope, so each gets a unique PhySL name there, and so does every Python value
they read (a global, a closure cell, a default).  The :class:`Linker` of a
state hands out those names and the decorators of plain Python functions
called from decorated ones (translated on the fly, once per state).

The linker belongs to the frontend, not to the compiler state: :func:`linker_of`
keeps one per live state in a mapping that holds it weakly.  The linker
lives as long as some decorated function of the state refers to it (every
``PhylanxDecorator`` keeps its linker; so do the loaders of the globals a function
assigns, on the state's frame), so nothing outlives its users.  It holds the
decorated functions it named weakly: a dropped function's name stays taken, and its
program goes (``decorator.py``).
"""
from __future__ import annotations

import itertools
import threading
import types
import weakref
from collections import OrderedDict
from typing import Any, Callable

from .. import config
from ..compiler.compiler import CONSTANTS
from ..errors import PhylanxError, PhylanxTypeError
from ..primitives import registry
from .markers import DecoratedFunction
from .resolve import Resolver
from .source import SourceUnavailableError

_LOCK = threading.Lock()
#: id(compiler state) -> its linker; a linker keeps its state alive, so an id is not
#: reused while its entry exists
_LINKERS: weakref.WeakValueDictionary[int, Linker] = weakref.WeakValueDictionary()


class Linker:
    """Per compiler state: unique PhySL names for functions and Python values."""

    def __init__(self, state, make_decorator: Callable[..., DecoratedFunction]):
        self.state = state
        self.make_decorator = make_decorator   # PhylanxDecorator (defined above this module)
        # name -> what it was handed out for: a key of a Python value's storage, or a
        # weak reference to a decorated function (the linker must not keep a dropped
        # function and its program alive; its name stays taken)
        self.used: dict[str, Any] = {}
        # helper key (:func:`_helper_key`) -> (the function, its decorator), least
        # recently used first, at most ``helper_cache`` of them: a dropped entry's
        # decorator lives on while a decorated function calls it (its translation's
        # deps), else its program goes with it (decorator.py)
        self.helpers: OrderedDict[tuple, tuple[Any, DecoratedFunction]] = OrderedDict()
        # global slot -> how many live compiled decorated functions read or assign it (a
        # Python global, closure cell or default of theirs or of their helpers): the
        # last one dropped empties it, so the value a call last loaded goes too
        self.slot_users: dict[int, int] = {}
        # reentrant: a finalizer releasing slots runs wherever the garbage collector
        # does, also inside this lock on the same thread
        self._slot_lock = threading.RLock()
        # a name's check and its taking are one step: two threads decorating functions
        # of one name at once would both take it, and share its slot
        self._naming = threading.Lock()

    def unique(self, base: str, key: Any) -> str:
        """``base`` or ``base_2``, ``base_3`` ...: a name free in the state for ``key``
        (a storage key, or a decorated function, which the linker holds weakly)."""
        with self._naming:
            return self._unique(base, key)

    def _unique(self, base: str, key: Any) -> str:
        taken = self.state.compiler.globals.slots
        for n in itertools.count(1):
            name = base if n == 1 else f"{base}_{n}"
            owner = self.used.get(name)
            if owner is not None and (owner() is key if type(owner) is weakref.ref
                                      else owner == key):
                return name
            # a name the state already defines (by PhySL, or by an earlier linker of the
            # state whose functions are all gone) is not handed out again
            if (owner is None and name not in CONSTANTS and name not in taken
                    and registry.lookup(name) is None):
                self.used[name] = (weakref.ref(key) if isinstance(key, DecoratedFunction)
                                   else key)
                return name
        raise AssertionError("unreachable")

    def external_name(self, key: tuple, name: str) -> str:
        return self.unique(name, key)

    def use_slots(self, slots) -> None:
        """A compiled decorated function reads or assigns the global ``slots``."""
        with self._slot_lock:
            for slot in slots:
                self.slot_users[slot] = self.slot_users.get(slot, 0) + 1

    def release_slots(self, frame: list, slots) -> None:
        """A decorated function that used ``slots`` was dropped: those no live one uses
        are emptied (nil: a call loads its globals before it runs)."""
        with self._slot_lock:
            for slot in slots:
                left = self.slot_users.get(slot, 0) - 1
                if left > 0:
                    self.slot_users[slot] = left
                    continue
                self.slot_users.pop(slot, None)
                if slot < len(frame):
                    frame[slot] = None

    def decorator_for(self, obj, node=None, locator=None) -> DecoratedFunction:
        """The decorator of a decorated function, or of a plain function (made once)."""
        options = {"compiler_state": self.state}
        if isinstance(obj, DecoratedFunction):
            obj = obj.decorator()
            if obj.state is self.state or locator is None:
                return obj
            # called from a function of another compiler state: as in the original (one
            # state for all), the call works; the function is compiled into this state too
            options = {**obj.kwargs, "compiler_state": self.state, "debug": False}
        key = _helper_key(obj)
        with self._naming:
            entry = self.helpers.get(key)
            if entry is not None and (entry[0] is obj or key[0] == "plain") and (
                    key[0] != "plain" or _still_bound(entry[1], obj)):
                self.helpers.move_to_end(key)
                return entry[1]
        try:
            python = obj.python if isinstance(obj, DecoratedFunction) else obj
            helper = self.make_decorator(python, **options)
        except SourceUnavailableError as e:
            if locator is None:
                raise
            # point at the call in the decorated function: that is the line the user wrote
            raise locator.error(node, f"cannot translate the call: {e.message}") from None
        except PhylanxError:
            raise
        except (OSError, TypeError) as e:
            if locator is None:
                raise PhylanxTypeError(f"cannot translate {obj!r}: {e}") from None
            raise locator.error(node, f"cannot translate '{getattr(obj, '__name__', obj)}': "
                                      "its Python source is not available") from None
        if not isinstance(obj, DecoratedFunction):   # (a plain function: no public name)
            self.state.compiler.globals.public.pop(helper.state_name, None)
        evicted = []        # dropped after the lock: their finalizers may take it
        with self._naming:
            self.helpers[key] = (obj, helper)
            bound = config.get("helper_cache")
            while len(self.helpers) > bound:
                evicted.append(self.helpers.popitem(last=False))
        del evicted
        return helper


def _helper_key(obj) -> tuple:
    """What a helper is cached by.  A plain Python function: its code, globals, closure
    cells and defaults, which are all its translation reads, so a fresh ``lambda`` per
    call of unchanged code (and cells) reuses one helper; the entry holds the first such
    function, so the ids in the key stay its objects'.  Anything else: itself."""
    if type(obj) is types.FunctionType:
        return ("plain", obj.__code__, id(obj.__globals__),
                tuple(map(id, obj.__closure__ or ())), tuple(map(id, obj.__defaults__ or ())),
                tuple((k, id(v)) for k, v in (obj.__kwdefaults__ or {}).items()))
    return ("object", id(obj))


def _still_bound(helper: DecoratedFunction, obj) -> bool:
    """True if the names the translation of ``helper`` (if made) bound once, functions,
    modules, dtypes (a value is loaded at every call), resolve for the plain function
    ``obj`` to what they did: a cell or global rebound since translates again."""
    translation = helper._translation
    return translation is None or Resolver(obj).still_bound(translation.bound)


def linker_of(state, make_decorator: Callable[..., DecoratedFunction]) -> Linker:
    """The linker of ``state`` (made on first use)."""
    with _LOCK:
        linker = _LINKERS.get(id(state))
        if linker is None:
            linker = _LINKERS[id(state)] = Linker(state, make_decorator)
        return linker
