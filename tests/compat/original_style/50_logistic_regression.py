"""The original's logistic regression example: a gradient-descent loop."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def lra(x, y, alpha, iterations):
    weights = np.zeros(np.shape(x)[1])
    transx = np.transpose(x)
    pred = np.zeros(np.shape(x)[0])
    error = np.zeros(np.shape(x)[0])
    gradient = np.zeros(np.shape(x)[1])
    step = 0
    while step < iterations:
        pred = 1.0 / (1.0 + np.exp(-np.dot(x, weights)))
        error = pred - y
        gradient = np.dot(transx, error)
        weights = weights - (alpha * gradient)
        step += 1
    return weights


rng = np.random.default_rng(3)
x = rng.normal(size=(40, 3))
y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.float64)
assert np.allclose(lra(x, y, 1e-2, 20), lra.python(x, y, 1e-2, 20))
