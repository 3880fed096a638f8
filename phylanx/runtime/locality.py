"""Localities: where code runs.  One process is locality 0 of 1.

The interface is what the MPI implementation (one locality per rank) will fill
in: an id, a count, a host name, collectives returning futures, and a way to
run a function on another locality.
"""
from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any

from .futures import Future, failed, ready


class Locality:
    """Interface of the locality layer."""

    def id(self) -> int:
        raise NotImplementedError

    def count(self) -> int:
        raise NotImplementedError

    def hostname(self) -> str:
        return socket.gethostname()

    def all_gather(self, value: Any, name: str) -> Future:
        raise NotImplementedError

    def all_reduce(self, value: Any, op: Callable[[Any, Any], Any], name: str) -> Future:
        raise NotImplementedError

    def broadcast(self, value: Any, root: int, name: str) -> Future:
        raise NotImplementedError

    def barrier(self, name: str) -> Future:
        raise NotImplementedError

    def run_on(self, locality: int, fn: Callable[..., Any], *args: Any) -> Future:
        raise NotImplementedError


class SingleLocality(Locality):
    """The only locality of a single-process run."""

    def id(self) -> int:
        return 0

    def count(self) -> int:
        return 1

    def all_gather(self, value: Any, name: str) -> Future:
        return ready([value])

    def all_reduce(self, value: Any, op: Callable[[Any, Any], Any], name: str) -> Future:
        return ready(value)

    def broadcast(self, value: Any, root: int, name: str) -> Future:
        return ready(value)

    def barrier(self, name: str) -> Future:
        return ready(None)

    def run_on(self, locality: int, fn: Callable[..., Any], *args: Any) -> Future:
        """``fn(*args)`` here; every failure (also a bad locality) is in the future,
        as it will be for a remote call."""
        if locality != 0:
            return failed(ValueError(f"locality {locality} does not exist (1 locality)"))
        try:
            return ready(fn(*args))
        except Exception as exc:  # noqa: BLE001 - delivered through the future
            return failed(exc)


_current: Locality | None = None
#: builds the locality on first use; phylanx.distributed installs one that returns
#: an MPI locality when a launcher started the process (the runtime cannot import it)
_factory: Callable[[], Locality] = SingleLocality
_create_lock = threading.Lock()


def here() -> Locality:
    """The locality this process is (created on first use by the installed factory)."""
    current = _current
    if current is None:
        current = _create_once()
    return current


def _create_once() -> Locality:
    global _current
    with _create_lock:
        if _current is None:
            _current = _factory()
        return _current


def set_locality_factory(factory: Callable[[], Locality]) -> None:
    """Choose how the locality is created at its first use (before ``here()``)."""
    global _factory
    _factory = factory


def set_locality(locality: Locality) -> None:
    """Install another locality layer (the MPI one)."""
    global _current
    _current = locality
