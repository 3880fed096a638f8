"""phylanx.atomic, the one helper every writer uses: the destination is replaced whole;
its mode and a symbolic link to it are kept; a failed write leaves no trace; a stream
(FIFO, /dev/stdout) is written in place.  The writers' own tests are in
tests/primitives/test_fileio_atomic.py."""
from __future__ import annotations

import os
import threading

import pytest

from phylanx import atomic


def test_atomic_keeps_mode_and_links_and_cleans_up(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("old")
    path.chmod(0o640)
    atomic.write_text(path, "new")
    assert path.read_text() == "new" and (path.stat().st_mode & 0o777) == 0o640
    link = tmp_path / "link.txt"
    link.symlink_to(path)
    atomic.write_text(link, "through the link")
    assert link.is_symlink() and path.read_text() == "through the link"
    with pytest.raises(RuntimeError, match="boom"):
        with atomic.open_atomic(path, "w") as fh:
            fh.write("half")
            raise RuntimeError("boom")
    assert path.read_text() == "through the link"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt", "link.txt"]


def test_atomic_writes_a_fifo_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    atomic.write_text(fifo, "streamed")
    reader.join(timeout=30)
    assert got == ["streamed"] and fifo.is_fifo()


def test_create_text_writes_a_free_path_once_and_leaves_a_taken_one(tmp_path):
    path = tmp_path / "module.py"
    assert atomic.create_text(path, "first")
    stamp = os.stat(path).st_mtime_ns
    assert not atomic.create_text(path, "second")    # numba's index is stamped with its mtime
    assert path.read_text() == "first" and os.stat(path).st_mtime_ns == stamp
    assert [p.name for p in tmp_path.iterdir()] == ["module.py"]   # no temp file left
