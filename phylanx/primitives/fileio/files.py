"""File input and output: CSV, any-value serialisation, HDF5.

* ``file_read_csv`` / ``file_write_csv``: numeric CSV <-> float64 matrix (or pages of
  rows in 3-d mode).  Floats are written in Python's shortest round-trip form, so a
  write followed by a read gives the same numbers back.
* ``file_write`` / ``file_read``: any PhySL value that is data (arrays, scalars,
  strings, nil, lists, dicts, ranges) serialised with Python's ``pickle`` (the
  original used HPX serialisation; files are not interchangeable with it).  Reading
  uses a restricted unpickler that only rebuilds those types, so a foreign pickle
  cannot run code; functions cannot be written.
* ``file_write_hdf5`` / ``file_read_hdf5``: one dataset of an HDF5 file through h5py
  (the optional extra ``pip install phylanx[hdf5]``).  Reading stays inside the named
  file unless ``allow_external`` is true: external storage, virtual datasets, soft and
  external links are refused (a crafted file could otherwise hand out any file).

Every writer is atomic (:mod:`phylanx.atomic`): a reader of the path sees the old file
or the complete new one, never a part, even if the writer is killed.  A reader that
meets an empty or cut-short file says so (located error naming the file).

``file_read_csv_d`` (distributed) belongs to the distributed package.
"""
from __future__ import annotations

import io
import pickle
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ... import atomic
from ...errors import PhylanxError, PhylanxTypeError, PhylanxValueError
from ...safe_unpickle import DataUnpickler as _DataUnpickler
from ...values import scalarize, type_name
from ..dtypes import to_bool, to_int
from ..registry import primitive

_EXAMPLE_DIR = Path(tempfile.gettempdir()).as_posix()


def _filename(value: Any, what: str = "filename") -> str:
    if not isinstance(value, str):
        raise PhylanxTypeError(f"the {what} must be a string, got a {type_name(value)}")
    if not value:
        raise PhylanxValueError(f"the {what} must not be empty")
    return value


def _os_failure(action: str, filename: str, error: OSError) -> PhylanxValueError:
    reason = error.strerror or str(error)
    return PhylanxValueError(f"cannot {action} '{filename}': {reason}")


# --- CSV ----------------------------------------------------------------------------------

def _parse_row(line: str) -> list[float] | None:
    try:
        return [float(field) for field in line.split(",")]
    except ValueError:
        return None


def _csv_rows(text: str, filename: str) -> list[list[float]]:
    rows: list[list[float]] = []
    width = None
    first = True
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row = _parse_row(line)
        if row is None:
            if first:  # a header line that does not parse completely is skipped
                first = False
                continue
            bad = next(f for f in line.split(",") if _parse_row(f) is None)
            raise PhylanxValueError(f"line {number} of '{filename}': {bad.strip()!r} is not "
                                    "a number (only a first header line may be non-numeric)")
        first = False
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise PhylanxValueError(f"line {number} of '{filename}' has {len(row)} values, "
                                    f"the lines before it have {width}")
        rows.append(row)
    return rows


@primitive("file_read_csv",
           "file_read_csv(_1_filename, __arg(_2_mode3d, false), __arg(_3_page_nrows, 1))",
           side_effects=True,
           example=f'block(file_write_csv("{_EXAMPLE_DIR}/phylanx_csv_example.csv", '
                   f'[[1, 2], [3, 4]]), file_read_csv("{_EXAMPLE_DIR}/phylanx_csv_example.csv"))',
           result="[[1.0, 2.0], [3.0, 4.0]]",
           no_oracle="reads a file; checked in tests against numpy.loadtxt")
def file_read_csv(filename, mode3d=False, page_nrows=1):
    """Read a numeric CSV file into a float64 matrix (rows x columns).

    A first line that does not parse completely as numbers (a header such as
    ``569,30,malignant,benign``) is skipped; blank lines are ignored.  With ``mode3d``
    true the rows are grouped into pages of ``page_nrows`` rows: the result has shape
    (rows / page_nrows, page_nrows, columns).  A file of only blank lines (or only a
    header) gives a 0 x 0 matrix and a warning, as ``numpy.loadtxt`` does; a 0-byte file
    is an error (it is what an interrupted write leaves, not an empty matrix)."""
    name = _filename(filename)
    pages = to_bool(mode3d)
    per_page = to_int(page_nrows, "page_nrows")
    if per_page < 1:
        raise PhylanxValueError(f"page_nrows must be at least 1, got {per_page}")
    try:
        text = Path(name).read_text()
    except OSError as e:
        raise _os_failure("read", name, e) from None
    if not text:
        raise PhylanxValueError(f"'{name}' is empty (0 bytes), not a CSV matrix (a write "
                                "that did not finish?)")
    rows = _csv_rows(text, name)
    if not rows:
        warnings.warn(f"file_read_csv: '{name}' holds no numbers; returning a 0 x 0 matrix",
                      UserWarning, stacklevel=2)
    data = np.array(rows, dtype=np.float64) if rows else np.empty((0, 0))
    if not pages:
        return data
    if data.shape[0] % per_page:
        raise PhylanxValueError(f"'{name}' has {data.shape[0]} rows, which is not a multiple "
                                f"of page_nrows={per_page}")
    return data.reshape(data.shape[0] // per_page, per_page, data.shape[1])


def _csv_line(row: np.ndarray) -> str:
    # tolist() gives Python ints/floats; repr(float) is the shortest exact form
    return ",".join(repr(v) for v in row.tolist())


@primitive("file_write_csv", "file_write_csv(_1, _2)", side_effects=True,
           example=f'file_write_csv("{_EXAMPLE_DIR}/phylanx_csv_example.csv", [1.5, 2.0])',
           result="[1.5, 2.0]",
           no_oracle="writes a file; checked in tests against numpy.loadtxt")
def file_write_csv(filename, data):
    """Write a scalar, vector, matrix or 3-d array as CSV and return ``data``.

    A vector is one line; a matrix one line per row; a 3-d array its pages one after
    the other (read it back with ``file_read_csv(f, true, shape[1])``).  Booleans are
    written as 0/1, floats exactly (shortest round-trip form).  An empty array is one
    blank line (reads back as a 0 x 0 matrix).  The file is replaced atomically."""
    name = _filename(filename)
    array = np.asarray(data)
    if array.dtype.kind not in "biuf":
        raise PhylanxTypeError(f"file_write_csv writes numbers, got a {type_name(data)}")
    if array.ndim > 3:
        raise PhylanxValueError(f"file_write_csv writes arrays of rank 0 to 3, got rank "
                                f"{array.ndim}")
    if array.dtype == np.bool_:
        array = array.astype(np.int64)
    rows = array.reshape(-1, array.shape[-1]) if array.ndim >= 2 else array.reshape(1, -1)
    # an empty array is a blank line: a 0-byte file means "cut short" to file_read_csv
    text = "".join(_csv_line(row) + "\n" for row in rows) if array.size else "\n"
    try:
        atomic.write_text(name, text)
    except OSError as e:
        raise _os_failure("write", name, e) from None
    return data


# --- any value (pickle) -------------------------------------------------------------------

_MAGIC = "phylanx-file_write"
_FORMAT_VERSION = 1
_PROTOCOL = 5
#: how every file_write file begins: PROTO, FRAME and its 8-byte length, then the tuple
#: whose first item is the magic string (bytes 11.. after the length, which varies)
_HEAD = pickle.dumps((_MAGIC, _FORMAT_VERSION, None), protocol=_PROTOCOL)
_HEAD_PARTS = ((0, 3), (11, 11 + 3 + len(_MAGIC)))


def _begins_like_ours(payload: bytes) -> bool:
    """Whether ``payload`` starts (as far as it goes) the way file_write's files do."""
    return all(payload[a:b] == _HEAD[a:b][:max(0, len(payload) - a)] for a, b in _HEAD_PARTS)


def _check_serialisable(value: Any, path: str = "the value") -> None:
    if value is None or isinstance(value, (str, bool, int, float, complex, np.generic, range)):
        return
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            raise PhylanxTypeError(f"{path} is an object array, which file_write cannot write")
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_serialisable(item, f"{path}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _check_serialisable(key, f"a key of {path}")
            _check_serialisable(item, f"{path}[{key!r}]")
        return
    raise PhylanxTypeError(f"{path} is a {type_name(value)}, which file_write cannot write "
                           "(only data: arrays, numbers, strings, nil, lists, dicts)")


@primitive("file_write", "file_write(_1, _2)", side_effects=True,
           example=f'file_write("{_EXAMPLE_DIR}/phylanx_file_example.bin", list(1, "a", [2.5]))',
           result='list(1, "a", [2.5])',
           no_oracle="writes a file; checked in tests by reading it back")
def file_write(filename, value):
    """Serialise any data value to a binary file (Python pickle) and return the value.

    Arrays, scalars, strings, nil, lists, dicts and ranges can be written; functions
    cannot.  The format is ours (not the original's HPX serialisation).  The file is
    replaced atomically."""
    name = _filename(filename)
    _check_serialisable(value)
    payload = pickle.dumps((_MAGIC, _FORMAT_VERSION, value), protocol=_PROTOCOL)
    try:
        atomic.write_bytes(name, payload)
    except OSError as e:
        raise _os_failure("write", name, e) from None
    return value


@primitive("file_read", "file_read(_1)", side_effects=True,
           example=f'block(file_write("{_EXAMPLE_DIR}/phylanx_file_example.bin", '
                   f'list(1, "a", [2.5])), file_read("{_EXAMPLE_DIR}/phylanx_file_example.bin"))',
           result='list(1, "a", [2.5])',
           no_oracle="reads a file; checked in tests by writing it first")
def file_read(filename):
    """Read back a value written by ``file_write``.

    Only the data types ``file_write`` produces are rebuilt (a restricted unpickler),
    so a file from elsewhere is rejected rather than executed.  An empty or cut-short
    file is an error naming it."""
    name = _filename(filename)
    try:
        payload = Path(name).read_bytes()
    except OSError as e:
        raise _os_failure("read", name, e) from None
    if not payload:
        raise PhylanxValueError(f"'{name}' is empty (0 bytes), not a file written by "
                                "file_write (a write that did not finish?)")
    try:
        record = _DataUnpickler(io.BytesIO(payload)).load()
    except PhylanxError:
        raise
    except Exception:  # noqa: BLE001 - any decoding failure means "not our format"
        record = None
        if _begins_like_ours(payload):
            raise PhylanxValueError(f"'{name}' is cut short or damaged ({len(payload)} bytes "
                                    "that start like a file_write file but do not decode)"
                                    ) from None
    if not (isinstance(record, tuple) and len(record) == 3 and record[0] == _MAGIC):
        raise PhylanxValueError(f"'{name}' was not written by file_write")
    if record[1] != _FORMAT_VERSION:
        raise PhylanxValueError(f"'{name}' has format version {record[1]}, this phylanx reads "
                                f"version {_FORMAT_VERSION}")
    return scalarize(record[2])


# --- HDF5 ---------------------------------------------------------------------------------

def _h5py():
    try:
        import h5py
    except ImportError:
        raise PhylanxError("HDF5 support needs h5py: pip install phylanx[hdf5]") from None
    return h5py


def _dataset_name(value: Any) -> str:
    return _filename(value, "dataset name")


@primitive("file_write_hdf5", "file_write_hdf5(_1, _2, _3)",
           side_effects=True,
           example=f'file_write_hdf5("{_EXAMPLE_DIR}/phylanx_example.h5", "x", [1.0, 2.0])',
           result="[1.0, 2.0]",
           no_oracle="writes a file; checked in tests against h5py")
def file_write_hdf5(filename, dataset, data):
    """Write an array (any rank, numeric or bool) as dataset ``dataset`` of an HDF5 file.

    Arguments: file name, dataset name, data; returns ``data``.  The file is created if
    needed; other datasets in it are kept and a dataset of the same name is replaced.
    Copy-on-write: an existing file is copied, the copy changed and then swapped in
    atomically, so a reader never meets a half-written dataset (writing costs a copy of
    the whole file); writers of one file take turns, so none loses another's dataset.
    Needs h5py (``pip install phylanx[hdf5]``)."""
    name, key = _filename(filename), _dataset_name(dataset)
    array = np.asarray(data)
    if array.dtype.kind not in "biufc":
        raise PhylanxTypeError(f"file_write_hdf5 writes numeric arrays, got a {type_name(data)}")
    h5py = _h5py()
    try:
        # edit a copy: the file at ``name`` stays whole until the swap
        with atomic.updating(name) as (tmp, exists):
            with h5py.File(tmp, "a" if exists else "w") as f:
                if key in f:
                    del f[key]
                f.create_dataset(key, data=array)
    except TimeoutError as e:
        raise PhylanxValueError(f"cannot write '{name}': {e}") from None
    except OSError as e:
        raise _os_failure("write", name, e) from None
    return data


def _outside_link(h5py, f, key: str) -> str | None:
    """Why reading ``key`` would leave the file through a link, or None.  Every
    component of the path is checked without following it (``getlink=True``)."""
    path = ""
    for part in (p for p in key.split("/") if p and p != "."):
        path += "/" + part
        link = f.get(path, getlink=True)
        if link is None:            # missing: reported by the caller
            return None
        if isinstance(link, h5py.SoftLink):
            return f"'{path}' is a soft link to '{link.path}'"
        if isinstance(link, h5py.ExternalLink):
            return f"'{path}' is an external link to '{link.path}' in '{link.filename}'"
    return None


def _outside_storage(node) -> str | None:
    """Why the data of dataset ``node`` lives outside its file, or None."""
    if node.is_virtual:
        sources = sorted({s.file_name for s in node.virtual_sources()})
        return f"it is a virtual dataset (mapping {', '.join(sources)})"
    if node.external:
        files = sorted({entry[0].decode() if isinstance(entry[0], bytes) else entry[0]
                        for entry in node.external})
        return f"its data is stored in external file(s) {', '.join(files)}"
    return None


@primitive("file_read_hdf5",
           "file_read_hdf5(_1_filename, _2_dataset, __arg(_3_allow_external, false))",
           side_effects=True,
           example=f'block(file_write_hdf5("{_EXAMPLE_DIR}/phylanx_example.h5", "x", [1.0, 2.0]),'
                   f' file_read_hdf5("{_EXAMPLE_DIR}/phylanx_example.h5", "x"))',
           result="[1.0, 2.0]",
           no_oracle="reads a file; checked in tests against h5py")
def file_read_hdf5(filename, dataset, allow_external=False):
    """Read dataset ``dataset`` of an HDF5 file as an array (0-d as a scalar).

    Only data inside the file is read: a dataset with external storage, a virtual
    dataset, or a path through a soft or external link is refused unless
    ``allow_external`` is true.  Needs h5py (``pip install phylanx[hdf5]``)."""
    name, key = _filename(filename), _dataset_name(dataset)
    outside_ok = to_bool(allow_external)
    h5py = _h5py()

    def refuse(reason: str) -> PhylanxValueError:
        return PhylanxValueError(f"dataset '{key}' of '{name}' is refused: {reason} (only "
                                 "data stored in the file itself is read: a crafted file "
                                 "could hand out any file on this machine); pass "
                                 "allow_external=true if you trust the file")
    try:
        with h5py.File(name, "r") as f:
            # links first: testing ``key in f`` would already follow them
            reason = None if outside_ok else _outside_link(h5py, f, key)
            if reason:
                raise refuse(reason)
            if key not in f:
                found = []
                f.visititems(lambda path, obj: found.append(path)
                             if isinstance(obj, h5py.Dataset) else None)
                raise PhylanxValueError(f"'{name}' has no dataset '{key}' (datasets: "
                                        f"{', '.join(found) or 'none'})")
            node = f[key]
            if not isinstance(node, h5py.Dataset):
                raise PhylanxValueError(f"'{key}' in '{name}' is a group, not a dataset")
            reason = None if outside_ok else _outside_storage(node)
            if reason:
                raise refuse(reason)
            value = node[()]
    except OSError as e:
        raise _os_failure("read", name, e) from None
    if isinstance(value, bytes):
        return value.decode()
    return scalarize(np.asarray(value)) if not isinstance(value, np.generic) else value
