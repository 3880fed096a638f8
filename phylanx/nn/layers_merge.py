"""Keras' merge layers besides Add: Concatenate, Subtract, Multiply, Average, Maximum,
Minimum, called on a list of tensors (``Concatenate(axis=-1)([a, b])``).

Element-wise merges take tensors of one shape (no broadcasting between them, as Keras 3
asks of functional inputs here); Concatenate takes tensors equal but on ``axis``, which
may not be the batch axis.  Keras masks: element-wise merges OR their inputs' masks
(none unless every input has one); Concatenate joins them as Keras 3's
``compute_mask`` (an unmasked input's steps kept).  A wrong list is a located error at
the call that builds the model.  Their backward passes come from the rules of the
primitives they are written with (``__add``/``__sub``/``__mul``/``__div``/``maximum``/
``minimum``/``concatenate``).
"""
from __future__ import annotations

from typing import Any

from . import arguments as args
from .layers_attention import _compatible, merged_mask, merged_mask_flag
from .layers_core import Layer, ShapeMismatch


def _merged_shape(shapes: list[tuple]) -> tuple:
    return tuple(next((d for d in dims if d is not None), None) for dims in zip(*shapes))


class _Merge(Layer):
    """A merge of a list of tensors of one shape; ``least`` and ``most`` inputs."""

    least, most = 2, None

    def __call__(self, inputs: Any) -> Any:
        from .model import call_layer
        where = type(self).__name__
        count = len(inputs) if isinstance(inputs, (list, tuple)) else 0
        if count < self.least or (self.most is not None and count > self.most):
            how = "exactly" if self.most == self.least else "at least"
            raise args.value_error(where, f"{where} takes a list of {how} {self.least} "
                                          "tensors")
        return call_layer(self, list(inputs))

    def build_call(self, shapes, options):
        if options:
            raise ShapeMismatch(f"takes no call options, got {', '.join(sorted(options))}")
        out = self.merged_shape([tuple(s) for s in shapes])
        self.built = True
        self.input_shape, self.output_shape = tuple(shapes[0]), out
        return out

    def merged_shape(self, shapes: list[tuple]) -> tuple:
        first = shapes[0]
        for shape in shapes[1:]:
            if len(shape) != len(first) or not all(map(_compatible, shape, first)):
                raise ShapeMismatch(f"merges tensors of one shape, got {shapes}")
        return _merged_shape(shapes)

    def combine(self, ctx, x, y):
        raise NotImplementedError

    def mask_flags(self, masked, options):
        return merged_mask_flag(masked)

    def forward_masked(self, ctx, xs, masks, options):
        return self.forward(ctx, *xs), merged_mask(ctx.graph, masks)

    def graph_mask(self, g, values, masks, options, computed):
        return merged_mask(g, masks)

    def forward(self, ctx, *xs):
        out = xs[0]
        for x in xs[1:]:
            out = self.combine(ctx, out, x)
        return out


def _elementwise(primitive: str, hint: str):
    def combine(self, ctx, x, y):
        return ctx.graph.op(primitive, x, y, shape=x.shape, hint=hint)
    return combine


class Subtract(_Merge):
    """``a - b`` of exactly two tensors."""

    least = most = 2
    combine = _elementwise("__sub", "subtract")


class Multiply(_Merge):
    """The element-wise product of the tensors."""

    combine = _elementwise("__mul", "multiply")


class Maximum(_Merge):
    """The element-wise maximum of the tensors."""

    combine = _elementwise("maximum", "maximum")


class Minimum(_Merge):
    """The element-wise minimum of the tensors."""

    combine = _elementwise("minimum", "minimum")


class Average(_Merge):
    """The element-wise mean of the tensors."""

    combine = _elementwise("__add", "average")

    def forward(self, ctx, *xs):
        total = super().forward(ctx, *xs)
        return ctx.graph.op("__div", total, float(len(xs)), shape=total.shape, hint="average")


class Concatenate(_Merge):
    """The tensors joined along ``axis`` (default -1, not the batch axis)."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = args.integer(axis, "axis", "Concatenate", minimum=-(2 ** 31))

    def layer_config(self) -> dict:
        return {"axis": self.axis}

    def mask_flags(self, masked, options):
        return any(masked)

    def forward_masked(self, ctx, xs, masks, options):
        return self.forward(ctx, *xs), self.joined_mask(ctx.graph, xs, masks)

    def graph_mask(self, g, values, masks, options, computed):
        return self.joined_mask(g, values, masks)

    def joined_mask(self, g, xs: list, masks: list) -> Any:
        """Keras 3's ``Concatenate.compute_mask``: each input's mask (an unmasked input
        all kept), broadcast over its last axis, joined along ``axis`` and reduced by
        ``any`` over the last axis: on the last axis the OR of the masks (kept
        everywhere if an input has none), on another the masks joined along it."""
        if all(m is None for m in masks):
            return None
        # (a mask carries no gradient: constant, as a comparison's output)
        full = [g.op("full_like", self._mask_shaped(g, x), True, "bool",
                     shape=x.shape[:-1], hint="kept", constant=True) if m is None else m
                for x, m in zip(xs, masks)]
        if self.resolved_axis == len(xs[0].shape) - 1:
            out = full[0]
            for m in full[1:]:
                out = g.op("logical_or", out, m, shape=out.shape, hint="mask")
            return out
        return g.op("concatenate", full, self.resolved_axis,
                    shape=self.output_shape[:-1], hint="mask")

    @staticmethod
    def _mask_shaped(g, x):
        """``x[..., 0]``: a value of the shape of ``x``'s mask."""
        return g.op("slice", x, *([[None, None]] * (len(x.shape) - 1)), 0,
                    shape=x.shape[:-1], constant=True)

    def merged_shape(self, shapes: list[tuple]) -> tuple:
        rank = len(shapes[0])
        if any(len(s) != rank for s in shapes):
            raise ShapeMismatch(f"joins tensors of one rank, got {shapes}")
        axis = self.axis % rank if -rank <= self.axis < rank else None
        if axis is None or axis == 0:
            raise ShapeMismatch(f"axis {self.axis} is the batch axis or out of range for "
                                f"tensors of rank {rank}")
        others = [tuple(d for i, d in enumerate(s) if i != axis) for s in shapes]
        for shape in others[1:]:
            if not all(map(_compatible, shape, others[0])):
                raise ShapeMismatch(f"joins tensors equal but on axis {self.axis}, got "
                                    f"{shapes}")
        out = list(_merged_shape(shapes))
        sizes = [s[axis] for s in shapes]
        out[axis] = None if None in sizes else sum(sizes)
        self.resolved_axis = axis
        return tuple(out)

    def forward(self, ctx, *xs):
        return ctx.graph.op("concatenate", list(xs), self.resolved_axis,
                            shape=self.output_shape, hint="concat")
