"""Torch as the oracle (skipped without torch): a Dense MLP and a Conv1D model, trained a
few steps with SGD and Adam from the same initial weights, end with the same weights."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)


def _mlp():
    nn.set_seed(1)
    return nn.Sequential([nn.Input((10,)), nn.Dense(16, activation="relu"),
                          nn.Dense(4, activation="softmax")])


def _torch_mlp(weights):
    w1, b1, w2, b2 = (torch.tensor(w, dtype=torch.float32) for w in weights)
    layers = torch.nn.Sequential(torch.nn.Linear(10, 16), torch.nn.ReLU(),
                                 torch.nn.Linear(16, 4))
    with torch.no_grad():
        layers[0].weight.copy_(w1.T)
        layers[0].bias.copy_(b1)
        layers[2].weight.copy_(w2.T)
        layers[2].bias.copy_(b2)
    return layers, lambda: [layers[0].weight.T, layers[0].bias, layers[2].weight.T,
                            layers[2].bias]


def _cnn():
    nn.set_seed(2)
    return nn.Sequential([nn.Input((12, 3)), nn.Conv1D(5, 3, activation="relu"),
                          nn.MaxPooling1D(2), nn.Conv1D(4, 2, padding="valid"),
                          nn.GlobalAveragePooling1D(), nn.Dense(4, activation="softmax")])


def _torch_cnn(weights):
    k1, b1, k2, b2, w3, b3 = (torch.tensor(w, dtype=torch.float32) for w in weights)
    conv1, conv2 = torch.nn.Conv1d(3, 5, 3), torch.nn.Conv1d(5, 4, 2)
    dense = torch.nn.Linear(4, 4)
    with torch.no_grad():
        conv1.weight.copy_(k1.permute(2, 1, 0))      # (k, in, out) -> (out, in, k)
        conv1.bias.copy_(b1)
        conv2.weight.copy_(k2.permute(2, 1, 0))
        conv2.bias.copy_(b2)
        dense.weight.copy_(w3.T)
        dense.bias.copy_(b3)

    def forward(x):                                   # x: (batch, steps, channels)
        h = torch.relu(conv1(x.permute(0, 2, 1)))
        h = torch.nn.functional.max_pool1d(h, 2)
        h = conv2(h).mean(dim=2)
        return dense(h)

    module = torch.nn.ModuleList([conv1, conv2, dense])
    module.forward = forward
    return module, lambda: [conv1.weight.permute(2, 1, 0), conv1.bias,
                            conv2.weight.permute(2, 1, 0), conv2.bias, dense.weight.T,
                            dense.bias]


@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize("arch", ["mlp", "cnn"])
def test_same_weights_as_torch(arch, kind):
    model = _mlp() if arch == "mlp" else _cnn()
    shape = (10,) if arch == "mlp" else (12, 3)
    x = RNG.normal(size=(24,) + shape).astype(np.float32)
    y = RNG.integers(0, 4, 24)
    start = model.get_weights()
    opt = nn.SGD(0.1, momentum=0.9) if kind == "sgd" else nn.Adam(0.01, epsilon=1e-8)
    model.compile(opt, "sparse_categorical_crossentropy")
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)

    module, weights = (_torch_mlp if arch == "mlp" else _torch_cnn)(start)
    topt = torch.optim.SGD(module.parameters(), lr=0.1, momentum=0.9) if kind == "sgd" \
        else torch.optim.Adam(module.parameters(), lr=0.01, eps=1e-8)
    tx, ty = torch.tensor(x), torch.tensor(y)
    for _ in range(2):
        for start_row in range(0, 24, 8):
            topt.zero_grad()
            logits = module.forward(tx[start_row:start_row + 8])
            torch.nn.functional.cross_entropy(logits, ty[start_row:start_row + 8]).backward()
            topt.step()
    for got, want in zip(model.get_weights(), weights()):
        # Adam: Keras adds epsilon to sqrt(v), torch to sqrt(v / (1 - b2^t)): tiny difference
        np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-3, atol=1e-4)
