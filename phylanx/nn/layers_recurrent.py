"""Recurrent layers: SimpleRNN and LSTM (Keras' weight layout and gate order i, f, c, o).

The number of steps is part of the input shape, so the recurrence is unrolled into the
step's program: one statement group per step, and a straight-line program differentiates
like any other.  The input projection ``x @ kernel + bias`` of all steps is a single
matrix product over ``(batch * steps, channels)`` before the loop.
"""
from __future__ import annotations

from typing import Any

from ..autodiff.symbolic import Var
from . import activations
from . import arguments as args
from .layers_core import Layer, ShapeMismatch, _init_name, expect_rank

_ALL = [None, None]          # the slice of a whole axis


class _Recurrent(Layer):
    gates = 1

    def __init__(self, units: int, activation: str | None = "tanh", use_bias: bool = True,
                 return_sequences: bool = False, kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = type(self).__name__
        self.units = args.integer(units, "units", where)
        self.activation = activations.check(activation)
        self.use_bias = args.boolean(use_bias, "use_bias", where)
        self.return_sequences = args.boolean(return_sequences, "return_sequences", where)
        self.kernel_initializer = kernel_initializer
        self.recurrent_initializer = recurrent_initializer
        self.bias_initializer = bias_initializer

    def compute_output_shape(self, input_shape):
        expect_rank(self, input_shape, 3)
        if input_shape[1] is None:
            raise ShapeMismatch(f"needs a known number of steps (it is unrolled), got shape "
                                f"{input_shape}")
        if self.return_sequences:
            return (input_shape[0], input_shape[1], self.units)
        return (input_shape[0], self.units)

    def build(self, input_shape):
        width = self.gates * self.units
        self.add_weight("kernel", (input_shape[-1], width), self.kernel_initializer)
        self.add_weight("recurrent_kernel", (self.units, width), self.recurrent_initializer)
        if self.use_bias:
            self.add_weight("bias", (width,), self.bias_initializer)

    def _projections(self, ctx, x: Var) -> list[Var]:
        """``x[:, t, :] @ kernel + bias`` for every step t."""
        g, w = ctx.graph, ctx.weights
        batch, steps, channels = x.shape
        width = self.gates * self.units
        flat = g.op("reshape", x, [-1, channels], shape=(None, channels))
        z = g.op("dot", flat, w["kernel"], shape=(None, width), hint="proj")
        if self.use_bias:
            z = g.op("__add", z, w["bias"], shape=(None, width))
        z = g.op("reshape", z, [-1, steps, width], shape=(batch, steps, width))
        return [g.op("slice", z, _ALL, t, _ALL, shape=(batch, width)) for t in range(steps)]

    def _outputs(self, ctx, hs: list[Var]) -> Var:
        if not self.return_sequences:
            return hs[-1]
        batch = hs[0].shape[0]
        # NumPy's stack: one step still gets its time axis (PhySL stack of one operand
        # stacks its rows, the original's rule)
        return ctx.graph.op("__npstack", hs, 1, shape=(batch, len(hs), self.units), hint="seq")

    def layer_config(self):
        return {"units": self.units, "activation": self.activation,
                "use_bias": self.use_bias, "return_sequences": self.return_sequences,
                "kernel_initializer": _init_name(self.kernel_initializer),
                "recurrent_initializer": _init_name(self.recurrent_initializer),
                "bias_initializer": _init_name(self.bias_initializer)}


class SimpleRNN(_Recurrent):
    """``h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias)``, h_0 = 0."""

    def forward(self, ctx, x):
        g, w = ctx.graph, ctx.weights
        hs: list[Var] = []
        for z in self._projections(ctx, x):
            if hs:
                z = g.op("__add", z, g.op("dot", hs[-1], w["recurrent_kernel"],
                                          shape=z.shape), shape=z.shape)
            hs.append(activations.apply(self.activation, g, z))
        return self._outputs(ctx, hs)


class LSTM(_Recurrent):
    """Long short-term memory (Keras' formulation, ``unit_forget_bias`` included):
    ``i, f, o = recurrent_activation(...)``, ``c_t = f c_{t-1} + i activation(...)``,
    ``h_t = o activation(c_t)``; h_0 = c_0 = 0."""

    gates = 4

    def __init__(self, units: int, recurrent_activation: str | None = "sigmoid",
                 unit_forget_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(units, **kwargs)
        self.recurrent_activation = activations.check(recurrent_activation)
        self.unit_forget_bias = args.boolean(unit_forget_bias, "unit_forget_bias", "LSTM")

    def build(self, input_shape):
        super().build(input_shape)
        if self.use_bias and self.unit_forget_bias:
            bias = self.weights[-1].value
            bias[self.units:2 * self.units] = 1.0

    def forward(self, ctx, x):
        g, w = ctx.graph, ctx.weights
        u = self.units
        hs: list[Var] = []
        c = None
        for z in self._projections(ctx, x):
            if hs:
                z = g.op("__add", z, g.op("dot", hs[-1], w["recurrent_kernel"],
                                          shape=z.shape), shape=z.shape)
            shape = (z.shape[0], u)
            parts = [g.op("slice", z, _ALL, [k * u, (k + 1) * u], shape=shape)
                     for k in range(4)]
            i, f, o = (activations.apply(self.recurrent_activation, g, parts[k])
                       for k in (0, 1, 3))
            candidate = activations.apply(self.activation, g, parts[2])
            fresh = g.op("__mul", i, candidate, shape=shape)
            c = fresh if c is None else g.op(
                "__add", g.op("__mul", f, c, shape=shape), fresh, shape=shape, hint="c")
            hs.append(g.op("__mul", o, activations.apply(self.activation, g, c),
                           shape=shape, hint="h"))
        return self._outputs(ctx, hs)

    def layer_config(self):
        return {**super().layer_config(), "recurrent_activation": self.recurrent_activation,
                "unit_forget_bias": self.unit_forget_bias}

