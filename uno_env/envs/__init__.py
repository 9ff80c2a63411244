"""The environments: PettingZoo AEC, single-agent Gymnasium and the native vector env.

Layers: these modules sit on the observation encoding (:mod:`uno_env.game.encoding`) and
the engine (:mod:`uno_env.engine.engine`); the engine imports nothing from here. The names below
are loaded on first use, so importing :mod:`uno_env` does not import PettingZoo or
Gymnasium; the env ids are registered with them when they are imported
(:mod:`uno_env.envs.registration`).

=====================  ===========================================================
name                   what
=====================  ===========================================================
``env``, ``raw_env``   PettingZoo AEC env (:mod:`uno_env.envs.aec`)
``parallel_env``       PettingZoo Parallel env, the turn-based conversion (:mod:`.parallel`)
``SingleAgentEnv``     one learner vs opponents, Gymnasium (:mod:`.single`)
``VectorEnv``          N games in compiled lockstep, Gymnasium vector (:mod:`.vector`)
``describe``           an observation as text (:mod:`.encoding`)
=====================  ===========================================================
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..game.encoding import OBS_VERSION, describe, layout_table, obs_layout
from .common import ActionOutOfBoundsError, UnknownKeywordError
from .registration import ENV_VERSION

if TYPE_CHECKING:
    from .aec import UnoEnv, env, raw_env
    from .parallel import parallel_env
    from .single import SingleAgentEnv
    from .vector import VectorEnv

_LAZY = {
    "env": "aec",
    "raw_env": "aec",
    "UnoEnv": "aec",
    "parallel_env": "parallel",
    "SingleAgentEnv": "single",
    "VectorEnv": "vector",
}

__all__ = [
    "ENV_VERSION",
    "OBS_VERSION",
    "ActionOutOfBoundsError",
    "SingleAgentEnv",
    "UnknownKeywordError",
    "UnoEnv",
    "VectorEnv",
    "describe",
    "env",
    "layout_table",
    "obs_layout",
    "parallel_env",
    "raw_env",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
