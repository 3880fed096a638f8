"""The 200 NumPy functions that everyday NumPy code calls most, as dotted names relative to
``numpy`` (``linalg.solve`` is ``numpy.linalg.solve``): the table ``phylanx primitives
--coverage`` measures the frontend against.

Compiled by hand for issue 12 from common NumPy usage (tutorials, scientific and
machine-learning code): array creation, shape manipulation, reductions, element-wise math,
comparisons, searching/sorting/counting, calculus and polynomials, products, file I/O, and
the most used ``numpy.linalg`` and ``numpy.random`` functions, in that order.  Not ranked
within the table; aliases (``abs``/``absolute``, ``degrees``/``rad2deg``) count
separately because code spells them both ways.
"""
from __future__ import annotations

NUMPY_TOP200: tuple[str, ...] = (
    "array", "asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
    "empty_like", "full_like", "arange", "linspace", "logspace", "eye", "identity", "diag",
    "meshgrid", "copy", "reshape", "ravel", "transpose", "swapaxes", "moveaxis",
    "expand_dims", "squeeze", "concatenate", "stack", "vstack", "hstack", "column_stack",
    "split", "array_split", "hsplit", "vsplit", "tile", "repeat", "flip", "fliplr",
    "flipud", "roll", "rot90", "broadcast_to", "atleast_1d", "atleast_2d", "pad", "append",
    "insert", "delete", "sum", "prod", "mean", "median", "std", "var", "min", "max", "amin",
    "amax", "argmin", "argmax", "cumsum", "cumprod", "percentile", "quantile", "average",
    "ptp", "nansum", "nanmean", "nanmax", "nanmin", "count_nonzero", "all", "any", "abs",
    "absolute", "sqrt", "square", "exp", "log", "log2", "log10", "log1p", "expm1", "sin",
    "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "floor",
    "ceil", "round", "rint", "trunc", "sign", "power", "mod", "add", "subtract", "multiply",
    "divide", "reciprocal", "maximum", "minimum", "clip", "deg2rad", "rad2deg", "degrees",
    "radians", "isnan", "isinf", "isfinite", "nan_to_num", "isclose", "allclose",
    "array_equal", "equal", "not_equal", "greater", "less", "greater_equal", "less_equal",
    "logical_and", "logical_or", "logical_not", "where", "nonzero", "argwhere",
    "flatnonzero", "sort", "argsort", "unique", "searchsorted", "digitize", "bincount",
    "histogram", "isin", "take", "take_along_axis", "unravel_index", "diff", "gradient",
    "trapezoid", "interp", "convolve", "cov", "corrcoef", "polyfit", "polyval", "dot",
    "matmul", "inner", "outer", "kron", "tensordot", "einsum", "cross", "trace", "tril",
    "triu", "fill_diagonal", "shape", "ndim", "size", "vectorize", "loadtxt", "savetxt",
    "save", "load", "linalg.norm", "linalg.inv", "linalg.det", "linalg.solve", "linalg.eig",
    "linalg.eigh", "linalg.svd", "linalg.qr", "linalg.cholesky", "linalg.lstsq",
    "linalg.pinv", "linalg.matrix_rank", "linalg.slogdet", "random.seed", "random.rand",
    "random.randn", "random.randint", "random.random", "random.uniform", "random.normal",
    "random.choice", "random.shuffle", "random.permutation", "random.binomial",
    "random.poisson", "random.exponential", "random.default_rng",
)
