"""softmax, sigmoid, softplus, softsign, hard_sigmoid, elu, l2_normalize, one_hot."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def activations(x):
    return (softmax(x), sigmoid(x), softplus(x), softsign(x), elu(x, 0.5),  # noqa: F821
            l2_normalize(x))  # noqa: F821


@Phylanx
def encode(indices, n):
    return one_hot(indices, n)  # noqa: F821


x = np.array([-1.0, 0.0, 2.0])
got = activations(x)
expected = [np.exp(x) / np.exp(x).sum(), 1 / (1 + np.exp(-x)), np.log1p(np.exp(x)),
            x / (1 + np.abs(x)), np.where(x > 0, x, 0.5 * (np.exp(x) - 1)),
            x / np.sqrt((x * x).sum())]
for g, e in zip(got, expected):
    assert np.allclose(g, e)
assert np.array_equal(encode(np.array([0, 2]), 3), np.eye(3)[[0, 2]])
