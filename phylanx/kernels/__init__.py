"""Compiled (numba) kernels and the machinery to build them: a neutral lower layer.

``primitives`` and ``fusion`` both use compiled kernels; neither may import the
other's internals for them (the primitives sit below fusion).  This package sits
below both: it imports only the base modules (``config``, ``atomic`` ...), and
numba only on a kernel's first compile.  ``compiling`` builds and caches kernel
modules; ``fixed`` holds the hand-written kernels behind NumPy fast paths.
Nothing here is imported by ``import phylanx``: its users import it on first use.
"""
