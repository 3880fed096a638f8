"""The transformer's layers: MultiHeadAttention, LayerNormalization, Add and
TokenAndPositionEmbedding, with Keras 3's (and KerasHub's) names, defaults and weights.

MultiHeadAttention keeps Keras' weight layout (``query/kernel`` of shape ``(query_dim,
num_heads, key_dim)``, bias ``(num_heads, key_dim)``, likewise ``key`` and ``value``;
``attention_output/kernel`` ``(num_heads, value_dim, output_dim)``), so weights move
between the two with ``set_weights(keras_layer.get_weights())``.  Its forward pass is
written with ``dot``, ``reshape``, ``transpose``, ``matmul`` and ``softmax``: the
projections are one matrix product over ``(batch * steps, features)`` and the heads are
an axis of a batched ``matmul``, so the backward pass comes from the existing rules.
A mask replaces masked scores by -1e9 before the softmax and, with dropout or the
scores returned, zeroes their weights after it, as Keras' masked softmax does (without,
Keras' fused attention leaves a wholly masked row's even weights): a constant
``attention_mask`` shared by the batch, the causal mask, and per-sample masks, tensors
of the model (``attention_mask`` (batch, steps or 1, key steps or 1),
``value_mask``/``key_mask`` (batch, key steps)), inputs of the call like query and
value.  A 4-D ``attention_mask`` is one per head, (batch, heads or 1, steps or 1, key
steps or 1) as a tensor or (1, heads or 1, steps, key steps) as a constant, used as
Keras 3 uses it (broadcast against the scores); with the causal mask only: Keras 3
joins the other masks as (batch, steps, key steps), which against a 4-D mask align the
batch with the heads, so that is refused.  Shapes and masks are checked when the layer is called on
its input tensors, before any program is built.  Keras masks of the inputs
(``Embedding(mask_zero=True)``, ``Masking``) join in as Keras 3's
``_compute_attention_mask`` joins them: the query's as (batch, query steps, 1), the
value's and key's (unless ``value_mask``/``key_mask`` are given) as (batch, 1, key
steps); the output keeps the query's mask.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autodiff.symbolic import Var
from . import arguments as args
from .layers_core import Layer, ShapeMismatch, _init_name, dropout

#: what Keras' masked softmax puts in place of a masked score (float32)
_MASKED = -1e9


def _compatible(a: Any, b: Any) -> bool:
    return a is None or b is None or a == b


def _broadcast(a: tuple, b: tuple) -> tuple:
    """The broadcast of two shapes of one rank (a length 1 gives way)."""
    return tuple(y if x == 1 else x for x, y in zip(a, b))


class MultiHeadAttention(Layer):
    """Keras' multi-head attention: ``layer(query, value, key=None, attention_mask=None,
    return_attention_scores=False, use_causal_mask=False)`` on ``(batch, steps,
    features)`` tensors; ``key`` defaults to ``value``."""

    supports_masking = True

    #: Keras 3 keeps the projections in sub-layers (their groups in a weights file)
    keras_sublayers = {"query": "query_dense", "key": "key_dense", "value": "value_dense",
                       "attention_output": "output_dense"}

    def __init__(self, num_heads: int, key_dim: int, value_dim: int | None = None,
                 dropout: float = 0.0, use_bias: bool = True, output_shape: Any = None,
                 attention_axes: Any = None, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = "MultiHeadAttention"
        self.num_heads = args.integer(num_heads, "num_heads", where)
        self.key_dim = args.integer(key_dim, "key_dim", where)
        self.value_dim = self.key_dim if value_dim is None else \
            args.integer(value_dim, "value_dim", where)
        self.dropout = args.real(dropout, "dropout", where, 0.0, 1.0, high_open=True)
        self.use_bias = args.boolean(use_bias, "use_bias", where)
        if isinstance(output_shape, (list, tuple)):
            if len(output_shape) != 1:
                raise args.value_error(where, "output_shape must be one integer (the last "
                                              f"axis of the output), got {output_shape!r}")
            output_shape = output_shape[0]
        self.output_dim = None if output_shape is None else \
            args.integer(output_shape, "output_shape", where)
        if attention_axes is not None and list(np.atleast_1d(attention_axes)) not in ([1],
                                                                                    [-2]):
            raise args.value_error(where, "attention_axes other than the steps axis (None) "
                                          f"are not supported, got {attention_axes!r}")
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.dims: tuple | None = None          # (query, key, value) features, once built

    def __call__(self, query: Any, value: Any, key: Any = None,
                 attention_mask: Any = None, return_attention_scores: bool = False,
                 training: Any = None, use_causal_mask: bool = False,
                 query_mask: Any = None, value_mask: Any = None, key_mask: Any = None) -> Any:
        from .model import Tensor, call_layer
        where = "MultiHeadAttention"
        if query_mask is not None:
            raise args.value_error(where, "query_mask is not read by Keras 3's "
                                          "MultiHeadAttention (it takes the query's own "
                                          "Keras mask instead); pass an attention_mask of "
                                          "shape (batch, query steps, 1)")
        if training is not None:
            raise args.value_error(where, "training= is decided by fit/predict, not by the "
                                          f"call; got training={training!r}")
        options = {"use_causal_mask": args.boolean(use_causal_mask, "use_causal_mask", where),
                   "return_attention_scores": args.boolean(
                       return_attention_scores, "return_attention_scores", where)}
        tensors = [query, value] + ([] if key is None else [key])
        options["has_key"] = key is not None
        # per-sample masks are tensors of the model (computed from its data), inputs of
        # this call; a constant attention_mask is shared by every sample
        per_sample = []
        # (in the order Keras' functional models list the layers computing them, so that
        # weights move between the two with set_weights in order)
        for name, mask in (("key_mask", key_mask), ("value_mask", value_mask),
                           ("attention_mask", attention_mask)):
            if isinstance(mask, Tensor):
                tensors.append(mask)
                per_sample.append(name)
            elif mask is not None and name != "attention_mask":
                raise args.value_error(where, f"{name} must be a tensor of the model (one "
                                              "mask per sample, computed from its data), "
                                              f"got a {type(mask).__name__}")
        options["mask_inputs"] = tuple(per_sample)
        if attention_mask is not None and "attention_mask" not in per_sample:
            options["attention_mask"] = attention_mask
        return call_layer(self, tensors, options)

    # -- shapes ---------------------------------------------------------------------
    def build_call(self, shapes, options):
        masks = options.get("mask_inputs", ())
        tensors = 3 if options.get("has_key") else 2
        if len(shapes) != tensors + len(masks):
            raise ShapeMismatch(f"takes query and value (and key) tensors, got "
                                f"{len(shapes) - len(masks)}")
        query, value = shapes[0], shapes[1]
        key = shapes[2] if tensors == 3 else value
        for what, shape in (("query", query), ("value", value), ("key", key)):
            if len(shape) != 3 or shape[-1] is None:
                raise ShapeMismatch(f"{what} must be (batch, steps, features) with known "
                                    f"features, got shape {tuple(shape)}")
        if not _compatible(key[1], value[1]):
            raise ShapeMismatch(f"key and value must have the same number of steps, got "
                                f"key shape {tuple(key)} and value shape {tuple(value)}")
        if not (_compatible(query[0], value[0]) and _compatible(query[0], key[0])):
            raise ShapeMismatch(f"query, value and key must have the same batch size, got "
                                f"{tuple(query)}, {tuple(value)}, {tuple(key)}")
        dims = (query[-1], key[-1], value[-1])
        if self.dims is not None and dims != self.dims:
            raise ShapeMismatch(f"was built for (query, key, value) features {self.dims}, "
                                f"got {dims}")
        steps, key_steps = query[1], key[1]
        per_head = False        # a 4-D attention_mask, constant or a tensor
        if "attention_mask" in options:
            options["attention_mask"] = self._mask(options["attention_mask"], steps,
                                                   key_steps)
            per_head = np.ndim(options["attention_mask"]) == 3
        for name, shape in zip(masks, shapes[tensors:]):
            self._check_mask_tensor(name, tuple(shape), steps, key_steps)
            per_head = per_head if name != "attention_mask" else len(shape) == 4
        if "attention_mask" in options or "attention_mask" in masks:
            options["per_head_mask"] = per_head
            others = [m for m in masks if m != "attention_mask"]
            if per_head and others:
                raise ShapeMismatch(self._per_head_refusal(", ".join(others)))
        if options["use_causal_mask"] and (steps is None or key_steps is None):
            raise ShapeMismatch(f"use_causal_mask needs known steps, got query shape "
                                f"{tuple(query)} and key shape {tuple(key)}")
        if not self.built:
            self._build(dims)
            self.built = True
        self.input_shape = tuple(query)
        out = (query[0], steps, self.output_dim or query[-1])
        self.output_shape = out
        if options["return_attention_scores"]:
            return [out, (query[0], self.num_heads, steps, key_steps)]
        return out

    def _check_mask_tensor(self, name: str, shape: tuple, steps: Any,
                           key_steps: Any) -> None:
        """A per-sample mask's shape: attention_mask (batch, query steps or 1, key steps
        or 1) or per head (batch, heads or 1, query steps or 1, key steps or 1), value_mask
        and key_mask (batch, key steps), as Keras broadcasts them against the scores
        (batch, heads, query steps, key steps)."""
        if name == "attention_mask":
            fits = len(shape) in (3, 4) and shape[-2] in (1, steps) and \
                shape[-1] in (1, key_steps) and (len(shape) == 3 or
                                                 shape[1] in (1, self.num_heads))
            want = (f"(batch, {steps} or 1, {key_steps} or 1) or, one per head, (batch, "
                    f"{self.num_heads} or 1, {steps} or 1, {key_steps} or 1)")
        else:
            fits = len(shape) == 2 and _compatible(shape[1], key_steps)
            want = f"(batch, key steps) = (batch, {key_steps})"
        if not fits:
            raise ShapeMismatch(f"the {name} tensor must have shape {want}, got {shape}")

    def _mask(self, mask: Any, steps: Any, key_steps: Any) -> list:
        """A constant ``attention_mask`` checked: (steps, key steps), or (1, steps, key
        steps), shared by every sample, or per head (1, heads or 1, steps, key steps),
        kept as (heads or 1, steps, key steps); True (or non-zero, Keras' cast) where a
        query step may attend a key step.  A per-sample mask is a tensor of the model."""
        mask = np.asarray(mask)
        if mask.dtype.kind not in "biuf":
            raise ShapeMismatch(f"attention_mask must be boolean or numbers, got dtype "
                                f"{mask.dtype}")
        want = (steps, key_steps)
        if mask.ndim == 4 and mask.shape[0] == 1:
            if mask.shape[1] not in (1, self.num_heads) or \
                    not all(_compatible(w, m) for w, m in zip(want, mask.shape[2:])):
                raise ShapeMismatch(f"a per-head attention_mask must have shape (1, "
                                    f"{self.num_heads} or 1, {want[0]}, {want[1]}), got "
                                    f"{mask.shape}")
            return (mask[0] != 0).tolist()                         # Keras' cast to bool
        if mask.ndim in (3, 4) and mask.shape[0] == 1:
            mask = mask[0]
        elif mask.ndim in (3, 4):
            raise ShapeMismatch(f"attention_mask of shape {mask.shape} has one mask per "
                                f"sample: pass it as a tensor of the model (computed from "
                                f"its data, so that it follows the samples through batches "
                                f"and shuffling); a constant is shared by the batch, of "
                                f"shape (query steps, key steps) = {want}")
        if mask.ndim != 2 or not all(_compatible(w, m) for w, m in zip(want, mask.shape)):
            raise ShapeMismatch(f"attention_mask must have shape (query steps, key steps) "
                                f"= {want} (or (1, {want[0]}, {want[1]})), got "
                                f"{np.shape(mask)}")
        return (mask != 0).tolist()                                # Keras' cast to bool

    def _build(self, dims: tuple) -> None:
        (query, key, value), heads = dims, self.num_heads
        out = self.output_dim or query
        for name, features, width in (("query", query, self.key_dim),
                                      ("key", key, self.key_dim),
                                      ("value", value, self.value_dim)):
            self.add_weight(f"{name}/kernel", (features, heads, width), self.kernel_initializer)
            if self.use_bias:
                self.add_weight(f"{name}/bias", (heads, width), self.bias_initializer)
        self.add_weight("attention_output/kernel", (heads, self.value_dim, out),
                        self.kernel_initializer)
        if self.use_bias:
            self.add_weight("attention_output/bias", (out,), self.bias_initializer)
        self.dims = dims

    # -- Keras masks ------------------------------------------------------------------
    @staticmethod
    def _per_head_refusal(masks: str) -> str:
        return (f"a per-head (4-D) attention_mask with {masks}: Keras 3 joins those as "
                "(batch, steps, key steps) masks, which broadcast against a 4-D mask "
                "align the batch with the heads axis (a wrong mask, or an error only when "
                "it runs); join them into the 4-D mask yourself")

    def mask_flags(self, masked, options):
        if options.get("per_head_mask"):
            keras = [name for name, flag in zip(("query", "value", "key"), masked)
                     if flag]
            if keras:
                raise ShapeMismatch(self._per_head_refusal(
                    f"the Keras mask of the {', '.join(keras)} (Embedding(mask_zero=True),"
                    " Masking)"))
        flag = masked[0]                                      # the query's
        return [flag, False] if options.get("return_attention_scores") else flag

    def graph_mask(self, g, values, masks, options, computed):
        return [masks[0], None] if options.get("return_attention_scores") else masks[0]

    def mask_clearing_inputs(self, options):
        # (Keras 3's call: ``backend.set_keras_mask(query / value / key, None)``)
        return (0, 1, 2) if options.get("has_key") else (0, 1)

    def forward_masked(self, ctx, xs, masks, options):
        given = options.get("mask_inputs", ())
        keras_masks = {"query_mask": masks[0]}
        if "value_mask" not in given:
            keras_masks["value_mask"] = masks[1]
        if options.get("has_key") and "key_mask" not in given:
            keras_masks["key_mask"] = masks[2]
        keras_masks = {k: m for k, m in keras_masks.items() if m is not None}
        out = self.forward(ctx, *xs, keras_masks=keras_masks, **options)
        return out, ([masks[0], None] if isinstance(out, list) else masks[0])

    # -- the forward pass ---------------------------------------------------------
    def _heads(self, ctx, x: Var, name: str, width: int) -> Var:
        """``x @ kernel + bias`` as ``(batch, heads, steps, width)``."""
        g, w = ctx.graph, ctx.weights
        batch, steps, features = x.shape
        flat_width = self.num_heads * width
        kernel = g.op("reshape", w[f"{name}/kernel"], [features, flat_width],
                      shape=(features, flat_width))
        rows = g.op("reshape", x, [-1, features], shape=(None, features))
        y = g.op("dot", rows, kernel, shape=(None, flat_width), hint=name)
        if self.use_bias:
            bias = g.op("reshape", w[f"{name}/bias"], [flat_width], shape=(flat_width,))
            y = g.op("__add", y, bias, shape=(None, flat_width))
        y = g.op("reshape", y, [-1, steps, self.num_heads, width],
                 shape=(batch, steps, self.num_heads, width))
        return g.op("transpose", y, [0, 2, 1, 3], shape=(batch, self.num_heads, steps, width))

    def forward(self, ctx, query, value, *rest, has_key=False, mask_inputs=(),
                attention_mask=None, use_causal_mask=False, return_attention_scores=False,
                keras_masks=None, per_head_mask=False):
        g, w = ctx.graph, ctx.weights
        key = rest[0] if has_key else value
        per_sample = dict(zip(mask_inputs, rest[1 if has_key else 0:]))
        per_sample.update(keras_masks or {})
        batch, steps, _ = query.shape
        key_steps, heads = key.shape[1], self.num_heads
        q = self._heads(ctx, query, "query", self.key_dim)
        k = self._heads(ctx, key, "key", self.key_dim)
        v = self._heads(ctx, value, "value", self.value_dim)
        # Keras scales the query (float32 of 1/sqrt(key_dim)) before the product
        q = g.op("__mul", q, float(np.float32(1.0 / math.sqrt(self.key_dim))), shape=q.shape)
        kt = g.op("transpose", k, [0, 1, 3, 2], shape=(batch, heads, self.key_dim, key_steps))
        score_shape = (batch, heads, steps, key_steps)
        scores = g.op("matmul", q, kt, shape=score_shape, hint="scores")
        shared = self._keep(attention_mask, use_causal_mask, steps, key_steps)
        allowed = self._allowed(g, shared, per_sample, batch, steps, key_steps)
        if allowed is not None:
            scores = g.op("where", allowed, scores, _MASKED, shape=score_shape)
        probs = g.op("softmax", scores, -1, shape=score_shape, hint="attention")
        if allowed is not None and (self.dropout > 0.0 or return_attention_scores):
            # Keras' masked softmax zeroes the masked probabilities: a row with every
            # key masked attends nothing.  (Without dropout or returned scores Keras 3
            # takes its fused dot_product_attention, which does not: such a row, a
            # masked query step, spreads evenly over the keys; the same here)
            probs = g.op("where", allowed, probs, 0.0, shape=score_shape)
        dropped = dropout(ctx, probs, self.dropout)
        mixed = g.op("matmul", dropped, v, shape=(batch, heads, steps, self.value_dim))
        mixed = g.op("transpose", mixed, [0, 2, 1, 3], shape=(batch, steps, heads,
                                                               self.value_dim))
        flat_width = heads * self.value_dim
        out_dim = w["attention_output/kernel"].shape[-1]
        rows = g.op("reshape", mixed, [-1, flat_width], shape=(None, flat_width))
        kernel = g.op("reshape", w["attention_output/kernel"], [flat_width, out_dim],
                      shape=(flat_width, out_dim))
        y = g.op("dot", rows, kernel, shape=(None, out_dim), hint="attention_output")
        if self.use_bias:
            y = g.op("__add", y, w["attention_output/bias"], shape=(None, out_dim))
        y = g.op("reshape", y, [-1, steps, out_dim], shape=(batch, steps, out_dim))
        return [y, probs] if return_attention_scores else y

    @staticmethod
    def _allowed(g, shared: list | None, per_sample: dict, batch, steps: int,
                 key_steps: int) -> Var | None:
        """The scores kept, broadcasting against (batch, heads, steps, key steps): the
        shared (steps, key steps) or per-head (heads or 1, steps, key steps) booleans,
        and with per-sample masks (non-zero: kept, as Keras' cast) their conjunction as
        (batch, 1, steps, key steps), or (batch, heads or 1, steps, key steps) with a
        per-head attention_mask (which comes alone: ``build_call``)."""
        shared_var = None if shared is None else g.op(
            "__array", shared, "bool", shape=np.shape(shared), hint="mask")
        sample = None
        for name in ("attention_mask", "value_mask", "key_mask", "query_mask"):
            if name not in per_sample:
                continue
            mask = per_sample[name]
            kept = g.op("__ne", mask, 0, shape=mask.shape, hint=name)
            if name == "query_mask":
                kept = g.op("reshape", kept, [-1, steps, 1], shape=(batch, steps, 1))
            elif name != "attention_mask":
                kept = g.op("reshape", kept, [-1, 1, key_steps], shape=(batch, 1, key_steps))
            sample = kept if sample is None else g.op(
                "logical_and", sample, kept, shape=_broadcast(sample.shape, kept.shape))
        if sample is None:
            return shared_var
        if len(sample.shape) == 3:
            rows, cols = sample.shape[1], sample.shape[2]
            sample = g.op("expand_dims", sample, 1, shape=(batch, 1, rows, cols))
        if shared_var is not None:
            sample = g.op("logical_and", sample, shared_var,
                          shape=(batch, *_broadcast(sample.shape[1:], (1,) * (
                              3 - len(shared_var.shape)) + shared_var.shape)))
        return sample

    @staticmethod
    def _keep(mask: list | None, causal: bool, steps: int, key_steps: int) -> list | None:
        """The (steps, key steps) booleans of the scores kept (None: all)."""
        if not causal:
            return mask
        lower = np.tril(np.ones((steps, key_steps), bool))     # Keras' row >= column
        return (lower if mask is None else lower & np.asarray(mask, bool)).tolist()

    def layer_config(self):
        return {"num_heads": self.num_heads, "key_dim": self.key_dim,
                "value_dim": self.value_dim, "dropout": self.dropout,
                "use_bias": self.use_bias, "output_shape": self.output_dim,
                "kernel_initializer": _init_name(self.kernel_initializer),
                "bias_initializer": _init_name(self.bias_initializer)}


def merged_mask_flag(masked: list[bool]) -> bool:
    """Keras' merge layers: the output is masked when every input is."""
    return all(masked)


def merged_mask(g, masks: list) -> Var | None:
    """Keras' merge layers' mask: a step is kept if any input keeps it (None unless
    every input has a mask)."""
    if any(m is None for m in masks):
        return None
    out = masks[0]
    for m in masks[1:]:
        out = g.op("logical_or", out, m, shape=out.shape, hint="mask")
    return out


class LayerNormalization(Layer):
    """``gamma * (x - mean) / sqrt(var + epsilon) + beta``, the statistics taken over
    ``axis`` (an integer or a list; the last axis by default) of each sample, in
    training and inference alike (Keras' arithmetic: ``x * inv + (beta - mean * inv)``,
    ``inv = gamma / sqrt(var + epsilon)``)."""

    supports_masking = True          # (passes the mask on, as Keras)

    def __init__(self, axis: Any = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = "LayerNormalization"
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        if not axes:
            raise args.value_error(where, "axis must name at least one axis")
        self.axis = [args.integer(a, "axis", where, minimum=-(2**31)) for a in axes]
        self.epsilon = args.real(epsilon, "epsilon", where, 0.0)
        self.center = args.boolean(center, "center", where)
        self.scale = args.boolean(scale, "scale", where)
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer

    def _axes(self, input_shape: tuple) -> list[int]:
        rank = len(input_shape)
        axes = sorted({a % rank if -rank <= a < rank else -1 for a in self.axis})
        if -1 in axes or 0 in axes or len(axes) != len(self.axis):
            raise ShapeMismatch(f"axis {self.axis} must name distinct axes of the input "
                                f"(shape {input_shape}), not its batch axis")
        if any(input_shape[a] is None for a in axes):
            raise ShapeMismatch(f"needs the normalised axes {axes} known, got shape "
                                f"{input_shape}")
        return axes

    def compute_output_shape(self, input_shape):
        self._axes(input_shape)
        return input_shape

    def build(self, input_shape):
        shape = tuple(input_shape[a] for a in self._axes(input_shape))
        if self.scale:
            self.add_weight("gamma", shape, self.gamma_initializer)
        if self.center:
            self.add_weight("beta", shape, self.beta_initializer)

    def forward(self, ctx, x):
        g, w = ctx.graph, ctx.weights
        axes = self._axes(x.shape)
        kept = tuple(d if i in axes else 1 for i, d in enumerate(x.shape))
        stat_shape = (x.shape[0],) + kept[1:]
        # gamma and beta broadcast over the axes not normalised: (steps, 1) for axis 1
        param_shape = kept[1:]
        mean = g.op("mean", x, axes, True, shape=stat_shape, hint="ln_mean")
        variance = g.op("var", x, axes, True, shape=stat_shape, hint="ln_var")
        spread = g.op("sqrt", g.op("__add", variance, self.epsilon, shape=stat_shape),
                      shape=stat_shape)
        inv = g.op("__div", 1.0, spread, shape=stat_shape)
        if self.scale:
            inv = g.op("__mul", inv, self._broadcast(g, w["gamma"], param_shape),
                       shape=x.shape)
        shift = g.op("__minus", g.op("__mul", mean, inv, shape=x.shape), shape=x.shape)
        if self.center:
            shift = g.op("__add", shift, self._broadcast(g, w["beta"], param_shape),
                         shape=x.shape)
        return g.op("__add", g.op("__mul", x, inv, shape=x.shape), shift, shape=x.shape,
                    hint="ln")

    @staticmethod
    def _broadcast(g, param: Var, shape: tuple) -> Var:
        """``param`` shaped to broadcast against the input: as it is when its shape is
        the end of ``shape`` after leading 1s (the last axis), else reshaped."""
        lead = len(shape) - len(param.shape)
        if tuple(shape[lead:]) == tuple(param.shape) and all(d == 1 for d in shape[:lead]):
            return param
        return g.op("reshape", param, list(shape), shape=shape)

    def layer_config(self):
        return {"axis": self.axis if len(self.axis) > 1 else self.axis[0],
                "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
                "beta_initializer": _init_name(self.beta_initializer),
                "gamma_initializer": _init_name(self.gamma_initializer)}


class Add(Layer):
    """The sum of a list of tensors of one shape: ``Add()([x, h])`` (residual links)."""

    def mask_flags(self, masked, options):
        return merged_mask_flag(masked)

    def forward_masked(self, ctx, xs, masks, options):
        return self.forward(ctx, *xs), merged_mask(ctx.graph, masks)

    def graph_mask(self, g, values, masks, options, computed):
        return merged_mask(g, masks)

    def __call__(self, inputs: Any) -> Any:
        from .model import call_layer
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise args.value_error("Add", "Add takes a list of at least 2 tensors")
        return call_layer(self, list(inputs))

    def build_call(self, shapes, options):
        if options or len(shapes) < 2:
            raise ShapeMismatch("takes a list of at least 2 tensors and no options")
        first = shapes[0]
        for shape in shapes[1:]:
            if len(shape) != len(first) or not all(map(_compatible, shape, first)):
                raise ShapeMismatch(f"adds tensors of one shape, got {[tuple(s) for s in shapes]}")
        self.built = True
        out = tuple(next((d for d in dims if d is not None), None) for dims in zip(*shapes))
        self.input_shape, self.output_shape = tuple(first), out
        return out

    def forward(self, ctx, *xs):
        total = xs[0]
        for x in xs[1:]:
            total = ctx.graph.op("__add", total, x, shape=total.shape, hint="add")
        return total


class TokenAndPositionEmbedding(Layer):
    """KerasHub's layer: the embedding of each token plus that of its position,
    ``(batch, steps)`` indices to ``(batch, steps, embedding_dim)``; weights
    ``token_embedding/embeddings`` ``(vocabulary_size, embedding_dim)`` and
    ``position_embedding/embeddings`` ``(sequence_length, embedding_dim)``.  With
    ``mask_zero`` token 0 is padding: the output carries the mask ``indices != 0``, as
    KerasHub's (its token embedding's)."""

    def __init__(self, vocabulary_size: int, sequence_length: int, embedding_dim: int,
                 embeddings_initializer: Any = "uniform", mask_zero: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = "TokenAndPositionEmbedding"
        self.vocabulary_size = args.integer(vocabulary_size, "vocabulary_size", where)
        self.sequence_length = args.integer(sequence_length, "sequence_length", where)
        self.embedding_dim = args.integer(embedding_dim, "embedding_dim", where)
        self.mask_zero = args.boolean(mask_zero, "mask_zero", where)
        if self.mask_zero and self.vocabulary_size < 2:
            raise args.value_error(where, "mask_zero=True makes token 0 the padding, so "
                                          "vocabulary_size counts it (at least 2), got "
                                          f"vocabulary_size={vocabulary_size}")
        self.supports_masking = self.mask_zero
        self.embeddings_initializer = embeddings_initializer
        self.input_dtype = "int64"
        self.index_count = self.vocabulary_size

    def compute_output_shape(self, input_shape):
        if len(input_shape) != 2 or input_shape[1] is None:
            raise ShapeMismatch(f"expects (batch, steps) indices with known steps, got "
                                f"shape {input_shape}")
        if input_shape[1] > self.sequence_length:
            raise ShapeMismatch(f"{input_shape[1]} steps exceed sequence_length "
                                f"{self.sequence_length}")
        return (input_shape[0], input_shape[1], self.embedding_dim)

    def build(self, input_shape):
        self.add_weight("token_embedding/embeddings",
                        (self.vocabulary_size, self.embedding_dim), self.embeddings_initializer)
        self.add_weight("position_embedding/embeddings",
                        (self.sequence_length, self.embedding_dim),
                        self.embeddings_initializer)

    def forward(self, ctx, x):
        g, w = ctx.graph, ctx.weights
        shape = self.compute_output_shape(x.shape)
        steps = shape[1]
        indices = g.op("astype", x, "int64", shape=x.shape)
        tokens = g.op("slice", w["token_embedding/embeddings"], indices, shape=shape,
                      hint="tokens")
        positions = w["position_embedding/embeddings"]
        if steps != self.sequence_length:
            positions = g.op("slice", positions, [0, steps], shape=(steps, self.embedding_dim))
        return g.op("__add", tokens, positions, shape=shape, hint="embedding")

    def mask_flags(self, masked, options):
        return self.mask_zero

    def graph_mask(self, g, values, masks, options, computed):
        return computed                # (from the indices, whatever their mask)

    def forward_masked(self, ctx, xs, masks, options):
        out = self.forward(ctx, *xs)
        if not self.mask_zero:
            return out, None
        return out, ctx.graph.op("__ne", xs[0], 0, shape=xs[0].shape, hint="mask_zero")

    def layer_config(self):
        return {"vocabulary_size": self.vocabulary_size,
                "sequence_length": self.sequence_length, "embedding_dim": self.embedding_dim,
                "embeddings_initializer": _init_name(self.embeddings_initializer),
                "mask_zero": self.mask_zero}
