"""What the player to move may read, for the compiled styles: public facts and shared ideas.

A style reads only what the player to move knows: hand sizes, the discard pile and its top
card, the active colour, the direction, the phase, the pending penalty and who sent it, the
UNO-call flags, the scores, its own hand and the deck composition (``state[DECK ...]``).
Never the other hands, the order of the draw pile, the chance generator or the engine's
record of whether a pending Wild Draw Four was a bluff (:func:`own_bluff_known` says when
that record is the mover's own). These helpers are the styles' shared vocabulary.

Rules used: U-WD4-1, U-WD4-2, U-WILD-1, U-UNO-1, MC-CALL-1, MM-CALL-1, U-REV-1, MC-END-1,
E-CONS-1.
"""

from __future__ import annotations

import numpy as np

from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from .params import PPM


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
    of the colour before it, or under the ``no_playable_card`` option any card that matched,
    under ``no_playable_number_card`` any number card that matched).
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
        legal_when = spec[L.SP_WD4_LEGAL_WHEN]
        if legal_when != engine.WD4_NO_MATCHING_COLOUR:
            if spec[L.F_ANYWHERE + face] == 1:
                spoils = True
            if under >= 0 and spec[L.F_RANK + face] == spec[L.F_RANK + under]:
                spoils = True
            if legal_when == engine.WD4_NO_PLAYABLE_NUMBER_CARD and spec[L.F_IS_NUMBER + face] == 0:
                spoils = False  # 002: an action card never makes it illegal
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


@njit(cache=True)
def own_bluff_known(state: np.ndarray) -> bool:
    """U-WD4-2: whether the bluff flag is the mover's own knowledge: outside a challenge the
    mover is still resolving its own play (the Wild Draw Four it may have just laid, before
    it names the colour or lays more cards). Otherwise the flag is hidden from the mover."""
    return state[L.S_PHASE] != L.PH_CHALLENGE and state[L.S_ACTOR] == state[L.S_CURRENT]
