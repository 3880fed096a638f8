"""Every runtime setting in one registry, each backed by an environment variable.

``config.get("threads")`` reads the current value; ``config.set(name, value)``
changes it for this process.  The evaluation-policy thresholds mirror the
original's ini keys (``phylanx.eval_count_threshold`` and friends, §2.8).
"""
from __future__ import annotations

import importlib
import numbers
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    parse: Callable[[str], Any]
    doc: str
    #: a further test of the value, parsed or given (a message, or None when it holds)
    valid: Callable[[Any], str | None] | None = None

    @property
    def env(self) -> str:
        return "PHYLANX_" + self.name.upper()


def _bool(text: str) -> bool:
    word = text.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected 1/0, true/false, yes/no or on/off")


def _cost_ms(text: str) -> float | str:
    """``auto`` or a number of milliseconds (``fusion_compile_cost_ms``)."""
    word = text.strip().lower()
    return "auto" if word == "auto" else float(word)


def seconds(*, zero: bool) -> Callable[[Any], str | None]:
    """The test of a wait in seconds: a number, not NaN (a NaN deadline never passes:
    every comparison with it is False), not negative, and above 0 unless ``zero``;
    ``inf`` waits without a limit."""
    def valid(value: Any) -> str | None:
        if value != value:
            return "a wait in seconds cannot be NaN (it would never expire)"
        if value < 0 or (value == 0 and not zero):
            return f"a wait in seconds must be {'>= 0' if zero else '> 0'}"
        return None
    return valid


def count(minimum: int = 0) -> Callable[[Any], str | None]:
    """The test of a count or a size (threads, evaluations, bytes, rows): at least
    ``minimum`` (a negative thread count was taken and meant "one per core", a negative
    threshold "always")."""
    def valid(value: Any) -> str | None:
        return None if value >= minimum else f"a count must be >= {minimum}"
    return valid


def amount(value: Any) -> str | None:
    """The test of a time or a cost: a number, not NaN (every comparison with it is
    False), not negative; ``inf`` is a limit never reached."""
    if value != value:
        return "cannot be NaN (every comparison with it is False)"
    return "must be >= 0" if value < 0 else None


def _cost_amount(value: Any) -> str | None:
    return None if value == "auto" else amount(value)


def choice(*words: str, **aliases: str) -> Callable[[str], str]:
    """The parser of a setting taking one of ``words`` (``aliases``: a former name for
    one of them); the words are its ``choices`` attribute (the settings' table test)."""
    def parse(text: str) -> str:
        word = text.strip().lower()
        word = aliases.get(word, word)
        if word not in words:
            raise ValueError("expected " + " or ".join(map(repr, words)))
        return word
    parse.choices = words  # type: ignore[attr-defined]
    return parse


#: ``ir`` or ``ast`` (``tree``, its former name, is ``ast``)
_pipeline = choice("ir", "ast", tree="ast")


#: the module whose ``rules()`` lists the rewrite rules (told by the composition root,
#: ``phylanx/_wiring.py``: the compiler sits above config, which may not import it)
rules_module: str | None = None


def _rule_names(value: str) -> str | None:
    """The test of ``disable_rules``: every comma-separated name is a rewrite rule's (a
    misspelt one was ignored, and the rule meant to be off stayed on)."""
    if rules_module is None:        # (config alone, without phylanx/__init__'s wiring)
        return None
    known = [rule.name for _, rule in importlib.import_module(rules_module).rules()]
    unknown = [n.strip() for n in value.split(",") if n.strip() and n.strip() not in known]
    if not unknown:
        return None
    return (f"unknown rewrite rule {', '.join(map(repr, unknown))}; known: "
            + ", ".join(known))


SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting("threads", 0, int, "worker threads of the pool executor (0: one per core)",
                valid=count()),
        Setting("sync_execution", False, _bool,
                "run everything on the calling thread (deterministic; pdb works)"),
        Setting("eval_count_threshold", 5, int,
                "evaluations a node is timed before the inline/async decision",
                valid=count()),
        Setting("exec_time_upper_threshold", 500_000, int,
                "mean ns per evaluation above which a node runs as a task",
                valid=count()),
        Setting("exec_time_lower_threshold", 350_000, int,
                "mean ns per evaluation below which a node runs inline",
                valid=count()),
        Setting("tracing", False, _bool,
                "log every evaluation of newly compiled code to the phylanx.trace logger"),
        Setting("optimize", True, _bool,
                "rewrite programs before compiling them (compiler/rewrite: folding, CSE, "
                "hoisting, cache blocking); 0 compiles the program as written"),
        Setting("pipeline", "ir", _pipeline,
                "'ir': compile through the IR (PhySL AST -> phylanx/ir -> PhySL AST after "
                "the phases before the first IR rule, docs/ir.md); 'ast': the rewrites on the "
                "PhySL AST alone, as before the IR (kept for one release; 'tree' is 'ast')"),
        Setting("disable_rules", "", str,
                "comma-separated names of rewrite rules to leave out (compiler/rewrite, "
                "docs/rules.md); for comparisons and tests",
                valid=_rule_names),
        Setting("normalize", True, _bool,
                "lower every spelling of a product, transpose, mean or norm to one form "
                "before the other rewrites (compiler/rewrite/normalize.py; needs optimize)"),
        Setting("cache_blocking", True, _bool,
                "rewrite argmin(f(x @ c), 1) (and x.T @ f(x @ w) with blocking_gram) into "
                "passes over row tiles of x (compiler/rewrite/row_blocks.py, gram_rows.py; "
                "needs optimize)"),
        Setting("blocking_gram", False, _bool,
                "evaluate x.T @ f(x @ w) by NumPy row tiles; off: measured 1.2-1.6x slower "
                "than untiled on the logistic regressions here (docs/performance.md)"),
        Setting("conv_blocks", False, _bool,
                "run a Conv1D/Conv2D window product and its kernel cotangent as batch "
                "blocks on the task pool (BLAS one thread each); off: measured 1.3x "
                "slower than one threaded BLAS call on an idle 2-core machine "
                "(benchmarks/conv_window_blocks.py --only blocks, docs/performance.md)"),
        Setting("conv_rows", True, _bool,
                "run a Conv1D (dilation 1) whose windows are 385 B-1 KiB and its kernel "
                "cotangent, when BLAS runs one thread, as products of the window matrix "
                "read in place from the input (conv_rows.py); off: shifted GEMMs or "
                "Winograd (docs/performance.md, conv50)"),
        Setting("fusion_rows", True, _bool,
                "compile the row passes once hot: x.T @ f(x @ w) and argmin(f(x @ c), 1) "
                "as one numba loop over the rows of x, sum/mean(f(...), axis=-1) as one "
                "loop per row (phylanx/fusion/rowpass.py, rowargmin.py, rowreduce.py; "
                "needs numba)"),
        Setting("scalar_loops", True, _bool,
                "run a for_each whose body only reads and writes array or list elements "
                "and computes with scalars as one generated Python function "
                "(compiler/scalar_loops.py)"),
        Setting("array_loops", True, _bool,
                "with scalar_loops: also translate loops whose body calls array kernels "
                "(products, slices, solve, reductions: every eager primitive whose kernel "
                "maps plain values to plain values; compiler/scalar_loops.py)"),
        Setting("loop_invariants", True, _bool,
                "in a translated loop, compute an invariant expression (and what solve "
                "prepares from an invariant matrix) once per run of the loop "
                "(compiler/loop_invariants.py)"),
        Setting("loop_versions", True, _bool,
                "a translated loop also written without the kind tests of variables it "
                "never assigns, run when those tests hold at entry "
                "(compiler/loop_versions.py; off: the general version alone, though "
                "its int tests of inductive ints stay once per run of the inner loop)"),
        Setting("fusion_loops", True, _bool,
                "compile a for_each over a range whose body binds variables to "
                "element-wise, dot/matmul, transpose and sum/mean expressions into one "
                "numba function once hot (phylanx/fusion/loops.py; needs numba)"),
        Setting("conv_winograd", True, _bool,
                "large 1-d stride-1 convolutions of 2-7 taps (and their gradients) by "
                "Winograd's F(m, r) once hot (keras_support/conv_winograd.py; needs "
                "numba; float32 results within a few ulps of the output's scale)"),
        Setting("symmetric_products", True, _bool,
                "compute a @ reshape(v[:, :, None] * v[:, None, :], (n, k * k)) with each "
                "pair of equal columns once (compiler/rewrite/outer.py; needs optimize)"),
        Setting("tile_bytes", 1 << 20, int,
                "bytes of the widest row block of a tiled pass (rows = this / row width)",
                valid=count(1)),
        Setting("tile_rows", 0, int,
                "rows per tile of a tiled pass (0: from tile_bytes)",
                valid=count()),
        Setting("blas_threads", 0, int,
                "BLAS threads (0: automatic: all cores, split among concurrent tasks, one "
                "per rank under MPI; n > 0: always n)",
                valid=count()),
        Setting("malloc_reuse", True, _bool,
                "glibc: reuse freed blocks up to 32 MiB, and keep 64 MiB of free heap, "
                "instead of fresh pages every step (runtime/malloc_reuse.py); 0: C defaults"),
        Setting("fusion", False, _bool,
                "compile hot chains of element-wise primitives into one kernel "
                "(phylanx/fusion; needs numba, else NumPy runs them as before)"),
        Setting("fusion_min_size", 4096, int,
                "elements below which a chain stays NumPy (a kernel call costs a few us; "
                "a program keeps the value it was compiled with: of its plan, PLAN)",
                valid=count()),
        Setting("fusion_count_threshold", 3, int,
                "big evaluations of a chain before it is considered for a kernel (a "
                "program keeps the value it was compiled with: of its plan, PLAN)",
                valid=count()),
        Setting("fusion_min_time_us", 20.0, float,
                "an evaluation of a chain counts as big from this time (unfused)",
                valid=amount),
        Setting("fusion_compile_cost_ms", "auto", _cost_ms,
                "expected cost of compiling one kernel: a chain is compiled once it has "
                "spent that long unfused; auto: measured on this machine (compiles, "
                "loads from numba's disk cache, numba's set-up: kept in the cache "
                "directory); a number: that, a tenth when numba's disk cache holds it",
                valid=_cost_amount),
        Setting("fusion_background", True, _bool,
                "compile kernels in a background thread while the chain runs unfused"),
        Setting("fusion_cache_dir", "", str,
                "generated kernels and numba's cache (default ~/.cache/phylanx/fusion)"),
        Setting("fusion_cache_wait", 120.0, float,
                "seconds a process waits for another process on the same cache directory "
                "compiling the same kernel module (which it then loads from numba's disk "
                "cache) before compiling it itself, with a warning (0: never waits; "
                "kernels/host_lock.py)",
                valid=seconds(zero=True)),
        Setting("helper_cache", 256, int,
                "plain Python functions a compiler state keeps translated (a lambda passed "
                "to a decorated function, a helper it calls), the least recently used let "
                "go beyond this many; one a live decorated function calls stays with it "
                "(frontend/linking.py)",
                valid=count()),
        Setting("trace_threshold_us", 50.0, float,
                "timeline recording: inline evaluations shorter than this are not recorded",
                valid=amount),
    )
}

#: the settings that shape the plan a program compiles to: the rewrites, the IR
#: pipeline, fusion, and when a fused region goes hot (``fusion_count_threshold`` big
#: evaluations of ``fusion_min_size`` elements, counted alike on every rank,
#: ``fusion/hot.py``).  Those two act at run time, but they are of the plan, by what a
#: peer sees: a hot region evaluates its leaves first, a cold one in the tree's order
#: (a leaf's collectives then meet the peers' in another order), and under several
#: ranks a hot region's kernel rounds a replicated value otherwise than NumPy does
#: (result bits the ranks must share).  So each region keeps the values the program
#: was compiled with (``FusedRegion.min_size``, ``hot_after``), and the key below,
#: stamped at compile time, says which values a compiled program runs with.
#: Ranks compiling one program with different values may run its collectives
#: in another order: the distributed layer compares them at start-up
#: (``distributed/settings.py``) and, by the :func:`plan_key` the compiler stamps on
#: a program's nodes, in the messages of its distributed operations
#: (``distributed/lockstep.py``).  Not the loop translations
#: (``scalar_loops``, ``array_loops``, ``loop_invariants``, ``loop_versions``): a
#: translated loop holds plain values only and computes the tree's values bit for bit
#: (``compiler/scalar_loops.py``), so they change only a rank's speed.
PLAN = ("optimize", "pipeline", "disable_rules", "normalize", "cache_blocking",
        "blocking_gram", "symmetric_products", "fusion", "fusion_rows", "fusion_loops",
        "fusion_count_threshold", "fusion_min_size")


def _canonical(name: str, value: Any) -> Any:
    """A plan setting's value as ranks compare it: ``disable_rules`` as the sorted set
    of its rule names (``"a,b"``, ``"b, a"`` and ``"a,,b,a"`` leave out the same rules)."""
    if name == "disable_rules" and isinstance(value, str):
        return ",".join(sorted({n.strip() for n in value.split(",") if n.strip()}))
    return value


def plan_values() -> tuple:
    """This process's plan settings (:data:`PLAN`) as ``(name, canonical value)``
    pairs; a setting whose environment variable cannot be read is the error's text
    (every rank must then hear of it, not only this one)."""
    values = []
    for name in PLAN:
        try:
            values.append((name, _canonical(name, get(name))))
        except ValueError as e:
            values.append((name, f"<{e}>"))
    return tuple(values)


#: the facts of this installation that change a compiled plan, by name, with what the
#: value means (compared at start-up with :data:`PLAN`; fixed for the process's life)
PLAN_FACTS = {
    "numba": "the numba version installed, None: none (without numba the gram pattern "
             "is not rewritten and no region is fused; a version may compile a kernel "
             "another refuses, and ranks in lockstep then round replicated values "
             "apart: NumPy's against the kernel's)",
}
_facts: list[tuple] = []


def plan_facts() -> tuple:
    """:data:`PLAN_FACTS`' values here, as ``(name, value)`` pairs (found once, without
    importing numba: its metadata, about 4 ms; "installed" without it)."""
    if not _facts:
        import importlib.metadata
        import importlib.util
        version = None
        if importlib.util.find_spec("numba") is not None:
            try:
                version = importlib.metadata.version("numba")
            except importlib.metadata.PackageNotFoundError:
                version = "installed"
        _facts.append((("numba", version),))
    return _facts[0]


#: the plan values every rank agreed on at start-up (``distributed/settings.py``), or
#: None: :func:`plan_key` marks the settings changed since
plan_at_start: tuple | None = None


def plan_key() -> int:
    """A digest of :func:`plan_values` for the compiler to stamp on the nodes it builds:
    the low 32 bits a crc32 of the values, the bits from 32 on mark the settings of
    :data:`PLAN` whose value differs from :data:`plan_at_start` (bit i: ``PLAN[i]``),
    so ranks comparing keys can name the settings one of them changed."""
    import zlib
    values = plan_values()
    changed = 0
    if plan_at_start is not None:
        for i, (value, agreed) in enumerate(zip(values, plan_at_start)):
            if value != agreed:
                changed |= 1 << i
    return (changed << 32) | zlib.crc32(repr(values).encode())


def plan_changes(key: int) -> list[str]:
    """The names of the settings :func:`plan_key` marked changed in ``key``."""
    changed = key >> 32
    return [name for i, name in enumerate(PLAN) if changed >> i & 1]


#: modules registering more settings (the distributed layer's, ``phylanx/_wiring.py``),
#: imported when a name not known yet is asked for: ``config.set("collective_timeout",
#: 5)`` works before anything has used that layer, which this module may not import
more_settings: list[str] = []

_overrides: dict[str, Any] = {}
_cache: dict[str, Any] = {}
_listeners: list[Callable[[], None]] = []
_guards: list[Callable[[str, Any], None]] = []


def before_change(guard: Callable[[str, Any], None]) -> None:
    """Call ``guard(name, value)`` before a ``set``/``reset`` gives setting ``name`` the
    value ``value``; it may refuse the change by raising (the distributed layer: a
    setting the ranks' messages depend on, ``distributed/settings.py``)."""
    _guards.append(guard)


def _without_override(name: str) -> Any:
    """The value of setting ``name`` once its override is dropped (``reset``)."""
    setting = SETTINGS[name]
    raw = os.environ.get(setting.env)
    return setting.default if raw is None or not raw.strip() else _parsed(setting, raw)


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener()`` after every ``set``/``reset`` (for values cached elsewhere,
    such as the evaluation-policy thresholds)."""
    _listeners.append(listener)


def _setting(name: str) -> Setting:
    """The setting ``name``, importing the modules of :data:`more_settings` once for a
    name not registered yet; a KeyError listing every setting for an unknown one."""
    if name not in SETTINGS:
        for module in more_settings:
            importlib.import_module(module)
        if name not in SETTINGS:
            raise KeyError(f"unknown phylanx setting {name!r}; known: {', '.join(SETTINGS)}")
    return SETTINGS[name]


def _changed() -> None:
    for listener in _listeners:
        listener()


def _parsed(setting: Any, raw: str) -> Any:
    """An environment variable's value for ``setting`` (empty counts as unset, above);
    a value it cannot take names the variable, not the code that first read it."""
    try:
        value = setting.parse(raw)
        problem = setting.valid(value) if setting.valid is not None else None
    except (ValueError, TypeError) as e:
        raise ValueError(f"environment variable {setting.env}={raw!r}: {e}") from None
    if problem is not None:
        raise ValueError(f"environment variable {setting.env}={raw!r}: {problem}")
    return value


#: ``get``'s slow path, ``set`` and ``reset`` take turns: a ``get`` that read the old
#: value must not store it in the cache after a concurrent ``set`` dropped it
_turn = threading.Lock()


def get(name: str) -> Any:
    """Current value of setting ``name`` (override, then environment, then default).

    The environment is read once per setting (``get`` sits on hot paths).
    """
    try:
        return _cache[name]
    except KeyError:
        pass
    setting = _setting(name)
    with _turn:
        if name in _overrides:
            value = _overrides[name]
        else:
            raw = os.environ.get(setting.env)
            value = setting.default if raw is None or not raw.strip() else _parsed(setting, raw)
        _cache[name] = value
    return value


def _checked(setting: Setting, value: Any) -> Any:
    """``value`` as setting ``setting`` takes it, or a ValueError naming the setting:
    a string is parsed as its environment variable is; anything else must be of the
    default's kind (``set("check_collectives", "false")`` is False, never a truthy
    string; ``set("threads", 2.5)`` is an error, not 2), and passes its ``valid``
    test (a NaN wait is refused)."""
    value = _of_kind(setting, value)
    problem = setting.valid(value) if setting.valid is not None else None
    if problem is not None:
        raise ValueError(f"phylanx setting {setting.name!r}={value!r}: {problem}")
    return value


def _of_kind(setting: Setting, value: Any) -> Any:
    if isinstance(value, os.PathLike) and isinstance(setting.default, str):
        value = os.fspath(value)    # (a path is a string setting's string, parsed)
    if isinstance(value, str):
        try:
            return setting.parse(value)
        except (ValueError, TypeError) as e:
            raise ValueError(f"phylanx setting {setting.name!r}={value!r}: {e}") from None
    default = setting.default
    if isinstance(default, bool):
        ok = isinstance(value, (bool, np.bool_)) or (
            isinstance(value, numbers.Integral) and value in (0, 1))
        value = bool(value) if ok else value
    elif isinstance(default, int):
        ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        value = int(value) if ok else value
    elif isinstance(default, float) or setting.parse is _cost_ms:
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
        value = float(value) if ok else value
    else:       # a string setting: only a string (or a path, above)
        ok = False
    if not ok:
        kind = "a number" if setting.parse is _cost_ms else type(default).__name__
        raise ValueError(f"phylanx setting {setting.name!r} takes {kind} (or a string "
                         f"as its environment variable {setting.env}), not "
                         f"{type(value).__name__} {value!r}")
    return value


def set(name: str, value: Any) -> None:  # noqa: A001 - mirrors get()
    """Override setting ``name`` for this process (a value of the default's kind, or
    a string read as the environment variable is)."""
    try:
        value = _checked(_setting(name), value)
    except ValueError as e:     # located at the caller's line, as every phylanx error
        from .errors import PhylanxValueError
        from .source import user_line
        raise PhylanxValueError(str(e), user_line()) from None
    for guard in _guards:
        guard(name, value)
    with _turn:
        _overrides[name] = value
        _cache.pop(name, None)
    _changed()


def reset(name: str | None = None) -> None:
    """Drop overrides (all, or one)."""
    if _guards:
        for dropped in list(_overrides) if name is None else [name]:
            if dropped in _overrides:
                try:
                    value = _without_override(dropped)
                except ValueError as e:     # (its variable's error is get's to raise,
                    value = f"<{e}>"        # after the reset; a guard sees a change)
                for guard in _guards:
                    guard(dropped, value)
    with _turn:
        if name is None:
            _overrides.clear()
            _cache.clear()
        else:
            _overrides.pop(name, None)
            _cache.pop(name, None)
    _changed()
