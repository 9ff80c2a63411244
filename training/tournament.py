"""Tournaments in duplicate format: which of my strategies is best?

``uno-env tournament --rules R --players N --agents a,b,c,... --games G --seed S --out DIR``
(or ``python -m training.tournament``) plays every agent against the others and ranks them.

**Agents** are any agents of the agent-spec grammar (:mod:`agents.spec`,
``docs/agents.md#agent-specs``): compiled play styles with optional parameters (``greedy``,
``bluffer:bluff=0.3,challenge=0.8``, ``random``), shipped and exported policies
(``ppo_uno_2p``, ``./p.npz``), MaskablePPO checkpoints (``run/model.zip``; loaded with
:class:`agents.PolicyAgent`, its metadata sidecar checked against the rules and player count;
SB3 checkpoints are pickles, so one this installation did not sign needs
``--trust-checkpoint``, :mod:`agents.trust`), and the user's own agents: ``FILE.py:NAME``,
``MODULE:ATTR`` (Python, run in the worker processes), ``cmd:COMMAND`` (another process
speaking the JSON-lines protocol) and ``llm:...`` (a chat model). From Python,
:func:`run_tournament` also takes agent objects and factories. In ``--agents`` commas
separate agents; a comma followed by ``key=value`` continues the previous agent's parameters.

**Format.** The *tables* are every combination of ``N`` agents from the list (one table when
there are exactly ``N``). Each table is played in every *seating*: all ``N!`` orders of its
agents for ``N <= 4``, and the ``N`` cyclic rotations (every agent in every seat once) above
that, where ``N!`` would be too many. With ``--field F`` (a gauntlet) each listed agent
instead plays its own table against ``N - 1`` copies of agent ``F``, in the ``N`` seatings
that put it in every seat: "search against three blockers". The field is rated as the fixed
reference (its rating stays at the prior). Duplicate format: deal ``d`` (``0 <= d < G``, seed
``S + d``, dealt like ``uno_env.Game(rules, N, seed=S + d)``) is played at every table in every
seating, so each agent meets the same shuffled decks from every seat and luck of the deal
cancels out of the comparison. Games: ``G x tables x seatings``.

**Engines.** When every agent is a compiled style the games run in the compiled batch
simulator (:func:`uno_env.simulate`, the styles' randomness from each game's agent generator).
When any agent is not compiled (a checkpoint, a Python, out-of-process or chat-model agent),
every game of the tournament runs through the Python :class:`uno_env.Game` loop instead
(:func:`agents.match.play_deals`: scripted agents as :class:`agents.ScriptedAgent`; every agent
with a ``reset(seed)`` re-seeded before each game from the deal's seed and its seat), slower
but the same deals, and the same results wherever a batch runs.

**Statistics** per agent, over all its games, each with a 95% interval in which the *deal*
is the unit: every deal is played at every table and seating, so an agent's games of one
deal share its cards and are not independent. Each rate or mean is the ratio of the agent's
per-deal totals, with a cluster-robust standard error over the deals and a Student-t
interval on ``deals - 1`` degrees of freedom (:mod:`uno_env.stats`); the win rate's interval
is the Wilson interval at the matching effective sample size. Reported: win rate; mean rank
(1 = best, games that ended; its interval kept within 1..players, and where it does not vary
between deals the Wilson interval of the rescaled mean at the number of deals, so 30 deals
all won do not read ``[1.00, 1.00]``); points per game; the Plackett-Luce *strength*: each agent's
log-strength fitted by maximum likelihood to the full finishing order of every game
(:func:`uno_env.stats.plackett_luce`; centred so the agents average 0; in a two-agent game
``a`` finishes ahead of ``b`` with probability ``1 / (1 + exp(s_b - s_a))``) with a
cluster-robust interval whose scores are summed within each deal, so it too takes the deal
as the unit; and an OpenSkill Plackett-Luce rating (``openskill.models.PlackettLuce``)
updated game by game in a fixed order (deal by deal, then table and seating), reported as
``mu``, ``sigma`` and the ordinal ``mu - 3 sigma``. The table is sorted by strength: the
maximum-likelihood fit uses every game at once, where OpenSkill's one pass depends on the
order of the games (two agents of nearly equal ``mu`` may be ordered otherwise). OpenSkill's
``sigma`` is the rating's own uncertainty and treats every game as independent, so it is
no interval for the duplicate design: the strength's interval is. The model runs without its
dynamics factor (``tau = 0``): agents are fixed strategies whose strength does not drift, so
the ratings converge instead of following the most recent games. Truncated games (E-END-1)
count as not won and are left out of the ranks, the strengths and the ratings. The mean game
length is printed in turns (a turn begins when a player enters the play phase, to play or
draw) and in decisions (every choice a player makes, colours and answers included), grouped
by deal as well.

**Output** in ``--out`` (default ``runs/tournament__<rules>__<N>p__<seed>__<UTC time>``):
``batches/`` (one ``.npz`` per finished batch, written atomically; ``--resume DIR`` plays
only the missing ones; a batch is at most ``--batch-games`` deals of one seating, by default
50,000, or 200 when an agent searches or plays in Python, so that slow games show progress
and an interruption loses little; the batches never change the games), ``standings.csv``
(+ ``.parquet`` with pyarrow), ``games.csv`` (one row per game: ``deal``, ``seed``, ``table``,
``seating_index``, ``seating``, ``winner_seat`` (-1: truncated), ``length`` in decisions,
``turns``, ``winner``, ``ranking``, ``ranking_seats``, ``score_0`` ...), ``standings.png`` and
the table on screen.
A gauntlet also writes ``pairs.csv``: every two agents' win rates against the field
compared deal by deal, with Benjamini-Hochberg adjusted p-values over the pairs
(:func:`gauntlet_pairs`).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import itertools
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

import uno_env
from agents.match import play_deals
from agents.policy_agent import check_policy_metadata, checkpoint_path, load_policy_metadata, metadata_path
from agents.spec import (
    AgentSpec,
    as_spec,
    check_seated_networks,
    parse_agent,
    same_agent_twice,
    split_agent_list,
)
from agents.trust import check_trusted
from training.common import (
    Subcommand,
    add_rule_arguments,
    add_rules_mismatch_argument,
    add_run_arguments,
    add_trust_argument,
    check_player_count,
    resolve_rules,
    rules_label,
    run_options,
)
from training.runner import (
    Progress,
    check_agent_files,
    check_agents_reach_workers,
    check_size,
    claim_run_folder,
    default_run_folder,
    results_folder,
    run_batches,
    workers_for,
    write_file_atomic,
    write_frame,
)
from uno_env import files
from uno_env.compiler.compiling import compiling, warm_up
from uno_env.engine.rules import RuleError, RuleSet
from uno_env.stats import (
    GAME_LENGTH_RANGE,
    POINTS_RANGE,
    benjamini_hochberg,
    grouped_ratio,
    paired_difference,
    plackett_luce,
)
from uno_env.styles.monte_carlo import MONTE_CARLO_STYLES
from uno_env.styles.params import STYLE_ALIASES
from uno_env.styles.registry import STYLES
from uno_env.styles.search import SEARCH_STYLES

from .extras import RATINGS, checkpoint_needs, executor_needs, merge, require

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure


TOURNAMENT_FORMAT = "uno-env-tournament/1"
ALL_SEATINGS_UP_TO = 4
"""Tables of at most this many players are played in all N! seatings; bigger ones rotate."""


# ================================================================ agents and the plan
def split_agents(text: str) -> list[str]:
    """Split ``--agents``: commas separate agents; ``,key=value`` continues an agent's parameters
    (:func:`agents.spec.split_agent_list`). An empty entry (``greedy,,blocker``, a comma at either
    end) is refused, never skipped: it may be an agent or a parameter lost in editing."""
    agents = split_agent_list(text)
    if not all(agents):
        raise ValueError(
            f"--agents {text!r} has an empty entry; allowed: agent specs separated by single commas, "
            "none before the first or after the last"
        )
    return agents


def agent_specs(agents: Sequence[Any], field: Any = None) -> tuple[list[AgentSpec], AgentSpec | None]:
    """The :class:`agents.spec.AgentSpec` of every agent (texts parsed, objects wrapped) and the field's."""
    specs = [as_spec(a, where=f"agent {a!r}") for a in agents]
    return specs, None if field is None else as_spec(field, where=f"field {field!r}")


def is_checkpoint(agent: Any) -> bool:
    """Whether an agent (a spec text or a parsed :class:`agents.spec.AgentSpec`) names a
    MaskablePPO checkpoint (:mod:`agents.spec`: a ``.zip`` path, or a path whose ``.zip``
    exists). An exported policy (``.npz``) is not one: it runs compiled like a style."""
    try:
        return as_spec(agent).kind == "checkpoint"
    except ValueError:
        # a checkpoint that is missing or unreadable is still named as one: the callers say
        # what a checkpoint needs (an extra, a place in the design) before the file is read
        return isinstance(agent, str) and agent.lower().endswith(".zip")


def is_python_agent(agent: Any) -> bool:
    """Whether an agent (a spec text or a parsed spec) plays in Python outside the batched
    paths: a user's Python agent, an out-of-process or a chat-model agent."""
    try:
        return as_spec(agent).kind in ("python", "process", "llm", "object")
    except ValueError:
        return False


PYTHON_HINTS = {
    "rules": "pass allow_rules_mismatch=True to play it on other rules, a transfer",
    "cheating": "pass allow_cheating=True",
}
"""How a Python caller of :func:`run_tournament` (or :func:`check_agents`) lifts a refusal."""
CLI_HINTS = {
    "rules": "--allow-rules-mismatch plays it on other rules",
    "cheating": "pass --allow-cheating",
}
"""How ``uno-env tournament`` lifts a refusal: its command-line options."""


def check_agents(
    agents: Sequence[Any],
    rules: RuleSet,
    players: int,
    *,
    trust: bool = False,
    allow_cheating: bool = False,
    allow_rules_mismatch: bool = False,
    field: Any = None,
    cli: bool = False,
) -> None:
    """Raise ValueError naming an unreadable agent spec, a missing checkpoint, an exported policy
    or a search's guide network for other rules (unless ``allow_rules_mismatch``), a cheating style (unless
    ``allow_cheating``) or too few agents (one is enough against a ``field``).

    A checkpoint must also be one this installation signed, unless ``trust``
    (:class:`agents.trust.UntrustedCheckpointError`, :mod:`agents.trust`). A refusal that an
    allowance lifts names it as the caller gives it: the keyword argument
    (``allow_rules_mismatch=True``, ``allow_cheating=True``), or with ``cli`` (``uno-env
    tournament``) the command-line option (``--allow-rules-mismatch``, ``--allow-cheating``).
    """
    hints = CLI_HINTS if cli else PYTHON_HINTS
    specs, field_spec = agent_specs(agents, field)
    names = [s.text for s in specs]
    if field_spec is not None:
        if field_spec.text in names:
            raise ValueError(f"the field {field_spec.text!r} is also listed as an agent: {names}")
        if not specs:
            raise ValueError("a gauntlet needs at least one agent against the field")
        specs = [*specs, field_spec]
        names.append(field_spec.text)
    elif len(specs) < players:
        raise ValueError(f"{players} players need at least {players} agents, got {len(specs)}: {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"an agent is listed twice: {names}")
    twice = same_agent_twice(specs)
    if twice is not None:
        raise ValueError(
            f"agents {twice[0]!r} and {twice[1]!r} play alike (one style, its defaults written out or an "
            f"alias): a tournament would rank an agent against itself; list it once: {names}"
        )
    for spec in specs:
        if spec.kind == "checkpoint":
            check_policy_metadata(
                load_policy_metadata(spec.target),
                rules,
                num_players=players,
                source=f"checkpoint {spec.target}",
            )
            check_trusted(checkpoint_path(spec.target), metadata_path(spec.target), trust=trust)
        elif spec.networks or spec.kind == "object":  # an exported policy, a search guided by one, an object
            check_seated_networks(
                [spec], rules, players, allow_rules_mismatch=allow_rules_mismatch, allow_with=hints["rules"]
            )
        if spec.cheats and not allow_cheating:
            raise ValueError(
                f"agent {spec.text!r} cheats (it sees the other hands): {hints['cheating']} to rank it as an "
                "upper bound"
            )


def seatings(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The seat orders a table is played in: all permutations up to 4 players, else rotations."""
    n = len(table)
    if n <= ALL_SEATINGS_UP_TO:
        return list(itertools.permutations(table))
    return [tuple(table[(r + j) % n] for j in range(n)) for r in range(n)]


@dataclass(frozen=True)
class TournamentTask:
    """One batch: deals ``[first, first + count)`` at one table in one seating."""

    id: str
    rules: RuleSet
    table: int
    seating_index: int
    seating: tuple[str, ...]
    seed: int
    first: int
    count: int
    compiled: bool
    agents: tuple[AgentSpec, ...] = ()
    """The seats' agents (their names are ``seating``); empty: read from the names."""
    decision_seconds: float | None = None
    """The time budget of one decision of an agent in the worker's process (Python agents;
    :func:`agents.match.play_deals`); None: none. It never changes the games played."""

    def seat_agents(self) -> tuple[AgentSpec, ...]:
        """The agent spec of every seat."""
        return self.agents or tuple(parse_agent(name) for name in self.seating)


def tables(
    agents: Sequence[str], players: int, field: str | None = None
) -> list[tuple[tuple[str, ...], list[tuple[str, ...]]]]:
    """The tables with their seatings: every combination of ``players`` agents in
    :func:`seatings`, or against a ``field`` each agent with ``players - 1`` copies of it, the
    agent in every seat."""
    if field is None:
        return [(table, seatings(table)) for table in itertools.combinations(agents, players)]
    out = []
    for agent in agents:
        table = (agent,) + (field,) * (players - 1)
        out.append((table, [tuple(table[(r + j) % players] for j in range(players)) for r in range(players)]))
    return out


def size_line(agents: Sequence[str], players: int, games: int, field: str | None = None) -> str:
    """``500 deals x 6 tables x 2 seatings = 6,000 games``: what ``--games`` (deals, each played
    at every seating of every table) comes to."""
    layout = tables(agents, players, field)
    seated = sum(len(s) for _, s in layout)
    per_table = len(layout[0][1]) if layout else 0
    return (
        f"{games:,} deals x {len(layout)} table{'s' if len(layout) != 1 else ''} x {per_table} seatings "
        f"= {games * seated:,} games"
    )


def plan(
    rules: RuleSet,
    players: int,
    agents: Sequence[Any],
    games: int,
    seed: int,
    batch_games: int = 50_000,
    field: Any = None,
    decision_seconds: float | None = None,
) -> list[TournamentTask]:
    """Every batch of a tournament, in a fixed order (table, seating, deal chunk)."""
    specs, field_spec = agent_specs(agents, field)
    everyone = [*specs, *([field_spec] if field_spec is not None else [])]
    by_name = {s.text: s for s in everyone}
    compiled = all(s.compiled for s in everyone)
    chunk = deals_per_batch(everyone, batch_games)
    names = [s.text for s in specs]
    field_name = None if field_spec is None else field_spec.text
    out = []
    for t, (_, table_seatings) in enumerate(tables(names, players, field_name)):
        for s, seating in enumerate(table_seatings):
            for c, first in enumerate(range(0, games, chunk)):
                out.append(
                    TournamentTask(
                        f"t{t:03d}_s{s:03d}_c{c:05d}",
                        rules,
                        t,
                        s,
                        tuple(seating),
                        seed,
                        first,
                        min(chunk, games - first),
                        compiled,
                        tuple(by_name[name] for name in seating),
                        decision_seconds,
                    )
                )
    return out


def deals_per_batch(agents: Sequence[Any], batch_games: int) -> int:
    """Deals of one batch: ``batch_games``, at most 200 when an agent plays in Python (slow games)."""
    compiled = all(as_spec(a).compiled for a in agents)
    return max(1, batch_games if compiled else min(batch_games, SLOW_BATCH_GAMES))


FAST_BATCH_GAMES = 50_000
"""Deals of a batch when every agent is a fast compiled style or network (seconds a batch)."""
SLOW_BATCH_GAMES = 200
"""Deals of a batch when an agent searches or plays in Python: milliseconds a decision, so a
batch of 200 deals takes about a minute and the progress line moves."""
_SEARCHING_STYLES = frozenset(s.name for s in (*SEARCH_STYLES, *MONTE_CARLO_STYLES))


def searches(agent: Any) -> bool:
    """Whether an agent is a compiled style that searches at every decision (``search``,
    ``oracle``, ``monte_carlo``...): compiled, but thousands of times slower than a scripted
    style."""
    spec = as_spec(agent)
    if spec.kind != "style":
        return False
    base = spec.target.partition(":")[0].strip()
    return STYLE_ALIASES.get(base, base) in _SEARCHING_STYLES


def default_batch_games(agents: Sequence[Any]) -> int:
    """The batch size a new tournament of ``agents`` (the field included) records: 200 deals
    when one of them searches or plays in Python, else 50,000."""
    slow = any(searches(a) or not as_spec(a).compiled for a in agents)
    return SLOW_BATCH_GAMES if slow else FAST_BATCH_GAMES


def check_tournament_size(
    agents: Sequence[Any], players: int, games: int, seed: int, batch_games: int, field: Any = None
) -> None:
    """Refuse, before anything runs, a tournament too large to plan or whose deal seeds leave the range."""
    if batch_games < 1:
        raise ValueError(f"batch_games must be at least 1, got {batch_games}")
    chunk = deals_per_batch([*agents, *([field] if field is not None else [])], batch_games)
    if field is not None:  # a gauntlet: one table per agent, in every seat
        batches = len(agents) * players * math.ceil(games / chunk)
    else:
        orders = math.factorial(players) if players <= ALL_SEATINGS_UP_TO else players
        batches = math.comb(len(agents), players) * orders * math.ceil(games / chunk)
    check_size(batches, min(chunk, games), "this tournament", "fewer agents or games")
    if seed + games - 1 > 2**63 - 1:
        raise ValueError(
            f"deal d is dealt with seed + d, and seeds end at 2**63 - 1: with {games:,} deals the seed must "
            f"be at most {2**63 - games:,}, got {seed:,}"
        )


BATCH_ARRAYS = ("winner", "length", "turns", "ranking", "scores", "seed", "key")
"""The arrays of a batch file (``turns`` is missing from batches written before turns were counted)."""


def batch_arrays(task: TournamentTask) -> dict[str, files.ArraySpec]:
    """What a batch file of ``task`` holds: each array's dtype and shape."""
    games, seats = task.count, len(task.seating)
    return {
        "winner": files.ArraySpec("int64", (games,)),
        "length": files.ArraySpec("int64", (games,)),
        "turns": files.ArraySpec("int64", (games,)),
        "ranking": files.ArraySpec("int64", (games, seats)),
        "scores": files.ArraySpec("int64", (games, seats)),
        "seed": files.ArraySpec("int64", ()),
        "key": files.ArraySpec("<U64", ()),
    }


def read_batch(task: TournamentTask, path: Path) -> dict[str, np.ndarray]:
    """A batch file of ``task`` (:func:`uno_env.files.read_npz`: every array of exactly its
    dtype and shape, headers checked before data); a :class:`uno_env.files.FileError` line
    otherwise."""
    spec = batch_arrays(task)
    limit = sum(a.largest() + 1024 for a in spec.values()) + 64 * files.KiB
    data = files.read_npz(path, "batch file", spec, limit, optional=frozenset({"turns", "seed", "key"}))
    seats = len(task.seating)
    for name, low, high in (("winner", -1, seats - 1), ("ranking", -1, seats - 1), ("length", 0, None)):
        values = data[name]
        bad = values < low if high is None else (values < low) | (values > high)
        if values.size and bad.any():
            found = f"holds {int(values[bad].flat[0]):,}"
            allowed = f"{low}..{high}" if high is not None else f"at least {low}"
            raise files.refuse(f"batch file {path}", f"array {name!r}", found, allowed)
    return data


def task_key(task: TournamentTask) -> str:
    """SHA-256 of everything that decides a batch's games (stored in its result file)."""
    fields = [TOURNAMENT_FORMAT, str(task.rules), list(task.seating), task.seed, task.first, task.count]
    return hashlib.sha256(json.dumps(fields).encode("utf-8")).hexdigest()


def scan_batches(tasks: Sequence[TournamentTask], out: Path) -> list[TournamentTask]:
    """The batches still to run: missing, unreadable (redone, with a message) or without a key.

    A result file whose key differs from its task's was played for another tournament
    (another seed or agents): ValueError, nothing is mixed.
    """
    todo = []
    for task in tasks:
        path = out / "batches" / f"{task.id}.npz"
        if not path.exists():
            todo.append(task)
            continue
        try:
            data = read_batch(task, path)
        except files.FileError as exc:
            print(f"{exc}; playing it again", file=sys.stderr)
            todo.append(task)
            continue
        key = str(data["key"]) if "key" in data else None
        complete = all(name in data for name in ("winner", "length", "ranking", "scores"))
        if key is None or not complete:
            print(f"batch file {path} is incomplete or has no key; playing it again", file=sys.stderr)
            todo.append(task)
        elif key != task_key(task):
            raise ValueError(
                f"{path} was played for another tournament (another seed, agents or rules than "
                f"{out / 'tournament.json'} records); batches of two tournaments are never mixed: start "
                "a new tournament in a new folder"
            )
    return todo


# ================================================================ playing a batch
def _play_python(task: TournamentTask) -> dict[str, np.ndarray]:
    """Play a batch through the :class:`uno_env.Game` loop (an agent that is not compiled plays)."""

    # run_tournament checked every checkpoint's signature (or the user's trust) before any batch ran
    seeds = [task.seed + task.first + i for i in range(task.count)]
    result = play_deals(
        task.rules, list(task.seat_agents()), seeds, trust=True, decision_seconds=task.decision_seconds
    )
    return {key: result[key] for key in ("winner", "length", "turns", "ranking", "scores")}


def run_task(task: TournamentTask) -> dict[str, Any]:
    """Play one batch; return its id and per-game arrays (winner, length in decisions, turns,
    ranking, scores)."""
    if task.compiled:
        result = uno_env.simulate(
            task.rules,
            len(task.seating),
            task.count,
            seed=task.seed + task.first,
            policies=[agent.policy for agent in task.seat_agents()],
            allow_rules_mismatch=True,  # run_tournament checked every network before any batch
        )
        arrays = {
            "winner": result.winner,
            "length": result.length,
            "turns": result.turns,
            "ranking": result.ranking,
            "scores": result.scores,
        }
    else:
        arrays = _play_python(task)
    return {"id": task.id, **arrays}


# ================================================================ the tournament
def _read_meta(path: Path) -> Any:
    """A tournament folder's ``tournament.json`` (what ``--resume`` compares)."""
    meta = files.read_json(path, "tournament record")
    if isinstance(meta, dict) and isinstance(meta.get("rules"), str):
        # the rules as a value: a folder written with every field resumes as the same design;
        # a string that is no rule set is left as written, differs, and the resume says so
        with contextlib.suppress(RuleError):
            meta["rules"] = str(RuleSet.parse(meta["rules"]))
    return meta


@dataclass
class TournamentResult:
    """What a tournament produced: the standings, the per-game table and the output folder;
    for a gauntlet also every pair of agents compared by deal (:func:`gauntlet_pairs`)."""

    standings: pd.DataFrame
    games: pd.DataFrame
    out: Path
    pairs: pd.DataFrame | None = None


def games_table(tasks: Sequence[TournamentTask], out: Path) -> pd.DataFrame:
    """One row per game from the batch files, ordered deal by deal, then table and seating."""
    import pandas as pd

    frames = []
    for task in tasks:
        data = read_batch(task, out / "batches" / f"{task.id}.npz")
        n = len(task.seating)
        frame = pd.DataFrame(
            {
                "deal": np.arange(task.first, task.first + task.count),
                "seed": task.seed + np.arange(task.first, task.first + task.count),
                "table": task.table,
                "seating_index": task.seating_index,
                "seating": "|".join(task.seating),
                "winner_seat": data["winner"],
                "length": data["length"],
                # batches written before turns were counted have none (-1)
                "turns": data["turns"] if "turns" in data else np.full(task.count, -1),
            }
        )
        winners = data["winner"]
        frame["winner"] = [task.seating[w] if w >= 0 else "" for w in winners]
        ranking = data["ranking"]
        frame["ranking"] = ["|".join(task.seating[s] for s in row) if row[0] >= 0 else "" for row in ranking]
        # by seat too: a gauntlet seats several copies of its field agent
        frame["ranking_seats"] = ["|".join(str(s) for s in row) if row[0] >= 0 else "" for row in ranking]
        for seat in range(n):
            frame[f"score_{seat}"] = data["scores"][:, seat]
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    return table.sort_values(["deal", "table", "seating_index"], kind="stable").reset_index(drop=True)


def standings(
    agents: Sequence[str], games: pd.DataFrame, players: int, field: str | None = None
) -> pd.DataFrame:
    """Per-agent win rate, mean rank, points and Plackett-Luce strength with 95% intervals,
    and the OpenSkill rating.

    Against a ``field`` (a gauntlet) the field's copies share one rating held at the prior:
    the reference the agents are rated against; the field has a row of its own.

    The deal is the unit of the intervals (every deal is played at every table and seating,
    so an agent's games of one deal are not independent): each rate and mean is the ratio of
    the agent's per-deal totals, with a cluster-robust standard error over the deals
    (:func:`uno_env.stats.grouped_ratio`); the win rate's interval is the Wilson interval at
    the effective sample size; the strength's is cluster-robust over the deals as well
    (:func:`uno_env.stats.plackett_luce`).
    """
    import pandas as pd
    from openskill.models import PlackettLuce

    seats_of = [s.split("|") for s in games["seating"]]
    rankings = [r.split("|") if r else [] for r in games["ranking"]]
    model = PlackettLuce(tau=0.0)  # fixed strategies: no skill drift between games
    agents = [*agents, *([field] if field is not None else [])]
    ratings = {a: model.rating(name=a) for a in agents}
    for order in rankings:
        if order:
            teams = [[ratings[a]] for a in order]
            updated = model.rate(teams, ranks=list(range(1, len(order) + 1)))
            for agent, team in zip(order, updated, strict=True):
                if agent != field:
                    ratings[agent] = team[0]
    strength = _strengths(agents, games["deal"].to_numpy(), rankings)
    if "ranking_seats" in games:
        seat_rankings = [
            [int(s) for s in r.split("|")] if isinstance(r, str) and r else [] for r in games["ranking_seats"]
        ]
    else:  # games of a tournament without a field: names are unique within a game
        seat_rankings = [
            [seats.index(a) for a in order] for seats, order in zip(seats_of, rankings, strict=True)
        ]
    long = _seat_games(games, seats_of, seat_rankings, players)
    per_deal = long.groupby(["agent", "deal"], sort=True).agg(
        seat_games=("won", "size"), wins=("won", "sum"), ranked=("rank", "count"),
        rank_sum=("rank", "sum"), points=("points", "sum"),
    )  # fmt: skip
    rows = []
    for agent in agents:
        part = per_deal.loc[agent] if agent in per_deal.index.get_level_values(0) else per_deal.iloc[:0]
        n = int(part["seat_games"].sum())
        wins = int(part["wins"].sum())
        win = grouped_ratio(part["wins"].to_numpy(), part["seat_games"].to_numpy())
        lo, hi = win.proportion_interval()
        rank = grouped_ratio(part["rank_sum"].to_numpy(), part["ranked"].to_numpy())
        rank_lo, rank_hi = rank.bounded_interval(1, players)  # a rank lies in 1..players
        pts = grouped_ratio(part["points"].to_numpy(), part["seat_games"].to_numpy())
        points_lo, points_hi = pts.bounded_interval(*POINTS_RANGE)  # points are never negative
        r = ratings[agent]
        s_lo, s_hi = strength[agent].interval()
        rows.append(
            {
                "agent": agent,
                "games": n,
                "deals": len(part),
                "wins": wins,
                "win_rate": wins / n if n else math.nan,
                "win_lo": lo,
                "win_hi": hi,
                "mean_rank": rank.value,
                "rank_lo": rank_lo,
                "rank_hi": rank_hi,
                "points_per_game": pts.value,
                "points_lo": points_lo,
                "points_hi": points_hi,
                "strength": strength[agent].value,
                "strength_lo": s_lo,
                "strength_hi": s_hi,
                "rating_mu": r.mu,
                "rating_sigma": r.sigma,
                "rating_ordinal": r.ordinal(),
            }
        )
    table = pd.DataFrame(rows)
    order = table.sort_values(["strength", "rating_ordinal"], ascending=False, kind="stable")
    return order.reset_index(drop=True)


FDR_LEVEL = 0.05
"""The false-discovery rate at which :func:`gauntlet_pairs` marks a difference as detected."""

MAX_PAIRS_SHOWN = 28
"""The most pairs printed on screen (eight agents); more are only written to ``pairs.csv``."""


def gauntlet_pairs(agents: Sequence[str], games: pd.DataFrame) -> pd.DataFrame:
    """Every pair of a gauntlet's agents compared on the same deals: the first's win rate
    against the field minus the second's, paired by deal.

    In a gauntlet every agent plays every deal in the same seatings against the same field, so
    what a deal's cards do to both cancels in the difference
    (:func:`uno_env.stats.paired_difference`, cluster-robust over the deals, Student-t interval
    on ``deals - 1`` degrees of freedom): far tighter than comparing two standings intervals.
    ``agents`` is the order of the pairs (the standings' order: the stronger first). Comparing
    ``k`` agents makes ``k (k - 1) / 2`` tests, so each carries its Benjamini-Hochberg adjusted
    p-value over all of them, and ``detected`` marks the differences found at a false-discovery
    rate of :data:`FDR_LEVEL`.

    Columns: ``agent``, ``other``, ``difference``, ``diff_lo``, ``diff_hi``, ``deals``,
    ``p_value``, ``p_adjusted``, ``detected``.
    """
    import pandas as pd

    deals = np.sort(games["deal"].unique())
    seated = games["seating"].str.split("|")

    def by_deal(agent: str) -> tuple[np.ndarray, np.ndarray]:
        # an agent of a gauntlet sits once at each of its games (the field's copies share the
        # field's name), so its wins are the games the winner column names it in
        own = games[[agent in seats for seats in seated]]
        wins = (own["winner"] == agent).groupby(own["deal"]).sum().reindex(deals, fill_value=0)
        played = own.groupby("deal").size().reindex(deals, fill_value=0)
        return wins.to_numpy(np.float64), played.to_numpy(np.float64)

    counts = {agent: by_deal(agent) for agent in agents}
    rows = []
    for first, second in itertools.combinations(agents, 2):
        est = paired_difference(*counts[first], *counts[second])
        lo, hi = est.interval()
        rows.append(
            {
                "agent": first,
                "other": second,
                "difference": est.value,
                "diff_lo": lo,
                "diff_hi": hi,
                "deals": est.groups,
                "p_value": est.p_value(),
            }
        )
    columns = ["agent", "other", "difference", "diff_lo", "diff_hi", "deals", "p_value"]
    table = pd.DataFrame(rows, columns=columns)
    table["p_adjusted"] = benjamini_hochberg(table["p_value"].to_numpy())
    table["detected"] = table["p_adjusted"] <= FDR_LEVEL
    return table


def format_pairs(frame: pd.DataFrame) -> str:
    """The pairs of :func:`gauntlet_pairs` as fixed-width lines for the screen."""
    labels = [
        f"{agent_label(a)} - {agent_label(b)}" for a, b in zip(frame["agent"], frame["other"], strict=True)
    ]
    width = max(4, *(len(label) for label in labels)) if labels else 4
    lines = [f"{'pair':<{width}}  {'win rate difference [95%]':<25}  {'p (BH)':>8}  detected"]
    for label, (_, r) in zip(labels, frame.iterrows(), strict=True):
        difference = f"{r['difference']:+6.1%} [{r['diff_lo']:+6.1%}, {r['diff_hi']:+6.1%}]"
        lines.append(
            f"{label:<{width}}  {difference:<25}  {r['p_adjusted']:8.3f}  {'yes' if r['detected'] else 'no'}"
        )
    return "\n".join(lines)


def _strengths(agents: Sequence[str], deals: np.ndarray, rankings: list[list[str]]) -> dict[str, Any]:
    """Each agent's Plackett-Luce strength (a :class:`uno_env.stats.GroupedEstimate`), from the
    games that ended, errors grouped by deal."""
    index = {a: i for i, a in enumerate(agents)}
    ranked = [i for i, order in enumerate(rankings) if order]
    orders = np.array([[index[a] for a in rankings[i]] for i in ranked], dtype=np.int64)
    if not ranked:
        orders = np.zeros((0, 2), dtype=np.int64)
    fit = plackett_luce(orders, deals[ranked], len(agents))
    return {a: fit.estimate(i) for a, i in index.items()}


def _seat_games(
    games: pd.DataFrame, seats_of: list[list[str]], seat_rankings: list[list[int]], players: int
) -> pd.DataFrame:
    """One row per seat-game: deal, agent, won (0/1), rank (NaN when truncated), points.

    ``seat_rankings[i]`` lists game ``i``'s seats best first (empty when truncated)."""
    import pandas as pd

    count = len(games)
    agent = np.array(seats_of, dtype=object).reshape(count, players)
    winner = games["winner_seat"].to_numpy()
    rank = np.full((count, players), np.nan)
    for i, order in enumerate(seat_rankings):
        for place, seat in enumerate(order, start=1):
            rank[i, seat] = place
    points = np.stack([games[f"score_{s}"].to_numpy() for s in range(players)], axis=1)
    return pd.DataFrame(
        {
            "deal": np.repeat(games["deal"].to_numpy(), players),
            "agent": agent.ravel(),
            "won": (winner[:, None] == np.arange(players)[None, :]).astype(np.int64).ravel(),
            "rank": rank.ravel(),
            "points": points.ravel().astype(np.float64),
        }
    )


def game_length(games: pd.DataFrame) -> dict[str, float]:
    """Mean game length in turns and in decisions, each with its 95% interval grouped by deal.

    Keys ``turns``, ``turns_lo``, ``turns_hi``, ``decisions``, ``decisions_lo``, ``decisions_hi``
    (turns NaN when the batches predate turn counting).
    """
    out: dict[str, float] = {}
    for name, column in (("turns", "turns"), ("decisions", "length")):
        values = games[column]
        if (values < 0).any():
            out.update({name: math.nan, f"{name}_lo": math.nan, f"{name}_hi": math.nan})
            continue
        per_deal = values.groupby(games["deal"], sort=True).agg(["sum", "size"])
        est = grouped_ratio(per_deal["sum"].to_numpy(), per_deal["size"].to_numpy())
        # a game lasts at least one decision and one turn: the interval stays in that range
        out[name], (out[f"{name}_lo"], out[f"{name}_hi"]) = (
            est.value,
            est.bounded_interval(*GAME_LENGTH_RANGE),
        )
    return out


def run_tournament(
    rules: RuleSet | str | Path,
    players: int,
    agents: Sequence[Any],
    games: int,
    seed: int = 0,
    out: str | PathLike[str] | None = None,
    *,
    executor: str = "process",
    workers: int | None = None,
    ray_address: str | None = None,
    batch_games: int | None = None,
    resume: bool = False,
    progress: bool = True,
    trust_checkpoints: bool = False,
    allow_cheating: bool = False,
    allow_rules_mismatch: bool = False,
    field: Any = None,
    decision_seconds: float | None = None,
) -> TournamentResult:
    """Play a duplicate-format tournament and write its outputs (see the module docstring).

    ``agents``: agent specs (texts of :mod:`agents.spec`), agent objects (with ``act``) or
    factories (classes or functions returning one; each worker process builds its own);
    every agent is named by its spec text, or an object's ``name``, in the tables. ``field``:
    a gauntlet, each agent against ``players - 1`` copies of this agent.

    ``trust_checkpoints`` loads learned policies this installation did not sign
    (``--trust-checkpoint``; :mod:`agents.trust`). ``batch_games``: deals of a batch (one
    seating each; ``None``: :func:`default_batch_games`); recorded, so a resume keeps it.

    ``decision_seconds`` (``--decision-seconds``): a time budget for one decision of a Python
    agent (``FILE.py:NAME``, ``MODULE:ATTR``, an object or factory), which runs in the worker's
    own process: a decision over it ends the tournament with :class:`agents.match.AgentError`
    naming the agent, once the decision has returned (nothing interrupts Python code; an agent
    that never returns still stalls its batch). A ``cmd:`` agent has its protocol's timeout
    instead. The budget is recorded, so a resume keeps it (and a resume with another budget is
    refused as another design).
    """
    ruleset = uno_env.load_rules(rules)
    ruleset.check_players(players)
    specs, field_spec = agent_specs(list(agents), field)
    agents = specs
    field = field_spec
    check_agents(
        agents,
        ruleset,
        players,
        trust=trust_checkpoints,
        allow_cheating=allow_cheating,
        allow_rules_mismatch=allow_rules_mismatch,
        field=field,
    )
    if games < 1:
        raise ValueError(f"games (deals per seating) must be at least 1, got {games}")
    if decision_seconds is not None and (
        isinstance(decision_seconds, bool) or not (math.isfinite(decision_seconds) and decision_seconds > 0)
    ):
        raise ValueError(f"decision_seconds must be a number of seconds > 0, got {decision_seconds!r}")
    if batch_games is None:
        batch_games = default_batch_games([*agents, *([field] if field is not None else [])])
    check_tournament_size(agents, players, games, seed, batch_games, field)
    workers = workers_for(executor, workers, ray_address)
    if workers > 1:  # one worker plays every batch in this process
        check_agents_reach_workers([*agents, *([field] if field is not None else [])], executor)
    if out is None:
        out = default_run_folder("tournament", rules_label(ruleset), f"{players}p", seed)
    out = Path(out)  # a str from Python callers
    meta = {
        "format": TOURNAMENT_FORMAT,
        "rules": str(ruleset),
        "players": players,
        "agents": [a.text for a in specs],
        "games": games,
        "seed": seed,
        "batch_games": batch_games,
    }
    names = [a.text for a in specs]
    field_name = None if field_spec is None else field_spec.text
    if field_name is not None:  # (absent otherwise: earlier tournaments resume unchanged)
        meta["field"] = field_name
    if decision_seconds is not None:  # the same: absent unless given
        meta["decision_seconds"] = decision_seconds
    with claim_run_folder(out, "tournament", "tournament.json", meta, _read_meta, resume=resume):
        text = json.dumps(meta, indent=1) + "\n"  # whole or not at all: a resume reads it
        write_file_atomic(out / "tournament.json", lambda handle: handle.write(text.encode("utf-8")))
        everyone = [*agents, *([field] if field else [])]
        read = sorted({path for agent in everyone for path in agent.files()})  # sent to Ray nodes
        check_agent_files(out, read, "tournament")  # a file replaced since the start: refused
        batches = results_folder(out / "batches")
        tasks = plan(ruleset, players, agents, games, seed, batch_games, field, decision_seconds)
        by_id = {task.id: task for task in tasks}
        todo = scan_batches(tasks, out)
        if progress:
            against = f" against a field of {field_name}" if field_name is not None else ""
            print(
                f"tournament: {len(agents)} agents{against}, {players} players, "
                f"{size_line(names, players, games, field_name)} -> {out}\n"
                f"each finished batch is kept in {out / 'batches'}; after an interruption "
                f"uno-env tournament --resume {out} plays only the missing ones",
                file=sys.stderr,
            )
        if todo and tasks[0].compiled:  # compile (or load) the engine first: progress counts games only
            with compiling("batch", enabled=progress):
                uno_env.simulate(
                    ruleset, players, 1, seed=0, policies=[a.policy for a in tasks[0].seat_agents()],
                    allow_rules_mismatch=True,  # checked above, with the tournament's own allowance
                )  # fmt: skip
        elif todo:
            warm_up("game", enabled=progress)
        bar = Progress(len(todo), enabled=progress)

        def store(result: dict[str, Any]) -> None:
            arrays = {k: v for k, v in result.items() if k != "id"}
            task = by_id[result["id"]]  # the file names its seed and design: never mixed on resume
            arrays.update(seed=np.int64(task.seed), key=np.array(task_key(task)))
            write_file_atomic(batches / f"{result['id']}.npz", lambda handle: np.savez(handle, **arrays))
            bar.update(len(arrays["winner"]))

        run_batches(
            run_task,
            todo,
            store,
            executor=executor,
            workers=workers,
            ray_address=ray_address,
            files=read,
            progress=progress,
        )
        table = games_table(tasks, out)
        ranked = standings(names, table, players, field_name)
        transfers = {agent.text for agent in everyone if agent.plays_a_transfer(ruleset, players)}
        ranked["transfer"] = ranked["agent"].isin(transfers)  # trained for other rules or players
        write_frame(ranked, out / "standings")
        pairs = None
        if field_name is not None:  # same deals, same seatings, same field: differences pair by deal
            listed = [a for a in ranked["agent"] if a != field_name]
            pairs = gauntlet_pairs(listed, table)
            write_frame(pairs, out / "pairs")
        table.to_csv(out / "games.csv", index=False, lineterminator="\n")
        title = f"{rules_label(ruleset)}, {players} players"
        plot_standings(ranked, out / "standings.png", title)
        return TournamentResult(ranked, table, out, pairs)


def plot_standings(frame: pd.DataFrame, path: Path, title: str) -> None:
    """Write :func:`standings_figure` to ``path``."""
    import matplotlib.pyplot as plt

    fig = standings_figure(frame, title)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def standings_figure(frame: pd.DataFrame, title: str) -> Figure:
    """Win rates and Plackett-Luce strengths with their 95% intervals, one row per agent
    (constrained layout: every label inside the picture)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 1.8 + 0.45 * len(frame)), layout="constrained")
    y = np.arange(len(frame))
    labels = [agent_label(a) for a in frame["agent"]]
    rate = frame["win_rate"] * 100
    left.barh(y, rate, color="C0")
    left.errorbar(
        rate,
        y,
        xerr=[np.maximum(0, rate - frame["win_lo"] * 100), np.maximum(0, frame["win_hi"] * 100 - rate)],
        fmt="none",
        color="k",
    )
    left.set_yticks(y, labels)
    left.invert_yaxis()
    left.set_xlabel("win rate (%)\n95% interval grouped by deal")
    right.errorbar(
        frame["strength"],
        y,
        xerr=[frame["strength"] - frame["strength_lo"], frame["strength_hi"] - frame["strength"]],
        fmt="o",
        color="C1",
    )
    right.axvline(0.0, color="0.6", lw=0.8)
    right.set_yticks(y, labels)
    right.invert_yaxis()
    right.set_xlabel("Plackett-Luce strength\n95% interval grouped by deal")
    fig.suptitle(title)
    return fig


def agent_label(agent: str) -> str:
    """An agent as reports name it: an alias spelled out (``random`` reads ``random_legal``, so
    every table says which random player it means); a file by its name, without its folder; a
    style's parameter naming a file (``search:net=runs/x/net.npz,top=3``) the same, keeping the
    style and its other parameters (``search:net=net.npz,top=3``); a ``cmd:`` program keeps its
    prefix, its words that name files by their names (``cmd:python3 agent.py``); an ``llm:``
    agent is named by its whole spec (a URL is no file path)."""
    name, sep, params = agent.partition(":")
    if name == "llm":
        return agent
    if name == "cmd":
        return "cmd:" + " ".join(Path(word).name if "/" in word else word for word in params.split(" "))
    if name in STYLE_ALIASES:
        return STYLE_ALIASES[name] + sep + params
    if name in STYLES and sep:
        parts = [key + eq + (Path(value).name if "/" in value or os.sep in value else value)
                 for key, eq, value in (part.partition("=") for part in params.split(","))]  # fmt: skip
        return name + sep + ",".join(parts)
    if "/" in agent or os.sep in agent:
        head, sep, attr = agent.rpartition(".py:")
        return f"{Path(head).name}.py:{attr}" if sep else Path(agent).name
    return agent


def format_standings(frame: pd.DataFrame) -> str:
    """The standings as a fixed-width table for the screen."""
    transfer = frame["transfer"] if "transfer" in frame else [False] * len(frame)
    frame = frame.assign(
        agent=[
            agent_label(a) + (" (transfer)" if t else "")
            for a, t in zip(frame["agent"], transfer, strict=True)
        ]
    )
    width = max(5, *(len(a) for a in frame["agent"]))
    lines = [
        f"{'agent':<{width}}  {'games':>8}  {'win rate [95%]':<24}  {'mean rank [95%]':<18}  "
        f"{'points/game [95%]':<20}  {'strength [95%]':<22}  {'rating mu':>9}"
    ]
    for _, r in frame.iterrows():
        rank = f"{r['mean_rank']:.2f} [{r['rank_lo']:.2f}, {r['rank_hi']:.2f}]"
        points = f"{r['points_per_game']:.1f} [{r['points_lo']:.1f}, {r['points_hi']:.1f}]"
        lines.append(
            f"{r['agent']:<{width}}  {r['games']:>8,}  "
            f"{r['win_rate']:6.1%} [{r['win_lo']:5.1%}, {r['win_hi']:5.1%}]    "
            f"{rank:<18}  {points:<20}  "
            f"{r['strength']:+6.2f} [{r['strength_lo']:+.2f}, {r['strength_hi']:+.2f}]  {r['rating_mu']:9.2f}"
        )
    return "\n".join(lines)


# ================================================================ command line
DESIGN_DEFAULTS: dict[str, Any] = {
    "rules": "uno",
    "players": 2,
    "agents": "greedy,aggressor,controller,blocker",
    "games": 2000,
    "seed": 0,
    "batch_games": None,
}
"""The command line's design options and their defaults for a new tournament (``batch_games``
``None``: :func:`default_batch_games`); ``--resume DIR`` reads the design from
``DIR/tournament.json`` instead and refuses these options."""


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rule_arguments(parser, resumable=True)
    parser.add_argument("--players", type=int, default=None, help="players per game (default: 2)")
    parser.add_argument(
        "--agents",
        default=None,
        help="agents separated by commas, any agent spec: styles (bluffer:bluff=0.3), shipped or exported "
        "policies (ppo_uno_2p, ./p.npz), checkpoints (.zip), FILE.py:NAME and MODULE:ATTR (runs that "
        "code), cmd:COMMAND, llm:...; docs/agents.md#agent-specs "
        "(default: greedy,aggressor,controller,blocker)",
    )
    parser.add_argument(
        "--games", type=int, default=None, help="deals, each played in every seating (default: 2000)"
    )
    parser.add_argument("--seed", type=int, default=None, help="deal d uses seed + d (default: 0)")
    parser.add_argument(
        "--batch-games",
        type=int,
        default=None,
        metavar="N",
        help="deals of one seating per batch, the unit of progress and of resume (the games do not "
        "depend on it; default: 200 when an agent searches or plays in Python, else 50,000)",
    )
    add_run_arguments(
        parser, "tournament", "where batches run", "runs/tournament__<rules>__<N>p__<seed>__<time>"
    )
    add_trust_argument(parser)
    parser.add_argument(
        "--field",
        default=None,
        metavar="AGENT",
        help="a gauntlet: each agent plays against players-1 copies of AGENT, in every seat",
    )
    parser.add_argument(
        "--allow-cheating",
        action="store_true",
        help="admit agents that see the hidden cards (the oracle), ranked as an upper bound",
    )
    add_rules_mismatch_argument(parser)
    parser.add_argument(
        "--decision-seconds",
        type=float,
        default=None,
        metavar="S",
        help="time budget of one decision of a Python agent (FILE.py:NAME, MODULE:ATTR): one over it "
        "ends the tournament naming the agent, once the decision returns (it is never interrupted; "
        "cmd: agents have their own 60 s timeout; recorded, so --resume keeps it). Default: none",
    )


def recorded_design(folder: Path) -> dict[str, Any]:
    """The design a tournament folder records (``tournament.json``), checked field by field:
    what ``uno-env tournament --resume DIR`` continues."""
    record = folder / "tournament.json"
    if not record.exists() and not record.is_symlink():
        raise ValueError(f"{folder} holds no tournament to resume (no tournament.json)")
    meta = files.read_json_object(record, "tournament record")
    source = f"tournament record {record}"

    def refused(key: str, allowed: str) -> ValueError:
        return files.refuse(source, key, f"is {files.describe(meta.get(key))}", allowed)

    if meta.get("format") != TOURNAMENT_FORMAT:
        raise refused("format", repr(TOURNAMENT_FORMAT))
    if not isinstance(meta.get("rules"), str):
        raise refused("rules", "a canonical rules string")
    try:
        rules = RuleSet.parse(meta["rules"])
    except uno_env.RuleError as exc:
        raise files.refuse(source, "rules", f"do not parse ({exc})", "a canonical rules string") from None
    for key, low in (("players", 2), ("games", 1), ("seed", 0), ("batch_games", 1)):
        value = meta.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise refused(key, f"an integer of at least {low}")
    agents = meta.get("agents")
    if not isinstance(agents, list) or not agents or not all(isinstance(a, str) for a in agents):
        raise refused("agents", "a non-empty list of agent names")
    field = meta.get("field")
    if field is not None and not isinstance(field, str):
        raise refused("field", "an agent name or absent")
    budget = meta.get("decision_seconds")
    if budget is not None and (
        isinstance(budget, bool)
        or not isinstance(budget, (int, float))
        or not math.isfinite(budget)
        or budget <= 0
    ):
        raise refused("decision_seconds", "a number of seconds > 0 or absent")
    return {
        "rules": rules,
        "players": meta["players"],
        "agents": agents,
        "games": meta["games"],
        "seed": meta["seed"],
        "batch_games": meta["batch_games"],
        "field": field,
        "decision_seconds": budget,
    }


def cmd_tournament(args: argparse.Namespace) -> int:
    """Run ``uno-env tournament`` from parsed arguments."""

    given = [
        f"--{name.replace('_', '-')}"
        for name in (*DESIGN_DEFAULTS, "field")
        if getattr(args, name) is not None
    ]
    given += ["--set"] if args.overrides else []
    given += ["--out"] if args.out is not None else []  # the folder is DIR: another would be ignored
    if args.resume is not None:
        if given:
            raise ValueError(
                f"--resume DIR continues the tournament recorded in DIR/tournament.json; do not give "
                f"{', '.join(given)}"
            )
        design = recorded_design(args.resume)
        out = args.resume
        budget = design["decision_seconds"]
        if args.decision_seconds is not None and args.decision_seconds != budget:
            recorded = "none" if budget is None else f"--decision-seconds {budget:g}"
            raise ValueError(
                f"--resume DIR continues the tournament with the decision budget it recorded ({recorded}); "
                f"do not give --decision-seconds {args.decision_seconds:g}"
            )
    else:
        values = {name: default if getattr(args, name) is None else getattr(args, name)
                  for name, default in DESIGN_DEFAULTS.items()}  # fmt: skip
        rules = resolve_rules(values["rules"], args.overrides)
        check_player_count(rules, values["players"])
        design = {
            "rules": rules,
            "players": values["players"],
            "agents": split_agents(values["agents"]),
            "games": values["games"],
            "seed": values["seed"],
            "batch_games": values["batch_games"],
            "field": args.field,
            "decision_seconds": args.decision_seconds,
        }
        out = args.out
    field = [design["field"]] if design["field"] else []
    require(
        "tournament",
        merge(
            {"study": RATINGS}, checkpoint_needs([*design["agents"], *field]), executor_needs(args.executor)
        ),
        resume_dir=args.resume,
        keeps="a tournament writes each finished batch into its run folder as it goes; after an "
        "interruption uno-env tournament --resume DIR plays only the missing ones",
    )
    # checked here first so that a refusal names the command-line option that lifts it
    # (run_tournament names its keyword argument)
    ruleset = uno_env.load_rules(design["rules"])
    ruleset.check_players(design["players"])
    check_agents(
        design["agents"],
        ruleset,
        design["players"],
        trust=args.trust_checkpoint,
        allow_cheating=args.allow_cheating,
        allow_rules_mismatch=args.allow_rules_mismatch,
        field=design["field"],
        cli=True,
    )
    result = run_tournament(
        design["rules"],
        design["players"],
        design["agents"],
        design["games"],
        design["seed"],
        out,
        **run_options(args),
        batch_games=design["batch_games"],
        trust_checkpoints=args.trust_checkpoint,
        allow_cheating=args.allow_cheating,
        allow_rules_mismatch=args.allow_rules_mismatch,
        field=design["field"],
        decision_seconds=design["decision_seconds"],
    )
    size = size_line(design["agents"], design["players"], design["games"], design["field"])
    print(
        f"{rules_label(design['rules'])}, {design['players']} players: {size} "
        "(--games counts deals; each deal is played at every seating of every table)\n"
    )
    print(format_standings(result.standings))
    length = game_length(result.games)
    print(
        f"\nmean game length (95%, grouped by deal): {length['turns']:.1f} turns "
        f"[{length['turns_lo']:.1f}, {length['turns_hi']:.1f}] (a player enters the play phase), "
        f"{length['decisions']:.1f} decisions [{length['decisions_lo']:.1f}, {length['decisions_hi']:.1f}] "
        "(every choice, colours and answers included)"
    )
    truncated = int((result.games["winner_seat"] < 0).sum())
    if truncated:
        # a policy that never ends its games reads as merely losing unless the count is shown
        print(
            f"truncated games: {truncated:,} of {len(result.games):,} stopped at the decision limit with no "
            "winner (counted as not won, left out of ranks, strengths and ratings; winner_seat -1 in "
            "games.csv)"
        )
    if result.pairs is not None and len(result.pairs):
        print(
            f"\nagents against the field, paired by deal ({len(result.pairs)} pairs; detected: "
            f"Benjamini-Hochberg at {FDR_LEVEL:.0%} false discoveries; all pairs in "
            f"{result.out / 'pairs.csv'})"
        )
        if len(result.pairs) <= MAX_PAIRS_SHOWN:
            print(format_pairs(result.pairs))
    print(f"\nstandings: {result.out / 'standings.csv'}, plot: {result.out / 'standings.png'}")
    return 0


COMMAND = Subcommand(
    "tournament",
    "duplicate-format tournament of styles and learned policies",
    _add_arguments,
    cmd_tournament,
    description=__doc__,
)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())
