"""One batch of a study: its games played and counted per deal.

:func:`run_batch` plays a :class:`~training.study.plan.BatchTask` in the compiled batch
simulator (scripted styles, exported policies) or, for seatings with a MaskablePPO
checkpoint, in :func:`play_learned`'s Python loop with batched inference, and returns the
per-deal counts the statistics use (:data:`STYLE_ARRAYS`, :data:`DEAL_ARRAYS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import agents
import uno_env
from agents.match import DealResults, play_deals
from agents.policy_agent import checkpoint_path
from agents.spec import parse_agent
from training.common import set_torch_threads
from training.evaluate import load_checkpoint_actor
from training.runner import node_file
from uno_env.engine.rules import RuleSet, compile_spec
from uno_env.envs.common import seat_seed
from uno_env.game.encoding import observe_state
from uno_env.styles.view import PublicView

from .planning import BatchTask
from .spec import LEARNED, LEARNED_CHUNK, STUDY_FORMAT, StudySpec, is_checkpoint, is_python_agent


def run_batch(task: BatchTask) -> dict[str, Any]:
    """Play one batch and return its counts (JSON-ready; integers only, no timings).

    Everything is kept *per deal* (lists over the batch's deals, summed over its seatings), so
    the statistics can take the deal as the unit and pair variants deal by deal: per style
    (``slots``: the seats it holds over the batch's seatings, i.e. its seat-games per deal)
    its wins, points, rank sum and ranked games; per seat its wins; the first mover's wins;
    the decisions, turns and truncated games. In reference seatings only the style measured
    against the reference is counted per style. Length histograms (decisions, turns) give
    the quantiles.
    """
    n, count = task.players, task.count
    counted = [
        s for s in task.styles if task.kind == "field" or s != task.reference
    ]  # the styles with rows in this kind of seating
    slots = dict.fromkeys(counted, 0)
    per_style = {key: {s: np.zeros(count, dtype=np.int64) for s in counted} for key in STYLE_ARRAYS}
    seat_wins = np.zeros((n, count), dtype=np.int64)
    cell = {key: np.zeros(count, dtype=np.int64) for key in DEAL_ARRAYS}
    hists: dict[str, dict[int, int]] = {"decisions": {}, "turns": {}}
    places = np.arange(1, n + 1, dtype=np.int64)
    for table in task.seatings:
        # an exported player of the sweep (expert iteration) sits in the compiled simulator
        exported = task.learned.endswith(".npz")
        players = [task.learned if s == LEARNED and exported else s for s in table]
        compiled = [str(node_file(p)) if p == task.learned else _compiled_text(p) for p in players]
        if any(task.object_agent(s) is not None or is_python_agent(s) for s in players):
            result = play_python(task, table)
        elif any(is_checkpoint(s) or s == LEARNED for s in players):
            result = play_learned(task, table)
        else:
            sim = uno_env.simulate(  # full_engine: one compiled loop for every variant (as warm_up)
                task.rules, n, count, seed=task.seed + task.first, policies=compiled, full_engine=True,
                allow_rules_mismatch=task.allow_rules_mismatch,  # the spec's networks were checked with it
            )  # fmt: skip
            result = {
                "winner": sim.winner,
                "length": sim.length,
                "turns": sim.turns,
                "first_mover": sim.first_mover,
                "ranking": sim.ranking,
                "scores": sim.scores,
            }
        winner = result["winner"]
        won = winner >= 0
        ranks = np.zeros((count, n), dtype=np.int64)
        ended = np.zeros((int(won.sum()), n), dtype=np.int64)
        np.put_along_axis(ended, result["ranking"][won], np.broadcast_to(places, ended.shape), axis=1)
        ranks[won] = ended
        for seat, style in enumerate(table):
            seat_won = winner == seat
            seat_wins[seat] += seat_won
            if style not in slots:
                continue
            slots[style] += 1
            per_style["wins"][style] += seat_won
            per_style["points"][style] += result["scores"][:, seat]
            per_style["rank_sum"][style] += ranks[:, seat]
            per_style["ranked"][style] += won
        cell["games"] += 1
        cell["first_mover_wins"] += winner == result["first_mover"]
        cell["decisions"] += result["length"]
        cell["turns"] += result["turns"]
        cell["truncated"] += ~won
        for key, column in (("decisions", "length"), ("turns", "turns")):
            values, counts = np.unique(result[column], return_counts=True)
            for v, c in zip(values.tolist(), counts.tolist(), strict=True):
                hists[key][v] = hists[key].get(v, 0) + c
    return {
        "format": STUDY_FORMAT,
        "id": task.id,
        "variant": task.variant,
        "players": n,
        "kind": task.kind,
        "replica": task.replica,
        "rules": str(task.rules),
        "first": task.first,
        "deals": count,
        "seatings": len(task.seatings),
        "games": count * len(task.seatings),
        "slots": slots,
        "per_style": {key: {s: v.tolist() for s, v in arrays.items()} for key, arrays in per_style.items()},
        "seat_wins": seat_wins.tolist(),
        "per_deal": {key: value.tolist() for key, value in cell.items()},
        "hist": {key: {str(v): c for v, c in sorted(h.items())} for key, h in hists.items()},
    }


def _compiled_text(style: str) -> str:
    """What the compiled simulator takes for a style: the style, or an exported policy's file
    where this process reads it (a Ray node's copy of the driver's file)."""
    try:
        agent = parse_agent(style)
    except ValueError:
        return style  # the simulator names what is wrong with it
    return agent.policy if agent.compiled else style


STYLE_ARRAYS = ("wins", "points", "rank_sum", "ranked")
"""Per-deal counts a batch keeps for each style."""
DEAL_ARRAYS = ("games", "first_mover_wins", "decisions", "turns", "truncated")
"""Per-deal counts a batch keeps for its seatings as a whole."""


_ACTORS: dict[str, Any] = {}
"""The learned policies loaded in this process, by checkpoint path (each loaded once)."""


def _actor(path: str, rules: RuleSet, players: int, allow_rules_mismatch: bool) -> Any:
    """The batched actor of checkpoint ``path``, loaded on first use in this process.

    The first load sets torch to one thread (one per worker process; the same in every
    executor, so the arithmetic and the results do not depend on where a batch runs).
    """
    actor = _ACTORS.get(path)
    if actor is None:
        set_torch_threads(1)
        actor = load_checkpoint_actor(
            str(node_file(checkpoint_path(path))),  # a Ray node's copy of the driver's file
            rules,
            players,
            deterministic=True,
            allow_rules_mismatch=allow_rules_mismatch,
            trust=True,  # run_study checked the signature (or the user's trust) before any batch
            log=lambda _: None,
        )
        _ACTORS[path] = actor
    return actor


def play_learned(task: BatchTask, table: Sequence[str]) -> dict[str, np.ndarray]:
    """Play deals ``[first, first + count)`` of ``task`` at a seating with learned seats.

    Returns per-game arrays as :func:`uno_env.simulate` gives them: ``winner`` (-1 when
    truncated), ``length`` (decisions), ``turns``, ``first_mover`` (the seat of the first
    decision), ``ranking`` (seats best first; -1 when truncated) and ``scores``. Deal ``d`` is
    ``uno_env.Game(rules, n, seed=seed + d)``; a scripted seat is ``agents.make(style,
    seed=seat_seed(seed + d, seat))`` (``((seed + d) * 16 + seat) mod 2**63``, as the tournament
    seeds it: :func:`uno_env.envs.common.seat_seed`); the games are played
    :data:`LEARNED_CHUNK` at a time, and in each round every game waiting on a learned policy
    gets its action from one batched forward pass over those games (in game order).
    """

    n = len(table)
    rules = task.rules
    spec = compile_spec(rules)
    deck = rules.deck_family
    actors = {
        seat: _actor(task.learned if style == LEARNED else style, rules, n, task.allow_rules_mismatch)
        for seat, style in enumerate(table)
        if is_checkpoint(style) or (style == LEARNED and task.learned)
    }
    results = DealResults(task.count, n)
    for start in range(0, task.count, LEARNED_CHUNK):
        stop = min(task.count, start + LEARNED_CHUNK)
        games = [uno_env.Game(rules, n, seed=task.seed + task.first + i) for i in range(start, stop)]
        results.arrays["first_mover"][start:stop] = [game.current_player for game in games]
        scripted = [
            {
                seat: agents.make(_compiled_text(style), seed=seat_seed(task.seed + task.first + i, seat))
                for seat, style in enumerate(table)
                if seat not in actors
            }
            for i in range(start, stop)
        ]
        live = list(range(len(games)))
        while live:
            waiting: dict[int, list[int]] = {}
            for g in live:
                game, seats = games[g], scripted[g]
                while not game.is_over() and game.current_player in seats:
                    agent = seats[game.current_player]
                    game.step(agent.act(None, game.legal_mask(), PublicView.of(game)))
                if not game.is_over():
                    waiting.setdefault(game.current_player, []).append(g)
            for seat, rows in sorted(waiting.items()):
                obs = np.stack([observe_state(games[g].state, spec, seat, deck) for g in rows])
                masks = np.stack([games[g].legal_mask() for g in rows]).astype(bool)
                for g, action in zip(rows, actors[seat](obs, masks), strict=True):
                    games[g].step(int(action))
            live = [g for g in live if not games[g].is_over()]
        for g, game in enumerate(games):
            results.record(start + g, game)
    return results.arrays


def play_python(task: BatchTask, table: Sequence[str]) -> dict[str, np.ndarray]:
    """Play deals ``[first, first + count)`` of ``task`` at a seating with a user's Python
    (a spec or an object given from Python), out-of-process or chat-model agent: game by game
    at :class:`uno_env.Game` tables (:func:`agents.match.play_deals`, every agent re-seeded per
    game from the deal and its seat; checkpoints through :class:`agents.PolicyAgent`). Arrays
    as :func:`play_learned`'s."""

    seats: list[Any] = [
        task.learned if style == LEARNED else task.object_agent(style) or style for style in table
    ]
    seeds = [task.seed + task.first + i for i in range(task.count)]
    # run_study checked every checkpoint's signature (or the user's trust) before any batch
    return play_deals(task.rules, seats, seeds, trust=True)


def warm_up(spec: StudySpec) -> None:
    """Load the compiled batch loop in this process (before a pool forks; no torch here)."""
    n = spec.players[0]
    scripted = [
        s
        for s in spec.styles
        if spec.agent(s) is None and not is_checkpoint(s) and not is_python_agent(s) and s != LEARNED
    ] or ["greedy"]
    uno_env.simulate(  # the engine with every rule: studies play house-rule variations
        spec.variants()[0].rules,
        n,
        1,
        seed=0,
        policies=[scripted[i % len(scripted)] for i in range(n)],
        full_engine=True,
    )
