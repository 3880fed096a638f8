"""Lookup tables of the Python -> PhySL translation.

Operators map onto operator primitives; NumPy, ``math`` and Python built-in
names map onto primitive names.  A NumPy name missing from :data:`NUMPY_RENAMES`
is used as is (``np.exp`` -> ``exp``) when a primitive of that name exists.
Tables only hold names; :mod:`.expressions` decides how arguments are passed.
"""
from __future__ import annotations

import ast
import math

import numpy as np

#: Python binary operator -> primitive
BINARY_OPS: dict[type, str] = {
    ast.Add: "__add", ast.Sub: "__sub", ast.Mult: "__mul", ast.Div: "__div",
    ast.FloorDiv: "__floordiv", ast.Mod: "__mod", ast.Pow: "power", ast.MatMult: "matmul",
    ast.BitAnd: "__bitand", ast.BitOr: "__bitor", ast.BitXor: "__bitxor",
    ast.LShift: "__lshift", ast.RShift: "__rshift",
}

#: Python comparison operator -> primitive (``in``/``is`` are handled by the translator)
COMPARE_OPS: dict[type, str] = {
    ast.Eq: "__eq", ast.NotEq: "__ne", ast.Lt: "__lt", ast.LtE: "__le",
    ast.Gt: "__gt", ast.GtE: "__ge",
}

UNARY_OPS: dict[type, str | None] = {
    ast.USub: "__minus", ast.UAdd: "__pos", ast.Not: "__pynot", ast.Invert: "__invert",
}

#: NumPy (and numpy.linalg / numpy.random, written ``linalg.x`` / ``random.x``) -> primitive
#: NumPy functions whose primitive has no oracle to call (it takes a function), though it is
#: NumPy's: :func:`.numpy_calls.numpy_namesake` maps other oracle-less names to nothing.
NUMPY_WITHOUT_ORACLE = frozenset({"fromfunction"})

NUMPY_RENAMES: dict[str, str] = {
    "add": "__add", "subtract": "__sub", "multiply": "__mul", "divide": "__div",
    "true_divide": "__div", "negative": "__minus", "mod": "__mod", "remainder": "__mod",
    "floor_divide": "__floordiv", "divmod": "__divmod", "block": "__npblock",
    "append": "__npappend", "fix": "trunc",
    # the PhySL primitives follow the original on 0-d input (docs/physl.md)
    "nonzero": "__npnonzero", "where": "__npwhere", "indices": "__npindices",
    "hstack": "__nphstack", "vstack": "__npvstack", "dstack": "__npdstack",
    "stack": "__npstack",
    "equal": "__eq", "not_equal": "__ne", "less": "__lt", "less_equal": "__le",
    "greater": "__gt", "greater_equal": "__ge",
    "bitwise_and": "__bitand", "bitwise_or": "__bitor", "bitwise_xor": "__bitxor",
    "invert": "__invert", "bitwise_not": "__invert", "left_shift": "__lshift",
    "right_shift": "__rshift",
    "max": "amax", "min": "amin", "abs": "absolute",
    # NumPy 2's array-API names
    "acos": "arccos", "asin": "arcsin", "atan": "arctan", "acosh": "arccosh",
    "asinh": "arcsinh", "atanh": "arctanh", "atan2": "arctan2", "pow": "power",
    "conjugate": "__pyconj", "conj": "__pyconj", "bitwise_invert": "__invert",
    "bitwise_left_shift": "__lshift", "bitwise_right_shift": "__rshift",
    "diagonal": "diag", "copy": "__copy", "real": "__real", "imag": "__imag", "round": "__npround",
    "around": "__npround", "concat": "concatenate", "asarray": "__array", "array": "__array",
    "asanyarray": "__array", "ascontiguousarray": "__array",
    "radians": "deg2rad", "degrees": "rad2deg",
    "linalg.inv": "inverse", "linalg.det": "determinant", "linalg.norm": "__npnorm",
    "linalg.solve": "solve", "linalg.matmul": "matmul", "linalg.matrix_power": "matrix_power",
}

#: NumPy scalar types and constants usable as values
NUMPY_DTYPES: dict[str, str] = {
    "float64": "float64", "float32": "float32", "float_": "float64", "double": "float64",
    "single": "float32", "int64": "int64", "int32": "int32", "int_": "int64", "intp": "int64",
    "bool_": "bool", "bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16",
    "float16": "float16", "complex128": "complex128", "uint16": "uint16", "uint32": "uint32",
    "uint64": "uint64", "complex64": "complex64", "cdouble": "complex128",
    "csingle": "complex64", "half": "float16",
}
NUMPY_CONSTANTS: dict[str, float] = {
    "pi": math.pi, "e": math.e, "inf": math.inf, "Inf": math.inf, "Infinity": math.inf,
    "PINF": math.inf, "infty": math.inf, "NINF": -math.inf, "nan": math.nan, "NaN": math.nan,
    "NAN": math.nan, "euler_gamma": float(np.euler_gamma), "PZERO": 0.0, "NZERO": -0.0,
}
#: built-ins whose result is a Python bool (the primitive gives ``np.bool_``)
BUILTIN_BOOL_RESULTS = frozenset({"any", "all"})
#: primitives that keep Python numbers Python (operators): as NumPy functions
#: (``np.add(1, 2)``) their results are given NumPy's kind
NUMPY_SCALAR_RESULTS = frozenset({
    "__add", "__sub", "__mul", "__div", "__floordiv", "__mod", "__minus", "__divmod",
    "__eq", "__ne", "__lt", "__le", "__gt", "__ge", "__bitand", "__bitor", "__bitxor",
    "__lshift", "__rshift", "__invert", "power", "__copy"})
#: primitives of Python operators on Python numbers (``1 / 0`` raises ZeroDivisionError,
#: ``bool_array ** 2`` is int8): as NumPy functions (``np.divide(1, 0)``,
#: ``np.power(b, 2)``) they compute in NumPy's types (``__npoperand``)
PYTHON_OPERATORS = frozenset({"__div", "__floordiv", "__mod", "__divmod", "power"})
#: NumPy functions that always return an ndarray, where the primitive (following the
#: original, whose 0-d values are scalars) gives a scalar for a 0-d result: the
#: result is made the 0-d array NumPy gives (``__asndarray``)
NUMPY_ARRAY_RESULTS = frozenset({
    "cov", "zeros", "ones", "full", "empty", "copy", "zeros_like", "ones_like", "full_like",
    "empty_like", "array", "asarray", "asanyarray", "ascontiguousarray", "broadcast_to"})
#: array methods (and NumPy functions) whose result may be a 0-d array NumPy keeps
#: (``__asndarray``; a reshape to a shape written with one or more sizes is not 0-d and
#: stays a plain ``reshape`` for the rewrite passes)
SHAPE_METHODS = frozenset({"squeeze", "reshape"})
#: NumPy functions that return a Python bool (not ``np.bool_``): the result is converted
NUMPY_BOOL_RESULTS = frozenset({"array_equal", "allclose", "isscalar", "iscomplexobj",
                                "isrealobj"})
#: NumPy functions whose several results are a tuple (a namedtuple for ``linalg``) where
#: the primitive gives a PhySL list: the list is made a tuple (``__nptuple``)
NUMPY_TUPLE_RESULTS = frozenset({
    "nonzero", "where", "unique", "histogram", "meshgrid", "unravel_index", "average",
    "polyfit", "gradient", "atleast_1d", "atleast_2d", "atleast_3d", "linalg.svd",
    "linalg.slogdet",
    "linalg.eig", "linalg.eigh", "linalg.qr", "linalg.lstsq"})
MATH_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "inf": math.inf,
                                    "nan": math.nan, "tau": math.tau}

#: Python built-in functions -> primitive
BUILTIN_CALLS: dict[str, str] = {
    "len": "__len", "print": "__print", "abs": "__pyabs", "range": "range", "str": "__pystr",
    "list": "__pylist",
    "tuple": "__pytuple", "enumerate": "__enumerate", "zip": "__zip", "sum": "__pysum",
    "max": "__pymax", "min": "__pymin", "sorted": "__sorted", "reversed": "__reversed",
    "round": "__round", "map": "__pymap", "filter": "filter", "pow": "power", "any": "any",
    "all": "all", "dict": "dict", "divmod": "__divmod",
}
#: built-ins used as dtype values (``dtype=float``)
BUILTIN_DTYPES: dict[str, str] = {"float": "float64", "int": "int64", "bool": "bool",
                                  "complex": "complex128"}

#: array attributes -> primitive applied to the array
ATTRIBUTES: dict[str, str] = {
    "shape": "shape", "T": "transpose", "ndim": "ndim", "size": "size", "dtype": "__dtype",
    "real": "__real", "imag": "__imag",
}

#: methods of arrays, lists and dictionaries -> primitive (receiver first)
METHODS: dict[str, str] = {
    "sum": "sum", "mean": "mean", "std": "std", "var": "var", "prod": "prod", "any": "any",
    "all": "all", "max": "amax", "min": "amin", "argmax": "argmax", "argmin": "argmin",
    "cumsum": "cumsum", "cumprod": "cumprod", "dot": "dot", "transpose": "transpose",
    "reshape": "reshape", "flatten": "flatten", "ravel": "ravel", "view": "__view",
    "swapaxes": "swapaxes",
    "astype": "astype",
    "copy": "__copy", "clip": "clip", "squeeze": "squeeze", "tolist": "__tolist",
    "item": "__item", "nonzero": "__npnonzero", "round": "__npround", "trace": "trace",
    "diagonal": "diag", "conj": "__pyconj", "conjugate": "__pyconj",
    "argsort": "argsort", "repeat": "repeat", "fill": "__fill", "sort": "__sort_inplace",
    "append": "__list_append", "extend": "__list_extend", "pop": "__pop",
    "insert": "__list_insert", "remove": "__list_remove", "reverse": "__list_reverse",
    "index": "__index", "count": "__count",
    "get": "__dict_get", "items": "__items", "keys": "__keys", "values": "__values",
    "update": "__dict_update", "setdefault": "__setdefault",
    "format": "format",
}

#: what the error message suggests for constructs we reject (see checks.py)
SUGGESTIONS: dict[type, str] = {
    ast.ClassDef: "define classes outside the decorated function",
    ast.Yield: "generators are not supported; build a list and return it",
    ast.YieldFrom: "generators are not supported; build a list and return it",
    ast.Await: "async code is not supported; use 'with parallel:' or prange for concurrency",
    ast.AsyncFunctionDef: "async functions are not supported; use 'with parallel:' or prange",
    ast.AsyncFor: "async for is not supported; use 'for i in prange(...)' for parallel loops",
    ast.AsyncWith: "async with is not supported; use 'with parallel:'",
    ast.Import: "import modules at the top of the file, outside the decorated function",
    ast.ImportFrom: "import modules at the top of the file, outside the decorated function",
    ast.Delete: "del is not supported; assign a new value instead",
    ast.Match: "match statements are not supported; use if/elif/else",
}
if hasattr(ast, "TryStar"):
    SUGGESTIONS[ast.TryStar] = ("except* (exception groups) is not supported; use plain "
                                "try/except")
