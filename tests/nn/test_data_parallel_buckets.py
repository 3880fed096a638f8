"""Data-parallel gradients all-reduced in DDP's buckets (``fit(bucket_cap_mb=...)``):
the bucket plan (consecutive gradients in the order the backward pass completes them,
the first bucket up to 1 MB, the others up to the cap), one all_reduce per bucket
started right after its last gradient, and training that does not depend on the
buckets (single process here: the collective is the identity, so a wrong slice of a
reduced bucket shows as a different model; several ranks in
``tests/distributed/programs/nn_data_parallel.py``)."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import nn
from phylanx.autodiff.symbolic import Var
from phylanx.errors import PhylanxError
from phylanx.nn import data_parallel


def members(shapes, weighted):
    return [(Var(f"v{i}", shape), f"grad_v{i}", w)
            for i, (shape, w) in enumerate(zip(shapes, weighted))]


def nbytes(member):
    return 4 * int(np.prod(member[0].shape, dtype=np.int64))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(1, 300), max_size=2), st.booleans()),
                min_size=1, max_size=12),
       st.sampled_from([0.0, 0.01, 0.1, 0.5, 2.0, 25.0]))
def test_buckets_are_ddp_buckets_of_the_gradients_in_order(spec, cap):
    given_members = members([tuple(s) for s, _ in spec], [w for _, w in spec])
    buckets = data_parallel._buckets(given_members, cap)
    order = {id(m): i for i, m in enumerate(given_members)}
    # every member once; each bucket in completion order, the buckets in the order
    # their collectives start (the completion of their last member)
    assert sorted(order[id(m)] for b in buckets for m in b) == list(range(len(spec)))
    assert all([order[id(m)] for m in b] == sorted(order[id(m)] for m in b) for b in buckets)
    ends = [order[id(b[-1])] for b in buckets]
    assert ends == sorted(ends)
    if cap == 0:
        assert all(len(b) == 1 for b in buckets)
        return
    limit = alone = min(data_parallel.FIRST_BUCKET_MB, cap) * 2 ** 20
    packed = [b for b in buckets if nbytes(b[0]) < alone]
    # a gradient of the first limit or more is alone (reduced in place, no copy)
    assert all(len(b) == 1 for b in buckets if nbytes(b[0]) >= alone)
    # the small ones, of either weighting, packed in completion order whatever large
    # ones come between: the concatenated packed buckets are the small members in order
    small = [m for m in given_members if nbytes(m) < alone]
    assert [m for b in packed for m in b] == small
    for i, bucket in enumerate(packed):
        size = sum(nbytes(m) for m in bucket)
        # without its last member a bucket was under its limit (else it would have
        # closed); all but the last reached it (else it would have stayed open)
        assert size - nbytes(bucket[-1]) < limit
        assert i == len(packed) - 1 or size >= limit
        if size >= limit:
            limit = cap * 2 ** 20           # the first full bucket was the small one


def mlp():
    nn.set_seed(3)
    nn.clear_session()
    model = nn.Sequential([nn.Input((40,)), nn.Dense(300, activation="relu"),
                           nn.Dense(200, activation="relu"),
                           nn.Dense(5, activation="softmax")])
    model.compile(optimizer=nn.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(96, 40)).astype(np.float32)
    return x, (x[:, :5].argmax(axis=1) + (x[:, 5] > 0)) % 5


@pytest.mark.parametrize("cap, reductions", [
    (0, ["nn_loss", "nn_metric0", "grad_dense_2_bias", "grad_dense_2_kernel",
         "grad_dense_1_bias", "grad_dense_1_kernel", "grad_dense_bias", "grad_dense_kernel"]),
    (0.03, ["grad_dense_1_kernel", "grad_dense_2_bias_bucket6", "grad_dense_kernel"]),
    (0.1, ["grad_dense_1_kernel", "grad_dense_2_bias_bucket7"]),
    (25, ["grad_dense_2_bias_bucket8"])])
def test_one_all_reduce_per_bucket_each_started_after_its_last_gradient(cap, reductions):
    """Kernels 40x300 (47 kB), 300x200 (234 kB), 200x5 (4 kB), biases, loss and
    accuracy.  At 0.03 MB both large kernels are reduced alone, in place, each right
    after its gradient, and the loss, accuracy, biases and the small kernel in one
    bucket, started once the first layer's bias gradient exists (before its kernel's);
    at 0.1 MB the first layer's kernel joins that bucket (the last one, started after
    it); at 25 MB one bucket holds everything; at 0 each has its own collective (the
    loss and accuracy started before the backward pass)."""
    model = mlp()
    x, y = data()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0, distributed="data",
              bucket_cap_mb=cap)
    text = model._programs[f"train:data:bucket={cap:g}"].text
    # in program order, i.e. the order the collectives start
    assert re.findall(r'all_reduce\(\w+, "sum", "([^"]*)"', text) == reductions
    statements = text.split("define(")[1:]
    for name in reductions:
        # started on the spot: its operand (the gradient, or the bucket packed from its
        # members) is the statement just before
        at = next(i for i, st in enumerate(statements) if f'"{name}"' in st)
        operand = re.search(r"all_reduce\((\w+),", statements[at])[1]
        assert statements[at - 1].startswith(operand + ","), (name, statements[at - 1])


@pytest.mark.parametrize("cap", [0, 0.03])
def test_a_traced_step_starts_its_collectives_bare(cap):
    """With the timeline recorded, the gradient statements are timed but each
    collective stays a bare ``async(all_reduce(...))``, started on the spot: wrapped in
    ``timer``, it was no bare collective, and with several localities ``async``
    evaluated it where it stood, waiting for it (the traced step serialised what it was
    to show overlapping).  Its span comes from the collectives' timeline hook."""
    data_parallel.record_timeline(True)
    try:
        model = mlp()
        x, y = data()
        model.fit(x, y, batch_size=32, epochs=1, verbose=0, distributed="data",
                  bucket_cap_mb=cap)
        assert data_parallel.recording()
        events = data_parallel.timeline()
    finally:
        data_parallel.record_timeline(False)
    assert not data_parallel.recording()
    text = model._programs[f"train:data:bucket={cap:g}:traced"].text
    collectives = re.findall(r'all_reduce\(\w+, "sum", "([^"]*)"', text)
    assert collectives and len(re.findall(r"async\(all_reduce\(", text)) == len(collectives)
    assert "timer(all_reduce" not in text
    # every gradient timed, in each of the 3 steps (one process: no collective, so no
    # "reduce" span)
    assert len(re.findall(r'"computed grad_', text)) == 6
    assert sum(label.startswith("computed grad_") for label, _, _ in events) == 18
    assert all(label.startswith("computed ") and start <= end for label, start, end in events)
    assert not data_parallel.timeline()        # (stopping cleared it)


def test_training_does_not_depend_on_the_buckets():
    x, y = data()
    want = mlp()
    want_h = want.fit(x, y, batch_size=32, epochs=1, verbose=0).history
    for cap in (0, 0.001, 25):
        got = mlp()
        got_h = got.fit(x, y, batch_size=32, epochs=1, verbose=0, distributed="data",
                        bucket_cap_mb=cap).history
        for key in want_h:
            np.testing.assert_allclose(got_h[key], want_h[key], rtol=1e-6,
                                       err_msg=f"{key}, buckets of {cap} MB")
        for g, w in zip(got.get_weights(), want.get_weights()):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7,
                                       err_msg=f"weights, buckets of {cap} MB")


@pytest.mark.parametrize("cap", [-1, float("nan"), "big"])
def test_a_bad_bucket_size_is_refused_before_training(cap):
    model = mlp()
    x, y = data()
    with pytest.raises(PhylanxError, match="bucket_cap_mb must be a number >= 0") as info:
        model.fit(x, y, verbose=0, distributed="data", bucket_cap_mb=cap)
    assert info.value.loc is not None and "test_data_parallel_buckets" in str(
        info.value.loc.file)


def test_recording_follows_the_timeline_switch_for_a_model_already_trained():
    """A model trained untraced, then refit while recording, times its gradients (the
    untraced step, cached, was reused: no gradient in the timeline); refit once
    recording stopped, it no longer appends to the timeline (the traced step, cached,
    went on calling the timeline's callback after ``record_timeline(False)``)."""
    x, y = data()
    model = nn.Sequential([nn.Input((40,)), nn.Dense(3, activation="softmax")])
    model.compile(optimizer=nn.SGD(0.01), loss="sparse_categorical_crossentropy")
    fit = dict(batch_size=48, epochs=1, verbose=0, distributed="data")
    model.fit(x, y % 3, **fit)
    data_parallel.record_timeline(True)
    try:
        model.fit(x, y % 3, **fit)
        events = data_parallel.timeline()
    finally:
        data_parallel.record_timeline(False)
    # 2 steps, 2 gradients each
    assert sum(label.startswith("computed grad_") for label, _, _ in events) == 4, events
    model.fit(x, y % 3, **fit)
    assert data_parallel.TIMELINE == []
