"""A test oracle: run IR by its SSA meaning, variable by variable id (not by name).

Raising gives variables back their PhySL names, so a program can run correctly through
``pipeline=ir`` even if the IR's data flow were wrong (a loop that forgot a carried
value).  This interpreter reads every operand by id, threads loop-carried values through
region parameters and results, and so checks the data flow the IR claims.  It knows the
integer operations of ``programs.draw_control_program`` only.
"""
from __future__ import annotations

import operator

import numpy as np

from phylanx.ir import Function, Literal

OPS = {"__add": operator.add, "__sub": operator.sub, "__mul": operator.mul,
       "__mod": operator.mod, "__gt": operator.gt, "__lt": operator.lt,
       "list": lambda *xs: list(xs), "range": lambda n: range(n),
       "constant": lambda v, shape: np.full(tuple(shape), v)}


def run(fn: Function, args, outer: dict | None = None) -> list:
    env = dict(outer or {})
    env.update((p.id, a) for p, a in zip(fn.params, args))

    def value(a):
        return a.value if type(a) is Literal else env[a.id]

    for e in fn.eqns:
        vals = [value(a) for a in e.ins]
        if e.prim == "cond":
            region = e.param("then") if vals[0] else e.param("other")
            outs = [None, *vals[1:]] if region is None else run(region, vals[1:], env)
        elif e.prim == "while":
            carried = vals
            while run(e.param("cond"), carried, env)[0]:
                carried = run(e.param("body"), carried, env)[1:]
            outs = [None, *carried]
        elif e.prim == "for_each":
            carried = vals[1:]
            for item in vals[0]:
                carried = run(e.param("body"), [item, *carried], env)[1:]
            outs = [None, *carried]
        elif e.prim == "update":
            base, index, v = vals
            base[index] = v                       # the output aliases its input
            outs = [base]
        elif e.prim == "bind":
            outs = [vals[0]]
        else:
            outs = [OPS[e.prim](*vals)]
        env.update((o.id, v) for o, v in zip(e.outs, outs))
    return [value(r) for r in fn.results]
