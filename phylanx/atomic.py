"""Atomic file writes: the one helper every file phylanx writes goes through.

A writer fills a temporary file in the destination's folder, flushes and fsyncs it,
then ``os.replace``-s it over the destination.  Another process reading the path sees
the old content or the complete new one, never a part; a writer killed mid-way leaves
the old file in place (and, at worst, a hidden ``.<name>.tmp-*`` file beside it).

* :func:`replacing` yields the temporary *path*, for libraries that write by name
  (h5py, matplotlib); :func:`open_atomic` yields an open file object;
  :func:`write_text` / :func:`write_bytes` write a whole string or bytes.
* :func:`create_text` writes a file only if the path is free (``os.link`` of the synced
  temporary file: of two processes creating it at once, one wins and the other leaves
  it alone, its modification time too: numba's disk cache is stamped with it).
* :func:`updating` is a read-modify-write (``file_write_hdf5`` into an existing file):
  it yields a temporary copy of the file to change.  Updates of one path take turns
  (an ``flock`` on a hidden ``.<name>.lock`` file beside it, left in place), so two
  processes never both start from the same old file and lose one's change.
* A destination that exists and is not a regular file (``/dev/stdout``, a FIFO) is
  written in place: it cannot be replaced, and a stream has no "old content".
* A destination that is a symbolic link is resolved: the file it points to is replaced,
  the link stays.  An existing file's permission bits are kept.
"""
from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

TEMP_MARK = ".tmp-"
LOCK_SUFFIX = ".lock"


def _is_stream(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode          # follows links: /dev/stdout -> a tty or pipe
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _new_temp(target: str) -> str:
    folder, name = os.path.split(target)
    stem, suffix = os.path.splitext(name)
    # same suffix: matplotlib and numpy choose the format by the file name's ending
    while True:
        tmp = os.path.join(folder, f".{stem}{TEMP_MARK}{secrets.token_hex(4)}{suffix}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
        except FileExistsError:
            continue
        os.close(fd)
        break
    try:
        os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
    except FileNotFoundError:
        pass
    return tmp


def _fsync(path: str, flags: int = os.O_RDONLY) -> None:
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def replacing(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path beside ``path``; when the block completes, the file
    written there is synced to disk and renamed over ``path``.  If the block raises,
    the temporary file is removed and ``path`` is untouched."""
    path = os.fspath(path)
    if _is_stream(path):
        yield path
        return
    target = os.path.realpath(path) if os.path.islink(path) else path
    tmp = _new_temp(target)
    try:
        yield tmp
        _fsync(tmp)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
        raise
    try:   # the rename itself survives a power cut only once the folder is synced
        _fsync(os.path.dirname(target) or ".")
    except OSError:
        pass   # some file systems cannot fsync a directory; the rename is still atomic


@contextmanager
def open_atomic(path: str | os.PathLike, mode: str = "w",
                encoding: str | None = None) -> Iterator[IO]:
    """``open(path, mode)`` whose content appears at ``path`` only when the block ends."""
    if mode not in ("w", "wb"):
        raise ValueError(f"open_atomic writes a whole file: mode 'w' or 'wb', not {mode!r}")
    if mode == "w" and encoding is None:
        encoding = "utf-8"
    with replacing(path) as tmp:
        with open(tmp, mode, encoding=encoding) as fh:
            yield fh


@contextmanager
def updating(path: str | os.PathLike, timeout: float = 60.0) -> Iterator[tuple[str, bool]]:
    """Yield ``(tmp, existed)``: a temporary copy of ``path`` (empty if ``path`` did not
    exist) that replaces ``path`` when the block completes, as :func:`replacing` does.
    Other updates of the same path, in any process or thread, wait for this one; after
    ``timeout`` seconds of waiting a :class:`TimeoutError` is raised."""
    path = os.fspath(path)
    target = os.path.realpath(path) if os.path.islink(path) else path
    folder, name = os.path.split(target)
    fd = os.open(os.path.join(folder, f".{name}{LOCK_SUFFIX}"), os.O_RDWR | os.O_CREAT, 0o666)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"another writer has been updating '{path}' for "
                                       f"more than {timeout:g} s") from None
                time.sleep(0.005)
        with replacing(target) as tmp:
            existed = os.path.exists(target)
            if existed:
                shutil.copyfile(target, tmp)
            yield tmp, existed
    finally:
        os.close(fd)        # releases the lock


def write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Replace ``path`` by ``text`` atomically."""
    with open_atomic(path, "w", encoding) as fh:
        fh.write(text)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically."""
    with open_atomic(path, "wb") as fh:
        fh.write(data)


def create_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> bool:
    """Write ``text`` to ``path`` atomically unless ``path`` exists: True if this call
    created it, False if it was there (left as it is).  On a file system without hard
    links the file is created as :func:`write_text` would (replacing a racing one)."""
    path = os.fspath(path)
    if os.path.lexists(path):
        return False
    tmp = _new_temp(path)
    try:
        with open(tmp, "w", encoding=encoding) as fh:
            fh.write(text)
        _fsync(tmp)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:                 # no hard links here (some FUSE, vfat)
            os.replace(tmp, path)
            return True
    finally:
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
    try:
        _fsync(os.path.dirname(path) or ".")
    except OSError:
        pass
    return True


__all__ = ["LOCK_SUFFIX", "TEMP_MARK", "create_text", "open_atomic", "replacing", "updating",
           "write_bytes", "write_text"]
