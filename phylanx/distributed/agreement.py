"""What each rank brings to a collective, and the check that all ranks agree.

Before the data moves, every rank contributes a small fixed-size header (an
int64 vector: kind, name, op, root, payload kind, dtype, shape, byte count) and
all ranks all-gather the headers.  That tells receivers how many bytes to expect
(arrays of any shape move as raw bytes, no pickling) and lets every rank see the
same disagreement and raise the same located error naming the ranks, where MPI
would deadlock or mix up data.
"""
from __future__ import annotations

import operator
import pickle
import zlib
from typing import Any

import numpy as np

from .errors import PhylanxCollectiveMismatchError

HEADER_LENGTH = 16
MAX_DIMS = HEADER_LENGTH - 8

KINDS = ("all_reduce", "all_gather", "broadcast", "gather", "scatter", "reduce", "barrier")

#: payload kinds
NOTHING, ARRAY, PICKLED, INVALID = 0, 1, 2, 3

#: dtypes that travel as raw bytes (anything else is pickled)
DTYPES = tuple(np.dtype(t) for t in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128"))
_DTYPE_CODE = {dt: i for i, dt in enumerate(DTYPES)}

#: op name -> (code, combining function for pickled values)
OPS: dict[str, tuple[int, Any]] = {
    "sum": (0, operator.add), "prod": (1, operator.mul),
    "min": (2, min), "max": (3, max),
    "land": (4, lambda a, b: bool(a) and bool(b)), "lor": (5, lambda a, b: bool(a) or bool(b)),
    "lxor": (6, lambda a, b: bool(a) != bool(b)),
    "band": (7, operator.and_), "bor": (8, operator.or_), "bxor": (9, operator.xor),
}
OP_ALIASES = {"+": "sum", "add": "sum", "plus": "sum", "*": "prod", "mul": "prod",
              "multiplies": "prod", "and": "land", "or": "lor", "xor": "lxor",
              "logical_and": "land", "logical_or": "lor", "logical_xor": "lxor",
              "minimum": "min", "maximum": "max"}
_OP_NAMES = {code: name for name, (code, _) in OPS.items()}


def op_name(op: str, where=None, kind: str = "all_reduce") -> str:
    """The canonical name of a reduction op (``"+"`` -> ``"sum"``); an unknown one is a
    PhylanxDistributedError located at ``where``."""
    name = OP_ALIASES.get(op, op) if isinstance(op, str) else op
    if name not in OPS:
        from .errors import PhylanxDistributedError
        raise PhylanxDistributedError(
            f"unknown reduction op {op!r}; known: {', '.join(OPS)}", where, kind)
    return name


def as_array(value: Any) -> np.ndarray | None:
    """``value`` as a contiguous array if it can travel as raw bytes, else None."""
    if isinstance(value, (bool, int, float, complex, np.generic)):
        value = np.asarray(value)
        if value.dtype == np.dtype("O"):
            return None
    if type(value) is not np.ndarray or value.dtype not in _DTYPE_CODE:
        return None
    if value.ndim > MAX_DIMS:
        return None
    # (not np.ascontiguousarray: it turns a 0-d array into a 1-d one)
    return value if value.flags.c_contiguous else value.copy(order="C")


def header(kind: str, name: str, op: str | None, root: int | None,
           payload: int, array: np.ndarray | None = None, nbytes: int = 0) -> np.ndarray:
    h = np.zeros(HEADER_LENGTH, np.int64)
    h[0] = KINDS.index(kind)
    h[1] = zlib.crc32(name.encode())
    h[2] = OPS[op][0] if op is not None else -1
    h[3] = -1 if root is None else root
    h[4] = payload
    if array is not None:
        h[5] = _DTYPE_CODE[array.dtype]
        h[6] = array.ndim
        h[7] = array.nbytes
        h[8:8 + array.ndim] = array.shape
    else:
        h[5], h[6], h[7] = -1, 0, nbytes
    return h


def dtype_of(h: np.ndarray) -> np.dtype:
    return DTYPES[int(h[5])]


def shape_of(h: np.ndarray) -> tuple[int, ...]:
    return tuple(int(d) for d in h[8:8 + int(h[6])])


def describe(h: np.ndarray) -> str:
    """Readable summary of one rank's header for error messages."""
    text = KINDS[int(h[0])] if 0 <= h[0] < len(KINDS) else f"kind {int(h[0])}"
    extras = []
    if h[2] >= 0:
        extras.append(f"op={_OP_NAMES.get(int(h[2]), h[2])}")
    if h[3] >= 0:
        extras.append(f"root={int(h[3])}")
    if extras:
        text += "(" + ", ".join(extras) + ")"
    if h[4] == ARRAY:
        text += f" of {dtype_of(h).name} array {shape_of(h)}"
    elif h[4] == PICKLED:
        text += " of a Python object"
    return text


def check(headers: np.ndarray, name: str, same_data: bool, root: int | None = None) -> None:
    """Raise the same mismatch error on every rank if the headers disagree.

    Kind, name, op and root must agree; with ``same_data`` (reductions) the
    payload kind, dtype and shape must too.  Only the root's payload counts for
    broadcast and scatter, so those pass ``same_data=False``.
    """
    columns = [0, 1, 2, 3]
    if same_data:
        columns += [4, 5, 6] + list(range(8, HEADER_LENGTH))
    rows = headers[:, columns]
    if (rows == rows[0]).all():
        return
    groups: dict[str, list[int]] = {}
    for rank, h in enumerate(headers):
        groups.setdefault(describe(h), []).append(rank)
    if len(groups) == 1:   # they differ only in something describe() hides: the name
        names = {}
        for rank, h in enumerate(headers):
            names.setdefault(int(h[1]), []).append(rank)
        parts = [f"ranks {r}" for r in names.values()]
        raise PhylanxCollectiveMismatchError(
            f"ranks called different collectives (names differ; this rank's is {name!r}): "
            + " vs ".join(parts))
    parts = [f"rank{'s' if len(r) > 1 else ''} {', '.join(map(str, r))}: {d}"
             for d, r in groups.items()]
    raise PhylanxCollectiveMismatchError(
        f"ranks disagree in collective {name!r}: " + "; ".join(parts))


def check_invalid(headers: np.ndarray, root: int) -> None:
    """The root flagged its own argument as unusable (every rank raises the same)."""
    if headers[root][4] == INVALID:
        raise PhylanxCollectiveMismatchError(
            f"the root (rank {root}) passed an argument this collective cannot use "
            "(see the error on that rank)")


def pack(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(buffer: Any) -> Any:
    return pickle.loads(memoryview(buffer))


def array_from_bytes(buffer: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The array described by header ``h`` from its raw bytes (a copy we own)."""
    return np.frombuffer(buffer, dtype=dtype_of(h)).reshape(shape_of(h)).copy()
