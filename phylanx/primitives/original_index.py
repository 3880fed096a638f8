"""How the original's PhySL ``slice`` reads its index operands (compat addendum A.1).

PhySL ``slice``/``slice_row``/``slice_column``/``slice_page``/``tuple_slice`` and
``store`` into them follow the original; Python subscripts in ``@Phylanx`` code
compile to ``__subscript`` instead, which keeps NumPy's meaning.  This module
turns the original's index forms into NumPy-style PhySL indices (what
:mod:`.indexing` applies), so reads, stores and gradients share one reading:

* ``list()``/``list(nil)`` is the whole axis; ``list(v)`` with an int or bool ``v``
  is the index ``v`` itself; other lists of 1-3 entries are ranges whose entries
  are read as single integers (a float is truncated, an array gives its first
  element); floats used as indices are truncated toward zero.
* ranges are not clamped: a start past the end, or a span longer than the axis,
  is an error (NumPy clamps ``x[2:100]``).
* on a 1-d array ``slice(v, a, b)`` chains (``v[a][b]``); on a 2-d array an
  explicit ``nil`` next to an integer or boolean index is a new axis in front
  (``slice(m, nil, 2)`` is row 2; ``slice(m, nil, idx)`` is ``m[None, idx]``),
  and a one-element index array next to a range acts as a scalar.

Forms the original refused as "not supported (yet)" (boolean row masks, more
3-d and 4-d forms) keep NumPy's meaning.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import PhylanxIndexError, PhylanxTypeError, PhylanxValueError
from ..values import NEWAXIS, type_name

#: a missing index (``slice_column(m, j)`` is ``slice(m, <implicit nil>, j)``)
IMPLICIT = type("ImplicitNil", (), {"__repr__": lambda self: "<implicit nil>"})()

_ALL, _INT, _BOOL, _RANGE = "all", "int", "bool", "range"


def _is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_)) or (isinstance(v, np.ndarray) and v.dtype == np.bool_)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) or (
        isinstance(v, np.ndarray) and v.dtype.kind in "iuf")


def _trunc(v: Any) -> Any:
    """Integer index values; floats truncated toward zero (the original's rule)."""
    arr = np.asarray(v)
    out = np.trunc(arr).astype(np.int64) if arr.dtype.kind == "f" else arr.astype(np.int64)
    return int(out) if out.ndim == 0 else out


def _entry(v: Any) -> int | None:
    """One range entry as a single integer (nil: default; an array: its first element)."""
    if v is None:
        return None
    if isinstance(v, np.ndarray):
        if v.size == 0:
            raise PhylanxValueError("an empty array cannot be a range bound")
        v = v.ravel()[0]
    if _is_bool(v) or _is_number(v):
        return int(_trunc(v))
    raise PhylanxTypeError(f"a range bound must be a number or nil, got a {type_name(v)}")


def classify(idx: Any) -> tuple[str, Any]:
    """(kind, payload) of one index operand (addendum A.1.2)."""
    if idx is None or idx is IMPLICIT:
        return _ALL, idx
    if isinstance(idx, range):
        return _RANGE, (idx.start, idx.stop, idx.step)
    if isinstance(idx, (list, tuple)):
        if len(idx) == 0 or (len(idx) == 1 and idx[0] is None):
            return _ALL, ()
        if len(idx) == 1:
            v = idx[0]
            if _is_bool(v):
                return _BOOL, np.asarray(v)
            if _is_number(v):     # list(3) is 3; list(1.5) is position 1
                return _INT, _trunc(v)
        if len(idx) > 3:
            raise PhylanxValueError("too many indices given")
        return _RANGE, tuple(_entry(v) for v in idx) + (None,) * (3 - len(idx))
    if _is_bool(idx):
        return _BOOL, np.asarray(idx)
    if _is_number(idx):
        return _INT, _trunc(idx)
    raise PhylanxTypeError(f"unsupported indexing type: {type_name(idx)}")


def _range(payload: tuple, n: int, what: str) -> list:
    """A normalised, unclamped range as ``[start, stop, step]`` for NumPy."""
    start, stop, step = payload
    step = 1 if step is None else step
    if step == 0:
        raise PhylanxValueError("step can not be zero")
    if start is None:
        start = 0 if step > 0 else n - 1
    elif start < 0:
        start += n
    if stop is None:
        stop = n if step > 0 else -1          # -1: before element 0
    elif stop < 0:
        stop += n
    if start == stop and 0 <= start < n:
        return [0, 0, 1]
    if start < 0 or start >= n or abs(stop - start) > n or (step < 0 and stop < -1):
        raise PhylanxIndexError(f"cannot extract {what}: range {payload[0]}:{payload[1]}"
                                f":{payload[2]} does not fit an axis of length {n} (ranges "
                                "are not clamped in PhySL)")
    if (stop - start) * step < 0:             # runs the wrong way: nothing
        return [0, 0, 1]
    return [start, None if stop < 0 else stop, step]


def _ints(v: Any, n: int) -> Any:
    """Integer index (scalar or array) with negatives wrapped once; checked."""
    arr = np.asarray(v, dtype=np.int64)
    wrapped = np.where(arr < 0, arr + n, arr)
    if np.any((wrapped < 0) | (wrapped >= n)):
        bad = arr[(wrapped < 0) | (wrapped >= n)] if arr.ndim else arr
        raise PhylanxIndexError(f"index {np.ravel(bad)[0]} is out of range for an axis of "
                                f"length {n}")
    return int(wrapped) if wrapped.ndim == 0 else wrapped


def _numpy(c: tuple[str, Any], n: int, what: str) -> Any:
    """One classified index as a NumPy-style PhySL index for an axis of length ``n``."""
    kind, payload = c
    if kind == _ALL:
        return None
    if kind == _RANGE:
        return _range(payload, n, what)
    if kind == _INT:
        return _ints(payload, n)
    return payload if payload.ndim else bool(payload)


def _vector(n: int, index: Any) -> Any:
    kind, payload = c = classify(index)
    what = "anything but the existing elements from a vector"
    if kind == _INT and np.ndim(payload) >= 3:
        raise PhylanxValueError("unexpected type for indices used for advanced integer array "
                                "indexing")
    if kind == _BOOL:
        if payload.ndim == 0:     # True: all; False: nothing
            return None if payload else np.zeros(0, np.int64)
        if payload.ndim > 1:
            raise PhylanxIndexError("too many indices for array")
        if payload.shape[0] != n:
            raise PhylanxIndexError(
                "boolean index did not match indexed array along dimension 0; dimension is "
                f"{n} but corresponding boolean dimension is {payload.shape[0]}")
    return _numpy(c, n, what)


def _is_nil(v: Any) -> bool:
    return v is None or v is IMPLICIT


def _one_element_scalar(c: tuple[str, Any]) -> tuple[str, Any]:
    kind, payload = c
    if kind == _INT and np.ndim(payload) and np.size(payload) == 1:
        return _INT, int(np.ravel(payload)[0])
    return c


def _matrix(shape: tuple, r: Any, c: Any) -> list:
    nrows, ncols = shape
    what = "the requested matrix elements"
    cr, cc = classify(r), classify(c)
    # an explicit nil next to an integer or boolean index is NumPy's newaxis, in front
    if r is None and cc[0] in (_INT, _BOOL):
        rows = np.flatnonzero(cc[1]) if cc[0] == _BOOL and cc[1].ndim else cc[1]
        rows = _ints(rows, nrows)
        return [rows] if np.ndim(rows) == 0 else [NEWAXIS, rows]
    if c is None and cr[0] in (_INT, _BOOL) and not (cr[0] == _BOOL and cr[1].ndim == 0):
        rows = np.flatnonzero(cr[1]) if cr[0] == _BOOL else cr[1]
        rows = _ints(rows, nrows)
        return [rows] if np.ndim(rows) == 0 else [NEWAXIS, rows]
    if r is IMPLICIT and cc[0] == _INT and np.ndim(cc[1]) == 2 and np.size(cc[1]) == 1:
        # slice_column(m, j) with j a 2-d index array of one element: (1, nrows, 1)
        return [NEWAXIS, None, _ints(np.ravel(cc[1]), ncols)]
    if cr[0] == _RANGE:   # a one-element index array next to a range acts as a scalar
        cc = _one_element_scalar(cc)
    if cc[0] == _RANGE:
        cr = _one_element_scalar(cr)
    return [_numpy(cr, nrows, what), _numpy(cc, ncols, what)]


def read_indices(value: np.ndarray, indices: list) -> list:
    """The NumPy-style PhySL indices meaning ``slice(value, *indices)`` for an array."""
    ndim = value.ndim
    if ndim == 0:
        return _scalar(indices)
    if ndim == 1:
        if len(indices) == 1:
            return [_vector(value.shape[0], indices[0])]
        if len(indices) == 2:
            a, b = indices
            if _is_nil(a) and _is_nil(b):
                raise PhylanxValueError("target ir::node_data object holds data type that "
                                        "does not support 2d slicing")
            if _is_nil(b):
                return [_vector(value.shape[0], a)]
            if _is_nil(a):
                return [_vector(value.shape[0], b)]
            # v[a][b]: the positions a selects, then b among them
            first = np.arange(value.shape[0])[_index_tuple([_vector(value.shape[0], a)])]
            if np.ndim(first) == 0:
                raise PhylanxValueError("slice(v, a, b) on a vector chains v[a][b]; here "
                                        "v[a] is a scalar, which cannot be indexed")
            return [first[_index_tuple([_vector(first.shape[0], b)])]]
        raise PhylanxValueError(f"target ir::node_data object holds data type that does not "
                                f"support {len(indices)}d slicing")
    if ndim == 2:
        if len(indices) == 1:
            c = classify(indices[0])
            return [_numpy(c, value.shape[0], "the requested matrix elements")]
        if len(indices) == 2:
            return _matrix(value.shape, *indices)
        raise PhylanxValueError("target ir::node_data object holds data type that does not "
                                f"support {len(indices)}d slicing")
    if len(indices) > ndim:
        raise PhylanxIndexError(f"too many indices ({len(indices)}) for a {ndim}-d array")
    return [_numpy(classify(i), n, "the requested tensor elements")
            for i, n in zip(indices, value.shape)]


def _scalar(indices: list) -> list:
    """A 0-d target takes one index selecting element 0 of a length-1 axis."""
    if len(indices) > 1:
        raise PhylanxValueError("target ir::node_data object holds data type that does not "
                                f"support {len(indices)}d slicing")
    kind, payload = classify(indices[0])
    ok = kind == _ALL
    if kind == _INT:
        ok = int(np.ravel(payload)[0]) in (0, -1)
    elif kind == _RANGE:
        try:
            ok = _range(payload, 1, "") in ([0, 1, 1], [0, None, -1])
        except PhylanxIndexError:
            ok = False
    if not ok:
        raise PhylanxIndexError("cannot extract anything but the first element from a scalar")
    return []


def _index_tuple(indices: list) -> tuple:
    from .indexing import to_index
    return tuple(to_index(i) for i in indices)


def list_index(seq: Any, indices: list) -> Any:
    """One index into a list, read as a position or a range (no advanced indexing)."""
    kind, payload = classify(indices[0])
    n = len(seq)
    if kind == _ALL:
        return list(seq)
    if kind == _RANGE:
        first, last, stride = payload
        if stride not in (None, 1) and last is not None:
            # the original cuts a stepped range at the list's end (step 1 is not clamped)
            if stride > 0 and last > n:
                payload = (first, n, stride)
            elif stride < 0 and last < -n:
                payload = (first, None, stride)
        start, stop, step = _range(payload, n, "the requested list elements")
        return list(seq)[slice(start, stop, step)]
    if kind == _INT:   # an index array gives its first element
        return ("one", _ints(int(np.ravel(payload)[0]), n))
    raise PhylanxTypeError("a list takes an integer or a range as its index, not a boolean")


def dict_key(key: Any) -> Any:
    if isinstance(key, np.ndarray) and key.ndim == 0:
        key = key[()]
    if not isinstance(key, (bool, int, float, str, np.generic)):
        raise PhylanxTypeError(f"the given index cannot be used for indexing a dictionary: "
                               f"{type_name(key)}")
    return key


def form_indices(kind: str, idx: list) -> list:
    """The ``slice`` operands of ``slice_row``/``slice_column``/``slice_page``/``tuple_slice``."""
    if kind == "tuple_slice":
        return list(idx[0]) if idx and isinstance(idx[0], (list, tuple)) else list(idx)
    if kind == "slice":
        return list(idx)
    if len(idx) != 1:
        raise PhylanxValueError(f"{kind} takes exactly one index, got {len(idx)}")
    if kind == "slice_column":
        return [IMPLICIT, idx[0]]
    if kind == "slice_page":
        return [idx[0], IMPLICIT]
    return [idx[0]]


def is_scalar(value: Any) -> bool:
    """A 0-d number (a Python or NumPy scalar, or a 0-d array)."""
    return (isinstance(value, (bool, int, float, np.generic)) and not isinstance(value, str)) \
        or (isinstance(value, np.ndarray) and value.ndim == 0)


def store_scalar(kind: str, container: Any, idx: list, value: Any) -> Any:
    """The new value of a 0-d ``container`` after ``store(<kind>(container, idx...), value)``:
    one index selecting element 0 (A.1.3), a 0-d numeric value converted to the target's
    dtype (2.7 stored into an int is 2)."""
    _scalar(form_indices(kind, idx))
    if not is_scalar(value) or np.asarray(value).dtype.kind not in "biuf":
        raise PhylanxValueError(f"only a 0-d number can be stored into a 0-d value, got a "
                                f"{type_name(value)}")
    dtype = np.asarray(container).dtype
    new = np.asarray(value).astype(dtype)[()]
    if isinstance(container, (bool, int, float)) and not isinstance(container, np.generic):
        return type(container)(new)   # a Python number stays one
    return new


def store_indices(kind: str, container: Any, idx: list, value: Any) -> tuple[list, Any]:
    """NumPy-style indices (and the value) for ``store(<kind>(container, idx...), value)``."""
    idx = form_indices(kind, idx)
    if not isinstance(container, np.ndarray):
        if isinstance(container, dict) and idx:
            return [dict_key(idx[0]), *idx[1:]], value
        if isinstance(container, list) and idx:
            c = classify(idx[0])
            if c[0] == _INT:
                return [_ints(int(np.ravel(c[1])[0]), len(container)), *idx[1:]], value
            if c[0] == _RANGE:
                rng = _range(c[1], len(container), "the requested list elements")
                if rng[2] == 1 and len(idx) == 1:
                    # the original: a list value of the same length, or any other value
                    # filling the range
                    k = len(range(len(container))[slice(*rng)])
                    if not isinstance(value, (list, tuple)):
                        # an array fills each element with its own copy (a later store
                        # through one element must not change the others)
                        value = ([np.copy(value) for _ in range(k)]
                                 if isinstance(value, np.ndarray) else [value] * k)
                    elif len(value) != k:
                        raise PhylanxValueError(
                            f"cannot assign a list to a slice of a different size ({len(value)} "
                            f"values for {k} list elements; Python's l[a:b] = v resizes)")
                return [rng, *idx[1:]], value
        return idx, value
    if value is None or isinstance(value, (list, tuple, dict, str)):
        # the original converts the value to the target's dtype: numbers and arrays only
        raise PhylanxTypeError(f"the value stored into a slice of an array must be numeric, "
                               f"got a {type_name(value)}")
    if container.ndim == 1 and len(idx) == 2 and not (_is_nil(idx[0]) and _is_nil(idx[1])):
        # the original stores through the first non-nil index only
        idx = [idx[0] if not _is_nil(idx[0]) else idx[1]]
    out = read_indices(container, idx)
    if container.ndim == 1 and np.ndim(value) > 1:
        raise PhylanxValueError(f"a {np.ndim(value)}-d value cannot be stored into a slice of "
                                "a vector (source ir::node_data object holds unsupported data "
                                "type)")
    if (container.ndim == 1 and len(out) == 1 and isinstance(out[0], np.ndarray)
            and out[0].dtype == np.bool_ and np.ndim(value) == 1):
        # the original broadcasts the value to the vector's length n and writes its first k
        # entries into the k selected places (NumPy's v[mask] = w takes k values)
        n, k = container.shape[0], int(out[0].sum())
        if np.shape(value)[0] not in (1, n):
            raise PhylanxValueError(
                f"cannot broadcast a vector into a vector of different size: a store through a "
                f"boolean mask takes a value of the vector's length {n} (or 1), got "
                f"{np.shape(value)[0]} (Python's v[mask] = w takes the {k} selected values)")
        value = np.broadcast_to(np.asarray(value), (n,))[:k]
    return out, value
