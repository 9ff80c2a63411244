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

``internal=True`` marks a function that only compiled code calls (most of the engine and the
play styles): it is compiled without the CPython wrapper too (``no_cpython_wrapper``), whose
unboxing and boxing code every such function otherwise lowered, optimised and emitted, with
its callers' closures linking it in again. A call from Python still works: it goes to a twin
compiled with a wrapper on its first use, uncached, and is noted in :data:`PYTHON_CALLS`
(``tests/test_jit.py`` checks that the package's own paths make none). The functions the
package calls from Python (the facade's, the envs' and the batch simulator's entry points,
and the few helpers that Python code uses) keep the wrapper.

``cache=True`` caches with :class:`uno_env.compiler.cache.PackageFunctionCache` rather than numba's own
cache: entries shared by every install of the same source and safe for many processes
compiling on one cache directory at once.

Uncompiled (``NUMBA_DISABLE_JIT=1``) it is numba's ``njit`` unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
from numba.core import types
from numba.core.registry import CPUDispatcher

from .cache import PackageFunctionCache


def _plain_types(dispatcher: Any) -> Any:
    """Make ``dispatcher`` type calls from compiled code with unliteral argument types."""
    typed_as = dispatcher.get_call_template

    def get_call_template(args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
        return typed_as(
            tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()}
        )

    dispatcher.get_call_template = get_call_template
    return dispatcher


class _CompiledCallers(CPUDispatcher):
    """A dispatcher compiled without the CPython wrapper (``internal=True`` of :func:`njit`).

    Compiled callers call it as any compiled function. A call from Python would find no
    wrapper to enter, so it goes to a twin compiled with one, uncached, on first use: such
    calls work, at the cost of compiling the function once more in that process (none of
    the package's paths makes them; ``tests/test_jit.py`` checks).
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        twin = self.__dict__.get("_python_twin")
        if twin is None:
            PYTHON_CALLS.append(f"{self.py_func.__module__}.{self.py_func.__qualname__}")
            options: dict[str, Any] = {"no_cfunc_wrapper": True}
            twin = _plain_types(numba.njit(**options)(self.py_func))
            self._python_twin = twin
        return twin(*args, **kwargs)


PYTHON_CALLS: list[str] = []
"""The ``internal=True`` functions called from Python in this process (each compiled a twin)."""


def njit(function: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit(**options)``, compiling each function once per plain argument type.

    Used as ``@njit(cache=True)`` or ``@njit``, like numba's own. ``internal=True`` marks a
    function called from compiled code only: it is compiled without the CPython wrapper
    (:class:`_CompiledCallers`).
    """
    internal = bool(options.pop("internal", False))
    if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
        return numba.njit(function, **options) if function is not None else numba.njit(**options)

    options = {"no_cfunc_wrapper": True, **options}  # see the module docstring
    cache = bool(options.pop("cache", False))
    if internal:
        options["no_cpython_wrapper"] = True

    def decorate(func: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(**options)(func)
        if cache:
            dispatcher._cache = PackageFunctionCache(func)
        if internal:
            dispatcher.__class__ = _CompiledCallers
        return _plain_types(dispatcher)

    return decorate(function) if function is not None else decorate
