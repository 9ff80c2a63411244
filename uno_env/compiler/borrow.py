"""Borrowed array views for the compiled hot loops: the same memory without a reference count.

Numba counts references to an array's memory atomically: every view (``states[i]``) and
every call that passes an array increments and decrements a shared counter with a locked
instruction. In the per-decision loops those operations cost about a fifth of the time.
:func:`borrow` returns a view of an array that carries no memory-info pointer, so numba
skips the counting for it and for every view taken from it (numba does the same for its
own short-lived views).

Safe only where the view cannot outlive the array: inside a compiled function called from
Python with that array as an argument, never stored in a returned value or a container.
The top-level loops (:func:`uno_env.envs.core.vector_run` and friends,
:func:`uno_env.sim.batch.play_games_with_params`) follow that rule. Uncompiled
(``NUMBA_DISABLE_JIT=1``) it is the identity.
"""

from __future__ import annotations

from typing import Any

import numba
from numba.core import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@intrinsic
def _borrow(typingctx: Any, array: Any) -> Any:
    if not isinstance(array, types.Array):
        return None
    signature = array(array)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        array_type = sig.args[0]
        source = make_array(array_type)(context, builder, args[0])
        view = make_array(array_type)(context, builder)
        populate_array(
            view,
            data=source.data,
            shape=source.shape,
            strides=source.strides,
            itemsize=source.itemsize,
            meminfo=None,
        )
        return view._getvalue()

    return signature, codegen


if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]

    def borrow(array: Any) -> Any:
        """The array itself (uncompiled there are no reference counts to skip)."""
        return array

else:
    # an intrinsic: callable from compiled code only
    borrow = _borrow  # type: ignore[assignment]
