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

Not modelled: the graph also holds the ops computing a recorded mask, and where such an
op reads a layer's output (Concatenate's ``ones_like`` of an unmasked input, Masking's
comparison of its input) it deepens that layer in Keras' order, which can change the
order of its calls (and of ``get_weights``) from the one here.
"""
from __future__ import annotations

from typing import Any


def run_order(calls: list, model_input: Any) -> list:
    """``calls`` (in post-order from the output, as ``model._calls``, which is Keras'
    ``_build_map`` order) in the order Keras 3 runs them."""
    depth: dict[int, int] = {}          # insertion-ordered, as Keras' nodes_depths
    layer_depth: dict[int, int] = {}
    for call in reversed(calls):
        d = max(depth.setdefault(id(call), 0), layer_depth.get(id(call.layer), 0))
        layer_depth[id(call.layer)] = depth[id(call)] = d
        for tensor in call.inputs:
            if tensor.call is not None and tensor is not model_input:
                depth[id(tensor.call)] = max(d + 1, depth.get(id(tensor.call), 0))
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
