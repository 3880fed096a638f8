"""The linear-algebra primitives at the edges, NumPy the oracle: one table.

Every primitive of the table (decompositions, inverses, determinants, solvers, norms,
products) meets every input of ``INPUTS``: a singular matrix, a non-square one, 0x0 and
1x1, float32, int and bool (NumPy computes them in float64), float16 and long double
(NumPy refuses them), complex, NaN and inf entries, a stack where NumPy takes one,
non-contiguous views (``a.T``, ``a[::2]``, ``a[::-1]``), a Fortran-ordered copy, an
object array.  The verdict is NumPy's: both answer the same dtype, shape and values, or
both raise (ours a PhylanxError naming the primitive and the source).  Where we refuse
what NumPy answers, ``REFUSED`` says why, and the message must say it too; nothing else
may differ.  A hypothesis law closes it: ``x`` back from ``a @ x`` for well-conditioned
``a`` by every direct solver.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import phylanx
from phylanx import Phylanx
from phylanx.errors import PhylanxError

RNG = np.random.default_rng(0)
_G = RNG.standard_normal((3, 3)) + 3 * np.eye(3)          # general, well conditioned
_S = _G @ _G.T                                             # symmetric positive definite
_TALL = RNG.standard_normal((6, 3))

INPUTS = {
    "general": _G,
    "spd": _S,
    "singular": np.array([[1.0, 2.0], [2.0, 4.0]]),
    "rank_deficient": _TALL[:, :2] @ _TALL[:, :2].T,
    "non_square": RNG.standard_normal((2, 3)),
    "2x0": np.zeros((2, 0)),
    "0x0": np.zeros((0, 0)),
    "int_0x0": np.zeros((0, 0), int),
    "1x1": np.array([[4.0]]),
    "vector": np.array([1.0, 2.0, 3.0]),
    "scalar": np.float64(2.0),
    "float32": _S.astype(np.float32),
    "int": np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]]),
    "uint8": np.array([[2, 1], [1, 3]], np.uint8),
    "bool": np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]], bool),
    "float16": _S.astype(np.float16),
    "longdouble": _S.astype(np.longdouble),
    "complex": _S + 1j * np.array([[0, 1, 0], [-1, 0, 2], [0, -2, 0.0]]),
    "complex64": (_S + 1j * np.eye(3)).astype(np.complex64),
    "nan": np.where(np.eye(3, dtype=bool), np.nan, _S),
    "inf": np.where(np.eye(3, dtype=bool), np.inf, _S),
    "stack": np.stack([_S, 2 * _S]),
    "float32_stack": np.stack([_S, _S]).astype(np.float32),
    "empty_stack": np.zeros((0, 3, 3)),
    "non_square_stack": RNG.standard_normal((2, 2, 3)),
    "transposed": _G.T,
    "every_other_row": np.repeat(_S, 2, axis=0)[::2],
    "reversed_rows": _S[::-1],
    "fortran": np.asfortranarray(_G),
    "object": _S.astype(object),
}


def _rhs(a):
    """A right-hand side NumPy accepts for ``a`` (and a vector for the original's solvers)."""
    return np.ones(np.shape(a)[:-1]) if np.ndim(a) >= 2 else np.ones(3)


def _original_operands(a, b):
    """The original's solvers (addendum A.3.9): a real matrix and a vector, read as float64
    (but not from float16 or long double, which numpy.linalg refuses)."""
    a = np.asarray(a)
    if np.ndim(a) != 2 or np.ndim(b) != 1 or a.dtype.kind not in "biuf":
        raise ValueError("a real matrix and a vector")
    np.linalg.inv(np.eye(1, dtype=a.dtype))           # numpy.linalg's dtype verdict
    return a.astype(np.float64), np.asarray(b, np.float64)


def _symmetric_solve(a, b):
    """The original's symmetric solvers: the upper triangle read, in float64."""
    a, b = _original_operands(a, b)
    return np.linalg.solve(np.triu(a) + np.triu(a, 1).T, b)


def _lu_solve(a, b):
    return np.linalg.solve(*_original_operands(a, b))


def _cholesky_solve(a, b):
    np.linalg.cholesky(np.triu(a) + np.triu(a, 1).T if np.ndim(a) == 2 else a)
    return _symmetric_solve(a, b)


def _krylov_solve(spd: bool):
    """The iterative solvers' oracle: NumPy's answer, in ``a``'s float dtype (float32 kept),
    for the systems the method is for (CG: symmetric positive definite)."""
    def oracle(a, b):
        x = _lu_solve(a, b)
        if not np.isfinite(np.asarray(a, np.float64)).all():
            raise ValueError("inf or NaN")
        if spd and not (np.allclose(a, np.transpose(a)) and np.all(np.linalg.eigvalsh(
                np.asarray(a, np.float64)) > 0)):
            raise ValueError("not symmetric positive definite")
        both32 = np.asarray(a).dtype == np.asarray(b).dtype == np.float32
        return x.astype(np.float32) if both32 else x
    return oracle


def _listed(fn):
    return lambda *args: list(fn(*args))


# name: (PhySL lambda, NumPy oracle)
TABLE = {
    "inverse": ("lambda(a, inverse(a))", np.linalg.inv),
    "invGJE": ("lambda(a, invGJE(a))", np.linalg.inv),
    "determinant": ("lambda(a, determinant(a))", np.linalg.det),
    "slogdet": ("lambda(a, slogdet(a))", _listed(np.linalg.slogdet)),
    "solve": ("lambda(a, b, solve(a, b))", np.linalg.solve),
    "pinv": ("lambda(a, pinv(a))", np.linalg.pinv),
    "qr_r": ("lambda(a, absolute(qr(a, \"r\")))", lambda a: np.abs(np.linalg.qr(a, "r"))),
    "svd_s": ("lambda(a, svd(a, false, false))", lambda a: np.linalg.svd(a, compute_uv=False)),
    "eig_w": ("lambda(a, car(eig(a)))", lambda a: np.linalg.eig(a)[0]),
    "eigvals": ("lambda(a, eigvals(a))", np.linalg.eigvals),
    "eigh_w": ("lambda(a, car(eigh(a)))", lambda a: np.linalg.eigh(a)[0]),
    "eigvalsh": ("lambda(a, eigvalsh(a))", np.linalg.eigvalsh),
    "cholesky": ("lambda(a, cholesky(a))", np.linalg.cholesky),
    "lstsq_x": ("lambda(a, b, car(lstsq(a, b)))", lambda a, b: np.linalg.lstsq(a, b)[0]),
    "matrix_rank": ("lambda(a, matrix_rank(a))", np.linalg.matrix_rank),
    "matrix_power_3": ("lambda(a, matrix_power(a, 3))", lambda a: np.linalg.matrix_power(a, 3)),
    "matrix_power_-1": ("lambda(a, matrix_power(a, -1))",
                        lambda a: np.linalg.matrix_power(a, -1)),
    "norm": ("lambda(a, __npnorm(a))", np.linalg.norm),
    "norm_2": ("lambda(a, __npnorm(a, 2))", lambda a: np.linalg.norm(a, 2)),
    "norm_nuc": ("lambda(a, __npnorm(a, \"nuc\"))", lambda a: np.linalg.norm(a, "nuc")),
    "trace": ("lambda(a, trace(a))", np.trace),
    "kron": ("lambda(a, kron(a, a))", lambda a: np.kron(a, a)),
    "cross": ("lambda(a, cross(a, a * 2 + 1))", lambda a: np.cross(a, a * 2 + 1)),
    "matmul": ("lambda(a, matmul(a, a))", lambda a: np.matmul(a, a)),
    "dot": ("lambda(a, dot(a, a))", lambda a: np.dot(a, a)),
    "outer": ("lambda(a, outer(a, a))", lambda a: np.outer(a, a)),
    "vdot": ("lambda(a, vdot(a, a))", lambda a: np.vdot(a, a)),
    "inner": ("lambda(a, inner(a, a))", lambda a: np.inner(a, a)),
    "tensordot": ("lambda(a, tensordot(a, a))", lambda a: np.tensordot(a, a)),
    "linear_solver_lu": ("lambda(a, b, linear_solver_lu(a, b))", _lu_solve),
    "linear_solver_ldlt": ("lambda(a, b, linear_solver_ldlt(a, b))", _symmetric_solve),
    "linear_solver_cholesky": ("lambda(a, b, linear_solver_cholesky(a, b))", _cholesky_solve),
    "conjugate_gradient": ("lambda(a, b, iterative_solver_conjugate_gradient(a, b))",
                           _krylov_solve(spd=True)),
    "gmres": ("lambda(a, b, iterative_solver_gmres(a, b))", _krylov_solve(spd=False)),
}

_NUMERIC = "must be a numeric array|must be numeric"
#: (primitive, input) -> what our message says where NumPy answers and we refuse
REFUSED = {
    **{(name, "object"): _NUMERIC for name in TABLE},       # no object arrays in phylanx
    ("solve", "complex"): "must be real",
    ("solve", "complex64"): "must be real",
    # the original's solvers and invGJE: finite operands (ldlt called NaN "singular")
    **{(name, key): "finite" for name in ("linear_solver_lu", "linear_solver_ldlt",
                                          "linear_solver_cholesky") for key in ("nan", "inf")},
    ("invGJE", "nan"): "NaN or infinity",
    ("invGJE", "inf"): "NaN or infinity",
    ("invGJE", "stack"): "square matrix",
    ("invGJE", "float32_stack"): "square matrix",
    ("invGJE", "empty_stack"): "square matrix",
}


def _primitive(code: str) -> str:
    """The primitive a table entry tests: the innermost one applied to ``a``."""
    return re.findall(r"([A-Za-z_]\w*)\(a", code)[-1]


def _rounding(dtype) -> tuple[float, float]:
    low = np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64))
    return (1e-4, 1e-5) if low else (1e-9, 1e-12)


def _same(got, want) -> None:
    got_list = got if isinstance(got, list) else [got]
    want_list = want if isinstance(want, list) else [want]
    assert len(got_list) == len(want_list)
    for g, w in zip(got_list, want_list):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        rtol, atol = _rounding(w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.filterwarnings("ignore")         # NumPy's own on NaN, inf and singular input
@pytest.mark.parametrize("name", TABLE)
def test_each_linear_algebra_primitive_on_each_edge_is_numpys_answer(name):
    code, oracle = TABLE[name]
    function = phylanx.evaluate(code)
    primitive = _primitive(code)
    differences = []
    for key, a in INPUTS.items():
        args = (a, _rhs(a)) if "b," in code else (a,)
        try:
            want, numpy_error = oracle(*[np.copy(x) for x in args]), None
        except Exception as error:                    # noqa: BLE001 - NumPy's verdict
            want, numpy_error = None, error
        try:
            got, ours = function(*args), None
        except PhylanxError as error:
            got, ours = None, error
        if ours is not None:
            # (np.linalg.norm is compiled to primitives: its error may name one of them)
            if ours.loc is None or (ours.primitive != primitive and name != "norm"):
                differences.append(f"{key}: not located at {primitive}: {ours!r}")
            if numpy_error is None:
                reason = REFUSED.get((name, key))
                if reason is None:
                    differences.append(f"{key}: refused what NumPy answers: {ours}")
                elif not re.search(reason, str(ours)):
                    differences.append(f"{key}: the refusal does not say {reason!r}: {ours}")
        elif numpy_error is not None:
            differences.append(f"{key}: answered where NumPy raises {numpy_error!r}")
        else:
            try:
                _same(got, want)
            except AssertionError as error:
                differences.append(f"{key}: {error}")
    assert not differences, "\n".join(differences)


def test_the_table_covers_the_registrys_linear_algebra():
    # a new decomposition or solver should join the table
    from phylanx.primitives.registry import _REGISTRY as REGISTRY
    covered = {_primitive(code) for code, _ in TABLE.values()}
    expected = {"inverse", "invGJE", "determinant", "slogdet", "solve", "pinv", "qr", "svd",
                "eig", "eigvals", "eigh", "eigvalsh", "cholesky", "lstsq", "matrix_rank",
                "matrix_power", "__npnorm", "trace", "kron", "cross", "matmul", "dot", "outer",
                "vdot", "inner", "tensordot", "linear_solver_lu", "linear_solver_ldlt",
                "linear_solver_cholesky"}
    assert expected <= set(REGISTRY) and expected <= covered


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 8), seed=st.integers(0, 2**16),
       name=st.sampled_from(["solve", "linear_solver_lu", "linear_solver_ldlt",
                             "linear_solver_cholesky", "iterative_solver_conjugate_gradient",
                             "iterative_solver_gmres"]),
       exponent=st.integers(-300, 300))
def test_a_well_conditioned_system_gives_x_back(n, seed, name, exponent):
    # the law solve(a, a @ x) ~ x, at any scale of a (a power of two: a @ x is then exact
    # up to the scale's rounding of the product alone)
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, n))
    a = (m @ m.T + n * np.eye(n)) * 2.0**exponent       # SPD, cond <= ~ (1 + n)
    x = rng.standard_normal(n)
    got = phylanx.evaluate(f"lambda(a, b, {name}(a, b))", a, a @ x)
    np.testing.assert_allclose(got, x, rtol=1e-7, atol=1e-7 * np.abs(x).max())


def _rounded_singular(n: int, dtype, seed: int) -> np.ndarray:
    """``b @ b^H`` (b n x (n-1), rounded: rank n-1 up to rounding) whose LU pivots all pass
    the pivot test, so that only the condition estimate finds it singular."""
    from phylanx.primitives.solvers.direct import factorise
    rng = np.random.default_rng(seed)
    while True:
        b = rng.standard_normal((n, n - 1))
        if np.dtype(dtype).kind == "c":
            b = b + 1j * rng.standard_normal((n, n - 1))
        a = (b @ b.conj().T).astype(dtype)
        singular = factorise(np.array(a, order="F"), "getrf")[1]
        if singular is not None and singular.pivot is None:
            return a


@Phylanx
def _numpy_solve(a, b):
    return np.linalg.solve(a, b)


@Phylanx
def _numpy_inv(a):
    return np.linalg.inv(a)


@Phylanx
def _solve_loss(a, b):
    return np.sum(np.linalg.solve(a, b))


#: every way into solve's and inverse's rule: name -> (call, takes complex, takes stacks)
SINGULAR_ENTRIES = {
    "solve": (lambda a: phylanx.evaluate("lambda(a, b, solve(a, b))", a, _ones_rhs(a)),
              False, True),
    "np.linalg.solve": (lambda a: _numpy_solve(a, _ones_rhs(a)), False, True),
    "grad of np.linalg.solve": (lambda a: phylanx.grad(_solve_loss)(a, _ones_rhs(a)),
                                False, True),
    "inverse": (lambda a: phylanx.evaluate("lambda(a, inverse(a))", a), True, True),
    "np.linalg.inv": (_numpy_inv, True, True),
    "invGJE": (lambda a: phylanx.evaluate("lambda(a, invGJE(a))", a), True, False),
    "matrix_power_-1": (lambda a: phylanx.evaluate("lambda(a, matrix_power(a, -1))", a),
                        True, True),
}


def _ones_rhs(a):
    return np.ones(a.shape[:-1] + (1,), a.dtype)


def _layouts(a: np.ndarray, regular: np.ndarray) -> dict:
    """``a`` alone, in a stack after a regular matrix, as a stack of one, and enough
    regular matrices around it for the stacked path's compiled kernel (if it is hot)."""
    return {"2-d": a, "stacked": np.stack([regular, a, regular]), "singleton": a[None],
            "large stack": np.stack([regular] * 70 + [a])}


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_a_rounded_singular_matrix_is_refused_by_every_entry_and_layout(dtype):
    # NumPy answers garbage for these (their pivots are far from zero); the rule (a pivot
    # or the condition estimate at most n * eps, both looks) is the same for all paths
    n = 6
    a = _rounded_singular(n, dtype, seed=n)
    regular = (np.eye(n) * 3 + np.triu(np.ones((n, n)), 1) * 0.5).astype(dtype)
    wrong = []
    for name, (call, complex_ok, stacks_ok) in SINGULAR_ENTRIES.items():
        if np.dtype(dtype).kind == "c" and not complex_ok:
            continue
        for layout, value in _layouts(a, regular).items():
            if layout != "2-d" and not stacks_ok:
                continue
            try:
                call(value)
                wrong.append(f"{name} {layout}: answered")
            except PhylanxError as error:
                if "singular" not in str(error):
                    wrong.append(f"{name} {layout}: {error}")
        # the regular matrices themselves (and an empty stack) are answered
        for layout, value in (("2-d", regular), ("stacked", np.stack([regular] * 3)),
                              ("empty stack", np.zeros((0, n, n), dtype))):
            if layout == "2-d" or stacks_ok:
                call(value)
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_a_stack_asks_gecon_only_of_matrices_not_clearly_conditioned(dtype, monkeypatch):
    # LAPACK's loop estimated every matrix (13 us a call loaded, four times getrf's: a
    # 20,000 x 4 x 4 stack 28 -> 214 ms); a bound from the factors passes the clearly
    # regular ones, and the verdict stays gecon's
    from phylanx.primitives.solvers import direct
    n = 6
    singular = _rounded_singular(n, dtype, seed=n)
    regular = (np.eye(n) * 3 + np.triu(np.ones((n, n)), 1) * 0.5).astype(dtype)
    real = direct.lapack_routine
    asked = []

    def counting(name, routine_dtype):
        routine = real(name, routine_dtype)
        if name != "gecon":
            return routine
        return lambda *args, **kwargs: (asked.append(1), routine(*args, **kwargs))[1]
    monkeypatch.setattr(direct, "lapack_routine", counting)
    stack = np.stack([regular] * 5 + [singular] + [regular] * 4)
    _pivots, _infos, rconds = direct._stack_pivots(stack)
    assert len(asked) == 1
    assert rconds[5] <= n * np.finfo(dtype).eps < np.delete(rconds, 5).min()
    assert direct.first_singular_in_stack(stack)[0] == (5,)
