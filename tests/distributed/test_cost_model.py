"""Laws of the distributed cost model (``phylanx/distributed/cost_model.py``): more
localities never slow the compute down on a cluster, collectives cost more with more
localities and more bytes, one locality communicates nothing, sharing cores slows
compute in proportion, and the formulas are the documented alpha-beta ones."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phylanx.distributed import cost_model as cm

M = cm.Machine(latency_s=5e-6, seconds_per_byte=1e-10, madd_s=1e-9, element_s=2e-9)
SHARED = cm.Machine(**{**M.__dict__, "cores": 2})
localities = st.integers(1, 256)


@pytest.mark.parametrize("workload", sorted(cm.WORKLOADS))
@pytest.mark.parametrize("variant", ["phylanx", "mpi4py"])
def test_more_localities_are_faster_until_communication_dominates(workload, variant):
    size = cm.FULL_SIZES[workload]
    times = [cm.predict(workload, size, p, M, variant) for p in (1, 2, 4, 8)]
    assert times == sorted(times, reverse=True) and times[-1] < times[0] / 2
    # the speed-up never exceeds the locality count
    assert all(times[0] / t <= p * (1 + 1e-12) for t, p in zip(times, (1, 2, 4, 8)))


@given(p=localities, q=localities, nbytes=st.integers(0, 10 ** 9))
def test_collectives_cost_more_with_more_localities_and_bytes(p, q, nbytes):
    small, large = sorted((p, q))
    for cost in (cm.all_reduce_s, cm.all_gather_s):
        assert cost(nbytes, small, M) <= cost(nbytes, large, M)
        assert cost(nbytes, p, M) <= cost(nbytes + 1000, p, M)


def test_one_locality_communicates_nothing():
    assert cm.all_reduce_s(10 ** 6, 1, M) == cm.all_gather_s(10 ** 6, 1, M) == 0.0
    for case in cm.CASES:
        assert cm.bytes_moved(case, (100, 10), 1) == 0


def test_two_localities_are_latency_plus_bytes_over_bandwidth():
    # what fit_collective assumes when it reads 2-rank all_reduce times
    assert cm.all_reduce_s(4096, 2, M) == pytest.approx(5e-6 + 4096e-10)
    latency, per_byte = cm.fit_collective([(8, cm.all_reduce_s(8, 2, M)),
                                           (2 ** 22, cm.all_reduce_s(2 ** 22, 2, M))])
    assert latency == pytest.approx(M.latency_s + 8 * M.seconds_per_byte)
    assert per_byte == pytest.approx(M.seconds_per_byte)


@given(p=st.integers(2, 64))
def test_latency_grows_with_the_log_of_the_localities(p):
    assert cm.all_reduce_s(0, p, M) == pytest.approx(math.ceil(math.log2(p)) * M.latency_s)


def test_oversubscribed_localities_share_the_cores():
    size = cm.FULL_SIZES["lra"]
    two = cm.predict("lra", size, 2, SHARED, "mpi4py")
    four = cm.predict("lra", size, 4, SHARED, "mpi4py")
    assert four >= two       # 4 ranks on 2 cores: no faster than 2, and more messages
    assert cm.predict("lra", size, 4, M, "mpi4py") < two


def test_bytes_formulas():
    assert cm.bytes_moved("product_tiled_axis", (1000, 7), 4, columns=3) == 7 * 3 * 8
    assert cm.bytes_moved("reduce_tiled_axis", (1000, 7), 4) == 7 * 8
    assert cm.bytes_moved("gather", (1001, 7), 4) == 251 * 7 * 8
    assert cm.bytes_moved("mask_rows", (1001,), 4) == 251
    assert cm.bytes_moved("mask_rows_aligned", (1001,), 4) == 8
    assert cm.bytes_moved("matvec_rows", (1000, 7), 4) == 0
    with pytest.raises(KeyError):
        cm.bytes_moved("no such case", (3,), 2)


def test_phylanx_overhead_is_paid_per_iteration():
    size = dict(cm.FULL_SIZES["power"])
    base = cm.predict("power", size, 2, M, "phylanx", overhead_s=0.0)
    assert cm.predict("power", size, 2, M, "phylanx", overhead_s=1e-3) == pytest.approx(
        base + size["iterations"] * 1e-3)
    assert cm.predict("power", size, 2, M, "mpi4py", overhead_s=1.0) < base + 1e-3


def test_bad_arguments():
    with pytest.raises(ValueError):
        cm.predict("lra", cm.FULL_SIZES["lra"], 0, M)
    with pytest.raises(ValueError):
        cm.predict("lra", cm.FULL_SIZES["lra"], 2, M, "jax")


@given(batch=st.integers(1, 512), length=st.integers(8, 300), filters=st.integers(1, 256),
       p=st.integers(1, 16))
def test_conv1d_stack_flows(batch, length, filters, p):
    # one locality: the convolutions' multiply-adds and the overhead, whatever the flow;
    # the tiled flow makes a subset of the gathered flow's collectives; and it moves
    # fewer bytes than the filter split (every layer's activations instead of its
    # weights, twice as many summed by the all_reduce) when each layer's outputs, B x
    # steps per filter, number at least twice its K x C + 1 weights per filter
    layers = [(5, 3, filters), (3, filters, filters)]
    madds = 3 * batch * ((length - 4) * 5 * 3 * filters + (length - 6) * 3 * filters ** 2)
    for flow in cm.CONV_FLOWS:
        one = cm.conv1d_stack_s(batch, length, layers, 1, M, 1e-11, 1e-3, flow)
        assert one == pytest.approx(madds * 1e-11 + 1e-3)
    t = {flow: cm.conv1d_stack_s(batch, length, layers, p, M, 1e-11, 1e-3, flow)
         for flow in cm.CONV_FLOWS}
    assert t["tiled"] <= t["gathered"]
    bandwidth = cm.Machine(0.0, 1e-10, 0.0, 0.0)
    if batch * (length - 6) >= 2 * (3 * filters + 1) and batch * (length - 4) >= 2 * 16:
        tiled, split = (cm.conv1d_stack_s(batch, length, layers, p, bandwidth, 1e-11, 1e-3,
                                          flow) for flow in ("tiled", "filters"))
        assert tiled <= split
    with pytest.raises(ValueError, match="flow"):
        cm.conv1d_stack_s(batch, length, layers, p, M, 1e-11, 0.0, "rows")


def test_conv1d_stack_tiled_flow_makes_one_all_reduce_per_layer():
    # as ParallelConv1D's backward does since stop 47: the kernel and bias gradients
    # concatenated, one all_reduce (one latency step on 2 ranks) per layer
    layers = [(5, 3, 8), (3, 8, 8)]
    latency = cm.Machine(1.0, 0.0, 0.0, 0.0)
    assert cm.conv1d_stack_s(4, 20, layers, 2, latency, 0.0, 0.0, "tiled") == 2.0
    per_byte = cm.Machine(0.0, 1.0, 0.0, 0.0)
    weights = sum(w * c * f + f for w, c, f in layers) * cm.FLOAT32
    assert cm.conv1d_stack_s(4, 20, layers, 2, per_byte, 0.0, 0.0, "tiled") == \
        pytest.approx(cm.all_reduce_s(weights, 2, per_byte))
