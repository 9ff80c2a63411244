"""The search guided by a network: priors, rollouts and leaf values from an exported network.

``search:net=NAME`` (or ``oracle:net=NAME``) is the determinised search of
:mod:`uno_env.styles.search` with an exported network (:mod:`uno_env.sim.learned`: a ``.npz`` with its
JSON sidecar, compiled inference) in three places, each a parameter:

- **the kept move and the candidates** (``default``, ``top``): the search plays its default
  move unless another beats it by ``confidence`` standard errors; with ``default=net`` (the
  default once a network is given) that move is the network's most likely legal action
  instead of the rollout style's. ``top=K`` searches only the ``K`` actions the network finds
  most likely (and the default), so the budget goes to the plausible moves;
- **the rollouts** (``rollout``, ``own``): ``rollout=net`` lets the network play every seat
  in the rollouts; ``own=net`` only the searcher's own seat (the others keep ``rollout``'s
  style: a model of the opponents);
- **the leaves** (``value``): a network file may hold a *critic*, a value network that reads
  the observation with every other hand revealed (:func:`encode_privileged`; the search's
  sampled worlds hold every hand, so the critic is a privileged evaluator, as the critic of
  PerfectDou sees every hand in training) and gives the chance that the searcher wins. With
  ``value=net`` (the default when the file has a critic) an unfinished rollout is valued by
  it instead of the hand-size model.

Without a network every choice falls back to the plain search, and the search plays exactly
as :func:`uno_env.styles.search.search_action` does (tested): the same samples, rollouts and moves.

Parsed policies hold the network as an index of :data:`uno_env.styles.params.NETWORKS`; the
seating code (:func:`network_seating`) loads each file once, checks it against the rules,
packs every network (and critic) into one weight bank and writes the bank rows into its own
copy of the parameters (``P_NET``, ``P_CRITIC``). :func:`play_games_with_nets`
(the batch simulator with networks) and :class:`agents.GuidedSearchAgent` call
:func:`guided_search`; :func:`label_games` plays games and records what the search found at
every decision (the data of expert iteration, :mod:`training.expert`).

Rules used: those of :mod:`uno_env.styles.search` (U-DRAW-3, U-WD4-1, U-WD4-2, U-UNO-1, MC-CALL-1,
MM-CALL-1, H-ZEROSEE-1, E-CONS-1): the guide changes which moves are searched and how
positions are valued, never what a sample may know.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..compiler.borrow import borrow
from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.rng import chance_ppm, seed_rng
from ..engine.rules import load_rules
from ..game.encoding import REVEALED, encode, obs_layout
from ..styles.baselines import POLICY_RANDOM_LEGAL, random_action
from ..styles.dispatch import choose_action
from ..styles.facts import true_call
from ..styles.params import (
    AUTO,
    NETWORKS,
    NUM_POLICY_PARAMS,
    P_CONFIDENCE,
    P_CRITIC,
    P_DEFAULT,
    P_DEPTH,
    P_EXPLORE,
    P_INFER,
    P_NET,
    P_OWN,
    P_PILE,
    P_ROLLOUT,
    P_SIMS,
    P_TOP,
    P_TRUST,
    P_VALUE,
    param,
)
from ..styles.registry import parse_policy, policy_table
from ..styles.rollout import ROLLOUT_LIMIT, rollout
from ..styles.scripted import scripted_action
from ..styles.search import (
    CONFIDENCE_DEFAULT,
    DEFAULT_NET,
    EXPLORE_DEFAULT,
    INFER_DEFAULT,
    OWN_NET,
    PILE_DEFAULT,
    POLICY_ORACLE,
    POLICY_SEARCH,
    ROLLOUT_DEFAULT,
    ROLLOUT_NET,
    SEARCH_DEPTH_DEFAULT,
    SIMS_DEFAULT,
    TRUST_DEFAULT,
    VALUE_NET,
    WIN,
    evaluate,
    inferred_avoid,
    sample_inferred_world,
    search_value_default,
    wild_face_mask,
)
from .learned import (
    TRANSFER_ARGUMENT,
    ExportedPolicy,
    best_legal,
    check_fits,
    forward_rows,
    is_learned_policy,
    load_policy,
    only_legal,
    pack_layers,
    widest_layer,
)
from .results import ILLEGAL_ACTION, GameResults, record_result

LOCKSTEP_GAMES = 256
"""Games played at once in :func:`play_games_with_nets` (rows of the observation matrix)."""
STAT_VALUE = 0
"""Column of :func:`guided_search`'s ``stats``: the sum of a candidate's rollout values."""
STAT_SAMPLES = 1
"""Column of ``stats``: the rollouts of a candidate."""
STAT_PRIOR = 2
"""Column of ``stats``: 1 for the move the search kept by default (its rollout style's or network's)."""
STAT_COLUMNS = 3
CRITIC_STREAM = 0xC217
"""Generator stream that picks the decisions whose privileged observations :func:`label_games` keeps."""


# ================================================================ the network's parts
@njit(cache=True)
def encode_privileged(
    state: np.ndarray, spec: np.ndarray, seat: int, offsets: np.ndarray, out: np.ndarray
) -> None:
    """``seat``'s observation (:func:`uno_env.game.encoding.encode`) with every other hand
    written into the ``revealed`` slice, as if ``seat`` had looked at them all: what a critic
    reads. In a sampled world of the search the hands are the sample's, never the true ones."""
    encode(state, spec, seat, offsets, out)
    n = state[L.S_NPLAYERS]
    nf = spec[L.SP_NUM_FACES]
    o = offsets[REVEALED]
    for k in range(1, n):
        other = engine.wrap_seat(seat + k, n)
        base = L.HANDS + other * L.MAX_FACES
        row = o + (k - 1) * nf
        for face in range(nf):
            out[row + face] = state[base + face]


@njit(cache=True)
def output_unit(bank: np.ndarray, table: np.ndarray, net: int, hidden: np.ndarray, unit: int) -> float:
    """Output ``unit`` (an action's logit, or a critic's value logit) of network ``net`` on its
    last hidden activations ``hidden``."""
    j = table[net, 0] - 1
    n_in = table[net, 2 + 4 * j]
    base = table[net, 4 + 4 * j] + unit * n_in
    out = np.float32(bank[table[net, 5 + 4 * j] + unit])
    for i in range(n_in):
        out += hidden[i] * bank[base + i]
    return float(out)


@njit(cache=True)
def critic_value(
    sim: np.ndarray,
    spec: np.ndarray,
    seat: int,
    offsets: np.ndarray,
    bank: np.ndarray,
    table: np.ndarray,
    critic: int,
    x: np.ndarray,
    h_a: np.ndarray,
    h_b: np.ndarray,
    rows: np.ndarray,
) -> float:
    """The critic's chance that ``seat`` wins from the full position ``sim`` (a sigmoid of its
    output on :func:`encode_privileged`). ``x``, ``h_a``, ``h_b``, ``rows``: one-row scratch."""
    encode_privileged(sim, spec, seat, offsets, x[0])
    forward_rows(bank, table, critic, x, rows, 1, h_a, h_b)
    logit = output_unit(bank, table, critic, h_a[0], 0)
    return 1.0 / (1.0 + np.exp(-logit))


@njit(cache=True)
def network_action(
    sim: np.ndarray,
    spec: np.ndarray,
    mask: np.ndarray,
    count: int,
    offsets: np.ndarray,
    bank: np.ndarray,
    table: np.ndarray,
    net: int,
    x: np.ndarray,
    h_a: np.ndarray,
    h_b: np.ndarray,
    rows: np.ndarray,
) -> int:
    """The legal action with the highest logit of network ``net`` for the mover of ``sim``
    (ties: the lowest id; a forced decision needs no network)."""
    num_actions = spec[L.SP_NUM_ACTIONS]
    if count == 1:
        return only_legal(mask, num_actions)
    encode(sim, spec, sim[L.S_CURRENT], offsets, x[0])
    forward_rows(bank, table, net, x, rows, 1, h_a, h_b)
    best = -1
    best_logit = -np.inf
    for a in range(num_actions):
        if mask[a]:
            logit = output_unit(bank, table, net, h_a[0], a)
            if best < 0 or logit > best_logit:
                best = a
                best_logit = logit
    return best


# ================================================================ rollouts and the decision
@njit(cache=True)
def guided_rollout(
    sim: np.ndarray,
    spec: np.ndarray,
    seat: int,
    start_round: int,
    depth: int,
    mask: np.ndarray,
    policy: int,
    own_net: bool,
    params: np.ndarray,
    explore_ppm: int,
    model: int,
    wild_faces: int,
    net: int,
    critic: int,
    bank: np.ndarray,
    table: np.ndarray,
    offsets: np.ndarray,
    x: np.ndarray,
    h_a: np.ndarray,
    h_b: np.ndarray,
    rows: np.ndarray,
) -> float:
    """:func:`uno_env.styles.search.rollout` with a network: it plays every seat (``policy`` is
    :data:`~uno_env.styles.search.ROLLOUT_NET`) or the searcher's own (``own_net``), the rollout
    style the others; the leaf is valued by the critic when ``model`` is ``VALUE_NET``. Where
    no network plays, the play is the styles' one rollout (:func:`uno_env.styles.rollout.rollout`)."""
    limit = ROLLOUT_LIMIT if depth <= 0 else min(depth, ROLLOUT_LIMIT)
    steps = limit
    if net < 0 or (policy != ROLLOUT_NET and not own_net):
        rollout(sim, spec, start_round, depth, mask, policy, params, explore_ppm)
    else:
        steps = 0
    while sim[L.S_STATUS] == L.ST_RUNNING and sim[L.S_ROUND] == start_round and steps < limit:
        count = engine.fill_mask(sim, spec, mask, True)
        mover = sim[L.S_CURRENT]
        if net >= 0 and (policy == ROLLOUT_NET or (own_net and mover == seat)):
            if explore_ppm > 0 and chance_ppm(sim, L.AGENT_RNG, explore_ppm):
                action = random_action(sim, mask, count)
            else:
                action = network_action(sim, spec, mask, count, offsets, bank, table, net, x, h_a, h_b, rows)
        elif policy == POLICY_RANDOM_LEGAL or (explore_ppm > 0 and chance_ppm(sim, L.AGENT_RNG, explore_ppm)):
            action = random_action(sim, mask, count)
        else:
            action = scripted_action(sim, spec, mask, policy, params)
        engine.apply_action(sim, spec, action, True)
        steps += 1
    if sim[L.S_ROUND] != start_round:
        return WIN if sim[L.S_ROUND_WINNER] == seat else 0.0
    if model == VALUE_NET:
        return WIN * critic_value(sim, spec, seat, offsets, bank, table, critic, x, h_a, h_b, rows)
    return WIN * evaluate(sim, spec, seat, model, wild_faces)


@njit(cache=True)
def guided_search(
    state: np.ndarray,
    spec: np.ndarray,
    mask: np.ndarray,
    count: int,
    params: np.ndarray,
    oracle: bool,
    bank: np.ndarray,
    table: np.ndarray,
    offsets: np.ndarray,
    obs_size: int,
    stats: np.ndarray,
) -> int:
    """The search's action for the mover of ``state``, guided by network ``params[P_NET]``
    and critic ``params[P_CRITIC]`` of the bank (bank rows; -1: none), -1 when nothing is
    legal. Without either it is :func:`uno_env.styles.search.search_action` move for move.

    ``stats`` (``(MAX_ACTIONS, STAT_COLUMNS)`` float64, added to; may have 0 rows: not kept):
    per action searched the sum of its rollout values and their number, and a 1 in
    :data:`STAT_PRIOR` for the default move (what :func:`label_games` records).
    """
    if count <= 0:
        return -1
    nf = spec[L.SP_NUM_FACES]
    candidates = np.empty(L.MAX_ACTIONS, dtype=np.int64)
    num = engine.list_legal(spec, mask, candidates)
    if num == 1:
        return candidates[0]
    if true_call(state, spec, mask):
        return nf + L.A_CALL_OFFSET  # U-UNO-1: a true call never costs anything
    seat = state[L.S_CURRENT]
    sims = max(1, param(params, P_SIMS, SIMS_DEFAULT))
    depth = param(params, P_DEPTH, SEARCH_DEPTH_DEFAULT)
    trust = 0 if oracle else param(params, P_TRUST, TRUST_DEFAULT)
    infer = 0 if oracle else param(params, P_INFER, INFER_DEFAULT)
    confidence = param(params, P_CONFIDENCE, CONFIDENCE_DEFAULT) / 100.0
    policy = param(params, P_ROLLOUT, ROLLOUT_DEFAULT)
    explore = param(params, P_EXPLORE, EXPLORE_DEFAULT)
    net = params[P_NET] if params[P_NET] >= 0 else -1
    critic = params[P_CRITIC] if params[P_CRITIC] >= 0 else -1
    stored_model = params[P_VALUE]
    if stored_model == AUTO or stored_model < 0:
        model = VALUE_NET if critic >= 0 else search_value_default(state[L.S_NPLAYERS])
    else:
        model = stored_model
    top = param(params, P_TOP, 0) if net >= 0 else 0
    by_net = net >= 0 and param(params, P_DEFAULT, DEFAULT_NET) == DEFAULT_NET
    own_net = net >= 0 and param(params, P_OWN, 0) == OWN_NET
    wilds = wild_face_mask(spec)
    mode = 0
    if oracle:
        mode = 2 if param(params, P_PILE, PILE_DEFAULT) == 1 else 1
    style_params = np.full(NUM_POLICY_PARAMS, -1, dtype=np.int64)
    width = widest_layer(table)
    x = np.zeros((1, max(1, obs_size)), dtype=np.float32)
    h_a = np.zeros((1, width), dtype=np.float32)
    h_b = np.zeros((1, width), dtype=np.float32)
    rows = np.zeros(1, dtype=np.int64)
    prior = np.zeros(num, dtype=np.float64)
    if net >= 0 and (by_net or top > 0):
        encode(state, spec, seat, offsets, x[0])
        forward_rows(bank, table, net, x, rows, 1, h_a, h_b)
        for c in range(num):
            prior[c] = output_unit(bank, table, net, h_a[0], candidates[c])
    # the kept move: the network's most likely action, or the rollout style's own choice
    default = 0
    if by_net:
        for c in range(1, num):
            if prior[c] > prior[default]:
                default = c
    elif policy != POLICY_RANDOM_LEGAL and policy != ROLLOUT_NET:
        chosen = scripted_action(state, spec, mask, policy, style_params)
        for c in range(num):
            if candidates[c] == chosen:
                default = c
    alive = np.ones(num, dtype=np.bool_)
    left = num
    if 0 < top < num:  # the network's top candidates (and the kept move) are searched
        order = np.argsort(-prior, kind="mergesort")
        alive[:] = False
        alive[default] = True
        kept = 1
        for k in range(num):
            if kept >= max(top, 1):
                break
            if not alive[order[k]]:
                alive[order[k]] = True
                kept += 1
        left = kept
    world = np.empty(L.STATE_SIZE, dtype=np.int64)
    sim = np.empty(L.STATE_SIZE, dtype=np.int64)
    pool = np.empty(L.MAX_CARDS, dtype=np.int64)
    used = np.empty(L.MAX_CARDS, dtype=np.int8)
    scratch = np.empty(L.MAX_ACTIONS, dtype=np.int8)
    value = np.zeros(num, dtype=np.float64)
    total = np.zeros(num, dtype=np.float64)
    gain = np.zeros(num, dtype=np.float64)  # sums of the paired differences to the default
    gain_sq = np.zeros(num, dtype=np.float64)
    samples = np.zeros(num, dtype=np.int64)
    # successive halving, as the plain search: rounds until one challenger is left
    rounds = 1
    while (1 << rounds) < left:
        rounds += 1
    spent = 0
    avoid = inferred_avoid(state, spec, world, pool, used, mode, trust, infer, policy, style_params, sim)
    for r in range(rounds):
        worlds = max(1, (sims - spent) // (rounds - r) // left)
        for _ in range(worlds):
            sample_inferred_world(
                state, spec, world, pool, used, mode, trust, infer, policy, style_params, sim, scratch, avoid
            )
            for c in range(num):
                if not alive[c]:
                    continue
                for i in range(L.STATE_SIZE):
                    sim[i] = world[i]
                engine.apply_action(sim, spec, candidates[c], True)
                value[c] = guided_rollout(
                    sim, spec, seat, world[L.S_ROUND], depth, scratch, policy, own_net, style_params, explore,
                    model, wilds, net, critic, bank, table, offsets, x, h_a, h_b, rows,
                )  # fmt: skip
                spent += 1
            for c in range(num):
                if alive[c]:
                    diff = value[c] - value[default]
                    total[c] += value[c]
                    gain[c] += diff
                    gain_sq[c] += diff * diff
                    samples[c] += 1
        if r == rounds - 1:
            break
        keep = (left + 2) // 2  # the default stays in, with the better half of the others
        for _ in range(left - keep):
            worst = -1
            for c in range(num):
                if (
                    alive[c]
                    and c != default
                    and (worst < 0 or gain[c] * samples[worst] <= gain[worst] * samples[c])
                ):
                    worst = c
            alive[worst] = False
        left = keep
    best = default
    best_score = 0.0
    for c in range(num):
        if not alive[c] or c == default:
            continue
        mean = gain[c] / samples[c]
        spread = max(0.0, gain_sq[c] / samples[c] - mean * mean)
        score = mean - confidence * np.sqrt(spread / samples[c])
        if score > best_score:
            best = c
            best_score = score
    if stats.shape[0] > 0:
        for c in range(num):
            if samples[c] > 0:
                stats[candidates[c], STAT_VALUE] += total[c]
                stats[candidates[c], STAT_SAMPLES] += samples[c]
        stats[candidates[default], STAT_PRIOR] = 1.0
    return candidates[best]


@njit(cache=True)
def guided_choose(
    state: np.ndarray,
    spec: np.ndarray,
    mask: np.ndarray,
    count: int,
    policy: int,
    params: np.ndarray,
    bank: np.ndarray,
    table: np.ndarray,
    offsets: np.ndarray,
    obs_size: int,
) -> int:
    """:func:`uno_env.styles.dispatch.choose_action` for a seat that may be a guided search: a search
    with a network or critic (bank rows in ``params``) searches with them, any other policy
    plays as ``choose_action`` plays it."""
    if (policy == POLICY_SEARCH or policy == POLICY_ORACLE) and (params[P_NET] >= 0 or params[P_CRITIC] >= 0):
        none = np.zeros((0, 3), dtype=np.float64)
        return guided_search(
            state, spec, mask, count, params, policy == POLICY_ORACLE, bank, table, offsets, obs_size, none
        )
    return choose_action(state, spec, mask, count, policy, params)


# ================================================================ the batch simulator with networks
@njit(cache=True)
def play_games_with_nets(
    spec: np.ndarray,
    num_players: int,
    deck: np.ndarray,
    seed: int,
    policies: np.ndarray,
    params: np.ndarray,
    seat_nets: np.ndarray,
    bank: np.ndarray,
    table: np.ndarray,
    offsets: np.ndarray,
    obs_size: int,
    check: bool,
    results: GameResults,
) -> tuple[int, int]:
    """:func:`uno_env.sim.batch.play_games_with_params` with learned seats (``seat_nets[s] >= 0``:
    network ``seat_nets[s]`` of the bank plays seat ``s``; -1: compiled policy
    ``policies[s]`` with ``params[s]``). Same results record and failure codes.

    Games run :data:`LOCKSTEP_GAMES` at a time: each game is advanced (scripted seats and
    forced decisions inline) until a learned seat must choose; those games' observations fill
    the rows of one matrix, each network runs once over its rows, and each game applies its
    row's action.
    """
    spec = borrow(spec)
    deck = borrow(deck)
    params = borrow(params)
    bank = borrow(bank)
    table = borrow(table)
    offsets = borrow(offsets)
    games = len(results.winner)
    block = min(LOCKSTEP_GAMES, max(1, games))
    width = widest_layer(table)
    states = np.zeros((block, L.STATE_SIZE), dtype=np.int64)
    masks = np.zeros((block, L.MAX_ACTIONS), dtype=np.int8)
    counts = np.zeros(block, dtype=np.int64)
    x = np.zeros((block, obs_size), dtype=np.float32)
    h_a = np.zeros((block, width), dtype=np.float32)
    h_b = np.zeros((block, width), dtype=np.float32)
    waiting = np.zeros(block, dtype=np.int64)
    waiting_net = np.zeros(block, dtype=np.int64)
    rows = np.zeros(block, dtype=np.int64)
    num_actions = spec[L.SP_NUM_ACTIONS]
    for start in range(0, games, block):
        size = min(block, games - start)
        for i in range(size):
            engine.new_game(states[i], spec, num_players, deck, seed + start + i, 0, True)
            results.first_mover[start + i] = states[i, L.S_CURRENT]
        live = size
        while live > 0:
            ready = 0
            for i in range(size):
                state = states[i]
                mask = masks[i]
                while state[L.S_STATUS] == L.ST_RUNNING:
                    if check:
                        code = engine.check_invariants(state, spec, mask, True)
                        if code != engine.INV_OK:
                            return start + i, code
                    counts[i] = engine.fill_mask(state, spec, mask, True)
                    seat = state[L.S_CURRENT]
                    if seat_nets[seat] >= 0 and counts[i] == 1:  # forced: no network needed
                        engine.apply_action(state, spec, only_legal(mask, num_actions), True)
                        continue
                    if seat_nets[seat] >= 0:
                        encode(state, spec, seat, offsets, x[i])
                        waiting[ready] = i
                        waiting_net[ready] = seat_nets[seat]
                        ready += 1
                        break
                    action = guided_choose(
                        state,
                        spec,
                        mask,
                        counts[i],
                        policies[seat],
                        params[seat],
                        bank,
                        table,
                        offsets,
                        obs_size,
                    )
                    if check and not engine.is_legal(spec, action, mask):
                        return start + i, ILLEGAL_ACTION
                    engine.apply_action(state, spec, action, True)
            for net in range(table.shape[0]):
                used = 0
                for r in range(ready):
                    # the network of the seat the row was encoded for: an earlier network's
                    # move may already have passed the game to this network's seat, with an
                    # observation and mask not yet written for it
                    if waiting_net[r] == net:
                        rows[used] = waiting[r]
                        used += 1
                if used == 0:
                    continue
                forward_rows(bank, table, net, x, rows, used, h_a, h_b)
                for r in range(used):
                    i = rows[r]
                    action = best_legal(bank, table, net, h_a[i], masks[i], num_actions)
                    engine.apply_action(states[i], spec, action, True)
            live = 0
            for i in range(size):
                if states[i, L.S_STATUS] == L.ST_RUNNING:
                    live += 1
        for i in range(size):
            state = states[i]
            g = start + i
            if check:
                code = engine.check_invariants(state, spec, masks[i], True)
                if code != engine.INV_OK:
                    return g, code
            if state[L.S_ENGINE_ERROR] != L.ERR_NONE:  # a bounds check ended the game
                return g, engine.INV_ENGINE_ERROR
            record_result(state, spec, g, results)
    return -1, 0


# ================================================================ seating (Python)
@dataclass(frozen=True)
class Seating:
    """The compiled arguments of a table whose seats may hold networks.

    ``codes``/``params``: every seat's compiled style and parameters (a learned seat plays
    ``random`` there, never asked; a guided search's ``P_NET``/``P_CRITIC`` hold bank rows);
    ``seat_nets``: per seat the bank row of its learned policy (-1: a compiled style);
    ``bank``/``table``: every network packed (:func:`uno_env.sim.learned.pack_layers`);
    ``offsets``: the observation layout; ``obs_size``: the values encoded, the most any of the
    networks reads (a network of an older observation version reads a prefix of the layout).
    """

    codes: np.ndarray
    params: np.ndarray
    seat_nets: np.ndarray
    bank: np.ndarray
    table: np.ndarray
    offsets: np.ndarray
    obs_size: int
    networks: tuple[str, ...]

    @property
    def has_networks(self) -> bool:
        """Whether any seat plays or searches with a network."""
        return bool(self.networks)


def network_of(text: str) -> str | None:
    """The network a policy text's search is guided by (``search:net=NAME``), else None."""
    if is_learned_policy(text):
        return None
    style, params = parse_policy(text)
    if not style.is_search or params[P_NET] < 0:
        return None
    return NETWORKS[int(params[P_NET])]


def network_seating(
    names: list[str], rules: Any, *, allow_rules_mismatch: bool, allow_with: str = TRANSFER_ARGUMENT
) -> Seating:
    """The compiled arguments for seats named ``names`` (styles, exported policies and guided
    searches; one per seat): each network file is loaded once (:func:`uno_env.sim.learned.load_policy`,
    the one validation path) and checked against ``rules`` and ``len(names)`` players
    (:func:`uno_env.sim.learned.check_fits`: deck family, observation spec, env version, and
    unless ``allow_rules_mismatch`` the rules and player count it was trained for; a refusal that
    could be allowed names ``allow_with``); a search that asks for the critic (``value=net``) of
    a file without one is refused."""
    ruleset = load_rules(rules)
    entries: list[tuple[str, tuple[np.ndarray, ...], tuple[np.ndarray, ...], str]] = []
    rows: dict[tuple[str, str], int] = {}

    def row(policy: ExportedPolicy, key: str, part: str) -> int:
        if (key, part) not in rows:
            if part == "actor":
                entries.append((policy.name, policy.weights, policy.biases, policy.activation))
            else:
                entries.append(
                    (f"{policy.name} critic", policy.critic_weights, policy.critic_biases, policy.activation)
                )
            rows[(key, part)] = len(entries) - 1
        return rows[(key, part)]

    def loaded(key: str, seat: int, name: str) -> ExportedPolicy:
        policy = load_policy(key)
        where = "" if key == name.strip() else f"seat {seat} {name!r}, the search's network: "
        check_fits(
            policy, ruleset, len(names), allow_rules_mismatch=allow_rules_mismatch, allow_with=allow_with,
            where=where,
        )  # fmt: skip
        return policy

    styles = ["random" if is_learned_policy(name) else name for name in names]
    codes, params = policy_table(styles, networks=True)
    seat_nets = np.full(len(names), -1, dtype=np.int64)
    for seat, name in enumerate(names):
        if is_learned_policy(name):
            key = name.strip()
            seat_nets[seat] = row(loaded(key, seat, name), key, "actor")
            continue
        guide = network_of(name)
        if guide is None:
            continue
        policy = loaded(guide, seat, name)
        params[seat, P_NET] = row(policy, guide, "actor")
        params[seat, P_CRITIC] = row(policy, guide, "critic") if policy.has_critic else -1
        if params[seat, P_VALUE] == VALUE_NET and not policy.has_critic:
            raise ValueError(f"{name!r}: value=net needs a network file with a critic; {guide} has none")
    bank, table = pack_layers(entries)
    layout = obs_layout(ruleset.deck_family)
    # the networks read a prefix of the vector (an older observation version's): encode only it
    width = max((weights[0].shape[1] for _, weights, _, _ in entries), default=layout.size)
    return Seating(
        codes, params, seat_nets, bank, table, layout.offsets, width, tuple(key for key, _ in rows)
    )


class GuidedChooser:
    """A guided search's decisions for a Python agent (:class:`agents.ScriptedAgent`): the
    network of ``text`` loaded once, packed per deck family, checked against its observation
    layout. Called as ``chooser(state, spec, mask, count)`` (the agent's redacted state)."""

    def __init__(self, text: str) -> None:
        network = network_of(text)
        if network is None:
            raise ValueError(f"{text!r} is not a search guided by a network (net=NAME)")
        self.style, self.params = parse_policy(text)
        self.policy = load_policy(network)
        if self.params[P_VALUE] == VALUE_NET and not self.policy.has_critic:
            raise ValueError(f"{text!r}: value=net needs a network file with a critic; {network} has none")
        self._packed: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]] = {}

    def arguments(self, spec: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        deck = int(spec[L.SP_DECK])
        if deck not in self._packed:
            layout = obs_layout("french" if deck == 1 else "uno")
            read = obs_layout(layout.deck, self.policy.obs_version).size  # a prefix of layout.size
            if read != self.policy.inputs:
                raise ValueError(
                    f"network {self.policy.name} reads observations of {self.policy.inputs} values; this "
                    f"game's deck family gives {read} (obs-v{self.policy.obs_version})"
                )
            entries = [(self.policy.name, self.policy.weights, self.policy.biases, self.policy.activation)]
            params = self.params.copy()
            params[P_NET] = 0
            params[P_CRITIC] = -1
            if self.policy.has_critic:
                entries.append(
                    (
                        self.policy.name,
                        self.policy.critic_weights,
                        self.policy.critic_biases,
                        self.policy.activation,
                    )
                )
                params[P_CRITIC] = 1
            bank, table = pack_layers(entries)
            self._packed[deck] = (params, bank, table, layout.offsets, layout.size)
        return self._packed[deck]

    def __call__(self, state: np.ndarray, spec: np.ndarray, mask: np.ndarray, count: int) -> int:
        params, bank, table, offsets, size = self.arguments(spec)
        return int(
            guided_choose(state, spec, mask, count, self.style.code, params, bank, table, offsets, size)
        )


# ================================================================ labelled games (expert iteration)
@njit(cache=True)
def _append_sparse(x: np.ndarray, indices: np.ndarray, values: np.ndarray, nnz: int) -> int:
    """Append the non-zero entries of ``x`` to ``indices``/``values`` from ``nnz``; return the
    new count, or -1 when they do not fit."""
    for i in range(x.shape[0]):
        if x[i] != 0.0:
            if nnz >= indices.shape[0]:
                return -1
            indices[nnz] = i
            values[nnz] = x[i]
            nnz += 1
    return nnz


@njit(cache=True)
def label_games(
    spec: np.ndarray,
    num_players: int,
    deck: np.ndarray,
    seed: int,
    games: int,
    codes: np.ndarray,
    params: np.ndarray,
    labelled: np.ndarray,
    seat_nets: np.ndarray,
    bank: np.ndarray,
    table: np.ndarray,
    offsets: np.ndarray,
    obs_size: int,
    critic_ppm: int,
    obs_ptr: np.ndarray,
    obs_idx: np.ndarray,
    obs_val: np.ndarray,
    masks: np.ndarray,
    cand_ptr: np.ndarray,
    cand_action: np.ndarray,
    cand_value: np.ndarray,
    cand_samples: np.ndarray,
    kept: np.ndarray,
    played: np.ndarray,
    row_game: np.ndarray,
    row_seat: np.ndarray,
    crit_ptr: np.ndarray,
    crit_idx: np.ndarray,
    crit_val: np.ndarray,
    crit_game: np.ndarray,
    crit_seat: np.ndarray,
    winners: np.ndarray,
) -> tuple[int, int]:
    """Play ``games`` games and record what the searches found: the data of expert iteration.

    Game ``g`` is dealt from ``seed + g``; its seat ``s`` plays row ``(s - g) mod N`` of
    ``codes``/``params``/``seat_nets`` (styles, searches with bank rows in ``params``, or a
    learned policy's bank row), so the rows rotate through the seats. Every decision of a
    ``labelled`` row's search with two or more legal actions is a row (a true UNO call, made
    without searching, too: its one candidate is the call, with no rollouts):
    the mover's observation (sparse: entries ``obs_ptr[r]:obs_ptr[r+1]`` of
    ``obs_idx``/``obs_val``, the non-zero ones), its legal actions (``masks``), every action
    searched with its mean rollout value and rollouts (``cand_*``, entries
    ``cand_ptr[r]:cand_ptr[r+1]``), the move the search kept by default (``kept``), the action
    played, the game and the seat. With chance ``critic_ppm`` (millionths, from a generator
    of its own seeded by the game's seed, so the games do not depend on it) a decision of any
    seat also gives the privileged observation (:func:`encode_privileged`) of every seat, with
    the game and seat (``crit_*``): the critic's inputs. ``winners[g]``: the winner (-1: none).

    Returns (rows, critic rows); -1 for either when its buffers were too small (the caller
    plays the same games again with larger ones: the games do not depend on the buffers).
    """
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    x = np.zeros(max(1, obs_size), dtype=np.float32)
    stats = np.zeros((L.MAX_ACTIONS, STAT_COLUMNS), dtype=np.float64)
    none = np.zeros((0, STAT_COLUMNS), dtype=np.float64)
    width = widest_layer(table)
    xs = np.zeros((1, max(1, obs_size)), dtype=np.float32)
    h_a = np.zeros((1, width), dtype=np.float32)
    h_b = np.zeros((1, width), dtype=np.float32)
    one = np.zeros(1, dtype=np.int64)
    num_actions = spec[L.SP_NUM_ACTIONS]
    rows = 0
    crows = 0
    full = False
    cfull = False
    obs_ptr[0] = 0
    cand_ptr[0] = 0
    crit_ptr[0] = 0
    sampler = np.zeros(L.RNG_WORDS, dtype=np.int64)
    for g in range(games):
        engine.new_game(state, spec, num_players, deck, seed + g, 0, True)
        seed_rng(sampler, 0, seed + g, CRITIC_STREAM)
        while state[L.S_STATUS] == L.ST_RUNNING:
            count = engine.fill_mask(state, spec, mask, True)
            seat = state[L.S_CURRENT]
            entry = (seat - g) % num_players
            if critic_ppm > 0 and chance_ppm(sampler, 0, critic_ppm) and not cfull:
                for observer in range(num_players):
                    encode_privileged(state, spec, observer, offsets, x)
                    nnz = _append_sparse(x, crit_idx, crit_val, crit_ptr[crows])
                    if nnz < 0 or crows + 1 >= crit_ptr.shape[0]:
                        cfull = True
                        break
                    crit_game[crows] = g
                    crit_seat[crows] = observer
                    crows += 1
                    crit_ptr[crows] = nnz
            code = codes[entry]
            search = code == POLICY_SEARCH or code == POLICY_ORACLE
            if seat_nets[entry] >= 0:
                action = network_action(
                    state, spec, mask, count, offsets, bank, table, seat_nets[entry], xs, h_a, h_b, one
                )
            elif search and labelled[entry] and count > 1 and not full:
                stats[:, :] = 0.0
                action = guided_search(
                    state, spec, mask, count, params[entry], code == POLICY_ORACLE, bank, table, offsets,
                    obs_size, stats,
                )  # fmt: skip
                searched = 0
                for a in range(num_actions):
                    searched += stats[a, STAT_SAMPLES] > 0
                if searched == 0:  # a true UNO call, made at once: the one candidate, kept and played
                    stats[action, STAT_PRIOR] = 1.0
                encode(state, spec, seat, offsets, x)
                nnz = _append_sparse(x, obs_idx, obs_val, obs_ptr[rows])
                at = cand_ptr[rows]
                if nnz < 0 or rows + 1 >= obs_ptr.shape[0] or at + max(searched, 1) > cand_action.shape[0]:
                    full = True
                else:
                    for a in range(num_actions):
                        masks[rows, a] = mask[a]
                        if stats[a, STAT_SAMPLES] > 0 or (searched == 0 and a == action):
                            cand_action[at] = a
                            samples = stats[a, STAT_SAMPLES]
                            cand_value[at] = stats[a, STAT_VALUE] / samples if samples > 0 else WIN
                            cand_samples[at] = samples
                            at += 1
                        if stats[a, STAT_PRIOR] > 0:
                            kept[rows] = a
                    played[rows] = action
                    row_game[rows] = g
                    row_seat[rows] = seat
                    rows += 1
                    obs_ptr[rows] = nnz
                    cand_ptr[rows] = at
            elif search:
                action = guided_search(
                    state, spec, mask, count, params[entry], code == POLICY_ORACLE, bank, table, offsets,
                    obs_size, none,
                )  # fmt: skip
            else:
                action = choose_action(state, spec, mask, count, code, params[entry])
            engine.apply_action(state, spec, action, True)
        winners[g] = state[L.S_WINNER]
    return (-1 if full else rows), (-1 if cfull else crows)
