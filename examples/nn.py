"""A one-hidden-layer neural network trained by gradient descent, run through @Phylanx.

    python examples/nn.py [--hidden 16] [--epochs 300] [--lr 0.5] [--csv FILE]
"""
from __future__ import annotations

import argparse

import numpy as np
from _data import breast_cancer

from phylanx import Phylanx


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@Phylanx
def train(x, y, w1, w2, lr, epochs):
    n = x.shape[0]
    target = y.reshape((n, 1))
    for _ in range(epochs):
        hidden = sigmoid(x @ w1)
        out = sigmoid(hidden @ w2)
        delta2 = (out - target) * out * (1 - out)
        delta1 = (delta2 @ w2.T) * hidden * (1 - hidden)
        w2 = w2 - lr * (hidden.T @ delta2) / n
        w1 = w1 - lr * (x.T @ delta1) / n
    return w1, w2


def predict(x, w1, w2):
    return sigmoid(sigmoid(x @ w1) @ w2)[:, 0] > 0.5


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--hidden", type=int, default=16, help="hidden units")
    parser.add_argument("--epochs", type=int, default=300,
                        help="full-batch gradient steps")
    parser.add_argument("--lr", type=float, default=0.5, help="learning rate")
    parser.add_argument("--csv", help="CSV file: header line, features, label in last column")
    args = parser.parse_args(argv)
    x, y, what = breast_cancer(args.csv)
    rng = np.random.default_rng(0)
    w1 = rng.normal(scale=0.1, size=(x.shape[1], args.hidden))
    w2 = rng.normal(scale=0.1, size=(args.hidden, 1))
    w1t, w2t = train(x, y, w1, w2, args.lr, args.epochs)
    w1n, w2n = train.python(x, y, w1, w2, args.lr, args.epochs)
    acc = np.mean(predict(x, w1t, w2t) == (y > 0.5))
    print(f"data: {what}; training accuracy {acc:.4f}")
    print(f"matches NumPy: {np.allclose(w1t, w1n) and np.allclose(w2t, w2n)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
