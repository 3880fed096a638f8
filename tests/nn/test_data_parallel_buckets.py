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
    # every member once, in completion order
    assert [m for b in buckets for m in b] == given_members
    if cap == 0:
        assert all(len(b) == 1 for b in buckets)
        return
    limit = alone = min(data_parallel.FIRST_BUCKET_MB, cap) * 2 ** 20
    for i, bucket in enumerate(buckets):
        assert len({w for _, _, w in bucket}) == 1        # one weighting per bucket
        # a gradient of the first limit or more is alone (reduced in place, no copy)
        assert len(bucket) == 1 or all(nbytes(m) < alone for m in bucket)
        # without its last member a bucket was under its cap (else it would have closed)
        assert sum(nbytes(m) for m in bucket[:-1]) < limit
        following = buckets[i + 1] if i + 1 < len(buckets) else None
        if following is not None and following[0][2] == bucket[-1][2]:
            full = sum(nbytes(m) for m in bucket) >= limit
            # closed because full, or because a large gradient comes next
            assert full or nbytes(following[0]) >= alone
            if full:
                limit = cap * 2 ** 20       # the first full bucket was the small one


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


@pytest.mark.parametrize("cap, reductions", [(0, 6), (0.1, 3), (25, 1)])
def test_one_all_reduce_per_bucket_each_started_after_its_last_gradient(cap, reductions):
    """Kernels 40x300 (47 kB), 300x200 (234 kB), 200x5: at 0.1 MB the last layer's
    gradients and the middle bias make the first bucket, the middle kernel (over 0.1 MB)
    is reduced alone, the first layer's gradients (49 kB) make the third; at 25 MB one
    bucket (1 MB first) holds all 6."""
    model = mlp()
    x, y = data()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0, distributed="data",
              bucket_cap_mb=cap)
    text = model._programs[f"train:data:bucket={cap:g}"].text
    grads = re.findall(r'all_reduce\(\w+, "sum", "(grad_[^"]*)"', text)
    assert len(grads) == reductions, grads
    # loss and accuracy: weighted, a bucket of their own before the backward pass
    assert len(re.findall(r'all_reduce\(\w+, "sum", "nn_', text)) == (1 if cap else 2)
    if reductions > 1:
        # overlap: the first bucket's all_reduce precedes the first layer's gradient
        first = text.index(f'"{grads[0]}"')
        assert first < text.index('"' + grads[-1] + '"')
        assert grads[0].startswith("grad_dense_2_"), grads


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
