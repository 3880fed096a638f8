"""Convolution and pooling over sequences (channels last): Conv1D, MaxPooling1D,
AveragePooling1D, GlobalAveragePooling1D, GlobalMaxPooling1D.

Conv1D is the ``conv1d`` primitive; the 1-D poolings are the 2-D pooling primitives over
a ``(batch, steps, 1, channels)`` view, pooling ``(pool_size, 1)`` windows.
"""
from __future__ import annotations

from typing import Any

from . import activations
from . import arguments as args
from .layers_core import Layer, ShapeMismatch, _init_name, expect_rank

_PADDINGS = ("valid", "same")


def _padding(value: str, where: str, allowed: tuple = _PADDINGS) -> str:
    choices = " or ".join(f"'{p}'" for p in allowed)
    if not isinstance(value, str):
        raise args.type_error(where, f"padding must be {choices}, got {value!r}")
    padding = value.lower()
    if padding not in allowed:
        raise args.value_error(where, f"padding must be {choices}, got {value!r}")
    return padding


def _one_int(value: Any, what: str, where: str) -> int:
    """A positive integer, or a tuple/list of one (Keras' form for 1-D layers)."""
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise args.value_error(where, f"{what} must be one integer for a 1-D layer, got "
                                          f"{value}")
        value = value[0]
    return args.integer(value, what, where)


def _out_length(length, window: int, stride: int, padding: str, dilation: int = 1):
    if length is None:
        return None
    if padding in ("same", "causal"):   # (causal: span - 1 zeros on the left)
        return -(-length // stride)
    span = dilation * (window - 1) + 1
    return (length - span) // stride + 1 if length >= span else 0


class Conv1D(Layer):
    """``activation(conv1d(x, kernel) + bias)``; kernel shape ``(kernel_size, channels,
    filters)``."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", dilation_rate: Any = 1,
                 activation: str | None = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = type(self).__name__
        self.filters = args.integer(filters, "filters", where)
        self.kernel_size = _one_int(kernel_size, "kernel_size", where)
        self.strides = _one_int(strides, "strides", where)
        self.dilation_rate = _one_int(dilation_rate, "dilation_rate", where)
        if self.strides > 1 and self.dilation_rate > 1:
            # (the conv1d kernel refuses it too, but only at the first call of the model)
            raise args.value_error(where, "strides > 1 with dilation_rate > 1 is not "
                                          "supported (nor in Keras)")
        self.padding = _padding(padding, where, ("valid", "same", "causal"))
        self.activation = activations.check(activation)
        self.use_bias = args.boolean(use_bias, "use_bias", where)
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer

    def compute_output_shape(self, input_shape):
        expect_rank(self, input_shape, 3)
        steps = _out_length(input_shape[1], self.kernel_size, self.strides, self.padding,
                            self.dilation_rate)
        if steps == 0:
            raise ShapeMismatch(f"kernel_size {self.kernel_size} (dilation "
                                f"{self.dilation_rate}) is longer than the {input_shape[1]} "
                                f"steps of its input shape {input_shape}")
        return (input_shape[0], steps, self.filters)

    def build(self, input_shape):
        self.add_weight("kernel", (self.kernel_size, input_shape[-1], self.filters),
                        self.kernel_initializer)
        if self.use_bias:
            self.add_weight("bias", (self.filters,), self.bias_initializer)

    def forward(self, ctx, x):
        g, w = ctx.graph, ctx.weights
        shape = self.compute_output_shape(x.shape)
        y = g.op("conv1d", x, w["kernel"], self.padding, self.strides, self.dilation_rate,
                 shape=shape, hint="conv")
        if self.use_bias:
            y = g.op("__add", y, w["bias"], shape=shape)
        return activations.apply(self.activation, g, y)

    def layer_config(self):
        return {"filters": self.filters, "kernel_size": self.kernel_size,
                "strides": self.strides, "padding": self.padding,
                "dilation_rate": self.dilation_rate, "activation": self.activation,
                "use_bias": self.use_bias,
                "kernel_initializer": _init_name(self.kernel_initializer),
                "bias_initializer": _init_name(self.bias_initializer)}


class _Pooling1D(Layer):
    primitive = ""

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = "valid",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = type(self).__name__
        self.pool_size = _one_int(pool_size, "pool_size", where)
        self.strides = self.pool_size if strides is None else _one_int(strides, "strides",
                                                                       where)
        self.padding = _padding(padding, where)

    def compute_output_shape(self, input_shape):
        expect_rank(self, input_shape, 3)
        steps = _out_length(input_shape[1], self.pool_size, self.strides, self.padding)
        if steps == 0:
            raise ShapeMismatch(f"pool_size {self.pool_size} is longer than the "
                                f"{input_shape[1]} steps of its input shape {input_shape}")
        return (input_shape[0], steps, input_shape[2])

    def forward(self, ctx, x):
        g = ctx.graph
        shape = self.compute_output_shape(x.shape)
        wide = g.op("expand_dims", x, 2, shape=(x.shape[0], x.shape[1], 1, x.shape[2]))
        pooled = g.op(self.primitive, wide, [self.pool_size, 1], self.padding,
                      [self.strides, 1], shape=(shape[0], shape[1], 1, shape[2]), hint="pool")
        return g.op("squeeze", pooled, 2, shape=shape)

    def layer_config(self):
        return {"pool_size": self.pool_size, "strides": self.strides, "padding": self.padding}


class MaxPooling1D(_Pooling1D):
    """The maximum of each window of ``pool_size`` steps (stride ``strides``)."""

    primitive = "max_pool2d"


class AveragePooling1D(_Pooling1D):
    """The mean of each window of ``pool_size`` steps (with 'same' padding, of the real
    steps only, as Keras)."""

    primitive = "avg_pool2d"


class GlobalAveragePooling1D(Layer):
    """The mean over the steps: ``(batch, steps, channels)`` to ``(batch, channels)``;
    with a Keras mask, over the unmasked steps (Keras 3: a sample with every step masked
    gives 0 / 0)."""

    reduction = "mean"
    supports_masking = True
    mask_argument = True

    def compute_output_shape(self, input_shape):
        expect_rank(self, input_shape, 3)
        return (input_shape[0], input_shape[2])

    def forward(self, ctx, x):
        return ctx.graph.op(self.reduction, x, 1, shape=self.compute_output_shape(x.shape),
                            hint="global_pool")

    def mask_flags(self, masked, options):
        return False                 # (the steps are gone)

    def forward_masked(self, ctx, xs, masks, options):
        x, mask = xs[0], masks[0]
        if mask is None:
            return self.forward(ctx, x), None
        g = ctx.graph
        batch, steps, channels = x.shape
        kept = g.op("expand_dims", mask, 2, shape=(batch, steps, 1))
        zeroed = g.op("where", kept, x, 0.0, shape=x.shape)
        total = g.op("sum", zeroed, 1, shape=(batch, channels))
        count = g.op("sum", g.op("astype", kept, "float32", shape=kept.shape), 1,
                     shape=(batch, 1))
        return g.op("__div", total, count, shape=(batch, channels), hint="masked_pool"), None


class GlobalMaxPooling1D(GlobalAveragePooling1D):
    """The maximum over the steps (all of them: Keras 3's layer does not support masks,
    it drops one with a warning)."""

    reduction = "amax"
    supports_masking = False
    mask_argument = False

    def mask_flags(self, masked, options):
        return Layer.mask_flags(self, masked, options)

    def forward_masked(self, ctx, xs, masks, options):
        return self.forward(ctx, xs[0]), None
