"""Layers over images and of reshaping: Conv2D, MaxPooling2D, AveragePooling2D
(channels last: ``(batch, rows, cols, channels)``), Reshape and Permute.

Conv2D is the ``conv2d`` primitive (kernel ``(rows, cols, in_channels // groups,
filters)``, as Keras; with ``groups`` > 1 one ``conv2d`` per group of channels, their
outputs joined in group order, as Keras' grouped convolution), the poolings the
original's ``max_pool2d`` / ``avg_pool2d``; their gradients come from the VJP table.
``data_format="channels_first"`` is refused, not transposed silently.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import activations
from . import arguments as args
from .layers_conv import _out_length, _padding
from .layers_core import Layer, ShapeMismatch, _init_name, expect_rank

_ALL = [None, None]          # the slice of a whole axis


def _pair(value: Any, what: str, where: str) -> tuple[int, int]:
    """A positive integer (both axes) or a tuple/list of two (Keras' forms)."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise args.value_error(where, f"{what} must be an integer or 2 integers, got "
                                          f"{value!r}")
        return (args.integer(value[0], what, where), args.integer(value[1], what, where))
    value = args.integer(value, what, where)
    return (value, value)


def _channels_last(data_format: Any, where: str) -> str:
    if data_format not in (None, "channels_last"):
        raise args.value_error(where, f"data_format must be 'channels_last' (or None), got "
                                      f"{data_format!r}; transpose the inputs to channels last")
    return "channels_last"


def _out_image(layer: Layer, input_shape: tuple, window: tuple, strides: tuple,
               padding: str, dilation: tuple = (1, 1)) -> tuple:
    expect_rank(layer, input_shape, 4, " (batch, rows, cols, channels)")
    sizes = tuple(_out_length(input_shape[1 + i], window[i], strides[i], padding,
                              dilation[i]) for i in range(2))
    if 0 in sizes:
        raise ShapeMismatch(f"window {window} (dilation {dilation}) is larger than the image "
                            f"{input_shape[1:3]} of its input shape {input_shape}")
    return sizes


class Conv2D(Layer):
    """``activation(conv2d(x, kernel) + bias)``; kernel ``(rows, cols, channels // groups,
    filters)``: with ``groups`` > 1, filter ``f`` sees only the channels of its group
    ``f // (filters // groups)`` (Keras' grouped convolution)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: Any = None, dilation_rate: Any = (1, 1),
                 groups: int = 1, activation: str | None = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = "Conv2D"
        self.filters = args.integer(filters, "filters", where)
        self.kernel_size = _pair(kernel_size, "kernel_size", where)
        self.strides = _pair(strides, "strides", where)
        self.dilation_rate = _pair(dilation_rate, "dilation_rate", where)
        self.groups = args.integer(groups, "groups", where)
        if self.filters % self.groups:
            raise args.value_error(where, f"the number of filters must be evenly divisible by "
                                          f"the number of groups, got groups={self.groups}, "
                                          f"filters={self.filters}")
        if self.strides != (1, 1) and self.dilation_rate != (1, 1):
            raise args.value_error(where, "strides > 1 with dilation_rate > 1 is not "
                                          "supported (nor in Keras)")
        self.padding = _padding(padding, where)
        self.data_format = _channels_last(data_format, where)
        self.activation = activations.check(activation)
        self.use_bias = args.boolean(use_bias, "use_bias", where)
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer

    def compute_output_shape(self, input_shape):
        rows, cols = _out_image(self, input_shape, self.kernel_size, self.strides,
                                self.padding, self.dilation_rate)
        channels = input_shape[-1]
        if channels is None or channels % self.groups:
            raise ShapeMismatch(f"the number of input channels must be known and evenly "
                                f"divisible by the number of groups, got groups="
                                f"{self.groups} and {channels} channels (input shape "
                                f"{input_shape})")
        return (input_shape[0], rows, cols, self.filters)

    def build(self, input_shape):
        self.add_weight("kernel", (*self.kernel_size, input_shape[-1] // self.groups,
                                   self.filters), self.kernel_initializer)
        if self.use_bias:
            self.add_weight("bias", (self.filters,), self.bias_initializer)

    def forward(self, ctx, x):
        g, w = ctx.graph, ctx.weights
        shape = self.compute_output_shape(x.shape)
        if self.groups == 1:
            y = g.op("conv2d", x, w["kernel"], self.padding, list(self.strides),
                     list(self.dilation_rate), shape=shape, hint="conv2d")
        else:
            y = self._grouped(g, x, w["kernel"], shape)
        if self.use_bias:
            y = g.op("__add", y, w["bias"], shape=shape)
        return activations.apply(self.activation, g, y)

    def _grouped(self, g, x, kernel, shape):
        """One conv2d per group: channels ``[i c, (i + 1) c)`` of the input with filters
        ``[i f, (i + 1) f)`` of the kernel (c, f: channels and filters per group), joined
        on the channel axis.  4-d arrays are sliced on their last axis as 3-d views
        (``slice`` takes up to three axes)."""
        batch, rows, cols, channels = x.shape
        kh, kw, per_group, filters = kernel.shape
        width = filters // self.groups
        image = g.op("reshape", x, [-1, cols, channels], shape=(None, cols, channels))
        taps = g.op("reshape", kernel, [kh * kw * per_group, filters],
                    shape=(kh * kw * per_group, filters))
        outputs = []
        for i in range(self.groups):
            part = g.op("slice", image, _ALL, _ALL, [i * per_group, (i + 1) * per_group],
                        shape=(None, cols, per_group))
            part = g.op("reshape", part, [-1, rows, cols, per_group],
                        shape=(batch, rows, cols, per_group))
            weights = g.op("slice", taps, _ALL, [i * width, (i + 1) * width],
                           shape=(kh * kw * per_group, width))
            weights = g.op("reshape", weights, [kh, kw, per_group, width],
                           shape=(kh, kw, per_group, width))
            outputs.append(g.op("conv2d", part, weights, self.padding, list(self.strides),
                                list(self.dilation_rate), shape=shape[:3] + (width,),
                                hint="conv2d"))
        return g.op("concatenate", outputs, 3, shape=shape, hint="conv2d_groups")

    def layer_config(self):
        return {"filters": self.filters, "kernel_size": list(self.kernel_size),
                "strides": list(self.strides), "padding": self.padding,
                "dilation_rate": list(self.dilation_rate), "groups": self.groups,
                "activation": self.activation,
                "use_bias": self.use_bias,
                "kernel_initializer": _init_name(self.kernel_initializer),
                "bias_initializer": _init_name(self.bias_initializer)}


class _Pooling2D(Layer):
    primitive = ""

    def __init__(self, pool_size: Any = (2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = type(self).__name__
        self.pool_size = _pair(pool_size, "pool_size", where)
        self.strides = self.pool_size if strides is None else _pair(strides, "strides", where)
        self.padding = _padding(padding, where)
        self.data_format = _channels_last(data_format, where)

    def compute_output_shape(self, input_shape):
        rows, cols = _out_image(self, input_shape, self.pool_size, self.strides, self.padding)
        return (input_shape[0], rows, cols, input_shape[3])

    def forward(self, ctx, x):
        return ctx.graph.op(self.primitive, x, list(self.pool_size), self.padding,
                            list(self.strides), shape=self.compute_output_shape(x.shape),
                            hint="pool")

    def layer_config(self):
        return {"pool_size": list(self.pool_size), "strides": list(self.strides),
                "padding": self.padding}


class MaxPooling2D(_Pooling2D):
    """The maximum of each ``pool_size`` window (stride ``strides``, default the pool)."""

    primitive = "max_pool2d"


class AveragePooling2D(_Pooling2D):
    """The mean of each window (with 'same' padding, of the real pixels only, as Keras)."""

    primitive = "avg_pool2d"


class Reshape(Layer):
    """Each sample reshaped to ``target_shape`` (one entry may be -1)."""

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(target_shape, (list, tuple)) or not target_shape:
            raise args.type_error("Reshape", f"target_shape must be a tuple of integers, got "
                                             f"{target_shape!r}")
        dims = [args.integer(d, "target_shape", "Reshape", minimum=-1) for d in target_shape]
        if 0 in dims or dims.count(-1) > 1:
            raise args.value_error("Reshape", f"target_shape takes positive sizes and at "
                                              f"most one -1, got {tuple(target_shape)}")
        self.target_shape = tuple(dims)

    def compute_output_shape(self, input_shape):
        if any(d is None for d in input_shape[1:]):
            raise ShapeMismatch(f"needs every axis but the batch known, got {input_shape}")
        size = int(np.prod(input_shape[1:], dtype=np.int64))
        known = int(np.prod([d for d in self.target_shape if d != -1], dtype=np.int64))
        dims = list(self.target_shape)
        if -1 in dims:
            if size % known:
                raise ShapeMismatch(f"cannot reshape {input_shape[1:]} ({size} values) to "
                                    f"{self.target_shape}")
            dims[dims.index(-1)] = size // known
        elif known != size:
            raise ShapeMismatch(f"cannot reshape {input_shape[1:]} ({size} values) to "
                                f"{self.target_shape} ({known} values)")
        return (input_shape[0], *dims)

    def forward(self, ctx, x):
        shape = self.compute_output_shape(x.shape)
        return ctx.graph.op("reshape", x, [-1, *shape[1:]], shape=shape, hint="reshape")

    def layer_config(self):
        return {"target_shape": list(self.target_shape)}


class Permute(Layer):
    """The non-batch axes reordered: ``dims`` is a permutation of 1..rank-1 (Keras')."""

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(dims, (list, tuple)) or \
                sorted(args.integer(d, "dims", "Permute") for d in dims) != \
                list(range(1, len(dims) + 1)):
            raise args.value_error("Permute", f"dims must be a permutation of 1..{len(dims)} "
                                              f"(the axes after the batch), got {dims!r}")
        self.dims = tuple(int(d) for d in dims)

    def compute_output_shape(self, input_shape):
        if len(input_shape) != len(self.dims) + 1:
            raise ShapeMismatch(f"dims {self.dims} permute {len(self.dims)} axes; the input "
                                f"shape {input_shape} has {len(input_shape) - 1}")
        return (input_shape[0], *(input_shape[d] for d in self.dims))

    def forward(self, ctx, x):
        return ctx.graph.op("transpose", x, [0, *self.dims],
                            shape=self.compute_output_shape(x.shape), hint="permute")

    def layer_config(self):
        return {"dims": list(self.dims)}
