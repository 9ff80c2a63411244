"""Each seat's chance of winning the round along a game: features, a calibrated model, traced games.

A spectator who sees every hand can say, at each decision, how likely each seat is to win the
round. :func:`seat_features` describes a seat's position in a few numbers read from the true
state (its cards, what they can do now, its place in the turn order); :class:`WinModel` turns
them into chances with a conditional logit: seat ``i`` wins with probability
``exp(w . x_i) / sum_j exp(w . x_j)`` over the seats in play, one weight vector ``w`` for every
seat (the search's leaf value, :func:`uno_env.styles.search.evaluate`, is this model with hand
size, wild cards and the mover only, and fixed weights). :func:`fit_win_model` fits ``w`` by
maximum likelihood to the winners of simulated games, so the chances are calibrated on games
like those it was fitted to; :func:`calibration` measures that on held-out games (Brier
score, reliability curve).

:func:`trace` plays games in the compiled engine (compiled styles, the search and the oracle,
exported networks, guided searches: any table the batch simulator seats) and records the
features of every seat at every decision of the round, until a player leaves or the round
ends: the raw material of the trajectory measures (:func:`game_measures`: lead changes,
the winner's lowest chance, when the game was decided, drama).

Rules used: none beyond the engine's; the features read the state the rules produced (hands,
the top card's matches U-MATCH-1, pending penalties U-D2-1/H-STACK-1, sit-outs MC-FOUR-1).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.rules import RuleSet, load_rules
from ..game.compiled import compile_game
from ..styles.baselines import quick_action
from ..styles.dispatch import choose_action
from ..styles.search import VALUE_EXPONENT, VALUE_MOVER, VALUE_SHIFT, VALUE_WILD
from .guided import guided_choose, network_action, network_seating
from .learned import check_switch
from .results import GameResults, record_result

FEATURES = (
    "log_cards",
    "one_card",
    "two_cards",
    "wilds",
    "draw_cards",
    "action_cards",
    "colours",
    "playable",
    "to_move",
    "next_to_move",
    "penalty",
    "sitting_out",
)
"""The features of a seat (:func:`seat_features`), in order: the log of its hand size; whether it
holds one card, or two; its wild cards (playable on anything); its other cards that make a
player draw; its other action cards; the colours (suits) it holds; its cards that match the
top card now; whether it decides now; whether it plays next; the log of one plus the cards a
pending penalty makes it draw; the turns it must still sit out."""
NUM_FEATURES = len(FEATURES)
MODEL_FORMAT = "uno-env-winprob/1"
"""The header of a stored model file (:func:`save_models`)."""
MAX_MODEL_BYTES = 1 << 20
"""Largest model file read (a model is a few hundred bytes per player count)."""
DECIDED = 0.9
"""A game is decided once the eventual winner's chance stays at or above this."""
COMEBACK = 0.1
"""A comeback: the eventual winner's chance fell below this on the way."""
RELIABILITY_BINS = 10


# ================================================================ features (compiled)
@njit(cache=True)
def seat_features(state: np.ndarray, spec: np.ndarray, seat: int, out: np.ndarray) -> None:
    """Write the :data:`FEATURES` of ``seat`` in ``state`` (the true state: every hand) into
    ``out[:NUM_FEATURES]``."""
    nf = spec[L.SP_NUM_FACES]
    size = state[L.HAND_SIZE + seat]
    match = engine.matching_faces(state, spec) if state[L.S_NDISCARD] > 0 else 0
    wilds = 0
    draws = 0
    actions = 0
    playable = 0
    colours = 0
    for face in range(nf):
        count = state[L.HANDS + seat * L.MAX_FACES + face]
        if count == 0:
            continue
        effect = spec[L.F_EFFECT + face]
        if spec[L.F_ANYWHERE + face] == 1:
            wilds += count
        elif effect == L.EF_DRAW or effect == L.EF_WILD_DRAW or effect == L.EF_PREVIOUS_DRAWS:
            draws += count
        elif effect != L.EF_NONE:
            actions += count
        if (match >> face) & 1:
            playable += count
        colour = spec[L.F_COLOUR + face]
        if colour >= 0:
            colours |= 1 << colour
    distinct = 0
    for c in range(L.NUM_COLOURS):
        distinct += (colours >> c) & 1
    current = state[L.S_CURRENT]
    out[0] = math.log(max(size, 1))
    out[1] = 1.0 if size == 1 else 0.0
    out[2] = 1.0 if size == 2 else 0.0
    out[3] = wilds
    out[4] = draws
    out[5] = actions
    out[6] = distinct
    out[7] = playable
    out[8] = 1.0 if current == seat else 0.0
    nxt = -1
    if 0 <= current < state[L.S_NPLAYERS]:
        nxt = engine.next_seat(state, current, 1)
    out[9] = 1.0 if nxt == seat and current != seat else 0.0
    pending = state[L.S_PENDING] if current == seat else 0
    out[10] = math.log1p(max(pending, 0))
    out[11] = state[L.SITOUT + seat]


@njit(cache=True)
def traced_position(state: np.ndarray, spec: np.ndarray, out: np.ndarray) -> bool:
    """Whether the position counts in a trajectory (the first round runs and no player has
    left); if so, every seat's features into ``out[seat]``."""
    if state[L.S_STATUS] != L.ST_RUNNING or state[L.S_ROUND] != 0 or state[L.S_NFINISHED] != 0:
        return False
    row = np.zeros(NUM_FEATURES, dtype=np.float64)
    for seat in range(state[L.S_NPLAYERS]):
        seat_features(state, spec, seat, row)
        for k in range(NUM_FEATURES):
            out[seat, k] = row[k]
    return True


def position_features(state: np.ndarray, spec: np.ndarray) -> np.ndarray | None:
    """Every seat's features (``(seats, F)``) at a game's position (:attr:`uno_env.Game.state`
    and its compiled spec), or None where a trajectory does not count it (the round is over,
    or a player has left)."""
    out = np.zeros((int(state[L.S_NPLAYERS]), NUM_FEATURES), dtype=np.float64)
    return out if traced_position(state, spec, out) else None


@njit(cache=True)
def trace_games(
    spec: np.ndarray,
    num_players: int,
    deck: np.ndarray,
    seeds: np.ndarray,
    codes: np.ndarray,
    params: np.ndarray,
    seat_nets: np.ndarray,
    bank: np.ndarray,
    table: np.ndarray,
    offsets: np.ndarray,
    obs_size: int,
    results: GameResults,
    features: np.ndarray,
    position_game: np.ndarray,
) -> int:
    """Play game ``g`` from deal seed ``seeds[g]`` with seat ``s`` played by ``codes[s]`` and
    ``params[s]`` (or network ``seat_nets[s]`` of the bank), writing ``results`` and, at every
    decision of the first round while no player has left, every seat's features
    (``features[p, seat]``) with the game (``position_game[p]``). Returns the positions
    written, or -1 when ``features`` was too small (the games do not depend on it: the caller
    plays them again with more room)."""
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    width = 1
    for i in range(table.shape[0]):
        for j in range(table.shape[1]):
            width = max(width, table[i, j])
    xs = np.zeros((1, max(1, obs_size)), dtype=np.float32)
    h_a = np.zeros((1, max(1, width)), dtype=np.float32)
    h_b = np.zeros((1, max(1, width)), dtype=np.float32)
    one = np.zeros(1, dtype=np.int64)
    capacity = features.shape[0]
    positions = 0
    full = False
    for g in range(seeds.shape[0]):
        engine.new_game(state, spec, num_players, deck, seeds[g], 0, True)
        results.first_mover[g] = state[L.S_CURRENT]
        while state[L.S_STATUS] == L.ST_RUNNING:
            count = engine.fill_mask(state, spec, mask, True)
            seat = state[L.S_CURRENT]
            if state[L.S_ROUND] == 0 and state[L.S_NFINISHED] == 0 and not full:
                if positions >= capacity:
                    full = True
                else:
                    traced_position(state, spec, features[positions])
                    position_game[positions] = g
                    positions += 1
            # the random baselines' shortcut first, as the batch simulator plays them: the same games
            action = quick_action(state, spec, codes[seat], True) if seat_nets[seat] < 0 else -1
            if action >= 0:
                pass
            elif seat_nets[seat] >= 0:
                action = network_action(
                    state, spec, mask, count, offsets, bank, table, seat_nets[seat], xs, h_a, h_b, one
                )
            elif bank.shape[0] > 0:
                action = guided_choose(
                    state, spec, mask, count, codes[seat], params[seat], bank, table, offsets, obs_size
                )
            else:
                action = choose_action(state, spec, mask, count, codes[seat], params[seat])
            engine.apply_action(state, spec, action, True)
        record_result(state, spec, g, results)
    return -1 if full else positions


# ================================================================ traced games (Python)
@dataclass
class Trace:
    """Games played by :func:`trace`: their results (row ``g``: deal ``seeds[g]``) and the
    features of every seat at every recorded decision (``features[p, seat]``, decision ``p``
    of game ``position_game[p]``, in game order)."""

    seeds: np.ndarray
    results: GameResults
    features: np.ndarray
    position_game: np.ndarray

    @property
    def winner(self) -> np.ndarray:
        """Each game's winner (the first to leave under MC-END-1; -1 when truncated)."""
        return self.results.winner


def trace(
    rules: RuleSet | str,
    num_players: int,
    seeds: Sequence[int] | np.ndarray,
    seats: Sequence[str],
    *,
    allow_rules_mismatch: bool = False,
) -> Trace:
    """Play one game per deal seed with the players ``seats`` (one policy text per seat, as
    :func:`uno_env.simulate` takes them) and record every seat's features at each decision
    (see :func:`trace_games`).

    A network a seat plays with (an exported policy, a search's guide) trained for other rules
    or another player count is refused (:func:`uno_env.sim.learned.check_fits`) unless
    ``allow_rules_mismatch`` (a transfer), as in :func:`uno_env.simulate`."""
    game = compile_game(rules, num_players)
    if len(seats) != num_players:
        raise ValueError(f"seats lists {len(seats)} players for {num_players} seats")
    seating = network_seating(
        list(seats),
        game.rules,
        allow_rules_mismatch=check_switch("allow_rules_mismatch", allow_rules_mismatch),
    )
    seeds = np.asarray(seeds, dtype=np.int64)
    results = GameResults.allocate(len(seeds), num_players)
    room = max(64, 120 * len(seeds))
    while True:
        features = np.zeros((room, num_players, NUM_FEATURES), dtype=np.float32)
        position_game = np.zeros(room, dtype=np.int64)
        written = trace_games(
            game.spec, num_players, game.deck_counts, seeds, seating.codes, seating.params, seating.seat_nets,
            seating.bank, seating.table, seating.offsets, seating.obs_size, results, features, position_game,
        )  # fmt: skip
        if written >= 0:
            return Trace(seeds, results, features[:written], position_game[:written])
        room *= 4


# ================================================================ the model
@dataclass(frozen=True)
class WinModel:
    """A conditional logit over the seats: ``weights`` for :data:`FEATURES`."""

    weights: tuple[float, ...]

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Each seat's chance (``(positions, seats)``) from features ``(positions, seats, F)``."""
        w = np.asarray(self.weights, dtype=np.float64)
        score = np.asarray(features, dtype=np.float64) @ w
        score -= score.max(axis=1, keepdims=True)
        e = np.exp(score)
        return e / e.sum(axis=1, keepdims=True)

    def to_dict(self) -> dict[str, Any]:
        """The model as JSON-ready data (weights by feature name)."""
        return {"features": list(FEATURES), "weights": [round(float(w), 6) for w in self.weights]}

    @classmethod
    def from_dict(cls, data: Any, source: str = "model") -> WinModel:
        """A model from :meth:`to_dict`'s data; ValueError naming what is wrong."""
        if not isinstance(data, dict) or data.get("features") != list(FEATURES):
            raise ValueError(f"{source}: a win-chance model must list the features {', '.join(FEATURES)}")
        weights = data.get("weights")
        if (
            not isinstance(weights, list)
            or len(weights) != NUM_FEATURES
            or not all(
                isinstance(w, int | float) and not isinstance(w, bool) and math.isfinite(w) for w in weights
            )
        ):
            raise ValueError(f"{source}: weights must be {NUM_FEATURES} finite numbers")
        return cls(tuple(float(w) for w in weights))


def fit_win_model(features: np.ndarray, winners: np.ndarray, *, ridge: float = 1e-3) -> WinModel:
    """Fit a :class:`WinModel` by maximum likelihood: ``features`` ``(positions, seats, F)``,
    ``winners`` the seat that won the round of each position (positions of games without a
    winner must be left out). Newton's method with a weak ridge penalty (``ridge / 2 *
    |w|^2`` per position) that keeps the weights finite when a feature separates the winners."""
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(winners, dtype=np.int64)
    count = x.shape[0]
    if count == 0:
        raise ValueError("no positions to fit a win-chance model to")
    if y.shape != (count,) or y.min() < 0 or y.max() >= x.shape[1]:
        raise ValueError("winners must give the winning seat of every position")
    chosen = x[np.arange(count), y]
    w = np.zeros(x.shape[2])
    penalty = ridge * count

    def objective(v: np.ndarray) -> float:
        s = x @ v
        top = s.max(axis=1)
        return float(
            (chosen @ v - top - np.log(np.exp(s - top[:, None]).sum(axis=1))).sum() - 0.5 * penalty * v @ v
        )

    value = objective(w)
    for _ in range(100):
        s = x @ w
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        mean = np.einsum("ps,psf->pf", p, x)
        gradient = (chosen - mean).sum(axis=0) - penalty * w
        centred = x - mean[:, None, :]
        hessian = -np.einsum("ps,psf,psg->fg", p, centred, centred) - penalty * np.eye(x.shape[2])
        step = np.linalg.solve(-hessian, gradient)
        scale = 1.0
        while scale > 1e-8:
            trial = w + scale * step
            new = objective(trial)
            if new >= value - 1e-12 * abs(value):
                break
            scale /= 2.0
        w = w + scale * step
        value = objective(w)
        if float(np.abs(scale * step).max()) < 1e-9:
            break
    return WinModel(tuple(float(v) for v in w))


def hand_model_probabilities(features: np.ndarray, players: int) -> np.ndarray:
    """The search's leaf value (:func:`uno_env.styles.search.evaluate`, hand sizes, wild cards and
    the mover, weights fitted on official-Uno games between blockers) from the same features:
    a reference the fitted model must beat."""
    k = min(players, L.MAX_PLAYERS)
    cards = np.exp(np.asarray(features[..., 0], dtype=np.float64))
    weight = np.maximum(cards - VALUE_SHIFT[k], 1e-9) ** (-VALUE_EXPONENT[k])
    weight *= np.exp(VALUE_WILD[k] * features[..., 3] + VALUE_MOVER[k] * features[..., 8])
    return weight / weight.sum(axis=1, keepdims=True)


# ================================================================ measures
@dataclass(frozen=True)
class Calibration:
    """How well chances match outcomes: the Brier score (the mean over positions of
    ``sum_seats (p - won)^2``, 0 best; the fair-share guess scores ``1 - 1/n``), and the
    reliability curve: per bin of predicted chance (every seat of every position), the
    positions, the mean predicted chance and the share that won."""

    brier: float
    positions: int
    bins: tuple[tuple[int, float, float], ...]


def brier_per_game(
    probs: np.ndarray, position_game: np.ndarray, winners: np.ndarray, games: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per game: the sum of the positions' Brier scores and the positions counted (games
    without a winner count nothing), for intervals grouped by game."""
    won = np.zeros_like(probs)
    w = winners[position_game]
    keep = w >= 0
    won[np.flatnonzero(keep), w[keep]] = 1.0
    score = ((probs - won) ** 2).sum(axis=1) * keep
    sums = np.bincount(position_game, weights=score, minlength=games)
    counts = np.bincount(position_game, weights=keep.astype(np.float64), minlength=games)
    return sums, counts


def reliability_counts(probs: np.ndarray, position_game: np.ndarray, winners: np.ndarray) -> np.ndarray:
    """The reliability table's sums (``(bins, 3)``: predictions, their sum, wins) over every
    seat of every position of a game with a winner; sums of tables add up."""
    w = winners[position_game]
    keep = w >= 0
    p = probs[keep]
    won = np.zeros_like(p)
    won[np.arange(p.shape[0]), w[keep]] = 1.0
    index = np.minimum((p * RELIABILITY_BINS).astype(np.int64), RELIABILITY_BINS - 1).ravel()
    out = np.zeros((RELIABILITY_BINS, 3))
    out[:, 0] = np.bincount(index, minlength=RELIABILITY_BINS)
    out[:, 1] = np.bincount(index, weights=p.ravel(), minlength=RELIABILITY_BINS)
    out[:, 2] = np.bincount(index, weights=won.ravel(), minlength=RELIABILITY_BINS)
    return out


def calibration(probs: np.ndarray, position_game: np.ndarray, winners: np.ndarray) -> Calibration:
    """The :class:`Calibration` of chances ``probs`` (``(positions, seats)``) against the winners."""
    games = int(position_game.max()) + 1 if position_game.size else 0
    sums, counts = brier_per_game(probs, position_game, winners, games)
    table = reliability_counts(probs, position_game, winners)
    total = float(counts.sum())
    bins = tuple(
        (int(n), float(s / n) if n else math.nan, float(w / n) if n else math.nan) for n, s, w in table
    )
    return Calibration(float(sums.sum() / total) if total else math.nan, int(total), bins)


GAME_MEASURES = ("lead_changes", "winner_low", "comeback", "decided_at", "drama")
"""Per game (:func:`game_measures`): lead changes; the eventual winner's lowest chance; 1 if it
fell below :data:`COMEBACK`; the share of the game's decisions made before the winner's chance
stayed at or above :data:`DECIDED` for good; drama, the mean over the decisions of how far the
eventual winner's chance trails the leader's."""


def game_measures(
    probs: np.ndarray, position_game: np.ndarray, winners: np.ndarray, games: int
) -> dict[str, np.ndarray]:
    """The :data:`GAME_MEASURES` of every game (NaN for a game without a winner or a position)."""
    out = {name: np.full(games, math.nan) for name in GAME_MEASURES}
    starts = np.searchsorted(position_game, np.arange(games + 1))
    for g in range(games):
        lo, hi = int(starts[g]), int(starts[g + 1])
        w = int(winners[g])
        if hi <= lo or w < 0:
            continue
        p = probs[lo:hi]
        mine = p[:, w]
        leader = p.argmax(axis=1)
        out["lead_changes"][g] = float(np.count_nonzero(leader[1:] != leader[:-1]))
        low = float(mine.min())
        out["winner_low"][g] = low
        out["comeback"][g] = 1.0 if low < COMEBACK else 0.0
        below = np.flatnonzero(mine < DECIDED)
        out["decided_at"][g] = (int(below[-1]) + 1) / (hi - lo) if below.size else 0.0
        others = p.copy()
        others[:, w] = -1.0
        out["drama"][g] = float(np.maximum(others.max(axis=1) - mine, 0.0).mean())
    return out


# ================================================================ stored models
POOLED = "pooled"
"""The rules part of the key of a model fitted on several rule sets at one player count."""
SHIPPED = Path(__file__).resolve().parent.parent / "pretrained" / "winprob.json"
"""The model file shipped with the package (:func:`shipped_models`)."""


def model_key(rules: RuleSet | str, players: int) -> str:
    """The key of a model fitted for ``rules`` at ``players`` players in a model file."""
    return f"{load_rules(rules)}|{players}"


def save_models(path: Path, models: dict[str, Any]) -> None:
    """Write a model file: ``models`` maps :func:`model_key` (or ``pooled|N``) to entries
    ``{"model": WinModel.to_dict(), "fitted_on": "<what games>", ...}``."""
    text = json.dumps({"format": MODEL_FORMAT, "models": models}, indent=1, sort_keys=True) + "\n"
    path.write_text(text, encoding="utf-8")


def load_models(path: str | Path) -> dict[str, Any]:
    """The entries of a model file (bounded read, header checked before the rest is decoded);
    ValueError naming the file and what is wrong."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_MODEL_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot read win-chance model file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_MODEL_BYTES:
        raise ValueError(f"{path} is larger than {MAX_MODEL_BYTES:,} bytes: not a win-chance model file")
    if f'"format": "{MODEL_FORMAT}"'.encode() not in raw[:200]:
        raise ValueError(
            f'{path} is not a win-chance model file (it must start with {{"format": "{MODEL_FORMAT}"'
        )
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError(f"{path} is not a readable win-chance model file: {exc}") from None
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict) or not models:
        raise ValueError(f"{path}: 'models' must be a non-empty table of models")
    for key, entry in models.items():
        WinModel.from_dict(entry.get("model") if isinstance(entry, dict) else None, f"{path} [{key}]")
        rules, _, players = str(key).rpartition("|")
        if not rules or not players.isdigit():
            raise ValueError(f"{path}: model key {key!r} must be '<rules>|<players>' or 'pooled|<players>'")
    return models


@dataclass(frozen=True)
class ModelBook:
    """Win-chance models by rules and player count (a model file): :meth:`chances` uses the
    model fitted on exactly the game's rules and player count, else the one pooled over rule
    sets at that player count (:meth:`model_for` says which)."""

    models: dict[str, Any]
    source: str = ""

    @classmethod
    def load(cls, path: str | Path) -> ModelBook:
        """A model file (:func:`load_models`)."""
        return cls(load_models(path), str(path))

    def model_for(self, rules: RuleSet | str, players: int) -> tuple[WinModel, str]:
        """The model of ``rules`` at ``players`` players and its key; ValueError naming the
        player counts the file covers when it has none for this one."""
        for key in (model_key(rules, players), f"{POOLED}|{players}"):
            if key in self.models:
                return WinModel.from_dict(self.models[key]["model"], key), key
        counts = sorted({int(k.rpartition("|")[2]) for k in self.models})
        raise ValueError(
            f"the win-chance models of {self.source or 'this file'} cover {', '.join(map(str, counts))} "
            "players, "
            f"not {players}"
        )

    def chances(self, state: np.ndarray, spec: np.ndarray, rules: RuleSet | str, players: int) -> np.ndarray:
        """Each seat's chance of winning the round at a game's position (:attr:`uno_env.Game.state`
        and its compiled spec). Once the round's winner is known (it ended, or under MC-END-1
        the first player left) that seat's chance is 1."""
        features = position_features(state, spec)
        if features is None:
            out = np.zeros(players)
            winner = round_winner(state)
            if winner >= 0:
                out[winner] = 1.0
            return out
        model, _ = self.model_for(rules, players)
        return model.probabilities(features[None, :, :])[0]


def round_winner(state: np.ndarray) -> int:
    """The seat that won the first round so far: the first to leave (MC-END-1) or the winner of
    a finished round; -1 while nobody has."""
    n = int(state[L.S_NPLAYERS])
    for seat in range(n):
        if state[L.FINISHED + seat] == 1:
            return seat
    if state[L.S_ROUND] > 0:
        return int(state[L.S_ROUND_WINNER])
    return int(state[L.S_WINNER]) if state[L.S_STATUS] == L.ST_WON else -1


def shipped_models() -> ModelBook:
    """The model file shipped with the package: a model pooled over the presets for each player
    count 2..10, and the default atlas' strong-play model of each of its cells where it was
    published from one (``python -m training.atlas.publish``)."""
    return ModelBook.load(SHIPPED)


def fit_pooled(
    rules: Sequence[RuleSet | str],
    players: int,
    games: int,
    seats: Sequence[str],
    seed: int = 0,
    *,
    allow_rules_mismatch: bool = False,
) -> tuple[WinModel, int]:
    """A model fitted on ``games`` traced games of each rule set at ``players`` players, with
    the players ``seats`` cycling round the table (deal ``d`` seats them from offset ``d``);
    returns the model and the positions it was fitted on. ``allow_rules_mismatch`` as in
    :func:`trace`."""
    features, winners = [], []
    for r in rules:
        for shift in range(len(seats)):
            deals = np.arange(seed + shift, seed + games, len(seats), dtype=np.int64)
            table = [seats[(shift + j) % len(seats)] for j in range(players)]
            t = trace(r, players, deals, table, allow_rules_mismatch=allow_rules_mismatch)
            won = t.winner[t.position_game]
            keep = won >= 0
            features.append(t.features[keep])
            winners.append(won[keep])
    x = np.concatenate(features)
    return fit_win_model(x, np.concatenate(winners)), int(x.shape[0])
