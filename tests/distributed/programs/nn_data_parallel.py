"""Data-parallel ``fit`` on every rank == single-process ``fit`` (run under mpiexec).

Each rank trains a small Conv1D/Dropout/Dense model with ``distributed="data"`` and
then, alone, the same model from the same seed without it (the oracle); losses and
weights must agree to float32 rounding.  So must a model with BatchNormalization (after
a Conv1D and after a Dense): its statistics are synchronised over the ranks, moving
statistics included; with ``sync_batchnorm=False`` (each shard's statistics) the losses
must differ from one process's.  The step's timeline (``record_timeline``)
must show the first gradient's all_reduce starting before the last gradient exists;
recorded on rank 0 alone, training goes on as untraced.
Prints ``OK <rank>`` and the overlap figures on rank 0.
"""
import sys

import numpy as np

from phylanx import distributed as dist
from phylanx import nn
from phylanx.nn import data_parallel


def data(n, steps=24):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, n)
    t = np.arange(steps)[None, :, None]
    x = np.sin(t * (0.3 + 0.2 * y[:, None, None]) + rng.uniform(0, 3, (n, 1, 3)))
    return (x + 0.1 * rng.normal(size=x.shape)).astype(np.float32), y


def model(optimizer, steps=24, filters=8):
    nn.set_seed(7)
    nn.clear_session()
    m = nn.Sequential([nn.Input((steps, 3)), nn.Conv1D(filters, 3, activation="relu"),
                       nn.MaxPooling1D(2), nn.Conv1D(filters, 5, activation="relu"),
                       nn.GlobalAveragePooling1D(), nn.Dropout(0.3),
                       nn.Dense(3, activation="softmax")])
    m.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])
    return m


def bn_model(optimizer, steps=24):
    # no bias before a normalisation: its gradient is zero but for rounding, which Adam
    # would scale up to full steps (in one process as much as in several)
    nn.set_seed(7)
    nn.clear_session()
    m = nn.Sequential([nn.Input((steps, 3)), nn.Conv1D(8, 3, use_bias=False),
                       nn.BatchNormalization(momentum=0.8), nn.Activation("relu"),
                       nn.MaxPooling1D(2), nn.Conv1D(8, 5, activation="relu"),
                       nn.GlobalAveragePooling1D(), nn.Dense(6, use_bias=False),
                       nn.BatchNormalization(momentum=0.8, epsilon=1e-2), nn.Activation("tanh"),
                       nn.Dense(3, activation="softmax")])
    m.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])
    return m


def train(distributed, x, y, optimizer, batch_size, epochs=2, make=model, shuffle=True, **kw):
    m = make(optimizer)
    if distributed and dist.find_here() != 0:    # the broadcast must replace these
        m.set_weights([w + 1.0 for w in m.get_weights()])
    h = m.fit(x, y, batch_size=batch_size, epochs=epochs, verbose=0, shuffle=shuffle,
              distributed="data" if distributed else None, **kw)
    return h.history, m.get_weights()


#: single-process runs by the name their checks give them (several checks of one
#: training differ only in how the distributed run reduces its gradients)
REFERENCES: dict[str, tuple] = {}


def check(x, y, optimizer, batch_size, what, make=model, ref=None, shuffle=True, **kw):
    got_h, got_w = train(True, x, y, optimizer(), batch_size, make=make, shuffle=shuffle, **kw)
    if ref is None or ref not in REFERENCES:
        want = train(False, x, y, optimizer(), batch_size, make=make, shuffle=shuffle)
        if ref is not None:
            REFERENCES[ref] = want
    want_h, want_w = want if ref is None else REFERENCES[ref]
    for key in want_h:
        np.testing.assert_allclose(got_h[key], want_h[key], rtol=2e-5, atol=1e-6,
                                   err_msg=f"{what}: {key}")
    for g, w in zip(got_w, want_w):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=2e-6, err_msg=f"{what}: weights")


def overlap(rank, bucket_cap_mb, buckets):
    """With ``bucket_cap_mb``, the gradients of the model below are all-reduced in
    ``buckets`` collectives, the first started before the last gradient exists."""
    data_parallel.record_timeline(True)
    # big enough that the backward pass takes a few ms: with a tiny one the executor's
    # thread may not get the GIL before the main thread has finished the whole step
    x, y = data(64, 96)
    m = model(nn.SGD(0.05), 96, 48)
    fit = dict(batch_size=64, epochs=1, verbose=0, distributed="data",
               bucket_cap_mb=bucket_cap_mb)
    m.fit(x, y, **fit)   # compiles
    steps = []
    for _ in range(3):
        data_parallel.TIMELINE.clear()
        m.fit(x, y, **fit)
        steps.append(data_parallel.timeline())
    data_parallel.record_timeline(False)
    overlapped = []
    for events in steps:
        grads = [e for e in events if e[0].startswith("computed grad_")]
        reduces = sorted((e for e in events if e[0].startswith("reduce grad_")),
                         key=lambda e: e[1])
        assert len(grads) == 6 and len(reduces) == buckets, events
        last_grad = max(e[2] for e in grads)
        first = reduces[0]
        computed = {e[0].split(" ", 1)[1]: e[2] for e in grads}
        for label, start, end in reduces:
            # a gradient reduced alone: its collective started once it existed
            name = label.split(" ", 1)[1]
            assert start >= computed.get(name, start) and end >= start, (label, events)
        # the first gradient's collective started while the backward pass went on
        overlapped.append(first[1] < last_grad)
        if rank == 0:
            ahead = sum(1 for e in reduces if e[1] < last_grad)
            done = sum(1 for e in reduces if e[2] < last_grad)
            # collectives still in flight when a later gradient was computed (the
            # traced step of 24f2018 waited for each where it started: always 0)
            across = sum(1 for r in reduces if any(r[1] < g[2] < r[2] for g in grads))
            print(f"overlap: first all_reduce ({first[0]}) started "
                  f"{1e3 * (last_grad - first[1]):.2f} ms before the last gradient was "
                  f"computed; {ahead}/{buckets} started and {done}/{buckets} completed "
                  f"before it; {across}/{buckets} in flight while a gradient was computed")
    # in at least one step: on a loaded machine (3 ranks on 2 cores) a rank's executor
    # thread may not get a core before that rank's short backward pass has finished
    assert any(overlapped), steps


def main():
    rank = dist.find_here()
    x, y = data(40)
    check(x, y, lambda: nn.Adam(0.01), 12, "adam, batch 12", ref="adam")
    check(x, y, lambda: nn.SGD(0.1, momentum=0.9), 16, "sgd, batch 16")
    check(x[:4], y[:4], lambda: nn.SGD(0.1), 2, "batch 2 (ranks without rows)")
    check(x, y, lambda: nn.Adam(0.01), 12, "batchnorm, adam, batch 12", bn_model)
    check(x, y, lambda: nn.SGD(0.1, momentum=0.9), 16, "batchnorm, sgd, batch 16", bn_model,
          ref="batchnorm sgd")
    # 6 rows in batches of 4 and 2: on 3 ranks shards of 2, 1, 1 rows, then 1, 1, 0
    check(x[:6], y[:6], lambda: nn.SGD(0.1), 4, "batchnorm, batch 4 (short, empty shards)",
          bn_model)
    if dist.num_localities() > 1:    # the synchronisation is what made them agree
        local_h, _ = train(True, x, y, nn.SGD(0.1), 16, make=bn_model, sync_batchnorm=False)
        want_h, _ = train(False, x, y, nn.SGD(0.1), 16, make=bn_model)
        gap = abs(local_h["loss"][-1] - want_h["loss"][-1]) / abs(want_h["loss"][-1])
        assert gap > 1e-3, (local_h, want_h)
    # the gradients in buckets (DDP's): one per gradient, several (the dense layer's and
    # the second conv's bias; its kernel alone; the first conv's); all in one is the
    # default (25 MB), checked by "adam, batch 12" above
    for cap in (0, 0.01):
        check(x, y, lambda: nn.Adam(0.01), 12, f"adam, buckets of {cap} MB",
              bucket_cap_mb=cap, ref="adam")
    check(x, y, lambda: nn.SGD(0.1, momentum=0.9), 16, "batchnorm, sgd, buckets of 1 kB",
          bn_model, bucket_cap_mb=0.001, ref="batchnorm sgd")
    # float64 inputs (taken as float32, as one process takes them) in unshuffled
    # batches (each rank's rows a view of x, not a copy), the last one short (40 rows:
    # 12, 12, 12, 4; on 3 ranks shards of 4, then 2, 1, 1)
    check(x.astype(np.float64), y, lambda: nn.SGD(0.1, momentum=0.9), 12,
          "float64 data, unshuffled, buckets of 10 kB", bucket_cap_mb=0.01, shuffle=False)
    # the timeline recorded on rank 0 alone ("if rank == 0: record_timeline()"): timers
    # around its gradients change no value, and the collectives are the same, so the
    # ranks train together (they refused: "the training program ... differs")
    data_parallel.record_timeline(rank == 0)
    try:
        check(x, y, lambda: nn.Adam(0.01), 12, "adam, traced on rank 0 alone", ref="adam")
        assert bool(data_parallel.timeline()) == (rank == 0)
    finally:
        data_parallel.record_timeline(False)
    if "--overlap" in sys.argv:
        overlap(rank, 0, 6)         # one all_reduce per gradient
        # buckets of 1 kB: the second conv's kernel (46 kB) and the first's (1.7 kB)
        # alone, the loss, accuracy, biases and the dense kernel (0.6 kB) packed
        overlap(rank, 0.001, 3)
    print(f"OK {rank}", flush=True)


if __name__ == "__main__":
    main()
