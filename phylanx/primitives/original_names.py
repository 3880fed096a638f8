"""The primitive names of the original Phylanx, as data, and the coverage report.

Where the data comes from: the tables of §3.3 of ``shared/spec/phylanx-reference.md``
(the compatibility contract), extracted once by a script and committed here: the 289
names the original registers (§3.2), by category.  Not included: the ``__arg`` marker
(§3.3.2, keyword syntax rather than a primitive), ``lda_trainer`` and ``amax_d``
(defined but not registered in the original).

Flags: *distributed* names (categories ``dist_matrixops``/``dist_keras_support`` and
``shape_d slice_row_d slice_column_d annotate_d file_read_csv_d``), *compiler-internal*
node kinds (``access-argument`` ... with no PhySL name) and *conditional* ones (only in
builds with BlazeIterative or HighFive).  The coverage report compares the user-visible,
non-distributed names with what the registry declares here.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

ORIGINAL_BY_CATEGORY: dict[str, tuple[str, ...]] = {
    "core": (
        "store", "define-variable", "define-global-variable", "define", "define_global",
        "cout", "assert", "__type", "lambda", "enable_tracing", "variable-factory",
        "annotate", "annotate_d", "find_all_localities", "function", "format",
        "access-variable", "__name", "access-function", "target-reference", "timer",
        "variable", "global_variable", "string", "call-function", "access-argument",
        "debug", "find_here", "num_localities", "hostname"
    ),
    "arithmetics": (
        "__mul", "cumprod", "cumsum", "__minus", "__div", "__add", "absolute", "floor",
        "ceil", "trunc", "rint", "conj", "real", "imag", "sqrt", "invsqrt", "cbrt",
        "invcbrt", "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan",
        "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
        "arctanh", "erf", "erfc", "square", "sign", "normalize", "trace", "__mod",
        "maximum", "__sub", "minimum", "isnan", "isinf", "isneginf", "isposinf", "isfinite"
    ),
    "booleans": (
        "__le", "__not", "logical_not", "__xor", "logical_xor", "__eq", "nonzero", "where",
        "__ne", "__and", "logical_and", "__or", "logical_or", "__lt", "__ge", "__gt"
    ),
    "controls": (
        "for_each", "fromfunction", "range", "filter", "parallel_block", "fold_right",
        "apply", "async", "fmap", "parallel_map", "block", "if", "while", "fold_left",
        "for", "indices"
    ),
    "listops": (
        "prepend", "append", "car", "cdr", "caar", "cadr", "cdar", "cddr", "caaar", "caadr",
        "cadar", "caddr", "cdaar", "cdadr", "cddar", "cdddr", "caaaar", "caaadr", "caadar",
        "caaddr", "cadaar", "cadadr", "caddar", "cadddr", "cdaaar", "cdaadr", "cdadar",
        "cdaddr", "cddaar", "cddadr", "cdddar", "cddddr", "list", "make_list", "__len",
        "dict"
    ),
    "matrixops": (
        "argmax", "pad", "eye", "size", "random", "random_sample", "random_integers",
        "randn", "set_seed", "get_seed", "argmin", "slice", "slice_row", "slice_column",
        "tuple_slice", "slice_page", "slice_row_d", "slice_column_d", "repeat",
        "determinant", "sort", "expand_dims", "concatenate", "hstack", "vstack", "stack",
        "dstack", "count_nonzero", "hsplit", "identity", "inverse", "ndim", "gradient",
        "arange", "constant", "full", "constant_like", "full_like", "reshape", "flatten",
        "insert", "vsplit", "flipud", "fliplr", "flip", "diag", "argsort", "transpose",
        "astype", "tile", "shape", "shape_d", "cross", "power", "norm", "shuffle",
        "linearmatrix", "squeeze", "unique", "outer", "dot", "tensordot", "invGJE", "clip",
        "linspace"
    ),
    "statistics": (
        "var", "std", "all", "logsumexp", "sum", "amax", "mean", "amin", "prod", "any"
    ),
    "solvers": (
        "linear_solver_lu", "linear_solver_ldlt", "linear_solver_cholesky",
        "iterative_solver_conjugate_gradient", "iterative_solver_bicgstab",
        "iterative_solver_bicgstab_lu", "iterative_solver_bicgstab_rq",
        "iterative_solver_bicgstab_qr", "iterative_solver_bicgstab_cholesky",
        "iterative_solver_cg_jacobi", "iterative_solver_cg_ssor",
        "iterative_solver_cg_incompleteCholesky",
        "iterative_solver_cg_symmetric_gauss_seidel", "iterative_solver_lanczos",
        "iterative_solver_arnoldi", "iterative_solver_gmres", "lu"
    ),
    "fileio": (
        "file_read_csv", "file_write_csv", "file_read_hdf5", "file_read_csv_d", "file_read",
        "file_write", "file_write_hdf5"
    ),
    "keras_support": (
        "sigmoid", "max_pool2d", "conv1d", "softplus", "hard_sigmoid", "spatial_2d_padding",
        "ctc_decode", "one_hot", "categorical_crossentropy", "relu", "avg_pool2d",
        "bias_add", "switch", "resize_images", "separable_conv1d", "conv2d_transpose",
        "conv2d", "softsign", "max_pool3d", "elu", "binary_crossentropy", "l2_normalize",
        "avg_pool3d", "softmax", "batch_dot"
    ),
    "algorithms": (
        "kmeans", "als", "lra"
    ),
    "dist_matrixops": (
        "constant_d", "argmin_d", "random_d", "cannon_product_d", "argmax_d", "inverse_d",
        "dot_d", "all_gather_d", "identity_d", "diag_d", "transpose_d", "retile_d"
    ),
    "dist_keras_support": (
        "conv1d_d",
    ),
}

#: names of compiler-created node kinds: no PhySL name a program can call
COMPILER_INTERNAL: frozenset[str] = frozenset({
    "access-argument", "access-function", "access-variable", "call-function",
    "define-global-variable", "define-variable", "function", "global_variable",
    "target-reference", "variable", "variable-factory"
})

#: registered only in builds with BlazeIterative (iterative solvers) or HighFive (HDF5)
CONDITIONAL: frozenset[str] = frozenset({
    "file_read_hdf5", "file_write_hdf5", "iterative_solver_arnoldi",
    "iterative_solver_bicgstab", "iterative_solver_bicgstab_cholesky",
    "iterative_solver_bicgstab_lu", "iterative_solver_bicgstab_qr",
    "iterative_solver_bicgstab_rq", "iterative_solver_cg_incompleteCholesky",
    "iterative_solver_cg_jacobi", "iterative_solver_cg_ssor",
    "iterative_solver_cg_symmetric_gauss_seidel", "iterative_solver_conjugate_gradient",
    "iterative_solver_gmres", "iterative_solver_lanczos"
})

#: the 19 names with `name__bool/__int/__float` dtype variants (§2.4)
SUPPORTS_DTYPE: frozenset[str] = frozenset({
    "__add", "__div", "__minus", "__mod", "__mul", "__sub", "hsplit", "isfinite", "isinf",
    "isnan", "isneginf", "isposinf", "linearmatrix", "linspace", "logsumexp", "maximum",
    "minimum", "power", "vsplit"
})

#: defined in the original's sources but not registered there (§3.3.12, §3.3.15): a
#: reimplementation may register them without calling them extensions
DEFINED_NOT_REGISTERED: dict[str, str] = {"lda_trainer": "algorithms",
                                          "amax_d": "dist_statistics"}

_DISTRIBUTED_CATEGORIES = ("dist_matrixops", "dist_keras_support")
_DISTRIBUTED_ELSEWHERE = frozenset({
    "shape_d", "slice_row_d", "slice_column_d", "annotate_d", "file_read_csv_d",
})

#: every registered name of the original -> its category
ORIGINAL_CATEGORY: dict[str, str] = {
    name: category for category, names in ORIGINAL_BY_CATEGORY.items() for name in names
}

#: names of the distributed primitives (tiles, annotations, collectives)
DISTRIBUTED: frozenset[str] = frozenset(
    name for category in _DISTRIBUTED_CATEGORIES for name in ORIGINAL_BY_CATEGORY[category]
) | _DISTRIBUTED_ELSEWHERE


@dataclass(frozen=True)
class OriginalName:
    name: str
    category: str
    distributed: bool
    internal: bool
    conditional: bool

    @property
    def user_visible(self) -> bool:
        return not self.internal


def original_names() -> list[OriginalName]:
    """The 289 registered names of the original, with their flags, in catalogue order."""
    return [OriginalName(name, category, name in DISTRIBUTED, name in COMPILER_INTERNAL,
                         name in CONDITIONAL)
            for name, category in ORIGINAL_CATEGORY.items()]


@dataclass(frozen=True)
class CoverageReport:
    """Which of the original's user-visible names exist here."""

    expected: tuple[str, ...]             # user-visible, non-distributed names of the original
    missing: tuple[str, ...]              # ... of which not declared here
    distributed_expected: tuple[str, ...]
    distributed_missing: tuple[str, ...]
    extensions: tuple[str, ...]           # names declared here that the original does not have

    @property
    def present(self) -> int:
        return len(self.expected) - len(self.missing)

    def missing_by_category(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name in self.missing:
            out.setdefault(ORIGINAL_CATEGORY[name], []).append(name)
        return out


def coverage_report(names: Iterable[str] | None = None) -> CoverageReport:
    """Compare ``names`` (default: every name of the registry) with the original's names."""
    if names is None:
        from .registry import all_names
        names = all_names()
    have = set(names)
    visible = [n for n in original_names() if n.user_visible]
    local = tuple(n.name for n in visible if not n.distributed)
    dist = tuple(n.name for n in visible if n.distributed)
    plain = {n for n in have if not n.endswith(("__bool", "__int", "__float"))}
    return CoverageReport(
        expected=local,
        missing=tuple(n for n in local if n not in have),
        distributed_expected=dist,
        distributed_missing=tuple(n for n in dist if n not in have),
        extensions=tuple(sorted(plain - set(ORIGINAL_CATEGORY) - set(DEFINED_NOT_REGISTERED)
                                - {"__arg"})),
    )
