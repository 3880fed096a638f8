"""Model-parallel Conv1D (conv1d_d, input tiled by batch, by length or unevenly by length;
paddings, strides, dilation) and column-tiled
Dense (dot_d) == the single-process layers: outputs and gradients, on every rank.

The oracle is NumPy: the layers' forward pass and its hand-written gradients (Keras
semantics: channels last, kernel (k, in, out)), fed the whole arrays; torch is not needed
(it is only an optional test extra).  Prints ``OK <rank>``.
"""
import numpy as np

from phylanx import distributed as dist
from phylanx import nn
from phylanx.nn.model_parallel import ColumnParallelDense, ParallelConv1D

rank, count = dist.find_here(), dist.num_localities()
rng = np.random.default_rng(3)
nn.set_seed(3)


def close(got, want, what):
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"rank {rank}: {what}")


def numpy_conv(x, kernel, bias, ct, padding, stride=1, dilation=1, relu=True):
    """act(conv1d(x) + bias) (Keras padding, strides, dilation), and the gradients of
    sum(out * ct) by x, kernel, bias."""
    x, kernel, ct = (a.astype(np.float64) for a in (x, kernel, ct))
    n, length, _ = x.shape
    k = kernel.shape[0]
    span = dilation * (k - 1) + 1
    if padding == "valid":
        out_len, left, right = (length - span) // stride + 1, 0, 0
    else:
        out_len = -(-length // stride)
        total = max((out_len - 1) * stride + span - length, 0)
        left, right = total // 2, total - total // 2
    xp = np.pad(x, ((0, 0), (left, right), (0, 0)))
    taps = [slice(j * dilation, j * dilation + stride * (out_len - 1) + 1, stride)
            for j in range(k)]
    y = sum(np.einsum("nlc,co->nlo", xp[:, t], kernel[j]) for j, t in enumerate(taps))
    y = y + (0.0 if bias is None else bias)
    out = np.maximum(y, 0.0) if relu else y
    g = ct * (y > 0) if relu else ct
    dk = np.stack([np.einsum("nlc,nlo->co", xp[:, t], g) for t in taps])
    dxp = np.zeros_like(xp)
    for j, t in enumerate(taps):
        dxp[:, t] += g @ kernel[j].T
    return out, dxp[:, left:left + length], dk, g.sum(axis=(0, 1))


def uneven(x, name):
    """``x`` tiled by length into uneven tiles, some shorter than a dilated window."""
    cuts = {1: [0, 11], 2: [0, 3, 11], 3: [0, 2, 9, 11]}[count]
    r0, r1 = cuts[rank], cuts[rank + 1]
    return dist.annotate(np.ascontiguousarray(x[:, r0:r1]), name,
                         ["tile", ["pages", 0, x.shape[0]], ["rows", r0, r1],
                          ["columns", 0, x.shape[2]]])


def tile(x, tiling, name):
    return uneven(x, name) if tiling == "uneven" else dist.tiled(x, tiling, name=name)


# -- Conv1D: 6 samples of 11 steps x 2 channels, 4 filters of length 3 ---------------
cases = [(padding, stride, dilation, True) for padding in ("valid", "same")
         for stride, dilation in ((1, 1), (2, 1), (1, 2))] + [("same", 3, 1, False)]
for padding, stride, dilation, with_bias in cases:
    layer = nn.Conv1D(4, 3, strides=stride, dilation_rate=dilation, padding=padding,
                      activation="relu" if with_bias else None, use_bias=with_bias)
    layer.build_for((None, 11, 2))
    if with_bias:
        layer.weights[1].value = rng.normal(size=4).astype(np.float32)
    x = rng.normal(size=(6, 11, 2)).astype(np.float32)
    kernel = layer.weights[0].value
    bias = layer.weights[1].value if with_bias else None
    out_len = layer.compute_output_shape((6, 11, 2))[1]
    ct = rng.normal(size=(6, out_len, 4)).astype(np.float32)
    want = numpy_conv(x, kernel, bias, ct, padding, stride, dilation, relu=with_bias)
    for tiling in ("page", "row", "uneven"):
        what = f"conv1d {padding} stride {stride} dilation {dilation} {tiling}"
        mp = ParallelConv1D(layer)
        out = mp.forward(tile(x, tiling, f"x_{padding}_{stride}_{dilation}_{tiling}"))
        close(out.gather(), want[0], f"{what} output")
        for _ in range(2):     # the second call reuses the compiled programs
            dx, grads = mp.backward(ct[tuple(slice(a, b) for a, b in out.box)])
            assert dx.layout == mp._x.layout, what
            close(dx.gather(), want[1], f"{what} input gradient")
            close(grads[0], want[2], f"{what} kernel gradient")
            if with_bias:
                close(grads[1], want[3], f"{what} bias gradient")
            else:
                assert len(grads) == 1, what
    try:                           # the whole cotangent instead of this rank's block
        mp.backward(ct if count > 1 else ct[:, :-1])
    except Exception as e:
        assert "not this rank's output block" in str(e), e
    else:
        raise AssertionError("a cotangent of the wrong shape must be refused")

# ranks whose kernels differ (no common seed): an error at the output's gather naming
# the kernel, as conv1d_d's plain operands (the batch tiling runs no conv1d_d)
if count > 1:
    layer = nn.Conv1D(4, 3, padding="causal")
    layer.build_for((None, 11, 2))
    layer.weights[0].value = layer.weights[0].value + rank
    out = ParallelConv1D(layer).forward(dist.tiled(rng.normal(size=(6, 11, 2)), "page",
                                                   name="x_disagreeing_kernels"))
    try:
        out.gather()
    except dist.PhylanxCollectiveMismatchError as e:
        assert "different values for a plain operand" in str(e) and layer.name in str(e), e
    else:
        raise AssertionError("ranks with different kernels must be an error")

# -- Dense: 5 samples x 7 features -> 6 or 7 units, columns split over the ranks -----
def numpy_dense(x, kernel, bias, ct, activation):
    """act(x @ kernel + bias) and the gradients of sum(out * ct) by x, kernel, bias."""
    z = x @ kernel + bias
    if activation == "tanh":
        y = np.tanh(z)
        g = ct * (1.0 - y ** 2)
    else:                                   # softmax over every column
        e = np.exp(z - z.max(axis=1, keepdims=True))
        y = e / e.sum(axis=1, keepdims=True)
        g = y * (ct - (ct * y).sum(axis=1, keepdims=True))
    return y, g @ kernel.T, x.T @ g, g.sum(axis=0)


# softmax: 7 units split unevenly; logits near 100 on some columns (exp overflows
# float32 unless shifted by the global row maximum)
for units, activation, shift in ((6, "tanh", 0.0), (7, "softmax", 0.0), (7, "softmax", 100.0)):
    layer = nn.Dense(units, activation=activation)
    layer.build_for((None, 7))
    layer.weights[1].value = (rng.normal(size=units) +
                              shift * (np.arange(units) % 3 == 1)).astype(np.float32)
    x = rng.normal(size=(5, 7)).astype(np.float32)
    ct = rng.normal(size=(5, units)).astype(np.float32)
    kernel, bias = (w.value.astype(np.float64) for w in layer.weights)
    y, want_dx, want_dk, want_db = numpy_dense(x.astype(np.float64), kernel, bias, ct,
                                               activation)
    what = f"dense {activation} (logit shift {shift})"
    mp = ColumnParallelDense(layer)
    c0, c1 = mp.columns
    out = mp.forward(x)
    close(out.local, y[:, c0:c1], f"{what} output block")
    close(out.gather(), y, f"{what} output")
    dx, (dk, db) = mp.backward(ct[:, c0:c1])
    close(dx, want_dx, f"{what} input gradient")
    close(dk, want_dk[:, c0:c1], f"{what} kernel columns' gradient")
    close(db, want_db[c0:c1], f"{what} bias gradient")
print(f"OK {rank}", flush=True)
