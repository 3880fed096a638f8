"""Every VJP rule of the registry against ``jax.vjp`` of the JAX function computing the
same primitive (float64), on the inputs of ``cases.py``.

``JAX`` maps each primitive name to a JAX function taking the primitive's arguments as
its kernel does.  The forward values are compared first (a wrong mapping fails there,
not silently), then the rule's cotangents with JAX's for a random output cotangent.
Rules of primitives JAX has no counterpart for are listed in ``NO_JAX`` with the reason;
``tests/autodiff/test_rules.py`` checks them (and every rule) by central differences.
A rule in neither table fails ``test_every_rule_is_compared_with_jax_or_listed``.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import pytest
from jax import lax

from phylanx.autodiff import VJP
from phylanx.autodiff.tape import fit, is_float_value
from phylanx.primitives import registry
from phylanx.primitives.matrixops.shape import pad_widths

from .cases import CASES, RECORDER_ONLY

jax.config.update("jax_enable_x64", True)

_KERAS_EPS = 1e-7   # Keras' clipping of probabilities (primitives/keras_support/losses.py)


def _axis(axis):
    if axis is None:
        return None
    return tuple(int(a) for a in axis) if isinstance(axis, (list, tuple)) else int(axis)


def _flag(value) -> bool:
    return bool(value) if value is not None else False


def _variadic(fn):
    def apply(first, *rest):
        out = first
        for item in rest:
            out = fn(out, item)
        return out
    return apply


def _relu(x, alpha=0.0, max_value=None, threshold=0.0):
    out = jnp.where(x >= threshold, jnp.maximum(x, 0), alpha * (x - threshold))
    return out if max_value is None else jnp.where(x >= max_value, max_value, out)


def _binary_crossentropy(t, o, from_logits=False):
    if _flag(from_logits):
        return jnp.maximum(o, 0) - o * t + jnp.log1p(jnp.exp(-jnp.abs(o)))
    p = jnp.clip(o, _KERAS_EPS, 1 - _KERAS_EPS)
    return -(t * jnp.log(p) + (1 - t) * jnp.log1p(-p))


def _categorical_crossentropy(t, o, from_logits=False, axis=-1):
    if jnp.ndim(o) == 0:
        loss, _ = _categorical_crossentropy(jnp.reshape(t, 1), jnp.reshape(o, 1),
                                            from_logits)
        return loss
    if _flag(from_logits):
        return [-jnp.sum(t * jax.nn.log_softmax(o, axis), axis),
                jnp.clip(jax.nn.softmax(o, axis), _KERAS_EPS, 1 - _KERAS_EPS)]
    p = jnp.clip(o / jnp.sum(o, axis, keepdims=True), _KERAS_EPS, 1 - _KERAS_EPS)
    return [-jnp.sum(t * jnp.log(p), axis), p]


def _softmax_crossentropy(t, z, sparse=False):
    log_probs = jax.nn.log_softmax(z, -1)
    if _flag(sparse):
        picked = jnp.take_along_axis(log_probs, jnp.asarray(t)[..., None], -1)[..., 0]
        return jnp.mean(-picked)
    return jnp.mean(-jnp.sum(t * log_probs, -1))


def _conv(ndim):
    layout = {1: ("NWC", "WIO", "NWC"), 2: ("NHWC", "HWIO", "NHWC")}[ndim]

    def conv(x, k, padding="valid", strides=1, dilation=1):
        strides = [int(s) for s in np.broadcast_to(strides, (ndim,))]
        dilation = [int(d) for d in np.broadcast_to(dilation, (ndim,))]
        if padding == "causal":
            pad = [((k.shape[0] - 1) * dilation[0], 0)]
        else:
            pad = padding.upper()
        return lax.conv_general_dilated(x, k, strides, pad, rhs_dilation=dilation,
                                        dimension_numbers=layout)
    return conv


def _pool(kind):
    def pool(x, size, padding="valid", strides=None):
        nsp = len(size)
        lead = x.ndim - nsp - (1 if x.ndim > nsp else 0)
        window = (1,) * lead + tuple(int(s) for s in size) + (1,) * (x.ndim - lead - nsp)
        step = (1,) * lead + tuple(int(s) for s in (strides or [1] * nsp)) + \
            (1,) * (x.ndim - lead - nsp)
        pads = lax.padtype_to_pads(x.shape, window, step, padding.upper())
        if kind == "max":
            return lax.reduce_window(x, -jnp.inf, lax.max, window, step, pads)
        total = lax.reduce_window(x, 0.0, lax.add, window, step, pads)
        count = lax.reduce_window(jnp.ones_like(x), 0.0, lax.add, window, step, pads)
        return total / count     # Keras' "same" averages the window's real elements
    return pool


def _norm(x, ord=None, axis=None, keepdims=False):
    return jnp.linalg.norm(x, ord, _axis(axis), _flag(keepdims))


def _physl_norm(x, ord=None, axis=None, keepdims=False):
    """The original's norm: a matrix's ord 2 is element-wise (Frobenius), see its doc."""
    if x.ndim == 2 and ord in (None, 2, "fro"):
        return jnp.linalg.norm(x, "fro", keepdims=_flag(keepdims))
    return _norm(x, ord, axis, keepdims)


def _triangle(fn):
    def triangle(m, k=0):    # a 1-d m is taken as its repeated rows, as in NumPy
        return fn(jnp.broadcast_to(m, (m.shape[0],) * 2) if m.ndim == 1 else m, k)
    return triangle


def _split(x, sections, axis=0, kind=jnp.split):
    return list(kind(x, sections if isinstance(sections, int) else list(sections), axis))


def _roll(a, shift, axis=None):
    return jnp.roll(a, tuple(shift) if isinstance(shift, list) else shift, _axis(axis))


def _pad(a, pad_width, mode, constant_values=None):
    # the primitive's reading of its pad_width forms (the original's trailing nil)
    widths = np.broadcast_to(pad_widths(pad_width), (a.ndim, 2))
    return jnp.pad(a, widths.tolist(), mode, constant_values=0.0 if constant_values is None
                   else constant_values)


def _mirrored(a, upper=False):
    """The symmetric matrix a decomposition reading one triangle of ``a`` works on."""
    if upper:
        return jnp.triu(a) + jnp.swapaxes(jnp.triu(a, 1), -1, -2)
    return jnp.tril(a) + jnp.swapaxes(jnp.tril(a, -1), -1, -2)


def _signs_like(vectors, reference):
    """+-1 per column making ``vectors`` point as numpy's ``reference`` do: a singular or
    eigen vector's sign is arbitrary, and the two LAPACK builds may choose differently
    (a constant of the derivative: computed from the primal values)."""
    mine = np.asarray(jax.lax.stop_gradient(vectors))
    return np.where(np.sum(mine * reference, axis=-2, keepdims=True) < 0, -1.0, 1.0)


def _eigh(a, UPLO="L"):  # noqa: N803 - NumPy's keyword name
    w, v = jnp.linalg.eigh(_mirrored(a, UPLO == "U"), symmetrize_input=False)
    reference = np.linalg.eigh(np.asarray(jax.lax.stop_gradient(a)), UPLO)[1]
    return [w, v * _signs_like(v, reference)]


def _conv_adjoint(of_input):
    """The input's (kernel's) cotangent of JAX's convolution: its VJP at ``like``."""
    def adjoint(first, second, like, padding="valid", strides=1, dilation=1):
        kernel = second if of_input else like
        conv = _conv(kernel.ndim - 2)
        if of_input:
            return jax.vjp(lambda x: conv(x, kernel, padding, strides, dilation),
                           like)[1](first)[0]
        return jax.vjp(lambda k: conv(first, k, padding, strides, dilation),
                       like)[1](second)[0]
    return adjoint


def _pool_adjoint(ct, x, name, size, padding="valid", strides=None):
    return jax.vjp(lambda v: _pool(name[:3])(v, size, padding, strides), x)[1](ct)[0]


def _pool_gather(g, x, name, size, padding="valid", strides=None):
    return jax.jvp(lambda v: _pool(name[:3])(v, size, padding, strides), (x,), (g,))[1]


def _eig(a):
    """Real parts (the cases' eigenvalues are real) of JAX's eig, eigenvector derivatives
    enabled (valid for distinct eigenvalues), the vectors' signs as numpy's."""
    w, v = jax.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    v = jnp.real(v)
    return [jnp.real(w), v * _signs_like(v, np.linalg.eig(np.asarray(
        jax.lax.stop_gradient(a)))[1])]


def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    if not _flag(compute_uv):
        return jnp.linalg.svd(a, compute_uv=False)
    u, s, vh = jnp.linalg.svd(a, _flag(full_matrices))
    reference = np.linalg.svd(np.asarray(jax.lax.stop_gradient(a)), _flag(full_matrices))[0]
    signs = _signs_like(u, reference)
    k = s.shape[-1]
    return [u * signs, s, vh.at[..., :k, :].multiply(np.swapaxes(signs[..., :k], -1, -2))]


def _qr(a, mode="reduced"):
    return jnp.linalg.qr(a, mode) if mode == "r" else list(jnp.linalg.qr(a, mode))


def _lstsq(a, b, rcond=None):
    x, residuals, rank, s = jnp.linalg.lstsq(a, b, rcond, numpy_resid=True)
    return [x, residuals, rank.astype(jnp.float64), s]    # the rank carries no gradient


def _sum_like(fn):
    def reduce(a, axis=None, keepdims=None, initial=None, dtype=None):
        out = fn(a, axis=_axis(axis), keepdims=_flag(keepdims))
        return out if initial is None else out + initial
    return reduce


def _moment(fn):
    def reduce(a, axis=None, keepdims=None, dummy=None, dtype=None, ddof=0):
        return fn(a, axis=_axis(axis), keepdims=_flag(keepdims), ddof=ddof)
    return reduce


def _without_dtype(fn):
    def unary(x, dtype=None):
        return fn(x)
    return unary


_UNARY = {name: getattr(jnp, name) for name in (
    "absolute", "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh",
    "arccosh", "arctanh", "square", "conj", "real", "imag", "reciprocal", "fabs", "positive",
    "deg2rad", "rad2deg")}

JAX = {
    **{name: _without_dtype(fn) for name, fn in _UNARY.items()},
    "invsqrt": lambda x, dtype=None: 1 / jnp.sqrt(x),
    "invcbrt": lambda x, dtype=None: 1 / jnp.cbrt(x),
    "exp10": lambda x, dtype=None: 10.0 ** x,
    "erf": lambda x, dtype=None: jsp.erf(x),
    "erfc": lambda x, dtype=None: jsp.erfc(x),
    "__real": jnp.real, "__imag": jnp.imag, "__pyabs": jnp.abs, "__pyconj": jnp.conj,
    "__pos": jnp.positive, "__minus": jnp.negative,
    "sigmoid": jax.nn.sigmoid, "softplus": jax.nn.softplus, "softsign": jax.nn.soft_sign,
    "hard_sigmoid": lambda x: jnp.clip(0.2 * x + 0.5, 0.0, 1.0),
    "relu": _relu, "elu": lambda x, alpha: jax.nn.elu(x, alpha),
    "softmax": lambda x, axis=-1: jax.nn.softmax(x, int(axis)),
    "bias_add": lambda x, b: x + b,
    "l2_normalize": lambda x, axis=None: x / jnp.sqrt(jnp.maximum(
        jnp.sum(x * x, _axis(axis), keepdims=True), 1e-12)),
    "binary_crossentropy": _binary_crossentropy,
    "categorical_crossentropy": _categorical_crossentropy,
    "softmax_crossentropy": _softmax_crossentropy,
    "__add": _variadic(jnp.add), "__sub": _variadic(jnp.subtract),
    "__mul": _variadic(jnp.multiply), "__div": _variadic(jnp.divide), "__mod": jnp.mod,
    "power": jnp.power, "float_power": jnp.float_power,
    "maximum": _variadic(jnp.maximum), "minimum": _variadic(jnp.minimum),
    "fmax": jnp.fmax, "fmin": jnp.fmin, "hypot": jnp.hypot, "arctan2": jnp.arctan2,
    "fmod": jnp.fmod, "copysign": jnp.copysign, "logaddexp": jnp.logaddexp,
    "logaddexp2": jnp.logaddexp2,
    "where": jnp.where, "__npwhere": jnp.where, "clip": jnp.clip,
    "sum": _sum_like(jnp.sum), "mean": _sum_like(jnp.mean), "prod": _sum_like(jnp.prod),
    "amax": _sum_like(jnp.max), "amin": _sum_like(jnp.min),
    "ldexp": jnp.ldexp,
    "nan_to_num": lambda x, copy=True, nan=0.0, posinf=None, neginf=None: jnp.nan_to_num(
        x, nan=nan, posinf=posinf, neginf=neginf),
    "interp": lambda x, xp, fp, left=None, right=None, period=None: jnp.interp(
        x, xp, fp, left, right),
    "average": lambda a, axis=None, weights=None, returned=False, keepdims=False: (
        list(jnp.average(a, _axis(axis), weights, True, keepdims=_flag(keepdims)))
        if returned else jnp.average(a, _axis(axis), weights, keepdims=_flag(keepdims))),
    "__npappend": lambda a, v, axis=None: jnp.append(a, v, None if axis is None
                                                     else int(axis)),
    "kron": jnp.kron, "convolve": lambda a, v, mode="full": jnp.convolve(a, v, mode),
    "nansum": lambda a, axis=None, dtype=None, keepdims=False: jnp.nansum(
        a, _axis(axis), keepdims=_flag(keepdims)),
    "nanmax": lambda a, axis=None, keepdims=False: jnp.nanmax(a, _axis(axis),
                                                              keepdims=_flag(keepdims)),
    "nanmin": lambda a, axis=None, keepdims=False: jnp.nanmin(a, _axis(axis),
                                                              keepdims=_flag(keepdims)),
    "nanmean": lambda a, axis=None, dtype=None, keepdims=False: jnp.nanmean(
        a, _axis(axis), keepdims=_flag(keepdims)),
    "__masked_mean": lambda a, where, axis=None, keepdims=None, dtype=None: jnp.mean(
        a, _axis(axis), keepdims=_flag(keepdims), where=where),
    "var": _moment(jnp.var), "std": _moment(jnp.std),
    "logsumexp": lambda a, axis=None, keepdims=None, dummy=None, dtype=None: jsp.logsumexp(
        a, _axis(axis), keepdims=_flag(keepdims)),
    "cumsum": lambda a, axis=None, dtype=None: jnp.cumsum(a, _axis(axis)),
    "cumprod": lambda a, axis=None, dtype=None: jnp.cumprod(a, _axis(axis)),
    "trace": lambda a, dtype=None, offset=0: jnp.trace(a, offset),
    "norm": _physl_norm, "__npnorm": _norm,
    "reshape": lambda a, shape: jnp.reshape(a, tuple(shape)),
    "__npreshape": lambda a, shape, order="C": jnp.reshape(a, tuple(shape), order=order),
    "squeeze": jnp.squeeze, "expand_dims": jnp.expand_dims,
    "astype": lambda x, dtype: x.astype(dtype),
    "flatten": lambda a, order="C": jnp.ravel(a, order=order or "C"),
    "ravel": lambda a, order="C": jnp.ravel(a, order=order or "C"),
    "transpose": lambda a, axes=None: jnp.transpose(a, _axis(axes)),
    "flip": lambda a, axis=None: jnp.flip(a, _axis(axis)),
    "flipud": jnp.flipud, "fliplr": jnp.fliplr,
    "tile": lambda a, reps: jnp.tile(a, reps),
    "repeat": lambda a, repeats, axis=None: jnp.repeat(
        a, jnp.asarray(repeats), axis, total_repeat_length=int(np.sum(np.broadcast_to(
            repeats, (a.shape[axis] if axis is not None else a.size,))))),
    "pad": _pad, "__nppad": _pad,
    "diag": lambda v, k=0: jnp.diag(v, k),
    "broadcast_to": lambda a, shape: jnp.broadcast_to(a, tuple(shape)),
    "tril": _triangle(jnp.tril), "triu": _triangle(jnp.triu),
    "roll": _roll,
    "split": _split,
    "array_split": lambda x, sections, axis=0: _split(x, sections, axis, jnp.array_split),
    "hsplit": lambda x, sections: list(jnp.hsplit(x, sections)),
    "vsplit": lambda x, sections: list(jnp.vsplit(x, sections)),
    "sort": lambda a, axis=-1, kind=None, order=None: jnp.sort(a, axis=_axis(axis)),
    "rot90": lambda m, k=1, axes=(0, 1): jnp.rot90(m, int(k), _axis(axes)),
    # NumPy's "raise" accepts the indices -n..n-1, which JAX's "wrap" reads alike
    "take": lambda a, indices, axis=None, mode="raise": jnp.take(
        a, jnp.asarray(indices), _axis(axis), mode="wrap" if mode == "raise" else mode),
    "take_along_axis": lambda a, indices, axis: jnp.take_along_axis(a, jnp.asarray(indices),
                                                                    _axis(axis)),
    "diff": lambda a, n=1, axis=-1, prepend=None, append=None: jnp.diff(
        a, int(n), int(axis), prepend, append),
    "concatenate": lambda arrays, axis=0: jnp.concatenate(arrays, _axis(axis)),
    "__npstack": lambda arrays, axis=0, dtype=None: jnp.stack(arrays, int(axis)),
    "__nphstack": lambda arrays, dtype=None: jnp.hstack(arrays),
    "__npvstack": lambda arrays, dtype=None: jnp.vstack(arrays),
    "__npdstack": lambda arrays, dtype=None: jnp.dstack(arrays),
    "column_stack": jnp.column_stack,
    "dot": jnp.dot, "matmul": jnp.matmul, "outer": jnp.outer, "vdot": jnp.vdot,
    "inner": jnp.inner,
    "tensordot": lambda a, b, axes=2: jnp.tensordot(a, b, axes),
    "cross": jnp.cross,
    "einsum": jnp.einsum,
    "slogdet": lambda a: list(jnp.linalg.slogdet(a)), "solve": jnp.linalg.solve,
    "determinant": jnp.linalg.det, "inverse": jnp.linalg.inv, "invGJE": jnp.linalg.inv,
    "matrix_power": jnp.linalg.matrix_power,
    "cholesky": lambda a, upper=False: jnp.linalg.cholesky(
        _mirrored(a, _flag(upper)), upper=_flag(upper), symmetrize_input=False),
    "eigh": _eigh, "eig": _eig, "eigvals": lambda a: _eig(a)[0],
    "eigvalsh": lambda a, UPLO="L": jnp.linalg.eigvalsh(_mirrored(a, UPLO == "U"),
                                                        symmetrize_input=False),
    "svd": _svd, "qr": _qr, "lstsq": _lstsq,
    "pinv": lambda a, rcond=None, hermitian=False: jnp.linalg.pinv(
        _mirrored(a) if _flag(hermitian) else a),
    "__subscript_adjoint": lambda ct, like, *idx: jnp.zeros(like.shape).at[idx].add(ct)
    + 0.0 * like,
    "conv1d": _conv(1), "conv2d": _conv(2),
    "__conv_input_adjoint": _conv_adjoint(True), "__conv_kernel_adjoint": _conv_adjoint(False),
    "__pool_adjoint": _pool_adjoint, "__pool_gather": _pool_gather,
    "max_pool2d": _pool("max"), "max_pool3d": _pool("max"),
    "avg_pool2d": _pool("avg"), "avg_pool3d": _pool("avg"),
}

#: rules of primitives without a JAX counterpart (checked by central differences only)
NO_JAX = {
    **{name: "PhySL's own indexing form (the original's index rules)" for name in (
        "__subscript", "slice", "slice_row", "slice_column", "slice_page", "tuple_slice")},
    **{name: "makes or converts a Python list/tuple/array (no JAX operation)" for name in (
        "list", "tuple", "__pytuple", "__pylist", "__tolist", "__array", "__pycast",
        "__item", "__pysum", "__copy", "__view", "__asndarray")},
    **{name: "the original's join layout (nested lists of scalars), not NumPy's"
       for name in ("hstack", "vstack", "dstack", "stack")},
    **{name: "fills an array shaped like another (the value's cotangent is the sum)"
       for name in ("constant_like", "__npconstant_like", "full_like")},
    "normalize": "the original's normalize (x / sum(x)) has no JAX namesake",
    "__pyconvert": "Python's float(x) (JAX has no operation for it)",
    "__pymath": "Python's math module (its functions are the jnp ones of the same name)",
    "all_reduce": "a collective (MPI): JAX's psum needs a mapped axis",
}


def _slots(args) -> list[tuple]:
    slots = []
    for i, a in enumerate(args):
        if type(a) is list:
            slots += [(i, j) for j, v in enumerate(a) if is_float_value(v)]
        elif is_float_value(a):
            slots.append((i, None))
    return slots


def _place(args, slots, values):
    args = [list(a) if type(a) is list else a for a in args]
    for (i, j), v in zip(slots, values):
        if j is None:
            args[i] = v
        else:
            args[i][j] = v
    return args


def _as_tree(out):
    return [jnp.asarray(o) for o in out] if type(out) in (list, tuple) else jnp.asarray(out)


def _python_sequence_case(name, args) -> bool:
    """``list + list``, ``list * n``: Python's concatenation and repetition (no JAX
    operation; central differences check them)."""
    return name in ("__add", "__mul") and any(type(a) is list for a in args)


CASE_IDS = [(n, k) for n in sorted(CASES) if n in JAX for k in range(len(CASES[n]))
            if not _python_sequence_case(n, CASES[n][k])]


def test_every_rule_is_compared_with_jax_or_listed():
    unlisted = set(VJP.names()) - set(JAX) - set(NO_JAX) - RECORDER_ONLY
    assert not unlisted, f"VJP rules neither compared with JAX nor listed: {sorted(unlisted)}"
    assert not set(JAX) & set(NO_JAX)
    assert set(JAX) <= set(VJP.names()), "a JAX mapping for a primitive without a rule"


#: JAX functions needing their operands' values, not only shapes: a singular or eigen
#: vector's sign chosen as numpy's (_signs_like reads the primal with NumPy), lstsq's
#: NumPy-style residuals (JAX tests the rank).  jax.jit cannot trace them: op by op
_EAGER = {"eigh", "eig", "eigvals", "svd", "lstsq"}

#: (primitive, its non-float arguments) -> the compiled JAX reference: one program per
#: primitive and static arguments, its shapes in jax.jit's own cache (op by op, JAX
#: compiled every operation of every case on its own)
_REFERENCES: dict[tuple, object] = {}


#: the references are compiled once and run once: LLVM's optimisations (a fifth of the
#: compile time of these tiny programs) would never pay, and they only reorder float
#: operations (no fast math either way), inside the tolerances below
_QUICK = {"xla_backend_optimization_level": 0}


def _static_key(args, slots) -> str:
    """The arguments the reference closes over (everything but the float operands)."""
    traced = "<float operand>"
    return repr(_place(args, slots, [traced] * len(slots)))


def _reference(name, args, slots):
    """A function of (float operands, output cotangent) giving JAX's (output, operand
    cotangents) for primitive ``name`` at ``args``."""
    key = (name, _static_key(args, slots))
    if key not in _REFERENCES:
        def with_jax(*values):
            return _as_tree(JAX[name](*_place(args, slots, values)))

        def forward_and_pullback(values, ct):
            out, pullback = jax.vjp(with_jax, *values)
            return out, pullback(ct)
        _REFERENCES[key] = (forward_and_pullback if name in _EAGER
                            else jax.jit(forward_and_pullback, compiler_options=_QUICK))
    return _REFERENCES[key]


@pytest.mark.slow        # JAX compiles one program per primitive and static arguments
@pytest.mark.parametrize(("name", "k"), CASE_IDS, ids=[f"{n}-{k}" for n, k in CASE_IDS])
def test_rule_equals_jax_vjp(name, k):
    args = list(CASES[name][k])
    slots = _slots(args)
    impl = registry.lookup(name).impl
    out = impl(*args)
    floats = [jnp.asarray(np.asarray(args[i] if j is None else args[i][j], np.float64))
              for i, j in slots]
    outs = out if type(out) in (list, tuple) else [out]

    rng = np.random.default_rng(k + 29)
    cts = [rng.standard_normal(np.shape(o)) for o in outs]
    if name == "categorical_crossentropy" and type(out) is list:
        cts[1] = np.zeros(np.shape(outs[1]))      # only the loss carries a gradient
    ct = cts if type(out) in (list, tuple) else cts[0]
    want_out, want_grads = _reference(name, args, slots)(floats, _as_tree(ct))
    wants = want_out if type(want_out) is list else [want_out]
    assert len(wants) == len(outs), f"{name} case {k}: {len(wants)} outputs, not {len(outs)}"
    for got, want in zip(outs, wants):     # the mapping computes the primitive
        np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=1e-10,
                                   atol=1e-12, err_msg=f"{name} case {k}: forward")

    rule_ct = [c if c.any() else None for c in cts] if type(out) in (list, tuple) else ct
    grads = VJP.get(name)(rule_ct, out, *args)
    for (i, j), want in zip(slots, want_grads):
        g = grads[i] if i < len(grads) else None
        if g is not None and j is not None:
            g = g[j]
        operand = args[i] if j is None else args[i][j]
        got = np.zeros(np.shape(operand)) if g is None else fit(g, operand)
        scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11 * scale,
                                   err_msg=f"{name} case {k}, operand {(i, j)}")
