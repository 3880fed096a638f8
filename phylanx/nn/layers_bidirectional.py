"""Keras' ``Bidirectional`` wrapper of a recurrent layer (SimpleRNN, LSTM, GRU).

As Keras 3: the wrapped layer is copied twice from its config, ``forward_<name>`` and
``backward_<name>`` (the second with ``go_backwards`` flipped), both read the same
input and mask, and the backward one's sequence is turned back to input order before
the two are merged (``merge_mode`` ``"concat"`` on the last axis, ``"sum"``, ``"mul"``,
``"ave"``, or ``None``: both outputs).  The weights are the forward layer's, then the
backward layer's (``get_weights`` in Keras' order); in a ``.weights.h5`` file they sit
under ``layers/bidirectional/forward_layer/cell/vars`` and ``backward_layer``.
``return_sequences`` keeps the input's mask (each output's, with ``merge_mode=None``), and
both copies take ``zero_output_for_mask = return_sequences``, as Keras 3 forces.
"""
from __future__ import annotations

from typing import Any

from . import arguments as args
from .layers_core import Context, Layer
from .layers_recurrent import GRU, LSTM, SimpleRNN

MERGE_MODES = ("concat", "sum", "mul", "ave", None)
_RECURRENT = (SimpleRNN, LSTM, GRU)


class Bidirectional(Layer):
    """``Bidirectional(layer, merge_mode="concat")`` around an RNN layer."""

    supports_masking = True
    mask_argument = True              # (Keras' call takes ``mask``)

    def __init__(self, layer: Any, merge_mode: str | None = "concat", **kwargs: Any) -> None:
        where = "Bidirectional"
        if isinstance(layer, dict):          # (from a saved config)
            from . import layers as catalogue
            layer = getattr(catalogue, layer["class_name"])(**layer["config"])
        if not isinstance(layer, _RECURRENT):
            raise args.value_error(where, "Bidirectional wraps a recurrent layer (SimpleRNN, "
                                          f"LSTM, GRU), got {type(layer).__name__}")
        if layer.go_backwards:
            # (Keras 3 refuses it too: its two copies would both read backwards)
            raise args.value_error(where, "the wrapped layer must read forwards "
                                          "(go_backwards=False), as Keras 3 asks")
        if getattr(layer, "return_state", False):
            raise args.value_error(where, "a wrapped layer with return_state=True is not "
                                          "supported yet")
        if merge_mode not in MERGE_MODES:
            raise args.value_error(where, f"merge_mode must be one of {MERGE_MODES}, got "
                                          f"{merge_mode!r}")
        super().__init__(**kwargs)
        self.merge_mode = merge_mode
        config = layer.layer_config()
        self.forward_layer = type(layer)(**{**config, "name": "forward_" + layer.name})
        self.backward_layer = type(layer)(**{**config, "name": "backward_" + layer.name,
                                             "go_backwards": not layer.go_backwards})
        self.return_sequences = layer.return_sequences
        # As Keras 3 (force_zero_output_for_mask): a masked step's output is zeros in
        # both halves when sequences are returned, not the state carried through it
        for half in (self.forward_layer, self.backward_layer):
            half.zero_output_for_mask = layer.return_sequences

    @property
    def keras_sublayers(self) -> dict[str, str]:
        """Where Keras' weights file keeps each half (see weights_io.layer_keys)."""
        return {self.forward_layer.name: "forward_layer/cell",
                self.backward_layer.name: "backward_layer/cell"}

    def compute_output_shape(self, input_shape):
        one = self.forward_layer.compute_output_shape(input_shape)
        if self.merge_mode is None:
            return [one, one]
        if self.merge_mode == "concat":
            return tuple(one[:-1]) + (2 * one[-1],)
        return one

    def build(self, input_shape):
        for half in (self.forward_layer, self.backward_layer):
            half.build_for(input_shape)
            for weight in half.weights:         # (named under this layer, for the step)
                weight.name = f"{self.name}/{weight.name}"
                self.weights.append(weight)

    def _half(self, ctx: Context, half: Layer) -> Context:
        prefix = half.name + "/"
        own = {k[len(prefix):]: v for k, v in ctx.weights.items() if k.startswith(prefix)}
        return Context(ctx.graph, own, ctx.training, ctx.updates, ctx.shard, ctx.parallel)

    def forward(self, ctx, x, mask=None):
        g = ctx.graph
        y = self.forward_layer.forward(self._half(ctx, self.forward_layer), x, mask=mask)
        back = self.backward_layer.forward(self._half(ctx, self.backward_layer), x,
                                           mask=mask)
        if self.return_sequences:             # (back to input order, as Keras)
            back = g.op("flip", back, 1, shape=back.shape, hint="reversed")
        if self.merge_mode is None:
            return [y, back]
        if self.merge_mode == "concat":
            return g.op("concatenate", [y, back], len(y.shape) - 1,
                        shape=tuple(y.shape[:-1]) + (2 * y.shape[-1],), hint="bidirectional")
        primitive = {"sum": "__add", "ave": "__add", "mul": "__mul"}[self.merge_mode]
        out = g.op(primitive, y, back, shape=y.shape, hint="bidirectional")
        if self.merge_mode == "ave":
            out = g.op("__mul", out, 0.5, shape=y.shape, hint="bidirectional")
        return out

    def mask_flags(self, masked, options):
        flag = masked[0] and self.return_sequences
        return [flag, flag] if self.merge_mode is None else flag

    def forward_masked(self, ctx, xs, masks, options):
        out = self.forward(ctx, xs[0], mask=masks[0])
        mask = masks[0] if self.return_sequences else None
        return out, ([mask, mask] if isinstance(out, list) else mask)

    def layer_config(self):
        layer = self.forward_layer
        config = {**layer.layer_config(), "name": layer.name[len("forward_"):]}
        return {"layer": {"class_name": type(layer).__name__, "config": config},
                "merge_mode": self.merge_mode}

