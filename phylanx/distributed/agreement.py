"""What each rank brings to a collective, and the check that all ranks agree.

Before the data moves, every rank contributes a small fixed-size header (an
int64 vector: kind, name, op, root, payload kind, dtype, byte count, shape, and the
lockstep tag) and all ranks all-gather the headers.  That tells receivers how many
bytes to expect (arrays of any shape move as raw bytes, no pickling) and lets every
rank see the same disagreement and raise the same located error naming the ranks,
where MPI would deadlock or mix up data.

The tag (``lockstep.py``) is set by the collectives of the tiles channel: a checksum
of the operation's label (primitive and array names with generations and global shapes), the
operation's sequence number, the message's number within it, and flags marking the
message that ends an operation (and whether it failed on that rank, with its error
text in the slot).  Any rank's end-of-operation message decides the exchange for all
(:func:`step_outcome`), so a rank that failed meets the others wherever they are.
The last column (``PLAN_KEY``) is the plan key of the compiled node sending the message
(``config.plan_key``): a tiled operation's, in its tag, or that of a node calling a
collective by name (``all_reduce(x)`` in a program; 0 from the Python API): ranks whose
keys differ compiled the program under different plan settings (:func:`plans_differ`).

:func:`disagreement` is the one way ranks' values are compared and the differing
ranks named; the tiled arrays' metadata and data-parallel ``fit`` use it too.
"""
from __future__ import annotations

import functools
import operator
import pickle
import zlib
from typing import Any

import numpy as np

from .errors import PhylanxCollectiveMismatchError

HEADER_LENGTH = 22
MAX_DIMS = 8
SHAPE = slice(8, 8 + MAX_DIMS)
#: the lockstep tag: label checksum, operation number, message number, flags, the
#: digest of the plain operands the operation's tiled arrays were computed with, and
#: the key of the plan settings its node was compiled under (``config.plan_key``)
TAG, SEQ, STEP, FLAGS, DIGEST, PLAN_KEY = 16, 17, 18, 19, 20, 21
#: flags: the message ends an operation; it failed on this rank
END, FAILED = 1, 2

KINDS = ("all_reduce", "all_gather", "broadcast", "gather", "scatter", "reduce", "barrier",
         "end")

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
#: op code -> name
OP_CODES = {code: name for name, (code, _) in OPS.items()}


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
    if type(value) is np.ndarray and value.flags.c_contiguous and value.ndim <= MAX_DIMS:
        # (the common case, on every collective's path: three tests, not seven)
        return value if value.dtype in _DTYPE_CODE else None
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
           payload: int, array: np.ndarray | None = None, nbytes: int = 0,
           tag: tuple[int, ...] | None = None, plan: int = 0) -> np.ndarray:
    """The header of this rank's part in a collective (read-only: headers are cached,
    a collective called again with the same kind, name and array layout reuses it).
    ``plan``: the plan key of the compiled node calling a collective by name (a
    tagged one's key is in its ``tag``), in column ``PLAN_KEY``."""
    if array is not None:
        return _header(kind, name, op, root, payload, array.dtype, array.shape, array.nbytes,
                       tag, plan)
    return _header(kind, name, op, root, payload, None, (), nbytes, tag, plan)


@functools.lru_cache(maxsize=4096)
def _header(kind: str, name: str, op: str | None, root: int | None, payload: int,
            dtype: np.dtype | None, shape: tuple[int, ...], nbytes: int,
            tag: tuple[int, ...] | None, plan: int = 0) -> np.ndarray:
    h = np.zeros(HEADER_LENGTH, np.int64)
    if tag is not None:
        h[TAG:TAG + len(tag)] = tag
    elif plan:
        h[PLAN_KEY] = plan
    h[0] = KINDS.index(kind)
    h[1] = zlib.crc32(name.encode())
    h[2] = OPS[op][0] if op is not None else -1
    h[3] = -1 if root is None else root
    h[4] = payload
    if dtype is not None:
        h[5] = _DTYPE_CODE[dtype]
        h[6] = len(shape)
        h[SHAPE.start:SHAPE.start + len(shape)] = shape
    else:
        h[5], h[6] = -1, 0
    h[7] = nbytes
    h.flags.writeable = False
    return h


def dtype_of(h: np.ndarray) -> np.dtype:
    return DTYPES[int(h[5])]


def shape_of(h: np.ndarray) -> tuple[int, ...]:
    return tuple(int(d) for d in h[SHAPE.start:SHAPE.start + int(h[6])])


def describe(h: np.ndarray) -> str:
    """Readable summary of one rank's header for error messages."""
    text = KINDS[int(h[0])] if 0 <= h[0] < len(KINDS) else f"kind {int(h[0])}"
    extras = []
    if h[2] >= 0:
        extras.append(f"op={OP_CODES.get(int(h[2]), h[2])}")
    if h[3] >= 0:
        extras.append(f"root={int(h[3])}")
    if extras:
        text += "(" + ", ".join(extras) + ")"
    if h[4] == ARRAY:
        text += f" of {dtype_of(h).name} array {shape_of(h)}"
    elif h[4] == PICKLED:
        text += " of a Python object"
    if h[SEQ] or h[STEP]:
        text += f" (operation #{int(h[SEQ])}, message {int(h[STEP])}, label {int(h[TAG]):#x})"
    return text


def check(headers: np.ndarray, name: str, same_data: bool, root: int | None = None) -> None:
    """Raise the same mismatch error on every rank if the headers disagree.

    Kind, name, op and root must agree; with ``same_data`` (reductions) the
    payload kind, dtype and shape must too.  Only the root's payload counts for
    broadcast and scatter, so those pass ``same_data=False``.
    """
    # the common case first, cheaply: every rank sent the very same header (which also
    # settles every column compared below)
    raw = headers.tobytes()
    if raw == raw[:len(raw) // len(headers)] * len(headers):
        return
    plans = plans_differ(headers)
    if plans is not None:       # (it explains any other difference: checked first)
        raise agreed(plans)
    columns = [0, 1, 2, 3, TAG, SEQ, STEP]
    if same_data:
        columns += [4, 5, 6] + list(range(SHAPE.start, SHAPE.stop))
    rows = headers[:, columns]
    if (rows == rows[0]).all():
        if (headers[:, DIGEST] != headers[0, DIGEST]).any():
            raise agreed(_plain_operands_differ(headers))
        return
    groups: dict[str, list[int]] = {}
    for rank, h in enumerate(headers):
        groups.setdefault(describe(h), []).append(rank)
    if len(groups) == 1:   # they differ only in something describe() hides: the name
        names = {}
        for rank, h in enumerate(headers):
            names.setdefault(int(h[1]), []).append(rank)
        parts = [f"ranks {r}" for r in names.values()]
        raise agreed(PhylanxCollectiveMismatchError(
            f"ranks called different collectives (names differ; this rank's is {name!r}): "
            + " vs ".join(parts)))
    raise agreed(PhylanxCollectiveMismatchError(
        f"ranks disagree in collective {name!r}: "
        + "; ".join(f"{ranks_text(r)}: {d}" for d, r in groups.items())))


def plans_differ(headers: np.ndarray) -> PhylanxCollectiveMismatchError | None:
    """The error for ranks whose messages come from nodes compiled under different plan
    settings (``PLAN_KEY``: ``config.plan_key``, on every rank's header; 0, a message
    of no compiled node, is left to the other checks), naming the settings each group
    of ranks changed since start-up; None when they agree."""
    keys = headers[:, PLAN_KEY]
    if (keys == keys[0]).all() or not keys.all():
        return None
    from .. import config
    groups: dict[int, list[int]] = {}
    for rank, key in enumerate(keys):
        groups.setdefault(int(key), []).append(rank)
    parts = []
    for key, ranks in groups.items():
        changed = config.plan_changes(key)
        parts.append(f"{ranks_text(ranks)}: " + (
            ", ".join(map(repr, changed)) + " changed since start-up" if changed
            else "as at start-up") + f" (plan digest {key & 0xFFFFFFFF:#x})")
    return PhylanxCollectiveMismatchError(
        "the ranks compiled the program running this operation under different plan "
        "settings (phylanx.config.PLAN; ranks compiling one program to different plans "
        "may run its collectives in another order): " + "; ".join(parts) +
        ".  Change a plan setting alike on every rank before the program is compiled "
        "(phylanx.distributed.set_on_every_rank)")


def _plain_operands_differ(headers: np.ndarray) -> PhylanxCollectiveMismatchError:
    """The ranks are in step (same operation, same message) but the plain operands its
    tiled arrays were computed with differ: the error names them (every rank runs the
    same program, so every rank names the same operands) and the ranks' digests."""
    from .lockstep import plain_operands
    groups: dict[int, list[int]] = {}
    for rank, h in enumerate(headers):
        groups.setdefault(int(h[DIGEST]), []).append(rank)
    names = plain_operands() or ["(not known on this rank)"]
    return PhylanxCollectiveMismatchError(
        "the ranks passed different values for a plain operand that meets a tiled array "
        "(every rank must pass the same value: seed a random generator alike, or "
        "broadcast it): " + "; ".join(names) + ": digests differ: " +
        "; ".join(f"{ranks_text(r)}: {d:#x}" for d, r in groups.items()))


#: plain operands up to this many bytes are digested whole (crc32 of their bytes)
DIGEST_WHOLE_BYTES = 1 << 13
#: elements sampled, evenly spaced, from a larger operand (plus an exact wrapping sum
#: of all its 8-byte words: one pass at memory speed)
DIGEST_SAMPLE = 512


#: float64 pieces that hold a long double's mantissa exactly (x86's 64 bits: 2; a
#: 113-bit quad: 3)
_PIECES = -(-(np.finfo(np.longdouble).nmant + 1) // 53)


def value_array(array: Any) -> np.ndarray:
    """``array`` as an array whose bytes are its values alone: itself, but for long
    doubles (``np.longdouble``, ``np.clongdouble``), whose bytes on x86 hold 6 padding
    bytes per 80-bit value that are garbage (equal values, different bytes: "checksum
    differs" on equal arrays).  Those are taken by value, exactly: each value's
    ``frexp`` exponent and its mantissa as float64 pieces (hi, then the remainders);
    NaN (any sign or payload) and the infinities by a flag."""
    array = np.asarray(array)
    kind, size = array.dtype.kind, array.dtype.itemsize
    if not ((kind == "f" and size > 8) or (kind == "c" and size > 16)):
        return array
    parts = np.ascontiguousarray(array)
    if kind == "c":
        parts = np.stack([parts.real, parts.imag], axis=-1)
    special = np.select([np.isnan(parts), parts == np.inf, parts == -np.inf],
                        [2.0, 1.0, -1.0], 0.0)
    mantissa, exponent = np.frexp(np.where(special == 0, parts, 0))
    pieces = [special, exponent.astype(np.float64)]
    for _ in range(_PIECES):
        piece = mantissa.astype(np.float64)
        pieces.append(piece)
        mantissa = mantissa - piece          # exact: the rest of the mantissa's bits
    return np.stack(pieces, axis=-1)


def operand_digest(value: Any) -> int | None:
    """A cheap digest of a plain operand's value (dtype and shape included), or None
    for what is no number or array (strings, None, functions): ranks that pass equal
    operands get equal digests, ranks that pass different ones (``np.random.rand(3)``
    without a common seed) different ones but for a collision of crc32 or, past
    :data:`DIGEST_WHOLE_BYTES`, a difference that the sample misses and that leaves the
    wrapping sum of the words unchanged (elements permuted).  Cost: a scalar about a
    microsecond; an array of 8 KiB about 5 us (crc32); larger ones one pass over their
    memory."""
    t = type(value)
    if t is bool or t is int or t is float or t is complex:
        return zlib.crc32(f"{t.__name__}:{value!r}".encode())
    if isinstance(value, np.generic):
        if value.dtype.hasobject:
            return None
        return zlib.crc32(value_array(value).tobytes(), zlib.crc32(value.dtype.str.encode()))
    if t is slice:
        return zlib.crc32(repr(value).encode())
    if t is not np.ndarray or value.dtype.hasobject:
        return None
    head = zlib.crc32(f"{value.dtype.str}{value.shape}".encode())
    value = value_array(value)
    if value.nbytes <= DIGEST_WHOLE_BYTES:
        return zlib.crc32(np.ascontiguousarray(value).reshape(-1).view(np.uint8), head)
    flat = np.ascontiguousarray(value).reshape(-1)
    sample = flat[::-(-flat.size // DIGEST_SAMPLE)]
    words = flat.view(np.uint8)
    whole = words[:words.size - words.size % 8].view(np.uint64)
    total = np.add.reduce(whole, dtype=np.uint64) if whole.size else np.uint64(0)
    tail = words[whole.size * 8:].tobytes()
    return zlib.crc32(sample.tobytes() + total.tobytes() + tail, head)


def combine(digests: Any) -> int:
    """One digest of several (order matters: operand i is operand i everywhere)."""
    return zlib.crc32(np.asarray(list(digests), np.int64).tobytes())


def agreed(error: BaseException) -> BaseException:
    """Mark ``error`` as raised by every rank from the same exchanged data: the ranks
    are still in step, no further agreement is needed (see ``lockstep.py``)."""
    error.agreed = True  # type: ignore[attr-defined]
    return error


def ranks_text(ranks: list[int]) -> str:
    return f"rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))}"


def disagreement(values: list, label: str, show: Any = repr) -> str | None:
    """None if every rank's value (``values[rank]``) is the same, else the text naming
    which ranks have which: ``"shape differs: ranks 0, 2: (8, 6); rank 1: (9, 6)"``."""
    groups: dict[Any, list[int]] = {}
    for rank, value in enumerate(values):
        groups.setdefault(_key(value), []).append(rank)
    if len(groups) == 1:
        return None
    first = {key: values[ranks[0]] for key, ranks in groups.items()}
    return f"{label} differs: " + "; ".join(
        f"{ranks_text(ranks)}: {show(first[key])}" for key, ranks in groups.items())


def _key(value: Any) -> Any:
    """A hashable stand-in for comparing ``value`` (arrays by dtype, shape and bytes)."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value_array(value).tobytes())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _key(v)) for k, v in sorted(value.items())))
    return value


def checksum(array: np.ndarray) -> int:
    """A cheap checksum of an array's bytes, dtype and shape: what ranks compare for
    values they must hold alike. crc32, not adler32: adler32's two sums miss small
    differences such as bytes ``+1, -2, +1`` (a silently accepted difference), where
    crc32 catches every burst of up to 32 bits; zlib's crc32 is as fast here."""
    head = zlib.crc32(f"{array.dtype.str}{array.shape}".encode())
    if array.dtype.hasobject:
        return zlib.crc32(pickle.dumps(array, protocol=pickle.HIGHEST_PROTOCOL), head)
    flat = np.ascontiguousarray(value_array(array)).reshape(-1).view(np.uint8)
    return zlib.crc32(flat, head)


def check_invalid(headers: np.ndarray, root: int) -> None:
    """The root flagged its own argument as unusable (every rank raises the same)."""
    if headers[root][4] == INVALID:
        raise agreed(PhylanxCollectiveMismatchError(
            f"the root (rank {root}) passed an argument this collective cannot use "
            "(see the error on that rank)"))


def pack(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(buffer: Any) -> Any:
    return pickle.loads(memoryview(buffer))


def array_from_bytes(buffer: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The array described by header ``h`` from its raw bytes (a copy we own)."""
    return np.frombuffer(buffer, dtype=dtype_of(h)).reshape(shape_of(h)).copy()


# -- the end of a lockstep operation ------------------------------------------------
def end_message(error: BaseException | None) -> bytes:
    """What a rank sends in its end-of-operation slot: nothing, or the class and the
    text of its error (an internal exception as the PhylanxError a kernel's would
    become), truncated to what fits."""
    if error is None:
        return b""
    from ..errors import PhylanxError
    if not isinstance(error, PhylanxError):
        from ..runtime.nodes import wrap_exception
        error = wrap_exception(error, None, None)
    data = f"{full_name(type(error))}\n{error.message}".encode("utf-8", "replace")
    return data[:MESSAGE_BYTES]


#: room for an error text in a header slot (``collectives._SLOT``)
MESSAGE_BYTES = 1024


def full_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _error_classes() -> dict[str, type]:
    """Every PhylanxError class by its full name (the ranks run the same code)."""
    from ..errors import PhylanxError
    found, todo = {}, [PhylanxError]
    while todo:
        cls = todo.pop()
        found.setdefault(full_name(cls), cls)
        todo.extend(cls.__subclasses__())
    return found


def ranks_error(texts: dict[tuple[str, str], list[int]], default: type) -> BaseException:
    """The one error for ranks that failed differently: ``texts`` maps (the full class
    name, the text) to the ranks that raised it, the lowest rank's first.  The first
    one's class (``default`` if this rank does not know it, or its constructor takes
    other arguments) with its text, naming its ranks and counting the others."""
    (cls_name, text), ranks = next(iter(texts.items()))
    where = "locality " if len(ranks) == 1 else "localities "
    more = len(texts) - 1
    message = f"on {where}{', '.join(map(str, ranks))}: {text}" + \
        (f" (and {more} other error(s) elsewhere)" if more else "")
    cls = _error_classes().get(cls_name, default)
    try:
        return cls(message)
    except Exception:   # noqa: BLE001 - a subclass with another constructor
        return default(message)


def step_outcome(headers: np.ndarray, messages: np.ndarray) -> BaseException | None:
    """The result of an exchange in which some rank ended its operation (``END``), the
    same on every rank: None if every rank ended the same operation without error, else
    the error every rank raises (marked agreed, with ``step_end``, the operation's
    number).  A failing rank's error keeps its class; its text names the rank."""
    ends = (headers[:, FLAGS] & END) != 0
    failed = [r for r in range(len(headers)) if headers[r, FLAGS] & FAILED]
    seq = int(headers[ends][0, SEQ])
    plans = plans_differ(headers)
    if plans is not None:   # (the others' end messages are each its own plan's)
        error = plans
    elif failed:
        texts: dict[tuple[str, str], list[int]] = {}
        for r in failed:
            raw = bytes(messages[r, :int(headers[r, 7])]).decode("utf-8", "replace")
            cls_name, _, text = raw.partition("\n")
            texts.setdefault((cls_name, text), []).append(r)
        from ..errors import PhylanxRuntimeError
        error = ranks_error(texts, PhylanxRuntimeError)
    elif ends.all() and (headers[:, SEQ] == seq).all() and (headers[:, 0] == headers[0, 0]).all():
        return None     # (end messages, or a final all_gather that goes on)
    else:
        where: dict[str, list[int]] = {}
        for r, h in enumerate(headers):
            state = (f"ended operation #{int(h[SEQ])}" if h[FLAGS] & END
                     else f"was in {describe(h)}")
            where.setdefault(state, []).append(r)
        error = PhylanxCollectiveMismatchError(
            "ranks are out of step in distributed operations: "
            + "; ".join(f"{ranks_text(r)} {s}" for s, r in where.items()))
    error.step_end = seq  # type: ignore[attr-defined]
    return agreed(error)
