"""The layer protocol and the core layers: Dense, Activation, Flatten, Dropout.

A layer owns its weights (float32 NumPy arrays, created by ``build`` from the input
shape) and knows three things: the shape it outputs for an input shape
(``compute_output_shape``, which rejects shapes it cannot take), how its forward pass
is written as primitives of a program (``forward``, given a :class:`Context`), and its
Keras config.  Shapes carry ``None`` for the batch axis.

Keras masks (``Embedding(mask_zero=True)``, ``Masking``) follow Keras 3's rules: a
layer whose ``supports_masking`` is True passes its first input's mask on unless it
computes its own (``mask_flags`` at build time, ``forward_masked`` in the program); one
that does not support masking drops the mask with Keras' warning.  A mask is a boolean
``(batch, steps)`` Var (the tensor's shape without its last axis).
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..autodiff.symbolic import Graph, Var
from ..errors import PhylanxValueError
from ..source import user_line
from . import activations, initializers, regularizers
from . import arguments as args

_name_counts: dict[str, int] = {}


def clear_session() -> None:
    """Restart automatic layer names (``dense``, ``dense_1`` ...), as Keras does."""
    _name_counts.clear()


def _auto_name(cls_name: str) -> str:
    # Keras' rule: Conv1D -> conv1d, BatchNormalization -> batch_normalization
    base = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", cls_name)
    base = re.sub(r"([a-z])([A-Z])", r"\1_\2", base).lower()
    count = _name_counts.get(base, 0)
    _name_counts[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


class ShapeMismatch(PhylanxValueError):
    """A layer cannot take the shape it is given (the model names the layers involved)."""


@dataclass(eq=False)
class Weight:
    name: str
    value: np.ndarray
    trainable: bool = True


@dataclass(eq=False)
class Context:
    """What ``forward`` writes into: the program, the layer's weights as variables, the
    mode, and the new values of non-trainable weights (batch-norm moving statistics)."""

    graph: Graph
    weights: dict[str, Var]
    training: bool
    updates: list[tuple[Weight, Var]] = field(default_factory=list)
    #: data parallel: (offset, stop, global batch) Vars of this rank's shard, so that
    #: random draws are made for the whole batch and sliced (same as one process)
    shard: tuple | None = None
    #: data parallel: the step's :class:`~.data_parallel.Inputs` (shard weight, whether
    #: BatchNormalization synchronises its statistics over the ranks)
    parallel: Any = None


def _check_dtype(dtype: Any, where: str) -> None:
    """A layer's ``dtype`` (Keras' dtype policy): phylanx.nn computes in float32, so
    only that (or None) is taken; Keras computes in float16, bfloat16 (and the
    ``mixed_`` policies) or float64 as asked, which float32 would answer otherwise."""
    if dtype is None:
        return
    name = getattr(dtype, "name", dtype)        # (a Keras DTypePolicy, a NumPy dtype)
    try:
        name = np.dtype(name).name
    except TypeError:
        name = str(name)
    if name != "float32":
        raise args.value_error(where, f"dtype={dtype!r}: phylanx.nn computes in float32 "
                                      "only (Keras' default policy); leave dtype out or "
                                      "give 'float32'")


class Layer:
    """Base class: see the module doc."""

    #: Keras' ``supports_masking``: the layer takes a Keras mask (passes it on or uses it)
    supports_masking = False

    def __init__(self, name: str | None = None, input_shape: Any = None,
                 input_dim: int | None = None, trainable: bool = True, **unused: Any) -> None:
        where = type(self).__name__
        regularizers.attach(self, unused)      # (takes its arguments out of unused)
        _check_dtype(unused.pop("dtype", None), where)
        unknown = set(unused) - {"batch_input_shape"}
        if unknown:
            raise args.type_error(where, f"unknown argument(s) {', '.join(sorted(unknown))}")
        self.name = args.name(name, where) or _auto_name(where)
        self.trainable = args.boolean(trainable, "trainable", where)
        if input_dim is not None:
            if input_shape is not None:
                raise args.value_error(where, "give input_shape or input_dim, not both")
            input_shape = (args.integer(input_dim, "input_dim", where),)
        self.batch_input_shape = None if input_shape is None else \
            (None,) + args.shape(input_shape, "input_shape", where)
        self.weights: list[Weight] = []
        self.built = False
        self.input_shape: tuple | None = None
        self.output_shape: tuple | None = None
        #: rows of the table a layer reading its input as indices picks from (Embedding's
        #: input_dim): fit and predict check a model input's indices against it
        self.index_count: int | None = None

    # -- to be provided by layers -----------------------------------------------
    def build(self, input_shape: tuple) -> None:
        """Create the weights for inputs of ``input_shape``."""

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return input_shape

    def forward(self, ctx: Context, x: Var) -> Var:
        raise NotImplementedError

    def layer_config(self) -> dict:
        return {}

    # -- Keras masks (see the module doc) -----------------------------------------------
    def mask_flags(self, masked: list[bool], options: dict) -> Any:
        """Whether the output (each output, for a layer of several) carries a mask, given
        which inputs do; called when the layer is called on its tensors."""
        if self.supports_masking:
            return masked[0]
        if any(masked):
            warnings.warn(f"Layer '{self.name}' (of type {type(self).__name__}) was passed "
                          "an input with a mask attached to it, but it does not support "
                          "masking (as in Keras 3): the mask is dropped, and later layers "
                          "and the loss do not see it", UserWarning, stacklevel=4)
        return False

    #: Keras' ``call`` takes a ``mask`` argument: in a functional model it is given the
    #: mask recorded when the model was built (:mod:`.mask_flow`)
    mask_argument = False

    def graph_mask(self, g: Any, values: list, masks: list, options: dict, computed: Any) -> Any:
        """The output's mask in the flow recorded when the model was built, from the
        inputs' ones there (``computed``: the output's mask at run time, for a layer
        whose mask does not depend on its inputs' masks)."""
        return masks[0] if self.supports_masking else None

    def mask_clearing_inputs(self, options: dict) -> tuple[int, ...]:
        """The inputs whose arrays lose their Keras mask when the layer runs (Keras 3's
        MultiHeadAttention: its query, value and key; :mod:`.mask_flow`)."""
        return ()

    def forward_masked(self, ctx: Context, xs: list, masks: list, options: dict):
        """``(output(s), mask(s))`` of the call: ``masks`` are the inputs' masks (None
        where a tensor has none).  Layers that compute or use a mask override it."""
        out = self.forward(ctx, *xs, **options)
        return out, (masks[0] if self.supports_masking else None)

    # -- shared machinery ----------------------------------------------------------
    def build_for(self, input_shape: tuple) -> tuple:
        """Check ``input_shape``, build on first use, and return the output shape."""
        input_shape = tuple(input_shape)
        if self.built and self.input_shape is not None and \
                _known(self.input_shape[1:]) != _known(input_shape[1:]):
            raise ShapeMismatch(f"expects input shape {self.input_shape}, got {input_shape}")
        out = self.compute_output_shape(input_shape)
        # (a list: one shape per output, for layers of several)
        out = [tuple(o) for o in out] if isinstance(out, list) else tuple(out)
        if not self.built:
            self.build(input_shape)
            self.built = True
        self.input_shape, self.output_shape = input_shape, out
        return out

    def add_weight(self, name: str, shape: tuple, initializer: Any,
                   trainable: bool = True) -> Weight:
        value = initializers.get(initializer)(tuple(int(s) for s in shape))
        weight = Weight(f"{self.name}/{name}", np.asarray(value, np.float32), trainable)
        self.weights.append(weight)
        return weight

    @property
    def trainable_weights(self) -> list[Weight]:
        return [w for w in self.weights if w.trainable and self.trainable]

    def count_params(self) -> int:
        return int(sum(w.value.size for w in self.weights))

    def get_weights(self) -> list[np.ndarray]:
        return [w.value.copy() for w in self.weights]

    def set_weights(self, values: list) -> None:
        if len(values) != len(self.weights):
            raise PhylanxValueError(f"layer {self.name} has {len(self.weights)} weight(s), "
                                    f"got {len(values)}", user_line())
        for w, v in zip(self.weights, values):
            v = np.asarray(v)
            if v.dtype.kind not in "biuf":     # (complex would lose its imaginary part)
                raise PhylanxValueError(f"weight {w.name} must be real numbers, got dtype "
                                        f"{v.dtype}", user_line())
            if v.shape != w.value.shape:
                raise PhylanxValueError(f"weight {w.name} has shape {w.value.shape}, got "
                                        f"{v.shape}", user_line())
            w.value = v.astype(np.float32)

    def get_config(self) -> dict:
        config = {"name": self.name, "trainable": self.trainable, **self.layer_config(),
                  **regularizers.config(self)}
        if self.batch_input_shape is not None:
            config["batch_input_shape"] = list(self.batch_input_shape)
        return config

    @classmethod
    def from_config(cls, config: dict) -> Layer:
        config = dict(config)
        shape = config.pop("batch_input_shape", None)
        layer = cls(**config)
        if shape is not None:
            layer.batch_input_shape = tuple(shape)
        return layer

    def build_call(self, shapes: list[tuple], options: dict) -> Any:
        """The output shape of a call on tensors of ``shapes`` with keyword ``options``
        (a list of shapes for a layer of several outputs); builds on first use.  Layers
        of one input and no options take this; the others override it."""
        if options:
            raise ShapeMismatch(f"takes no call options, got {', '.join(sorted(options))}")
        if len(shapes) != 1:
            raise ShapeMismatch(f"takes one input tensor, got {len(shapes)}")
        return self.build_for(shapes[0])

    def __call__(self, tensor: Any) -> Any:
        from .model import call_layer
        return call_layer(self, tensor)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _known(shape: tuple) -> tuple:
    return tuple(d for d in shape if d is not None)


def expect_rank(layer: Layer, input_shape: tuple, rank: int, hint: str = "") -> None:
    if len(input_shape) != rank:
        raise ShapeMismatch(f"expects inputs of rank {rank} {_rank_words(rank)}, got shape "
                            f"{input_shape}{hint}")


def _rank_words(rank: int) -> str:
    return {2: "(batch, features)", 3: "(batch, steps, channels)"}.get(rank, "")


class Dense(Layer):
    """``activation(x @ kernel + bias)`` over the last axis of ``(batch, ..., features)``
    inputs (N-d ones as one product over their rows, as Keras)."""

    supports_masking = True

    def __init__(self, units: int, activation: str | None = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.units = args.integer(units, "units", "Dense")
        self.activation = activations.check(activation)
        self.use_bias = args.boolean(use_bias, "use_bias", "Dense")
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer

    def compute_output_shape(self, input_shape):
        if len(input_shape) < 2 or input_shape[-1] is None:
            raise ShapeMismatch(f"expects inputs (batch, ..., features) with known features, "
                                f"got shape {input_shape}")
        if len(input_shape) > 2 and any(d is None for d in input_shape[1:-1]):
            raise ShapeMismatch(f"needs every axis but the batch known, got {input_shape}")
        return tuple(input_shape[:-1]) + (self.units,)

    def build(self, input_shape):
        self.add_weight("kernel", (input_shape[-1], self.units), self.kernel_initializer)
        if self.use_bias:
            self.add_weight("bias", (self.units,), self.bias_initializer)

    def forward(self, ctx, x):
        g, w = ctx.graph, ctx.weights
        out_shape = self.compute_output_shape(x.shape)
        rows = x if len(x.shape) == 2 else \
            g.op("reshape", x, [-1, x.shape[-1]], shape=(None, x.shape[-1]))
        shape = (rows.shape[0], self.units)
        y = g.op("dot", rows, w["kernel"], shape=shape, hint="dense")
        if self.use_bias:
            y = g.op("__add", y, w["bias"], shape=shape)
        if len(x.shape) > 2:
            y = g.op("reshape", y, [-1, *out_shape[1:]], shape=out_shape)
        return activations.apply(self.activation, g, y)

    def layer_config(self):
        return {"units": self.units, "activation": self.activation, "use_bias": self.use_bias,
                "kernel_initializer": _init_name(self.kernel_initializer),
                "bias_initializer": _init_name(self.bias_initializer)}


def _init_name(init: Any) -> Any:
    return init if isinstance(init, str) else getattr(init, "__name__", str(init))


class Activation(Layer):
    """An activation by name (see :mod:`.activations`)."""

    supports_masking = True

    def __init__(self, activation: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.check(activation)

    def forward(self, ctx, x):
        return activations.apply(self.activation, ctx.graph, x)

    def layer_config(self):
        return {"activation": self.activation}


class Flatten(Layer):
    """``(batch, d1, d2, ...)`` to ``(batch, d1 * d2 * ...)``."""

    def compute_output_shape(self, input_shape):
        if any(d is None for d in input_shape[1:]):
            raise ShapeMismatch(f"needs every axis but the batch known, got {input_shape}")
        return (input_shape[0], int(np.prod(input_shape[1:], dtype=np.int64)))

    def forward(self, ctx, x):
        shape = self.compute_output_shape(x.shape)
        return ctx.graph.op("reshape", x, [-1, shape[1]], shape=shape, hint="flatten")


def _noise(ctx: Context, like: Var) -> Var:
    """Uniform [0, 1) noise of ``like``'s shape, drawn inside the step."""
    g = ctx.graph
    if ctx.shard is not None and all(d is not None for d in like.shape[1:]):
        # every rank draws the global batch's mask (same seed) and keeps its rows:
        # the masks, hence the losses, are those of one process
        offset, stop, total = ctx.shard
        whole = g.op("random_sample", [total, *like.shape[1:]], shape=like.shape)
        return g.op("slice", whole, [offset, stop], shape=like.shape)
    size = g.op("shape", like, shape=(len(like.shape),))
    return g.op("random_sample", size, shape=like.shape)


def dropout(ctx: Context, x: Var, rate: float) -> Var:
    """``x`` with a fraction ``rate`` zeroed and the rest scaled by ``1 / (1 - rate)`` in
    training; ``x`` otherwise (Dropout, and MultiHeadAttention's attention weights)."""
    if not ctx.training or rate == 0.0:
        return x
    g = ctx.graph
    keep = g.op("__ge", _noise(ctx, x), rate, shape=x.shape, hint="keep")
    kept = g.op("__mul", x, keep, shape=x.shape)
    return g.op("__mul", kept, 1.0 / (1.0 - rate), shape=x.shape, hint="dropout")


def dropout_mask(ctx: Context, like: Var, rate: float) -> Var:
    """A float32 mask of ``like``'s shape: 0 for a fraction ``rate``, ``1 / (1 - rate)``
    elsewhere (Keras' ``random.dropout`` of ones: the recurrent layers' masks, drawn once
    and reused at every step)."""
    g = ctx.graph
    keep = g.op("__ge", _noise(ctx, like), rate, shape=like.shape, hint="keep")
    keep = g.op("astype", keep, "float32", shape=like.shape)
    return g.op("__mul", keep, 1.0 / (1.0 - rate), shape=like.shape, hint="dropout_mask")


class Dropout(Layer):
    """In training, zeroes a fraction ``rate`` of the inputs and scales the rest by
    ``1 / (1 - rate)``; the identity otherwise.  The mask is drawn inside the step."""

    supports_masking = True

    def __init__(self, rate: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rate = args.real(rate, "rate", "Dropout", 0.0, 1.0, high_open=True)
        if seed is not None:
            # (it would be silently ignored: the masks come from the generator
            # nn.set_seed seeds, shared by the layers and the ranks)
            raise args.value_error("Dropout", f"seed={seed!r} is not supported yet; call "
                                              "nn.set_seed(n) for reproducible masks")
        self.seed = None

    def forward(self, ctx, x):
        return dropout(ctx, x, self.rate)

    def layer_config(self):
        return {"rate": self.rate, "seed": self.seed}
