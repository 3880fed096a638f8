"""Keras 3's run-time mask flow through a functional model: the order Keras runs the
layer calls in, and the masks carried by the arrays themselves.

In Keras 3 a mask is an attribute of an array (``backend.set_keras_mask``), not of a
symbolic tensor, and ``MultiHeadAttention.call`` takes the masks off its query, value
and key arrays when it runs.  So whether a layer reading one of those arrays sees its
mask depends on whether it runs before or after the attention: a residual
``Add()([x, attention(x, x)])`` runs after it and sees none on ``x``, so its output
(an OR of masks needing every input's) and the loss after it have none.  Which array
a tensor is matters too: a layer returning its input unchanged (Dropout in
``predict``, or of rate 0) gives the same array, so the attention clears the mask of
both tensors.

:func:`run_order` is Keras' order (``keras.src.ops.function.map_graph`` and
``Function._run_through_graph``): calls by depth (the longest path to the output; a
layer called twice at its deepest call's), deepest first, ties in the order the depths
were first recorded walking back from the output.  :class:`ArrayMasks` keeps a mask per
program value (a :class:`Var` stands for an array), as Keras keeps it per array.

Keras also records masks in the graph: a layer whose ``call`` takes a ``mask`` argument
(RNNs, GlobalAveragePooling1D, BatchNormalization) was given its input's mask when the
model was built, as a symbolic tensor computed by ops of the graph, and the functional
model passes that mask at run time, whatever the array carries (:func:`call_masks`).
(MultiHeadAttention's graph nodes record no ``value_mask``/``key_mask``: it reads all
three masks from the arrays.)  So a masked GlobalAveragePooling1D after a residual
around an attention averages over the unmasked steps, while the loss (which reads the
output array's mask) sees none.

The graph also holds the ops computing a recorded mask, read by the layers whose call
takes it: where such an op reads a layer's output (Concatenate's ``zeros_like`` of a
masked input and ``ones_like`` of an unmasked one, Masking's and Embedding's comparisons
of their inputs) it deepens that layer in Keras' order, and so its place in ``layers``
and ``get_weights`` (:func:`mask_op_reads`, :func:`deepen_by_masks`).  Not modelled:
where those ops' nodes fall in the ties of a depth.
"""
from __future__ import annotations

from typing import Any


def mask_op_reads(tensor: Any, model_input: Any, cache: dict | None = None) -> dict:
    """The layer calls whose outputs the ops computing ``tensor``'s recorded Keras mask
    read, ``{id(call): (call, k)}``: ``call`` is at least ``k`` deeper than the call
    reading the mask (Keras 3.15's ``compute_mask`` ops: Embedding's
    ``not_equal(inputs, 0)``, Masking's ``any(not_equal(...))``, Concatenate's
    ``any(concatenate([logical_or(expand_dims(mask), zeros_like(x)) or ones_like(x)
    ...]))``, the element-wise merges' ``logical_or`` of the masks; other layers pass
    their input's mask tensor on).  ``cache``: the answers per tensor (residual chains
    read each mask many times)."""
    from .layers_attention import Add, TokenAndPositionEmbedding
    from .layers_extra import Embedding, Masking
    from .layers_merge import Concatenate, _Merge

    cache = {} if cache is None else cache
    if id(tensor) in cache:
        return cache[id(tensor)]
    reads: dict = {}

    def read(t, k):                                 # the ops read t's layer's output
        if t.call is not None and t is not model_input:
            old = reads.get(id(t.call), (t.call, 0))[1]
            reads[id(t.call)] = (t.call, max(old, k))

    def through(t, k):                              # they read t's mask
        for call, j in mask_op_reads(t, model_input, cache).values():
            old = reads.get(id(call), (call, 0))[1]
            reads[id(call)] = (call, max(old, k + j))

    call = tensor.call
    if tensor.masked and call is not None and tensor is not model_input:
        layer, inputs = call.layer, call.inputs
        if isinstance(layer, (Embedding, TokenAndPositionEmbedding)):
            read(inputs[0], 2)                      # not_equal, then its input's layer
        elif isinstance(layer, Masking):
            read(inputs[0], 3)                      # any, not_equal, its input's layer
        elif isinstance(layer, Concatenate):        # any, concatenate, then per input:
            for t in inputs:
                if not t.masked:
                    read(t, 4)                      # ones_like(x)
                elif len(t.shape) > 2:              # (the mask one axis short)
                    read(t, 5)                      # zeros_like(x) beside expand_dims
                    through(t, 4)
                else:
                    through(t, 2)
        elif isinstance(layer, (_Merge, Add)):
            if all(t.masked for t in inputs):
                n = len(inputs)                     # or(or(m0, m1), m2) ...
                for i, t in enumerate(inputs):
                    through(t, n - max(i, 1))
        else:
            through(inputs[0], 0)                   # the same mask tensor
    cache[id(tensor)] = reads
    return reads


def deepen_by_masks(call: Any, d: int, depth: dict, model_input: Any,
                    cache: dict) -> None:
    """Keras' depths of the calls the recorded masks read by ``call`` (at depth ``d``;
    only a layer whose call takes the mask has those ops in its graph)."""
    if not call.layer.mask_argument:
        return
    for tensor in call.inputs:
        for reader, k in mask_op_reads(tensor, model_input, cache).values():
            depth[id(reader)] = max(depth.get(id(reader), 0), d + k)


def run_order(calls: list, model_input: Any) -> list:
    """``calls`` (in post-order from the output, as ``model._calls``, which is Keras'
    ``_build_map`` order) in the order Keras 3 runs them."""
    depth: dict[int, int] = {}          # insertion-ordered, as Keras' nodes_depths
    layer_depth: dict[int, int] = {}
    cache: dict = {}
    for call in reversed(calls):
        d = max(depth.setdefault(id(call), 0), layer_depth.get(id(call.layer), 0))
        layer_depth[id(call.layer)] = depth[id(call)] = d
        for tensor in call.inputs:
            if tensor.call is not None and tensor is not model_input:
                depth[id(tensor.call)] = max(d + 1, depth.get(id(tensor.call), 0))
        deepen_by_masks(call, d, depth, model_input, cache)
    by_id = {id(call): call for call in calls}
    # (a stable sort keeps the insertion order within a depth, as nodes_by_depth)
    return [by_id[key] for key in sorted(depth, key=lambda key: -depth[key])]


def call_masks(layer: Any, recorded: list, arrays: list) -> list:
    """The masks a call of ``layer`` reads: a layer whose Keras ``call`` takes a mask
    argument (``layer.mask_argument``: RNNs, GlobalAveragePooling1D, BatchNormalization)
    gets the one recorded in the graph when the model was built (an input with none
    there: its array's), the others read their input arrays' (Keras'
    ``previous_mask``)."""
    return [r if layer.mask_argument and r is not None else a
            for r, a in zip(recorded, arrays, strict=True)]


class ArrayMasks:
    """The Keras mask of each program value (None: none), set when the value is made
    and kept when a layer returns a value it was given (Keras'
    ``_set_mask_metadata`` leaves an array's existing mask)."""

    def __init__(self) -> None:
        self._masks: dict[int, Any] = {}

    def of(self, value: Any) -> Any:
        return self._masks.get(id(value))

    def produced(self, value: Any, mask: Any) -> None:
        if self._masks.get(id(value)) is None:
            self._masks[id(value)] = mask

    def clear(self, value: Any) -> None:
        """What ``MultiHeadAttention.call`` does to its query, value and key."""
        self._masks[id(value)] = None
