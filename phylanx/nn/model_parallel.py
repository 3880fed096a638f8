"""Model-parallel layers over localities: Conv1D on a tiled input, Dense with
column-tiled weights (forward and backward; every rank calls them, SPMD).

* :class:`ParallelConv1D` — the input ``(batch, steps, channels)`` is a
  ``DistributedArray`` tiled by batch (``dist.tiled(x, "page")``) or by length
  (``"row"``); the weights are replicated.  ``forward`` is ``conv1d_d`` (halos fetched
  from the neighbours for a length tiling) plus bias and activation, tile by tile: the
  output is tiled like the input.  Tiled by batch alone, every window lies in the
  rank's block: the layer's own forward runs on it as one local program (nothing
  sent).  ``backward(ct)`` gives the input gradient tiled like the input and the full
  kernel and bias gradients on every rank (all-reduced).  For a batch tiling it
  differentiates the local computation (the generated backward of :mod:`.graph`; the
  kernel and bias gradients all-reduced together, :func:`_summed_together`).  For a
  length tiling (:func:`_length_tiled_backward`) an input row feeds the outputs whose
  windows cover it, some of them on the neighbours: each rank turns its output
  cotangent into the pre-activation one, fetches the halo of that (the outputs of the
  neighbours whose windows reach into its tile, ``tiles.fetch``), and differentiates
  ``conv1d`` of its rows over the outputs it now has.
* :class:`ColumnParallelDense` — the kernel ``(in, units)`` and the bias are split by
  columns (rank r keeps units ``[c0, c1)``); the input is replicated.  ``forward`` is
  ``dot_d(x, kernel)`` (tiled by the kernel's columns) plus the bias tile and the
  activation.  Softmax runs over the column tiles (:func:`_column_softmax`: the rows'
  maxima and sums of exponentials all-reduced).  ``backward`` gives this rank's kernel
  and bias columns' gradients and the input gradient, summed over the ranks' column
  blocks with one all_reduce (and, for softmax, the sum's cotangent all-reduced: the
  generated backward of a summing all_reduce, ``autodiff.rules_collectives``).

Both are checked against the single-process layer (``tests/distributed/programs/
nn_model_parallel.py``).  ``fit(..., distributed="model")`` trains a model with them:
:mod:`.model_parallel_fit`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import distributed as dist
from .. import execution_tree
from ..autodiff.symbolic import Graph, Var, gradients
from ..errors import PhylanxValueError
from .data_parallel import shard_bounds
from .layers_conv import Conv1D
from .layers_core import Context, Dense


def _compile(name: str, g: Graph, inputs: list, results: Any) -> Any:
    from ..autodiff.symbolic import literal
    body = ", ".join(g.physl() + [literal(results)])
    text = f"define({name}, {', '.join(v.name for v in inputs)}, block({body}))"
    state = execution_tree.compiler_state(f"nn:mp:{name}", f"<nn {name}>")
    execution_tree.compile(state, f"<nn {name}>", name, text)
    function = state.lookup(name)
    return lambda *args: execution_tree.invoke(function, args, {})


def _local_backward(layer: Any, x_shape: tuple, k_shape: tuple, b_shape: tuple | None,
                    reduce_params: bool, reduce_input: bool, forward_op: str):
    """A program ``(x, kernel[, bias], ct) -> list(dx, dkernel[, dbias])``: the layer's
    forward on the local block differentiated with cotangent ``ct``; gradients the
    ranks share are all-reduced (sum) in the program, each under its own name."""
    g = Graph(prefix="m")
    x = g.input("x", x_shape, active=True)
    k = g.input("kernel", k_shape, active=True)
    weights = {"kernel": k}
    if b_shape is not None:
        weights["bias"] = g.input("bias", b_shape, active=True)
    out = layer.forward(Context(g, weights, True), x)
    ct = g.input("ct", out.shape)
    loss = g.op("sum", g.op("__mul", out, ct, shape=out.shape), shape=())
    wrt = [x, *weights.values()]
    grads = gradients(g, loss, wrt)
    results = []
    for var, grad, what in zip(wrt, grads, ["input", *weights]):
        if grad is None:
            grad = g.op("__mul", var, 0.0, shape=var.shape)
        if what == "input" and reduce_input:
            grad = g.op("all_reduce", grad, "sum", f"mp_{layer.name}_{what}", shape=var.shape)
        results.append(grad)
    if reduce_params:
        results[1:] = _summed_together(g, results[1:], f"mp_{layer.name}_weights")
    return _compile(f"{forward_op}_{layer.name}_backward", g, [*wrt, ct], results)


def _summed_together(g: Graph, grads: list[Var], name: str) -> list[Var]:
    """``grads`` summed over the ranks by one all_reduce of them concatenated (a sum is
    taken element by element, so each one's span of the result is its sum): one
    collective round per layer instead of one per weight."""
    if len(grads) == 1:
        return [g.op("all_reduce", grads[0], "sum", name, shape=grads[0].shape)]
    sizes = [int(np.prod(v.shape, dtype=np.int64)) for v in grads]
    packed = g.op("concatenate", grads, None, shape=(sum(sizes),))
    whole = g.op("all_reduce", packed, "sum", name, shape=(sum(sizes),))
    summed, offset = [], 0
    for grad, size in zip(grads, sizes):
        span = g.op("slice", whole, [offset, offset + size], shape=(size,))
        if len(grad.shape) != 1:
            span = g.op("reshape", span, list(grad.shape), shape=grad.shape)
        summed.append(span)
        offset += size
    return summed


def _column_softmax(g: Graph, z: Var, name: str) -> Var:
    """Softmax over the last axis of logits whose columns are split over the ranks (this
    rank's block ``z``): every row's maximum and sum of exponentials all-reduced.  The
    maximum only keeps ``exp`` finite and cancels in the result: it is a constant of the
    differentiation (softmax is shift-invariant); the sum's is (its cotangents are all-reduced)."""
    rows = (z.shape[0], 1)
    top = g.op("all_reduce", g.op("amax", z, -1, True, shape=rows), "max",
               f"mp_{name}_softmax_max", shape=rows, constant=True)
    e = g.op("exp", g.op("__sub", z, top, shape=z.shape), shape=z.shape)
    total = g.op("all_reduce", g.op("sum", e, -1, True, shape=rows), "sum",
                 f"mp_{name}_softmax_sum", shape=rows)
    return g.op("__div", e, total, shape=z.shape, hint="softmax")


def _activate(layer: Any, g: Graph, y: Var, split_columns: bool) -> Var:
    from . import activations
    if split_columns and layer.activation == "softmax":
        return _column_softmax(g, y, layer.name)
    return activations.apply(layer.activation, g, y)


def _epilogue(layer: Any, shape: tuple, split_columns: bool = False):
    """``activation(y + bias)`` on a local block (its columns split over the ranks when
    ``split_columns``), as a compiled program."""
    g = Graph(prefix="e")
    y = g.input("y", shape)
    inputs = [y]
    if layer.use_bias:
        b = g.input("bias", (shape[-1],))
        inputs.append(b)
        y = g.op("__add", y, b, shape=shape)
    out = _activate(layer, g, y, split_columns)
    return _compile(f"epilogue_{layer.name}", g, inputs, out)


class ParallelConv1D:
    """A built :class:`~.layers_conv.Conv1D` applied to a tiled input (see module doc)."""

    def __init__(self, layer: Conv1D) -> None:
        if not isinstance(layer, Conv1D) or not layer.built:
            raise PhylanxValueError("ParallelConv1D takes a built Conv1D layer")
        self.layer = layer
        self._backward = None
        self._programs: dict = {}
        self._x: Any = None
        self._y: Any = None

    def forward(self, x: dist.DistributedArray) -> dist.DistributedArray:
        layer = self.layer
        kernel = layer.weights[0].value
        if _by_batch_alone(x.layout):
            return self._batch_forward(x)
        if "conv1d_d" not in self._programs:
            self._programs["conv1d_d"] = _conv1d_d(layer)
        y = self._programs["conv1d_d"](x, kernel)
        self._x, self._y = x, y
        # compiled once per block shape (a compilation costs a few ms: fit calls this
        # every step)
        key = ("forward", tuple(y.local.shape[1:]))
        if key not in self._programs:
            self._programs[key] = _epilogue(layer, (None,) + key[1])
        epilogue = self._programs[key]
        args = [y.local] + ([layer.weights[1].value] if layer.use_bias else [])
        return y.derive(np.asarray(epilogue(*args), np.float32), y.layout)

    def _batch_forward(self, x: dist.DistributedArray) -> dist.DistributedArray:
        """An input tiled by batch alone: every window lies in the rank's tile, so the
        output block is the single-process layer on the input block (one compiled
        program: convolution, bias, activation), and nothing is sent."""
        from ..distributed.darray import merged, plain_operands
        from ..distributed.tiles import Layout
        layer = self.layer
        key = ("batch forward", tuple(x.local.shape[1:]))
        if key not in self._programs:
            g = Graph(prefix="f")
            h = g.input("x", (None,) + key[1])
            weights = {"kernel": g.input("kernel", layer.weights[0].value.shape)}
            if layer.use_bias:
                weights["bias"] = g.input("bias", layer.weights[1].value.shape)
            out = layer.forward(Context(g, weights, False), h)
            self._programs[key] = (_compile(f"conv1d_{layer.name}_forward", g,
                                            [h, *weights.values()], out), out.shape[1:])
        program, rest = self._programs[key]
        weights = [w.value for w in layer.weights]
        y = np.asarray(program(x.local, *weights), np.float32)
        layout = Layout([(box[0], *((0, n) for n in rest)) for box in x.layout.boxes],
                        (x.shape[0], *rest))
        out = x.derive(y, layout)
        # the weights are plain operands every rank must pass alike (conv1d_d checks
        # them): their digests go with the output, checked at its next exchange
        out.plain = merged(out.plain, plain_operands(
            [x, *weights], f"conv1d of layer '{layer.name}'", None))
        self._x, self._y = x, out
        return out

    def backward(self, ct: Any) -> tuple[dist.DistributedArray, list[np.ndarray]]:
        """(input gradient tiled like the input, [kernel gradient, bias gradient]) for
        the cotangent ``ct`` of the output (tiled like it, or this rank's block)."""
        x = self._x
        if x is None:
            raise PhylanxValueError("ParallelConv1D.backward needs a forward first")
        block = ct.local if isinstance(ct, dist.DistributedArray) else np.asarray(ct)
        if block.shape != self._y.local.shape:
            raise PhylanxValueError(
                f"ParallelConv1D '{self.layer.name}': the cotangent block {block.shape} is "
                f"not this rank's output block {self._y.local.shape}")
        if not _by_batch_alone(x.layout):
            return _length_tiled_backward(self, block.astype(np.float32, copy=False))
        layer = self.layer
        if self._backward is None:
            self._backward = _local_backward(
                layer, (None,) + tuple(x.local.shape[1:]), layer.weights[0].value.shape,
                layer.weights[1].value.shape if layer.use_bias else None,
                reduce_params=True, reduce_input=False, forward_op="conv1d")
        grads = self._backward(x.local, *[w.value for w in layer.weights], block)
        return x.derive(np.asarray(grads[0]), x.layout), [np.asarray(g) for g in grads[1:]]


def _by_batch_alone(layout: Any) -> bool:
    """Whether every rank's tile spans all the steps and channels (the batch alone is
    split).  Not ``layout.split_axes()``, which skips empty tiles: a length shorter
    than the rank count is all on the first ranks, the others' tiles empty, and each
    rank's block is not its samples' sequences."""
    full = [(0, n) for n in layout.shape[1:]]
    return all(list(box[1:]) == full for box in layout.boxes)


def _conv1d_d(layer: Conv1D):
    """``(x, kernel) -> conv1d_d(x, kernel, ...)`` with the layer's padding, strides and
    dilation, compiled once (``phylanx.evaluate`` compiles its text at every call: a
    few ms, each step)."""
    name = f"conv1d_d_{layer.name}"
    text = (f'define({name}, x, k, conv1d_d(x, k, "{layer.padding}", {layer.strides}, '
            f'{layer.dilation_rate}))')
    state = execution_tree.compiler_state(f"nn:mp:{name}", f"<nn {name}>")
    execution_tree.compile(state, f"<nn {name}>", name, text)
    function = state.lookup(name)
    return lambda x, kernel: execution_tree.invoke(function, (x, kernel), {})


class ColumnParallelDense:
    """A built :class:`~.layers_core.Dense` whose kernel and bias columns are split over
    the localities (see module doc)."""

    def __init__(self, layer: Dense) -> None:
        if not isinstance(layer, Dense) or not layer.built:
            raise PhylanxValueError("ColumnParallelDense takes a built Dense layer")
        units = layer.units
        rank, count = dist.find_here(), dist.num_localities()
        if units < count:
            raise PhylanxValueError(f"ColumnParallelDense '{layer.name}': {units} units "
                                    f"cannot be split over {count} localities")
        self.layer = layer
        self.columns = shard_bounds(units, rank, count)
        c0, c1 = self.columns
        kernel = layer.weights[0].value
        self.kernel = dist.annotate(np.ascontiguousarray(kernel[:, c0:c1]),
                                    f"{layer.name}_kernel",
                                    ["tile", ["rows", 0, kernel.shape[0]], ["columns", c0, c1]])
        self.bias = layer.weights[1].value[c0:c1] if layer.use_bias else None
        self._backward = None
        self._epilogue = None
        self._x: Any = None

    def forward(self, x: Any) -> dist.DistributedArray:
        """``activation(x @ kernel + bias)`` tiled by columns (``x`` replicated)."""
        import phylanx
        x = np.asarray(x, np.float32)
        y = phylanx.evaluate("lambda(x, w, dot_d(x, w))", x, self.kernel)
        self._x = x
        if self._epilogue is None:     # compiled once (fit calls this every step)
            self._epilogue = _epilogue(self.layer, (None, self.columns[1] - self.columns[0]),
                                       split_columns=True)
        epilogue = self._epilogue
        args = [y.local] + ([self.bias] if self.bias is not None else [])
        return y.derive(np.asarray(epilogue(*args), np.float32), y.layout)

    def backward(self, ct: Any) -> tuple[np.ndarray, list[np.ndarray]]:
        """(input gradient, replicated; [this rank's kernel columns' gradient, its bias
        entries' gradient]) for the output cotangent ``ct`` (tiled like the output, or
        this rank's column block)."""
        if self._x is None:
            raise PhylanxValueError("ColumnParallelDense.backward needs a forward first")
        layer = self.layer
        if self._backward is None:
            self._backward = _local_backward(
                _LocalDense(layer, self.columns), (None, self._x.shape[1]),
                self.kernel.local.shape, self.bias.shape if self.bias is not None else None,
                reduce_params=False, reduce_input=True, forward_op="dense")
        block = ct.local if isinstance(ct, dist.DistributedArray) else np.asarray(ct)
        args = [self._x, self.kernel.local] + ([self.bias] if self.bias is not None else [])
        grads = self._backward(*args, block)
        return np.asarray(grads[0]), [np.asarray(g) for g in grads[1:]]


class _LocalDense(Dense):
    """The rank's column block of a Dense layer, for writing its local program."""

    def __init__(self, layer: Dense, columns: tuple[int, int]) -> None:
        self.__dict__.update(layer.__dict__)
        self.units = columns[1] - columns[0]

    def forward(self, ctx, x):
        g, w = ctx.graph, ctx.weights
        shape = (x.shape[0], self.units)
        y = g.op("dot", x, w["kernel"], shape=shape, hint="dense")
        if self.use_bias:
            y = g.op("__add", y, w["bias"], shape=shape)
        return _activate(self, g, y, split_columns=True)


def _gradient_program(name: str, g: Graph, loss: Var, wrt: list[Var], extra: list[Var]):
    """``(*wrt, *extra) -> list(d loss / d w for w in wrt)`` compiled (zeros where the
    loss does not depend on ``w``)."""
    grads = gradients(g, loss, wrt)
    results = [grad if grad is not None else g.op("__mul", var, 0.0, shape=var.shape)
               for var, grad in zip(wrt, grads)]
    return _compile(name, g, [*wrt, *extra], results)


def _epilogue_backward(layer: Conv1D, shape: tuple):
    """``(y, [bias,] ct) -> list(dy, [dbias])``: the cotangent of ``activation(y + bias)``
    taken back to the convolution's output ``y`` (and to the bias)."""
    g = Graph(prefix="eb")
    y = g.input("y", shape, active=True)
    wrt = [y]
    z = y
    if layer.use_bias:
        b = g.input("bias", (shape[-1],), active=True)
        wrt.append(b)
        z = g.op("__add", y, b, shape=shape)
    from . import activations
    out = activations.apply(layer.activation, g, z)
    ct = g.input("ct", shape)
    loss = g.op("sum", g.op("__mul", out, ct, shape=shape), shape=())
    return _gradient_program(f"epilogue_{layer.name}_backward", g, loss, wrt, [ct])


def _conv_backward(layer: Conv1D, e_shape: tuple, k_shape: tuple, g_shape: tuple):
    """``(e, kernel, g) -> list(de, dkernel)`` for ``sum(conv1d(e, kernel, "valid") * g)``:
    ``e`` is the input segment that the outputs of ``g`` read (conv1d is linear in
    ``e``, so ``de`` does not depend on its values)."""
    gr = Graph(prefix="cb")
    e = gr.input("e", e_shape, active=True)
    k = gr.input("kernel", k_shape, active=True)
    out = gr.op("conv1d", e, k, "valid", layer.strides, layer.dilation_rate, shape=g_shape)
    ct = gr.input("g", g_shape)
    loss = gr.op("sum", gr.op("__mul", out, ct, shape=g_shape), shape=())
    return _gradient_program(f"conv1d_{layer.name}_segment_backward", gr, loss, [e, k], [ct])


def _reach_of(span: tuple[int, int], stride: int, pad_left: int, reach: int,
              out_len: int) -> tuple[int, int]:
    """Outputs ``[p0, p1)`` whose window (input rows ``o * stride - pad_left`` on, ``reach``
    long) meets the input rows ``span``."""
    s0, s1 = span
    if s1 <= s0:
        return 0, 0
    p0 = max(0, -(-(s0 + pad_left - reach + 1) // stride))
    p1 = min(out_len, (s1 - 1 + pad_left) // stride + 1)
    return (p0, p1) if p1 > p0 else (0, 0)


def _length_tiled_backward(mp: ParallelConv1D, ct: np.ndarray):
    """The backward pass of :class:`ParallelConv1D` over an input tiled by length (and
    possibly by batch): see the module doc.  Collective (every rank calls it)."""
    from ..distributed import tiles
    from ..distributed.primitives.dist_keras_support.conv1d import _geometry
    layer, x, y = mp.layer, mp._x, mp._y
    kernel = layer.weights[0].value
    width, channels, filters = kernel.shape
    stride, dilation = layer.strides, layer.dilation_rate
    length = x.shape[1]
    out_len, pad_left = _geometry(length, width, layer.padding, stride, dilation)
    reach = dilation * (width - 1) + 1

    # 1. the cotangent of the convolution's output on this rank's output block (+ dbias)
    bias = [layer.weights[1].value] if layer.use_bias else []
    if y.local.size:
        key = ("epilogue", y.local.shape)
        if key not in mp._programs:
            mp._programs[key] = _epilogue_backward(layer, (None,) + tuple(y.local.shape[1:]))
        parts = [np.asarray(v, np.float32) for v in
                 mp._programs[key](y.local.astype(np.float32, copy=False), *bias, ct)]
    else:       # no output here (a short tile): nothing to differentiate, still collective
        parts = [np.zeros(y.local.shape, np.float32), np.zeros(filters, np.float32)]
    g_local = parts[0]

    # 2. the halo: every output whose window reads a row of this rank's tile
    (b0, b1), span = x.box[0], x.box[1]
    p0, p1 = _reach_of(span, stride, pad_left, reach, out_len)
    g_seg = tiles.fetch(g_local, y.layout, [((b0, b1), (p0, p1), (0, filters))])[0]

    # 3. conv1d of this rank's rows (zeros elsewhere) read by those outputs: its input
    #    gradient is this tile's, and its kernel gradient this tile's share of the total
    dx = np.zeros(x.local.shape, np.float32)
    dk = np.zeros(kernel.shape, np.float32)
    if p1 > p0 and b1 > b0:
        e0, e_len = p0 * stride - pad_left, (p1 - p0 - 1) * stride + reach
        lo, hi = max(span[0], e0), min(span[1], e0 + e_len)
        e = np.zeros((b1 - b0, e_len, channels), np.float32)
        e[:, lo - e0:hi - e0] = x.local[:, lo - span[0]:hi - span[0]]
        key = ("conv", e.shape, g_seg.shape)
        if key not in mp._programs:
            mp._programs[key] = _conv_backward(layer, (None, e_len, channels), kernel.shape,
                                               (None, p1 - p0, filters))
        de, dk = (np.asarray(v, np.float32) for v in mp._programs[key](e, kernel, g_seg))
        dx[:, lo - span[0]:hi - span[0]] = de[:, lo - e0:hi - e0]
    name = f"mp_{layer.name}_length"
    grads = [np.asarray(dist.all_reduce(dk, "sum", f"{name}_kernel").result(), np.float32)]
    if layer.use_bias:
        db = parts[1]
        grads.append(np.asarray(dist.all_reduce(db, "sum", f"{name}_bias").result(),
                                np.float32))
    return x.derive(dx, x.layout), grads
