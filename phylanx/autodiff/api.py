"""``grad``, ``value_and_grad`` and ``jacobian``: reverse-mode derivatives (JAX-like).

::

    @Phylanx
    def loss(w, x, y):
        return np.mean((x @ w - y) ** 2)

    dloss = phylanx.grad(loss)                 # d loss / d w
    value, (dw, dx) = phylanx.value_and_grad(loss, argnums=(0, 1))(w, x, y)

``f`` may be a ``@Phylanx`` function, a PhySL function value (what
``execution_tree.eval`` returns for a ``lambda`` or ``code_for`` for a ``define``) or a
plain Python function or lambda, which is translated as ``@Phylanx`` would (once per
function object).  The function runs once through its recording twin
(:mod:`.recording`), which fills a tape; the reverse pass then applies one VJP rule per
recorded primitive: a plan compiled once per signature of the recorded path
(:mod:`.plan`), or :func:`.tape.backward` where a plan does not apply.  ``grad`` needs a
float scalar result;
``jacobian`` (JAX's ``jacrev``) takes any float array and runs the reverse pass once per
element of it, over the one tape.  ``has_aux=True``: ``f`` returns ``(value, aux)`` and
only ``value`` is differentiated, ``aux`` is handed back as it is.
"""
from __future__ import annotations

import threading
import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import PhylanxTypeError, PhylanxValueError
from ..runtime.futures import Future
from ..source import user_line
from ..values import ControlSignal, Function, from_python, plain_array, to_python, type_name
from . import tape as tapes
from .plan import PlanCache
from .recording import TWINS, active_tape, record


def grad(f: Any, argnums: int | Sequence[int] = 0, has_aux: bool = False
         ) -> Callable[..., Any]:
    """A function computing the gradient of the scalar function ``f`` with respect to the
    positional argument(s) ``argnums`` (a tuple of gradients for a tuple of argnums);
    with ``has_aux``, ``(gradient, aux)``."""
    value_and_gradient = value_and_grad(f, argnums, has_aux)

    def gradient(*args: Any, **kwargs: Any) -> Any:
        value, g = value_and_gradient(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    gradient.plans = value_and_gradient.plans
    gradient.__name__ = f"grad_{getattr(f, '__name__', 'f')}"
    gradient.__doc__ = f"Gradient of {getattr(f, '__name__', 'f')} (argnums={argnums!r})."
    return _transform(gradient)


def value_and_grad(f: Any, argnums: int | Sequence[int] = 0, has_aux: bool = False
                   ) -> Callable[..., Any]:
    """Like :func:`grad`, but the function returns ``(f(*args), gradient)`` (with
    ``has_aux``, ``((value, aux), gradient)``, as JAX)."""
    positions = _check_argnums(argnums)
    call = _caller(f)
    plans = PlanCache()     # the reverse pass per signature of the recorded path

    def value_and_gradient(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        return _differentiate(call, f, positions, argnums, args, kwargs, has_aux, False,
                              plans=plans)

    value_and_gradient.plans = plans

    value_and_gradient.__name__ = f"value_and_grad_{getattr(f, '__name__', 'f')}"
    return _transform(value_and_gradient)


def jacobian(f: Any, argnums: int | Sequence[int] = 0, has_aux: bool = False
             ) -> Callable[..., Any]:
    """A function computing the Jacobian of ``f`` (reverse mode, JAX's ``jacrev``): for a
    result of shape ``S`` and an argument of shape ``A``, an array of shape ``S + A``
    (a tuple of them for a tuple of argnums; with ``has_aux``, ``(jacobian, aux)``)."""
    positions = _check_argnums(argnums)
    call = _caller(f)

    def jacobian_of(*args: Any, **kwargs: Any) -> Any:
        value, jac = _differentiate(call, f, positions, argnums, args, kwargs, has_aux, True)
        return (jac, value[1]) if has_aux else jac

    jacobian_of.__name__ = f"jacobian_{getattr(f, '__name__', 'f')}"
    return _transform(jacobian_of)


jacrev = jacobian


def hessian(f: Any, argnums: int = 0) -> Callable[..., Any]:
    """The Hessian of the scalar function ``f`` with respect to argument ``argnums``: the
    Jacobian of its gradient (reverse over reverse), shape ``A + A`` for an argument of
    shape ``A``."""
    if not isinstance(argnums, (int, np.integer)) or isinstance(argnums, bool):
        raise PhylanxTypeError(f"hessian takes one position (an int) as argnums, got "
                               f"{argnums!r}")
    return jacobian(grad(f, argnums), argnums)


def hvp(f: Any, argnums: int = 0) -> Callable[..., Any]:
    """``hvp(f)(*args, vector)``: the Hessian of the scalar ``f`` (with respect to
    argument ``argnums``) times ``vector``, without forming the Hessian: one reverse
    pass over ``grad(f)`` seeded with ``vector`` (the Hessian is symmetric)."""
    if not isinstance(argnums, (int, np.integer)) or isinstance(argnums, bool):
        raise PhylanxTypeError(f"hvp takes one position (an int) as argnums, got "
                               f"{argnums!r}")
    inner = grad(f, argnums)
    positions = _check_argnums(argnums)
    call = _caller(inner)

    def product(*args: Any) -> Any:
        if not args:
            raise PhylanxTypeError("hvp(f)(*args, vector) needs the vector as its last "
                                   "argument")
        *args, vector = args
        _, result = _differentiate(call, inner, positions, argnums, args, {},
                                   seed=np.asarray(vector))
        return result

    product.__name__ = f"hvp_{getattr(f, '__name__', 'f')}"
    return _transform(product)


def _transform(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``fn`` as made by this module: differentiating it runs it as Python under the
    outer tape (nested differentiation) instead of translating it."""
    fn.__phylanx_transform__ = True
    return fn


def _check_argnums(argnums: Any) -> tuple[int, ...]:
    items = (argnums,) if isinstance(argnums, (int, np.integer)) else tuple(argnums)
    if not items or not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool)
                            for i in items):
        raise PhylanxTypeError(f"argnums must be an int or a non-empty tuple of ints, got "
                               f"{argnums!r}", user_line())
    if len(set(items)) != len(items):
        raise PhylanxValueError(f"argnums repeats a position: {argnums!r}", user_line())
    return tuple(int(i) for i in items)


def _differentiate(call, f, positions, argnums, args, kwargs, has_aux=False,
                   jacobian=False, seed=None, plans=None) -> tuple[Any, Any]:
    """Run ``f`` recording, then its reverse pass(es): seeded with 1 (a gradient), with
    ``seed`` (a vector-Jacobian product of an array result), or once per element of the
    result (``jacobian``).  ``plans``: the function's backward plans (:mod:`.plan`),
    which run the reverse pass of a path recorded before without re-deriving it."""
    tape = tapes.Tape()
    tape.twin_of = TWINS.twin
    tape.outer = active_tape()      # grad(grad(f)): the outer grad's tape records this one
    outers = tape.chain()[1:]
    args = list(args)
    for i in positions:
        if not -len(args) <= i < len(args):
            raise PhylanxValueError(
                f"argnums {i} is out of range: {getattr(f, '__name__', 'f')} was called with "
                f"{len(args)} positional argument(s)", _where(f))
    structures = []
    arrays = [a for a in (*args, *kwargs.values()) if isinstance(a, np.ndarray)]
    try:
        for i in positions:
            args[i], leaves = _as_input(args[i], i, tape,
                                        not outers and _alone(args[i], arrays))
            structures.append(leaves)
        returned = call(tape, args, kwargs)
        result = _differentiated_part(returned, f, has_aux)
        _check_output(result, f, jacobian or seed is not None)
        if seed is not None and np.shape(seed) != np.shape(result):
            raise PhylanxValueError(f"the vector has shape {np.shape(seed)}, the gradient "
                                    f"{np.shape(result)}")
        if jacobian:
            grads = _jacobians(tape, result, structures, arrays)
            _check_real(result, f, jacobian=True)
        else:
            if seed is None:
                seed = np.ones((), dtype=tapes._float_dtype(result))
            else:
                seed = seed.astype(tapes._float_dtype(result))
            cotangents = (tapes.backward(tape, result, seed) if plans is None
                          else plans.backward(tape, result, seed))
            _check_real(result, f)
            handed: set[int] = set()
            grads = tuple(_own(_gradients(cotangents, leaves, outers), arrays, outers,
                               handed)
                          for leaves in structures)
    finally:
        # what the function changed in place of the caller's arrays is undone once the
        # reverse pass (which reads the changed values) is over: the caller's arrays are
        # as before the call, as with copies of them
        for owner, saved in reversed(tape.saved_caller_memory):
            np.copyto(owner, saved)
    value = to_python(returned)
    if has_aux:
        value = (value[0], value[1])
    return value, grads[0] if isinstance(argnums, (int, np.integer)) else grads


def _differentiated_part(returned: Any, f: Any, has_aux: bool) -> Any:
    """What ``f`` returned, or its first item with ``has_aux`` (a pair is required)."""
    if not has_aux:
        return returned
    if not isinstance(returned, (list, tuple)) or len(returned) != 2:
        raise PhylanxTypeError(
            f"has_aux=True needs {_name(f)} to return a pair (value, aux), got a "
            f"{type_name(returned)}" + (f" of {len(returned)} items"
                                        if isinstance(returned, (list, tuple)) else ""),
            _where(f))
    return returned[0]


def _jacobians(tape: tapes.Tape, result: Any, structures: list, arrays: list) -> tuple:
    """Per differentiated argument, d result / d argument of shape result.shape +
    argument.shape: one reverse pass per element of ``result``, seeded with that element."""
    dtype = tapes._float_dtype(result)
    shape = np.shape(result)
    rows: list[list] = [[] for _ in structures]
    for index in np.ndindex(shape):
        seed = np.zeros(shape, dtype)
        seed[index] = 1
        cotangents = tapes.backward(tape, result, seed if shape else dtype.type(1))
        for k, leaves in enumerate(structures):
            rows[k].append(_gradients(cotangents, leaves))
    # an empty result has no element to seed: one pass seeded with the (empty) zeros gives
    # each argument's structure and shape, of which the Jacobian has zero rows (as JAX's)
    templates = [None] * len(structures)
    if not all(rows):
        cotangents = tapes.backward(tape, result, np.zeros(shape, dtype))
        templates = [_gradients(cotangents, leaves) for leaves in structures]
    if tape.outer is not None:
        raise tapes.PhylanxGradientError(
            "jacobian inside a function being differentiated is not supported (use "
            "hessian, or grad of grad)")
    return tuple(_own(_stack_rows(per_element, shape, template), arrays)
                 for per_element, template in zip(rows, templates))


def _stack_rows(per_element: list, shape: tuple, template: Any = None) -> Any:
    """The gradients of each result element stacked into ``shape + argument shape`` (leaf
    by leaf for a list, tuple or dict argument); ``per_element`` is empty for an empty
    result, and ``template`` (a gradient of it) gives the structure and shapes."""
    first = per_element[0] if per_element else template
    if isinstance(first, dict):
        return {k: _stack_rows([g[k] for g in per_element], shape, first[k]) for k in first}
    if isinstance(first, (list, tuple)):
        return type(first)(_stack_rows([g[i] for g in per_element], shape, first[i])
                            for i in range(len(first)))
    if not per_element:
        return np.zeros(shape + np.shape(first), np.asarray(first).dtype)
    stacked = np.stack([np.asarray(g) for g in per_element])
    return stacked.reshape(shape + np.shape(first))


def _where(f: Any) -> Any:
    """Where an error about calling ``f`` points: ``f``'s own location (a PhySL
    function's), else the user's line that called the transformed function."""
    return getattr(f, "loc", None) or user_line()


def _name(f: Any) -> str:
    return getattr(f, "__name__", getattr(f, "name", "f"))


def _own(gradient: Any, arrays: list[np.ndarray], outers: list = (),
         handed: set[int] | None = None) -> Any:
    """``gradient`` with any array sharing memory with the caller's ``arrays`` copied
    (the copy recorded on the ``outers`` tapes of a nested grad).  ``handed``: the ids of
    the memory owners (:func:`.tape._root`) of the gradients handed out so far, also
    copied from: add's rule gives both operands the one cotangent, and two leaves
    sharing it made an in-place update of one gradient (``g *= scale``) change the other."""
    if isinstance(gradient, dict):
        return {k: _own(g, arrays, outers, handed) for k, g in gradient.items()}
    if isinstance(gradient, (list, tuple)):
        return type(gradient)(_own(g, arrays, outers, handed) for g in gradient)
    if not isinstance(gradient, np.ndarray):
        return gradient
    owner = id(tapes._root(gradient))
    if (handed is not None and owner in handed) or any(np.may_share_memory(gradient, a)
                                                       for a in arrays):
        gradient = tapes.record_on(outers, "__copy", [gradient], gradient.copy())
        owner = id(gradient)
    if handed is not None:
        handed.add(owner)
    return gradient


def _alone(value: Any, arrays: list[np.ndarray]) -> bool:
    """Whether ``value`` is a writable float array whose memory no other argument
    shares: the function may then compute on the caller's memory (a view), which is
    copied only if the function changes it in place (``Tape.before_mutation``)."""
    return (type(value) is np.ndarray and value.dtype.kind == "f" and value.flags.writeable
            and not any(a is not value and np.may_share_memory(a, value) for a in arrays)
            and sum(a is value for a in arrays) == 1)


def _as_input(value: Any, position: int, tape: tapes.Tape,
              alone: bool = False) -> tuple[Any, Any]:
    """A differentiated argument as a new float array object (a new identity to track)
    and its leaf entries: one for an array or number, a list (tuple, dict) of them for a
    list (tuple, dict), of arrays or of numbers, which the function receives as such.
    A float array ``alone`` (:func:`_alone`) is a view of the caller's memory (a copy of
    W5's 8 MB input cost its step 0.5-0.8 ms: ``benchmarks/conv_step.py``), anything
    else a copy."""
    if isinstance(value, dict):
        pairs = {k: _as_input(v, position, tape) for k, v in value.items()}
        return {k: p[0] for k, p in pairs.items()}, {k: p[1] for k, p in pairs.items()}
    # numbers too: made one array, ``t + (0.0,)`` broadcast where the function, called,
    # concatenates (value_and_grad's value was not the function's)
    if isinstance(value, (list, tuple)) and value:
        pairs = [_as_input(v, position, tape) for v in value]
        kind = tuple if isinstance(value, tuple) else list
        return kind(p[0] for p in pairs), kind(p[1] for p in pairs)
    if isinstance(value, (bool, np.bool_)):
        raise _integer_argument(value, position)
    if isinstance(value, (np.ndarray, np.generic, int, float, list, tuple)):
        # a masked array or np.matrix is a located error, never its bare values
        array = plain_array(value) if isinstance(value, np.ndarray) else np.asarray(value)
        if alone:
            array = value.view()
            tape.caller_memory[id(tapes._root(value))] = value
        elif array.dtype.kind == "f":
            array = array.copy()
        elif array.dtype.kind in "iu":
            # JAX's rule (and PyTorch's): an integer argument is never differentiated.
            # Running the function on a float64 copy made value_and_grad's value differ
            # from the call's (an int8 ``x * x`` wraps around) and coerced it silently.
            raise _integer_argument(value, position)
        elif array.dtype.kind == "b":
            raise _integer_argument(value, position)
        else:
            array = None
        if array is not None:
            # a 0-d array stays one: ``x += 1.0`` changes it in place, as NumPy's (other
            # names see it); a number is a NumPy scalar (rebound)
            leaf_value = array if array.ndim or isinstance(value, np.ndarray) \
                else array.dtype.type(array[()])
            # nested grad: the outer tapes see the inner argument as a copy of theirs
            tapes.record_on(tape.chain()[1:], "__copy", [value], leaf_value)
            return leaf_value, tape.leaf(leaf_value)
    # complex arguments are refused: the rules were written for real values, and the
    # gradient of a real function of z followed neither JAX's convention (conj) nor
    # PyTorch's at once (|z|**2 gave PyTorch's 2z, Re(z**2) JAX's 2z)
    raise PhylanxTypeError(f"cannot differentiate with respect to argument {position}: a "
                           f"{type_name(value)} (gradients need float arrays or numbers, or "
                           "lists, tuples and dicts of them)", user_line())


def _integer_argument(value: Any, position: int) -> PhylanxTypeError:
    """The error of an integer or boolean value in a differentiated position."""
    kind = "boolean" if isinstance(value, (bool, np.bool_)) or \
        np.asarray(value).dtype.kind == "b" else "integer"
    return PhylanxTypeError(
        f"cannot differentiate with respect to argument {position}: it is {kind} ("
        f"{type_name(value)}); pass a float (x.astype(float), or 3.0 for 3), as JAX "
        "requires (arguments not in argnums are passed unchanged)", user_line())


def _gradients(cotangents: dict, leaves: Any, outers: list = ()) -> Any:
    if isinstance(leaves, dict):
        return {k: _gradients(cotangents, leaf, outers) for k, leaf in leaves.items()}
    if isinstance(leaves, (list, tuple)):
        return type(leaves)(_gradients(cotangents, leaf, outers) for leaf in leaves)
    return _gradient(cotangents.get(leaves.index), leaves.out, outers)


def _check_output(result: Any, f: Any, jacobian: bool = False) -> None:
    name = _name(f)
    # an integer or boolean result is refused, as JAX does: nothing on the tape leads
    # to it, and its gradient was zeros that look right
    if not tapes.is_float_value(result):
        raise _not_real(result, f, jacobian)
    if np.ndim(result) != 0 and not jacobian:
        raise PhylanxValueError(f"grad needs a function returning a scalar; {name} returned "
                                f"shape {np.shape(result)} (reduce it, e.g. with sum)",
                                _where(f))


def _check_real(result: Any, f: Any, jacobian: bool = False) -> None:
    """A complex result is refused (as JAX does without ``holomorphic``): the
    rules follow no one convention for it.  Checked after the reverse pass, so that a
    rule that knows why the result is complex says so first (``eig`` of a matrix with
    complex eigenvalues)."""
    if np.iscomplexobj(result):
        raise _not_real(result, f, jacobian)


def _not_real(result: Any, f: Any, jacobian: bool) -> PhylanxTypeError:
    """The error of a result that is not a real float (integer, boolean, complex)."""
    real = "real " if np.iscomplexobj(result) else ""
    return PhylanxTypeError(f"{'jacobian' if jacobian else 'grad'} needs a function "
                            f"returning a {real}float {'array' if jacobian else 'scalar'}; "
                            f"{_name(f)} returned a {type_name(result)}", _where(f))


def _gradient(ct: Any, value: Any, outers: list = ()) -> Any:
    """The gradient of a leaf from its cotangent; each step is recorded on the ``outers``
    tapes of a nested grad (``grad(grad(f))`` differentiates this result)."""
    if ct is None:
        ct = np.zeros(np.shape(value), dtype=value.dtype)
    fitted = tapes.fit_recorded(ct, value, outers)
    if np.ndim(fitted) == 0:
        own = np.asarray(fitted).dtype.type(fitted)
    else:
        # a read-only cotangent is an operand's own memory (rules_arithmetic._read_only):
        # the user gets an array of their own
        own = np.ascontiguousarray(fitted) if fitted.flags.writeable else fitted.copy()
    if own is not fitted:
        tapes.record_on(outers, "__copy", [fitted], own)
    return own


# -- calling the recording twin of f -------------------------------------------------
def _caller(f: Any) -> Callable[[tapes.Tape, list, dict], Any]:
    """``call(tape, args, kwargs)`` running the recording twin of ``f`` as an evaluation
    recording on ``tape`` (its own: concurrent ``grad`` calls never share one)."""
    if type(f) is Function:
        return lambda tape, args, kwargs: record(tape, _invoke, TWINS.twin(f), args, kwargs)
    from ..frontend.decorator import LazyDecorator, PhylanxDecorator
    if isinstance(f, LazyDecorator):
        f = f.decorated
    if getattr(f, "__phylanx_transform__", False):     # grad(grad(f)), jacobian(grad(f))
        return lambda tape, args, kwargs: record(tape, _call_python, f, args, kwargs)
    if isinstance(f, types.FunctionType):
        f = _translated(f)
    if isinstance(f, PhylanxDecorator):
        return lambda tape, args, kwargs: _call_decorated(f, tape, args, kwargs)
    raise PhylanxTypeError(f"grad needs a @Phylanx function, a PhySL function value or a "
                           f"Python function, got {type_name(f)}")


#: plain Python functions differentiated so far -> their translation (kept while the
#: function lives: translated and compiled once, like a decorated function)
_TRANSLATED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_TRANSLATING = threading.Lock()


def _translated(fn: types.FunctionType) -> Any:
    """``fn`` as ``@Phylanx`` would make it (a lambda too): the same translation, so what
    the frontend refuses is a located error here too."""
    from ..frontend.decorator import PhylanxDecorator
    with _TRANSLATING:
        decorated = _TRANSLATED.get(fn)
        if decorated is None:
            decorated = _TRANSLATED[fn] = PhylanxDecorator(fn)
    return decorated


def _call_python(fn: Callable[..., Any], args: list, kwargs: dict) -> Any:
    return fn(*args, **kwargs)


def _invoke(fn: Function, args: list, kwargs: dict) -> Any:
    values = [from_python(a) for a in args]
    kw = {k: from_python(v) for k, v in kwargs.items()} or None
    try:
        result = fn.invoke(values, kw)
    except ControlSignal as jump:
        raise jump.as_error() from None
    return result.result() if isinstance(result, Future) else result


def _call_decorated(dec: Any, tape: tapes.Tape, args: list, kwargs: dict) -> Any:
    """What ``PhylanxDecorator.__call__`` does, with the twin in place of the function
    (the Python globals it uses loaded for this evaluation, as a call does)."""
    if dec.disable_decorator:
        raise PhylanxTypeError(f"cannot differentiate {dec.__name__}: its decorator is "
                               "disabled (it runs as plain Python)")
    dec._ensure_compiled()
    bound = dec._bind(tuple(args), kwargs)
    values, passed = dec._arguments(bound)
    twin = TWINS.twin(dec._function)
    return record(tape, dec.with_globals, passed, _invoke, twin, values, {})
