"""``np.random`` in decorated code draws what the undecorated function draws: the legacy
functions from NumPy's global ``RandomState`` stream, a ``Generator`` or ``RandomState``
passed in (or made inside by ``np.random.default_rng``) through its own methods.  Values and
Python types are compared with the undecorated function, and so is the state the stream is
left in (the caller's next draw)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import Phylanx
from phylanx.errors import PhylanxError

from .test_python_values_property import same_kind_and_value

#: spellings of draws from the global stream (as users write them), each an expression
GLOBAL_DRAWS = [
    "np.random.rand(2)", "np.random.rand()", "np.random.rand(2, 3)",
    "np.random.randn(3)", "np.random.randn()",
    "np.random.randint(0, 10, 3)", "np.random.randint(5)", "np.random.randint(2, size=(2, 2))",
    "np.random.normal(0, 1, 2)", "np.random.normal(size=3)", "np.random.normal(1.5, 0.1)",
    "np.random.uniform(1, 2, 2)", "np.random.uniform(low=-1.0, high=1.0, size=(2, 1))",
    "np.random.random(2)", "np.random.random()", "np.random.random_sample((1, 2))",
    "np.random.choice(5, 3)", "np.random.choice([7, 8, 9])",
    "np.random.choice(10, 4, replace=False)", "np.random.permutation(6)",
    "np.random.binomial(10, 0.3, 4)", "np.random.poisson(2.0, 3)",
    "np.random.exponential(2.0, 2)", "np.random.standard_normal(2)",
    "np.random.beta(2.0, 5.0)", "np.random.gamma(2.0, size=2)", "np.random.geometric(0.4, 3)",
]


def _function(body: list[str], params: str = "seed"):
    source = "import numpy as np\n\ndef drawn(" + params + "):\n" + \
        "".join(f"    {line}\n" for line in body)
    namespace: dict = {}
    exec(compile(source, "<random>", "exec"), namespace)
    return namespace["drawn"], Phylanx(source=source)(namespace["drawn"])


def _assert_same(got, want, source=""):
    problem = same_kind_and_value(got, want)
    assert problem is None, f"{problem}\n{source}"


@pytest.mark.parametrize("draw", GLOBAL_DRAWS)
def test_a_draw_from_the_global_stream_equals_numpys(draw):
    python, decorated = _function(["np.random.seed(seed)", f"return {draw}, {draw}"])
    want = python(42)
    after_python = np.random.random()
    got = decorated(42)
    after_decorated = np.random.random()
    _assert_same(got, want, draw)
    assert after_decorated == after_python   # the global stream is left where NumPy leaves it


def test_a_seed_set_outside_is_seen_inside():
    python, decorated = _function(["return np.random.rand(3), np.random.randint(0, 99, 2)"],
                                  params="")
    np.random.seed(7)
    want = python()
    np.random.seed(7)
    _assert_same(decorated(), want)


def test_shuffle_changes_the_callers_array_as_numpy_does():
    python, decorated = _function(["np.random.seed(seed)", "np.random.shuffle(x)",
                                   "return x"], params="seed, x")
    want_x, got_x = np.arange(8), np.arange(8)
    want = python(3, want_x)
    got = decorated(3, got_x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_x, want_x)
    assert not np.array_equal(got_x, np.arange(8))


@pytest.mark.parametrize("make", [np.random.default_rng, np.random.RandomState],
                         ids=["Generator", "RandomState"])
def test_a_generator_passed_in_draws_with_its_own_methods(make):
    methods = {"Generator": ["rng.normal(0, 1, size=3)", "rng.integers(0, 5, 2)",
                             "rng.random(2)", "rng.choice(10, size=3, replace=False)",
                             "rng.standard_normal((2, 2))", "rng.permutation(5)"],
               "RandomState": ["rng.normal(0, 1, size=3)", "rng.randint(0, 5, 2)",
                               "rng.rand(2)", "rng.choice(10, size=3, replace=False)",
                               "rng.randn(2, 2)", "rng.permutation(5)"]}
    calls = methods[make.__name__ if make is np.random.RandomState else "Generator"]
    python, decorated = _function([f"return ({', '.join(calls)},)"], params="rng")
    want_rng, got_rng = make(11), make(11)
    want = python(want_rng)
    got = decorated(got_rng)
    _assert_same(got, want)
    assert got_rng.random() == want_rng.random()   # the caller's generator has moved on


def test_a_generator_made_inside_draws_as_numpys():
    python, decorated = _function(["rng = np.random.default_rng(seed)",
                                   "return rng.normal(size=2) + 1.0, rng.integers(0, 9, 3)"])
    _assert_same(decorated(5), python(5))


def test_draws_in_a_loop_keep_their_order():
    python, decorated = _function(["np.random.seed(seed)", "out = []",
                                   "for i in range(4):",
                                   "    out.append(np.random.random() + i)",
                                   "return out"])
    _assert_same(decorated(1), python(1))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(GLOBAL_DRAWS), min_size=1, max_size=5),
       st.integers(0, 2**31 - 1))
def test_any_sequence_of_draws_equals_numpys(draws, seed):
    body = ["np.random.seed(seed)"] + [f"v{i} = {d}" for i, d in enumerate(draws)]
    body.append(f"return ({', '.join(f'v{i}' for i in range(len(draws)))},)")
    python, decorated = _function(body)
    _assert_same(decorated(seed), python(seed), "\n".join(body))


def test_a_draw_method_of_something_else_is_a_located_attribute_error():
    python, decorated = _function(["return x.normal(0, 1)"], params="x")
    with pytest.raises(AttributeError):
        python(np.ones(3))
    with pytest.raises(PhylanxError, match=r"has no method '\.normal\(\)' \(it is a method of "
                       r"numpy\.random\.Generator and RandomState objects\)") as info:
        decorated(np.ones(3))
    assert isinstance(info.value, AttributeError)
    assert "<random>:4" in str(info.value)


def test_bad_arguments_raise_numpys_class_located():
    _, decorated = _function(["return np.random.normal(0, 1, size=-1)"])
    with pytest.raises(PhylanxError, match="negative dimensions") as info:
        decorated(0)
    assert isinstance(info.value, ValueError)


def test_an_unknown_numpy_random_name_is_refused_with_its_name():
    _, decorated = _function(["return np.random.no_such_draw(3)"])
    with pytest.raises(PhylanxError, match="np.random.no_such_draw is not a function"):
        decorated(0)
