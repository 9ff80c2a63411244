"""The balance atlas: how much each rule set rewards skill under strong play, and how its games go.

``uno-env atlas [SPEC.toml]`` (or ``python -m training.atlas``) measures every rule set of a
catalogue with the quantities game designers use. Without a SPEC it runs the built-in default
(``training/specs/default_atlas.toml``): every preset, official Uno with each house-rule switch
alone and each Super Mario card alone, at 2 and 4 players. ``docs/atlas.md`` describes the
design, the measures and the default's results.
"""

from __future__ import annotations

from training.common import Subcommand

from .batches import load_batches, scan_batches
from .cli import add_arguments, cmd_atlas
from .planning import AtlasTask, fit_tasks, measure_tasks, plan, task_key
from .play import coin_winners, run_task
from .run import default_out_dir, run_atlas
from .spec import (
    AA_COPY,
    ATLAS_FORMAT,
    COIN_FLIP,
    DEAL_KINDS,
    SPEC_KEYS,
    AtlasSpec,
    AtlasSpecError,
    AtlasVariant,
    Rung,
    default_spec_path,
    load_spec,
    parse_spec,
)

COMMAND = Subcommand(
    "atlas",
    "balance atlas: skill depth, luck, length and drama of every rule set under strong play",
    add_arguments,
    cmd_atlas,
    description=__doc__,
)
main = COMMAND.main

__all__ = [
    "AA_COPY",
    "ATLAS_FORMAT",
    "COIN_FLIP",
    "COMMAND",
    "DEAL_KINDS",
    "SPEC_KEYS",
    "AtlasSpec",
    "AtlasSpecError",
    "AtlasTask",
    "AtlasVariant",
    "Rung",
    "cmd_atlas",
    "coin_winners",
    "default_out_dir",
    "default_spec_path",
    "fit_tasks",
    "load_batches",
    "load_spec",
    "main",
    "measure_tasks",
    "parse_spec",
    "plan",
    "run_atlas",
    "run_task",
    "scan_batches",
    "task_key",
]
