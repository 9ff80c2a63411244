"""Write the golden playthroughs: seeded random games of every preset, one decision per entry.

Run from the repository root after a deliberate change of behaviour, then review the diff::

    python -m tests.golden.regenerate

Each transcript ``tests/golden/<preset>_<n>p_seed<k>.txt`` holds the rule set's canonical
string, then for every decision the position (see :mod:`uno_env.game.position`) and the action
chosen by ``random.Random(k)`` among the legal ones, up to :data:`MAX_DECISIONS`, then the
outcome. ``tests/test_golden.py`` rebuilds them in memory and compares.
"""

from __future__ import annotations

import dataclasses
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path

import uno_env

GOLDEN_DIR = Path(__file__).resolve().parent
PLAYER_COUNTS = (2, 4)
SEEDS = (1, 2)
MAX_DECISIONS = 300
REGENERATE_COMMAND = "python -m tests.golden.regenerate"


@dataclasses.dataclass(frozen=True)
class Case:
    """One golden game: a preset, a player count and a seed (deal and chooser)."""

    preset: str
    players: int
    seed: int

    @property
    def file_name(self) -> str:
        """The transcript's file name inside :data:`GOLDEN_DIR`."""
        return f"{self.preset}_{self.players}p_seed{self.seed}.txt"


def cases() -> list[Case]:
    """Every golden game: each preset at 2 and 4 players (or its fewest players), each seed."""
    out: list[Case] = []
    for name, rules in uno_env.PRESETS.items():
        counts = [n for n in PLAYER_COUNTS if rules.min_players <= n <= rules.max_players]
        for n in counts or [rules.min_players]:
            out.extend(Case(name, n, seed) for seed in SEEDS)
    return out


def transcript(case: Case) -> str:
    """The text of one golden playthrough."""
    rules = uno_env.preset(case.preset)
    game = uno_env.Game(rules, case.players, seed=case.seed)
    chooser = random.Random(case.seed)
    lines = [
        f"# golden playthrough: preset {case.preset}, {case.players} players, seed {case.seed}",
        f"# Game({case.preset!r}, {case.players}, seed={case.seed}); each decision is "
        f"random.Random({case.seed}).choice(game.legal_actions())",
        f"# regenerate: {REGENERATE_COMMAND}",
        f"rules: {rules}",
    ]
    while not game.is_over() and game.decisions < MAX_DECISIONS:
        seat = game.current_player
        action = chooser.choice(game.legal_actions())
        lines.append(f"{game.decisions + 1}. {game.position()}")
        lines.append(f"   seat {seat}: {game.describe_action(action)} ({action})")
        game.step(action)
    lines.append(f"final: {game.position()}")
    outcome = game.outcome()
    if outcome is None:
        lines.append(f"stopped: the game is still running after {MAX_DECISIONS} decisions (the cap)")
    else:
        fields = ", ".join(f"{k}={v}" for k, v in dataclasses.asdict(outcome).items())
        lines.append(f"outcome: {fields}")
    return "\n".join(lines) + "\n"


def stale_files() -> list[Path]:
    """Transcripts in :data:`GOLDEN_DIR` that no current case produces."""
    wanted = {case.file_name for case in cases()}
    return sorted(p for p in GOLDEN_DIR.glob("*.txt") if p.name not in wanted)


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite every transcript and remove stale ones; print what changed."""
    del argv
    changed = 0
    for case in cases():
        path = GOLDEN_DIR / case.file_name
        text = transcript(case)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            path.write_text(text, encoding="utf-8")
            changed += 1
            print(f"{'updated' if old is not None else 'created'} {os.path.relpath(path)}")
    for path in stale_files():
        path.unlink()
        print(f"removed stale {path.name}")
    print(f"{len(cases())} golden playthroughs, {changed} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
