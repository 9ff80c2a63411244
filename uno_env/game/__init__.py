"""One game, through the engine: the typed facade and what reads or writes a game.

The compiled game value (:mod:`.compiled`, the one way in), the :class:`~uno_env.Game` facade
(:mod:`.facade`), the position notation (:mod:`.position`), the observation encoder
(:mod:`.encoding`), game records (:mod:`.records`) and the rule reference (:mod:`.reference`).

``uno_env.game`` was a module before this package; its names are still
reachable here for a deprecation period (with a :class:`DeprecationWarning`): import
them from :mod:`uno_env.game.facade`.
"""

from typing import Any

from .._moved import forward_attribute


def __getattr__(name: str) -> Any:
    return forward_attribute(__name__, name)
