"""save_model / load_model: one ``.npz`` file holding the weights and, as JSON, the
architecture and the compile settings (optimizer slots are not saved).

The file is replaced atomically (:mod:`phylanx.atomic`): a save that is interrupted
leaves the previous file whole.  ``load_model`` of an empty, cut-short or damaged file
raises a :class:`~phylanx.errors.PhylanxValueError` naming the file."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .. import atomic
from ..errors import PhylanxValueError

FORMAT = "phylanx.nn/1"


def _layer_classes() -> dict[str, type]:
    from . import layers
    return {name: getattr(layers, name) for name in layers.__all__}


def save_model(model: Any, path: str | Path) -> Path:
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_suffix(path.suffix + ".npz") if path.suffix else \
            path.with_suffix(".npz")
    config = {"format": FORMAT, "class_name": type(model).__name__,
              "config": model.get_config(), "compile": model.compile_config}
    arrays = {f"weight_{i}": w for i, w in enumerate(model.get_weights())}
    with atomic.open_atomic(path, "wb") as fh:
        np.savez(fh, __config__=np.array(json.dumps(config)), **arrays)
    return path


def _read(path: Path) -> tuple[dict, list[np.ndarray]]:
    """The saved settings and weights of ``path``; a located error if it is not whole."""
    try:
        size = path.stat().st_size
    except OSError as e:
        raise PhylanxValueError(f"cannot read model file '{path}': {e.strerror}") from None
    if size == 0:
        raise PhylanxValueError(f"'{path}' is empty (0 bytes), not a model saved by "
                                "phylanx.nn (a save that did not finish?)")
    # an .npz is a zip archive, whose directory is at its end: a cut-short file has none
    if not zipfile.is_zipfile(path):
        raise PhylanxValueError(f"'{path}' is not a complete model file saved by phylanx.nn "
                                f"({size} bytes, not a whole .npz archive: cut short?)")
    try:
        with np.load(path, allow_pickle=False) as data:
            if "__config__" not in data:
                raise PhylanxValueError(f"{path} is not a model saved by phylanx.nn "
                                        "(no config)")
            saved = json.loads(str(data["__config__"]))
            weights = [data[f"weight_{i}"] for i in range(len(data.files) - 1)]
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile) as e:
        if isinstance(e, PhylanxValueError):
            raise
        # the decoders' own failures: a damaged archive or array inside it
        raise PhylanxValueError(f"'{path}' is a damaged model file: {e}") from None
    if not isinstance(saved, dict):
        raise PhylanxValueError(f"{path} is not a model saved by phylanx.nn (bad config)")
    return saved, weights


def load_model(path: str | Path) -> Any:
    """The model saved at ``path`` (compiled again if it was compiled)."""
    from .model import Input, Model, Sequential
    path = Path(path)
    if not path.exists() and path.with_suffix(".npz").exists():
        path = path.with_suffix(".npz")
    saved, weights = _read(path)
    if saved.get("format") != FORMAT:
        raise PhylanxValueError(f"{path}: unknown format {saved.get('format')!r}")
    classes = _layer_classes()
    config = saved["config"]
    layers = []
    for item in config["layers"]:
        cls = classes.get(item["class_name"])
        if cls is None:
            raise PhylanxValueError(f"{path}: unknown layer class {item['class_name']!r}")
        layers.append(cls.from_config(item["config"]))
    inputs = Input(tuple(config["input_shape"])[1:], dtype=config.get("input_dtype", "float32"))
    if saved["class_name"] == "Sequential":
        model = Sequential([inputs, *layers], name=config["name"])
    else:
        tensor = inputs
        for layer in layers:
            tensor = layer(tensor)
        model = Model(inputs, tensor, name=config["name"])
    model.set_weights(weights)
    settings = saved.get("compile")
    if settings:
        from . import losses, optimizers
        model.compile(optimizers.from_config(settings["optimizer"],
                                             settings["optimizer_config"]),
                      losses.Loss(settings["loss"], settings["from_logits"]),
                      settings["metrics"], loss_weights=_loss_weights(path, settings),
                      weighted_metrics=_weighted_metrics(settings))
    return model


def _weighted_metrics(settings: dict) -> Any:
    """The saved ``weighted_metrics`` (one list per output) as compile takes them, or
    None (a file saved without any)."""
    per_output = settings.get("weighted_metrics")
    if not per_output:
        return None
    return per_output[0] if len(per_output) == 1 else per_output


def _loss_weights(path: Path, settings: dict) -> Any:
    """The saved loss weights in the outputs' order (saved under "outputs", one entry
    per output, when one is not 1), or None; an entry without its weight is an error
    naming the file, as compile refuses a dict missing an output (a weight is not
    taken as 1)."""
    heads = settings.get("outputs")
    if not heads:
        return None
    if not isinstance(heads, list) or not all(
            isinstance(h, dict) and "loss_weight" in h for h in heads):
        raise PhylanxValueError(f"{path}: the compile settings' \"outputs\" must give "
                                f"each output's loss_weight, got {heads!r}")
    return [h["loss_weight"] for h in heads]
