"""The win-chance models shipped with the package: ``python -m training.atlas.publish [RUN_DIR]``.

Writes ``uno_env/pretrained/winprob.json`` (:func:`uno_env.sim.winprob.shipped_models`, the web
table's ``calibrated`` estimate): for every player count 2..10, a model pooled over the presets
that allow it, fitted on traced games of the scripted field (:data:`training.study.spec.DEFAULT_FIELD`
cycling round the table) on deals of their own; and, given a finished atlas folder, the
strong-play model of each of its cells (fitted on the rules of the cell alone), which the
estimate prefers where the rules and player count match.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from training.study.spec import DEFAULT_FIELD
from uno_env.engine.rules import PRESETS, RuleError
from uno_env.sim import winprob

from .batches import load_batches
from .report import cell_models

POOLED_GAMES = 300
"""Games per preset and player count the pooled models are fitted on."""
POOLED_SEED = 1 << 42
"""Deal seeds of the pooled fits start here (apart from every atlas deal set)."""


def pooled_models(players: range = range(2, 11), games: int = POOLED_GAMES) -> dict[str, Any]:
    """A model pooled over the presets for each player count (model-file entries by key)."""
    out: dict[str, Any] = {}
    for n in players:
        rules = []
        for name, ruleset in PRESETS.items():
            try:
                ruleset.check_players(n)
            except RuleError:
                continue
            rules.append(name)
        model, positions = winprob.fit_pooled(rules, n, games, list(DEFAULT_FIELD), seed=POOLED_SEED)
        out[f"{winprob.POOLED}|{n}"] = {
            "model": model.to_dict(),
            "fitted_on": (
                f"{games} games of the scripted field per preset ({', '.join(rules)}), "
                f"{positions:,} positions"
            ),
        }
    return out


def atlas_models(run: Path) -> dict[str, Any]:
    """The strong-play model of every rule cell of a finished atlas folder (controls left out)."""

    spec, batches = load_batches(run)
    return cell_models(spec, batches)


def publish(run: Path | None = None, path: Path = winprob.SHIPPED) -> Path:
    """Write the shipped model file (pooled models, plus an atlas folder's cell models)."""
    models = pooled_models()
    if run is not None:
        models.update(atlas_models(run))
    winprob.save_models(path, models)
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m training.atlas.publish [RUN_DIR]``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(
            "usage: python -m training.atlas.publish [RUN_DIR] (a finished run of uno-env atlas)",
            file=sys.stderr,
        )
        return 2
    print(f"wrote {publish(Path(args[0]) if args else None)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
