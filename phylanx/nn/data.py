"""The data of fit/evaluate/predict checked against the model: inputs, targets,
``validation_data`` and ``validation_split``.

Each problem is a located error naming the argument (see :mod:`.arguments`): inputs
that are not numeric arrays or do not fit the model's input shape, missing targets or
targets that do not fit the loss, as many inputs as targets, no samples to average a
loss over, validation sample weights not one finite number per sample.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import PhylanxError
from . import arguments as args


def inputs(model: Any, x: Any, where: str, name: str = "x") -> np.ndarray:
    """``x`` as float32 for ``model`` (which an unbuilt Sequential is built for)."""
    array = args.array(x, name, where).astype(np.float32, copy=False)
    try:
        if not model.built and hasattr(model, "build"):
            model.build(array.shape)
            if model.loss is not None:
                model._resolve_metrics(where)
        model._require_built()
    except PhylanxError as e:
        raise args.located(e, where) from None
    expected = model.input_shape
    if array.ndim != len(expected) or any(
            e is not None and e != a for e, a in zip(expected[1:], array.shape[1:])):
        raise args.value_error(where, f"{name}: input of shape {array.shape} does not fit model "
                                      f"'{model.name}', which takes {expected}")
    return array


def targets(model: Any, x: np.ndarray, y: Any, where: str, name: str = "y") -> np.ndarray:
    """``y`` as the loss takes it, one target per sample of ``x``."""
    if y is None:
        raise args.type_error(where, f"{name} (the targets) is required: the loss "
                                     f"'{model.loss.name}' compares the outputs with them")
    y = args.array(y, name, where, "numeric (targets)")
    try:
        target = model.loss.check_targets(y, model.output_shape)
    except PhylanxError as e:
        raise args.located(e, where) from None
    if len(target) != len(x):
        raise args.value_error(where, f"{len(x)} input samples but {len(target)} targets "
                                      f"({name})")
    return target


def samples(model: Any, x: Any, y: Any, where: str, x_name: str = "x",
            y_name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Inputs and targets checked; no samples is an error (a loss is a mean over them)."""
    x = inputs(model, x, where, x_name)
    y = targets(model, x, y, where, y_name)
    if len(x) == 0:
        raise args.value_error(where, f"{x_name} has no samples (the loss is a mean over "
                                      "them)")
    return x, y


def split(x: np.ndarray, y: np.ndarray, fraction: float) -> tuple:
    """``validation_split``: the last samples, cut at ``floor(n * (1 - fraction))`` as
    Keras cuts, both parts non-empty."""
    cut = int(math.floor(len(x) * (1.0 - fraction)))
    if cut == 0 or cut == len(x):
        left = "no training" if cut == 0 else "no validation"
        raise args.value_error("fit", f"validation_split={fraction} of {len(x)} samples "
                                      f"leaves {left} sample; give more data or another "
                                      "split")
    return (x[:cut], y[:cut]), (x[cut:], y[cut:])


def validation(model: Any, data: Any) -> tuple:
    """fit's ``validation_data``: ``(x, y)`` or ``(x, y, sample_weight)`` (a list too,
    as Keras takes it); the weights one finite number per sample, or None."""
    if not isinstance(data, (tuple, list)) or len(data) not in (2, 3):
        shown = f"a {type(data).__name__} of {len(data)} items" \
            if isinstance(data, (tuple, list)) else f"a {type(data).__name__}"
        raise args.type_error("fit", "validation_data must be a tuple (x, y) or "
                                     f"(x, y, sample_weight), got {shown}")
    vx, vy = samples(model, data[0], data[1], "fit", "validation_data's x",
                     "validation_data's y")
    if len(data) == 2 or data[2] is None:
        return vx, vy, None
    name = "validation_data's sample_weight"
    w = args.array(data[2], name, "fit")
    if w.ndim == 2 and w.shape[1] == 1:        # (n, 1), as Keras squeezes it
        w = w[:, 0]
    if w.shape != (len(vx),):
        raise args.value_error("fit", f"{name} must hold one weight per sample, shape "
                                      f"({len(vx)},), got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise args.value_error("fit", f"{name} must be finite")
    return vx, vy, w.astype(np.float32)
