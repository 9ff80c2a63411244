"""uno_env: the Uno family of shedding card games as fast, exact, rule-configurable RL environments.

The engine (:mod:`uno_env.engine.engine`) is numba-compiled rule functions over array state; the
:class:`Game` facade, the batch simulator (:func:`simulate`) and the environments share it.
Rule variants are :class:`RuleSet` values; :data:`PRESETS` names the presets of the rule
reference (``docs/rules.md``).

The environments (:mod:`uno_env.envs`) load on first use: ``uno_env.env`` / ``raw_env``
(PettingZoo AEC), ``uno_env.parallel_env`` (PettingZoo Parallel),
``uno_env.SingleAgentEnv`` and ``uno_env.VectorEnv`` (Gymnasium). :func:`compile_all` compiles
every entry point ahead of use (``uno-env compile``). Their ids
(``uno_env/<preset>-v1``) are registered with PettingZoo and Gymnasium when those are imported.
"""

from typing import TYPE_CHECKING, Any

from .compiler.cache import CACHE_DIR  # noqa: F401  (first: before any function is compiled)
from .compiler.compiling import compile_all
from .engine.actions import action_table, format_action, parse_action
from .engine.cards import Card, CardNotationError, format_face, parse_face
from .engine.rules import PRESETS, RuleError, RuleSet, load_rules, preset
from .game.facade import EngineError, Game, IllegalActionError, Outcome, Phase
from .game.position import PositionError
from .sim.batch import BatchResult, BatchSummary, simulate

if TYPE_CHECKING:
    from .envs import SingleAgentEnv, VectorEnv, env, parallel_env, raw_env

_ENV_EXPORTS = ("env", "raw_env", "parallel_env", "SingleAgentEnv", "VectorEnv")


def __getattr__(name: str) -> Any:
    if name in _ENV_EXPORTS:
        from . import envs

        return getattr(envs, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from . import _moved  # noqa: E402
from .envs import registration as _registration  # noqa: E402

_moved.install()  # the old module paths, for a deprecation period
_registration.install()

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "BatchResult",
    "BatchSummary",
    "Card",
    "CardNotationError",
    "EngineError",
    "Game",
    "IllegalActionError",
    "Outcome",
    "Phase",
    "PositionError",
    "RuleError",
    "RuleSet",
    "SingleAgentEnv",
    "VectorEnv",
    "action_table",
    "compile_all",
    "env",
    "format_action",
    "format_face",
    "load_rules",
    "parallel_env",
    "parse_action",
    "parse_face",
    "preset",
    "raw_env",
    "simulate",
]
