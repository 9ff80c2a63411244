"""The rules as arrays: the lowest layer.

Cards and their notation (:mod:`.cards`), the option tables (:mod:`.options`), rule sets and
their presets (:mod:`.rules`), the state layout (:mod:`.layout`), the random generator
(:mod:`.rng`), the action table (:mod:`.actions`), bit helpers (:mod:`.bits`) and the compiled
rule functions (:mod:`.engine`). Nothing here imports from the layers above.

``uno_env.engine`` was a module before this package; its names are still
reachable here for a deprecation period (with a :class:`DeprecationWarning`): import
them from :mod:`uno_env.engine.engine`.
"""

from typing import Any

from .._moved import forward_attribute


def __getattr__(name: str) -> Any:
    return forward_attribute(__name__, name)
