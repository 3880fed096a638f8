"""The data of fit/evaluate/predict checked against the model: inputs, targets,
``validation_data`` and ``validation_split``.

Each problem is a located error naming the argument (see :mod:`.arguments`): inputs
that are not numeric arrays or do not fit the model's input shape, missing targets or
targets that do not fit the loss, as many inputs as targets, no samples to average a
loss over, sample weights not one finite number per sample (or per step of a sequence
output; a model of several outputs: one array per output, or one for all, as Keras 3),
class weights not a dict of class indices to finite numbers, or given for a model of
several outputs or an output of a class per step.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import PhylanxError
from . import arguments as args


def inputs(model: Any, x: Any, where: str, name: str = "x") -> np.ndarray:
    """``x`` as float32 for ``model`` (which an unbuilt Sequential is built for)."""
    given = args.array(x, name, where)
    array = given.astype(np.float32, copy=False)
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
    for layer in model.index_readers():
        _check_indices(given, layer, where, name)
    return array


def _check_indices(x: np.ndarray, layer: Any, where: str, name: str) -> None:
    """``x`` as row indices of ``layer``'s table: integers in 0..rows-1.  A negative
    index picked a row from the end and 1.5 row 1 (as Keras on JAX does, silently;
    Keras on TensorFlow refuses them), where the user meant another row."""
    if x.size == 0:
        return
    rows = layer.index_count
    what = f"layer '{layer.name}' ({type(layer).__name__} of {rows} rows)"
    if x.dtype.kind == "f":
        fractional = x != np.round(x)           # NaN too
        if fractional.any():
            raise args.value_error(where, f"{name}: index {x[fractional].flat[0]} of {what} "
                                          "is not an integer")
    low, high = x.min(), x.max()
    if low < 0 or high >= rows:
        bad = low if low < 0 else high
        hint = " (with mask_zero=True index 0 is the padding and 1..vocabulary size the " \
            "tokens: input_dim is the vocabulary size + 1)" \
            if getattr(layer, "mask_zero", False) and high == rows else ""
        raise args.value_error(where, f"{name}: index {bad.item()} is out of range for {what}: "
                                      f"indices must be in 0..{rows - 1}{hint}")


class Targets:
    """The targets of a model of several outputs, one array per output, whose samples
    are taken together (``y[take]``, ``y[a:b]``, ``len(y)``: the number of samples)."""

    def __init__(self, arrays: list[np.ndarray]) -> None:
        self.arrays = list(arrays)

    def __len__(self) -> int:
        return len(self.arrays[0])

    def __getitem__(self, index: Any) -> Targets:
        return Targets([a[index] for a in self.arrays])


def target_arrays(y: Any) -> list:
    """The step's target inputs: one array, or one per output."""
    return y.arrays if isinstance(y, Targets) else [y]


def _several_targets(model: Any, x: np.ndarray, y: Any, where: str, name: str) -> Targets:
    """``y`` of a model of several outputs: a list in the outputs' order, or a dict by
    output name (Keras' forms), each array checked against its output's loss."""
    names = model.output_names
    if isinstance(y, dict):
        unknown = sorted(set(map(str, y)) - set(names))
        missing = [n for n in names if n not in y]
        if unknown or missing:
            raise args.value_error(where, f"{name}: the model's outputs are {names}, the "
                                          f"targets are given for {sorted(map(str, y))}")
        y = [y[n] for n in names]
    if not isinstance(y, (list, tuple)):
        raise args.type_error(where, f"{name}: a model of {len(names)} outputs {names} takes "
                                     "a list of target arrays (one per output) or a dict by "
                                     f"output name, got {type(y).__name__}")
    if len(y) != len(names):
        raise args.value_error(where, f"{name}: {len(y)} target arrays for a model of "
                                      f"{len(names)} outputs {names}")
    found = []
    for head, shape, out_name, each in zip(model.heads, model.output_shapes, names, y):
        array = args.array(each, f"{name} of output '{out_name}'", where,
                           "numeric (targets)")
        try:
            target = head.loss.check_targets(array, shape)
        except PhylanxError as e:
            e.message = f"output '{out_name}': {e.message}"
            e.args = (e.message,)
            raise args.located(e, where) from None
        if len(target) != len(x):
            raise args.value_error(where, f"{len(x)} input samples but {len(target)} "
                                          f"targets for output '{out_name}' ({name})")
        found.append(target)
    return Targets(found)


def targets(model: Any, x: np.ndarray, y: Any, where: str, name: str = "y") -> Any:
    """``y`` as the loss takes it, one target per sample of ``x`` (a model of several
    outputs: :class:`Targets`)."""
    if y is not None and len(model.outputs) > 1:
        return _several_targets(model, x, y, where, name)
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


def _per_sample(w: Any, count: int, name: str, where: str,
                per_step: tuple | None = None) -> np.ndarray:
    """One finite float32 weight per sample (``(n, 1)`` taken as ``(n,)``, as Keras),
    or, for a sequence output, one per step: ``per_step`` is the shape of the loss's
    per-step values (the targets' shape without the class axis), ``(n, steps)``."""
    w = args.array(w, name, where)
    if w.ndim == 2 and w.shape[1] == 1:
        w = w[:, 0]
    if w.shape != (count,) and (per_step is None or len(per_step) < 2
                                or w.shape != tuple(per_step)):
        steps = "" if per_step is None or len(per_step) < 2 else \
            f", or one per step of the sequence output, shape {tuple(per_step)}"
        raise args.value_error(where, f"{name} must hold one weight per sample, shape "
                                      f"({count},){steps}, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise args.value_error(where, f"{name} must be finite")
    return w.astype(np.float32)


def class_weights(y: np.ndarray, class_weight: Any, where: str,
                  output_shape: tuple | None = None) -> np.ndarray:
    """Keras 3's sample weights from ``class_weight`` (class index -> weight): each
    sample's class is its label, the argmax of a one-hot row, or a one-unit target
    rounded; classes not in the dict weigh 1.  An output of a class per step (a
    sequence) has no class per sample: refused (Keras 3 took the argmax of a sample's
    labels over its steps, or failed in the loss)."""
    if not isinstance(class_weight, dict):
        raise args.type_error(where, "class_weight must be a dict {class index: weight}, "
                                     f"got {type(class_weight).__name__}")
    table = {}
    for key, value in class_weight.items():
        index = args.integer(key, "class_weight's key", where, minimum=0)
        table[index] = args.real(value, f"class_weight[{key}]", where)
    if output_shape is not None and len(output_shape) > 2:
        raise args.value_error(where, "class_weight needs one class per sample; the "
                                      f"model's output has shape {tuple(output_shape)} "
                                      "(a class per step): weigh the steps with "
                                      "sample_weight of shape (samples, steps)")
    labels = np.asarray(y)
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] != 1 else labels[..., 0]
    if labels.ndim != 1:
        raise args.value_error(where, "class_weight needs one class per sample; the "
                                      f"targets have shape {np.shape(y)}")
    labels = np.round(labels).astype(np.int64)
    return np.array([table.get(int(c), 1.0) for c in labels], np.float32)


def _step_shape(model: Any, target: np.ndarray, index: int) -> tuple:
    """The shape of output ``index``'s per-step loss values for ``target``: the
    targets' shape without the class axis (sparse labels have none)."""
    if model.heads[index].loss.name == "sparse_categorical_crossentropy":
        return target.shape
    return target.shape[:-1]


class OutputWeights:
    """The sample weights of a model of several outputs, one array per output (ones
    for an output given none), whose samples are taken together, as :class:`Targets`."""

    def __init__(self, arrays: list[np.ndarray]) -> None:
        self.arrays = list(arrays)

    def __len__(self) -> int:
        return len(self.arrays[0])

    def __getitem__(self, index: Any) -> OutputWeights:
        return OutputWeights([a[index] for a in self.arrays])


def weight_arrays(weights: Any) -> list:
    """The step's sample-weight inputs: none, one array, or one per output."""
    if weights is None:
        return []
    return weights.arrays if isinstance(weights, OutputWeights) else [weights]


def weight_ranks(weights: Any) -> str:
    """The ranks of the step's sample-weight inputs, as the program's key writes them
    (``"1"``: a weight per sample; ``"1,2"``: per sample, then per step)."""
    return ",".join(str(w.ndim) for w in weight_arrays(weights))


def _several_weights(model: Any, y: Targets, sample_weight: Any, where: str,
                     name: str) -> OutputWeights:
    """Keras 3's ``sample_weight`` of a model of several outputs: a list in the
    outputs' order or a dict by output name (None: that output unweighted), or one
    array of a weight per sample for every output."""
    names = model.output_names
    if isinstance(sample_weight, dict):
        unknown = sorted(set(map(str, sample_weight)) - set(names))
        missing = [n for n in names if n not in sample_weight]
        if unknown or missing:
            raise args.value_error(where, f"{name}: the model's outputs are {names}, "
                                          "the weights are given for "
                                          f"{sorted(map(str, sample_weight))}: give one "
                                          "array (or None) per output")
        given = [sample_weight[n] for n in names]
    elif isinstance(sample_weight, (list, tuple)):
        if len(sample_weight) != len(names):
            raise args.value_error(where, f"{name} has {len(sample_weight)} arrays "
                                          f"for a model of {len(names)} outputs {names}: "
                                          "give one per output (None: unweighted), as "
                                          "Keras")
        given = list(sample_weight)
    else:       # (Keras: a weight per sample, replicated on every output)
        one = _per_sample(sample_weight, len(y), name, where)
        given = [one] * len(names)
    found = []
    for i, (out_name, each) in enumerate(zip(names, given)):
        if each is None:
            found.append(np.ones(len(y), np.float32))
            continue
        found.append(_per_sample(each, len(y), f"{name} of output '{out_name}'",
                                 where, _step_shape(model, y.arrays[i], i)))
    return OutputWeights(found)


def sample_weights(model: Any, y: Any, sample_weight: Any, class_weight: Any,
                   where: str, name: str = "sample_weight") -> Any:
    """fit/evaluate's ``sample_weight`` or ``class_weight`` as the weights of the
    checked targets ``y`` (not both, as Keras refuses): one per sample (or per step of
    a sequence output), an :class:`OutputWeights` for a model of several outputs, or
    None."""
    if sample_weight is not None and class_weight is not None:
        raise args.value_error(where, "give sample_weight or class_weight, not both (as "
                                      "Keras)")
    if isinstance(y, Targets):
        if class_weight is not None:
            raise args.value_error(where, "class_weight is only supported for models of "
                                          "a single output (as Keras): give sample_weight, "
                                          "one array per output")
        if sample_weight is None:
            return None
        return _several_weights(model, y, sample_weight, where, name)
    if sample_weight is not None:
        return _per_sample(sample_weight, len(y), name, where,
                           _step_shape(model, y, 0))
    if class_weight is not None:
        return class_weights(y, class_weight, where, model.output_shape)
    return None


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
    return vx, vy, sample_weights(model, vy, data[2], None, "fit",
                                  "validation_data's sample_weight")
