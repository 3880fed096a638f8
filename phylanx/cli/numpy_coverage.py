"""Which of the 200 most used NumPy functions (:data:`.numpy_top200.NUMPY_TOP200`) translate
under ``@Phylanx``: the NumPy part of ``phylanx primitives --coverage``.

Measured, not looked up: for each name a function ``def f(a0, ...): return
np.<name>(a0, ...)`` is translated by the real frontend (into a private compiler state,
nothing is compiled or run).  A name counts as translating if the call translates with 1,
2 or 3 positional arguments (``np.random.binomial`` needs its ``n`` and ``p`` to be
translated at all); translation does not check argument counts against the primitive,
the compiler does, at the first call.
"""
from __future__ import annotations

from dataclasses import dataclass

from .numpy_top200 import NUMPY_TOP200

_ARITIES = (1, 2, 3)


@dataclass(frozen=True)
class NumpyCoverage:
    names: tuple[str, ...]
    translated: tuple[str, ...]
    missing: tuple[str, ...]
    reasons: dict[str, str]      # the frontend's message for each missing name

    @property
    def count(self) -> int:
        return len(self.translated)


def _function_text(name: str, arity: int) -> tuple[str, str]:
    fname = "f_" + name.replace(".", "_")
    params = ", ".join(f"a{i}" for i in range(arity))
    return fname, f"def {fname}({params}):\n    return np.{name}({params})\n"


def translates(name: str, state=None) -> str | None:
    """None if ``np.<name>(...)`` translates with some arity of :data:`_ARITIES`, else the
    frontend's message for the last one tried."""
    import numpy as np

    from .. import execution_tree
    from ..errors import PhylanxError
    from ..frontend.decorator import PhylanxDecorator

    if state is None:
        state = execution_tree.compiler_state("numpy-coverage", "<numpy-coverage>")
    message = None
    for arity in _ARITIES:
        fname, text = _function_text(name, arity)
        namespace = {"np": np}
        exec(compile(text, f"<numpy-coverage {name}>", "exec"), namespace)  # noqa: S102
        try:
            PhylanxDecorator(namespace[fname], source=text,
                             compiler_state=state).get_physl_source()
            return None
        except PhylanxError as e:
            message = str(e).splitlines()[0]
    return message


def numpy_coverage(names: tuple[str, ...] = NUMPY_TOP200) -> NumpyCoverage:
    """Translate each name (see the module docstring) and sort them into the two lists."""
    from .. import execution_tree

    state = execution_tree.compiler_state("numpy-coverage", "<numpy-coverage>")
    reasons = {}
    for name in names:
        message = translates(name, state)
        if message is not None:
            reasons[name] = message
    return NumpyCoverage(tuple(names), tuple(n for n in names if n not in reasons),
                         tuple(n for n in names if n in reasons), reasons)


def numpy_coverage_text() -> str:
    report = numpy_coverage()
    total = len(report.names)
    out = [f"NumPy functions (the {total} most used, phylanx/cli/numpy_top200.py):",
           f"  translate under @Phylanx: {report.count} of {total}"]
    if report.missing:
        out.append(f"  missing ({len(report.missing)}): {' '.join(report.missing)}")
    return "\n".join(out) + "\n"
