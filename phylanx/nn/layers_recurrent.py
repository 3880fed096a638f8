"""Recurrent layers: SimpleRNN, LSTM and GRU (Keras' weight layouts and gate orders:
i, f, c, o for LSTM; z, r, h for GRU).

The number of steps is part of the input shape, so the recurrence is unrolled into the
step's program (``unroll`` is accepted and changes nothing): one statement group per
step, and a straight-line program differentiates like any other.  The input projection
``x @ kernel + bias`` of all steps is a single matrix product over
``(batch * steps, channels)`` before the loop.

With a Keras mask (``(batch, steps)``, from ``Embedding(mask_zero=True)`` or
``Masking``) a masked step keeps the previous state (``where(mask_t, new, old)``, as
Keras 3's loop), and its output is that state, or zeros with
``zero_output_for_mask=True``; the output sequence keeps the input's mask, the last
output none.  ``go_backwards=True`` reads the steps last to first and returns the
sequence in that order, as Keras.  ``return_state=True`` adds the last state(s) as
outputs, as Keras returns them: ``[output, h]``, LSTM's ``[output, h, c]``.

``dropout`` and ``recurrent_dropout`` (training only) follow Keras 3's cells: a mask
drawn once per batch, ``(batch, channels)`` for the inputs and ``(batch, units)`` for the
previous state, reused at every step; LSTM and GRU with ``recurrent_dropout`` use
Keras' ``implementation=1``, one mask per gate for each of the two.
"""
from __future__ import annotations

from typing import Any

from ..autodiff.symbolic import Var
from . import activations
from . import arguments as args
from .layers_core import Layer, ShapeMismatch, _init_name, dropout_mask, expect_rank

_ALL = [None, None]          # the slice of a whole axis


class _Recurrent(Layer):
    gates = 1
    supports_masking = True
    mask_argument = True
    #: the states ``return_state`` adds (LSTM: h and c)
    state_count = 1

    def __init__(self, units: int, activation: str | None = "tanh", use_bias: bool = True,
                 return_sequences: bool = False, kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 zero_output_for_mask: bool = False, go_backwards: bool = False,
                 return_state: bool = False, dropout: float = 0.0,
                 recurrent_dropout: float = 0.0, stateful: bool = False,
                 unroll: bool = False, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = type(self).__name__
        self.go_backwards = args.boolean(go_backwards, "go_backwards", where)
        self.units = args.integer(units, "units", where)
        self.activation = activations.check(activation)
        self.use_bias = args.boolean(use_bias, "use_bias", where)
        self.return_sequences = args.boolean(return_sequences, "return_sequences", where)
        self.return_state = args.boolean(return_state, "return_state", where)
        self.zero_output_for_mask = args.boolean(zero_output_for_mask,
                                                 "zero_output_for_mask", where)
        # (Keras clips a rate outside [0, 1] silently; a rate of 1 drops nothing there)
        self.dropout = args.real(dropout, "dropout", where, 0.0, 1.0, high_open=True)
        self.recurrent_dropout = args.real(recurrent_dropout, "recurrent_dropout", where,
                                           0.0, 1.0, high_open=True)
        self.stateful = args.boolean(stateful, "stateful", where)
        if self.stateful:
            raise args.value_error(where, "stateful=True is not supported yet (each batch "
                                          "starts from zero states)")
        self.unroll = args.boolean(unroll, "unroll", where)
        if seed is not None:
            # (it would be silently ignored: the masks come from the generator
            # nn.set_seed seeds, as Dropout's)
            raise args.value_error(where, f"seed={seed!r} is not supported yet; call "
                                          "nn.set_seed(n) for reproducible masks")
        self.seed = None
        self.kernel_initializer = kernel_initializer
        self.recurrent_initializer = recurrent_initializer
        self.bias_initializer = bias_initializer

    def compute_output_shape(self, input_shape):
        expect_rank(self, input_shape, 3)
        if input_shape[1] is None:
            raise ShapeMismatch(f"needs a known number of steps (it is unrolled), got shape "
                                f"{input_shape}")
        if self.return_sequences:
            out = (input_shape[0], input_shape[1], self.units)
        else:
            out = (input_shape[0], self.units)
        if self.return_state:
            return [out] + [(input_shape[0], self.units)] * self.state_count
        return out

    def build(self, input_shape):
        width = self.gates * self.units
        self.add_weight("kernel", (input_shape[-1], width), self.kernel_initializer)
        self.add_weight("recurrent_kernel", (self.units, width), self.recurrent_initializer)
        if self.use_bias:
            self.add_weight("bias", (width,), self.bias_initializer)

    # -- dropout (Keras 3's DropoutRNNCell) -------------------------------------------
    def _mask_count(self) -> int:
        """Masks per kind: one per gate with Keras' ``implementation=1``, which
        ``recurrent_dropout`` selects for LSTM and GRU."""
        return self.gates if self.recurrent_dropout else 1

    def _masks(self, ctx, like: Var, rate: float) -> list[Var] | None:
        if not ctx.training or rate == 0.0:
            return None
        return [dropout_mask(ctx, like, rate) for _ in range(self._mask_count())]

    def _project(self, ctx, x: Var, bias: Var | None) -> Var:
        """``x @ kernel + bias`` of every step, ``(batch, steps, gates * units)``, the
        inputs multiplied by their dropout mask(s) first (a gate's own, one per gate)."""
        g, w = ctx.graph, ctx.weights
        batch, steps, channels = x.shape
        width = self.gates * self.units
        masks = None
        if ctx.training and self.dropout:        # (masks shaped as one step's inputs)
            first = g.op("slice", x, _ALL, 0, _ALL, shape=(batch, channels))
            masks = self._masks(ctx, first, self.dropout)
        flat_shape = (None, channels)
        if masks is None:
            z = g.op("dot", g.op("reshape", x, [-1, channels], shape=flat_shape),
                     w["kernel"], shape=(None, width), hint="proj")
        else:
            parts = []
            for k, mask in enumerate(masks):
                each = g.op("expand_dims", mask, 1, shape=(batch, 1, channels))
                dropped = g.op("__mul", x, each, shape=x.shape, hint="dropped_input")
                flat = g.op("reshape", dropped, [-1, channels], shape=flat_shape)
                kernel = w["kernel"] if len(masks) == 1 else self._columns(
                    g, w["kernel"], [k])
                parts.append(g.op("dot", flat, kernel, shape=(None, kernel.shape[1]),
                                  hint="proj"))
            z = parts[0] if len(parts) == 1 else \
                g.op("concatenate", parts, 1, shape=(None, width))
        if bias is not None:
            z = g.op("__add", z, bias, shape=(None, width))
        return g.op("reshape", z, [-1, steps, width], shape=(batch, steps, width))

    def _columns(self, g, matrix: Var, gates: list[int]) -> Var:
        """The columns of ``gates`` (consecutive) of a kernel."""
        u = self.units
        if len(gates) == self.gates:
            return matrix
        lo, hi = gates[0] * u, (gates[-1] + 1) * u
        return g.op("slice", matrix, _ALL, [lo, hi], shape=(matrix.shape[0], hi - lo))

    def _state_product(self, g, h: Var, kernel: Var, masks: list[Var] | None,
                       gates: list[int]) -> Var:
        """``h @ kernel[:, gates]``, ``h`` times its recurrent dropout mask (each gate's
        own mask, with one per gate) first."""
        shape = (h.shape[0], len(gates) * self.units)
        if masks is None or len(masks) == 1:
            if masks is not None:
                h = g.op("__mul", h, masks[0], shape=h.shape, hint="dropped_state")
            return g.op("dot", h, self._columns(g, kernel, gates), shape=shape)
        parts = [g.op("dot", g.op("__mul", h, masks[k], shape=h.shape, hint="dropped_state"),
                      self._columns(g, kernel, [k]), shape=(h.shape[0], self.units))
                 for k in gates]
        return parts[0] if len(parts) == 1 else \
            g.op("concatenate", parts, 1, shape=shape)

    def _steps(self, ctx, x: Var, bias: Var | None) -> tuple[list[Var], list | None]:
        """Each step's input projection, and the recurrent dropout masks (None: none)."""
        g = ctx.graph
        z = self._project(ctx, x, bias)
        batch, steps, width = z.shape
        projections = [g.op("slice", z, _ALL, t, _ALL, shape=(batch, width))
                       for t in range(steps)]
        if not (ctx.training and self.recurrent_dropout):
            return projections, None
        like = g.op("slice", projections[0], _ALL, [0, self.units],
                    shape=(batch, self.units))          # (shaped as the state)
        return projections, self._masks(ctx, like, self.recurrent_dropout)

    def _order(self, steps: int) -> range:
        """The steps in the order read: last to first with ``go_backwards`` (whose
        output sequence is in that order, as Keras')."""
        return range(steps - 1, -1, -1) if self.go_backwards else range(steps)

    # -- masks --------------------------------------------------------------------
    def mask_flags(self, masked, options):
        flag = masked[0] and self.return_sequences
        return [flag] + [False] * self.state_count if self.return_state else flag

    def forward_masked(self, ctx, xs, masks, options):
        mask = masks[0]
        out = self.forward(ctx, xs[0], mask=mask)
        # (Keras: the input's mask, in input order even with go_backwards)
        sequence_mask = mask if self.return_sequences else None
        if isinstance(out, list):
            return out, [sequence_mask] + [None] * (len(out) - 1)
        return out, sequence_mask

    @staticmethod
    def _step_mask(g, mask: Var | None, t: int, batch: Any) -> Var | None:
        """Step ``t``'s column of the mask, ``(batch, 1)`` (None: no mask)."""
        if mask is None:
            return None
        return g.op("slice", mask, _ALL, [t, t + 1], shape=(batch, 1), hint="step_mask")

    @staticmethod
    def _kept(g, keep: Var | None, new: Var, old: Var | None) -> Var:
        """The state after a step: ``new`` where the step is kept, else ``old`` (zeros
        before the first step)."""
        if keep is None:
            return new
        return g.op("where", keep, new, 0.0 if old is None else old, shape=new.shape,
                    hint="masked_state")

    def _step_output(self, g, keep: Var | None, new: Var, state: Var) -> Var:
        if keep is not None and self.zero_output_for_mask:
            return g.op("where", keep, new, 0.0, shape=new.shape, hint="masked_out")
        return state

    def _outputs(self, ctx, hs: list[Var], states: list[Var]) -> Any:
        """The output (the sequence or its last step), then the states with
        ``return_state``."""
        if not self.return_sequences:
            out = hs[-1]
        else:
            batch = hs[0].shape[0]
            # NumPy's stack: one step still gets its time axis (PhySL stack of one
            # operand stacks its rows, the original's rule)
            out = ctx.graph.op("__npstack", hs, 1, shape=(batch, len(hs), self.units),
                               hint="seq")
        return [out, *states] if self.return_state else out

    def layer_config(self):
        return {"units": self.units, "activation": self.activation,
                "use_bias": self.use_bias, "return_sequences": self.return_sequences,
                "return_state": self.return_state,
                "zero_output_for_mask": self.zero_output_for_mask,
                "go_backwards": self.go_backwards, "dropout": self.dropout,
                "recurrent_dropout": self.recurrent_dropout, "stateful": self.stateful,
                "unroll": self.unroll, "seed": self.seed,
                "kernel_initializer": _init_name(self.kernel_initializer),
                "recurrent_initializer": _init_name(self.recurrent_initializer),
                "bias_initializer": _init_name(self.bias_initializer)}


class SimpleRNN(_Recurrent):
    """``h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias)``, h_0 = 0."""

    def forward(self, ctx, x, mask=None):
        g, w = ctx.graph, ctx.weights
        outs: list[Var] = []
        h = None
        projections, state_masks = self._steps(ctx, x, w.get("bias"))
        for t in self._order(len(projections)):
            z = projections[t]
            if h is not None:
                z = g.op("__add", z, self._state_product(g, h, w["recurrent_kernel"],
                                                         state_masks, [0]), shape=z.shape)
            new = activations.apply(self.activation, g, z)
            keep = self._step_mask(g, mask, t, x.shape[0])
            h = self._kept(g, keep, new, h)
            outs.append(self._step_output(g, keep, new, h))
        return self._outputs(ctx, outs, [h])


class LSTM(_Recurrent):
    """Long short-term memory (Keras' formulation, ``unit_forget_bias`` included):
    ``i, f, o = recurrent_activation(...)``, ``c_t = f c_{t-1} + i activation(...)``,
    ``h_t = o activation(c_t)``; h_0 = c_0 = 0."""

    gates = 4
    state_count = 2

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

    def forward(self, ctx, x, mask=None):
        g, w = ctx.graph, ctx.weights
        u = self.units
        outs: list[Var] = []
        h = c = None
        projections, state_masks = self._steps(ctx, x, w.get("bias"))
        for t in self._order(len(projections)):
            z = projections[t]
            if h is not None:
                z = g.op("__add", z, self._state_product(g, h, w["recurrent_kernel"],
                                                         state_masks, [0, 1, 2, 3]),
                         shape=z.shape)
            shape = (z.shape[0], u)
            parts = [g.op("slice", z, _ALL, [k * u, (k + 1) * u], shape=shape)
                     for k in range(4)]
            i, f, o = (activations.apply(self.recurrent_activation, g, parts[k])
                       for k in (0, 1, 3))
            candidate = activations.apply(self.activation, g, parts[2])
            fresh = g.op("__mul", i, candidate, shape=shape)
            new_c = fresh if c is None else g.op(
                "__add", g.op("__mul", f, c, shape=shape), fresh, shape=shape, hint="c")
            new_h = g.op("__mul", o, activations.apply(self.activation, g, new_c),
                         shape=shape, hint="h")
            keep = self._step_mask(g, mask, t, x.shape[0])
            c = self._kept(g, keep, new_c, c)
            h = self._kept(g, keep, new_h, h)
            outs.append(self._step_output(g, keep, new_h, h))
        return self._outputs(ctx, outs, [h, c])

    def layer_config(self):
        return {**super().layer_config(), "recurrent_activation": self.recurrent_activation,
                "unit_forget_bias": self.unit_forget_bias}


class GRU(_Recurrent):
    """Gated recurrent unit, Keras 3's formulation (gates z, r, h)::

        z = recurrent_activation(x_z + h @ U_z + b_z)     (r likewise)
        h' = activation(x_h + r * (h @ U_h + b_h))        (reset_after=True, the default)
        h' = activation(x_h + (r * h) @ U_h)              (reset_after=False)
        h = z * h + (1 - z) * h'

    With ``reset_after`` the bias is ``(2, 3 * units)``: the input bias, then the
    recurrent one."""

    gates = 3

    def __init__(self, units: int, recurrent_activation: str | None = "sigmoid",
                 reset_after: bool = True, **kwargs: Any) -> None:
        super().__init__(units, **kwargs)
        self.recurrent_activation = activations.check(recurrent_activation)
        self.reset_after = args.boolean(reset_after, "reset_after", "GRU")

    def build(self, input_shape):
        width = 3 * self.units
        self.add_weight("kernel", (input_shape[-1], width), self.kernel_initializer)
        self.add_weight("recurrent_kernel", (self.units, width), self.recurrent_initializer)
        if self.use_bias:
            self.add_weight("bias", (2, width) if self.reset_after else (width,),
                            self.bias_initializer)

    def forward(self, ctx, x, mask=None):
        g, w = ctx.graph, ctx.weights
        u, width = self.units, 3 * self.units
        batch = x.shape[0]
        input_bias = recurrent_bias = None
        if self.use_bias and self.reset_after:
            input_bias = g.op("slice", w["bias"], 0, _ALL, shape=(width,))
            recurrent_bias = g.op("slice", w["bias"], 1, _ALL, shape=(width,))
        elif self.use_bias:
            input_bias = w["bias"]
        projections, state_masks = self._steps(ctx, x, input_bias)
        kernel = w["recurrent_kernel"]
        shape = (batch, u)

        def part(value, k):          # gate k's columns (of a bias vector too)
            if len(value.shape) == 1:
                return g.op("slice", value, [k * u, (k + 1) * u], shape=(u,))
            return g.op("slice", value, _ALL, [k * u, (k + 1) * u], shape=shape)

        outs: list[Var] = []
        h = None
        for t in self._order(len(projections)):
            xt = projections[t]
            if h is not None and self.reset_after:
                inner = self._state_product(g, h, kernel, state_masks, [0, 1, 2])
                if recurrent_bias is not None:
                    inner = g.op("__add", inner, recurrent_bias, shape=(batch, width))
            elif h is not None:
                inner = self._state_product(g, h, kernel, state_masks, [0, 1])
            else:          # h_0 = 0: only the recurrent bias (reset_after) remains
                inner = recurrent_bias
            gates = []
            for k in (0, 1):
                pre = part(xt, k) if inner is None else \
                    g.op("__add", part(xt, k), part(inner, k), shape=shape)
                gates.append(activations.apply(self.recurrent_activation, g, pre))
            z, r = gates
            if inner is None:
                recurrent_h = None
            elif self.reset_after:
                recurrent_h = g.op("__mul", r, part(inner, 2), shape=shape)
            else:          # (Keras: r times the state after its own gate's dropout mask)
                dropped = h if state_masks is None else \
                    g.op("__mul", h, state_masks[2], shape=shape, hint="dropped_state")
                recurrent_h = self._state_product(
                    g, g.op("__mul", r, dropped, shape=shape), kernel, None, [2])
            pre = part(xt, 2) if recurrent_h is None else \
                g.op("__add", part(xt, 2), recurrent_h, shape=shape)
            candidate = activations.apply(self.activation, g, pre)
            fresh = g.op("__mul", g.op("__sub", 1.0, z, shape=shape), candidate, shape=shape)
            new = fresh if h is None else g.op(
                "__add", g.op("__mul", z, h, shape=shape), fresh, shape=shape, hint="h")
            keep = self._step_mask(g, mask, t, batch)
            h = self._kept(g, keep, new, h)
            outs.append(self._step_output(g, keep, new, h))
        return self._outputs(ctx, outs, [h])

    def layer_config(self):
        return {**super().layer_config(), "recurrent_activation": self.recurrent_activation,
                "reset_after": self.reset_after}
