"""Round robin of the play styles: each style against random players, as Markdown.

For every style and player count, ``--games`` games of the rule preset (official Uno by
default) are played on the compiled batch simulator with the style in one seat and the
``--versus`` policy in all others: ``random`` by default, which is ``random_legal`` (uniform
over the legal actions, a weak baseline that draws while holding playable cards);
``random_playable`` is the literature's random player (a random playable card, draws only
with none). The table names the random player by its full name. Seats rotate: the style sits in seat ``k``
for an equal share of the games, and every game has its own deal (game seeds never repeat
within a cell). The table gives the style's win rate with its 95% Wilson interval, and the
mean game length in decisions; the last line per player count is the fair share ``1/n``.

Usage::

    python benchmarks/round_robin.py                      # 20,000 games per cell, 2 and 4 players
    python benchmarks/round_robin.py --games 2000 --styles greedy hoarder --players 2
    python benchmarks/round_robin.py --versus greedy --styles monte_carlo --games 4000

Cells run in ``--workers`` processes. Progress goes to stderr, the Markdown to stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import uno_env
from uno_env.stats import wilson_interval
from uno_env.styles.params import STYLE_ALIASES
from uno_env.styles.registry import STYLES


@dataclass(frozen=True)
class Cell:
    """One style at one player count: wins of the style's seat over all games."""

    style: str
    players: int
    games: int
    wins: int
    decisions: int
    truncated: int
    seconds: float

    @property
    def rate(self) -> float:
        """The style's win rate."""
        return self.wins / self.games if self.games else 0.0


def play_cell(rules: str, style: str, versus: str, players: int, games: int, seed: int) -> Cell:
    """Play ``games`` games with ``style`` in one seat (rotated) and ``versus`` elsewhere.

    Seat ``k`` hosts the style in ``games // players`` games (the first ``games % players``
    seats one more), dealt from seeds ``seed + offset ..``, distinct across seats.
    """
    wins = decisions = truncated = 0
    start = time.perf_counter()
    offset = 0
    for seat in range(players):
        count = games // players + (1 if seat < games % players else 0)
        table = [versus] * players
        table[seat] = style
        result = uno_env.simulate(rules, players, count, seed=seed + offset, policies=table)
        wins += int((result.winner == seat).sum())
        decisions += int(result.length.sum())
        truncated += int(result.truncated.sum())
        offset += count
    return Cell(style, players, games, wins, decisions, truncated, time.perf_counter() - start)


def _run(args: tuple[str, str, str, int, int, int]) -> Cell:
    cell = play_cell(*args)
    print(
        f"  {cell.style} {cell.players}p: {cell.rate:.3f} of {cell.games} in {cell.seconds:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    return cell


def markdown(cells: list[Cell], players: list[int], versus: str) -> str:
    """The table: one row per style, one win-rate column (and a length column) per count."""
    head = ["style"]
    for n in players:
        head += [f"{n} players: win rate (95% CI)", f"{n}p decisions/game"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    by_key = {(c.style, c.players): c for c in cells}
    for style in dict.fromkeys(c.style for c in cells):
        row = [f"`{style}`"]
        for n in players:
            cell = by_key.get((style, n))
            if cell is None:
                row += ["", ""]
                continue
            lo, hi = wilson_interval(cell.wins, cell.games)
            note = f", {cell.truncated} truncated" if cell.truncated else ""
            row += [f"{cell.rate:.1%} ({lo:.1%}-{hi:.1%}){note}", f"{cell.decisions / cell.games:,.0f}"]
        lines.append("| " + " | ".join(row) + " |")
    fair = ["fair share"] + [x for n in players for x in (f"{1 / n:.1%}", "")]
    lines.append("| " + " | ".join(fair) + " |")
    games = sorted({c.games for c in cells})
    lines.append("")
    lines.append(
        f"Each style in one seat (rotated), `{versus}` in the others; "
        f"{' / '.join(f'{g:,}' for g in games)} games per cell."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Play the round robin and print the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="uno", help="rule preset or TOML file (default: uno)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--games", type=int, default=20_000, help="games per style and player count")
    parser.add_argument(
        "--styles",
        nargs="+",
        default=[s for s in STYLES if not STYLES[s].cheats and s != "search"],
        help="policies (with :params; default: every style but the search agents)",
    )
    parser.add_argument(
        "--versus",
        default="random",
        help="policy of the other seats (default: random, i.e. random_legal: uniform over the legal actions; "
        "random_playable is the literature's random player)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    uno_env.simulate(args.rules, args.players[0], 2, policies=args.styles[0])  # compile once
    jobs = [
        (args.rules, style, args.versus, n, args.games, args.seed + 1_000_000 * i)
        for i, (style, n) in enumerate((s, n) for s in args.styles for n in args.players)
    ]
    start = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            cells = list(pool.map(_run, jobs))
    else:
        cells = [_run(job) for job in jobs]
    print(f"done in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    print(markdown(cells, args.players, STYLE_ALIASES.get(args.versus, args.versus)))


if __name__ == "__main__":
    main()
