"""benchmarks/ddp_peer.py without torch says so and succeeds, and nn_data_parallel.py
then reports the peer as not installed instead of failing (guard: torch is optional)."""
from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"


def load(name):
    spec = importlib.util.spec_from_file_location(f"{name}_bench", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_torch_the_ddp_peer_is_not_installed(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)      # import torch... fails
    monkeypatch.setitem(sys.modules, "torch.multiprocessing", None)
    monkeypatch.setattr(sys, "argv", ["ddp_peer.py", "--ranks", "1"])
    load("ddp_peer").main()
    assert capsys.readouterr().out.strip() == "NOT INSTALLED"


def test_the_runner_reports_a_peer_that_is_not_installed(monkeypatch):
    bench = load("nn_data_parallel")
    done = subprocess.CompletedProcess([], 0, stdout="NOT INSTALLED\n", stderr="")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: done)

    class Args:
        batch, steps, model, bucket_mb, verbose = 8, 1, "mlp", 25.0, False
    assert bench.run_ranks(Args, "ddp", 2, {}) is None
