"""Model-parallel Conv1D (conv1d_d, input tiled by batch or length) and column-tiled
Dense (dot_d) == the single-process layers: outputs and gradients, on every rank.

The oracle is torch autograd (the layers' Keras semantics: channels last, kernel
(k, in, out)), fed the whole arrays.  Prints ``OK <rank>``.
"""
import numpy as np
import torch

from phylanx import distributed as dist
from phylanx import nn
from phylanx.nn.model_parallel import ColumnParallelDense, ParallelConv1D

rank, count = dist.find_here(), dist.num_localities()
rng = np.random.default_rng(3)
nn.set_seed(3)


def close(got, want, what):
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"rank {rank}: {what}")


def torch_conv(x, kernel, bias, ct, padding):
    xt = torch.tensor(x, requires_grad=True)
    kt = torch.tensor(kernel, requires_grad=True)
    bt = torch.tensor(bias, requires_grad=True)
    y = torch.nn.functional.conv1d(xt.permute(0, 2, 1), kt.permute(2, 1, 0),
                                   padding=padding).permute(0, 2, 1)
    out = torch.relu(y + bt)
    (out * torch.tensor(ct)).sum().backward()
    return out.detach().numpy(), xt.grad.numpy(), kt.grad.numpy(), bt.grad.numpy()


# -- Conv1D: 6 samples of 9 steps x 2 channels, 4 filters of length 3 ----------------
for padding in ("valid", "same"):
    layer = nn.Conv1D(4, 3, padding=padding, activation="relu")
    layer.build_for((None, 9, 2))
    layer.weights[1].value = rng.normal(size=4).astype(np.float32)
    x = rng.normal(size=(6, 9, 2)).astype(np.float32)
    kernel, bias = (w.value for w in layer.weights)
    out_len = 7 if padding == "valid" else 9
    ct = rng.normal(size=(6, out_len, 4)).astype(np.float32)
    want = torch_conv(x, kernel, bias, ct, 0 if padding == "valid" else 1)
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
xt = torch.tensor(x, requires_grad=True)
kt = torch.tensor(layer.weights[0].value, requires_grad=True)
bt = torch.tensor(layer.weights[1].value, requires_grad=True)
yt = torch.tanh(xt @ kt + bt)
(yt * torch.tensor(ct)).sum().backward()
mp = ColumnParallelDense(layer)
c0, c1 = mp.columns
out = mp.forward(x)
close(out.local, yt.detach().numpy()[:, c0:c1], "dense output block")
close(out.gather(), yt.detach().numpy(), "dense output")
dx, (dk, db) = mp.backward(ct[:, c0:c1])
close(dx, xt.grad.numpy(), "dense input gradient")
close(dk, kt.grad.numpy()[:, c0:c1], "dense kernel columns' gradient")
close(db, bt.grad.numpy()[c0:c1], "dense bias gradient")
print(f"OK {rank}", flush=True)
