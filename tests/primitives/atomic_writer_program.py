"""A writer process for tests/primitives/test_fileio_atomic.py.

``python atomic_writer_program.py KIND PATH ROUNDS`` overwrites PATH with content "b",
then "a", then "b" ... ROUNDS times (0: until killed) through phylanx's writer KIND
(csv, file, hdf5, model).  It prints ``ready`` once imported, and ``writing`` just
before each write, so that a test can kill it while it writes.
The test imports :func:`content` and :func:`write` to know what whole files hold.
"""
from __future__ import annotations

import sys

import numpy as np

KINDS = ("csv", "file", "hdf5", "model")
#: the model's Dense kernel is SIDE x SIDE: a few MB, so a write takes a while
SIDE = 700
#: about how long one write takes here (seconds): tests kill the writer within it
WRITE_TIME = {"csv": 0.05, "file": 0.01, "hdf5": 0.004, "model": 0.005}


def content(kind: str, which: str) -> np.ndarray:
    """The array written as version ``which`` ("a" or "b"); sizes differ on purpose."""
    value = 1.0 if which == "a" else 2.0
    if kind == "csv":
        rows = 1500 if which == "a" else 3000
        return np.full((rows, 40), value) + np.arange(40) / 7.0
    if kind == "model":
        return np.full((SIDE, SIDE), value, dtype=np.float32)
    return np.full(200_000 if which == "a" else 400_000, value)


def _model():
    from phylanx import nn
    return nn.Sequential([nn.Input((SIDE,)), nn.layers.Dense(SIDE, use_bias=False)])


def write(kind: str, path: str, which: str, model=None) -> None:
    """Write version ``which`` of ``kind`` to ``path`` with phylanx's writer."""
    import phylanx
    data = content(kind, which)
    if kind == "model":
        model = model or _model()
        model.set_weights([data])
        model.save(path)
        return
    code = {"csv": "file_write_csv(a0, a1)", "file": "file_write(a0, a1)",
            "hdf5": 'file_write_hdf5(a0, "x", a1)'}[kind]
    state = phylanx.execution_tree.compiler_state("atomic_writer", "<atomic_writer>")
    phylanx.execution_tree.eval(state, f"lambda(a0, a1, {code})", path, data,
                                file_name="<atomic_writer>")


def main(kind: str, path: str, rounds: int) -> None:
    model = _model() if kind == "model" else None
    print("ready", flush=True)
    n = 0
    while rounds == 0 or n < rounds:
        print("writing", flush=True)
        write(kind, path, "b" if n % 2 == 0 else "a", model)
        n += 1


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
