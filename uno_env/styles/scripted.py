"""The scripted styles: one card score per style, under one template of decisions by phase.

Each style answers each kind of decision with one idea:

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
  (:func:`~uno_env.styles.facts.bluff_probability_ppm` against the style's ``doubt``
  threshold; the bluffer at a rate), else accept.
- any other decision (a target seat, a card to give, phases added later):
  :func:`~uno_env.styles.facts.fallback_action`, deterministic: a target seat with the
  fewest cards if a target is asked for, else the first legal action that is not ``draw``
  (else ``draw``).

No scripted style except the bluffer plays a Wild Draw Four as a bluff where it can be
challenged (U-WD4-1, U-WD4-2). Styles read the spec's face tables (``F_EFFECT``,
``F_AMOUNT``, ``F_POINTS``, ``F_COLOUR``, ``F_ANYWHERE``), never Uno face ids, so they play
every deck family. The deterministic styles draw nothing from the agent generator.

**A new scripted style** is, in this file: a code, a card score, its branch in
:func:`card_score` and its entry in :data:`SCRIPTED_STYLES` (plus a slot in
:mod:`~uno_env.styles.params` for a parameter name no style has yet); the registry, the
dispatcher, the simulator, the envs and the CLI find it from there.

Rules used: U-MATCH-1, U-WILD-1, U-WD4-1, U-WD4-2, U-UNO-1, U-REV-1, U-D2-1, U-SKIP-1,
U-DRAW-1, U-DRAW-3, H-STACK-1, H-REFLECT-1, H-JUMP-1, MM-CALL-1, MC-CALL-1, MC-END-1, E-DIR-1.
"""

from __future__ import annotations

import numpy as np

from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.rng import chance_ppm
from .facts import (
    H_FEWEST,
    H_WILDS,
    attack_class,
    challenge_by_evidence,
    colour_by_hand,
    fallback_action,
    hand_summary,
    is_bluff,
    true_call,
)
from .params import (
    P_BLUFF,
    P_CHALLENGE,
    P_DOUBT,
    P_LIMIT,
    P_RESERVE,
    P_THREAT,
    Style,
    StyleParam,
    _doubt,
    param,
)

POLICY_GREEDY = 1
POLICY_AGGRESSOR = 2
POLICY_HOARDER = 3
POLICY_CONTROLLER = 4
POLICY_BLOCKER = 5
POLICY_BLUFFER = 6
POLICY_CAUTIOUS = 7

DOUBT_DEFAULT = 500_000
CAUTIOUS_DOUBT_DEFAULT = 750_000
HOARDER_THREAT_DEFAULT = 2
BLOCKER_THREAT_DEFAULT = 4
BLUFF_DEFAULT = 500_000
CHALLENGE_DEFAULT = 500_000
RESERVE_DEFAULT = 1
LIMIT_DEFAULT = 10

NEVER = -(1 << 40)  # card score of a card a style refuses to play (a bluff)


# ================================================================ card scores, one idea each
# Each takes the mover's hand summary ``h`` (:func:`~uno_env.styles.facts.hand_summary`) and
# returns the score of playing ``face``: the highest score >= 0 is played; below 0 the style
# would rather draw.


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


# ================================================================ the registry entries
_CALL_COLOUR = "Calls UNO before laying its second-to-last card; names the colour it holds most of."
SCRIPTED_STYLES = (
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
)
"""The scripted styles' registry entries, in registry order (:mod:`uno_env.styles.registry`)."""
