"""Callbacks that change the learning rate between epochs: ``ReduceLROnPlateau`` and
``LearningRateScheduler``, with Keras 3's arguments and rules.

Both write the epoch's learning rate into the logs as ``learning_rate`` (so ``History``
records it, as in Keras).  An optimizer whose learning rate is a schedule cannot be
changed by them: that is an error when training starts, before any step (Keras fails at
the first change).
"""
from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import arguments as args
from .callbacks import Callback


def _refuse_schedule(callback: Callback) -> None:
    optimizer = callback.model.optimizer
    if optimizer.schedule is not None:
        raise args.type_error(type(callback).__name__,
                              f"the optimizer's learning_rate is a schedule "
                              f"({type(optimizer.schedule).__name__}), which "
                              f"{type(callback).__name__} cannot change: give the "
                              "optimizer a float learning_rate")


def monitor_sign(monitor: str, mode: str) -> float:
    """+1 where larger is better, -1 where smaller is (Keras' ``mode="auto"``: the
    accuracies are maximised, losses and errors minimised; 'acc' in any case, as a
    metric logs by the string given: ``val_ACC``)."""
    if mode == "max" or (mode == "auto" and "acc" in monitor.lower()):
        return 1.0
    return -1.0


class ReduceLROnPlateau(Callback):
    """Multiply the learning rate by ``factor`` when ``monitor`` has not improved by more
    than ``min_delta`` for ``patience`` epochs; then wait ``cooldown`` epochs; never
    below ``min_lr``."""

    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0.0) -> None:
        super().__init__()
        where = "ReduceLROnPlateau"
        if not isinstance(monitor, str):
            raise args.type_error(where, f"monitor must be a logged quantity's name, got "
                                         f"{monitor!r}")
        self.monitor = monitor
        self.factor = args.real(factor, "factor", where, 0.0, 1.0, high_open=True)
        self.patience = args.integer(patience, "patience", where, minimum=0)
        self.verbose = args.verbose(verbose, where)
        self.mode = args.choice(mode, "mode", where, ("auto", "min", "max"))
        self.min_delta = abs(args.real(min_delta, "min_delta", where))
        self.cooldown = args.integer(cooldown, "cooldown", where, minimum=0)
        self.min_lr = args.real(min_lr, "min_lr", where, 0.0)
        self.sign = monitor_sign(monitor, self.mode)

    def on_train_begin(self, logs=None):
        _refuse_schedule(self)
        self.best: float | None = None
        self.wait = self.cooldown_counter = 0

    def _improves(self, value: float) -> bool:
        return self.best is None or self.sign * (value - self.sign * self.min_delta) > \
            self.sign * self.best

    def on_epoch_end(self, epoch, logs=None):
        optimizer = self.model.optimizer
        if logs is not None:
            logs["learning_rate"] = float(np.float32(optimizer.learning_rate))
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"ReduceLROnPlateau: '{self.monitor}' is not among the logged "
                          f"values ({', '.join(logs or {})})", stacklevel=2)
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improves(current):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(np.float32(optimizer.learning_rate))
                if old > np.float32(self.min_lr):
                    new = max(old * self.factor, self.min_lr)
                    optimizer.learning_rate = new
                    if self.verbose:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning "
                              f"rate to {new}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0


class LearningRateScheduler(Callback):
    """At the start of each epoch, set the learning rate to ``schedule(epoch, lr)``
    (or ``schedule(epoch)``, Keras' older form), a float."""

    def __init__(self, schedule: Callable, verbose: int = 0) -> None:
        super().__init__()
        if not callable(schedule):
            raise args.type_error("LearningRateScheduler", "schedule must be a function "
                                                           f"of the epoch, got {schedule!r}")
        self.schedule = schedule
        self.verbose = args.verbose(verbose, "LearningRateScheduler")

    def on_train_begin(self, logs=None):
        _refuse_schedule(self)

    def _next(self, epoch: int, rate: float) -> Any:
        # Keras' forms, told apart by the parameters (not by catching a TypeError):
        # schedule(epoch, lr), or the older schedule(epoch)
        try:
            parameters = inspect.signature(self.schedule).parameters.values()
        except (TypeError, ValueError):     # (no readable signature: the current form)
            return self.schedule(epoch, rate)
        positional = [p for p in parameters
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        varargs = any(p.kind == p.VAR_POSITIONAL for p in parameters)
        if len(positional) >= 2 or varargs:
            return self.schedule(epoch, rate)
        return self.schedule(epoch)

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        rate = self._next(epoch, float(np.float32(optimizer.learning_rate)))
        if not isinstance(rate, (float, np.floating)):
            raise args.value_error("LearningRateScheduler",
                                   f"the schedule returned {rate!r} for epoch {epoch}, not "
                                   "a float (as Keras requires)")
        optimizer.learning_rate = float(rate)
        if self.verbose:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to "
                  f"{float(rate)}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(np.float32(self.model.optimizer.learning_rate))
