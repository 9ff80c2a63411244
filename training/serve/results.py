"""``uno-env results``: how people did against the agents, from game records.

::

    uno-env results runs/web/games.jsonl
    uno-env results games.jsonl more.jsonl --by agent

Reads record files (:func:`uno_env.game.records.load_records`: games played in the browser,
``uno-env play --record``, any record with seats named ``human``) and, for the games with at
least one person and one agent, prints per table line-up (the agents the people faced and
the player count; ``--by agent``: per agent faced) the people's games, wins and win rate
with its 95% interval, next to the fair share (one in the player count). Each game is its
own deal (a fresh seed), so games are independent; the people of one game are counted
together (a deal-grouped estimate, :func:`uno_env.stats.grouped_ratio`, Wilson interval at
its effective size). Games cut at the decision limit count as not won and are listed.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from training.common import Subcommand
from uno_env.game.records import GameRecord, load_records
from uno_env.stats import grouped_ratio

from .seats import HUMAN


@dataclass
class Tally:
    """People's results in one group of games: per game, people seated and people who won."""

    players: int
    seated: list[int] = field(default_factory=list)
    won: list[int] = field(default_factory=list)
    truncated: int = 0

    def row(self) -> tuple[int, int, float, float, float]:
        """``(seat-games, wins, rate, low, high)`` with the deal-grouped 95% interval."""
        estimate = grouped_ratio(self.won, self.seated)
        low, high = estimate.proportion_interval()
        return sum(self.seated), sum(self.won), estimate.value, low, high


def people_games(records: Sequence[GameRecord]) -> list[GameRecord]:
    """The finished records with at least one person and one agent seated."""
    return [
        r
        for r in records
        if r.outcome is not None
        and r.agents is not None
        and HUMAN in r.agents
        and any(name != HUMAN for name in r.agents)
    ]


def tally(records: Sequence[GameRecord], by: str = "lineup") -> dict[str, Tally]:
    """People's results grouped by table line-up (``"lineup"``) or by each agent faced (``"agent"``)."""
    groups: dict[str, Tally] = {}
    for record in people_games(records):
        assert record.agents is not None and record.outcome is not None
        n = record.num_players
        people = [s for s, name in enumerate(record.agents) if name == HUMAN]
        agents = sorted(name for name in record.agents if name != HUMAN)
        winners = sum(1 for s in people if record.outcome.winner == s)
        if by == "agent":
            keys = [f"{name}, {n} players" for name in sorted(set(agents))]
        else:
            counts: dict[str, int] = defaultdict(int)
            for name in agents:
                counts[name] += 1
            lineup = " + ".join(f"{name} x{k}" if k > 1 else name for name, k in sorted(counts.items()))
            keys = [f"{lineup}, {n} players"]
        for key in keys:
            group = groups.setdefault(key, Tally(players=n))
            group.seated.append(len(people))
            group.won.append(winners)
            group.truncated += int(record.outcome.truncated)
    return groups


def configure(parser: argparse.ArgumentParser) -> None:
    """The options of ``uno-env results``."""
    parser.add_argument("files", nargs="+", type=Path, help="record files (JSON Lines)")
    parser.add_argument(
        "--by",
        choices=("lineup", "agent"),
        default="lineup",
        help="group by the table's line-up of agents, or by each agent faced (default: lineup)",
    )


def run(args: argparse.Namespace) -> int:
    """Print the table of the module docstring."""
    records: list[GameRecord] = []
    for path in args.files:  # a missing file, a folder, a FIFO: load_records names which
        records.extend(load_records(path))
    groups = tally(records, args.by)
    games = len(people_games(records))
    print(f"{games} game(s) with people and agents among {len(records)} record(s)")
    if not groups:
        print("no game seats both a person ('human') and an agent")
        return 0
    what = "agents faced" if args.by == "lineup" else "agent faced"
    print(f"\n| {what} | people's games | wins | win rate [95%] | fair share | cut at the limit |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    for key, group in sorted(groups.items()):
        seated, won, rate, low, high = group.row()
        print(
            f"| {key} | {seated} | {won} | {rate:.1%} [{low:.1%}, {high:.1%}] | "
            f"{1 / group.players:.1%} | {group.truncated} |"
        )
    print(
        "\nIntervals: 95%, the game (its deal) as the unit, the people of one game counted together; "
        "fair share: one in the player count."
    )
    return 0


COMMAND = Subcommand(
    "results", "people against agents: win rates with intervals from game records", configure, run, __doc__
)
main = COMMAND.main


if __name__ == "__main__":
    import sys

    sys.exit(main())
