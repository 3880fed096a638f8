"""Exception names of the original ``phylanx.exceptions`` module, kept for compatibility."""
from __future__ import annotations

from .errors import PhylanxError


class InvalidDecoratorArgumentError(PhylanxError):
    """``@Phylanx`` was given a positional argument (for example ``@Phylanx("PhySL")``)."""

    def __init__(self, message: str = "Phylanx decorator takes keyword arguments only"):
        super().__init__(message)


class RuntimeNotInitializedError(PhylanxError):
    """Kept for compatibility; phylanx initialises itself on first use."""

    def __init__(self, message: str = "the phylanx runtime is not initialised"):
        super().__init__(message)


class RuntimeAlreadyInitializedError(PhylanxError):
    """``PhylanxSession.init``/``config`` was called twice."""

    def __init__(self, message: str = "the phylanx runtime is already initialised"):
        super().__init__(message)
