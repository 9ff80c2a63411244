"""Version numbers and file formats that travel with results (STYLE principle 12).

Kept in the lowest layer so that every module can record them without importing the layer
they version: game records (:mod:`uno_env.game.records`) carry :data:`ENV_VERSION` without
importing the environments, checkpoints carry :data:`OBS_VERSION` without importing the
encoder. Bump a number whenever the behaviour it versions changes.
"""

from __future__ import annotations

ENV_VERSION = 1
"""Bumped whenever the game the environments play changes (what an action does, rewards, the
action table): the ``-vN`` of every env id, and what game records are replayed under."""
OBS_VERSION = 3
"""Bumped whenever the observation encoding (its fields, order or scaling) changes. Fields
are only appended, so a network trained on an older version reads today's prefix
(``uno_env.game.encoding.FIELDS_OF_VERSION``); v3 appended what opponents' draws and Wild
Draw Fours showed about their hands."""
RULES_FORMAT = "uno-env-rules/1"
"""The format of rule files and rule strings (:class:`uno_env.engine.rules.RuleSet`)."""
RECORD_FORMAT = "uno-env-record/1"
"""The format of game records (:mod:`uno_env.game.records`)."""
