"""Version numbers and file formats that travel with results (STYLE principle 12).

Kept in the lowest layer so that every module can record them without importing the layer
they version: game records (:mod:`uno_env.game.records`) carry :data:`ENV_VERSION` without
importing the environments, checkpoints carry :data:`OBS_VERSION` without importing the
encoder. Bump a number whenever the behaviour it versions changes.
"""

from __future__ import annotations

ENV_VERSION = 1
"""Bumped whenever the behaviour of the environments changes: the ``-vN`` of every env id."""
OBS_VERSION = 2
"""Bumped whenever the observation encoding (its fields, order or scaling) changes."""
RULES_FORMAT = "uno-env-rules/1"
"""The format of rule files and rule strings (:class:`uno_env.engine.rules.RuleSet`)."""
RECORD_FORMAT = "uno-env-record/1"
"""The format of game records (:mod:`uno_env.game.records`)."""
