"""Model-parallel Conv1D (conv1d_d, input tiled by batch or length) and column-tiled
Dense (dot_d) == the single-process layers: outputs and gradients, on every rank.

The oracle is NumPy: the layers' forward pass and its hand-written gradients (Keras
semantics: channels last, kernel (k, in, out)), fed the whole arrays; torch is not needed
(it is only an optional test extra).  Prints ``OK <rank>``.
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from phylanx import distributed as dist
from phylanx import nn
from phylanx.nn.model_parallel import ColumnParallelDense, ParallelConv1D

rank, count = dist.find_here(), dist.num_localities()
rng = np.random.default_rng(3)
nn.set_seed(3)


def close(got, want, what):
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"rank {rank}: {what}")


def numpy_conv(x, kernel, bias, ct, padding):
    """relu(conv1d(x) + bias), and the gradients of sum(out * ct) by x, kernel, bias."""
    x, kernel, ct = (a.astype(np.float64) for a in (x, kernel, ct))
    k = kernel.shape[0]
    xp = np.pad(x, ((0, 0), (padding, padding), (0, 0)))
    windows = sliding_window_view(xp, k, axis=1)            # (n, out_len, in, k)
    y = np.einsum("nlck,kco->nlo", windows, kernel) + bias
    out = np.maximum(y, 0.0)
    g = ct * (y > 0)
    dk = np.einsum("nlck,nlo->kco", windows, g)
    dxp = np.zeros_like(xp)
    for j in range(k):
        dxp[:, j:j + g.shape[1], :] += np.einsum("nlo,co->nlc", g, kernel[j])
    return out, dxp[:, padding:padding + x.shape[1]], dk, g.sum(axis=(0, 1))


# -- Conv1D: 6 samples of 9 steps x 2 channels, 4 filters of length 3 ----------------
for padding in ("valid", "same"):
    layer = nn.Conv1D(4, 3, padding=padding, activation="relu")
    layer.build_for((None, 9, 2))
    layer.weights[1].value = rng.normal(size=4).astype(np.float32)
    x = rng.normal(size=(6, 9, 2)).astype(np.float32)
    kernel, bias = (w.value for w in layer.weights)
    out_len = 7 if padding == "valid" else 9
    ct = rng.normal(size=(6, out_len, 4)).astype(np.float32)
    want = numpy_conv(x, kernel, bias, ct, 0 if padding == "valid" else 1)
    for tiling in ("page", "row"):
        mp = ParallelConv1D(layer)
        out = mp.forward(dist.tiled(x, tiling, name=f"x_{padding}_{tiling}"))
        close(out.gather(), want[0], f"conv1d {padding} {tiling} output")
        if tiling == "page":
            dx, (dk, db) = mp.backward(ct[tuple(slice(a, b) for a, b in out.box)])
            close(dx.gather(), want[1], f"conv1d {padding} input gradient")
            close(dk, want[2], f"conv1d {padding} kernel gradient")
            close(db, want[3], f"conv1d {padding} bias gradient")
        elif count > 1:
            try:
                mp.backward(ct)
            except Exception as e:    # located: forward only for length tilings
                assert "tiled by batch only" in str(e), e
            else:
                raise AssertionError("a length-tiled backward must be refused")

# -- Dense: 5 samples x 7 features -> 6 units, columns split over the ranks ----------
layer = nn.Dense(6, activation="tanh")
layer.build_for((None, 7))
layer.weights[1].value = rng.normal(size=6).astype(np.float32)
x = rng.normal(size=(5, 7)).astype(np.float32)
ct = rng.normal(size=(5, 6)).astype(np.float32)
kernel, bias = (w.value.astype(np.float64) for w in layer.weights)
y = np.tanh(x @ kernel + bias)
g = ct * (1.0 - y ** 2)
want_dx, want_dk, want_db = g @ kernel.T, x.T @ g, g.sum(axis=0)
mp = ColumnParallelDense(layer)
c0, c1 = mp.columns
out = mp.forward(x)
close(out.local, y[:, c0:c1], "dense output block")
close(out.gather(), y, "dense output")
dx, (dk, db) = mp.backward(ct[:, c0:c1])
close(dx, want_dx, "dense input gradient")
close(dk, want_dk[:, c0:c1], "dense kernel columns' gradient")
close(db, want_db[c0:c1], "dense bias gradient")
print(f"OK {rank}", flush=True)
