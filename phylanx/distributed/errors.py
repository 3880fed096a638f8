"""Errors of multi-locality execution; all are located ``PhylanxRuntimeError``\\ s."""
from __future__ import annotations

from ..errors import PhylanxRuntimeError, PhylanxTypeError


class PhylanxDistributedError(PhylanxRuntimeError):
    """Base of the errors below (MPI missing, communication failed, timed out)."""


class PhylanxCollectiveMismatchError(PhylanxDistributedError):
    """Ranks called a collective with different kinds, ops, roots, shapes or dtypes."""


class PhylanxRemoteError(PhylanxDistributedError):
    """A request to another locality failed there, timed out, or that locality is gone."""


class PhylanxDistributionError(PhylanxDistributedError, PhylanxTypeError):
    """A tiled array given to a primitive that has no distribution rule for it (it would
    only see this locality's tile); the message says what gives the global answer."""


class PhylanxPeerLeftError(PhylanxDistributedError):
    """A rank's program ended (``exit_status``, 0 or ``sys.exit``'s; -1: a bare ``raise
    SystemExit``, whose status is not known, ``faults.UNKNOWN_STATUS``; None: its process
    died) while this rank waited for it in a collective it never started; ``departed``:
    the ranks gone so far."""

    def __init__(self, message: str, loc=None, primitive: str | None = None,
                 exit_status: int | None = 0, departed: frozenset[int] = frozenset()):
        super().__init__(message, loc, primitive)
        self.exit_status = exit_status
        self.departed = departed


class PhylanxPerformanceWarning(Warning):
    """A primitive without a distribution rule was given a tiled array: every rank
    gathered the whole array to compute NumPy's answer (``gather_fallback.py``).  Correct,
    but the whole array crossed the network: warned once per source line."""
