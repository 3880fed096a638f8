"""Nothing is run a second time after it raised (issue 27 item 3): the truth of an
``async`` value is its value's, asked of the value and never of the future first.
(Compiled loops: tests/fusion/test_loop_dispatch.py; an ``async`` collective that fails
as it starts is not started again in a task: tests/runtime/test_futures_compose.py.)"""
from __future__ import annotations

from phylanx.runtime.futures import Future, ready
from phylanx.values import truth


def test_the_truth_of_a_future_is_its_values_without_asking_the_future(monkeypatch):
    asked = []

    def refuse(self):
        asked.append(self)
        raise TypeError("the truth value of a future is its value's")
    monkeypatch.setattr(Future, "__bool__", refuse)
    for value in (0.0, 2, [], [1], None):
        assert truth(ready(value)) is bool(value if value is not None else False)
    assert asked == []
