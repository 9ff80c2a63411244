"""Compiling the engine: numba's decorator, the on-disk cache and its key, and compiling ahead of use.

:mod:`.cache` (imported first by :mod:`uno_env`: where numba keeps the compiled code and
for which CPU), :mod:`.jit` (the decorator every compiled function uses), :mod:`.borrow`
(array views without reference counts for the hot loops) and :mod:`.compiling`
(``uno-env compile`` and the notice on a first compile).
"""
