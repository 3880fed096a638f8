"""Losses by Keras name, written into the step's program, and checks of the labels.

``mse`` (``mean_squared_error``), ``mae``, ``binary_crossentropy``,
``categorical_crossentropy``, ``sparse_categorical_crossentropy``; the cross-entropies
take ``from_logits`` (pass a :class:`Loss` instance, e.g.
``losses.CategoricalCrossentropy(from_logits=True)``).  Every loss is the mean over the
batch (and, as in Keras, over the last axis for the element-wise ones).  Probabilities
are clipped to ``[1e-7, 1 - 1e-7]`` by the loss kernels, as Keras does, except for the
categorical cross-entropies of logits (``from_logits``) and of a softmax output layer:
those are ``softmax_crossentropy`` of the logits, exact for finite logits (Keras'
TensorFlow backend, too, takes a softmax output's logits).  Model-parallel training's
loss sees only the probabilities (``model_parallel_fit._head``): clipped there.

When the model's output carries a Keras mask (a sequence output of a masked model),
the loss is Keras 3's masked ``sum_over_batch_size``: the per-step losses (the
element-wise ones averaged over the last axis first) of the unmasked steps summed,
over their number (0 when the batch has none): :class:`MaskWeights`; with sample
weights (one per sample, or per step), each step's loss times its weight first, as
Keras 3 does for weights of shape ``(n, 1)`` or ``(n, steps)``.  (Keras 3.15 multiplies
a mask of shape ``(n, steps)`` by weights of shape ``(n,)`` by NumPy's broadcasting,
which fails unless ``n == steps`` and then pairs sample ``j``'s weight with step ``j``;
phylanx takes ``(n,)`` as ``(n, 1)``, a weight per sample, as Keras documents it.)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..autodiff.symbolic import Graph, Var
from ..errors import PhylanxValueError
from . import arguments as args

ALIASES = {"mean_squared_error": "mse", "mean_absolute_error": "mae"}


@dataclass
class MaskWeights:
    """How a masked output's per-step values are reduced (losses and metrics): the
    mask as float32 ``keep``; ``scale``, multiplying the sum of the kept values, is
    1 / the number of unmasked steps of the batch (at least 1: Keras'
    ``divide_no_nan``); ``count``, the weight of the batch's metric values in the
    epoch's (Keras' metrics count the unmasked steps).  Data parallel, the count is
    the global batch's (one all_reduce in the step), and ``scale`` and ``count`` are
    divided by the shard's share, as the ranks' values are summed share-weighted."""

    keep: Var
    scale: Var
    count: Var

    def reduce(self, g: Graph, values: Var, weights: Var | None = None) -> Var:
        """The masked mean of per-step ``values`` (the element-wise ones averaged over
        their last axis first, as Keras), each step's value times its ``weights`` (one
        per sample or per step) if given."""
        rank = len(self.keep.shape)
        if len(values.shape) == rank + 1:
            values = g.op("mean", values, -1, shape=values.shape[:-1])
        if len(values.shape) != rank:
            raise PhylanxValueError(f"the output's mask, of shape {self.keep.shape}, does "
                                    f"not fit its per-step values of shape {values.shape}")
        if weights is not None:
            values = weighted(g, values, weights)
        kept = g.op("__mul", values, self.keep, shape=values.shape, hint="masked")
        return g.op("__mul", g.op("sum", kept, shape=()), self.scale, shape=(),
                    hint="masked_mean")


def weighted(g: Graph, values: Var, weights: Var) -> Var:
    """``values`` (a sample's first axis) times ``weights``: one per sample, or one per
    step (a sequence's values, ``(samples, steps)``), over the values' other axes."""
    for _ in range(len(values.shape) - len(weights.shape)):
        weights = g.op("expand_dims", weights, -1, shape=tuple(weights.shape) + (1,))
    return g.op("__mul", values, weights, shape=values.shape, hint="weighted")


def mask_weights(g: Graph, mask: Var, parallel: Any = None) -> MaskWeights:
    """The :class:`MaskWeights` of a boolean ``mask``; ``parallel``: the step's
    :class:`~.data_parallel.Inputs` (data parallel), or None."""
    keep = g.op("astype", mask, "float32", shape=mask.shape, hint="keep")
    return weighed_by(g, keep, parallel, counts=True)


def weighed_by(g: Graph, keep: Var, parallel: Any = None,
               counts: bool = False) -> MaskWeights:
    """The :class:`MaskWeights` of float32 weights ``keep`` (a mask's 0 and 1:
    ``counts``; a weighted metric's weights times its mask): its ``scale`` is 1 over
    their sum (taken as 1 when it is 0: a count's ``maximum(sum, 1)``, a weight
    total's that may be below 1, ``sum + (sum == 0)``), its ``count`` their sum."""
    valid = g.op("sum", keep, shape=(), hint="valid")

    def nonzero(total: Var) -> Var:
        if counts:
            return g.op("maximum", total, 1.0, shape=())
        none = g.op("astype", g.op("__eq", total, 0.0, shape=()), "float32", shape=())
        return g.op("__add", total, none, shape=())
    if parallel is None:
        scale = g.op("__div", 1.0, nonzero(valid), shape=())
        return MaskWeights(keep, scale, valid)
    offset, stop, total = parallel.shard
    # (a rank running a stand-in row for an empty shard counts none)
    has_rows = g.op("astype", g.op("__gt", parallel.weight, 0.0, shape=()), "float32",
                    shape=())
    local = g.op("__mul", valid, has_rows, shape=())
    label = "nn_mask_count" if counts else "nn_weight_total"
    valid_all = g.op("all_reduce", local, "sum", label, shape=())
    rows = g.op("astype", g.op("__sub", stop, offset, shape=()), "float32", shape=())
    inverse_share = g.op("__div", g.op("astype", total, "float32", shape=()), rows, shape=())
    scale = g.op("__div", inverse_share, nonzero(valid_all), shape=())
    return MaskWeights(keep, scale, g.op("__mul", local, inverse_share, shape=()))


@dataclass
class Loss:
    name: str
    from_logits: bool = False

    def __post_init__(self) -> None:
        # ("yes" would be truthy: a probability loss read as one of logits)
        self.from_logits = args.boolean(self.from_logits, "from_logits", "Loss")

    def emit(self, g: Graph, y: Var, p: Var, weights: Var | None = None,
             masked: MaskWeights | None = None) -> Var:
        """The scalar loss of outputs ``p`` for targets ``y``: the mean of the
        per-element losses, or with ``weights`` (one per sample, or one per step of a
        sequence output) Keras 3's ``sum_over_batch_size``: each sample's (step's) loss
        times its weight, over the number of samples (steps): ``sum(w * loss) / n``, not
        over ``sum(w)``; with ``masked``, over the unmasked steps (see the module
        doc)."""
        logits = p if self.from_logits else softmax_input(g, p)
        if masked is not None:
            return masked.reduce(g, self._each(g, y, p, logits), weights)
        if weights is None and logits is not None and self.name in (
                "categorical_crossentropy", "sparse_categorical_crossentropy"):
            # one statement from the logits, exact (as Keras' TensorFlow backend takes a
            # softmax output's logits); the softmax stays for metrics and predictions
            sparse = self.name == "sparse_categorical_crossentropy"
            return g.op("softmax_crossentropy", y, logits, sparse, shape=(), hint="loss")
        each = self._each(g, y, p, logits)
        if weights is not None:
            each = weighted(g, each, weights)
        return g.op("mean", each, shape=(), hint="loss")

    def _each(self, g: Graph, y: Var, p: Var, logits: Var | None) -> Var:
        """The loss of each element (of each sample for the cross-entropies)."""
        if self.name in ("mse", "mae"):
            err = g.op("__sub", p, y, shape=p.shape)
            return g.op("square" if self.name == "mse" else "absolute", err, shape=p.shape)
        if self.name == "binary_crossentropy":
            return g.op("binary_crossentropy", y, p, self.from_logits, shape=p.shape)
        if self.name == "sparse_categorical_crossentropy":
            y = one_hot(g, y, p.shape[-1])
        if logits is not None:      # exact log-softmax form, as softmax_crossentropy
            both = g.op("categorical_crossentropy", y, logits, True, -1, shape=())
        else:
            both = g.op("categorical_crossentropy", y, p, self.from_logits, -1, shape=())
        return g.op("slice", both, 0, shape=p.shape[:-1])

    def check_targets(self, y: np.ndarray, output_shape: tuple) -> np.ndarray:
        """``y`` as the step takes it (float32, or int64 labels), or a clear error."""
        out = tuple(output_shape)
        if self.name == "sparse_categorical_crossentropy":
            labels = np.asarray(y)
            if labels.ndim == len(out) and labels.shape[-1] == 1:
                labels = labels[..., 0]
            if labels.shape[1:] != tuple(out[1:-1]):
                raise PhylanxValueError(
                    f"sparse_categorical_crossentropy needs one integer label per sample "
                    f"(shape {(len(labels),) + tuple(out[1:-1])}), got labels of shape "
                    f"{np.shape(y)} for outputs of shape {out}")
            if labels.dtype.kind == "f" and np.any(labels != np.round(labels)):
                raise PhylanxValueError("sparse_categorical_crossentropy needs integer labels")
            labels = labels.astype(np.int64)
            n = out[-1]
            if labels.size and (labels.min() < 0 or labels.max() >= n):
                bad = labels[(labels < 0) | (labels >= n)][0]
                raise PhylanxValueError(
                    f"label {bad} is out of range for sparse_categorical_crossentropy with "
                    f"{n} output classes (labels must be in 0..{n - 1})")
            return labels
        target = np.asarray(y, dtype=np.float32)
        if target.ndim == 1 and len(out) == 2 and out[1] == 1:
            target = target[:, None]
        if target.shape[1:] != tuple(out[1:]):
            hint = " (integer labels? use sparse_categorical_crossentropy)" \
                if self.name == "categorical_crossentropy" and target.ndim == 1 else ""
            raise PhylanxValueError(f"{self.name}: targets of shape {np.shape(y)} do not fit "
                                    f"the model's outputs of shape {out}{hint}")
        if self.name == "binary_crossentropy" and target.size and (
                target.min() < 0 or target.max() > 1):
            raise PhylanxValueError("binary_crossentropy needs targets in [0, 1], got values "
                                    f"from {target.min()} to {target.max()}")
        if self.name == "categorical_crossentropy" and target.size and target.min() < 0:
            raise PhylanxValueError("categorical_crossentropy needs non-negative targets "
                                    "(one-hot rows)")
        return target


def softmax_input(g: Graph, p: Var) -> Var | None:
    """The logits if ``p`` is their softmax over the last axis, else None."""
    stmt = g.producer(p)
    if stmt is None or stmt.primitive != "softmax":
        return None
    axis = stmt.operands[1] if len(stmt.operands) > 1 else -1
    if axis != -1 and axis != len(p.shape) - 1:
        return None
    return stmt.operands[0]


def one_hot(g: Graph, labels: Var, classes: int) -> Var:
    shape = tuple(labels.shape) + (classes,)
    hot = g.op("one_hot", labels, classes, shape=shape)
    return g.op("astype", hot, "float32", shape=shape, hint="one_hot")


def BinaryCrossentropy(from_logits: bool = False) -> Loss:  # noqa: N802 - Keras' name
    return Loss("binary_crossentropy", from_logits)


def CategoricalCrossentropy(from_logits: bool = False) -> Loss:  # noqa: N802
    return Loss("categorical_crossentropy", from_logits)


def SparseCategoricalCrossentropy(from_logits: bool = False) -> Loss:  # noqa: N802
    return Loss("sparse_categorical_crossentropy", from_logits)


def MeanSquaredError() -> Loss:  # noqa: N802
    return Loss("mse")


KNOWN = ("mse", "mae", "binary_crossentropy", "categorical_crossentropy",
         "sparse_categorical_crossentropy")


def get(loss) -> Loss:
    if isinstance(loss, Loss):
        return loss
    name = ALIASES.get(str(loss).lower(), str(loss).lower())
    if name not in KNOWN:
        raise PhylanxValueError(f"unknown loss {loss!r}; known: {', '.join(KNOWN)}")
    return Loss(name)
