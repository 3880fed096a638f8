"""min/max reductions propagate NaN as NumPy does, whatever the array's size (inline
in the header slot, or reduced by MPI) and whichever rank holds the NaN, for arrays,
0-d arrays and NumPy scalars; complex min/max are NumPy's (real part, then imaginary) and
a bitwise op of floats is NumPy's TypeError, at every size; prints 'OK <rank>' at the
end."""
import numpy as np

from phylanx import distributed as dist

r, n = dist.find_here(), dist.num_localities()


def arrays(size: int, dtype) -> list[np.ndarray]:
    """Every rank's operand (each rank builds them all: the oracle needs them): one NaN
    per rank, at a place of its own, amid numbers that differ by rank."""
    out = [np.linspace(-k, k + 1.0, size).astype(dtype) for k in range(n)]
    for k in range(n):
        out[k][k] = np.nan
    return out


for size in (4, 1000):          # 4: inline (collectives._ROOM); 1000: MPI's reduction
    for dtype in (np.float64, np.float32, np.float16):
        every = arrays(size, dtype)
        for op, oracle in (("max", np.max), ("min", np.min)):
            want = oracle(np.stack(every), axis=0)
            label = f"all_reduce {op} of {size} {np.dtype(dtype).name}"
            got = dist.all_reduce(every[r], op, name="nan").result()
            assert got.dtype == want.dtype, (label, got.dtype)
            np.testing.assert_array_equal(got, want, err_msg=label)
            got = dist.reduce(every[r], op, root=n - 1, name="nan").result()
            if r == n - 1:
                np.testing.assert_array_equal(got, want, err_msg="reduce: " + label)
    # a NaN beside numbers both larger and smaller on the other ranks
    column = np.array([np.nan if r == 0 else float(r)] * size)
    assert np.isnan(dist.all_reduce(column, "max", name="nan").result()).all()
    assert np.isnan(dist.all_reduce(column, "min", name="nan").result()).all()
    # complex numbers: NumPy orders them (real part, then imaginary part), MPI has no
    # MIN/MAX for them, so large ones took MPI's error where small ones got NumPy's answer
    every = [np.arange(size) * (k % 2 - 0.5) + 1j * np.arange(size) * k for k in range(n)]
    every[0][1] = complex(np.nan, 0.0)
    for op, oracle in (("max", np.maximum), ("min", np.minimum)):
        want = oracle.reduce(np.stack(every), axis=0)
        label = f"all_reduce {op} of {size} complex128"
        np.testing.assert_array_equal(dist.all_reduce(every[r], op, name="cx").result(),
                                      want, err_msg=label)
        got = dist.reduce(every[r], op, root=0, name="cx").result()
        if r == 0:
            np.testing.assert_array_equal(got, want, err_msg="reduce: " + label)
    # a bitwise op of floats: NumPy's TypeError, the same at every size and on every rank
    for op in ("band", "bxor"):
        try:
            dist.all_reduce(np.ones(size), op, name="bits").result()
        except Exception as e:      # noqa: BLE001 - its text is what is checked
            assert "not supported for the input types" in str(e), (op, size, str(e))
        else:
            raise AssertionError(f"all_reduce {op} of {size} floats gave a result")
# a 0-d array stays one, a NumPy scalar a NumPy scalar (as with a sum)
for value in (np.array(np.nan if r == 0 else 1.0), np.float32(np.nan if r == n - 1 else r)):
    for op in ("max", "min"):
        got = dist.all_reduce(value, op, name="nan").result()
        assert type(got) is type(value) and np.shape(got) == () and np.isnan(got), \
            (op, repr(value), repr(got))
print(f"OK {r}", flush=True)
