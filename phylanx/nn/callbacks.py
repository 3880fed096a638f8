"""Callbacks of ``fit``: History, EarlyStopping, and the Keras progress bar; with
ReduceLROnPlateau, LearningRateScheduler (:mod:`.callbacks_schedule`), ModelCheckpoint
and CSVLogger (:mod:`.callbacks_files`), all importable from here.

A callback gets ``on_train_begin``, ``on_epoch_begin(epoch)``,
``on_train_batch_begin(batch)``, ``on_train_batch_end(batch, logs)``,
``on_epoch_end(epoch, logs)`` and ``on_train_end``; as in Keras 3, the two batch hooks
call ``on_batch_begin``/``on_batch_end`` unless overridden (Keras' backwards-compatible
names); ``self.model`` is the model being trained, and setting
``model.stop_training = True`` ends training after the current epoch.
"""
from __future__ import annotations

import sys
import time
import warnings
from typing import Any

import numpy as np

from . import arguments as args


class Callback:
    def __init__(self) -> None:
        self.model: Any = None
        self.params: dict = {}

    def set_model(self, model: Any) -> None:
        self.model = model

    def set_params(self, params: dict) -> None:
        self.params = params

    def on_train_begin(self, logs: dict | None = None) -> None: ...
    def on_train_end(self, logs: dict | None = None) -> None: ...
    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None: ...
    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None: ...
    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        self.on_batch_begin(batch, logs)

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self.on_batch_end(batch, logs)

    def on_batch_begin(self, batch: int, logs: dict | None = None) -> None: ...
    def on_batch_end(self, batch: int, logs: dict | None = None) -> None: ...


class History(Callback):
    """``history.history[name]``: the value of each logged quantity, one per epoch."""

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[float]] = {}
        self.epoch: list[int] = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(float(value))

    def to_csv(self, path: Any) -> Any:
        """Write the history as Keras' CSVLogger would have (atomically)."""
        from .callbacks_files import history_to_csv
        return history_to_csv(self, path)

    def to_json(self, path: Any) -> Any:
        """Write ``{"epoch": [...], "history": {...}}`` as JSON (atomically)."""
        from .callbacks_files import history_to_json
        return history_to_json(self, path)


class EarlyStopping(Callback):
    """Stop when ``monitor`` has not improved by more than ``min_delta`` for ``patience``
    epochs (Keras' rules; ``mode='auto'``: :func:`.callbacks_schedule.monitor_sign`)."""

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0.0, patience: int = 0,
                 verbose: int = 0, mode: str = "auto", baseline: float | None = None,
                 restore_best_weights: bool = False, start_from_epoch: int = 0) -> None:
        super().__init__()
        where = "EarlyStopping"
        if not isinstance(monitor, str):
            raise args.type_error(where, f"monitor must be the name of a logged quantity "
                                         f"('val_loss', 'accuracy' ...), got {monitor!r}")
        self.monitor = monitor
        self.patience = args.integer(patience, "patience", where, minimum=0)
        self.verbose = args.verbose(verbose, where)
        self.baseline = args.real(baseline, "baseline", where, none=True)
        self.restore_best_weights = args.boolean(restore_best_weights,
                                                 "restore_best_weights", where)
        self.start_from_epoch = args.integer(start_from_epoch, "start_from_epoch", where,
                                             minimum=0)
        mode = args.choice(mode, "mode", where, ("auto", "min", "max"))
        maximise = monitor_sign(monitor, mode) > 0
        self.sign = 1.0 if maximise else -1.0
        # (Keras takes the absolute value of min_delta too)
        self.min_delta = abs(args.real(min_delta, "min_delta", where))

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch, self.best_epoch = 0, 0, 0
        self.best = -np.inf
        self.best_weights = None

    def _improves(self, value: float, reference: float) -> bool:
        return self.sign * value - self.min_delta > reference

    def on_epoch_end(self, epoch, logs=None):
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(f"EarlyStopping: '{self.monitor}' is not among the logged values "
                          f"({', '.join(logs or {})})", stacklevel=2)
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._improves(value, self.best):
            self.best, self.best_epoch = self.sign * value, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._improves(value, self.sign * self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1:05d}: early stopping")


def format_logs(logs: dict) -> str:
    return "".join(f" - {k}: {v:.4f}" for k, v in logs.items())


def _per_step(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.0f}s/step"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/step"
    return f"{seconds * 1e6:.0f}us/step"


class ProgressBar(Callback):
    """Keras' output: ``Epoch 1/5`` then ``32/32 [=====...] - 0s 2ms/step - loss: ...``
    (redrawn per batch on a terminal; verbose=2 prints one plain line per epoch)."""

    WIDTH = 30

    def __init__(self, verbose: int = 1, stream: Any = None) -> None:
        super().__init__()
        self.verbose = verbose
        self.stream = stream

    def _out(self):
        return self.stream or sys.stdout

    def on_epoch_begin(self, epoch, logs=None):
        self.start = time.perf_counter()
        self.last_draw = 0.0
        if self.verbose == 1 or self.verbose == 2:
            print(f"Epoch {epoch + 1}/{self.params['epochs']}", file=self._out())

    def _bar(self, done: int, total: int) -> str:
        width = len(str(total))
        filled = int(self.WIDTH * done / max(total, 1))
        if done >= total:
            bar = "=" * self.WIDTH
        else:
            bar = "=" * max(filled - 1, 0) + ">" + "." * (self.WIDTH - max(filled, 1))
        return f"{done:>{width}}/{total} [{bar}]"

    def on_train_batch_end(self, batch, logs=None):
        out = self._out()
        if self.verbose != 1 or not getattr(out, "isatty", lambda: False)():
            return
        now = time.perf_counter()
        total = self.params["steps"]
        if now - self.last_draw < 0.05 and batch + 1 < total:
            return
        self.last_draw = now
        elapsed = now - self.start
        eta = elapsed / (batch + 1) * (total - batch - 1)
        out.write(f"\r{self._bar(batch + 1, total)} - ETA: {eta:.0f}s{format_logs(logs or {})}")
        out.flush()

    def on_epoch_end(self, epoch, logs=None):
        elapsed = time.perf_counter() - self.start
        total = self.params["steps"]
        out = self._out()
        timing = f"{elapsed:.0f}s {_per_step(elapsed / max(total, 1))}"
        if self.verbose == 1:
            lead = "\r" if getattr(out, "isatty", lambda: False)() else ""
            out.write(f"{lead}{self._bar(total, total)} - {timing}{format_logs(logs or {})}\n")
        elif self.verbose == 2:
            out.write(f"{total}/{total} - {timing}{format_logs(logs or {})}\n")
        out.flush()


# (at the end: these modules subclass Callback, defined above)
from .callbacks_files import CSVLogger, ModelCheckpoint  # noqa: E402
from .callbacks_schedule import LearningRateScheduler, ReduceLROnPlateau, monitor_sign  # noqa: E402

__all__ = ["CSVLogger", "Callback", "EarlyStopping", "History", "LearningRateScheduler",
           "ModelCheckpoint", "ProgressBar", "ReduceLROnPlateau"]
