"""uno_env: the Uno family of shedding card games as fast, exact, rule-configurable RL environments.

The engine (:mod:`uno_env.engine`) is numba-compiled rule functions over array state; the
:class:`Game` facade, the batch simulator (:func:`simulate`) and the environments share it.
Rule variants are :class:`RuleSet` values; :data:`PRESETS` names the catalogue's presets.
"""

from .actions import action_table, format_action, parse_action
from .batch import BatchResult, simulate
from .cards import Card, CardNotationError, format_face, parse_face
from .game import Game, IllegalActionError, Outcome, Phase
from .position import PositionError
from .rules import PRESETS, RuleError, RuleSet, load_rules, preset

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "BatchResult",
    "Card",
    "CardNotationError",
    "Game",
    "IllegalActionError",
    "Outcome",
    "Phase",
    "PositionError",
    "RuleError",
    "RuleSet",
    "action_table",
    "format_action",
    "format_face",
    "load_rules",
    "parse_action",
    "parse_face",
    "preset",
    "simulate",
]
