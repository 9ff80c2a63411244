"""``uno_env.compiler.jit.njit``: functions marked ``internal=True`` compile without the CPython wrapper
(a shorter cold start), still work when called from Python, and the package's own paths never
call one from Python (which would compile an uncached twin in every process)."""

from __future__ import annotations

import json
import subprocess
import sys

import numba
import numpy as np
import pytest

from uno_env.compiler import jit as _jit
from uno_env.compiler.jit import njit

COMPILED = not numba.config.DISABLE_JIT  # type: ignore[attr-defined]


@njit(internal=True)
def _twice(values: np.ndarray, i: int) -> int:
    return int(values[i]) * 2


@njit
def _sum_twice(values: np.ndarray) -> int:
    total = 0
    for i in range(values.shape[0]):
        total += _twice(values, i)
    return total


def test_an_internal_function_works_from_compiled_code_and_from_python() -> None:
    values = np.arange(5, dtype=np.int64)
    assert _sum_twice(values) == 20
    assert _twice(values, 3) == 6  # from Python: a twin with the wrapper
    if COMPILED:
        assert type(_twice).__name__ == "_CompiledCallers"
        assert any(name.endswith("_twice") for name in _jit.PYTHON_CALLS)
        assert _twice(values, 4) == 8  # the same twin again


# every part's whole workload (what uno-env compile runs), then the internal functions that
# Python code called; the cache is warm in CI (make test starts with uno-env compile)
EVERY_PART = """
import json
from uno_env.compiler import compiling, jit as _jit

for part in compiling.PARTS:
    compiling._WARM_UPS[part](True)
print(json.dumps(_jit.PYTHON_CALLS))
"""


@pytest.mark.skipif(not COMPILED, reason="uncompiled: no wrappers to leave out")
def test_the_package_calls_no_internal_function_from_python() -> None:
    done = subprocess.run([sys.executable, "-c", EVERY_PART], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
