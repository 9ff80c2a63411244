"""The Monte-Carlo sampler (``monte_carlo``): determinise the hidden cards, roll every option out.

It deals the cards the mover cannot see at random into the other hands (same sizes) and the
draw pile (:func:`determinise`), applies each legal action and plays on with greedy play at
every seat (:func:`~uno_env.styles.rollout.rollout`, scored by :func:`rollout_score`), and
keeps the greedy dumper's choice unless another action scored clearly better. Changing the
hidden cards never changes its choice (tested).

Rules used: U-UNO-1, U-WD4-1 (a pending bluff follows the sampled hand), E-CONS-1 (the
determinisation conserves every card).
"""

from __future__ import annotations

import numpy as np

from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.rng import next_u32, rand_below, seed_rng
from .facts import fewest_opponent_cards, true_call, unseen_counts
from .params import NUM_POLICY_PARAMS, P_DEPTH, P_MARGIN, P_SAMPLES, Style, StyleParam, param
from .rollout import ROLLOUT_LIMIT, rollout
from .scripted import POLICY_GREEDY, scripted_action

POLICY_MONTE_CARLO = 8
SAMPLES_DEFAULT = 16
MARGIN_DEFAULT = 100_000
DEPTH_DEFAULT = 20


@njit(cache=True, internal=True)
def determinise(state: np.ndarray, spec: np.ndarray, world: np.ndarray, pool: np.ndarray) -> None:
    """Write into ``world`` a full game consistent with what the mover of ``state`` knows.

    The unseen cards (:func:`unseen_counts`) are shuffled with the agent generator of
    ``state`` and dealt into the other hands (same sizes) and the draw pile (E-CONS-1); the
    world's chance generator is seeded afresh from the agent generator, so neither the hidden
    cards nor the game's future chance events reach the sample. A pending Wild Draw Four's
    bluff flag is recomputed from the sampled hand (U-WD4-1).
    """
    seat = state[L.S_CURRENT]
    n = state[L.S_NPLAYERS]
    for i in range(L.STATE_SIZE):
        world[i] = state[i]
    unseen = np.zeros(L.MAX_FACES, dtype=np.int64)
    unseen_counts(state, spec, seat, unseen)
    total = 0
    for face in range(L.MAX_FACES):
        for _ in range(unseen[face]):
            pool[total] = face
            total += 1
    for i in range(total - 1, 0, -1):  # Fisher-Yates with the agent generator
        j = rand_below(state, L.AGENT_RNG, i + 1)
        tmp = pool[i]
        pool[i] = pool[j]
        pool[j] = tmp
    dealt = 0
    for other in range(n):
        if other == seat:
            continue
        for face in range(L.MAX_FACES):
            world[L.HANDS + other * L.MAX_FACES + face] = 0
        size = min(state[L.HAND_SIZE + other], total - dealt)
        for _ in range(size):
            world[L.HANDS + other * L.MAX_FACES + pool[dealt]] += 1
            dealt += 1
        world[L.HAND_SIZE + other] = size
        engine.recount_held(world, other)
    rest = total - dealt
    for i in range(rest):
        world[L.DRAW_PILE + i] = pool[dealt + i]
    world[L.S_NDRAW] = rest
    seed_rng(world, L.RNG, next_u32(state, L.AGENT_RNG), next_u32(state, L.AGENT_RNG))
    seed_rng(world, L.AGENT_RNG, next_u32(state, L.AGENT_RNG), next_u32(state, L.AGENT_RNG))
    resample_bluff(world, spec)


@njit(cache=True, internal=True)
def resample_bluff(world: np.ndarray, spec: np.ndarray) -> None:
    """U-WD4-1: in a sampled ``world``, a pending Wild Draw Four is a bluff exactly when the
    sampled hand of its player (with the card under it on the pile) made it one."""
    sender = world[L.S_PENDING_FROM]
    if world[L.S_PHASE] == L.PH_CHALLENGE and sender >= 0 and world[L.S_NDISCARD] >= 2:
        colour = world[L.S_COLOUR]
        world[L.S_COLOUR] = world[L.S_COLOUR_BEFORE]
        world[L.S_NDISCARD] -= 1  # the card under the Wild Draw Four, as when it was played
        world[L.S_BLUFF] = 0 if engine.wild_draw_legal(world, spec, sender) else 1
        world[L.S_NDISCARD] += 1
        world[L.S_COLOUR] = colour


@njit(cache=True, internal=True)
def rollout_score(sim: np.ndarray, seat: int, start_round: int) -> int:
    """The score of a played-on world for ``seat``: +1000 if it won round ``start_round``,
    -1000 if another player did, else 50 per card it holds fewer than the opponent with the
    fewest cards (between -950 and 950)."""
    if sim[L.S_ROUND] != start_round:
        return 1000 if sim[L.S_ROUND_WINNER] == seat else -1000
    lead = fewest_opponent_cards(sim, seat) - sim[L.HAND_SIZE + seat]
    return 50 * max(-19, min(19, lead))


@njit(cache=True, internal=True)
def monte_carlo_action(
    state: np.ndarray, spec: np.ndarray, mask: np.ndarray, count: int, params: np.ndarray
) -> int:
    """Monte-Carlo sampler: calls UNO when it may; otherwise, for ``samples`` determinised
    worlds (:func:`determinise`), applies every legal action and plays on ``depth``
    decisions with greedy play (:func:`~uno_env.styles.rollout.rollout`, scored by
    :func:`rollout_score`). Every world is shared by all candidates (common random numbers).
    The greedy dumper's choice stands unless another action's total beats it by ``margin`` (a
    share of a loss-to-win swing per sample); then the best total is played (ties: lowest
    action id). Works in every phase, including phases added later."""
    nf = spec[L.SP_NUM_FACES]
    if true_call(state, spec, mask):
        return nf + L.A_CALL_OFFSET  # U-UNO-1
    seat = state[L.S_CURRENT]
    candidates = np.empty(L.MAX_ACTIONS, dtype=np.int64)
    num = engine.list_legal(spec, mask, candidates)
    if num == 1:
        return candidates[0]
    samples = max(1, param(params, P_SAMPLES, SAMPLES_DEFAULT))
    margin = param(params, P_MARGIN, MARGIN_DEFAULT) * samples // 500  # in rollout points
    depth = param(params, P_DEPTH, DEPTH_DEFAULT)
    greedy = np.full(NUM_POLICY_PARAMS, -1, dtype=np.int64)
    default = scripted_action(state, spec, mask, POLICY_GREEDY, greedy)
    totals = np.zeros(num, dtype=np.int64)
    world = np.empty(L.STATE_SIZE, dtype=np.int64)
    sim = np.empty(L.STATE_SIZE, dtype=np.int64)
    pool = np.empty(L.MAX_CARDS, dtype=np.int64)
    scratch = np.empty(L.MAX_ACTIONS, dtype=np.int8)
    for _ in range(samples):
        determinise(state, spec, world, pool)
        for c in range(num):
            for i in range(L.STATE_SIZE):
                sim[i] = world[i]
            engine.apply_action(sim, spec, candidates[c], True)
            rollout(sim, spec, world[L.S_ROUND], depth, scratch, POLICY_GREEDY, greedy, 0)
            totals[c] += rollout_score(sim, seat, world[L.S_ROUND])
    best = -1
    for c in range(num):
        if candidates[c] == default:
            best = c
    if best < 0:  # the greedy choice is not among the candidates (cannot happen): no prior
        best = 0
        margin = 0
    chosen = best
    for c in range(num):
        if totals[c] > totals[chosen] and totals[c] > totals[best] + margin:
            chosen = c
    return candidates[chosen]


MONTE_CARLO_STYLES = (
    Style(
        "monte_carlo",
        POLICY_MONTE_CARLO,
        "Monte-Carlo sampler: determinises hidden cards and rolls every option out",
        "Deals the cards it cannot see at random into the other hands and the draw pile "
        "(`samples` times), applies each legal action and plays on `depth` decisions with "
        "greedy play at every seat (+1000 for winning the round, -1000 for losing it, else "
        "50 per card it holds fewer than the leading opponent); plays the greedy dumper's "
        "choice unless another action scored better by `margin` of a win per sample. Calls "
        "UNO before laying its second-to-last card. Used for every other decision and phase.",
        (
            StyleParam(
                "samples",
                P_SAMPLES,
                SAMPLES_DEFAULT,
                1,
                10_000,
                False,
                "determinised worlds per decision (each rolls out every legal action)",
            ),
            StyleParam(
                "margin",
                P_MARGIN,
                MARGIN_DEFAULT,
                0.0,
                1.0,
                True,
                "share of the samples a move must win more often than the greedy choice to "
                "be played instead of it",
            ),
            StyleParam(
                "depth",
                P_DEPTH,
                DEPTH_DEFAULT,
                0,
                ROLLOUT_LIMIT,
                False,
                "decisions per rollout before the position is scored (0: to the end of the round)",
            ),
        ),
    ),
)
"""The Monte-Carlo sampler's registry entry (:mod:`uno_env.styles.registry`)."""
