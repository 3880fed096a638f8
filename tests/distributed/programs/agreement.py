"""Ranks that disagree, and errors on one rank, for any number of ranks (issue 26 items 3, 4).

argv chooses the groups (default: all):

* ``disagree``: for each rank in turn, that rank alone differs (a tile count, the
  array given to ``distributed.tiled``: content, dtype, shape, no array at all; the
  array it reduces;
  ``fit(distributed="data")`` and ``"model"``: the model, its activation, loss,
  optimizer and learning rate, the number of samples, the seed (data parallel: the
  sample weights of the validation rows too); an argument error on
  that rank alone: fewer targets than samples); every rank
  must get a located error naming the differing rank, and the ranks must still be in
  step.  The ``fit`` cases (a model compiled and trained per case: most of the
  program's time, times the number of ranks) run for every rank up to 3 ranks; past
  3, for the first, a middle and the last rank (``FIT_RANKS``): ``fit`` all-gathers
  each rank's description and names the ranks whose value differs
  (``distributed/agreement.disagreement``), one path for any middle rank, and the
  3-rank run has made rank 1 the middle one;
* ``caught``: a distributed primitive fails on one rank only (injected before, between
  and after its messages); the program catches it; every rank must have caught the
  same located error naming that rank, and gathers and reductions afterwards must
  give NumPy's answers;
* ``empty``: ``dot_d(transpose_d(x), x)`` and friends with all rows on one rank and
  empty tiles elsewhere equal NumPy;
* ``settings``: a setting the ranks' messages depend on (``check_collectives``,
  issue 28 item 1): ``config.set`` of it on one rank alone is refused there (located);
  ``set_on_every_rank`` with one rank's value other is the same located error on every
  rank naming it, and changes nothing; alike, it changes it everywhere; the start-up
  check (``settings.agree_at_start``, given the ranks' values with one rank's
  ``check_collectives`` off, then its ``optimize``: a setting of the compiled plan,
  then no numba installed) names the setting and the rank on every rank; the rules
  ``disable_rules`` leaves out, spelt in another order on each rank, agree; a plan
  setting changed after start-up on one rank (``fusion_min_size``), a program compiled
  then fails at its first message on every rank, located, naming the setting and the
  rank (changed on every rank alike: NumPy's answer); so do, after such a change, the
  recording twin of a function differentiated (grad) and collectives a program calls
  by name, and a program compiled before the change keeps the fusion thresholds it
  was compiled with (its region hot on every rank alike).

Prints ``OK <rank>`` at the end.
"""
import sys

import numpy as np

import phylanx
from phylanx import distributed as dist
from phylanx import nn
from phylanx.distributed import overlapped_fetch, tiles
from phylanx.errors import PhylanxError

r, n = dist.find_here(), dist.num_localities()
groups = sys.argv[1:] or ["disagree", "caught", "empty", "settings"]
#: the ranks that differ, in turn, in the ``fit`` cases (see the docstring)
FIT_RANKS = range(n) if n <= 3 else (0, n // 2, n - 1)
rng = np.random.default_rng(5)
COLS = n + 2     # (a tiled vector of COLS elements needs one per rank)
A = rng.normal(size=(4 * n + 1, COLS))


def close(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    assert np.allclose(got, want, rtol=1e-9, atol=1e-9 * scale), (what, got, want)


def expect_error(run, words, what):
    """``run()`` raises a located PhylanxError containing ``words`` on this rank."""
    try:
        run()
    except PhylanxError as e:
        text = str(e)
        assert e.loc is not None, (what, text)
        for w in words:
            assert w in text, (what, w, text)
        return text
    raise AssertionError(f"rank {r}: no error from {what}")


def in_step(what):
    """The ranks still communicate correctly: a new tiled array gathers to itself,
    and a reduction and a product of it are NumPy's."""
    y = dist.tiled(A, "row", name="check")
    close(y.gather(), A, f"gather after {what}")
    close(phylanx.evaluate("lambda(y, sum_d(y))", y), A.sum(), f"sum_d after {what}")
    v = np.arange(float(COLS))
    got = phylanx.evaluate("lambda(y, v, dot_d(y, v))", y, v)
    close(got.gather() if isinstance(got, dist.DistributedArray) else got, A @ v,
          f"dot_d after {what}")
    close(phylanx.evaluate("lambda(y, dot_d(transpose_d(y), y))", y), A.T @ A,
          f"dot_d(transpose_d(y), y) after {what}")


def rank_words(bad):
    return [f"rank {bad}:"] if n > 1 else []


def disagree():
    # a tile count that is not the number of localities, on every rank and on one
    expect_error(lambda: phylanx.evaluate(
        'constant_d(1.0, list(8, 6), find_here(), num_localities() + 1, "a")'),
        ["numtiles", "number of localities"], "constant_d numtiles")
    in_step("constant_d numtiles")
    # every rank asking for tile 0: the tiles do not make up the array asked for
    if n > 1:
        expect_error(lambda: phylanx.evaluate('constant_d(1.0, list(8, 6), 0)'),
                     ["(8, 6)"], "constant_d all tile 0")
        in_step("constant_d all tile 0")
    for bad in range(n if n > 1 else 0):
        me = r == bad
        expect_error(lambda me=me: phylanx.evaluate(
            f'constant_d(1.0, list(8, 6), find_here(), {n + 1 if me else n})'),
            ["numtiles"], f"constant_d numtiles on rank {bad}")
        cases = {
            "content": A + (1.0 if me else 0.0),
            "dtype": A.astype(np.float32 if me else np.float64),
            "shape": A[:-1] if me else A,
        }
        for what, array in cases.items():
            text = expect_error(lambda array=array: dist.tiled(array, "row"),
                                ["disagree"] + rank_words(bad), f"tiled {what} on rank {bad}")
            assert {"content": "checksum", "dtype": "dtype", "shape": "shape"}[what] in text, text
            in_step(f"tiled {what} on rank {bad}")
        # input that is no array on one rank: NumPy's ValueError there alone, before
        # the operation began, and the other ranks went on out of step
        for what, array in {"ragged list": [[1.0, 2.0], [3.0]], "None": None}.items():
            expect_error(lambda array=array, me=me: dist.tiled(array if me else A, "row"),
                         ["tiled", f"on locality {bad}"], f"tiled {what} on rank {bad}")
            in_step(f"tiled {what} on rank {bad}")
        # ranks out of step: a reduction of another array (same shape) on one rank
        p, q = dist.tiled(A, "row", name="p"), dist.tiled(2 * A, "row", name="q")
        mine = q if me else p
        expect_error(lambda mine=mine: phylanx.evaluate("lambda(a, sum_d(a))", mine),
                     ["disagree"] + rank_words(bad), f"sum_d of another array on rank {bad}")
        in_step(f"sum_d of another array on rank {bad}")
        if bad not in FIT_RANKS:
            continue
        fits = {
            "model": dict(width=32 if me else 16),
            "samples": dict(samples=40 + me),
            "seed": dict(seed=3 + me),
            # same weight shapes, another computation: gradients of different models
            # were summed without complaint (or the weights drifted apart)
            "activation": dict(activation="tanh" if me else "relu"),
            "loss": dict(loss="mae" if me else "mse"),
            "learning rate": dict(lr=0.1 if me else 0.01),
            "optimizer": dict(optimizer="adam" if me else "sgd"),
        }
        for mode in ("data", "model"):     # model parallel was not checked at all
            for what, kw in fits.items():
                expect_error(lambda kw=kw, mode=mode: fit(**kw, mode=mode),
                             [f"fit(distributed={mode!r})", "disagree"] + rank_words(bad),
                             f"fit {what} on rank {bad} ({mode} parallel)")
                in_step(f"fit {what} on rank {bad} ({mode} parallel)")
            # an argument error this rank alone sees: raised there alone, before the
            # agreement, it left the others waiting in the agreement's collective
            expect_error(lambda me=me, mode=mode: fit(targets=39 if me else 40, mode=mode),
                         ["fit", f"on locality {bad}", "40 input samples but 39 targets"],
                         f"fit with fewer targets on rank {bad} ({mode} parallel)")
            in_step(f"fit with fewer targets on rank {bad} ({mode} parallel)")
        # sample weights differing in the validation rows alone (validation_split): each
        # rank evaluates the whole validation set, so its val_loss differed silently
        # (and a callback watching it could stop one rank alone)
        expect_error(lambda me=me: fit(validation_weight=2.0 if me else 1.0),
                     ["fit(distributed='data')", "disagree", "validation sample weights"]
                     + rank_words(bad), f"fit validation weights on rank {bad}")
        in_step(f"fit validation weights on rank {bad}")
    weights = fit()     # all alike: trains, the same weights everywhere
    for w, w0 in zip(weights, dist.broadcast(weights, 0, "weights").result()):
        close(w, w0, "weights after fit")


def fit(width=16, samples=40, seed=3, activation="relu", loss="mse", lr=0.01,
        optimizer="sgd", mode="data", targets=None, validation_weight=None):
    nn.set_seed(seed)
    nn.clear_session()
    m = nn.Sequential([nn.Input((4,)), nn.Dense(width, activation=activation), nn.Dense(2)])
    opt = nn.optimizers.SGD(learning_rate=lr) if optimizer == "sgd" else \
        nn.optimizers.Adam(learning_rate=lr)
    m.compile(optimizer=opt, loss=loss)
    data = np.random.default_rng(0)
    x = data.normal(size=(samples, 4)).astype(np.float32)
    y = data.normal(size=(samples, 2)).astype(np.float32)
    weighted = {}
    if validation_weight is not None:       # (the last quarter: the validation rows)
        w = np.ones(samples, np.float32)
        w[-samples // 4:] = validation_weight
        weighted = dict(sample_weight=w, validation_split=0.25)
    m.fit(x, y[:targets], batch_size=8, epochs=1, verbose=0, distributed=mode, **weighted)
    return m.get_weights()


class Injected(Exception):
    pass


def inject(bad, where):
    """On rank ``bad``, make the next fetch of remote pieces (``tiles.fetch``, or
    ``overlapped_fetch.fetching``'s whole block) fail ``before`` or ``after`` doing its
    communication, or its local work fail ``between`` (the remote reads started), or
    the next ``tiles.all_gather`` before it (one after it would break the contract of
    a final all_gather: after it, ranks compute only on what all received, so nothing
    fails on one rank only; see ``lockstep.py``)."""
    real = {"fetch": tiles.fetch, "all_gather": tiles.all_gather,
            "fetching": overlapped_fetch.fetching, "local_work": overlapped_fetch.local_work}

    def patch(name):
        def failing(*args, **kw):
            restore()
            if where == "after" and name == "fetching":
                with real[name](*args, **kw):
                    pass        # (the pieces it leaves are read at its end)
            elif where == "after":
                real[name](*args, **kw)
            raise Injected(f"injected failure {where} {name}")
        return failing

    def restore():
        tiles.fetch, tiles.all_gather = real["fetch"], real["all_gather"]
        overlapped_fetch.fetching = real["fetching"]
        overlapped_fetch.local_work = real["local_work"]
    if r == bad and where == "between":     # in the local work, the remote reads started
        overlapped_fetch.local_work = patch("local_work")
    elif r == bad:
        tiles.fetch = patch("fetch")
        overlapped_fetch.fetching = patch("fetching")
        if where == "before":
            tiles.all_gather = patch("all_gather")
    return restore


def caught():
    x = dist.tiled(A, "row", name="x")
    v = dist.tiled(np.arange(float(COLS)), name="v")
    programs = {
        # fetch of the whole (tiled) rhs, then local products (nothing after)
        "dot_d rows": ("lambda(x, v, dot_d(x, v))", [x, v]),
        # fetches, then an all_gather of the partial products
        "dot_d contraction": ("lambda(x, dot_d(transpose_d(x), x))", [x]),
        # one all_gather of partial sums
        "sum_d": ("lambda(x, sum_d(x, 0))", [x]),
    }
    expected = {"sum_d": ["before"], "dot_d rows": ["before", "between", "after"],
                "dot_d contraction": ["before", "between", "after"]}
    if n == 1:
        del programs["sum_d"]      # (one locality: sum_d does not communicate)
    for bad in range(n):
        for what, (code, args) in programs.items():
            for where in expected.get(what, ["before", "after"]):
                restore = inject(bad, where)
                try:
                    words = ([f"on locality {bad}:"] if n > 1 else []) + ["injected failure"]
                    expect_error(lambda code=code, args=args: phylanx.evaluate(code, *args),
                                 words, f"{what}, failing on rank {bad} {where}")
                finally:
                    restore()
                in_step(f"{what} failing on rank {bad} {where}")
    # a caught error in Python code between distributed operations changes nothing
    try:
        raise ValueError("not distributed")
    except ValueError:
        pass
    in_step("a local error")


def empty():
    for holder in range(n):
        mine = A if r == holder else A[:0]
        span = (0, len(A)) if r == holder else (0, 0)
        x = dist.annotate(mine, f"x{holder}", ["tile", ["rows", *span], ["columns", 0, COLS]])
        close(x.gather(), A, "gather of tiles on one rank")
        got = phylanx.evaluate("lambda(x, dot_d(transpose_d(x), x))", x)
        close(got.gather() if isinstance(got, dist.DistributedArray) else got, A.T @ A,
              f"dot_d(transpose_d(x), x), rows on rank {holder}")
        v = np.arange(float(COLS))
        got = phylanx.evaluate("lambda(x, v, dot_d(x, v))", x, v)
        close(got.gather() if isinstance(got, dist.DistributedArray) else got, A @ v,
              f"dot_d(x, v), rows on rank {holder}")
        w = np.arange(len(A), dtype=float)
        got = phylanx.evaluate("lambda(x, w, dot_d(w, x))", x, w)
        close(got.gather() if isinstance(got, dist.DistributedArray) else got, w @ A,
              f"dot_d(w, x), rows on rank {holder}")
        got = phylanx.evaluate("lambda(x, dot_d(x, transpose_d(x)))", x)
        close(got.gather() if isinstance(got, dist.DistributedArray) else got, A @ A.T,
              f"dot_d(x, transpose_d(x)), rows on rank {holder}")
        close(phylanx.evaluate("lambda(x, sum_d(x, 0))", x), A.sum(0),
              f"sum_d, rows on rank {holder}")


def _planned_loss(w, y):
    return np.sum(w * w) * np.sum(y)


def plan_key_everywhere(odd, y):
    """A plan setting changed after start-up on rank ``odd`` alone (issue 28): the
    recording twin of a function differentiated then (grad; its nodes carried key 0),
    and collectives a program compiled then calls by name (they carried no key), fail
    on every rank with the error naming the setting and the rank; a program compiled
    before the change keeps the thresholds it was compiled with (read at run time, its
    fused region went hot on rank ``odd`` at another evaluation than on the others)."""
    from phylanx import Phylanx, config, execution_tree, fusion
    from phylanx.fusion import hot
    words = ["different plan settings",
             f"rank {odd}: 'fusion_count_threshold' changed since start-up"]
    w = np.array([1.0, -2.0])
    loss = Phylanx(_planned_loss)
    if r == odd:
        config.set("fusion_count_threshold", config.get("fusion_count_threshold") + 1)
    try:
        expect_error(lambda: phylanx.grad(loss)(w, y), words, "grad's twin")
        for code, name in (('lambda(x, all_reduce(x, "sum", "planned"))', "all_reduce"),
                           ("lambda(x, async(all_gather(x)))", "all_gather"),
                           ("lambda(x, broadcast(x, 0))", "broadcast")):
            text = expect_error(lambda code=code: phylanx.evaluate(code, w), words, code)
            assert f"{name}: the ranks compiled" in text, text
    finally:
        config.reset("fusion_count_threshold")
    in_step(f"plan keys of a twin and named collectives, rank {odd}")
    assert fusion.backend_available(), "numba is a dependency"
    alike = (("fusion", True), ("fusion_min_size", 1), ("fusion_count_threshold", 2))
    for name, value in alike:
        config.set(name, value)
    try:
        code = "lambda(x, exp(x) * 2 - x)"
        state = execution_tree.compiler_state(f"thresholds {odd}", "<thresholds>")
        [region] = fusion.regions_of(state.compile_text(code))
        if r == odd:
            config.set("fusion_count_threshold", 1000)
            config.set("fusion_min_size", 10 ** 9)
        x = np.linspace(-1.0, 1.0, 64)
        for _ in range(2):
            close(execution_tree.eval(state, code, x), np.exp(x) * 2 - x, "thresholds")
        states = dist.all_gather(region.state).result()
        assert states == [hot.HOT] * n, f"rank {r}: regions {states}, rank {odd} changed"
    finally:
        for name, _ in alike:
            config.reset(name)


def protocol_settings():
    from phylanx import config
    from phylanx.distributed import settings
    assert config.get("check_collectives") is True
    small = np.arange(3) + r          # (the reviewer's case: [1, 3, 5] on 2 ranks)
    want = sum(np.arange(3) + k for k in range(n))
    config.set("check_collectives", True)       # (no change: allowed)
    for odd in range(n if n > 1 else 0):
        if r == odd:    # this rank alone: refused, where it is called
            expect_error(lambda: config.set("check_collectives", "0"),
                         ["'check_collectives'", "set_on_every_rank"], "config.set alone")
        expect_error(lambda odd=odd: dist.set_on_every_rank("check_collectives", r != odd),
                     ["'check_collectives'", *rank_words(odd)], "set_on_every_rank")
        assert config.get("check_collectives") is True
        assert np.array_equal(dist.all_reduce(small).result(), want)
        # at start-up, rank odd's values differ in one entry: its environment said
        # PHYLANX_CHECK_COLLECTIVES=0, or PHYLANX_OPTIMIZE=0 (a setting of the compiled
        # plan), or it has no numba (its plans differ: no gram rewrite, no fusion)
        for key, odd_value, said, unsaid in (
                ("check_collectives", False,
                 "'check_collectives' (PHYLANX_CHECK_COLLECTIVES) differs", None),
                ("optimize", False, "'optimize' (PHYLANX_OPTIMIZE) differs",
                 "check_collectives"),
                ("numba", None, "numba (the numba version installed", "optimize")):
            values = settings.protocol_values(named_communicators=True)
            assert key in dict(values), key
            if r == odd:
                values = tuple((k, odd_value if k == key else v) for k, v in values)
            try:
                settings.agree_at_start(dist.all_gather(values).result())
            except dist.PhylanxCollectiveMismatchError as e:
                text = str(e)
                assert said in text and f"rank {odd}: {odd_value}" in text \
                    and (unsaid is None or unsaid not in text), text
            else:
                raise AssertionError(f"rank {r}: no error at start-up for {key}")
        # a plan setting changed after start-up on rank odd alone: the program compiled
        # then is another plan there; its first message fails on every rank, located
        y = dist.tiled(A, "row", name="planned")
        if r == odd:
            config.set("fusion_min_size", config.get("fusion_min_size") + 1)
        try:
            text = expect_error(lambda y=y: phylanx.evaluate("lambda(y, sum_d(y))", y),
                                ["different plan settings", f"rank {odd}: 'fusion_min_size' "
                                 "changed since start-up", "as at start-up"],
                                "a plan setting changed on one rank")
        finally:
            config.reset("fusion_min_size")
        assert "sum_d" in text, text
        in_step(f"a plan setting changed on rank {odd}")
        plan_key_everywhere(odd, y)
    # changed alike on every rank: one plan
    config.set("fusion_min_size", config.get("fusion_min_size") + 1)
    try:
        close(phylanx.evaluate("lambda(y, sum_d(y))", dist.tiled(A, "row", name="alike")),
              A.sum(), "sum_d, a plan setting changed on every rank")
    finally:
        config.reset("fusion_min_size")
    # the same rules left out, spelt differently on each rank: the same plan
    from phylanx.compiler import rewrite
    names = [rule.name for _, rule in rewrite.rules()][:3]
    config.set("disable_rules", ", ".join(names[r % 3:] + names[:r % 3]))
    try:
        settings.agree_at_start(
            dist.all_gather(settings.protocol_values(named_communicators=True)).result())
    finally:
        config.reset("disable_rules")
    for value in (False, True):       # every rank alike: changed on every rank
        dist.set_on_every_rank("check_collectives", value)
        assert config.get("check_collectives") is value
        assert np.array_equal(dist.all_reduce(small).result(), want)
        assert np.array_equal(dist.all_reduce(np.arange(100000.0) + r).result(),
                              n * np.arange(100000.0) + sum(range(n)))
    dist.set_on_every_rank("check_collectives")       # (dropped: the default again)
    assert config.get("check_collectives") is True


for group in groups:
    {"disagree": disagree, "caught": caught, "empty": empty,
     "settings": protocol_settings}[group]()
print(f"OK {r}", flush=True)
