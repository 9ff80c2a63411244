"""The agent benchmark protocol: one agent against a fixed opponent, duplicate deals, every seat.

:func:`benchmark` is how a language model (``llm:...``), an out-of-process agent or any other
agent is measured (``uno-env benchmark AGENT --vs OPPONENT``, ``docs/own-agents.md``):

1. **Duplicate deals, every seat.** Deal ``d`` (``0 <= d < deals``) is dealt from seed
   ``seed + d`` and played once with the agent at each seat, the opponent (any agent spec;
   one for every other seat, or a seat table) in the others: ``deals x players`` games. Luck
   of the deal cancels out between the seats.
2. **Intervals by deal.** The win rate's 95% interval takes the deal as the unit (the agent's
   games of one deal share its cards): the Wilson interval at the effective size of the
   cluster-robust standard error over the deals (:func:`uno_env.stats.grouped_ratio`). A game
   cut at the decision limit (E-END-1) counts as not won.
3. **Answers and cost.** For agents that answer in words (:class:`agents.llm.ChatAgent`):
   the illegal-answer rate (answers that named no legal move, per answer), the fallbacks
   (decisions where the retry budget ran out and the first legal move was played), both rates
   with their 95% intervals by deal (counted per deal, as the win rate), prompt
   and completion tokens per decision; for every agent the seconds per decision (wall clock
   of its ``act``).
4. **Traces.** With ``trace`` every decision (view, legal moves, raw answers, parsed move,
   retries, time) and every game's record go to a JSON Lines file that ``uno-env replay``
   reads (:mod:`agents.trace`).

The same seed and agents give the same games: every agent is re-seeded per game from the
deal's seed and its seat (:func:`agents.match.seat_seed`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import uno_env
from uno_env.stats import grouped_ratio
from uno_env.styles.params import spelled_out

from .match import own_instances, play_deals
from .spec import AgentLike, as_spec, check_seated_networks, parse_seats
from .trace import TraceWriter


def benchmark(
    agent: AgentLike,
    opponent: AgentLike,
    rules: Any = "uno",
    players: int = 2,
    deals: int = 100,
    seed: int = 0,
    *,
    trace: str | Path | None = None,
    trust: bool = False,
    allow_rules_mismatch: bool = False,
) -> dict[str, Any]:
    """Measure ``agent`` against ``opponent`` (see the module docstring); a JSON-ready dict.

    Every exported network seated (the agent, an opponent, a search's guide) must have been
    trained for these rules and player count unless ``allow_rules_mismatch`` (a transfer).
    """
    ruleset = uno_env.load_rules(rules)
    ruleset.check_players(players)
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    me = as_spec(agent, where="agent")
    others = (
        parse_seats(opponent, players - 1, where="opponent")
        if isinstance(opponent, str | list | tuple)
        else [as_spec(opponent, where="opponent")] * (players - 1)
    )
    check_seated_networks([me, *others], ruleset, players, allow_rules_mismatch=allow_rules_mismatch)
    seeds = [seed + d for d in range(deals)]
    wins = np.zeros(deals, dtype=np.int64)
    truncated = 0
    decisions = 0
    seconds = 0.0
    player = me.make(ruleset, players, seed, trust=trust)  # one agent: its accounting spans the match
    # per deal, for agents that answer in words: answers, illegal answers, decisions, fallbacks
    # (the deal is the unit of their intervals, as of the win rate's)
    answered = np.zeros((deals, len(ANSWER_COUNTS)))
    counted = _answer_totals(player)  # the agent's totals when last read
    writer = TraceWriter(trace) if trace is not None else None
    try:
        for k in range(players):
            table: list[Any] = [None] * players
            table[k] = me
            for j, spec in enumerate(others, start=1):
                table[(k + j) % players] = spec
            made = own_instances(
                [player if s == k else table[s].make(ruleset, players, trust=trust) for s in range(players)],
                [spec.text for spec in table],
                keep=k,
            )  # one object at several seats: each seat its own instance (the agent's stays at k)
            counter = {"decisions": 0, "seconds": 0.0, "deal": 0}

            def count(
                seat: int, action: int, took: float, k: int = k, counter: dict[str, Any] = counter
            ) -> None:
                if seat == k:
                    counter["decisions"] += 1
                    counter["seconds"] += took
                    totals = _answer_totals(player) if counted is not None else None
                    if counted is not None and totals is not None:  # what this decision added, to its deal
                        answered[counter["deal"]] += totals - counted
                        counted[:] = totals

            def at_deal(deal: int, game: Any, counter: dict[str, Any] = counter) -> None:
                counter["deal"] = deal

            try:
                result = play_deals(
                    ruleset,
                    table,
                    seeds,
                    agents=made,
                    on_decision=count,
                    trace=writer,
                    before_decision=at_deal,
                )
            finally:  # also when an agent failed: no opponent's program is left running
                for j, other in enumerate(made):
                    close = getattr(other, "close", None)
                    if j != k and callable(close):
                        close()
            wins += result["winner"] == k
            truncated += int((result["winner"] < 0).sum())
            decisions += int(counter["decisions"])
            seconds += float(counter["seconds"])
    finally:
        if writer is not None:
            writer.close()
        close = getattr(player, "close", None)
        if callable(close):
            close()
    estimate = grouped_ratio(wins, players)
    low, high = estimate.proportion_interval()
    report: dict[str, Any] = {
        "agent": me.text,
        "opponent": opponent if isinstance(opponent, str) else [s.text for s in others],
        "rules": str(ruleset),
        "preset": ruleset.preset_name(),
        "players": players,
        "deals": deals,
        "games": deals * players,
        "seed": seed,
        "wins": int(wins.sum()),
        "win_rate": estimate.value,
        "win_low": low,
        "win_high": high,
        "fair_share": 1 / players,
        "truncated": truncated,
        "decisions": decisions,
        "seconds_per_decision": seconds / decisions if decisions else float("nan"),
        "interval": "95%, by deal (each deal at every seat; Wilson at the cluster-robust effective size)",
    }
    stats = getattr(player, "stats", None)
    if callable(stats):
        report["answers"] = stats()
        if counted is not None:
            report["answers"].update(answer_intervals(answered))
    if trace is not None:
        report["trace"] = str(trace)
    return report


ANSWER_COUNTS = ("answers", "illegal_answers", "decisions", "fallbacks")
"""The totals of an agent that answers in words (its ``stats()``) counted per deal."""


def _answer_totals(player: Any) -> np.ndarray | None:
    """The agent's :data:`ANSWER_COUNTS` so far (None for an agent without them)."""
    stats = getattr(player, "stats", None)
    if not callable(stats):
        return None
    totals = stats()
    if not all(key in totals for key in ANSWER_COUNTS):
        return None
    return np.array([float(totals[key]) for key in ANSWER_COUNTS])


def answer_intervals(answered: np.ndarray) -> dict[str, float]:
    """The 95% intervals of the illegal-answer rate (per answer) and the fallback rate (per
    decision) from per-deal counts ``answered[d]`` (:data:`ANSWER_COUNTS`): ratios over the
    deals with the cluster-robust error, Wilson at the effective size
    (:meth:`uno_env.stats.GroupedEstimate.proportion_interval`), the deal as the unit."""
    answers, illegal, decisions, fallbacks = (answered[:, j] for j in range(len(ANSWER_COUNTS)))
    illegal_low, illegal_high = grouped_ratio(illegal, answers).proportion_interval()
    fallback_low, fallback_high = grouped_ratio(fallbacks, decisions).proportion_interval()
    return {
        "illegal_answer_low": illegal_low,
        "illegal_answer_high": illegal_high,
        "fallback_low": fallback_low,
        "fallback_high": fallback_high,
    }


def _opponent_name(opponent: str | list[str]) -> str:
    """The opponent as the report line names it: aliases spelled out, a seat list as a table."""
    if isinstance(opponent, str):
        return spelled_out(opponent)
    return " | ".join(spelled_out(seat) for seat in opponent)


def format_report(report: dict[str, Any]) -> str:
    """The benchmark's result in a few lines."""
    lines = [
        f"{spelled_out(report['agent'])} vs {_opponent_name(report['opponent'])}: "
        f"win rate {report['win_rate']:.1%} "
        f"[{report['win_low']:.1%}, {report['win_high']:.1%}] (95%, by deal) over {report['games']:,} games "
        f"({report['deals']:,} deals x {report['players']} seats; fair share {report['fair_share']:.0%}; "
        f"{report['truncated']} truncated)",
        f"decisions: {report['decisions']:,}, {report['seconds_per_decision'] * 1000:.1f} ms each",
    ]
    answers = report.get("answers")
    if answers:
        lines.append(
            f"answers: {int(answers['answers']):,}, illegal {answers['illegal_answer_rate']:.1%} "
            f"[{answers['illegal_answer_low']:.1%}, {answers['illegal_answer_high']:.1%}], "
            f"fallbacks {int(answers['fallbacks'])} ({answers['fallback_rate']:.1%} "
            f"[{answers['fallback_low']:.1%}, {answers['fallback_high']:.1%}] of decisions; 95%, by deal); "
            f"tokens per decision: {answers['prompt_tokens_per_decision']:.0f} prompt, "
            f"{answers['completion_tokens_per_decision']:.1f} completion"
        )
    return "\n".join(lines)
