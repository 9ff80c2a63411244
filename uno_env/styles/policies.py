"""Compiled play styles: named, parameterised policies over a game's public state.

Every style is a set of plain numba functions over ``(state, spec, mask, count, params)``
that return a legal action id for the player to move (``state[S_CURRENT]``). The batch
simulator, the vector env and the Python agents of :mod:`agents` all call the same compiled
code through :func:`choose_action`: one source for every path.

**What a style may read.** Only what the player to move knows: hand sizes, the discard pile
and its top card, the active colour, the direction, the phase, the pending penalty and who
sent it, the UNO-call flags, the scores, its own hand and the deck composition
(``state[DECK ...]``). Never the other hands, the order of the draw pile, the chance
generator or the engine's record of whether a pending Wild Draw Four was a bluff. The
Monte-Carlo style determinises: it deals the cards the mover cannot see at random into the
other hands (same sizes) and the draw pile, then rolls games out (tests check that
changing hidden cards never changes a style's choice).

**Randomness** comes only from the game's *agent* generator (``state[AGENT_RNG ...]``), so
policies never shift the game's chance events; the deterministic styles draw nothing from it.

**Decisions by phase.** Each style answers each kind of decision with one idea:

- *laying a card* (``PH_PLAY``, ``PH_PLAY_DRAWN``, ``PH_CONTINUE``, ``PH_JUMP_IN``,
  ``PH_BLOCK``): every scripted style first makes a true call (two cards in hand and one
  to lay: U-UNO-1, MC-CALL-1, MM-CALL-1; never a false one), then scores each legal card
  with its own card score. A score ``>= 0`` means "lay it"; the best such card is laid
  (ties: lowest face id). If no card scores ``>= 0`` the style draws (or keeps the drawn
  card, stops, passes); when that is not legal either it lays its best card anyway.
- *choose a colour* (U-WILD-1): the colour/suit it holds most cards of (ties: most points,
  then the lowest colour index).
- *a penalty* (U-WD4-2, H-STACK-1, H-REFLECT-1): pass it on with its best-scored answer
  card if one is legal; else challenge a Wild Draw Four by evidence
  (:func:`bluff_probability_ppm` against the style's ``doubt`` threshold; the bluffer at a
  rate), else accept.
- any other decision (a target seat, a card to give, phases added later):
  :func:`fallback_action`, deterministic: a target seat with the fewest cards if a target
  is asked for, else the first legal action that is not ``draw`` (else ``draw``).

No scripted style except the bluffer plays a Wild Draw Four as a bluff where it can be
challenged (U-WD4-1, U-WD4-2). Styles read the spec's face tables (``F_EFFECT``,
``F_AMOUNT``, ``F_POINTS``, ``F_COLOUR``, ``F_ANYWHERE``), never Uno face ids, so they play
every deck family.

**Parameters** are an ``int64`` array of :data:`NUM_POLICY_PARAMS` slots per player; rates
and probabilities are stored in millionths, counts as integers, and a negative slot means
the style's default. :data:`STYLES` documents every style and its parameters;
:func:`parse_policy` reads ``"name:key=value,..."`` (``"bluffer:bluff=0.3,challenge=0.8"``).

Rules used: U-MATCH-1, U-WILD-1, U-WD4-1, U-WD4-2, U-UNO-1, U-REV-1, U-D2-1, U-SKIP-1,
U-DRAW-1, U-DRAW-3, H-STACK-1, H-REFLECT-1, H-JUMP-1, MM-CALL-1, MC-CALL-1, MC-END-1, E-DIR-1,
E-CONS-1 (the determinisation conserves every card).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.bits import lowest_bit, popcount
from ..engine.rng import chance_ppm, next_u32, rand_below, seed_rng

if TYPE_CHECKING:
    from ..game.facade import Game

# ================================================================ codes and parameters
POLICY_RANDOM_LEGAL = 0
POLICY_RANDOM = POLICY_RANDOM_LEGAL  # the code's older name
POLICY_GREEDY = 1
POLICY_AGGRESSOR = 2
POLICY_HOARDER = 3
POLICY_CONTROLLER = 4
POLICY_BLOCKER = 5
POLICY_BLUFFER = 6
POLICY_CAUTIOUS = 7
POLICY_MONTE_CARLO = 8
POLICY_RANDOM_PLAYABLE = 9
POLICY_SEARCH = 10  # uno_env.styles.search (dispatched by choose_action below)
POLICY_ORACLE = 11  # uno_env.styles.search with the true hidden cards: cheats
NUM_POLICIES = 12
ROLLOUT_STYLES = (
    "random_legal", "greedy", "aggressor", "hoarder", "controller", "blocker", "bluffer", "cautious"
)  # fmt: skip
"""Styles a search may roll out with, by code (index = style code)."""
ROLLOUT_NET = len(ROLLOUT_STYLES)
"""``rollout=net``: the search's network plays every seat in its rollouts (stored rollout value)."""

NUM_POLICY_PARAMS = 16
PPM = 1_000_000

# parameter slots (per style) and their defaults: the one place the defaults live
P_DOUBT = 0  # evidence styles: challenge when P(bluff) >= doubt (millionths)
DOUBT_DEFAULT = 500_000
CAUTIOUS_DOUBT_DEFAULT = 750_000
P_THREAT = 1  # hoarder, blocker: an opponent with this many cards or fewer is a threat
HOARDER_THREAT_DEFAULT = 2
BLOCKER_THREAT_DEFAULT = 4
P_BLUFF = 1  # bluffer: chance of playing a Wild Draw Four as a bluff (millionths)
BLUFF_DEFAULT = 500_000
P_CHALLENGE = 2  # bluffer: chance of challenging a Wild Draw Four (millionths)
CHALLENGE_DEFAULT = 500_000
P_SAMPLES = 0  # monte_carlo: determinisations per decision (each rolls out every candidate)
SAMPLES_DEFAULT = 16
P_MARGIN = 1  # monte_carlo: extra win share (millionths) a move needs to overrule the greedy choice
MARGIN_DEFAULT = 100_000
P_DEPTH = 2  # monte_carlo: decisions per rollout (0: to the end of the round)
DEPTH_DEFAULT = 20
P_RESERVE = 1  # cautious: wild cards kept back as sure last cards
RESERVE_DEFAULT = 1
P_LIMIT = 2  # hoarder: beyond this many cards in its own hand it stops hoarding
LIMIT_DEFAULT = 10
P_SIMS = 0  # search, oracle: simulations per decision (one rollout of one candidate action)
SIMS_DEFAULT = 1000
P_DEPTH_SEARCH = 1  # search, oracle: decisions per rollout before the position is evaluated
SEARCH_DEPTH_DEFAULT = 20
P_TRUST = 2  # search: share (millionths) of samples that believe the players' hints
TRUST_DEFAULT = 900_000
P_CONFIDENCE = 3  # search, oracle: standard errors (hundredths) by which a move must beat the default
CONFIDENCE_DEFAULT = 100
P_ROLLOUT = 4  # search, oracle: style code of the rollout policy at every seat
ROLLOUT_DEFAULT = POLICY_BLOCKER
P_EXPLORE = 5  # search, oracle: chance (millionths) of a uniformly random rollout decision
EXPLORE_DEFAULT = 0
P_PILE = 6  # oracle: 1 to see the order of the draw pile as well
PILE_DEFAULT = 0
P_VALUE = 7  # search, oracle: the leaf value model (0 hand sizes, 1 hand sizes and wilds)
VALUE_SIZES = 0  # ``value=sizes``: the hand-size model alone; "auto" at 2 players
VALUE_WILDS = 1  # ``value=wilds``: hand sizes and the wild cards held; "auto" from 3 players
VALUE_NET = 2  # ``value=net``: the network's critic (a network file with one; uno_env.sim.guided)
VALUE_MODELS = ("sizes", "wilds", "net")  # the names, indexed by the codes above
AUTO = -1  # a stored "auto": the default for the game's player count
# a search guided by a network (``search:net=NAME``, uno_env.sim.guided): slots read only there
P_NET = 8  # search, oracle: the network (parsed: an id of NETWORKS; compiled: its row in the bank)
P_CRITIC = 9  # search, oracle, compiled only: the bank row of the network's critic (-1: none)
P_TOP = 10  # search, oracle: candidates searched, the network's most likely first (0: every one)
TOP_DEFAULT = 0
P_DEFAULT = 11  # search, oracle: the move kept unless beaten: the rollout style's or the network's
DEFAULT_MOVES = ("rollout", "net")  # the names, indexed by the stored codes
DEFAULT_NET = 1
P_OWN = 12  # search, oracle: who plays the searcher's own seat in its rollouts
OWN_PLAYERS = ("same", "net")  # the rollout policy, or the network
OWN_NET = 1
NO_NETWORK = -1
NETWORKS: list[str] = []
"""The networks named by parsed ``net=`` parameters in this process: ``params[P_NET]`` of a parsed
policy is an index of this list (the seating code, :func:`uno_env.sim.guided.seat_guides`, loads the
file and writes the network's bank row in its own copy of the parameters)."""

NEVER = -(1 << 40)  # card score of a card a style refuses to play (a bluff)
ROLLOUT_LIMIT = 3000  # most decisions of one Monte-Carlo rollout (also with depth 0)


@njit(cache=True, internal=True)
def param(params: np.ndarray, slot: int, default: int) -> int:
    """Parameter ``slot`` of a style, or ``default`` where the slot is negative."""
    value = params[slot]
    return default if value < 0 else value


@njit(cache=True)
def search_value_default(players: int) -> int:
    """The search's ``value=auto`` at ``players`` players: the hand-size model at 2 players
    (the model the 2-player figures were measured with), the model with the wild cards held
    from 3 players on (measured at 4 players against blockers, docs/agents.md)."""
    return VALUE_SIZES if players <= 2 else VALUE_WILDS


# ================================================================ public facts (all readable)
@njit(cache=True, internal=True)
def held(state: np.ndarray, seat: int, face: int) -> int:
    """Copies of ``face`` in ``seat``'s hand (a style reads only its own: seat = mover)."""
    return state[L.HANDS + seat * L.MAX_FACES + face]


@njit(cache=True, internal=True)
def fewest_opponent_cards(state: np.ndarray, seat: int) -> int:
    """The smallest hand size among ``seat``'s opponents still in play (public; MC-END-1:
    players who left do not count)."""
    n = state[L.S_NPLAYERS]
    best = 1 << 30
    for other in range(n):
        if other != seat and state[L.FINISHED + other] == 0 and state[L.HAND_SIZE + other] < best:
            best = state[L.HAND_SIZE + other]
    return best


@njit(cache=True, internal=True)
def hand_summary(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int, int, int, int, int]:
    """What the card scores need, computed once per decision: ``seat``'s cards of each of the
    four colours/suits, its wilds (cards playable on anything), and the fewest cards an
    opponent holds."""
    c0 = c1 = c2 = c3 = wilds = 0
    for face in range(spec[L.SP_NUM_FACES]):
        count = held(state, seat, face)
        if count == 0:
            continue
        colour = spec[L.F_COLOUR + face]
        if colour == 0:
            c0 += count
        elif colour == 1:
            c1 += count
        elif colour == 2:
            c2 += count
        elif colour == 3:
            c3 += count
        if spec[L.F_ANYWHERE + face] == 1:
            wilds += count
    return c0, c1, c2, c3, wilds, fewest_opponent_cards(state, seat)


H_WILDS = 4  # hand_summary index: wilds held
H_FEWEST = 5  # hand_summary index: fewest cards an opponent holds


@njit(cache=True, internal=True)
def is_bluff(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> bool:
    """Whether playing ``face`` now would be a challengeable Wild Draw Four bluff (U-WD4-1/2)."""
    if spec[L.F_EFFECT + face] != L.EF_WILD_DRAW or spec[L.SP_WD4_MODE] != engine.WD4_CHALLENGE:
        return False
    return not engine.wild_draw_legal(state, spec, seat)


@njit(cache=True, internal=True)
def attack_class(state: np.ndarray, spec: np.ndarray, face: int) -> int:
    """How hard a card hits an opponent: 4 draw cards (any ``F_AMOUNT``), 3 skips and other
    effects on the next player (sit-outs, effects added later), 2 a Reverse that does not
    skip, 1 a plain number, 0 a wild or suit-naming card without a penalty."""
    effect = spec[L.F_EFFECT + face]
    if spec[L.F_AMOUNT + face] > 0:
        return 4
    if effect == L.EF_NONE:
        return 1
    if effect == L.EF_WILD or effect == L.EF_CHOOSE_SUIT or spec[L.F_ANYWHERE + face] == 1:
        return 0
    if effect == L.EF_REVERSE:  # U-REV-1: with two players it may act as a Skip
        if state[L.S_NPLAYERS] == 2 and spec[L.SP_REVERSE_SKIPS_TWO] == 1:
            return 3
        return 2
    return 3


# ================================================================ per-phase ideas
@njit(cache=True, internal=True)
def colour_by_hand(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """U-WILD-1: the colour/suit ``seat`` holds most cards of (ties: most points, lowest index)."""
    best = 0
    best_count = -1
    best_points = -1
    for colour in range(L.NUM_COLOURS):
        count = 0
        points = 0
        for face in range(spec[L.SP_NUM_FACES]):
            if spec[L.F_COLOUR + face] == colour:
                count += held(state, seat, face)
                points += held(state, seat, face) * spec[L.F_POINTS + face]
        if count > best_count or (count == best_count and points > best_points):
            best = colour
            best_count = count
            best_points = points
    return best


@njit(cache=True, internal=True)
def unseen_counts(state: np.ndarray, spec: np.ndarray, seat: int, out: np.ndarray) -> int:
    """Copies of each face that ``seat`` cannot see (deck minus own hand minus discard pile)
    into ``out``; returns their total. These are the other hands and the draw pile (E-CONS-1)."""
    for face in range(L.MAX_FACES):
        out[face] = state[L.DECK + face] - held(state, seat, face)
    for i in range(state[L.S_NDISCARD]):
        out[state[L.DISCARD_PILE + i]] -= 1
    total = 0
    for face in range(L.MAX_FACES):
        if out[face] < 0:  # only an inconsistent position gets here; never count below zero
            out[face] = 0
        total += out[face]
    return total


@njit(cache=True, internal=True)
def bluff_probability_ppm(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """U-WD4-2 evidence: the chance (millionths) that the pending Wild Draw Four was a bluff.

    Its player's hand is taken as a random draw of its size from the cards ``seat`` cannot
    see; the play was a bluff if that hand held a card that made it illegal (U-WD4-1: a card
    of the colour before it, or under the ``no_playable_card`` option any card that matched).
    """
    sender = state[L.S_PENDING_FROM]
    if sender < 0:
        return 0
    before = state[L.S_COLOUR_BEFORE]
    under = -1
    if state[L.S_NDISCARD] >= 2:
        under = state[L.DISCARD_PILE + state[L.S_NDISCARD] - 2]
    unseen = np.zeros(L.MAX_FACES, dtype=np.int64)
    total = unseen_counts(state, spec, seat, unseen)
    spoilers = 0
    for face in range(spec[L.SP_NUM_FACES]):
        if unseen[face] == 0 or spec[L.F_EFFECT + face] == L.EF_WILD_DRAW:
            continue
        spoils = spec[L.F_COLOUR + face] == before
        if spec[L.SP_WD4_NO_PLAYABLE] == 1:
            if spec[L.F_ANYWHERE + face] == 1:
                spoils = True
            if under >= 0 and spec[L.F_RANK + face] == spec[L.F_RANK + under]:
                spoils = True
        if spoils:
            spoilers += unseen[face]
    hand = state[L.HAND_SIZE + sender]
    clean = 1.0  # P(a random hand of that size holds no spoiler)
    for i in range(hand):
        if total - i <= 0:
            break
        clean *= max(0.0, (total - spoilers - i) / (total - i))
    return int((1.0 - clean) * PPM)


@njit(cache=True, internal=True)
def challenge_by_evidence(state: np.ndarray, spec: np.ndarray, seat: int, doubt_ppm: int) -> bool:
    """U-WD4-2: challenge when the evidence puts the chance of a bluff at ``doubt`` or more."""
    return bluff_probability_ppm(state, spec, seat) >= doubt_ppm


@njit(cache=True, internal=True)
def true_call(state: np.ndarray, spec: np.ndarray, mask: np.ndarray) -> bool:
    """U-UNO-1, MC-CALL-1, MM-CALL-1: the call is legal and true: the mover holds two cards
    and may lay one now (a call with more cards, or with nothing to lay, is false)."""
    nf = spec[L.SP_NUM_FACES]
    if mask[nf + L.A_CALL_OFFSET] == 0 or state[L.HAND_SIZE + state[L.S_CURRENT]] != 2:
        return False
    for face in range(nf):  # noqa: SIM110 (numba compiles plain loops)
        if mask[face]:
            return True
    return False


@njit(cache=True, internal=True)
def target_fewest_cards(state: np.ndarray, spec: np.ndarray, mask: np.ndarray) -> int:
    """Among legal ``target +k`` actions, the one naming the opponent with the fewest cards
    (ties: the nearest clockwise); -1 if no target is asked for."""
    nf = spec[L.SP_NUM_FACES]
    seat = state[L.S_CURRENT]
    n = state[L.S_NPLAYERS]
    best = -1
    best_size = 1 << 30
    for k in range(1, L.NUM_TARGETS + 1):
        action = nf + L.A_TARGET_OFFSET + k - 1
        if mask[action]:
            size = state[L.HAND_SIZE + (seat + k) % n]
            if size < best_size:
                best = action
                best_size = size
    return best


@njit(cache=True, internal=True)
def fallback_action(state: np.ndarray, spec: np.ndarray, mask: np.ndarray) -> int:
    """A decision a style has no idea for (a phase added later): deterministic and documented.

    A target seat with the fewest cards if targets are legal; else the first legal action
    that is not ``draw``; else ``draw``; -1 if nothing is legal.
    """
    target = target_fewest_cards(state, spec, mask)
    if target >= 0:
        return target
    draw = spec[L.SP_NUM_FACES] + L.A_DRAW_OFFSET
    for action in range(spec[L.SP_NUM_ACTIONS]):
        if mask[action] and action != draw:
            return action
    return draw if mask[draw] else -1


# ================================================================ the random baseline
@njit(cache=True)
def random_action(state: np.ndarray, mask: np.ndarray, count: int) -> int:
    """A uniformly random legal action, from the game's agent generator."""
    k = rand_below(state, L.AGENT_RNG, count)
    a = 0
    while True:
        if mask[a]:
            if k == 0:
                return a
            k -= 1
        a += 1


# inlined into quick_action, its only caller (issue 21; uno_env/engine/engine.py, "Inlining")
@njit(cache=True, inline="always")
def quick_random_action(state: np.ndarray, spec: np.ndarray) -> int:
    """:func:`random_action` without a mask, in the phases whose legal actions are cheap to list.

    Exactly the action (and the same draw from the agent generator) that :func:`random_action`
    takes on the mask :func:`uno_env.engine.engine.fill_mask` writes; -1, with nothing drawn, in the
    other phases and rule sets. Compiled loops use it to skip writing masks nobody reads.
    """
    phase = state[L.S_PHASE]
    nf = spec[L.SP_NUM_FACES]
    if phase == L.PH_CHOOSE_COLOUR:  # U-WILD-1: the four colours, nothing else
        return nf + rand_below(state, L.AGENT_RNG, L.NUM_COLOURS)
    seat = state[L.S_CURRENT]
    if phase == L.PH_PLAY and spec[L.SP_PLAIN_MATCHING] == 1:
        faces = engine.playable_faces(state, spec, seat)
        playable = popcount(faces)
        draw = 1 if spec[L.SP_DRAW_WHEN_PLAYABLE] == 1 or playable == 0 else 0  # U-DRAW-3
    elif phase == L.PH_PLAY_DRAWN and spec[L.SP_DRAW_RULE] != engine.DRAW_ONE_THEN_ANY:
        drawn = state[L.S_DRAWN]  # U-DRAW-1 / U-DRAW-2: the drawn card, or keep it (pass)
        faces = 1 << drawn if drawn >= 0 and engine.count_in_hand(state, seat, drawn) > 0 else 0
        playable = popcount(faces)
        draw = 0
    else:
        return -1
    # the order of the action table: faces, (colours, targets), draw, pass, call
    passing = 1 if phase == L.PH_PLAY_DRAWN and (playable == 0 or spec[L.SP_DRAWN_MUST_PLAY] == 0) else 0
    calling = 1 if engine.call_legal(state, spec, seat, phase) else 0
    k = rand_below(state, L.AGENT_RNG, playable + draw + passing + calling)
    if k < playable:
        for _ in range(k):
            faces &= faces - 1
        return lowest_bit(faces)
    k -= playable
    if k < draw:
        return nf + L.A_DRAW_OFFSET
    if k < draw + passing:
        return nf + L.A_PASS_OFFSET
    return nf + L.A_CALL_OFFSET


@njit(cache=True, internal=True)
def _pick(state: np.ndarray, count: int) -> int:
    """A uniform index below ``count`` from the agent generator (nothing drawn when ``count`` is 1)."""
    return 0 if count == 1 else rand_below(state, L.AGENT_RNG, count)


@njit(cache=True, internal=True)
def random_playable_action(state: np.ndarray, spec: np.ndarray, mask: np.ndarray) -> int:
    """The literature's random player (RLCard's and most papers' baseline), in every phase.

    A true call first (U-UNO-1, MC-CALL-1, MM-CALL-1: two cards in hand and one to lay; never
    a false call); then a uniformly random legal card when there is one (play, answer a
    penalty, continue a multi-card play, give, jump in); else uniformly among the other
    legal actions but the call: ``draw`` only when no card can be laid, ``pass`` to keep an
    unplayable drawn card, a random colour, target, challenge or accept. -1 if nothing is legal.
    """
    nf = spec[L.SP_NUM_FACES]
    if true_call(state, spec, mask):
        return nf + L.A_CALL_OFFSET
    cards = 0
    for face in range(nf):
        cards += mask[face]
    if cards > 0:
        k = _pick(state, cards)
        for face in range(nf):
            if mask[face]:
                if k == 0:
                    return face
                k -= 1
    call = nf + L.A_CALL_OFFSET
    others = 0
    for action in range(nf, spec[L.SP_NUM_ACTIONS]):
        if mask[action] and action != call:
            others += 1
    if others == 0:
        return call if mask[call] else -1
    k = _pick(state, others)
    for action in range(nf, spec[L.SP_NUM_ACTIONS]):
        if mask[action] and action != call:
            if k == 0:
                return action
            k -= 1
    return -1


# inlined into quick_action, its only caller (issue 21; uno_env/engine/engine.py, "Inlining")
@njit(cache=True, inline="always")
def quick_random_playable_action(state: np.ndarray, spec: np.ndarray) -> int:
    """:func:`random_playable_action` without a mask where the legal actions are cheap to list.

    Exactly its action and draws from the agent generator on the mask
    :func:`uno_env.engine.engine.fill_mask` writes, in the play phase of plain matching and when
    naming a colour; -1, with nothing drawn, elsewhere.
    """
    phase = state[L.S_PHASE]
    nf = spec[L.SP_NUM_FACES]
    if phase == L.PH_CHOOSE_COLOUR:  # U-WILD-1: the four colours (a call is never true here)
        return nf + rand_below(state, L.AGENT_RNG, L.NUM_COLOURS)
    if phase != L.PH_PLAY or spec[L.SP_PLAIN_MATCHING] != 1:
        return -1
    seat = state[L.S_CURRENT]
    faces = engine.playable_faces(state, spec, seat)
    if faces == 0:
        return nf + L.A_DRAW_OFFSET  # U-DRAW-3: with nothing playable, drawing is the one choice
    if state[L.HAND_SIZE + seat] == 2 and engine.call_legal(state, spec, seat, phase):
        return nf + L.A_CALL_OFFSET
    k = _pick(state, popcount(faces))
    for _ in range(k):
        faces &= faces - 1
    return lowest_bit(faces)


@njit(cache=True, internal=True)
def quick_action(state: np.ndarray, spec: np.ndarray, policy: int) -> int:
    """The random baselines' mask-free shortcuts (:func:`quick_random_action`,
    :func:`quick_random_playable_action`); -1 for other policies and where none applies."""
    if policy == POLICY_RANDOM_LEGAL:
        return quick_random_action(state, spec)
    if policy == POLICY_RANDOM_PLAYABLE:
        return quick_random_playable_action(state, spec)
    return -1


# ================================================================ card scores, one idea each
# Each takes the mover's hand summary ``h`` (:func:`hand_summary`) and returns the score of
# playing ``face``: the highest score >= 0 is played; below 0 the style would rather draw.


@njit(cache=True, internal=True)
def greedy_card(state: np.ndarray, spec: np.ndarray, seat: int, face: int, h: tuple[int, ...]) -> int:
    """Greedy points dumper: the highest-scoring card first (U-SCORE-1 points); among equal
    points, the card whose colour it holds most of. Never bluffs."""
    if is_bluff(state, spec, seat, face):
        return NEVER
    colour = spec[L.F_COLOUR + face]
    depth = h[colour] if 0 <= colour < L.NUM_COLOURS else 0
    return spec[L.F_POINTS + face] * 128 + min(depth, 127)


@njit(cache=True, internal=True)
def aggressor_card(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> int:
    """Action-first aggressor: hit the next player as soon as possible: draw cards (most
    cards first), then skips, then reverses, then numbers; a plain wild last. Never bluffs."""
    if is_bluff(state, spec, seat, face):
        return NEVER
    return attack_class(state, spec, face) * 10_000 + spec[L.F_AMOUNT + face] * 100 + spec[L.F_POINTS + face]


@njit(cache=True, internal=True)
def hoarder_card(
    state: np.ndarray, spec: np.ndarray, seat: int, face: int, h: tuple[int, ...], threat: int, limit: int
) -> int:
    """Hoarder/defender: keeps wilds and draw cards until an opponent holds ``threat`` cards
    or fewer (or its own hand grows past ``limit``), then plays them first; otherwise sheds
    its other cards, highest points first. Never bluffs."""
    if is_bluff(state, spec, seat, face):
        return NEVER
    points = spec[L.F_POINTS + face]
    amount = spec[L.F_AMOUNT + face]
    if spec[L.F_ANYWHERE + face] == 1 or amount > 0:
        if h[H_FEWEST] <= threat or state[L.HAND_SIZE + seat] > limit:
            return 20_000 + amount * 100 + points
        return -1 - amount * 100 - points  # keep it; if forced, give up the cheapest
    return 10_000 + points


@njit(cache=True, internal=True)
def controller_card(state: np.ndarray, spec: np.ndarray, seat: int, face: int, h: tuple[int, ...]) -> int:
    """Colour controller: the play that leaves the most cards of the colour it sets (a wild
    sets its longest colour), a coloured card before a wild, then points. Never bluffs."""
    if is_bluff(state, spec, seat, face):
        return NEVER
    colour = spec[L.F_COLOUR + face]
    if 0 <= colour < L.NUM_COLOURS:
        kept = h[colour] - 1
        bonus = 15
    else:
        kept = max(max(h[0], h[1]), max(h[2], h[3]))
        bonus = 0
    return (kept * 10 + bonus) * 100 + spec[L.F_POINTS + face]


@njit(cache=True, internal=True)
def blocker_card(
    state: np.ndarray, spec: np.ndarray, seat: int, face: int, h: tuple[int, ...], threat: int
) -> int:
    """Opponent-aware blocker: targets the opponent with the fewest cards. When that leader
    (holding ``threat`` cards or fewer) plays next it hits them (draw cards, skips, a Reverse
    that turns play away); it never reverses play towards the leader; otherwise it sheds
    numbers and saves its action cards and wilds. Never bluffs."""
    if is_bluff(state, spec, seat, face):
        return NEVER
    fewest = h[H_FEWEST]
    leader_next = fewest <= threat and state[L.HAND_SIZE + engine.next_seat(state, seat, 1)] == fewest
    leader_prev = (
        fewest <= threat
        and state[L.HAND_SIZE + engine.previous_seat(state, seat)] == fewest
        and not leader_next
    )
    points = spec[L.F_POINTS + face]
    cls = attack_class(state, spec, face)
    if cls >= 2:  # draw cards, skips, reverses
        if leader_next:
            return 30_000 + cls * 1000 + spec[L.F_AMOUNT + face] * 100 + points
        if cls == 2 and leader_prev:
            return -1  # a Reverse would hand the turn to the leader
        return 1000 + points
    if cls == 0:  # a plain wild: kept for later
        return 500 + points
    return 10_000 + points


@njit(cache=True, internal=True)
def bluffer_card(
    state: np.ndarray, spec: np.ndarray, seat: int, face: int, h: tuple[int, ...], bluff_ppm: int
) -> int:
    """Bluffer: the greedy dumper, except that a Wild Draw Four it may not legally play is
    played anyway (a bluff, U-WD4-2) with chance ``bluff``."""
    if is_bluff(state, spec, seat, face):
        if not chance_ppm(state, L.AGENT_RNG, bluff_ppm):
            return NEVER
        return spec[L.F_POINTS + face] * 128
    return greedy_card(state, spec, seat, face, h)


@njit(cache=True, internal=True)
def cautious_card(
    state: np.ndarray, spec: np.ndarray, seat: int, face: int, h: tuple[int, ...], reserve: int
) -> int:
    """Cautious: never bluffs and keeps ``reserve`` wilds back as sure last cards (one wild
    always matches); sheds its other cards highest points first, then spare wilds."""
    if is_bluff(state, spec, seat, face):
        return NEVER
    points = spec[L.F_POINTS + face]
    if spec[L.F_ANYWHERE + face] == 1:
        if state[L.HAND_SIZE + seat] > h[H_WILDS] and h[H_WILDS] <= reserve:
            return -1 - points  # keep it back while other cards remain
        return 5000 + points
    return 10_000 + points


@njit(cache=True, internal=True)
def card_score(
    state: np.ndarray, spec: np.ndarray, face: int, policy: int, params: np.ndarray, h: tuple[int, ...]
) -> int:
    """The card score of ``policy`` for the mover playing ``face`` (``>= 0``: willing)."""
    seat = state[L.S_CURRENT]
    if policy == POLICY_AGGRESSOR:
        return aggressor_card(state, spec, seat, face)
    if policy == POLICY_HOARDER:
        threat = param(params, P_THREAT, HOARDER_THREAT_DEFAULT)
        return hoarder_card(state, spec, seat, face, h, threat, param(params, P_LIMIT, LIMIT_DEFAULT))
    if policy == POLICY_CONTROLLER:
        return controller_card(state, spec, seat, face, h)
    if policy == POLICY_BLOCKER:
        return blocker_card(state, spec, seat, face, h, param(params, P_THREAT, BLOCKER_THREAT_DEFAULT))
    if policy == POLICY_BLUFFER:
        return bluffer_card(state, spec, seat, face, h, param(params, P_BLUFF, BLUFF_DEFAULT))
    if policy == POLICY_CAUTIOUS:
        return cautious_card(state, spec, seat, face, h, param(params, P_RESERVE, RESERVE_DEFAULT))
    return greedy_card(state, spec, seat, face, h)


@njit(cache=True, internal=True)
def challenge_choice(state: np.ndarray, spec: np.ndarray, policy: int, params: np.ndarray) -> bool:
    """U-WD4-2: whether ``policy`` challenges the pending Wild Draw Four."""
    if policy == POLICY_BLUFFER:
        return chance_ppm(state, L.AGENT_RNG, param(params, P_CHALLENGE, CHALLENGE_DEFAULT))
    default = CAUTIOUS_DOUBT_DEFAULT if policy == POLICY_CAUTIOUS else DOUBT_DEFAULT
    return challenge_by_evidence(state, spec, state[L.S_CURRENT], param(params, P_DOUBT, default))


# ================================================================ the scripted template
@njit(cache=True, internal=True)
def best_card(
    state: np.ndarray, spec: np.ndarray, mask: np.ndarray, policy: int, params: np.ndarray
) -> tuple[int, int]:
    """The legal card with the highest card score of ``policy``, and that score
    (``(-1, NEVER - 1)`` when no card is legal)."""
    best = -1
    best_score = NEVER - 1
    h = hand_summary(state, spec, state[L.S_CURRENT])
    for face in range(spec[L.SP_NUM_FACES]):
        if mask[face]:
            score = card_score(state, spec, face, policy, params, h)
            if score > best_score:
                best = face
                best_score = score
    return best, best_score


@njit(cache=True, internal=True)
def scripted_action(
    state: np.ndarray, spec: np.ndarray, mask: np.ndarray, policy: int, params: np.ndarray
) -> int:
    """The decision of a scripted style (every style but random and Monte-Carlo), by phase.

    - laying cards (play, the drawn card, another card of a multi-card play, jump-in, a 0 to
      block): a true call first; then the best-scored card if its score is >= 0, else draw
      (play) or pass; if neither is legal, the best card anyway;
    - a colour/suit: :func:`colour_by_hand`;
    - a penalty (a Wild Draw Four, a stackable penalty): a true call first; pass it on with
      the best-scored answer card (never a bluff); else challenge by the style's rule
      (Wild Draw Four only), else accept;
    - anything else (targets, giving a card, phases added later): :func:`fallback_action`.
    """
    nf = spec[L.SP_NUM_FACES]
    phase = state[L.S_PHASE]
    lays = (
        phase == L.PH_PLAY
        or phase == L.PH_PLAY_DRAWN
        or phase == L.PH_CONTINUE
        or phase == L.PH_JUMP_IN
        or phase == L.PH_BLOCK
    )
    if lays:
        if true_call(state, spec, mask):  # U-UNO-1: call before laying the second-to-last card
            return nf + L.A_CALL_OFFSET
        best, best_score = best_card(state, spec, mask, policy, params)
        if best >= 0 and best_score >= 0:
            return best
        keep = nf + (L.A_DRAW_OFFSET if phase == L.PH_PLAY else L.A_PASS_OFFSET)
        if mask[keep]:  # U-DRAW-1 / U-DRAW-3: draw (or keep the drawn card, stop, pass)
            return keep
        if best >= 0:
            return best
    elif phase == L.PH_CHOOSE_COLOUR:
        action = nf + colour_by_hand(state, spec, state[L.S_CURRENT])
        if mask[action]:
            return action
    elif phase == L.PH_CHALLENGE or phase == L.PH_ANSWER:
        if true_call(state, spec, mask):
            return nf + L.A_CALL_OFFSET
        best, best_score = best_card(state, spec, mask, policy, params)
        if best >= 0 and best_score > NEVER:  # H-STACK-1 / H-REFLECT-1: pass the penalty on
            return best
        challenge = nf + L.A_CHALLENGE_OFFSET
        accept = nf + L.A_ACCEPT_OFFSET
        if mask[challenge] and challenge_choice(state, spec, policy, params):
            return challenge
        if mask[accept]:
            return accept
    return fallback_action(state, spec, mask)


# ================================================================ Monte-Carlo sampler
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


@njit(cache=True)
def own_bluff_known(state: np.ndarray) -> bool:
    """U-WD4-2: whether the bluff flag is the mover's own knowledge: outside a challenge the
    mover is still resolving its own play (the Wild Draw Four it may have just laid, before
    it names the colour or lays more cards). Otherwise the flag is hidden from the mover."""
    return state[L.S_PHASE] != L.PH_CHALLENGE and state[L.S_ACTOR] == state[L.S_CURRENT]


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
def rollout(
    sim: np.ndarray,
    spec: np.ndarray,
    seat: int,
    start_round: int,
    depth: int,
    mask: np.ndarray,
    params: np.ndarray,
) -> int:
    """Play ``sim`` on with greedy play at every seat, to the end of round ``start_round`` or
    for ``depth`` decisions (0: no limit), and score it for ``seat``: +1000 if it won the
    round, -1000 if another player did, else 50 per card it holds fewer than the opponent
    with the fewest cards (between -950 and 950)."""
    engine.fill_mask(sim, spec, mask, True)
    limit = ROLLOUT_LIMIT if depth <= 0 else min(depth, ROLLOUT_LIMIT)
    steps = 0
    while sim[L.S_STATUS] == L.ST_RUNNING and sim[L.S_ROUND] == start_round and steps < limit:
        action = scripted_action(sim, spec, mask, POLICY_GREEDY, params)
        engine.apply_action(sim, spec, action, True)
        engine.fill_mask(sim, spec, mask, True)
        steps += 1
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
    decisions with greedy play (:func:`rollout`). Every world is shared by all candidates
    (common random numbers). The greedy dumper's choice stands unless another action's total
    beats it by ``margin`` (a share of a loss-to-win swing per sample); then the best total
    is played (ties: lowest action id). Works in every phase, including phases added later."""
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
            totals[c] += rollout(sim, spec, seat, world[L.S_ROUND], depth, scratch, greedy)
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


# ================================================================ the dispatcher
@njit(cache=True)
def choose_action(
    state: np.ndarray,
    spec: np.ndarray,
    mask: np.ndarray,
    count: int,
    policy: int,
    params: np.ndarray,
    planning: bool | None = True,
    scripted: bool | None = True,
) -> int:
    """The action compiled ``policy`` takes for the player to move (``state[S_CURRENT]``).

    The one entry point for every caller (batch games, vector envs, the Python agents):

    - ``state``: the game's int64 state buffer; only public information and the mover's own
      hand are read; the game's *agent* generator (``state[AGENT_RNG:AGENT_RNG+6]``) supplies
      any randomness and is advanced, nothing else is written;
    - ``spec``: the compiled rule set (:func:`uno_env.engine.rules.compile_spec`);
    - ``mask``: int8 legal-action mask of the mover, at least ``spec[SP_NUM_ACTIONS]`` long
      (as :func:`uno_env.engine.engine.fill_mask` writes it); ``count``: how many actions it allows;
    - ``policy``: a code of :data:`POLICIES`; ``params``: int64 array of
      :data:`NUM_POLICY_PARAMS` style parameters (rates in millionths; a negative slot means
      the default; build it with :func:`policy_table` or :func:`parse_policy`);
    - ``planning``: left out, every style; ``None`` (a compiled loop passing it on) compiles
      a version without the planning styles (:data:`PLANNING_POLICIES`), which must not be
      asked for then (:func:`planning_needed` says which to pass). The planning styles
      simulate whole games and are most of the dispatcher's compile time; numba drops the
      branch for a ``None`` argument before typing, so loops of random and scripted players
      never compile them (issue 21: cold start).
    - ``scripted``: likewise, ``None`` compiles a version with the random styles alone
      (``random_legal`` and ``random_playable``), for loops whose every compiled player is
      one of them (:func:`scripted_needed` says which to pass; ``planning`` is then ``None``
      too): the scripted styles' card scores are most of what is left.

    Returns a legal action id, or -1 when ``count`` is 0 (the game is over).
    """
    if count <= 0:
        return -1
    if planning is not None:  # pruned at compile time when the argument is None
        if policy == POLICY_SEARCH or policy == POLICY_ORACLE:
            return search_action(state, spec, mask, count, params, policy == POLICY_ORACLE)
        if policy == POLICY_MONTE_CARLO:
            return monte_carlo_action(state, spec, mask, count, params)
    if policy == POLICY_RANDOM_LEGAL:
        return random_action(state, mask, count)
    if scripted is None:  # pruned at compile time: then every player here is a random style
        return random_playable_action(state, spec, mask)
    if policy == POLICY_RANDOM_PLAYABLE:
        return random_playable_action(state, spec, mask)
    return scripted_action(state, spec, mask, policy, params)


PLANNING_POLICIES = (POLICY_MONTE_CARLO, POLICY_SEARCH, POLICY_ORACLE)
"""The styles that plan by simulating games: compiled into :func:`choose_action` only when
its ``planning`` argument is not ``None``."""


def planning_needed(codes: np.ndarray) -> bool:
    """Whether any of the policy ``codes`` is a planning style (:data:`PLANNING_POLICIES`):
    if not, a compiled loop may pass ``planning=None`` and compile without them."""
    return bool(np.isin(codes, PLANNING_POLICIES).any())


RANDOM_POLICIES = (POLICY_RANDOM_LEGAL, POLICY_RANDOM_PLAYABLE)
"""The random styles: all that :func:`choose_action` compiles when its ``scripted`` argument is
``None``."""


def scripted_needed(codes: np.ndarray) -> bool:
    """Whether any of the policy ``codes`` (negative codes: callers, not compiled styles) is
    neither ``random_legal`` nor ``random_playable``: if not, a compiled loop may pass
    ``scripted=None`` (and ``planning=None``) and compile without the other styles."""
    styles = np.asarray(codes)
    return bool(((styles >= 0) & ~np.isin(styles, RANDOM_POLICIES)).any())


# ================================================================ the style table (Python)
@dataclass(frozen=True)
class StyleParam:
    """One parameter of a style: its slot in the parameter array and allowed values.

    A ``rate`` is a probability written as a number in [0, 1] and stored in millionths;
    with ``choices`` the value is one of those names, stored as its index; otherwise the
    value is an integer.
    """

    name: str
    slot: int
    default: int
    low: float
    high: float
    rate: bool
    doc: str
    choices: tuple[str, ...] = ()
    auto: bool = False  # "auto" (stored as AUTO): the default for the game's player count
    network: bool = False  # the value names an exported network (stored: its index in NETWORKS)
    guided: bool = False  # only with a network (``net=``): left out of the text without one

    def encode(self, text: str, style: str) -> int:
        """The stored value of ``text``; raise ValueError naming the allowed range."""
        where = f"parameter {self.name!r} of style {style!r}"
        if self.network:
            return network_id(text, where)
        if self.auto and text == "auto":
            return AUTO
        if self.choices:
            text = STYLE_ALIASES.get(text, text)  # "rollout=random" is random_legal
            if text not in self.choices:
                raise ValueError(f"{where} must be one of {', '.join(self.choices)}; got {text!r}")
            return self.choices.index(text)
        try:
            value = float(text) if self.rate else int(text)
        except ValueError:
            kind = "a number" if self.rate else "an integer"
            raise ValueError(f"{where} must be {kind}, got {text!r}") from None
        if not self.low <= value <= self.high:
            raise ValueError(f"{where} must be between {self.low:g} and {self.high:g}, got {text}")
        return round(value * PPM) if self.rate else int(value)

    def decode(self, stored: int) -> str:
        """The text form of a stored value."""
        if self.network:
            return NETWORKS[stored] if 0 <= stored < len(NETWORKS) else "none"
        if self.auto and stored == AUTO:
            return "auto"
        if self.choices:
            return self.choices[stored]
        return f"{stored / PPM:g}" if self.rate else str(stored)

    def allowed(self) -> str:
        """The allowed values as text (``a|b|c`` or ``low..high``, with ``|auto``)."""
        if self.network:
            return "a shipped network's name or an exported .npz path"
        text = "|".join(self.choices) if self.choices else f"{self.low:g}..{self.high:g}"
        return text + "|auto" if self.auto else text


@dataclass(frozen=True)
class Style:
    """A named compiled play style: its code, a one-line summary, its idea per decision and
    its parameters. ``cheats``: it reads hidden information (the oracle); tournaments and
    studies refuse it unless cheating agents are allowed."""

    name: str
    code: int
    summary: str
    idea: str
    params: tuple[StyleParam, ...] = ()
    cheats: bool = False

    def default_params(self) -> np.ndarray:
        """The parameter array with every default filled in."""
        out = np.full(NUM_POLICY_PARAMS, -1, dtype=np.int64)
        for p in self.params:
            out[p.slot] = p.default
        return out

    def format(self, params: np.ndarray) -> str:
        """Canonical ``name:key=value,...`` text of this style with ``params`` (the parameters
        of a network-guided search only when it has a network)."""
        if not self.params:
            return self.name
        guided = params[P_NET] >= 0 if self.is_search else False
        values = ",".join(
            f"{p.name}={p.decode(int(params[p.slot]))}" for p in self.params if guided or not p.guided
        )
        return f"{self.name}:{values}"

    @property
    def is_search(self) -> bool:
        """Whether this is one of the search agents (which a network may guide)."""
        return self.code in (POLICY_SEARCH, POLICY_ORACLE)


def network_id(text: str, where: str = "parameter 'net'") -> int:
    """The index in :data:`NETWORKS` of the exported network ``text`` names (a shipped name or
    an ``.npz`` path), added if new; ValueError when it names none. The file itself is read
    and checked where the search is seated (:mod:`uno_env.sim.guided`)."""
    from ..sim.learned import is_learned_policy, shipped_policies  # the registry of exported files

    name = text.strip()
    if not is_learned_policy(name):
        known = ", ".join(shipped_policies()) or "none"
        raise ValueError(
            f"{where} must name an exported network: a .npz path or a shipped one ({known}); got {text!r}"
        )
    if name not in NETWORKS:
        NETWORKS.append(name)
    return NETWORKS.index(name)


def _doubt(default: int) -> StyleParam:
    return StyleParam(
        "doubt",
        P_DOUBT,
        default,
        0.0,
        1.0,
        True,
        "challenge a Wild Draw Four when the estimated chance of a bluff is at least this",
    )


def _search_params(oracle: bool) -> tuple[StyleParam, ...]:
    """The parameters of the search agents (``oracle``: no ``trust``, and ``pile``)."""
    sims = StyleParam(
        "sims", P_SIMS, SIMS_DEFAULT, 1, 1_000_000, False, "simulations (rollouts) per decision"
    )
    depth = StyleParam(
        "depth",
        P_DEPTH_SEARCH,
        SEARCH_DEPTH_DEFAULT,
        0,
        ROLLOUT_LIMIT,
        False,
        "decisions per rollout before the position is evaluated (0: to the end of the round)",
    )
    trust = StyleParam(
        "trust",
        P_TRUST,
        TRUST_DEFAULT,
        0.0,
        1.0,
        True,
        "share of the samples that believe what plays suggest (a draw by choice: nothing to play; "
        "a Wild Draw Four: no card of the colour); 0 keeps to what the rules prove",
    )
    confidence = StyleParam(
        "confidence",
        P_CONFIDENCE,
        CONFIDENCE_DEFAULT,
        0,
        1000,
        False,
        "standard errors (in hundredths) by which a move must beat the rollout style's own choice",
    )
    rollout = StyleParam(
        "rollout",
        P_ROLLOUT,
        ROLLOUT_DEFAULT,
        0,
        ROLLOUT_NET,
        False,
        "the style every seat plays in the rollouts (net: the network, with `net=`)",
        (*ROLLOUT_STYLES, "net"),
    )
    explore = StyleParam(
        "explore", P_EXPLORE, EXPLORE_DEFAULT, 0.0, 1.0, True, "chance of a random decision in a rollout"
    )
    value = StyleParam(
        "value",
        P_VALUE,
        AUTO,
        0,
        len(VALUE_MODELS) - 1,
        False,
        "how an unfinished rollout is valued: by the hand sizes, by the hand sizes and the wild cards "
        "held, or by the critic of the network (`net=`, a file with one); auto: the critic when the "
        f"network has one, else {VALUE_MODELS[VALUE_SIZES]} at 2 players, "
        f"{VALUE_MODELS[VALUE_WILDS]} at more",
        VALUE_MODELS,
        auto=True,
    )
    net = StyleParam(
        "net",
        P_NET,
        NO_NETWORK,
        0,
        0,
        False,
        "an exported network that guides the search (its priors, rollouts and critic; uno_env.sim.guided)",
        network=True,
        guided=True,
    )
    top = StyleParam(
        "top",
        P_TOP,
        TOP_DEFAULT,
        0,
        1000,
        False,
        "candidates searched, the network's most likely first, and the kept move (0: every legal action)",
        guided=True,
    )
    default = StyleParam(
        "default",
        P_DEFAULT,
        DEFAULT_NET,
        0,
        len(DEFAULT_MOVES) - 1,
        False,
        "the move kept unless another beats it by `confidence`: the rollout style's or the network's",
        DEFAULT_MOVES,
        guided=True,
    )
    own = StyleParam(
        "own",
        P_OWN,
        0,
        0,
        len(OWN_PLAYERS) - 1,
        False,
        "who plays the searcher's own seat in its rollouts: the rollout policy (same) or the network",
        OWN_PLAYERS,
        guided=True,
    )
    guided = (net, top, default, own)
    if oracle:
        pile = StyleParam("pile", P_PILE, PILE_DEFAULT, 0, 1, False, "1: also see the order of the draw pile")
        return (sims, depth, confidence, rollout, explore, pile, value, *guided)
    return (sims, depth, trust, confidence, rollout, explore, value, *guided)


_CALL_COLOUR = "Calls UNO before laying its second-to-last card; names the colour it holds most of."
STYLES: dict[str, Style] = {
    s.name: s
    for s in (
        Style(
            "random_legal",
            POLICY_RANDOM_LEGAL,
            "uniform over the legal actions (a weak baseline; also named `random`)",
            "Every decision uniformly at random among the legal actions, including drawing "
            "while holding a playable card (U-DRAW-3) and forgetting to call UNO. Its games "
            "are long: two of them average about 4,200 decisions a game at 2 players.",
        ),
        Style(
            "random_playable",
            POLICY_RANDOM_PLAYABLE,
            "the literature's random player: a random playable card, draws only with none",
            "Plays a uniformly random playable card (RLCard's and most papers' random agent) "
            "and draws only when it has nothing to play; names a random colour, calls UNO "
            "when the rules ask (two cards, one to lay; never falsely), and takes a random "
            "choice among the other legal actions in every other phase (challenge or accept, "
            "a target, keep an unplayable drawn card).",
        ),
        Style(
            "greedy",
            POLICY_GREEDY,
            "greedy points dumper: the highest-scoring card first",
            "Plays its highest-scoring card (wilds 50, action cards 20, numbers face value), "
            "so it is caught with few points; draws only when nothing is playable. "
            + _CALL_COLOUR
            + " Challenges on evidence.",
            (_doubt(DOUBT_DEFAULT),),
        ),
        Style(
            "aggressor",
            POLICY_AGGRESSOR,
            "action-first aggressor: draw cards, skips and reverses as soon as possible",
            "Plays draw cards first (most cards), then skips, then reverses, then numbers, a "
            "plain wild last. " + _CALL_COLOUR + " Challenges on evidence.",
            (_doubt(DOUBT_DEFAULT),),
        ),
        Style(
            "hoarder",
            POLICY_HOARDER,
            "hoarder/defender: keeps wilds and draw cards until an opponent is close to out",
            "Sheds numbers and skips/reverses first; keeps wilds and draw cards (drawing rather "
            "than playing them) until an opponent holds `threat` cards or fewer (or its own "
            "hand grows past `limit`), then plays them first. " + _CALL_COLOUR + " Challenges on evidence.",
            (
                _doubt(DOUBT_DEFAULT),
                StyleParam(
                    "threat",
                    P_THREAT,
                    HOARDER_THREAT_DEFAULT,
                    0,
                    100,
                    False,
                    "an opponent with this many cards or fewer is close to going out",
                ),
                StyleParam(
                    "limit",
                    P_LIMIT,
                    LIMIT_DEFAULT,
                    0,
                    200,
                    False,
                    "with more cards than this in its own hand it stops hoarding",
                ),
            ),
        ),
        Style(
            "controller",
            POLICY_CONTROLLER,
            "colour controller: keeps play in its longest colour",
            "Plays the card that leaves it the most cards of the colour the play sets (a wild "
            "switches to its longest colour), coloured cards before wilds, then points. "
            + _CALL_COLOUR
            + " Challenges on evidence.",
            (_doubt(DOUBT_DEFAULT),),
        ),
        Style(
            "blocker",
            POLICY_BLOCKER,
            "opponent-aware blocker: targets the player with the fewest cards",
            "When the opponent with the fewest cards (at most `threat`) plays next, hits them "
            "with draw cards, skips or a Reverse; never reverses play towards that leader; "
            "otherwise sheds numbers and saves action cards and wilds. Picks the leader as the "
            "target whenever a target seat is asked for. " + _CALL_COLOUR + " Challenges on evidence.",
            (
                _doubt(DOUBT_DEFAULT),
                StyleParam(
                    "threat",
                    P_THREAT,
                    BLOCKER_THREAT_DEFAULT,
                    0,
                    100,
                    False,
                    "the leader is blocked once it holds this many cards or fewer",
                ),
            ),
        ),
        Style(
            "bluffer",
            POLICY_BLUFFER,
            "bluffer/challenger: bluffs and challenges Wild Draw Fours at set rates",
            "Plays like the greedy dumper, but plays an illegal Wild Draw Four (a bluff) with "
            "chance `bluff` and challenges every Wild Draw Four with chance `challenge`. " + _CALL_COLOUR,
            (
                StyleParam(
                    "bluff",
                    P_BLUFF,
                    BLUFF_DEFAULT,
                    0.0,
                    1.0,
                    True,
                    "chance of playing a Wild Draw Four as a bluff when it may not legally",
                ),
                StyleParam(
                    "challenge",
                    P_CHALLENGE,
                    CHALLENGE_DEFAULT,
                    0.0,
                    1.0,
                    True,
                    "chance of challenging a Wild Draw Four played on it",
                ),
            ),
        ),
        Style(
            "cautious",
            POLICY_CAUTIOUS,
            "cautious caller: always calls UNO, never bluffs, keeps a wild as a sure last card",
            "Always calls UNO in time, never bluffs, challenges only on strong evidence; "
            "keeps `reserve` wilds back (drawing rather than playing them) so that its last "
            "card always matches; sheds its other cards highest points first; names the "
            "colour it holds most of.",
            (
                _doubt(CAUTIOUS_DOUBT_DEFAULT),
                StyleParam(
                    "reserve",
                    P_RESERVE,
                    RESERVE_DEFAULT,
                    0,
                    10,
                    False,
                    "wild cards kept back while other cards remain",
                ),
            ),
        ),
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
        Style(
            "search",
            POLICY_SEARCH,
            "determinised Monte-Carlo search: samples the hidden cards, rolls every option out",
            "Perfect-information Monte Carlo (uno_env.styles.search): samples the cards it cannot see "
            "from what it knows (hand sizes, the discard pile, hands it has seen, what draws and "
            "Wild Draw Fours proved a player lacks, and with chance `trust` what they suggest), "
            "applies every legal action in each sample, plays on `depth` decisions with `rollout` "
            "at every seat and values the position by the hand sizes; `sims` rollouts per "
            "decision, spread by successive halving, every candidate in the same samples. Plays "
            "the rollout style's own choice unless another action gains more than `confidence` "
            "standard errors. Calls UNO before laying its second-to-last card. Every phase.",
            _search_params(oracle=False),
        ),
        Style(
            "oracle",
            POLICY_ORACLE,
            "CHEATS: the search with the true hidden cards (an upper bound, not a player)",
            "The `search` agent given the other players' true hands (and with `pile=1` the order "
            "of the draw pile): it cheats. Its lead over `search` measures what the hidden "
            "information is worth under a rule set. Tournaments and studies refuse it unless "
            "cheating agents are allowed.",
            _search_params(oracle=True),
            cheats=True,
        ),
    )
}


def available_styles() -> dict[str, str]:
    """Every compiled style name with its one-line summary."""
    return {name: style.summary for name, style in STYLES.items()}


STYLE_ALIASES = {"random": "random_legal"}
"""Older names still read: ``random`` is ``random_legal`` (uniform over the legal actions)."""


def parse_policy(text: str) -> tuple[Style, np.ndarray]:
    """Read ``"name"`` or ``"name:key=value,..."``; return the style and its parameter array.

    A bare value sets the style's first parameter (``"search:400"`` is ``"search:sims=400"``).
    Unknown names and parameters raise ValueError listing the valid ones; omitted parameters
    take their defaults. The names of :data:`STYLE_ALIASES` read as the styles they name.
    """
    name, _, rest = text.strip().partition(":")
    name = name.strip()
    style = STYLES.get(STYLE_ALIASES.get(name, name))
    if style is None:
        aliases = ", ".join(f"{a} (= {b})" for a, b in STYLE_ALIASES.items())
        raise ValueError(f"unknown play style {name!r}; available: {', '.join(STYLES)}; also {aliases}")
    params = style.default_params()
    by_name = {p.name: p for p in style.params}
    seen: set[str] = set()
    for position, item in enumerate(rest.split(",")):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep and position == 0 and style.params and key not in by_name:
            key, value = style.params[0].name, item  # "search:400": the first parameter
        elif not sep:
            raise ValueError(f"style parameter {item.strip()!r} of {name!r} is not key=value")
        if key not in by_name:
            valid = ", ".join(by_name) or "none"
            raise ValueError(f"style {name!r} has no parameter {key!r}; its parameters: {valid}")
        if key in seen:
            raise ValueError(f"style parameter {key!r} of {name!r} is given twice")
        seen.add(key)
        params[by_name[key].slot] = by_name[key].encode(value.strip(), name)
    if style.is_search and params[P_NET] < 0:
        needs = [p.name for p in style.params if p.guided and p.name != "net" and p.name in seen]
        if params[P_ROLLOUT] == ROLLOUT_NET:
            needs.append("rollout=net")
        if params[P_VALUE] == VALUE_NET:
            needs.append("value=net")
        if needs:
            raise ValueError(
                f"{', '.join(needs)} of {name!r} need a network: add net=NAME (an exported .npz or a "
                "shipped name)"
            )
    return style, params


def canonical_policy(text: str) -> str:
    """The canonical text of a policy name with parameters (every default written out)."""
    style, params = parse_policy(text)
    return style.format(params)


POLICIES: dict[str, int] = {name: style.code for name, style in STYLES.items()}
"""Compiled policy name -> code (:func:`choose_action`'s ``policy``); see :data:`STYLES`."""
POLICY_DOCS: dict[str, str] = available_styles()
"""Compiled policy name -> one-line description."""


def policy_table(names: list[str], networks: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Codes (int64, one per name) and parameters (int64, ``len(names) x NUM_POLICY_PARAMS``)
    of policy texts such as ``"greedy"`` or ``"bluffer:bluff=0.3,challenge=0.8"``.

    A search guided by a network (``search:net=NAME``) needs a caller that seats networks
    (``networks=True``: the batch simulator and :mod:`uno_env.sim.guided`); elsewhere it is
    refused with a ValueError, never played without its network."""
    codes = np.zeros(len(names), dtype=np.int64)
    params = np.full((len(names), NUM_POLICY_PARAMS), -1, dtype=np.int64)
    for i, name in enumerate(names):
        style, values = parse_policy(name)
        if values[P_NET] >= 0 and not networks:
            raise ValueError(
                f"{name!r}: a search guided by a network plays in simulate, tournaments, studies, sweeps and "
                "at a Game (agents.make), not here (compiled styles without networks only)"
            )
        codes[i] = style.code
        params[i] = values
    return codes, params


# ================================================================ what an agent may see
@dataclass(frozen=True)
class PublicView:
    """A game at a decision as a scripted agent may see it: the state buffer and the rules.

    ``state`` is the game's full state buffer and ``spec`` its compiled rule set; nothing here
    writes to them. :meth:`redacted` gives the copy an agent actually reads: the other
    players' hands, the draw pile's order, the chance generator and the engine's bluff flag
    (unless it is the mover's own, :func:`own_bluff_known`) are wiped, so an agent cannot use
    hidden information even by mistake. Build one with
    :meth:`of` from a :class:`~uno_env.game.facade.Game`; an environment builds it from its own
    buffers (``PublicView(state, spec)``).
    """

    state: np.ndarray
    spec: np.ndarray

    @classmethod
    def of(cls, game: Game) -> PublicView:
        """The view of ``game`` (a :class:`~uno_env.game.facade.Game`) at its current decision."""
        return cls(game.state, game.compiled.spec)

    @property
    def seat(self) -> int:
        """The seat that decides now (-1 once the game is over)."""
        return int(self.state[L.S_CURRENT])

    @property
    def num_actions(self) -> int:
        """Size of the action table of the rule set's deck family."""
        return int(self.spec[L.SP_NUM_ACTIONS])

    def redacted(self) -> np.ndarray:
        """A copy of the state holding only what the player to move may know."""
        out = self.state.copy()
        seat = int(out[L.S_CURRENT])
        for other in range(L.MAX_PLAYERS):
            if other != seat:
                out[L.HANDS + other * L.MAX_FACES : L.HANDS + (other + 1) * L.MAX_FACES] = 0
                out[L.HELD + other] = 0
        out[L.DRAW_PILE : L.DRAW_PILE + L.MAX_CARDS] = 0
        out[L.RNG : L.RNG + L.RNG_WORDS] = 0
        if not own_bluff_known(out):
            out[L.S_BLUFF] = 0
        return out

    def style_action(
        self,
        style: int,
        params: np.ndarray,
        mask: np.ndarray,
        generator: np.ndarray,
        full: bool = False,
        chooser: Callable[[np.ndarray, np.ndarray, np.ndarray, int], int] | None = None,
    ) -> int:
        """The action compiled ``style`` (with ``params``) takes here, seeing only :meth:`redacted`
        (``full``: the whole state, for a style that cheats by design, the oracle).

        ``mask`` is the mover's legal-action mask (nonzero: legal); ``generator`` the caller's
        own generator (:func:`agent_generator`), which the style draws from and which is
        advanced in place, so a Python agent's choices depend on its own seed, never on the
        game's. ``chooser(state, spec, mask, count)`` decides instead of :func:`choose_action`
        when given (a search guided by a network, :mod:`uno_env.sim.guided`). Returns -1 when
        nothing is legal.
        """
        state = self.state.copy() if full else self.redacted()
        state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS] = generator
        legal = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        legal[: self.num_actions] = mask[: self.num_actions] != 0
        if chooser is not None:
            action = chooser(state, self.spec, legal, int(legal.sum()))
        else:
            action = choose_action(state, self.spec, legal, int(legal.sum()), style, params)
        generator[:] = state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS]
        return int(action)

    def search_with_counts(
        self,
        params: np.ndarray,
        mask: np.ndarray,
        generator: np.ndarray,
        full: bool,
        visits: np.ndarray,
        values: np.ndarray,
    ) -> int:
        """:meth:`style_action` of the search (``full``: the oracle) that also reports what it
        saw: the rollouts per action id in ``visits`` and their mean value in ``values``
        (:func:`uno_env.styles.search.search_decision`). The same action, the generator advanced alike."""
        state = self.state.copy() if full else self.redacted()
        state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS] = generator
        legal = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        legal[: self.num_actions] = mask[: self.num_actions] != 0
        action = search_decision(state, self.spec, legal, int(legal.sum()), params, full, visits, values)
        generator[:] = state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS]
        return int(action)


def agent_generator(seed: int, stream: int) -> np.ndarray:
    """A generator of its own for a Python agent, seeded from ``(seed, stream)`` (see
    :meth:`PublicView.style_action`)."""
    generator = np.zeros(L.RNG_WORDS, dtype=np.int64)
    seed_rng(generator, 0, seed, stream)
    return generator


# the search agents build on this module's styles (rollouts) and are dispatched by choose_action:
# imported last, once every name uno_env.styles.search reads from here is defined
from .search import search_action, search_decision  # noqa: E402
