"""The decorator every compiled function of the package uses: numba's ``njit``, one compilation per type.

Called from compiled code with a constant argument (``draw_cards(state, seat, 2)``,
``next_seat(state, seat, 1)``), a plain numba function is compiled once more for that
constant's literal type (``Literal[int](2)``) on top of its ``int64`` version, and every
compiled caller links the extra copy. Nothing in the engine dispatches on a literal value,
so these copies only cost compile time: before this decorator a cold first ``Game`` step
compiled ``draw_cards``, ``next_seat`` and ``finish`` three times each, ``rand_below`` four
times and the play styles' ``param`` ten times. :func:`njit` types such calls with the
arguments' plain types (:func:`numba.core.types.unliteral`), so each function is compiled
once per genuinely different argument type.

Nor does it build a C-callable wrapper per function (``no_cfunc_wrapper``): those serve
``.cfunc``/``ctypes`` addresses and first-class function values, which the package never
takes, and each cost lowering, optimising and emitting code on a cold start. Python calls go
through the usual CPython wrapper.

Uncompiled (``NUMBA_DISABLE_JIT=1``) it is numba's ``njit`` unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
from numba.core import types


def _plain_types(dispatcher: Any) -> Any:
    """Make ``dispatcher`` type calls from compiled code with unliteral argument types."""
    typed_as = dispatcher.get_call_template

    def get_call_template(args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
        return typed_as(
            tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()}
        )

    dispatcher.get_call_template = get_call_template
    return dispatcher


def njit(function: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit(**options)``, compiling each function once per plain argument type.

    Used as ``@njit(cache=True)`` or ``@njit``, like numba's own.
    """
    if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
        return numba.njit(function, **options) if function is not None else numba.njit(**options)

    options = {"no_cfunc_wrapper": True, **options}  # see the module docstring

    def decorate(func: Callable[..., Any]) -> Any:
        return _plain_types(numba.njit(**options)(func))

    return decorate(function) if function is not None else decorate
