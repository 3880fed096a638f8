"""Every writer is atomic (issue 26 item 6): a reader of the path meets the old content
or the complete new one, even while another process overwrites it or when the writer
is killed; a cut-short file a reader meets is a located error naming it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError, PhylanxValueError

from .atomic_writer_program import KINDS, WRITE_TIME, content, write

h5py = pytest.importorskip("h5py", reason="h5py (the hdf5 extra) is not installed")

PROGRAM = str(Path(__file__).with_name("atomic_writer_program.py"))
_STATE = phylanx.execution_tree.compiler_state("test_fileio_atomic", "<test_fileio_atomic>")


def run(code, *args):
    names = ", ".join(f"a{i}" for i in range(len(args)))
    return phylanx.execution_tree.eval(_STATE, f"lambda({names}, {code})", *args,
                                       file_name="<test_fileio_atomic>")


def version_at(kind: str, path: Path) -> str:
    """Which whole version ("a" or "b") ``path`` holds; AssertionError for anything else
    (a part of one, a mixture, or a file the decoder cannot read)."""
    try:
        if kind == "csv":     # raw text: a cut anywhere changes it
            text = path.read_bytes()
            got = np.loadtxt(text.decode().splitlines(), delimiter=",", ndmin=2) if text \
                else np.empty((0, 0))
        elif kind == "file":
            got = run("file_read(a0)", str(path))
        elif kind == "hdf5":    # no lock: the old writer would be refused, not caught
            with h5py.File(path, "r", locking=False) as f:
                got = f["x"][()]
                assert np.array_equal(f["keep"][()], np.arange(5.0)), "lost 'keep'"
        else:
            with np.load(path) as data:
                got = data["weight_0"]
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, PhylanxError) as e:
        raise AssertionError(f"{kind}: the reader met a file it cannot read: {e}") from None
    for which in "ab":
        expected = content(kind, which)
        if got.shape == expected.shape and np.array_equal(got, expected):
            return which
    raise AssertionError(f"{kind}: the file holds neither version (shape {got.shape})")


def _start(kind: str, path: Path, rounds: int) -> subprocess.Popen:
    env = {**os.environ, "HDF5_USE_FILE_LOCKING": "FALSE"}
    child = subprocess.Popen([sys.executable, PROGRAM, kind, str(path), str(rounds)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             text=True)
    line = child.stdout.readline()        # ends at "ready" or when the child dies
    assert line.strip() == "ready", child.communicate(timeout=30)[1]
    return child


def _first_version(kind: str, path: Path) -> None:
    if kind == "hdf5":   # another dataset in the file, which every write must keep
        with h5py.File(path, "w") as f:
            f["keep"] = np.arange(5.0)
    write(kind, str(path), "a")


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_a_reader_never_meets_a_partial_file_during_overwrites(tmp_path, kind):
    path = tmp_path / f"data.{ {'csv': 'csv', 'file': 'bin', 'hdf5': 'h5'}.get(kind, 'npz')}"
    _first_version(kind, path)
    child = _start(kind, path, rounds=6)
    seen, reads = set(), 0
    try:
        while child.poll() is None:
            seen.add(version_at(kind, path))
            reads += 1
    finally:
        if child.poll() is None:
            child.kill()
        _, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert reads >= 3, "the reader did not watch the overwrites"
    assert version_at(kind, path) == "a"          # 6 rounds: b, a, ..., a
    assert seen <= {"a", "b"}


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_a_killed_writer_leaves_the_old_or_the_new_file(tmp_path, kind):
    rng = np.random.default_rng(26 + KINDS.index(kind))
    path = tmp_path / f"data.{ {'csv': 'csv', 'file': 'bin', 'hdf5': 'h5'}.get(kind, 'npz')}"
    _first_version(kind, path)
    for _ in range(3):
        child = _start(kind, path, rounds=0)
        for _ in range(rng.integers(1, 4)):     # into the 1st, 2nd or 3rd write ...
            assert child.stdout.readline().strip() == "writing"
        time.sleep(rng.uniform(0, WRITE_TIME[kind]))   # ... at a random point of it
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=60)
        assert child.returncode == -signal.SIGKILL
        version_at(kind, path)
    leftovers = [p.name for p in tmp_path.iterdir() if p != path]
    if leftovers:   # imported here: the test also runs against code without the module
        from phylanx import atomic
        assert all(atomic.TEMP_MARK in name or name.endswith(atomic.LOCK_SUFFIX)
                   for name in leftovers), leftovers


_UPDATER = """
import sys
import numpy as np
import phylanx
path, key, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
state = phylanx.execution_tree.compiler_state("updater", "<updater>")
def run(code, *args):
    return phylanx.execution_tree.eval(state, code, *args, file_name="<updater>")
print("ready", flush=True)
sys.stdin.readline()
for k in range(1, rounds + 1):
    if k > 1:   # only this process writes ``key``: it must still hold the last value
        got = run(f'lambda(a0, file_read_hdf5(a0, "{key}"))', path)
        if not np.array_equal(got, np.full(2000, k - 1.0)):
            sys.exit(f"{key}: round {k} found {got[:1]} (the update of round {k - 1} was lost)")
    run(f'lambda(a0, a1, file_write_hdf5(a0, "{key}", a1))', path, np.full(2000, float(k)))
"""


@pytest.mark.slow
def test_concurrent_hdf5_updates_of_one_file_lose_nothing(tmp_path):
    path = tmp_path / "shared.h5"
    with h5py.File(path, "w") as f:
        f["keep"] = np.arange(5.0)
    children = [subprocess.Popen([sys.executable, "-c", _UPDATER, str(path), key, "15"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for key in ("p", "q")]
    try:
        for child in children:
            assert child.stdout.readline().strip() == "ready"
        for child in children:       # both start their updates together
            child.stdin.write("go\n")
            child.stdin.flush()
        errors = [child.communicate(timeout=120)[1] for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.communicate()
    assert [child.returncode for child in children] == [0, 0], errors
    with h5py.File(path, "r") as f:
        assert sorted(f) == ["keep", "p", "q"]
        np.testing.assert_array_equal(f["p"][()], np.full(2000, 15.0))
        np.testing.assert_array_equal(f["q"][()], np.full(2000, 15.0))


# --- readers of cut-short files -------------------------------------------------------------

def _cuts(size: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return [0, 1, size // 2, size - 1, *rng.integers(2, size - 1, 4).tolist()]


def test_file_read_of_a_cut_short_file_names_it(tmp_path):
    whole = tmp_path / "whole.bin"
    run("file_write(a0, a1)", str(whole), np.arange(1000.0))
    payload = whole.read_bytes()
    for cut in _cuts(len(payload), 1):
        path = tmp_path / f"cut{cut}.bin"
        path.write_bytes(payload[:cut])
        with pytest.raises(PhylanxValueError, match=f"cut{cut}.bin' is "
                           "(empty|cut short or damaged)") as info:
            run("file_read(a0)", str(path))
        assert info.value.primitive == "file_read" and info.value.loc is not None


def test_load_model_of_a_cut_short_or_damaged_file_names_it(tmp_path):
    from phylanx import nn
    model = nn.Sequential([nn.Input((4,)), nn.layers.Dense(3)])
    whole = nn.save_model(model, tmp_path / "whole.npz")
    payload = whole.read_bytes()
    for cut in _cuts(len(payload), 2):
        path = tmp_path / f"cut{cut}.npz"
        path.write_bytes(payload[:cut])
        with pytest.raises(PhylanxValueError, match=f"cut{cut}.npz"):
            nn.load_model(path)
    damaged = bytearray(payload)
    start = payload.index(b"weight_0.npy") + 200       # inside the first array's data
    damaged[start:start + 16] = b"\xff" * 16
    path = tmp_path / "damaged.npz"
    path.write_bytes(bytes(damaged))
    with pytest.raises(PhylanxValueError, match="damaged.npz' is a damaged model file"):
        nn.load_model(path)
    np.testing.assert_array_equal(nn.load_model(whole).get_weights()[0],
                                  model.get_weights()[0])


def test_file_read_hdf5_of_a_cut_short_file_names_it(tmp_path):
    whole = tmp_path / "whole.h5"
    run('file_write_hdf5(a0, "x", a1)', str(whole), np.arange(1000.0))
    payload = whole.read_bytes()
    for cut in _cuts(len(payload), 3):
        path = tmp_path / f"cut{cut}.h5"
        path.write_bytes(payload[:cut])
        with pytest.raises(PhylanxValueError, match=f"cannot read '.*cut{cut}.h5'"):
            run('file_read_hdf5(a0, "x")', str(path))
