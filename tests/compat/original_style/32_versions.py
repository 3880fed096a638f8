"""phylanx.major_version() and friends agree with __version__."""
import phylanx

parts = (phylanx.major_version(), phylanx.minor_version(), phylanx.subminor_version())
assert all(isinstance(p, int) and p >= 0 for p in parts)
assert phylanx.full_version_as_string() == ".".join(str(p) for p in parts)
assert phylanx.__version__.startswith(phylanx.full_version_as_string())
