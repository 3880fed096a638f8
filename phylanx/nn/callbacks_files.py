"""Callbacks that write files: ``ModelCheckpoint`` and ``CSVLogger`` (Keras 3's
arguments and file formats), and the CSV/JSON forms of a ``History``.

Every file is written atomically (:mod:`phylanx.atomic`): a reader sees the previous
complete file or the new one.  ``fit`` calls :meth:`check_before_training` before its
first step, so a path that cannot be written, or a ``filepath`` naming a quantity that
is not logged (``{val_loss:.2f}`` without validation data), is a located error before
any training, with nothing half-written.
"""
from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from .. import atomic
from . import arguments as args
from .callbacks import Callback
from .callbacks_schedule import monitor_sign
from .weights_io import check_writable, file_format


def logged_names(model: Any, validation: bool) -> list[str]:
    """The names ``fit`` logs each epoch for ``model`` (with ``val_`` ones if
    ``validation``), and ``learning_rate`` (which the schedule callbacks add)."""
    names = model.log_names()
    if validation:
        names += ["val_" + n for n in names]
    return names + ["learning_rate"]


def csv_text(rows: list[dict], keys: list[str], separator: str = ",",
             header: bool = True) -> str:
    """Keras' CSVLogger lines: ``epoch`` then ``keys``, "NA" for a value not logged."""
    out = io.StringIO()

    class Dialect(csv.excel):
        delimiter = separator

    writer = csv.DictWriter(out, fieldnames=["epoch", *keys], dialect=Dialect)
    if header:
        writer.writeheader()
    for row in rows:
        writer.writerow({"epoch": row["epoch"], **{k: row.get(k, "NA") for k in keys}})
    return out.getvalue()


def csv_keys(logs: dict) -> list[str]:
    """Keras' columns: the logged names sorted, plus ``val_`` ones if none is logged."""
    keys = sorted(logs)
    if keys and not any(k.startswith("val_") for k in keys):
        keys += [f"val_{k}" for k in keys]
    return keys


class ModelCheckpoint(Callback):
    """Save the model (``save_model``'s ``.npz``) or its weights
    (``save_weights_only=True``: ``.weights.h5`` or ``.npz``) after every epoch, or
    every ``save_freq`` batches; ``save_best_only``: only when ``monitor`` improves.
    ``filepath`` may name the epoch and logged values: ``"ckpt-{epoch:02d}-
    {val_loss:.2f}.weights.h5"``."""

    def __init__(self, filepath: Any, monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False,
                 mode: str = "auto", save_freq: Any = "epoch",
                 initial_value_threshold: float | None = None) -> None:
        super().__init__()
        where = "ModelCheckpoint"
        self.filepath = os.fspath(filepath)
        if not isinstance(monitor, str):
            raise args.type_error(where, f"monitor must be a logged quantity's name, got "
                                         f"{monitor!r}")
        self.monitor = monitor
        self.verbose = args.verbose(verbose, where)
        self.save_best_only = args.boolean(save_best_only, "save_best_only", where)
        self.save_weights_only = args.boolean(save_weights_only, "save_weights_only", where)
        self.mode = args.choice(mode, "mode", where, ("auto", "min", "max"))
        if save_freq != "epoch":
            save_freq = args.integer(save_freq, "save_freq ('epoch' or a batch count)",
                                     where)
        self.save_freq = save_freq
        self.best = args.real(initial_value_threshold, "initial_value_threshold", where,
                              none=True)
        self.sign = monitor_sign(monitor, self.mode)
        if self.save_weights_only:
            file_format(Path(self.filepath), where)
        elif not self.filepath.endswith(".npz"):
            raise args.value_error(where, "a whole model is saved as '.npz' (nn.save_model's "
                                          "format; Keras' '.keras' is not written): the "
                                          f"filepath must end in '.npz', got "
                                          f"'{self.filepath}' (or save_weights_only=True "
                                          "with '.weights.h5')")

    def _path(self, epoch: int, logs: dict, batch: int | None = None) -> Path:
        extra = {} if batch is None else {"batch": batch + 1}
        return Path(self.filepath.format(epoch=epoch + 1, **extra, **logs))

    def check_before_training(self, model: Any, validation: bool) -> None:
        where = "ModelCheckpoint"
        names = logged_names(model, validation)
        if self.save_best_only and self.monitor not in names:
            raise args.value_error(where, f"save_best_only watches '{self.monitor}', which "
                                          f"fit does not log here (it logs "
                                          f"{', '.join(names[:-1])}"
                                          f"{'' if validation else '; no validation data'})")
        # saved every save_freq batches, the file is named from a batch's logs: the
        # training loss and metrics, not the validation values of the epoch's end
        known = names if self.save_freq == "epoch" else \
            logged_names(model, False)[:-1]
        dummy = dict.fromkeys(known, 0.0)
        try:
            path = self._path(0, dummy, None if self.save_freq == "epoch" else 0)
        except (KeyError, IndexError, ValueError) as e:
            raise args.value_error(where, f"filepath '{self.filepath}' cannot be filled in "
                                          f"with the epoch and the logged values "
                                          f"({', '.join(known)}): {e!r}") from None
        check_writable(path, where, make_folders=True)

    def on_train_begin(self, logs=None):
        self._seen = 0
        self._epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._seen += 1
        if self._seen >= self.save_freq:
            self._seen = 0
            self._save(self._epoch, logs or {}, batch)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, logs or {})

    def _save(self, epoch: int, logs: dict, batch: int | None = None) -> None:
        path = self._path(epoch, logs, batch)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                return
            if self.best is not None and not self.sign * current > self.sign * self.best:
                if self.verbose:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from "
                          f"{self.best:.5f}")
                return
            if self.verbose:
                shown = "None" if self.best is None else f"{self.best:.5f}"
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {shown} to "
                      f"{current:.5f}, saving model to {path}")
            self.best = current
        elif self.verbose:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)


class CSVLogger(Callback):
    """One line per epoch (``epoch`` then the logged values, sorted by name) in Keras'
    CSV format; ``append=True`` continues an existing file.  The whole file is
    rewritten atomically after each epoch."""

    def __init__(self, filename: Any, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.filename = Path(os.fspath(filename))
        if not isinstance(separator, str) or len(separator) != 1:
            raise args.value_error("CSVLogger", f"separator must be one character, got "
                                                f"{separator!r}")
        self.sep = separator
        self.append = args.boolean(append, "append", "CSVLogger")

    def check_before_training(self, model: Any, validation: bool) -> None:
        check_writable(self.filename, "CSVLogger")

    def on_train_begin(self, logs=None):
        self.prefix = ""
        if self.append and self.filename.is_file():
            self.prefix = self.filename.read_text(encoding="utf-8")
        self.keys: list[str] | None = None
        self.rows: list[dict] = []

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = csv_keys(logs)
        self.rows.append({"epoch": epoch, **logs})
        text = csv_text(self.rows, self.keys, self.sep, header=not self.prefix)
        atomic.write_text(self.filename, self.prefix + text)


def history_to_csv(history: Any, path: Any) -> Path:
    """``History`` as CSVLogger writes it (atomically)."""
    path = Path(os.fspath(path))
    check_writable(path, "History.to_csv")
    rows = [{"epoch": e, **{k: v[i] for k, v in history.history.items() if i < len(v)}}
            for i, e in enumerate(history.epoch)]
    atomic.write_text(path, csv_text(rows, csv_keys(history.history)))
    return path


def history_to_json(history: Any, path: Any) -> Path:
    """``{"epoch": [...], "history": {name: [value per epoch]}}`` (atomically)."""
    path = Path(os.fspath(path))
    check_writable(path, "History.to_json")
    values = {k: [float(np.float64(x)) for x in v] for k, v in history.history.items()}
    atomic.write_text(path, json.dumps({"epoch": list(history.epoch), "history": values},
                                       indent=1) + "\n")
    return path
