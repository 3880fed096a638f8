"""Keras' ``Bidirectional`` wrapper of a recurrent layer (SimpleRNN, LSTM, GRU).

As Keras 3: the wrapped layer is copied twice from its config, ``forward_<name>`` and
``backward_<name>`` (the second with ``go_backwards`` flipped), both read the same
input and mask, and the backward one's sequence is turned back to input order before
the two are merged (``merge_mode`` ``"concat"`` on the last axis, ``"sum"``, ``"mul"``,
``"ave"``, or ``None``: both outputs).  The weights are the forward layer's, then the
backward layer's (``get_weights`` in Keras' order); in a ``.weights.h5`` file they sit
under ``layers/bidirectional/forward_layer/cell/vars`` and ``backward_layer``.
``return_sequences`` keeps the input's mask (each output's, with ``merge_mode=None``), and
both halves get ``zero_output_for_mask=True`` then, as Keras 3 forces: a masked step's
output is zero.

``backward_layer`` (Keras' argument) replaces the backward copy by the user's layer,
kept with its own name; as Keras, it must read in the other direction and agree on
``stateful``, ``return_sequences`` and ``return_state`` (Keras' messages).  With
``return_state`` the outputs are the merged one(s), then the forward layer's states,
then the backward layer's.
"""
from __future__ import annotations

from typing import Any

from . import arguments as args
from .layers_core import Context, Layer, ShapeMismatch
from .layers_recurrent import GRU, LSTM, SimpleRNN

MERGE_MODES = ("concat", "sum", "mul", "ave", None)
_RECURRENT = (SimpleRNN, LSTM, GRU)


class Bidirectional(Layer):
    """``Bidirectional(layer, merge_mode="concat", backward_layer=None)`` around an RNN
    layer."""

    supports_masking = True
    mask_argument = True              # (Keras' call takes ``mask``)

    def __init__(self, layer: Any, merge_mode: str | None = "concat",
                 backward_layer: Any = None, **kwargs: Any) -> None:
        where = "Bidirectional"
        layer, backward_layer = _layer(layer), _layer(backward_layer)
        if not isinstance(layer, _RECURRENT):
            raise args.value_error(where, "Bidirectional wraps a recurrent layer (SimpleRNN, "
                                          f"LSTM, GRU), got {type(layer).__name__}")
        if backward_layer is not None and not isinstance(backward_layer, _RECURRENT):
            raise args.value_error(where, "backward_layer must be a recurrent layer "
                                          "(SimpleRNN, LSTM, GRU), got "
                                          f"{type(backward_layer).__name__}")
        if merge_mode not in MERGE_MODES:
            raise args.value_error(where, f"merge_mode must be one of {MERGE_MODES}, got "
                                          f"{merge_mode!r}")
        super().__init__(**kwargs)
        self.merge_mode = merge_mode
        # (Keras 3 forces zero_output_for_mask = return_sequences on both halves: a
        # masked step of a returned sequence is zero, whatever the wrapped layer says)
        config = {**layer.layer_config(), "zero_output_for_mask": layer.return_sequences}
        self.forward_layer = type(layer)(**{**config, "name": "forward_" + _unprefixed(
            layer.name, "forward_")})
        #: whether the backward layer is the user's (Keras' config then records it)
        self.custom_backward = backward_layer is not None
        if backward_layer is None:
            backward_layer = type(layer)(**{**config, "go_backwards": True,
                                            "name": "backward_" + _unprefixed(layer.name,
                                                                              "backward_")})
        else:      # (Keras keeps the user's instance and name, and forces it too)
            backward_layer.zero_output_for_mask = backward_layer.return_sequences
        self.backward_layer = backward_layer
        _verify_halves(self.forward_layer, backward_layer)
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state

    @property
    def keras_sublayers(self) -> dict[str, str]:
        """Where Keras' weights file keeps each half (see weights_io.layer_keys)."""
        return {self.forward_layer.name: "forward_layer/cell",
                self.backward_layer.name: "backward_layer/cell"}

    def compute_output_shape(self, input_shape):
        forward, states = _split(self.forward_layer.compute_output_shape(input_shape))
        backward, back_states = _split(self.backward_layer.compute_output_shape(input_shape))
        if tuple(forward) != tuple(backward):
            # (Keras takes the forward layer's shape for both, and fails when it runs)
            raise ShapeMismatch(f"the backward layer '{self.backward_layer.name}' outputs "
                                f"shape {backward}, the forward one {forward}: give both "
                                "the same units")
        if self.merge_mode is None:
            out = [forward, backward]
        elif self.merge_mode == "concat":
            out = [tuple(forward[:-1]) + (2 * forward[-1],)]
        else:
            out = [forward]
        out += states + back_states
        return out if len(out) > 1 else out[0]

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
        y, states = _split(self.forward_layer.forward(
            self._half(ctx, self.forward_layer), x, mask=mask))
        back, back_states = _split(self.backward_layer.forward(
            self._half(ctx, self.backward_layer), x, mask=mask))
        states += back_states          # (Keras: the forward layer's, then the backward's)
        if self.return_sequences:             # (back to input order, as Keras)
            back = g.op("flip", back, 1, shape=back.shape, hint="reversed")
        if self.merge_mode is None:
            return [y, back, *states]
        if self.merge_mode == "concat":
            out = g.op("concatenate", [y, back], len(y.shape) - 1,
                       shape=tuple(y.shape[:-1]) + (2 * y.shape[-1],),
                       hint="bidirectional")
        else:
            primitive = {"sum": "__add", "ave": "__add", "mul": "__mul"}[self.merge_mode]
            out = g.op(primitive, y, back, shape=y.shape, hint="bidirectional")
            if self.merge_mode == "ave":
                out = g.op("__mul", out, 0.5, shape=y.shape, hint="bidirectional")
        return [out, *states] if states else out

    def mask_flags(self, masked, options):
        flag = masked[0] and self.return_sequences
        merged = [flag, flag] if self.merge_mode is None else [flag]
        flags = merged + [False] * self._state_count()
        return flags if len(flags) > 1 else flag

    def forward_masked(self, ctx, xs, masks, options):
        out = self.forward(ctx, xs[0], mask=masks[0])
        mask = masks[0] if self.return_sequences else None
        if not isinstance(out, list):
            return out, mask
        merged = 2 if self.merge_mode is None else 1
        return out, [mask] * merged + [None] * (len(out) - merged)

    def _state_count(self) -> int:
        if not self.return_state:
            return 0
        return self.forward_layer.state_count + self.backward_layer.state_count

    def layer_config(self):
        layer = self.forward_layer
        config = {**layer.layer_config(), "name": layer.name[len("forward_"):]}
        found = {"layer": {"class_name": type(layer).__name__, "config": config},
                 "merge_mode": self.merge_mode}
        if self.custom_backward:
            back = self.backward_layer
            found["backward_layer"] = {"class_name": type(back).__name__,
                                       "config": {**back.layer_config(), "name": back.name}}
        return found


def _layer(layer: Any) -> Any:
    """A layer, or one from its saved config (``{"class_name", "config"}``)."""
    if isinstance(layer, dict):
        from . import layers as catalogue
        return getattr(catalogue, layer["class_name"])(**layer["config"])
    return layer


def _unprefixed(name: str, prefix: str) -> str:
    return name[len(prefix):] if name.startswith(prefix) else name


def _split(value: Any) -> tuple[Any, list]:
    """A recurrent layer's output and its states (``return_state``)."""
    return (value[0], list(value[1:])) if isinstance(value, list) else (value, [])


def _verify_halves(forward: Layer, backward: Layer) -> None:
    """Keras 3's ``_verify_layer_config``, with its messages."""
    where = "Bidirectional"
    if forward.go_backwards == backward.go_backwards:
        raise args.value_error(where, "Forward layer and backward layer should have "
                                      "different `go_backwards` value. Received: "
                                      f"forward_layer.go_backwards {forward.go_backwards}, "
                                      f"backward_layer.go_backwards={backward.go_backwards}")
    for attribute in ("stateful", "return_sequences", "return_state"):
        mine, theirs = getattr(forward, attribute), getattr(backward, attribute)
        if mine != theirs:
            raise args.value_error(where, "Forward layer and backward layer are expected to "
                                          f'have the same value for attribute "{attribute}", '
                                          f'got "{mine}" for forward layer and "{theirs}" '
                                          "for backward layer")
    if forward.name == backward.name:
        # (their weights are told apart by the layer's name)
        raise args.value_error(where, f"the backward layer is named {backward.name!r}, as "
                                      "the forward one: give it another name")
