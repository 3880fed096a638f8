"""Models: the functional ``Model(inputs, outputs)`` over ``Input`` tensors, and
``Sequential``; their structure, weights, summary and config.

Calling a layer on symbolic :class:`Tensor` s builds it for their shapes and returns
the output tensor (or tensors: ``GRU(return_state=True)``,
``MultiHeadAttention(..., return_attention_scores=True)``); a shape the layer cannot
take is an error naming both layers and the shape.  A functional model is the graph of
those calls (:class:`Call`), from one input to one output: a layer may take several
tensors (``Add()([x, h])``, ``MultiHeadAttention()(query, value)``), so residual
connections are branches of the graph, emitted in topological order.  A model may have
several outputs (``Model(x, [a, b])``, named by the layers computing them, as Keras
names them): one loss each (:mod:`.training`).  Training, evaluation and prediction
live in :mod:`.training`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..autodiff.symbolic import Var
from ..errors import PhylanxValueError
from ..source import user_line
from . import arguments as args
from . import mask_flow
from .layers_core import Layer, ShapeMismatch, _auto_name
from .training import TrainingMixin


@dataclass(eq=False)
class Tensor:
    """A symbolic tensor: its shape (batch axis None), the layer that produced it (None
    for an ``Input``) and that layer's (first) input tensor; ``call`` is the whole call
    (all its inputs and options), ``index`` which of the call's outputs this is (None:
    its only one)."""

    shape: tuple
    layer: Layer | None = None
    inbound: Tensor | None = None
    name: str = ""
    dtype: str = "float32"
    call: Call | None = None
    index: int | None = None
    #: whether a Keras mask comes with it (Embedding(mask_zero=True), Masking ...)
    masked: bool = False

    def source(self) -> str:
        if self.layer is None:
            return f"input '{self.name}'"
        return f"layer '{self.layer.name}' ({type(self.layer).__name__})"


def Input(shape: Any, dtype: str = "float32", name: str | None = None) -> Tensor:  # noqa: N802
    """A model input of ``shape`` (without the batch axis)."""
    dims = args.shape(shape, "shape", "Input")
    return Tensor((None,) + dims, None, None,
                  args.name(name, "Input") or _auto_name("InputLayer"), dtype)


@dataclass(eq=False)
class Call:
    """One call of a layer in a functional model: its input tensors and keyword
    options (``use_causal_mask`` ...), passed to the layer's ``forward``."""

    layer: Layer
    inputs: tuple
    options: dict


def call_layer(layer: Layer, tensors: Any, options: dict | None = None) -> Any:
    """The output tensor(s) of ``layer`` called on ``tensors`` (one, or a list)."""
    tensors = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
    for tensor in tensors:
        if not isinstance(tensor, Tensor):
            raise PhylanxValueError(f"layer '{layer.name}' was called on a "
                                    f"{type(tensor).__name__}; call layers on Input() "
                                    "tensors (or use model.predict for data)")
    options = dict(options or {})
    try:
        out = layer.build_call([t.shape for t in tensors], options)
    except ShapeMismatch as e:
        sources = " and ".join(t.source() for t in tensors)
        shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
        # located at the user's call of the layer (the model is built there)
        raise PhylanxValueError(f"layer '{layer.name}' ({type(layer).__name__}) cannot take "
                                f"the output of {sources}, of shape {shapes}: "
                                f"{e.message if hasattr(e, 'message') else e}",
                                user_line()) from None
    try:
        masked = layer.mask_flags([t.masked for t in tensors], options)
    except ShapeMismatch as e:
        raise PhylanxValueError(f"layer '{layer.name}' ({type(layer).__name__}) cannot take "
                                f"the mask of its input: "
                                f"{e.message if hasattr(e, 'message') else e}",
                                user_line()) from None
    call = Call(layer, tuple(tensors), options)
    first = tensors[0]
    if isinstance(out, list):       # several outputs, each a tensor of its own
        flags = masked if isinstance(masked, list) else [masked] + [False] * (len(out) - 1)
        return [Tensor(tuple(shape), layer, first, layer.name, first.dtype, call, i, flag)
                for i, (shape, flag) in enumerate(zip(out, flags))]
    return Tensor(tuple(out), layer, first, layer.name, first.dtype, call, None, bool(masked))


def _calls(inputs: Tensor, outputs: list[Tensor]) -> list[Call]:
    """The calls computing ``outputs`` from ``inputs``, each after those it reads."""
    order: list[Call] = []
    done: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(t, False) for t in reversed(outputs)]
    while stack:             # (iterative: a deep model must not hit the recursion limit)
        tensor, expanded = stack.pop()
        if tensor is inputs:
            continue
        call = tensor.call
        if call is None:
            raise PhylanxValueError("the model's outputs are not computed from its inputs"
                                    + ("" if tensor.layer is not None else
                                       f" alone (they read {tensor.source()})"))
        if id(call) in done:
            continue
        if expanded:
            done.add(id(call))
            order.append(call)
            continue
        stack.append((tensor, True))
        stack.extend((t, False) for t in reversed(call.inputs))
    return order


class Model(TrainingMixin):
    """A model from an input tensor to one output tensor or a list of them (Keras'
    functional API)."""

    def __init__(self, inputs: Any = None, outputs: Any = None, name: str | None = None):
        self.name = name or _auto_name(type(self).__name__)
        self._calls: list[Call] = []
        self.input: Tensor | None = None
        #: the output tensors (one for a model of one output)
        self.outputs: list[Tensor] = []
        if inputs is not None or outputs is not None:
            self._set_graph(_single(inputs, "inputs"), _outputs(outputs))
        super().__init__()

    @property
    def output(self) -> Any:
        """The output tensor; a list of them for a model of several (as Keras)."""
        if len(self.outputs) > 1:
            return list(self.outputs)
        return self.outputs[0] if self.outputs else None

    @output.setter
    def output(self, tensor: Tensor | None) -> None:
        self.outputs = [] if tensor is None else [tensor]

    @property
    def output_names(self) -> list[str]:
        """Each output's name as Keras gives it: the name of the layer computing it."""
        return [t.layer.name if t.layer is not None else t.name for t in self.outputs]

    def _set_graph(self, inputs: Tensor, outputs: list[Tensor]) -> None:
        self._calls = _calls(inputs, outputs)
        self.input, self.outputs = inputs, list(outputs)

    @property
    def _chain(self) -> list[Layer]:
        """The layers in call order (a layer called twice, twice)."""
        return [call.layer for call in self._calls]

    @property
    def is_chain(self) -> bool:
        """Whether each layer takes the previous one's only output (no branches, no
        call options, one output each): what saving and model-parallel training take."""
        if len(self.outputs) != 1:
            return False
        previous = self.input
        for call in self._calls:
            if len(call.inputs) != 1 or call.inputs[0] is not previous or call.options \
                    or previous.index is not None:
                return False
            previous = _only_output(call, self._calls, self.output)
            if previous is None:
                return False
        return previous is self.output

    # -- structure ---------------------------------------------------------------
    @property
    def layers(self) -> list[Layer]:
        """The layers in Keras 3's order (``keras.src.ops.function.map_graph``), so that
        ``get_weights``/``set_weights`` lists match Keras': by depth (the longest path
        from a call to the output; a shared layer its deepest call's), deepest first,
        ties in the order a depth-first walk from the output first meets them; the ops
        computing a recorded mask deepen the layers they read, as in Keras' graph
        (:func:`.mask_flow.deepen_by_masks`)."""
        depth: dict[int, int] = {}
        layer_depth: dict[int, int] = {}
        cache: dict = {}
        for call in reversed(self._calls):       # from the output back (topological)
            d = max(depth.get(id(call), 0), layer_depth.get(id(call.layer), 0))
            layer_depth[id(call.layer)] = depth[id(call)] = d
            for t in call.inputs:
                if t.call is not None and t is not self.input:
                    depth[id(t.call)] = max(depth.get(id(t.call), 0), d + 1)
            mask_flow.deepen_by_masks(call, d, depth, self.input, cache)
        met: dict[int, int] = {}                 # a layer's first visit, preorder
        seen_calls: set[int] = set()
        stack = list(reversed(self.outputs))
        while stack:
            tensor = stack.pop()
            call = tensor.call
            if tensor is self.input or call is None or id(call) in seen_calls:
                continue
            seen_calls.add(id(call))
            met.setdefault(id(call.layer), len(met))
            stack.extend(reversed(call.inputs))
        seen: list[Layer] = []
        for layer in self._chain:
            if layer not in seen:
                seen.append(layer)
        return sorted(seen, key=lambda layer: (-layer_depth.get(id(layer), 0),
                                               met.get(id(layer), 0)))

    @property
    def built(self) -> bool:
        return self.input is not None

    @property
    def input_shape(self) -> tuple:
        self._require_built()
        return self.input.shape

    @property
    def output_shape(self) -> Any:
        """The output's shape; a list of shapes for a model of several outputs."""
        self._require_built()
        shapes = [t.shape for t in self.outputs]
        return shapes if len(shapes) > 1 else shapes[0]

    @property
    def output_shapes(self) -> list[tuple]:
        """Each output's shape."""
        self._require_built()
        return [t.shape for t in self.outputs]

    def _require_built(self) -> None:
        if not self.built:
            raise PhylanxValueError(f"model '{self.name}' is not built yet: give the first "
                                    "layer an input_shape, start with Input(...), or fit it")

    def emit(self, ctx_for, x: Var, on_output=None) -> Var:
        """Write the forward pass into a program; ``ctx_for(layer)`` gives each layer's
        :class:`Context`; ``on_output(layer, value)``, if given, sees each layer call's
        output (activity regularizers)."""
        return self.emit_masked(ctx_for, x, on_output)[0]

    def emit_masked(self, ctx_for, x: Var, on_output=None) -> tuple[Var, Var | None]:
        """:meth:`emit`, and the output's Keras mask (a boolean Var, or None), of a
        model of one output (see :meth:`emit_outputs`)."""
        outs, masks = self.emit_outputs(ctx_for, x, on_output)
        if len(outs) != 1:
            raise PhylanxValueError(f"model '{self.name}' has {len(outs)} outputs")
        return outs[0], masks[0]

    def emit_outputs(self, ctx_for, x: Var, on_output=None) -> tuple[list, list]:
        """Write the forward pass; each output's Var and Keras mask (None: none).  Two mask
        flows, as Keras 3's (:mod:`.mask_flow`): the one of the model's construction,
        which Keras records in the graph for the layers whose ``call`` takes a mask
        argument, and the one of the arrays at run time (the calls in Keras' order),
        from which MultiHeadAttention takes its inputs' masks off."""
        values: dict[int, Any] = {id(self.input): x}
        recorded: dict[int, Any] = {id(self.input): None}
        arrays = mask_flow.ArrayMasks()
        for call in mask_flow.run_order(self._calls, self.input):
            layer, ctx = call.layer, ctx_for(call.layer)
            ins = [_value(values, t) for t in call.inputs]
            graph_masks = [_value(recorded, t) for t in call.inputs]
            in_masks = mask_flow.call_masks(layer, graph_masks, [arrays.of(v) for v in ins])
            out, mask = layer.forward_masked(ctx, ins, in_masks, dict(call.options))
            outs = out if isinstance(out, list) else [out]
            out_masks = mask if isinstance(mask, list) else \
                [mask] + [None] * (len(outs) - 1)
            for i in layer.mask_clearing_inputs(call.options):
                arrays.clear(ins[i])          # (during the call, as Keras)
            for value, value_mask in zip(outs, out_masks, strict=True):
                arrays.produced(value, value_mask)
            if not all(a is b for a, b in zip(graph_masks, in_masks)):
                # (the flows differ here: the recorded one goes on from its own masks)
                mask = layer.graph_mask(ctx.graph, ins, graph_masks, call.options, mask)
            if isinstance(out, list) and not isinstance(mask, list):
                mask = [mask] + [None] * (len(out) - 1)
            values[id(call)], recorded[id(call)] = out, mask
            if on_output is not None:
                on_output(layer, out)
        outs = [_value(values, t) for t in self.outputs]
        return outs, [arrays.of(out) for out in outs]

    @property
    def masked(self) -> bool:
        """Whether a Keras mask reaches some layer call or the output (what the
        model-parallel split does not take yet)."""
        return bool(self.input.masked) or any(
            t.masked for call in self._calls for t in call.inputs) or any(
            t.masked for t in self.outputs)

    def index_readers(self) -> list[Layer]:
        """The layers that read the model's input as row indices (Embedding)."""
        return [call.layer for call in self._calls if call.layer.index_count is not None
                and any(t is self.input for t in call.inputs)]

    @property
    def weights(self):
        return [w for layer in self.layers for w in layer.weights]

    @property
    def trainable_weights(self):
        return [w for layer in self.layers for w in layer.trainable_weights]

    @property
    def non_trainable_weights(self):
        trainable = set(map(id, self.trainable_weights))
        return [w for w in self.weights if id(w) not in trainable]

    def count_params(self) -> int:
        return sum(layer.count_params() for layer in self.layers)

    def get_weights(self) -> list[np.ndarray]:
        return [w.value.copy() for w in self.weights]

    def set_weights(self, values: list) -> None:
        weights = self.weights
        if len(values) != len(weights):
            raise PhylanxValueError(f"model '{self.name}' has {len(weights)} weight arrays, "
                                    f"got {len(values)}", user_line())
        for w, v in zip(weights, values):
            v = np.asarray(v)
            if v.dtype.kind not in "biuf":     # (complex would lose its imaginary part)
                raise PhylanxValueError(f"weight {w.name} must be real numbers, got dtype "
                                        f"{v.dtype}", user_line())
            if v.shape != w.value.shape:
                raise PhylanxValueError(f"weight {w.name} has shape {w.value.shape}, got "
                                        f"{v.shape}", user_line())
            w.value = v.astype(np.float32)

    def get_layer(self, name: str) -> Layer:
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise PhylanxValueError(f"no layer named {name!r} in model '{self.name}'")

    def summary(self, print_fn=print) -> None:
        """Keras' table of layers, output shapes and parameter counts, its columns as
        wide as their longest entry (a long layer name is shown whole, not cut), and the
        totals with their size in bytes as Keras 3 prints them."""
        self._require_built()
        rows = [(f"{layer.name} ({type(layer).__name__})", str(layer.output_shape),
                 f"{layer.count_params():,}") for layer in self._chain]
        head = ("Layer (type)", "Output Shape", "Param #")
        widths = [max(len(head[i]), *(len(r[i]) for r in rows)) if rows else len(head[i])
                  for i in range(3)]
        widths[0], widths[1] = max(widths[0] + 4, 28), max(widths[1] + 4, 26)
        widths[2] = max(widths[2], 10)

        def line(cells):
            return f" {cells[0]:<{widths[0]}}{cells[1]:<{widths[1]}}{cells[2]:>{widths[2]}}"

        rule = 1 + sum(widths) + 1
        print_fn(f'Model: "{self.name}"')
        print_fn("_" * rule)
        print_fn(line(head))
        print_fn("=" * rule)
        for i, row in enumerate(rows):
            print_fn(line(row))
            print_fn("=" * rule if i == len(rows) - 1 else "")
        trainable = sum(w.value.size for w in self.trainable_weights)
        total = self.count_params()
        for label, count in (("Total", total), ("Trainable", trainable),
                             ("Non-trainable", total - trainable)):
            print_fn(f"{label} params: {count:,} ({_bytes(4 * count)})")
        print_fn("_" * rule)

    def get_config(self) -> dict:
        self._require_built()
        if not self.is_chain:
            # (the config lists layers in order: a graph with branches would come back
            # as a chain, silently another model)
            raise PhylanxValueError(f"model '{self.name}' has branches (a layer taking "
                                    "several tensors or call options): its config, hence "
                                    "saving it, is not supported yet; save its weights "
                                    "with get_weights()")
        return {"name": self.name, "input_shape": list(self.input.shape),
                "input_dtype": self.input.dtype,
                "layers": [{"class_name": type(layer).__name__, "config": layer.get_config()}
                           for layer in self._chain]}

    def save(self, path: str) -> None:
        from .saving import save_model
        save_model(self, path)

    def save_weights(self, filepath: Any, overwrite: bool = True) -> None:
        """The weights alone, as Keras 3's ``.weights.h5`` or an ``.npz``
        (:mod:`.weights_io`)."""
        from .weights_io import save_weights
        save_weights(self, filepath, overwrite)

    def load_weights(self, filepath: Any) -> None:
        """Weights saved by ``save_weights`` (here or by Keras 3), checked whole first."""
        from .weights_io import load_weights
        load_weights(self, filepath)


def _bytes(size: float) -> str:
    """Keras 3's size text: 92.00 B, 1.50 KB (powers of 1024; the weights are float32)."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _value(values: dict, tensor: Tensor) -> Any:
    """The program value of ``tensor`` (one output of its call's, or the input: which
    may be a tensor computed by a call, for a part of a model as a model of its own,
    ``model_parallel_graph``)."""
    if tensor.call is None or id(tensor) in values:
        return values[id(tensor)]
    out = values[id(tensor.call)]
    return out if tensor.index is None else out[tensor.index]


def _only_output(call: Call, calls: list[Call], output: Tensor) -> Tensor | None:
    """The one tensor of ``call`` that later calls or the model output read (None if
    they read several, or none)."""
    later = calls[calls.index(call) + 1:]
    read = {id(t): t for c in later for t in c.inputs if t.call is call}
    if output.call is call:
        read[id(output)] = output
    return next(iter(read.values())) if len(read) == 1 else None


def _outputs(tensors: Any) -> list[Tensor]:
    """The model's output tensors: one, or a list of them."""
    if not isinstance(tensors, (list, tuple)):
        return [_single(tensors, "outputs")]
    if not tensors:
        raise PhylanxValueError("a model needs at least one output", user_line())
    outputs = [_single(t, "outputs") for t in tensors]
    if len({id(t) for t in outputs}) != len(outputs):
        raise PhylanxValueError("a model's outputs must be distinct tensors", user_line())
    return outputs


def _single(tensors: Any, what: str) -> Tensor:
    if isinstance(tensors, (list, tuple)):
        if len(tensors) != 1:
            raise PhylanxValueError(f"models with several {what} are not supported yet")
        tensors = tensors[0]
    if not isinstance(tensors, Tensor):
        raise PhylanxValueError(f"Model {what} must be tensors made with Input() and layer "
                                f"calls, got {type(tensors).__name__}")
    return tensors


class Sequential(Model):
    """A stack of layers, each taking the previous one's output."""

    def __init__(self, layers: list | None = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self._pending: list[Layer] = []
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Any) -> None:
        if isinstance(layer, Tensor):           # Sequential([Input(...), Dense(...)])
            if self.built or self._pending:
                raise PhylanxValueError("an Input can only be the first item of a Sequential",
                                        user_line())
            self.input = self.output = layer
            return
        if not isinstance(layer, Layer):
            raise PhylanxValueError(f"Sequential.add takes layers, got {type(layer).__name__}",
                                    user_line())
        if not self.built and not self._pending and layer.batch_input_shape is not None:
            self.input = self.output = Input(layer.batch_input_shape[1:])
        if self.built:
            self._append(layer)
        else:
            self._pending.append(layer)
        self._reset_programs()

    def pop(self) -> None:
        if not self._chain and not self._pending:
            raise PhylanxValueError("pop from an empty Sequential", user_line())
        if self._pending:
            self._pending.pop()
        else:
            self._calls.pop()
            self.output = self.output.inbound
        self._reset_programs()

    def build(self, input_shape: tuple) -> None:
        """Build the layers for inputs of ``input_shape`` (with the batch axis)."""
        if self.built and not self._pending:
            return
        if not self.built:
            self.input = self.output = Input(tuple(input_shape)[1:])
        for layer in self._pending:
            self._append(layer)
        self._pending = []

    def _append(self, layer: Layer) -> None:
        out = call_layer(layer, self.output)
        if isinstance(out, list):
            raise PhylanxValueError(f"layer '{layer.name}' ({type(layer).__name__}) has "
                                    f"{len(out)} outputs: a Sequential takes layers of one "
                                    "output (use the functional Model)", user_line())
        self.output = out
        self._calls.append(out.call)
