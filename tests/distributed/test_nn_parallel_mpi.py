"""Data-parallel ``fit`` under ``mpiexec -n 2, 3`` == single-process ``fit`` (losses and
weights, with Adam/SGD, dropout, synchronised BatchNormalization, uneven and empty
shards), and the gradient
all_reduces overlap the backward pass (``programs/nn_data_parallel.py``); the activity
recognition example ends with the same loss on 1 and 2 localities; the model-parallel
Conv1D (tiled by batch or by length) and Dense give the single-process outputs and
gradients, and ``fit(distributed="model")`` over them trains as one process does
(``programs/nn_model_parallel_fit.py``)."""
from __future__ import annotations

import re
import sys

import pytest

from .test_mpi import ROOT, assert_all_ok, launch, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", (2, 3))
def test_data_parallel_fit_matches_one_process_and_overlaps(k):
    done, _ = program(k, "nn_data_parallel.py", "--overlap", timeout=120)
    assert_all_ok(done, k)
    # rank 0 reports the overlap of each of 3 steps (the assertion ran on every rank)
    # not anchored at a line start: mpiexec may interleave another rank's "OK 1" mid-line
    assert len(re.findall(r"overlap: first all_reduce", done.stdout)) == 3, done.stdout


def test_activity_recognition_example_has_the_same_final_loss_on_1_and_2_localities():
    losses = {}
    for k in (1, 2):
        done, _ = launch(k, sys.executable, str(ROOT / "examples" / "nn_activity_recognition.py"),
                         "--epochs", "2", "--samples", "24", "--batch-size", "12",
                         timeout=180)
        assert done.returncode == 0, done.stdout + done.stderr
        found = re.findall(r"(\d) localit\w+: final loss ([0-9.]+)", done.stdout)
        assert len(found) == 1 and int(found[0][0]) == k, done.stdout
        losses[k] = float(found[0][1])
    # only the order of the float32 sums differs (shards, then the all_reduce)
    assert losses[2] == pytest.approx(losses[1], rel=1e-5), losses


@pytest.mark.parametrize("k", (2, 3))
def test_model_parallel_conv1d_and_dense_match_the_single_process_layers(k):
    done, _ = program(k, "nn_model_parallel.py", timeout=120)
    assert_all_ok(done, k)


@pytest.mark.parametrize("k", (1, 2, 3))
def test_model_parallel_fit_matches_one_process_and_refuses_bad_input(k):
    done, _ = program(k, "nn_model_parallel_fit.py", "--verbose", timeout=240)
    assert_all_ok(done, k)
    # one fit with verbose=2 over 3 epochs: only rank 0 printed its progress
    assert done.stdout.count("Epoch 3/3") == 1, done.stdout


@pytest.mark.parametrize("k", (2, 3))
def test_data_parallel_fit_with_weights_clipping_decay_and_regularizers(k):
    done, _ = program(k, "nn_data_parallel_options.py", timeout=120)
    assert_all_ok(done, k)


@pytest.mark.parametrize("k", (2, 3))
def test_transformer_example_model_data_parallel_matches_one_process(k):
    # attention, LayerNormalization, residual Adds and dropout (issue 29 item 2)
    done, _ = program(k, "transformer_parallel.py", timeout=240)
    assert_all_ok(done, k)
