"""Benchmark rows of the cliff table: the cost of a decision with each rule switch alone.

A *cliff* is a rule switch that takes the engine off its fast paths, so that turning it on
costs every user of the rule set (a study, an env, a tournament) a factor in speed. These
rows measure the CPU time of one decision for official Uno, for official Uno with each
switch alone, and for each preset, all with the same random player and in the same run, so
that ``bench_engine.py`` can print each case's cost as a multiple of official Uno's
(``--rows cliffs``; the table and its target, no switch above 1.5x, are in
``docs/speed.md``).

* The cases (:func:`cases`): every non-default value of every boolean and every option
  field of :class:`uno_env.RuleSet` (but ``deck``, which the French presets cover), each
  alone on official Uno, with the companion fields a switch needs to act at all (a stack
  growth needs stacking, ``multi_leave_one`` a multi-card play, ...); the rule fields with
  a fast-path feature that are neither (``stacking``, ``super_stars``, ``wild_not_on``);
  ``jokers`` on the Macao preset, as jokers need a French deck; then every preset. A test
  checks that every such field has a case.
* Two rows per case: ``random_playable`` (the literature's random player: it plays a card
  whenever it can) and ``random_legal`` (uniform over the legal actions), at every seat,
  through ``uno_env.simulate``. A step is one decision; the table shows nanoseconds per
  decision, the inverse of steps per CPU second.

Like :mod:`rows_engine`, each call's game count is sized from a probe to last the requested
time, and a warm-up call (compilation or cache load) is not timed.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

from registry import Row

import uno_env

GROUP = "cliffs"
PLAYERS = ("random_playable", "random_legal")
"""The random players of the cliff rows (one row per case and player)."""
BASE = "uno"
"""The rule set every switch is added to, and the case the others are divided by."""
SKIPPED_FIELDS = ("deck",)
"""Option fields without a case of their own: the French presets are the deck switch."""
COMPANIONS: Mapping[str, Mapping[str, Any]] = {
    "wild_not_on_when": {"wild_not_on": "D2", "stacking": ("D2/D2",)},
    "stack_growth": {"stacking": ("D2/D2", "WD4/WD4", "WD4/D2")},
    "must_answer": {"stacking": ("D2/D2", "WD4/WD4", "WD4/D2")},
    "multi_leave_one": {"multi_play": "identical"},
    "zero_rule_rank": {"zero_rule": "swap"},
}
"""Fields that act only together with another: the companion values their case adds."""
EXTRA_CASES: tuple[tuple[str, str, Mapping[str, Any]], ...] = (
    ("stacking=D2/D2,WD4/WD4,WD4/D2", BASE, {"stacking": ("D2/D2", "WD4/WD4", "WD4/D2")}),
    ("super_stars=4", BASE, {"super_stars": 4}),
    ("wild_not_on=D2", BASE, {"wild_not_on": "D2"}),
    ("zero_rule_rank=1", BASE, {"zero_rule": "swap", "zero_rule_rank": 1}),
    ("macao + jokers", "macao", {"jokers": True}),
)
"""Cases of rule fields with a fast-path feature that are neither booleans nor options, and of
the jokers (a French deck's switch), as (label, base preset, overrides)."""

_PROBE_SECONDS = 0.03
_SAFETY = 1.05


@dataclasses.dataclass(frozen=True)
class Case:
    """One rule set of the cliff table: ``base`` with ``overrides``."""

    label: str
    base: str
    overrides: Mapping[str, Any]

    @property
    def key(self) -> str:
        """A stable identifier for the row keys (``uno+wd4_bluff=refused``)."""
        return self.label.replace(" ", "")

    def rules(self) -> uno_env.RuleSet:
        """The rule set."""
        return uno_env.load_rules(self.base, **self.overrides)


def switch_cases() -> list[Case]:
    """Official Uno with each switch alone (see the module docstring)."""
    out: list[Case] = []
    base = uno_env.preset(BASE)
    for f in dataclasses.fields(base):
        default = getattr(base, f.name)
        if f.name in SKIPPED_FIELDS:
            continue
        if f.metadata["choices"] is not None:
            values: list[Any] = [v for v in f.metadata["choices"] if v != default]
        elif isinstance(default, bool):
            values = [not default]
        else:
            continue
        for value in values:
            overrides = {**COMPANIONS.get(f.name, {}), f.name: value}
            shown = str(value).lower() if isinstance(value, bool) else value
            label = f"{f.name}={shown}"
            if f.name in COMPANIONS:
                label += " (with " + ", ".join(f"{k}" for k in COMPANIONS[f.name]) + ")"
            out.append(Case(label, BASE, overrides))
    out += [Case(label, base_name, overrides) for label, base_name, overrides in EXTRA_CASES]
    valid = []
    for case in out:
        try:
            case.rules()
        except uno_env.RuleError:
            continue  # a value that needs another deck: covered by the presets
        valid.append(case)
    return valid


BASE_LABEL = f"preset {BASE}"
"""The label of the case the others are divided by."""


def cases() -> list[Case]:
    """Every case in table order: official Uno, each switch alone, then each preset."""
    presets = [Case(f"preset {name}", name, {}) for name in uno_env.PRESETS if name != BASE]
    return [Case(BASE_LABEL, BASE, {}), *switch_cases(), *presets]


def kind(case: Case) -> str:
    """``"base"`` (official Uno), ``"switch"`` or ``"preset"``: the target holds for switches."""
    if case.label == BASE_LABEL:
        return "base"
    return "preset" if case.label.startswith("preset ") else "switch"


_rate: dict[tuple[str, str, int], float] = {}


def _games_per_second(case: Case, policy: str, num_players: int, seed: int) -> float:
    key = (case.key, policy, num_players)
    if key not in _rate:
        rules = case.rules()
        games = 4
        while True:
            start = time.process_time()
            uno_env.simulate(rules, num_players, games, seed, policies=policy)
            elapsed = time.process_time() - start
            if elapsed >= _PROBE_SECONDS:
                _rate[key] = games / elapsed
                break
            games *= 2
    return _rate[key]


def timed(case: Case, policy: str, num_players: int, min_seconds: float, seed: int) -> dict[str, float]:
    """Time whole ``uno_env.simulate`` calls of ``case`` with ``policy`` at every seat.

    Args:
        case: The rule set.
        policy: A random player (:data:`PLAYERS`).
        num_players: Number of players.
        min_seconds: Least total CPU time of the timed calls.
        seed: Seed of the first game; game ``i`` overall has seed ``seed + i``.

    Returns:
        ``steps`` (decisions), ``games``, ``seconds`` and ``cpu_seconds`` of the timed calls.
    """
    rules = case.rules()
    uno_env.simulate(rules, num_players, 2, seed, policies=policy)  # compile / load the cache
    rate = _games_per_second(case, policy, num_players, seed)
    steps = games = 0
    seconds = cpu_seconds = 0.0
    while cpu_seconds < min_seconds:
        count = max(1, math.ceil((min_seconds - cpu_seconds) * rate * _SAFETY))
        start, cpu_start = time.perf_counter(), time.process_time()
        result = uno_env.simulate(rules, num_players, count, seed + games, policies=policy)
        seconds += time.perf_counter() - start
        elapsed = time.process_time() - cpu_start
        cpu_seconds += elapsed
        steps += int(result.length.sum())
        games += count
        rate = count / max(elapsed, 1e-9)
    return {"steps": steps, "games": games, "seconds": seconds, "cpu_seconds": cpu_seconds}


def row_name(case: Case, policy: str) -> str:
    """The display name of a cliff row (also its key in ``bench_compare.py``)."""
    return f"cliff {policy}: {case.label}"


def rows(presets: Sequence[str]) -> list[Row]:
    """One row per case and random player (the presets argument is not used: the cases list
    every preset)."""
    out = []
    for policy in PLAYERS:
        for case in cases():
            rules = case.rules()
            out.append(
                Row(
                    row_name(case, policy),
                    GROUP,
                    tuple(range(rules.min_players, rules.max_players + 1)),
                    functools.partial(timed, case, policy),
                    key=f"cliff_{policy}_{case.key}",
                    meta=(("policy", policy), ("case", case.label), ("kind", kind(case))),
                )
            )
    return out
