"""The transformer example's model trained data parallel == one process (under mpiexec).

Each rank trains ``examples/transformer.py``'s encoder block (attention dropout and
dropout on, the masks drawn for the global batch) with ``distributed="data"``, then
alone from the same seed without it (the oracle); losses and weights must agree to
float32 rounding, also with batches that do not split evenly.  Prints ``OK <rank>``.
"""
import pathlib
import sys

import numpy as np

from phylanx import distributed as dist
from phylanx import nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "examples"))
import transformer  # noqa: E402

SIZES = {"steps": 8, "vocab": 10, "dim": 8, "heads": 2, "hidden": 16}


def train(distributed, x, y, batch_size):
    nn.clear_session()
    nn.set_seed(4)
    model = transformer.build(**SIZES, dropout=0.2)
    model.compile(nn.Adam(0.01), "sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, batch_size=batch_size, epochs=2, verbose=0,
                        distributed="data" if distributed else None)
    return history.history, model.get_weights(), [w.name for w in model.weights]


def main():
    x, y = transformer.order_data(44, SIZES["steps"], SIZES["vocab"], seed=2)
    for batch_size in (16, 11):
        got_h, got_w, names = train(True, x, y, batch_size)
        want_h, want_w, _ = train(False, x, y, batch_size)
        for key in want_h:
            np.testing.assert_allclose(got_h[key], want_h[key], rtol=2e-5, atol=1e-6,
                                       err_msg=f"batch {batch_size}: {key}")
        for g, w, name in zip(got_w, want_w, names, strict=True):
            # the key bias adds the same number to every score of a query: the softmax
            # ignores it, its gradient is zero but for rounding (which Adam scales), in
            # one process as in several; it stays ~1e-6
            atol = 1e-5 if name.endswith("key/bias") else 2e-6
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=atol,
                                       err_msg=f"batch {batch_size}: {name}")
    print(f"OK {dist.find_here()}", flush=True)


if __name__ == "__main__":
    main()
