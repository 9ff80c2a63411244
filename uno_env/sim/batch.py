"""The batch simulator: many whole games inside one compiled loop.

:func:`simulate` plays ``num_games`` games of one rule set and player count with compiled
policies and returns per-game results as arrays. Game ``i`` of ``simulate(..., seed=s)`` is
dealt exactly like ``Game(rules, n, seed=s + i)``; the policies draw from each game's
separate agent generator, so their randomness never shifts the game's chance events.
Studies and benchmarks use this path; nothing in it allocates per step (but the
Monte-Carlo style's scratch buffers, per decision). The compiled policies are the play
styles of :mod:`uno_env.styles` (the registry: :data:`~uno_env.styles.registry.POLICIES`,
:func:`~uno_env.styles.registry.policy_table`); :func:`~uno_env.styles.dispatch.choose_action` is their one
entry point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..compiler.borrow import borrow
from ..compiler.compiling import ensure_compiled
from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.rng import SEED_LIMIT, check_seed, fresh_seed
from ..engine.rules import RuleSet
from ..game.compiled import compile_game
from ..stats import GAME_LENGTH_RANGE, bounded_mean_interval, wilson_interval
from ..styles.baselines import POLICY_RANDOM_LEGAL, quick_action, random_action
from ..styles.dispatch import choose_action, planning_needed
from . import guided
from .learned import check_switch
from .results import ILLEGAL_ACTION, GameResults, record_result

# the play-style registry (POLICIES, policy_table) is uno_env.styles.registry: this
# module uses it and does not re-export it
__all__ = [
    "BatchResult",
    "BatchSummary",
    "play_games_with_params",
    "simulate",
]


@njit(cache=True)
def play_games_with_params(
    state: np.ndarray,
    mask: np.ndarray,
    spec: np.ndarray,
    num_players: int,
    deck: np.ndarray,
    seed: int,
    policies: np.ndarray,
    params: np.ndarray,
    check: bool,
    results: GameResults,
    staged: bool | None,
    planning: bool | None = True,
) -> tuple[int, int]:
    """Play ``len(results.winner)`` games, seat ``s`` by policy ``policies[s]`` with
    ``params[s]``; write ``results``; return ``(-1, 0)`` or, when ``check`` is set, the first game and failure
    code: an engine invariant code (checked after every step) or :data:`ILLEGAL_ACTION`.

    ``staged``: :func:`uno_env.engine.engine.staged_argument` of the rules, or True (``None``
    compiles the loop with the engine without the staged machinery).
    ``planning=None`` compiles a loop without the planning styles
    (:func:`uno_env.styles.dispatch.choose_action`): pass it when no seat plays one
    (:func:`uno_env.styles.dispatch.planning_needed`), and leave it out otherwise.

    ``state`` (``L.STATE_SIZE`` int64) and ``mask`` (``L.MAX_ACTIONS`` int8) are the caller's
    scratch buffers. The loop works on borrowed views (:func:`uno_env.compiler.borrow.borrow`) of its
    arguments: the caller keeps them alive for the call, and nothing here outlives it.
    """
    state = borrow(state)
    mask = borrow(mask)
    spec = borrow(spec)
    deck = borrow(deck)
    params = borrow(params)
    for g in range(len(results.winner)):
        engine.new_game(state, spec, num_players, deck, seed + g, 0, staged)
        results.first_mover[g] = state[L.S_CURRENT]
        fresh = False  # whether mask holds the legal actions (count: how many)
        count = 0
        while state[L.S_STATUS] == L.ST_RUNNING:
            if check:
                code = engine.check_invariants(state, spec, mask, staged)  # fills the mask too
                if code != engine.INV_OK:
                    return g, code
                count = 0
                for a in range(spec[L.SP_NUM_ACTIONS]):
                    count += mask[a]
                fresh = True
            seat = state[L.S_CURRENT]
            # the common baseline skips the style dispatch, and mostly the mask
            action = quick_action(state, spec, policies[seat], staged)
            if action < 0:
                if not fresh:
                    count = engine.fill_mask(state, spec, mask, staged)
                if policies[seat] == POLICY_RANDOM_LEGAL:
                    action = random_action(state, mask, count)
                else:
                    action = choose_action(state, spec, mask, count, policies[seat], params[seat], planning)
            if check and not engine.is_legal(spec, action, mask):
                return g, ILLEGAL_ACTION
            engine.apply_action(state, spec, action, staged)
            fresh = False
        if check:
            code = engine.check_invariants(state, spec, mask, staged)
            if code != engine.INV_OK:
                return g, code
        if state[L.S_ENGINE_ERROR] != L.ERR_NONE:  # a bounds check ended the game
            return g, engine.INV_ENGINE_ERROR
        record_result(state, spec, g, results)
    return -1, 0


Interval = tuple[float, float, float]
"""An estimate with its 95% interval: ``(value, low, high)``."""


@dataclass(frozen=True)
class BatchSummary:
    """What :meth:`BatchResult.summary` reports, each figure with its 95% interval.

    Every game of :func:`simulate` is its own deal, so games are independent draws: rates
    get the Wilson interval, means the Student-t interval (:mod:`uno_env.stats`). Tuples are
    ``(value, low, high)``; rates are fractions, truncated games (E-END-1) count for nobody.
    """

    games: int
    truncated: int
    seat_win_rates: tuple[Interval, ...]
    first_mover_win_rate: Interval
    turns: Interval
    decisions: Interval
    turns_median: float
    decisions_median: float

    def __str__(self) -> str:
        t, d, f = self.turns, self.decisions, self.first_mover_win_rate
        lines = [
            f"{self.games:,} games, {self.truncated:,} truncated at the decision limit",
            f"game length in turns (a player enters the play phase to play or draw): mean {t[0]:.1f} "
            f"[{t[1]:.1f}, {t[2]:.1f}], median {self.turns_median:.0f}",
            f"game length in decisions (every choice a player makes, colours and answers included): mean "
            f"{d[0]:.1f} [{d[1]:.1f}, {d[2]:.1f}], median {self.decisions_median:.0f}",
            "seat win rates [95%, Wilson; each game its own deal]: "
            + ", ".join(
                f"{k}: {r:.2%} [{lo:.2%}, {hi:.2%}]" for k, (r, lo, hi) in enumerate(self.seat_win_rates)
            ),
            f"first mover (the seat of the first decision): {f[0]:.2%} [{f[1]:.2%}, {f[2]:.2%}]",
        ]
        return "\n".join(lines)


@dataclass
class BatchResult:
    """Per-game results of :func:`simulate` (row ``i`` is game ``seed + i``).

    ``winner`` is -1 for a truncated game (E-END-1); ``ranking`` rows list seats best
    first (all -1 when truncated). Two lengths: ``length`` counts *decisions* (every choice a
    player makes: plays, draws, colours, play-or-keep, challenges, answers, calls), ``turns``
    counts *turns* (a turn begins each time a player enters the play phase and must play or
    draw from their hand; a skipped player has none, answering a penalty or jumping in is
    not one), the unit of published game-length figures. ``first_mover`` is the seat that
    made the first decision (the player after the dealer, drawn each deal, unless the
    starting card says otherwise).
    """

    rules: str
    num_players: int
    seed: int
    winner: np.ndarray
    length: np.ndarray
    ranking: np.ndarray
    scores: np.ndarray
    round_points: np.ndarray
    rounds: np.ndarray
    turns: np.ndarray
    first_mover: np.ndarray

    @property
    def num_games(self) -> int:
        """Games played."""
        return len(self.winner)

    @property
    def truncated(self) -> np.ndarray:
        """Boolean per game: ended by the decision limit."""
        return self.winner < 0

    def seat_win_rates(self) -> np.ndarray:
        """Fraction of games each seat won (truncated games count for nobody)."""
        return np.bincount(self.winner[self.winner >= 0], minlength=self.num_players) / self.num_games

    def summary(self) -> BatchSummary:
        """Seat and first-mover win rates and both game lengths, each with its 95% interval.

        ``print(result.summary())`` prints them; games are independent (each its own deal).
        """
        games = self.num_games
        wins = np.bincount(self.winner[self.winner >= 0], minlength=self.num_players)
        first = int((self.winner == self.first_mover).sum())
        return BatchSummary(
            games=games,
            truncated=int(self.truncated.sum()),
            seat_win_rates=tuple((w / games, *wilson_interval(int(w), games)) for w in wins),
            first_mover_win_rate=(first / games, *wilson_interval(first, games)),
            turns=bounded_mean_interval(self.turns, *GAME_LENGTH_RANGE),
            decisions=bounded_mean_interval(self.length, *GAME_LENGTH_RANGE),
            turns_median=float(np.median(self.turns)),
            decisions_median=float(np.median(self.length)),
        )


def simulate(
    rules: RuleSet | str | Path = "uno",
    num_players: int = 4,
    num_games: int = 1000,
    seed: int | None = 0,
    policies: str | list[str] = "random",
    check_invariants: bool = False,
    full_engine: bool = False,
    *,
    allow_rules_mismatch: bool = False,
    **overrides: Any,
) -> BatchResult:
    """Play ``num_games`` complete games in compiled code and return their results.

    ``policies`` names a compiled policy for every seat, or one per seat, each optionally
    with parameters (``"bluffer:bluff=0.3,challenge=0.8"``, ``"search:400"``; see
    :data:`uno_env.styles.registry.STYLES`), or an exported learned policy: a shipped name
    (``"distilled_uno_2p"``) or a ``.npz`` path (:mod:`uno_env.sim.learned`), or a
    search guided by one (``"search:net=distilled_uno_2p"``, :mod:`uno_env.sim.guided`). A
    network must fit the deck family, observation spec and env version, and is refused
    (:class:`~uno_env.sim.learned.PolicyGameMismatchError`, naming every difference) when it was
    trained for other rules (``overrides`` included) or another player count, unless
    ``allow_rules_mismatch=True`` (a transfer: ``ppo_uno_2p`` at a 4-player table). Agent objects
    (:func:`agents.make`) play at a :class:`~uno_env.Game` (:func:`agents.play`), in the envs
    and in tournaments, not here. With
    ``check_invariants`` the engine invariants are checked after every decision, and every
    policy action against the legal mask; the first failure raises AssertionError naming the
    game's seed.

    ``seed`` takes what :class:`~uno_env.Game` takes (an integer in ``0..2**63-1``, or None
    for one drawn from the operating system, kept in :attr:`BatchResult.seed`), and every
    ``seed + i`` must be one too.

    Rule sets without the staged machinery (official Uno among them) play on an engine
    compiled without it (:func:`uno_env.engine.engine.staged_argument`); ``full_engine=True`` plays
    them on the engine with every rule, the one the other rule sets use, so a process that
    plays both kinds (a study of house-rule variations) compiles one loop instead of two.
    The games are the same either way.
    """
    game = compile_game(rules, num_players, **overrides)
    ruleset = game.rules
    names = _policy_names(policies, num_players)
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be an integer >= 1, got {num_games!r}")
    check_invariants = check_switch("check_invariants", check_invariants)
    full_engine = check_switch("full_engine", full_engine)
    allow_rules_mismatch = check_switch("allow_rules_mismatch", allow_rules_mismatch)
    if seed is None:  # as Game: one drawn from the operating system (kept in the result)
        seed = fresh_seed(num_games)
    seed = check_seed(seed)  # the seeds Game takes: game i is Game(rules, n, seed + i)
    if seed + num_games > SEED_LIMIT:
        raise ValueError(
            f"seed + num_games must stay within 2**63 (game i is dealt from seed + i), got seed {seed} "
            f"and {num_games} games"
        )

    seating = guided.network_seating(names, ruleset, allow_rules_mismatch=allow_rules_mismatch)
    policy_codes, policy_params = seating.codes, seating.params
    ensure_compiled("batch")
    try:
        results = GameResults.allocate(num_games, num_players)
    except MemoryError:
        need = num_games * (5 + 3 * num_players) * 8
        raise ValueError(
            f"num_games={num_games}: the per-game results alone need {need / 2**30:,.0f} GiB of memory; "
            "simulate in batches (game i of a batch starting at seed s is Game(seed=s + i))"
        ) from None
    games = (game.spec, num_players, game.deck_counts, seed, policy_codes)
    if seating.has_networks:
        failed, code = guided.play_games_with_nets(
            *games, policy_params, seating.seat_nets, seating.bank, seating.table, seating.offsets,
            seating.obs_size, check_invariants, results,
        )  # fmt: skip
    else:
        # without planning styles, the loop compiled without them (None; else the default)
        planning = {} if planning_needed(policy_codes) else {"planning": None}
        failed, code = play_games_with_params(
            game.new_state(),
            game.new_mask(),
            *games,
            policy_params,
            check_invariants,
            results,
            True if full_engine else engine.staged_argument(game.spec),
            **planning,
        )
    if failed >= 0:
        raise AssertionError(
            f"invariant broken in game seed={seed + failed} ({num_players} players, rules: "
            f"{ruleset}, policies {names}): {_failure_message(code)}"
        )
    return BatchResult(str(ruleset), num_players, seed, *results)


def _policy_names(policies: Any, num_players: int) -> list[str]:
    """The policy text of every seat: ``policies`` is one text for all, or one per seat."""
    if isinstance(policies, (str, Path)):
        return [str(policies)] * num_players
    allowed = (
        "a policy text for every seat or a list of one per seat: style names such as 'greedy' or "
        "'bluffer:bluff=0.3', shipped policy names such as 'ppo_uno_2p', .npz paths; agent objects play "
        "at a Game (agents.play), in the envs and in tournaments"
    )
    if isinstance(policies, (bytes, Mapping)) or not isinstance(policies, (Sequence, np.ndarray)):
        raise TypeError(f"policies must be {allowed}; got {_short(policies)}")
    names = [str(name) if isinstance(name, Path) else name for name in policies]
    for seat, name in enumerate(names):
        if not isinstance(name, str):
            raise TypeError(f"policies[{seat}] must be a text: {allowed}; got {_short(name)}")
    if len(names) != num_players:
        raise ValueError(
            f"policies lists {len(names)} names for {num_players} players (one per seat, or one text)"
        )
    return names


def _short(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 80 else text[:77] + '...'}"


def _failure_message(code: int) -> str:
    if code == ILLEGAL_ACTION:
        return "a policy chose an action outside the legal mask"
    return engine.INVARIANT_MESSAGES[code]
