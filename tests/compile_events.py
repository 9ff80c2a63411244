"""Child-process scripts that record what numba compiles (cold-start tests).

A test runs ``COUNT_COMPILES + body`` with ``python -c``: after this prelude, ``compiled``
lists the qualified name of every function numba compiles in that process (numba's
``numba:compile`` events), so the body can print it and the test assert that nothing
compiled, because everything came from the cache. :data:`PLAY_GAME_PART` is the one most
tests run.
"""

COUNT_COMPILES = """
import json
from numba.core import event

compiled = []

class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Count())
"""

PLAY_GAME_PART = (
    COUNT_COMPILES
    + """
import uno_env
from uno_env.compiler import cache as _cache, compiling
from uno_env.game import facade as game

compiling._WARM_UPS["game"](True)
print(json.dumps({
    "package": uno_env.__file__,
    "cache_dir": str(_cache.CACHE_DIR),
    "compiled": compiled,
    "engine": _cache.COMPILED_ENGINE,
    "target": _cache.CODE_TARGET,
    "loaded": sum(game._step_and_list.stats.cache_hits.values()),
}))
"""
)
"""The ``game`` part's whole workload; prints what numba compiled, what the entry point
loaded from the cache, where the package and cache are, and the install's compiled engine."""
