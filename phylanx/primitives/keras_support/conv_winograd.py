"""1-d stride-1 convolutions and their gradients by Winograd's minimal filtering.

Why: a convolution with ``r`` taps done as one GEMM per tap (``conv_gemm.py``) costs
``r`` products of ``C x O`` per output row.  Winograd's ``F(m, r)`` computes ``m``
outputs from ``a = m + r - 1`` inputs with ``a`` products per tile instead of ``m r``
(Lavin & Gray, *Fast Algorithms for Convolutional Neural Networks*, 2016): the input
rows of a tile are transformed (``B^T``), each of the ``a`` components is one GEMM with
the transformed kernel (``G K``), and the ``a`` results are folded back into ``m`` output
rows (``A^T``).  With ``a = 8`` and ``r = 5`` that is 2 products per output row instead
of 5.  The same holds for both gradients:

* the input's cotangent is a correlation of the (zero-embedded) output cotangent with
  the flipped, transposed kernel, so it runs the forward kernel;
* the kernel's cotangent ``dK[t] = sum_p X[p + t]^T CT[p]`` is ``F(r, m)`` over tiles of
  ``m`` rows: per tile, ``a`` products of ``C x O`` (one GEMM per component over a chunk
  of tiles, summed), folded to ``r`` taps once at the end.

Every tile reads its rows through one function (``_row`` in the generated source) that
returns a zero row outside the data or past an item's valid positions, so tiles run
across batch items (the junk rows a tile produces there are cut off as in
``conv_gemm.py``) and the cotangent needs no zero-embedded copy.

The transforms run in numba kernels generated per ``(m, r, dtype)`` (coefficients as
literals, so each transformed row is one pass with no zero terms) and cached on disk by
``kernels/compiling.py``.  They are written for numba's compile time: the row reader and
the input transform are called, not inlined into both kernels by numba (``inline=
"always"`` copied their unrolled bodies into each), and the sum of the kernel's partial
products is a plain loop (an array ``+=`` compiled a broadcast check and ufunc loop);
together a module's compile fell from 6-7 s of CPU to 2-3 s (loaded) with the same
arithmetic (``docs/performance.md``, wino50).  Each kernel works through chunks of tiles small
enough to stay in cache, calling BLAS (``np.dot`` inside numba: SciPy's BLAS, put under
the thread policy of ``runtime/blas_threads.py`` when a module loads) for the component
products.  The
interpolation points (0, +-1, +-2, +-1/2 and infinity) make every entry of ``B^T`` and
``A^T`` a short binary fraction, exact in any float; ``G``'s are not (2/9, 1/90 ...):
it is applied to the kernel in float64, and, for the kernel's cotangent, to the
cotangent rows as literals rounded to the dtype.  Rounding: the result differs from the
direct sums by a few times float32's epsilon relative to the output's scale
(``tests/primitives/test_conv_winograd.py`` bounds it for every kernel size served).

When it runs: numba installed, a 1-d stride-1 undilated convolution of 2 to 7 taps,
``MIN_CHANNELS`` in and out, of ``MIN_FLOPS`` or more; and the kernel
compiled: at the ``HOT_CALLS``-th such call of a process the kernel is compiled in the
background as fusion's are (``fusion_background``; loaded at once when numba's disk
cache holds it), the direct form serving meanwhile, so a cold short run pays no
compile.  A kernel that fails to compile is reported once (a ``FusionWarning``) and the
direct form serves from then on.  Setting ``conv_winograd`` off keeps the direct form.
"""
from __future__ import annotations

import threading
import warnings
from fractions import Fraction
from functools import cache

import numpy as np

from ... import config
from .. import blas_blocks

#: components per tile (7 finite interpolation points and infinity)
ALPHA = 8
POINTS = (Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2),
          Fraction(1, 2), Fraction(-1, 2))
#: fewest input and output channels: the transforms' cost grows against the products'
#: savings as channels shrink (``python benchmarks/conv_step.py``, part ``channels``,
#: ``results/2026-12-04-conv-step-winograd-2.txt``: conv + VJP 0.89x the per-tap form at
#: 32 channels, 0.91x at 16, 0.90x at 8, where single timings swing by a tenth)
MIN_CHANNELS = 16
#: flops (2 rows C O r) below which the direct form's few products cost less set-up
MIN_FLOPS = blas_blocks.MIN_FLOPS
#: fitting calls after which the kernel is compiled (when not in numba's disk cache)
HOT_CALLS = 2
#: elements of a chunk's transformed tiles (per component array): about 256 KB in float32
CHUNK_ELEMENTS = 64 * 1024

_lock = threading.Lock()
_calls: dict[tuple, int] = {}
_kernels: dict[tuple, object] = {}
_failed: set[tuple] = set()
_pending: set[tuple] = set()


@cache
def transforms(m: int, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(A^T (m x a), G (a x r), B^T (a x a))`` of ``F(m, r)``, ``a = m + r - 1 = ALPHA``:
    ``y = A^T [(G g) * (B^T d)]`` is the valid correlation of ``d`` (``a`` values) with
    ``g`` (``r``).  Exact: built from fractions and checked before it is returned."""
    a = m + r - 1
    if a != ALPHA or m < 1 or r < 1:
        raise ValueError(f"F({m}, {r}) needs m + r - 1 = {ALPHA}")
    pts = POINTS
    at = [[p ** i for p in pts] + [Fraction(int(i == m - 1))] for i in range(m)]
    scale = [np.prod([p - q for q in pts if q != p]) for p in pts]
    g = ([[p ** k / s for k in range(r)] for p, s in zip(pts, scale)]
         + [[Fraction(int(k == r - 1)) for k in range(r)]])
    # B^T from sum_j AT[i, j] G[j, k] BT[j, l] = [l == i + k] (solved in floats, then
    # rounded to the short fractions it is made of and checked exactly)
    at_f, g_f = np.array(at, float), np.array(g, float)
    rows, rhs = [], []
    for i in range(m):
        for k in range(r):
            for col in range(a):
                row = np.zeros((a, a))
                row[:, col] = at_f[i] * g_f[:, k]
                rows.append(row.ravel())
                rhs.append(float(col == i + k))
    solved = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0].reshape(a, a)
    bt = [[Fraction(round(v * 1024), 1024) for v in row] for row in solved]
    for i in range(m):
        for k in range(r):
            for col in range(a):
                if sum(at[i][j] * g[j][k] * bt[j][col] for j in range(a)) != (col == i + k):
                    raise ArithmeticError(f"F({m}, {r}): transforms do not check")
    return (np.array(at, float), np.array(g, float), np.array(bt, float))


def outputs_per_tile(taps: int) -> int:
    return ALPHA + 1 - taps


def _literal(value: float, dtype: str) -> str:
    return f"np.{dtype}({value!r})"


def _combination(coefficients, names: list[str], dtype: str) -> str:
    """``sum c_i * name_i`` as source, zero terms left out, +-1 without a product."""
    terms = []
    for c, name in zip(coefficients, names):
        if c == 0:
            continue
        sign = "-" if c < 0 else "+"
        body = name if abs(c) == 1 else f"{_literal(float(abs(c)), dtype)} * {name}"
        terms.append(f"{sign} {body}")
    if not terms:
        return _literal(0.0, dtype)
    text = " ".join(terms)
    return text[2:] if text.startswith("+ ") else text


def _lines(indent: int, template: str, count: int) -> str:
    """``template.format(i=i)`` for ``i < count``, one indented line each."""
    return "\n".join(" " * indent + template.format(i=i) for i in range(count))


def _sums(indent: int, target: str, rows, name: str, dtype: str) -> str:
    """``target.format(i=i) = sum_j rows[i][j] * {name}j`` for every row, as lines."""
    names = [f"{name}{j}" for j in range(len(rows[0]))]
    return "\n".join(" " * indent + f"{target.format(i=i)} = "
                     f"{_combination(row, names, dtype)}" for i, row in enumerate(rows))


@cache
def source(m: int, r: int, dtype: str) -> str:
    """Numba source of the two tile kernels of ``F(m, r)`` for ``dtype``."""
    at, _, bt = transforms(m, r)
    g2 = transforms(r, m)[1]                    # F(r, m)'s G: the cotangent rows' transform
    a = ALPHA
    read = _lines(4, "x{i} = _row(S, L, nvalid, shift, q + {i}, zero)", a)
    vs = _lines(4, "v{i} = V[{i}, jj]", a)
    loads = _lines(8, "e{i} = x{i}[c]", a)
    vdefs = _sums(8, "v{i}[c]", bt, "e", dtype)
    ms = _lines(12, "m{i} = M[{i}, jj]", a)
    ys = _lines(12, "y{i} = Y[q + {i}]", m)
    mloads = _lines(16, "f{i} = m{i}[o]", a)
    ydefs = _sums(16, "y{i}[o]", at, "f", dtype)
    cread = _lines(12, "ct{i} = _row(T, Lc, nc, 0, q + {i}, zc)", m)
    ws = _lines(12, "w{i} = W[{i}, jj]", a)
    cloads = _lines(16, "h{i} = ct{i}[o]", m)
    wdefs = _sums(16, "w{i}[o]", g2, "h", dtype)
    return f'''"""Generated by phylanx.primitives.keras_support.conv_winograd: F({m}, {r}),
{dtype}."""
import numpy as np
from numba import njit


@njit
def _row(S, L, nvalid, shift, q, zero):
    # row q of the items of S laid end to end, each L rows long with nvalid real ones,
    # after shift leading zero rows; zero outside
    p = q - shift
    if p < 0:
        return zero
    item = p // L
    if item >= S.shape[0]:
        return zero
    pos = p - item * L
    if pos >= nvalid:
        return zero
    return S[item, pos]


@njit
def _inputs(S, L, nvalid, shift, q, zero, V, jj):
    # V[:, jj] = B^T (the {a} rows of S from q on)
    C = S.shape[2]
{read}
{vs}
    for c in range(C):
{loads}
{vdefs}


@njit(cache=True, nogil=True)
def correlate_tiles(S, L, nvalid, shift, U, j0, j1, Y, V, M, zero):
    CH = V.shape[1]
    O = Y.shape[1]
    for c0 in range(j0, j1, CH):
        n = min(CH, j1 - c0)
        for jj in range(n):
            _inputs(S, L, nvalid, shift, (c0 + jj) * {m}, zero, V, jj)
        for i in range({a}):
            np.dot(V[i, :n], U[i], M[i, :n])
        for jj in range(n):
            q = (c0 + jj) * {m}
{ms}
{ys}
            for o in range(O):
{mloads}
{ydefs}


@njit(cache=True, nogil=True)
def kernel_tiles(S, L, nvalid, T, Lc, nc, j0, j1, Mk, V, W, tmp, zero, zc):
    CH = V.shape[1]
    O = T.shape[2]
    for c0 in range(j0, j1, CH):
        n = min(CH, j1 - c0)
        for jj in range(n):
            q = (c0 + jj) * {m}
            _inputs(S, L, nvalid, 0, q, zero, V, jj)
{cread}
{ws}
            for o in range(O):
{cloads}
{wdefs}
        for i in range({a}):
            np.dot(V[i, :n].T, W[i, :n], tmp)
            Mki = Mk[i]
            for c in range(tmp.shape[0]):
                for o in range(tmp.shape[1]):
                    Mki[c, o] += tmp[c, o]
'''


def _kernels_for(m: int, r: int, dtype: np.dtype):
    """The compiled module of ``F(m, r)`` for ``dtype``, or None while it is not hot yet,
    compiling (in the background, as fusion's kernels) or failed to compile."""
    key = (m, r, dtype.name)
    module = _kernels.get(key)
    if module is not None or key in _failed:
        return module
    from ...kernels import compiling
    text = source(m, r, dtype.name)
    with _lock:
        # again under the lock: a compile may have ended since (never compile twice,
        # never warn twice)
        if key in _pending or key in _failed or key in _kernels:
            return _kernels.get(key)
        _calls[key] = _calls.get(key, 0) + 1
        cached = compiling.is_cached(text)
        if _calls[key] < HOT_CALLS and not cached:
            return None
        _pending.add(key)

    def work() -> None:
        try:
            loaded = compiled(m, r, dtype)
        except Exception as exc:  # noqa: BLE001 - any compile failure means: direct form
            with _lock:
                _failed.add(key)
            warnings.warn(f"phylanx: Winograd conv1d kernel F({m}, {r}) {dtype.name} did "
                          f"not compile ({compiling.describe_failure(exc)}); using per-tap "
                          "products", compiling.FusionWarning, stacklevel=2)
        else:
            with _lock:
                _kernels[key] = loaded
        finally:
            with _lock:
                _pending.discard(key)
    if cached:
        work()                  # only loads the machine code: done at once
    else:
        compiling.launch(work, f"phylanx-winograd-F{m}-{r}-{dtype.name}")
    return _kernels.get(key)


def _warm(module, m: int, r: int, dtype: np.dtype) -> None:
    """One tiny call of each kernel: compiles them for the types every call uses."""
    x = np.zeros((1, 2 * ALPHA, 1), dtype)
    out = np.zeros((2 * ALPHA, 1), dtype)
    u = np.zeros((ALPHA, 1, 1), dtype)
    v, mm = np.zeros((ALPHA, 1, 1), dtype), np.zeros((ALPHA, 1, 1), dtype)
    zero = np.zeros(1, dtype)
    module.correlate_tiles(x, 2 * ALPHA, 2 * ALPHA, 0, u, 0, 1, out, v, mm, zero)
    mk, tmp = np.zeros((ALPHA, 1, 1), dtype), np.zeros((1, 1), dtype)
    module.kernel_tiles(x, 2 * ALPHA, 2 * ALPHA, x, 2 * ALPHA, 2 * ALPHA, 0, 1, mk, v,
                        mm, tmp, zero, zero)


def _available() -> bool:
    from ...kernels import compiling
    return compiling.available()


def kernels(x: np.ndarray, kernel: np.ndarray, dilations: tuple[int, ...],
            ct: np.ndarray | None = None):
    """The compiled kernels for a convolution of the padded input ``x`` (``(B, L, C)``)
    with ``kernel`` (``(r, C, O)``) (and, for its VJP, the cotangent ``ct``: its dtype
    counts too), or None when the direct form serves it."""
    if kernel.ndim != 3 or tuple(dilations) != (1,) or not config.get("conv_winograd"):
        return None
    r, c, o = kernel.shape
    dtype = np.result_type(x, kernel) if ct is None else np.result_type(x, kernel, ct)
    if (dtype not in (np.float32, np.float64) or not 2 <= r <= ALPHA - 1
            or min(c, o) < MIN_CHANNELS or x.shape[1] < r):
        return None
    if 2.0 * x.shape[0] * x.shape[1] * c * o * r < MIN_FLOPS or not _available():
        return None
    return _kernels_for(outputs_per_tile(r), r, np.dtype(dtype))


def compiled(m: int, r: int, dtype) -> object:
    """The module of ``F(m, r)``'s kernels for ``dtype``, compiled now if need be (tests,
    benchmarks); raises if it does not compile."""
    from ...kernels import compiling
    from ...runtime import blas_threads
    text = source(m, r, np.dtype(dtype).name)
    module = compiling.module_from_source(text)
    with compiling.first_compile(text):     # (its types are _warm's: no cache check)
        _warm(module, m, r, np.dtype(dtype))
    # numba's np.dot calls SciPy's BLAS, a library of its own (as blas_gemm.py's)
    blas_threads.include_loaded_libraries()
    return module


def _operand(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``a`` as the kernels were compiled for: C-contiguous, writable, of ``dtype`` (a
    read-only array is another numba type, which would compile anew on this thread)."""
    return np.require(a, dtype, ("C", "W"))


def _chunk(channels: int) -> int:
    return max(8, CHUNK_ELEMENTS // channels)


def _correlate_rows(module, src: np.ndarray, length: int, nvalid: int, shift: int,
                    u: np.ndarray, tiles: int, out: np.ndarray, m: int) -> None:
    """``out[q] = sum_t row(q + t) @ K[t]`` for the tiles ``0..tiles`` (rows ``0..tiles *
    m``) in row blocks on the task pool; ``u`` the transformed kernel."""
    dtype = out.dtype
    chans, outs = src.shape[2], out.shape[1]
    chunk = _chunk(max(chans, outs))
    zero = np.zeros(chans, dtype)

    def block(j0: int, j1: int) -> None:
        v = np.empty((ALPHA, chunk, chans), dtype)
        mm = np.empty((ALPHA, chunk, outs), dtype)
        module.correlate_tiles(src, length, nvalid, shift, u, j0, j1, out, v, mm, zero)
    blas_blocks.rows(tiles, 2.0 * tiles * ALPHA * chans * outs, block)


def _transformed(kernel: np.ndarray, m: int, dtype: np.dtype) -> np.ndarray:
    """``G K`` (``(ALPHA, C, O)``), computed in float64."""
    g = transforms(m, kernel.shape[0])[1]
    return np.ascontiguousarray(np.tensordot(g, kernel.astype(np.float64), 1), dtype)


def correlate(module, x: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """``conv_gemm.correlate`` (1-d, undilated) by Winograd: rows ``(B * L + pad, O)``
    of which the output cells are cut off by the caller as there."""
    dtype = np.result_type(x, kernel)
    r = kernel.shape[0]
    m = outputs_per_tile(r)
    src = _operand(x, dtype)
    count = src.shape[0] * src.shape[1]
    tiles = -(-(count - r + 1) // m)
    acc = np.empty((max(count, tiles * m), kernel.shape[-1]), dtype)
    _correlate_rows(module, src, src.shape[1], src.shape[1], 0, _transformed(kernel, m, dtype),
                    tiles, acc, m)
    return acc[:count]


def correlate_vjp(module, x: np.ndarray, kernel: np.ndarray, ct: np.ndarray,
                  need_x: bool, need_k: bool):
    """``conv_gemm.correlate_vjp`` (1-d, undilated) by Winograd: both cotangents in one
    pass over blocks of tiles (one fork-join; each block's cotangent rows read by both
    kernels in turn), as the per-tap form does; a pass per cotangent timed the same
    within the noise."""
    dtype = np.result_type(x, kernel, ct)
    r = kernel.shape[0]
    m = outputs_per_tile(r)
    src, cts = _operand(x, dtype), _operand(ct, dtype)
    batch, length, chans = src.shape
    outs = cts.shape[-1]
    count = batch * length
    # the input's cotangent: dX[q] = sum_s CT'[q + s] @ K[r - 1 - s]^T, CT' the placed
    # cotangent after r - 1 zero rows (tiles over every input row); the kernel's: F(r, m)
    # over the output rows (tiles_k <= tiles)
    tiles, tiles_k = -(-count // m), -(-(count - r + 1) // m)
    flops = 2.0 * tiles * ALPHA * chans * outs * (need_x + need_k)
    bounds = blas_blocks.block_bounds(tiles, flops)
    chunk = _chunk(max(chans, outs))
    zx, zc = np.zeros(chans, dtype), np.zeros(outs, dtype)
    if need_x:
        flipped = np.ascontiguousarray(kernel[::-1].transpose(0, 2, 1))
        u = _transformed(flipped, m, dtype)
        rows = np.empty((tiles * m, chans), dtype)
    if need_k:
        partial = np.zeros((len(bounds), ALPHA, chans, outs), dtype)

    def block(j0: int, j1: int) -> None:
        # per chunk: input rows (or the input cotangent's products) by channels in,
        # cotangent rows (transformed) by channels out; both kernels use them in turn
        by_in = np.empty((ALPHA, chunk, chans), dtype)
        by_out = np.empty((ALPHA, chunk, outs), dtype)
        if need_k and j0 < tiles_k:
            tmp = np.empty((chans, outs), dtype)
            module.kernel_tiles(src, length, length, cts, length, cts.shape[1], j0,
                                min(j1, tiles_k), partial[bounds.index((j0, j1))],
                                by_in, by_out, tmp, zx, zc)
        if need_x:
            module.correlate_tiles(cts, length, cts.shape[1], r - 1, u, j0, j1, rows,
                                   by_out, by_in, zc)
    blas_blocks.rows(tiles, flops, block, bounds)
    grad_x = grad_k = None
    if need_x:
        grad_x = rows[:count].reshape(batch, length, chans)
    if need_k:
        at = transforms(r, m)[0]                 # F(r, m)'s A^T folds components to taps
        total = partial.sum(axis=0, dtype=np.float64) if len(bounds) > 1 else partial[0]
        grad_k = np.tensordot(at, total, 1).astype(dtype, copy=False)
    return grad_x, grad_k
