"""W4: one SGD training step of an MLP 784-512-512-10 (relu, softmax + cross-entropy),
batch 256, float32.

phylanx: ``phylanx.nn`` 's compiled step (forward, generated backward and update in one
execution tree): that is how a phylanx user trains a network, so it is the fair phylanx
column (``phylanx.grad`` of a NumPy loss also works but re-records a tape every call).
NumPy: the same step with a hand-written backward (``benchmarks/nn_step.py``); torch:
autograd + ``torch.optim.SGD``; JAX: ``jax.grad`` under ``jax.jit``.  Every peer starts
from the same weights; the check compares the first step's weight *updates*, so a wrong
gradient cannot hide under the (much larger) weights.
"""
from __future__ import annotations

import numpy as np

from .common import Case, as_arrays

LR = 0.01


def numpy_step(ws, x, labels, lr):
    """One SGD step in plain NumPy, in place; same formulas as phylanx.nn's step."""
    from nn_step import numpy_step as step  # benchmarks/ is on sys.path under run.py
    return step(ws, x, labels, lr)


def data(sizes, batch, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], batch)
    ws = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        ws += [(rng.normal(size=(a, b)) * np.sqrt(2.0 / a)).astype(np.float32),
               np.zeros(b, np.float32)]
    return x, y, ws


def setups(sizes, x, y, w0):
    def numpy_setup():
        ws = [w.copy() for w in w0]
        return lambda: (numpy_step(ws, x, y, LR), ws)[1]

    def phylanx_setup():
        from phylanx import nn
        nn.set_seed(0)
        model = nn.Sequential([nn.Input((sizes[0],))] +
                              [nn.Dense(s, activation="relu") for s in sizes[1:-1]] +
                              [nn.Dense(sizes[-1], activation="softmax")])
        model.compile(nn.SGD(LR), "sparse_categorical_crossentropy")
        model.set_weights([w.copy() for w in w0])
        step, labels = model._program("train"), y.astype(np.int64)

        def run():
            model._train_batch(step, x, labels, True, 0, 0, None)
            return [w.value for w in model.weights]
        return run

    def torch_setup():
        import torch
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
        net = torch.nn.Sequential(*layers[:-1])
        with torch.no_grad():
            for lin, k in zip(net[::2], range(0, len(w0), 2)):
                lin.weight.copy_(torch.from_numpy(w0[k].T.copy()))
                lin.bias.copy_(torch.from_numpy(w0[k + 1]))
        opt = torch.optim.SGD(net.parameters(), lr=LR)
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)

        def run():
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(tx), ty).backward()
            opt.step()
            return [p.T if p.ndim == 2 else p for p in net.parameters()]
        return run

    def jax_setup():
        import jax
        import jax.numpy as jnp

        def loss(params, x, y):
            h = x
            for i in range(0, len(params) - 2, 2):
                h = jax.nn.relu(h @ params[i] + params[i + 1])
            logits = h @ params[-2] + params[-1]
            return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(len(y)), y])

        @jax.jit
        def step(params, x, y):
            g = jax.grad(loss)(params, x, y)
            return [p - LR * d for p, d in zip(params, g)]
        state = {"p": [jnp.asarray(w) for w in w0]}
        jx, jy = jnp.asarray(x), jnp.asarray(y)
        jax.block_until_ready(step(state["p"], jx, jy))   # compile on a throw-away step

        def run():
            state["p"] = jax.block_until_ready(step(state["p"], jx, jy))
            return state["p"]
        return run

    return {"numpy": numpy_setup, "phylanx": phylanx_setup, "torch": torch_setup,
            "jax": jax_setup}


def cases(quick: bool) -> list[Case]:
    sizes = [784, 512, 512, 10]
    x, y, w0 = data(sizes, 256)

    def updates(result):
        return [w - w_init for w, w_init in zip(as_arrays(result), w0)]
    return [Case("W4", "W4 MLP 784-512-512-10 SGD step, batch 256, float32",
                 setups(sizes, x, y, w0), tol=1e-3, compare=updates,
                 why_missing={"dask": "no autodiff", "numexpr": "no autodiff"})]
