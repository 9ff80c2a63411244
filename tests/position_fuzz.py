"""Fuzzing position strings: hostile and broken positions must be refused or play safely.

Two generators, both reproducible from ``(seed, index)``:

- **mutations**: a position sampled from a seeded random game of a rule variant (every
  preset, and house-rule variants that reach the cube, gives, swaps, the look at the hands,
  multi-card plays) with one to three random edits: an integer field set to a random or
  extreme value, a field dropped, added or duplicated, the phase or a seat changed, cards
  moved, added or removed, the text cut or given stray characters;
- **extremes**: every integer field (and every entry of a per-seat field) of a sampled
  position set in turn to values at and beyond its limits (-1, 0, n-1, n, 2**31, 2**63,
  10**30, ...), added where the position lacks it.

:func:`run_case` is the oracle: the position is refused with a
:class:`~uno_env.PositionError`, or it is accepted, prints back to a line that parses to
the same state, and plays :data:`STEPS` random decisions with the engine invariants
checked after each. Any other exception, a broken invariant, a crash or a hang is a
failure. :class:`Worker` runs cases in a child process with a timeout per case, so a
segmentation fault or an endless loop is reported with its case instead of killing the run.

The campaign in the README's reliability section::

    nice -n 10 python -m tests.position_fuzz --mutations 100000 --extremes 10000
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

import uno_env
from uno_env import Game, PositionError, RuleSet
from uno_env.game.facade import IllegalActionError

STEPS = 300  # random decisions played from every accepted position
SAMPLES_PER_GAME = 12  # positions kept from each seeded random game

VARIANTS: dict[str, RuleSet] = {
    **uno_env.PRESETS,
    # house rules that reach decisions the presets never ask for
    "uno_cube_jump": dataclasses.replace(
        uno_env.preset("uno"), cube=True, jump_in=True, eight_again=True, multi_play="identical", runs=True
    ),
    "uno_gives_look": dataclasses.replace(
        uno_env.preset("uno"),
        two_gives=True,
        seven_swap=True,
        zero_rule="swap_optional",
        zero_reveals=True,
        react_nine=True,
        react_seven=True,
    ),
    "uno_multi_stack": dataclasses.replace(
        uno_env.preset("uno_mario"),
        multi_play="identical",
        runs=True,
        stacking=("D2/D2", "WD4/WD4", "WD4/D2"),
        reverse_reflects=True,
        stack_growth="double",
        no_finish_on_action=True,
        call="mau_mau",
    ),
    "macao_jokers": dataclasses.replace(
        uno_env.preset("macao"),
        jokers=True,
        card_effects=(*uno_env.preset("macao").card_effects, "KS:previous_draws:5"),
    ),
}

INTEGER_FIELDS = (
    "seat", "pending", "skip", "from", "challengeable", "bluff", "cubeuno", "cubechosen",
    "dealer", "round", "decisions", "winner", "actor", "stage", "kind", "count", "run", "skips",
    "draws", "sits", "previous", "choose", "penaltycards", "carry", "carryskip", "reason",
    "target", "give", "resume", "window", "scan",
)  # fmt: skip
PER_SEAT_FIELDS = ("scores", "sitout", "finished", "cuberolled")
PAIR_FIELDS = ("jumpblock", "cube")  # a:b
OTHER_FIELDS = (
    "called", "seen", "drawn", "class", "before", "after", "cubereturn", "status", "colour", "dir",
)  # fmt: skip


def extreme_values(n: int) -> list[int]:
    """Values at and beyond the limits of any integer field of an ``n``-player position."""
    limits = {-(2**63), -(10**30), -100_000, -2, -1, 0, 1, 2, n - 1, n, n + 1, 9, 10, 99, 255, 256}
    return sorted(limits | {1 << 20, (1 << 20) + 1, 2**31, 2**62, 2**63 - 1, 2**63, 10**30})


# ---------------------------------------------------------------- valid positions
@cache
def sampled_positions(variant: str, seed: int = 0) -> tuple[str, ...]:
    """Positions of seeded random games of ``variant`` at every player count (over ones too)."""
    rules = VARIANTS[variant]
    chooser = random.Random(f"{variant}:{seed}")
    out: list[str] = []
    for n in range(rules.min_players, rules.max_players + 1):
        game = Game(rules, n, seed=seed * 100 + n)
        length = chooser.randrange(20, 400)
        keep = set(chooser.sample(range(length), min(SAMPLES_PER_GAME, length)))
        for k in range(length):
            if game.is_over():
                out.append(game.position())
                break
            if k in keep:
                out.append(game.position())
            game.step(chooser.choice(game.legal_actions()))
    return tuple(out)


def _fields(text: str) -> list[list[str]]:
    return [part.split("=", 1) for part in text.split("; ")]


def _join(fields: list[list[str]]) -> str:
    return "; ".join("=".join(f) for f in fields)


def _num_players(text: str) -> int:
    return text.split(";", 1)[0].count("/") + 1


# ---------------------------------------------------------------- mutations
def _random_int(rng: random.Random, n: int) -> int:
    if rng.random() < 0.5:
        return rng.choice(extreme_values(n))
    return rng.randint(-3, n + 3)


def _random_value(rng: random.Random, key: str, n: int, text: str) -> str:
    if key in PER_SEAT_FIELDS:
        values = [rng.choice([0, 0, 0, 1, 2, rng.randint(-2, n + 1), _random_int(rng, n)]) for _ in range(n)]
        if rng.random() < 0.1:
            values = values[: rng.randint(0, n + 1)] + [1] * rng.randint(0, 2)
        return " ".join(map(str, values))
    if key in PAIR_FIELDS:
        return f"{_random_int(rng, n)}:{_random_int(rng, n)}"
    if key in ("called", "seen"):
        seats = [str(rng.randint(-1, n)) for _ in range(rng.randint(0, 3))]
        return " ".join(f"{s}>{rng.randint(-1, n)}" if key == "seen" else s for s in seats)
    if key in ("drawn", "class"):
        return rng.choice(_cards(text) or ["R1"])
    if key in ("before", "colour"):
        return rng.choice(["R", "Y", "G", "B", "C", "D", "H", "S", "-", "X", "red"])
    if key == "after":
        return rng.choice(["start", "play", "x"])
    if key == "cubereturn":
        return rng.choice(["play", "drawn", "continue", "over"])
    if key == "status":
        return rng.choice(["running", "won", "truncated"])
    if key == "dir":
        return rng.choice(["+", "-", "+1", "-1", "0"])
    if key == "phase":
        return rng.choice(list(uno_env.game.position.PHASE_NAMES.values()))
    return str(_random_int(rng, n))


def _cards(text: str) -> list[str]:
    out: list[str] = []
    for field in _fields(text)[:3]:
        if len(field) == 2:
            out += field[1].replace("/", " ").replace("-", " ").split()
    return out


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits of a position."""
    n = _num_players(text)
    fields = _fields(text)
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        keys = [f[0] for f in fields if len(f) == 2]
        kind = rng.random()
        if kind < 0.30 and keys:  # an existing field gets another value
            i = rng.randrange(len(fields))
            if len(fields[i]) == 2 and fields[i][0] not in ("hands", "discard", "draw"):
                fields[i][1] = _random_value(rng, fields[i][0], n, text)
        elif kind < 0.55:  # a field is added (or set)
            key = rng.choice(INTEGER_FIELDS + PER_SEAT_FIELDS + PAIR_FIELDS + OTHER_FIELDS + ("phase",))
            value = _random_value(rng, key, n, text)
            for f in fields:
                if f[0] == key and len(f) == 2:
                    f[1] = value
                    break
            else:
                fields.append([key, value])
        elif kind < 0.62 and len(fields) > 1:  # a field is dropped
            del fields[rng.randrange(len(fields))]
        elif kind < 0.82:  # cards move between hands and piles, appear or vanish
            i = rng.randrange(3)
            if len(fields[i]) == 2 and fields[i][0] in ("hands", "discard", "draw"):
                tokens = fields[i][1].split(" ")
                op = rng.random()
                if op < 0.4 and len(tokens) > 1:
                    tokens.pop(rng.randrange(len(tokens)))
                elif op < 0.8:
                    tokens.insert(rng.randrange(len(tokens) + 1), rng.choice(_cards(text) or ["R1"]))
                else:
                    tokens.insert(rng.randrange(len(tokens) + 1), "/")
                fields[i][1] = " ".join(tokens)
        elif kind < 0.90:  # the phase changes
            for f in fields:
                if f[0] == "phase" and len(f) == 2:
                    f[1] = _random_value(rng, "phase", n, text)
        elif kind < 0.95:  # a field appears twice, or two swap places
            if rng.random() < 0.5:
                fields.append(list(rng.choice(fields)))
            else:
                i, j = rng.randrange(len(fields)), rng.randrange(len(fields))
                fields[i], fields[j] = fields[j], fields[i]
        else:  # the text itself is damaged
            joined = _join(fields)
            cut = rng.randrange(len(joined) + 1)
            junk = rng.choice(["", ";", "=", " ", "\x00", "\u0663", "\u00b2", "ß", "0_1", "/", "\n", "--"])
            joined = joined[:cut] + junk + joined[cut + rng.choice((0, 1, 5)) :]
            fields = _fields(joined)
    return _join(fields)


def mutation_cases(count: int, seed: int = 0) -> Iterator[tuple[str, str]]:
    """``(variant, position)`` pairs: mutated positions of every variant in turn."""
    names = list(VARIANTS)
    for i in range(count):
        variant = names[i % len(names)]
        rng = random.Random(f"mutation:{seed}:{i}")
        pool = sampled_positions(variant, seed)
        yield variant, mutate(rng.choice(pool), rng)


def extreme_cases(count: int, seed: int = 0) -> Iterator[tuple[str, str]]:
    """``(variant, position)`` pairs: every integer field of sampled positions at extreme values."""
    names = list(VARIANTS)
    made = 0
    round_ = 0
    while made < count:
        for variant in names:
            pool = sampled_positions(variant, seed)
            base = pool[(round_ * 7919) % len(pool)]
            n = _num_players(base)
            for key in INTEGER_FIELDS + PER_SEAT_FIELDS + PAIR_FIELDS:
                for value in extreme_values(n):
                    if key in PER_SEAT_FIELDS:
                        seat = (round_ + value) % n
                        items = ["0"] * n
                        items[seat] = str(value)
                        text_value = " ".join(items)
                    elif key in PAIR_FIELDS:
                        text_value = f"{value}:1" if round_ % 2 == 0 else f"1:{value}"
                    else:
                        text_value = str(value)
                    fields = [f for f in _fields(base) if f[0] != key]
                    fields.append([key, text_value])
                    yield variant, _join(fields)
                    made += 1
                    if made >= count:
                        return
        round_ += 1


# ---------------------------------------------------------------- the oracle
@dataclass
class Result:
    """What became of one case: ``refused``, ``accepted`` or a failure (``error``,
    ``invariant``, ``round_trip``, ``crash``, ``hang``) with its detail."""

    outcome: str
    detail: str = ""
    steps: int = 0

    @property
    def failed(self) -> bool:
        return self.outcome not in ("refused", "accepted")


def run_case(variant: str, text: str, seed: int = 0) -> Result:
    """Parse ``text`` under ``variant``; if accepted, check the round trip and play on."""
    rules = VARIANTS[variant]
    try:
        game = Game.from_position(rules, text, seed=seed)
    except PositionError as exc:
        if "does not print back" in str(exc):  # the parser's last check caught a gap in the notation
            return Result("round_trip", str(exc))
        return Result("refused")
    except Exception as exc:  # anything else is a failure
        return Result("error", f"{type(exc).__name__}: {exc}")
    printed = game.position()
    try:
        again = Game.from_position(rules, printed, seed=seed)
    except Exception as exc:
        return Result("round_trip", f"{printed} -> {type(exc).__name__}: {exc}")
    if not np.array_equal(again.state, game.state) or again.position() != printed:
        return Result("round_trip", f"{printed} -> {again.position()}")
    chooser = random.Random(seed)
    steps = 0
    try:
        game.check_invariants()
        while steps < STEPS and not game.is_over():
            steps += 1
            game.step(chooser.choice(game.legal_actions()))
            game.check_invariants()
    except AssertionError as exc:
        return Result("invariant", f"step {steps}: {exc}", steps)
    except IllegalActionError as exc:
        return Result("error", f"step {steps}: legal action refused: {exc}", steps)
    except Exception as exc:
        return Result("error", f"step {steps}: {type(exc).__name__}: {exc}", steps)
    return Result("accepted", "", steps)


# ---------------------------------------------------------------- a child process per case
class Worker:
    """Runs cases in a child process, one at a time, each with a timeout.

    A child that dies (a segmentation fault) or does not answer in time (an endless loop,
    which no signal may interrupt inside compiled code) is killed and replaced; the case is
    reported as ``crash`` or ``hang``.
    """

    def __init__(self, timeout: float = 20.0) -> None:
        self.timeout = timeout
        self._child: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self._child is None or self._child.poll() is not None:
            self._child = subprocess.Popen(
                [sys.executable, "-m", "tests.position_fuzz", "--serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
            self._wait_line(self._child, 600.0)  # "ready" once compiled code is loaded
        return self._child

    @staticmethod
    def _wait_line(child: subprocess.Popen[str], timeout: float) -> str | None:
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], timeout)
        return child.stdout.readline() if ready else None

    def run(self, variant: str, text: str, seed: int = 0) -> Result:
        child = self._start()
        assert child.stdin is not None
        child.stdin.write(json.dumps([variant, text, seed]) + "\n")
        child.stdin.flush()
        line = self._wait_line(child, self.timeout)
        if line:
            return Result(**json.loads(line))
        self.close()
        if line is None:  # nothing to read in time
            return Result("hang", f"no answer in {self.timeout:.0f} s")
        return Result("crash", f"the child process died (exit code {child.returncode})")  # end of output

    def close(self) -> None:
        """Stop the child process (killed: it may be stuck in compiled code)."""
        if self._child is not None:
            if self._child.poll() is None:
                self._child.kill()
            self._child.wait()
            self._child = None


def _serve() -> None:
    """The child side of :class:`Worker`: one JSON case per line in, one result per line out."""
    run_case("uno", "hands=R1/G2; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=play")  # compile
    print("ready", flush=True)
    for line in sys.stdin:
        variant, text, seed = json.loads(line)
        if variant == "__crash__":  # the harness's own test: a child that dies
            os.abort()
        while variant == "__hang__":  # ... and one that never answers
            time.sleep(1)
        print(json.dumps(dataclasses.asdict(run_case(variant, text, seed))), flush=True)


# ---------------------------------------------------------------- the campaign
def campaign(mutations: int, extremes: int, seed: int, timeout: float, report_every: float) -> int:
    """Run the cases in a child process; print progress and the totals; exit code 1 on failures."""
    totals: dict[str, int] = {}
    failures: list[tuple[str, str, Result]] = []
    steps = 0
    worker = Worker(timeout)
    start = last = time.monotonic()
    try:
        for label, cases, total in (
            ("mutated", mutation_cases(mutations, seed), mutations),
            ("extreme-field", extreme_cases(extremes, seed), extremes),
        ):
            for done, (variant, text) in enumerate(cases, 1):
                result = worker.run(variant, text, seed)
                key = f"{label} {result.outcome}"
                totals[key] = totals.get(key, 0) + 1
                steps += result.steps
                if result.failed:
                    failures.append((variant, text, result))
                    print(f"FAIL {result.outcome} [{variant}] {text}\n  {result.detail}", flush=True)
                if time.monotonic() - last > report_every:
                    last = time.monotonic()
                    print(f"{label}: {done:,}/{total:,} cases, {time.monotonic() - start:,.0f} s", flush=True)
    finally:
        worker.close()
    print(f"\nposition fuzz, seed {seed}, variants: {', '.join(VARIANTS)}")
    for key in sorted(totals):
        print(f"  {key:<28} {totals[key]:>9,}")
    print(f"  decisions played from accepted positions: {steps:,}; {time.monotonic() - start:,.0f} s")
    print(f"  failures (crash, hang, error, invariant, round trip): {len(failures)}")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.position_fuzz", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--mutations", type=int, default=100_000, help="mutated positions")
    parser.add_argument("--extremes", type=int, default=10_000, help="extreme-field positions")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sampled games and the edits")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds a case may take")
    parser.add_argument("--report-every", type=float, default=60.0, help="seconds between progress lines")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args: Any = parser.parse_args(argv)
    if args.serve:
        _serve()
        return 0
    return campaign(args.mutations, args.extremes, args.seed, args.timeout, args.report_every)


if __name__ == "__main__":
    sys.exit(main())
