"""BatchNormalization, Embedding and Masking.

Batch normalisation is written with ordinary primitives (``mean``, ``var``, arithmetic,
``sqrt``): its gradient needs no special kernel.  In data-parallel training its batch
statistics are those of the global batch (``data_parallel.global_moments``).  Its
moving statistics are non-trainable weights whose new values the training step returns
beside the parameters.

``Embedding(mask_zero=True)`` and ``Masking(mask_value)`` attach Keras masks to their
outputs (index 0, or a step whose features all equal ``mask_value``, is padding): see
:mod:`.layers_core`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import arguments as args
from . import initializers
from .data_parallel import global_moments
from .layers_core import Layer, ShapeMismatch


def _uniform_005(shape: tuple, seed: int | None = None) -> np.ndarray:
    """Keras' Embedding default: uniform in [-0.05, 0.05]."""
    return initializers.generator(seed).uniform(-0.05, 0.05, shape).astype(np.float32)


initializers.INITIALIZERS.setdefault("uniform", _uniform_005)


class BatchNormalization(Layer):
    """``gamma * (x - mean) / sqrt(var + epsilon) + beta`` over the last axis: batch
    statistics in training (which also update the moving ones), moving ones otherwise.
    With a Keras mask the batch statistics are over the unmasked steps, as Keras 3's
    ``_moments``: ``sum(where(mask, x, 0)) / (count + 1e-7)``, the variance likewise
    (the output keeps the mask)."""

    supports_masking = True
    mask_argument = True

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = "BatchNormalization"
        if args.is_bool(axis) or axis != -1:
            raise args.value_error(where, f"axis must be -1 (channels last; the only axis "
                                          f"supported), got {axis!r}")
        self.axis = -1
        self.momentum = args.real(momentum, "momentum", where, 0.0, 1.0)
        self.epsilon = args.real(epsilon, "epsilon", where, 0.0)
        self.center = args.boolean(center, "center", where)
        self.scale = args.boolean(scale, "scale", where)

    def compute_output_shape(self, input_shape):
        if len(input_shape) < 2 or input_shape[-1] is None:
            raise ShapeMismatch(f"needs a known last axis, got shape {input_shape}")
        return input_shape

    def forward_masked(self, ctx, xs, masks, options):
        return self.forward(ctx, xs[0], mask=masks[0]), masks[0]

    def _masked_moments(self, g, x, mask):
        """Keras 3's masked ``_moments`` (``backend.epsilon()`` = 1e-7 in the counts)."""
        channels, axes = (x.shape[-1],), list(range(len(x.shape) - 1))
        kept = g.op("expand_dims", mask, len(x.shape) - 1, shape=x.shape[:-1] + (1,))
        count = g.op("sum", g.op("astype", kept, "float32", shape=kept.shape), axes,
                     shape=(1,))
        count = g.op("__add", count, 1e-7, shape=(1,), hint="bn_count")
        total = g.op("sum", g.op("where", kept, x, 0.0, shape=x.shape), axes, shape=channels)
        mean = g.op("__div", total, count, shape=channels, hint="bn_mean")
        spread = g.op("where", kept, g.op("__sub", x, mean, shape=x.shape), 0.0,
                      shape=x.shape)
        squares = g.op("sum", g.op("__mul", spread, spread, shape=x.shape), axes,
                       shape=channels)
        return mean, g.op("__div", squares, count, shape=channels, hint="bn_var")

    def build(self, input_shape):
        channels = (input_shape[-1],)
        if self.scale:
            self.add_weight("gamma", channels, "ones")
        if self.center:
            self.add_weight("beta", channels, "zeros")
        self.add_weight("moving_mean", channels, "zeros", trainable=False)
        self.add_weight("moving_variance", channels, "ones", trainable=False)

    def forward(self, ctx, x, mask=None):
        g, w = ctx.graph, ctx.weights
        channels = (x.shape[-1],)
        if ctx.training:
            axes = list(range(len(x.shape) - 1))
            synchronized = ctx.parallel is not None and ctx.parallel.sync_batchnorm
            if mask is not None and synchronized:
                raise args.value_error("BatchNormalization", "a masked input's statistics "
                                       "over every rank's shard are not written yet (data "
                                       "parallel); train it on one process")
            if mask is not None:
                mean, variance = self._masked_moments(g, x, mask)
            elif synchronized:
                # over every rank's shard (data parallel)
                mean, variance = global_moments(g, ctx.parallel, x, self.name)
            else:
                mean = g.op("mean", x, axes, shape=channels, hint="bn_mean")
                variance = g.op("var", x, axes, shape=channels, hint="bn_var")
            keep = self.momentum
            for name, batch in (("moving_mean", mean), ("moving_variance", variance)):
                old = g.op("__mul", w[name], keep, shape=channels)
                new = g.op("__add", old, g.op("__mul", batch, 1.0 - keep, shape=channels),
                           shape=channels, hint=name)
                ctx.updates.append((self._weight(name), new))
        else:
            mean, variance = w["moving_mean"], w["moving_variance"]
        shifted = g.op("__sub", x, mean, shape=x.shape)
        spread = g.op("sqrt", g.op("__add", variance, self.epsilon, shape=channels),
                      shape=channels)
        y = g.op("__div", shifted, spread, shape=x.shape, hint="bn")
        if self.scale:
            y = g.op("__mul", y, w["gamma"], shape=x.shape)
        if self.center:
            y = g.op("__add", y, w["beta"], shape=x.shape)
        return y

    def _weight(self, name: str):
        return next(w for w in self.weights if w.name.endswith("/" + name))

    def layer_config(self):
        return {"axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale}


class Embedding(Layer):
    """Rows of ``embeddings`` picked by integer indices: ``(batch, steps)`` to
    ``(batch, steps, output_dim)``.  With ``mask_zero`` index 0 is padding: the output
    carries the mask ``indices != 0`` (so ``input_dim`` is the vocabulary size + 1)."""

    def __init__(self, input_dim: int, output_dim: int,
                 embeddings_initializer: Any = "uniform", input_length: int | None = None,
                 mask_zero: bool = False, **kwargs: Any) -> None:
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (args.integer(input_length, "input_length", "Embedding"),)
        super().__init__(**kwargs)
        self.input_dim = args.integer(input_dim, "input_dim", "Embedding")
        self.output_dim = args.integer(output_dim, "output_dim", "Embedding")
        self.mask_zero = args.boolean(mask_zero, "mask_zero", "Embedding")
        if self.mask_zero and self.input_dim < 2:
            # (every index it takes would be padding: every step masked)
            raise args.value_error("Embedding", f"mask_zero=True makes index 0 the padding, "
                                                f"so input_dim is the vocabulary size + 1 "
                                                f"(at least 2), got input_dim={input_dim}")
        self.supports_masking = self.mask_zero
        self.embeddings_initializer = embeddings_initializer
        self.input_dtype = "int64"
        self.index_count = self.input_dim

    def compute_output_shape(self, input_shape):
        if len(input_shape) < 2:
            raise ShapeMismatch(f"expects (batch, steps) indices, got shape {input_shape}")
        return tuple(input_shape) + (self.output_dim,)

    def build(self, input_shape):
        self.add_weight("embeddings", (self.input_dim, self.output_dim),
                        self.embeddings_initializer)

    def forward(self, ctx, x):
        g = ctx.graph
        indices = g.op("astype", x, "int64", shape=x.shape)
        return g.op("slice", ctx.weights["embeddings"], indices,
                    shape=self.compute_output_shape(x.shape), hint="embedding")

    def mask_flags(self, masked, options):
        return self.mask_zero        # (Keras: its own mask, whatever its input's)

    def graph_mask(self, g, values, masks, options, computed):
        return computed

    def forward_masked(self, ctx, xs, masks, options):
        out = self.forward(ctx, *xs)
        if not self.mask_zero:
            return out, None
        return out, ctx.graph.op("__ne", xs[0], 0, shape=xs[0].shape, hint="mask_zero")

    def layer_config(self):
        init = self.embeddings_initializer
        return {"input_dim": self.input_dim, "output_dim": self.output_dim,
                "embeddings_initializer": init if isinstance(init, str) else "uniform",
                "mask_zero": self.mask_zero}


class Masking(Layer):
    """Keras' Masking: a step of ``(batch, steps, features)`` whose features all equal
    ``mask_value`` is masked (the mask ``any(x != mask_value, axis=-1)``) and its
    output zeroed; the others pass unchanged."""

    supports_masking = True

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = args.real(mask_value, "mask_value", "Masking")

    def compute_output_shape(self, input_shape):
        if len(input_shape) != 3:
            raise ShapeMismatch(f"expects inputs of rank 3 (batch, steps, features), whose "
                                f"steps it masks, got shape {input_shape}")
        return input_shape

    def mask_flags(self, masked, options):
        return True

    def graph_mask(self, g, values, masks, options, computed):
        return computed              # (from the values, whatever their input's mask)

    def forward_masked(self, ctx, xs, masks, options):
        g, x = ctx.graph, xs[0]
        batch, steps, _ = x.shape
        differs = g.op("__ne", x, self.mask_value, shape=x.shape)
        kept = g.op("any", differs, -1, True, shape=(batch, steps, 1), hint="masking")
        out = g.op("where", kept, x, 0.0, shape=x.shape)
        mask = g.op("squeeze", kept, -1, shape=(batch, steps), hint="mask")
        return out, mask

    def forward(self, ctx, x):
        return self.forward_masked(ctx, [x], [None], {})[0]

    def layer_config(self):
        return {"mask_value": self.mask_value}
