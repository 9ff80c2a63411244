"""Bit counting for the compiled fast paths: ``popcount`` and ``lowest_bit``.

The engine keeps, per seat, a bitmask of the faces held (:data:`uno_env.engine.layout.HELD`) and,
per rule set, bitmasks of the faces of each colour and rank. Legal plays are then one
``and``/``or`` of masks, and listing them walks the set bits. Compiled, both functions are
single instructions (LLVM's ``ctpop`` and ``cttz``); uncompiled (``NUMBA_DISABLE_JIT=1``)
they are plain Python with the same results.
"""

from __future__ import annotations

from typing import Any

import numba
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


def _unary_int64(name: str) -> Any:
    """An intrinsic applying the LLVM bit intrinsic ``name`` to a non-negative int64."""

    @intrinsic
    def _bits(typingctx: Any, value: Any) -> Any:
        if not isinstance(value, types.Integer):
            return None
        signature = types.int64(value)

        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            word = context.cast(builder, args[0], sig.args[0], types.int64)
            i64 = ir.IntType(64)
            if name == "llvm.cttz":
                fn = builder.module.declare_intrinsic(name, [i64], ir.FunctionType(i64, [i64, ir.IntType(1)]))
                return builder.call(fn, [word, ir.Constant(ir.IntType(1), 0)])
            fn = builder.module.declare_intrinsic(name, [i64], ir.FunctionType(i64, [i64]))
            return builder.call(fn, [word])

        return signature, codegen

    return _bits


if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]

    def popcount(value: int) -> int:
        """Set bits of a non-negative integer."""
        return int(value).bit_count()

    def lowest_bit(value: int) -> int:
        """Index of the lowest set bit of a positive integer (64 for zero)."""
        value = int(value)
        return (value & -value).bit_length() - 1 if value else 64

else:
    # intrinsics: callable from compiled code only
    popcount = _unary_int64("llvm.ctpop")
    lowest_bit = _unary_int64("llvm.cttz")
