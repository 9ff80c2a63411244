"""The compiled rules: plain functions over a game's state buffer and a rule set's spec.

Every function here takes ``state`` (one game, layout in :mod:`uno_env.engine.layout`) and ``spec``
(a compiled :class:`~uno_env.engine.rules.RuleSet`) and is compiled by numba with ``cache=True``.
The same source runs uncompiled under ``NUMBA_DISABLE_JIT=1``. Entry points shared by the
:class:`~uno_env.game.facade.Game` facade, the batch simulator and the environments:

- :func:`new_game` deals a game from ``(seed, stream)``;
- :func:`legal_sets` gives the legal actions of the player to move as two bitmasks, from
  the mask function of the phase (:func:`legal_play`, :func:`legal_play_drawn`, ...,
  :func:`legal_block`); :func:`fill_mask` writes them into a mask;
- :func:`apply_action` applies one legal decision through the apply function of the phase
  (:func:`apply_play`, ..., :func:`apply_block`), then resolves every chance event until
  the next decision; :func:`step_checked` checks legality, applies and refills the mask in
  one call (one compiled call per step).

The engine never decides for a player: each choice (colour, play or keep a drawn card,
challenge, answer a penalty, lay another card, a target seat, a card to give, a jump-in,
a call) is its own decision. Chance (shuffles, catching a missed call, reflex penalties)
comes from the game's own generator.

A play is laid card by card (:func:`start_play`, then ``PH_CONTINUE`` for multi-card plays);
when it is complete, :func:`finish_play` checks the call and the empty hand, and
:func:`resolve` walks the resolution stages (colour, house-rule number effects, reflexes,
the look at the hands, passing the turn), pausing wherever a player must decide.

Rules implemented: U-DECK-1/2 (via the deck counts), U-SETUP-1, U-SETUP-2, U-START-1,
U-START-2, U-MATCH-1, U-DRAW-1..4, U-SKIP-1, U-REV-1, U-D2-1, U-WILD-1, U-WD4-1, U-WD4-2,
U-UNO-1, U-END-1, U-SCORE-1..3; H-STACK-1, H-REFLECT-1, H-SEVEN-1, H-ZERO-1, H-JUMP-1,
H-MULTI-1, H-MULTI-2, H-SEQ-1, H-EIGHT-1, H-TWO-1, H-NOFINISH-1, H-LASTONE-1, H-ACTION-1,
H-REACT-1, H-ZEROSEE-1, H-SCOPE-1; M-STAR-1, M-CHAL-1; MM-START-1, MM-MATCH-1, MM-DRAW-1,
MM-ACE-1, MM-QUEEN-1, MM-JACK-1, MM-SEVEN-1, MM-NINE-1, MM-CALL-1, MM-SCORE-1; MD-DRAW-1,
MD-ACE-1, MD-SEVEN-1, MD-NINE-1, MD-JACK-1; MC-START-1, MC-TURN-1, MC-RESHUFFLE-1,
MC-CALL-1, MC-FOUR-1, MC-DRAW-1, MC-ACE-1, MC-OPT-1, MC-END-1; E-DIR-1, E-CONS-1 (checked by
:func:`check_invariants`), E-END-1.
"""

from __future__ import annotations

import numpy as np

from ..compiler.jit import njit
from . import layout as L
from . import options as O
from .bits import lowest_bit, popcount
from .rng import chance_ppm, rand_below, seed_rng, shuffle

# option codes, read from the option tables (the one source of every code)
MATCH_SINGLE_ROUND = O.MATCH["single_round"]
MATCH_FIRST_TO_TARGET = O.MATCH["first_to_target"]
MATCH_LOWEST_TOTAL = O.MATCH["lowest_total"]
WD4_CHALLENGE = O.WD4_BLUFF["challenge"]
WD4_UNPUNISHED = O.WD4_BLUFF["unpunished"]
WD4_REFUSED = O.WD4_BLUFF["refused"]
WD4_NO_MATCHING_COLOUR = O.WD4_LEGAL_WHEN["no_matching_colour"]
WD4_NO_PLAYABLE_CARD = O.WD4_LEGAL_WHEN["no_playable_card"]
WD4_NO_PLAYABLE_NUMBER_CARD = O.WD4_LEGAL_WHEN["no_playable_number_card"]
DRAW_ONE = O.DRAW["one"]
DRAW_UNTIL_PLAYABLE = O.DRAW["until_playable"]
DRAW_ONE_THEN_ANY = O.DRAW["one_then_any"]
DRAW_ONE_THEN_PASS = O.DRAW["one_then_pass"]
CALL_NONE = O.CALL["none"]
CALL_UNO = O.CALL["uno"]
CALL_MAU_MAU = O.CALL["mau_mau"]
START_OFFICIAL = O.START_CARD["official"]
START_PLAIN = O.START_CARD["number_only"]
START_FIRST_DISCARD = O.START_CARD["first_discard"]
START_REVERSE_AS_PLAY = O.START_REVERSE["as_dealers_play"]
ZERO_NONE = O.ZERO_RULE["none"]
ZERO_ROTATE = O.ZERO_RULE["rotate"]
ZERO_SWAP_OPTIONAL = O.ZERO_RULE["swap_optional"]
ZERO_SWAP = O.ZERO_RULE["swap"]
ZERO_DISCARD_COLOUR = O.ZERO_RULE["discard_colour"]
MULTI_NONE = O.MULTI_PLAY["none"]
MULTI_IDENTICAL = O.MULTI_PLAY["identical"]
MULTI_SAME_RANK = O.MULTI_PLAY["same_rank"]


# Inlining. numba compiles every function as its own module and links the modules of
# everything it calls into it, then LLVM optimises and emits that whole closure again: a rule
# function called from one place would cost a second compile of every rule below it. So, at
# the numba level (inline="always"):
# - the one-line accessors and checks are inlined everywhere;
# - a function called from one place only (a phase's handler such as choose_colour or
#   jump_in, a rule's effect such as _number_effect or end_round) is inlined into its
#   caller: its code is compiled once, inside the caller, and never on its own;
# - so are the small leaf functions of a play's resolution (_reset_play, _lay_effects,
#   _penalty_sent, _clear_pending): they call nothing big, so their copies cost little
#   compile time, while each compiled call costs a decision its argument passing, reference
#   counting and cleared return slots.
# Everything else is its own compiled function, which LLVM still inlines where it pays.
# numba-level inlining copies and re-types the callee's IR at every call site, at a cost
# that grows faster than the callee, so neither the helpers called from several places
# (begin_turn, _lay_card, next_seat, ...) nor the small callers of the whole engine (end_turn,
# finish_play, _after_card, went_out, accept_penalty, open_jump_window) are inlined: either
# doubled the first compile. step_checked alone, a thin wrapper with two callers (the
# facade's step and the AEC env's), is inlined: its own module re-optimised and re-emitted
# apply_action's whole closure. The measurements are in docs/speed.md ("Cold start, round by
# round").


# The staged machinery, left out of the compile where the rules do not need it. The entry
# points (apply_action, fill_mask, step_checked, new_game, check_invariants) and every
# function between them and a rule of the staged machinery take ``staged``: True, or None
# for a rule set that uses none of it (staged_argument). numba prunes the branches on
# ``staged is None`` / ``is not None`` before typing, so official Uno and every rule set
# without multi-card plays, answerable penalties, house-rule number effects, jump-in, extra
# turns, Mau-Mau calls, players leaving, the cube or a first discard as the start compile an
# engine without those rules: its phases
# (PH_CONTINUE, PH_CHOOSE_TARGET, PH_GIVE, PH_JUMP_IN, PH_BLOCK), the resolution stages after
# the colour, the windows and the cube. Each guard reads ``staged is not None and <the
# rule's slot>``, so under those rule sets both versions take the same path; a test plays the
# same games through both.
def staged_argument(spec: np.ndarray) -> bool | None:
    """The ``staged`` argument for the rule set compiled into ``spec``: ``None`` when it uses
    none of the staged machinery (the engine compiles without it), else ``True``.

    None exactly when the fast-path flag ``SP_PLAIN_PLAYS`` is set (no rule field marked
    :data:`uno_env.engine.options.STAGED` is on), there is no cube (H-CUBE-1) and the start is not
    the first player's discard (MM-START-1).
    """
    plain = spec[L.SP_PLAIN_PLAYS] == 1 and spec[L.SP_CUBE] == 0 and spec[L.SP_START] != START_FIRST_DISCARD
    return None if plain else True


# ================================================================ engine errors
@njit(cache=True, inline="always")
def engine_error(state: np.ndarray, code: int) -> None:
    """Record that the state is unusable (the first code stays); :func:`apply_action` then
    ends the game and the callers raise. Bounds checks call this instead of writing."""
    if state[L.S_ENGINE_ERROR] == L.ERR_NONE:
        state[L.S_ENGINE_ERROR] = code


@njit(cache=True, inline="always")
def seat_ok(state: np.ndarray, seat: int) -> bool:
    """Whether ``seat`` (read from the state) is a player; records ERR_SEAT if not."""
    if 0 <= seat < state[L.S_NPLAYERS]:
        return True
    engine_error(state, L.ERR_SEAT)
    return False


@njit(cache=True, inline="always")
def state_usable(state: np.ndarray) -> bool:
    """The checks at the start of every decision: no earlier error, a table of 2..10, a
    player to move."""
    n = state[L.S_NPLAYERS]
    if state[L.S_ENGINE_ERROR] != L.ERR_NONE or n < 2 or n > L.MAX_PLAYERS:
        engine_error(state, L.ERR_SEAT)
        return False
    return seat_ok(state, state[L.S_CURRENT])


# ================================================================ seats (E-DIR-1, MC-END-1)
@njit(cache=True, inline="always")
def wrap_seat(x: int, n: int) -> int:
    """``x mod n`` (in ``0..n-1``), by comparisons when ``-n <= x < 2n``.

    Seat arithmetic runs several times per decision and per observation; the common cases
    (one or two seats along) need no integer division.
    """
    if x >= n:
        x -= n
        if x >= n:
            x %= n
    elif x < 0:
        x += n
        if x < 0:
            x %= n
    return x


@njit(cache=True)  # also called from Python: the position check of a penalty's sender
def next_seat(state: np.ndarray, seat: int, steps: int) -> int:
    """The seat ``steps`` places from ``seat`` in the direction of play, skipping players who left."""
    n = state[L.S_NPLAYERS]
    d = state[L.S_DIRECTION]
    if state[L.S_NFINISHED] == 0:
        return wrap_seat(seat + d * steps, n)
    for _ in range(steps):
        seat = wrap_seat(seat + d, n)
        for _ in range(n):  # at most once round the table: someone is always in play
            if state[L.FINISHED + seat] == 0:
                break
            seat = wrap_seat(seat + d, n)
        else:
            engine_error(state, L.ERR_NO_PLAYER)
    return seat


@njit(cache=True, internal=True)
def previous_seat(state: np.ndarray, seat: int) -> int:
    """The player before ``seat`` in the direction of play (MM-NINE-1), skipping who left."""
    n = state[L.S_NPLAYERS]
    d = state[L.S_DIRECTION]
    seat = wrap_seat(seat - d, n)
    for _ in range(n):
        if state[L.FINISHED + seat] == 0:
            return seat
        seat = wrap_seat(seat - d, n)
    engine_error(state, L.ERR_NO_PLAYER)
    return seat


@njit(cache=True, inline="always")
def active_players(state: np.ndarray) -> int:
    """Players still holding cards in play (all of them unless MC-END-1 lets players leave)."""
    return state[L.S_NPLAYERS] - state[L.S_NFINISHED]


# ================================================================ cards and piles
@njit(cache=True, inline="always")
def top_face(state: np.ndarray) -> int:
    """The face on top of the discard pile."""
    return state[L.DISCARD_PILE + state[L.S_NDISCARD] - 1]


@njit(cache=True, inline="always")
def count_in_hand(state: np.ndarray, seat: int, face: int) -> int:
    """Copies of ``face`` that ``seat`` holds."""
    return state[L.HANDS + seat * L.MAX_FACES + face]


@njit(cache=True, internal=True)
def add_to_hand(state: np.ndarray, seat: int, face: int) -> None:
    """Put one card of ``face`` into ``seat``'s hand."""
    if not (0 <= seat < state[L.S_NPLAYERS] and 0 <= face < L.MAX_FACES):
        engine_error(state, L.ERR_FACE if 0 <= seat < state[L.S_NPLAYERS] else L.ERR_SEAT)
        return
    state[L.HANDS + seat * L.MAX_FACES + face] += 1
    state[L.HELD + seat] |= 1 << face
    state[L.HAND_SIZE + seat] += 1
    state[L.HAND_VERSION + seat] += 1
    state[L.VOID_SLACK + seat] += 1  # a card gained may be of a face it showed it lacked
    state[L.HINT_SLACK + seat] += 1


@njit(cache=True, internal=True)
def remove_from_hand(state: np.ndarray, seat: int, face: int, public: bool = True) -> None:
    """Take one card of ``face`` out of ``seat``'s hand.

    A card laid in view of everyone (``public``) leaves the hand's version as it is, so a
    player who knew the hand (a look, H-ZEROSEE-1, or a hand it passed, H-SEVEN-1, H-ZERO-1)
    still knows it: it saw the card go. A card passed face down (H-TWO-1) gives the hand a new
    version; the caller says who still knows it, and the hand's public records (``VOID_*``,
    ``HINT_*``) keep their slack: a slack that dropped for a face of the record would tell
    every player the card was of those faces."""
    if not (0 <= seat < state[L.S_NPLAYERS] and 0 <= face < L.MAX_FACES):
        engine_error(state, L.ERR_FACE if 0 <= seat < state[L.S_NPLAYERS] else L.ERR_SEAT)
        return
    state[L.HANDS + seat * L.MAX_FACES + face] -= 1
    if state[L.HANDS + seat * L.MAX_FACES + face] == 0:
        state[L.HELD + seat] &= ~(1 << face)
    state[L.HAND_SIZE + seat] -= 1
    if not public:
        # the records are public: a card nobody else saw leaves their slack as it is (at most
        # that many of the faces is still true), or the slack would tell which card it was
        state[L.HAND_VERSION + seat] += 1
        return
    if (state[L.VOID_FACES + seat] >> face) & 1:
        state[L.VOID_SLACK + seat] -= 1  # it came from the cards gained since
    if (state[L.HINT_FACES + seat] >> face) & 1:
        state[L.HINT_SLACK + seat] -= 1


@njit(cache=True, internal=True)
def record_lack(state: np.ndarray, record: int, seat: int, faces: int, slack: int, join: bool) -> None:
    """Public record (``record``: ``L.VOID_FACES`` proven, ``L.HINT_FACES`` implied) that
    ``seat`` holds at most ``slack`` cards of the faces in bitmask ``faces`` now (0: none).
    With ``join``, a record none of whose cards has been gained since (slack 0) joins the new
    one (it holds none of those, so at most ``slack`` of both); else the older one is dropped."""
    at = record + L.RECORD_SLACK
    if join and state[at + seat] == 0:
        faces |= state[record + seat]
    state[record + seat] = faces
    state[at + seat] = slack


@njit(cache=True)
def recount_held(state: np.ndarray, seat: int) -> None:
    """Rebuild ``seat``'s held-faces bitmask from its face counts (after writing HANDS directly)."""
    bits = 0
    for face in range(L.MAX_FACES):
        if state[L.HANDS + seat * L.MAX_FACES + face] > 0:
            bits |= 1 << face
    state[L.HELD + seat] = bits


@njit(cache=True, inline="always")
def call_legal(state: np.ndarray, spec: np.ndarray, seat: int, phase: int) -> bool:
    """Whether ``seat`` may call now, in a phase that allows a call (U-UNO-1, MC-CALL-1, MM-CALL-1)."""
    if state[L.CALLED + seat] != 0:
        return False
    rule = spec[L.SP_CALL_RULE]
    if rule == CALL_MAU_MAU and (phase == L.PH_JUMP_IN or phase == L.PH_BLOCK):
        # out of turn (H-JUMP-1, H-ZEROSEE-1) only the call a card laid now needs: with two
        # cards, laying one leaves one, which MM-CALL-1 punishes without the call
        return state[L.HAND_SIZE + seat] == 2
    if rule == CALL_MAU_MAU and state[L.S_NDRAW] == 0 and state[L.S_NDISCARD] <= 1:
        # no card left to draw (U-DRAW-4): a false call would cost nothing, and calling again
        # and again would stall the game (E-END-1), so only a true call is offered then
        size = state[L.HAND_SIZE + seat]
        if size > 2 or (size == 2 and playable_faces(state, spec, seat) == 0):
            return False
    return (rule == CALL_UNO and state[L.HAND_SIZE + seat] == 2) or rule == CALL_MAU_MAU


@njit(cache=True, inline="always")
def push_discard(state: np.ndarray, face: int) -> None:
    """Lay a card on the discard pile."""
    if not 0 <= state[L.S_NDISCARD] < L.MAX_CARDS:
        engine_error(state, L.ERR_PILE)
        return
    state[L.DISCARD_PILE + state[L.S_NDISCARD]] = face
    state[L.S_NDISCARD] += 1


@njit(cache=True, internal=True)
def tuck_discard(state: np.ndarray, face: int, depth: int) -> None:
    """Put a card into the discard pile just under its ``depth`` top cards (1: the top card)."""
    n = state[L.S_NDISCARD]
    if not 1 <= n < L.MAX_CARDS or not 1 <= depth <= n:
        engine_error(state, L.ERR_PILE)
        return
    for i in range(n, n - depth, -1):
        state[L.DISCARD_PILE + i] = state[L.DISCARD_PILE + i - 1]
    state[L.DISCARD_PILE + n - depth] = face
    state[L.S_NDISCARD] = n + 1


@njit(cache=True, inline="always")
def reshuffle(state: np.ndarray) -> None:
    """U-DRAW-4, MC-RESHUFFLE-1: the discard pile except its top becomes the shuffled draw pile."""
    n_under = state[L.S_NDISCARD] - 1
    if n_under <= 0:
        return
    if state[L.S_NDRAW] < 0 or state[L.S_NDRAW] + n_under >= L.MAX_CARDS:
        engine_error(state, L.ERR_PILE)
        return
    top = top_face(state)
    base = state[L.S_NDRAW]
    for i in range(n_under):
        state[L.DRAW_PILE + base + i] = state[L.DISCARD_PILE + i]
    state[L.S_NDRAW] = base + n_under
    shuffle(state, L.DRAW_PILE, state[L.S_NDRAW], L.RNG)
    state[L.DISCARD_PILE] = top
    state[L.S_NDISCARD] = 1


@njit(cache=True, internal=True)
def draw_one(state: np.ndarray, seat: int) -> int:
    """``seat`` draws the top card (reshuffling if needed); the face, or -1 if none is left."""
    if state[L.S_NDRAW] == 0:
        reshuffle(state)
        if state[L.S_NDRAW] == 0:
            return -1  # U-DRAW-4: nothing to draw
    if not (0 < state[L.S_NDRAW] <= L.MAX_CARDS and seat_ok(state, seat)):
        engine_error(state, L.ERR_PILE)
        return -1
    state[L.S_NDRAW] -= 1
    face = state[L.DRAW_PILE + state[L.S_NDRAW]]
    add_to_hand(state, seat, face)
    state[L.CALLED + seat] = 0  # a call stands only while its player holds one card
    return face


@njit(cache=True, internal=True)
def draw_cards(state: np.ndarray, seat: int, count: int) -> int:
    """``seat`` draws ``count`` cards, as many as exist (U-DRAW-4); returns how many."""
    drawn = 0
    for _ in range(count):
        if draw_one(state, seat) < 0:
            break
        drawn += 1
    return drawn


# ================================================================ which card may go where
# Each rule that decides which cards may be laid is written twice: face by face, as the rule
# reads (matches, _may_lay, playable, answer_kind, continues), and as a set of faces in one
# int64 bitmask (matching_faces, lay_allowed, playable_set, answer_faces, continue_faces),
# which the engine uses: a legal set is then a few ``and``/``or`` of the held-faces bitmask
# (``L.HELD``) and the rule set's face sets, whatever the rules, instead of a test of every
# face. tests/test_fast_path.py checks, position by position in every preset and with every
# switch, that both forms agree.
@njit(cache=True, internal=True)
def matches(state: np.ndarray, spec: np.ndarray, face: int) -> bool:
    """U-MATCH-1 / MM-MATCH-1: same colour/suit, same number/symbol/rank, or a wild.

    A joker (MC-OPT-1) goes only on its colour group: black on clubs/spades, red on
    diamonds/hearts.
    """
    play_on = spec[L.F_PLAY_ON + face]
    if play_on != L.PO_ANY:
        colour = state[L.S_COLOUR]
        black = colour == 0 or colour == 3
        return black if play_on == L.PO_BLACK else not black
    if spec[L.F_ANYWHERE + face] == 1:
        return True
    if spec[L.F_COLOUR + face] == state[L.S_COLOUR]:
        return True
    return spec[L.F_RANK + face] == spec[L.F_RANK + top_face(state)]


@njit(cache=True, internal=True)
def wild_draw_legal_by_face(state: np.ndarray, spec: np.ndarray, seat: int) -> bool:
    """U-WD4-1 face by face (the engine uses :func:`wild_draw_legal`)."""
    nf = spec[L.SP_NUM_FACES]
    for face in range(nf):
        if count_in_hand(state, seat, face) == 0 or spec[L.F_EFFECT + face] == L.EF_WILD_DRAW:
            continue
        legal_when = spec[L.SP_WD4_LEGAL_WHEN]
        if legal_when == WD4_NO_PLAYABLE_CARD:
            if matches(state, spec, face):
                return False
        elif legal_when == WD4_NO_PLAYABLE_NUMBER_CARD:
            if spec[L.F_IS_NUMBER + face] == 1 and matches(state, spec, face):
                return False
        elif spec[L.F_COLOUR + face] == state[L.S_COLOUR]:
            return False
    return True


@njit(cache=True, internal=True)
def _may_lay(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> bool:
    """Restrictions on any card leaving the hand in a play (U-WD4-2 refused, H-NOFINISH-1)."""
    if spec[L.F_EFFECT + face] == L.EF_WILD_DRAW and spec[L.SP_WD4_MODE] == WD4_REFUSED:
        if not wild_draw_legal_by_face(state, spec, seat):
            return False
    if spec[L.SP_NO_FINISH_ACTION] == 1 and state[L.HAND_SIZE + seat] == 1:
        return spec[L.F_IS_NUMBER + face] == 1  # H-NOFINISH-1: never out on an action card
    return True


@njit(cache=True, internal=True)
def playable(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> bool:
    """Whether ``seat`` may start a play with ``face`` on its turn (no penalty pending), face
    by face (the engine uses :func:`playable_set`)."""
    if not matches(state, spec, face) or not _may_lay(state, spec, seat, face):
        return False
    top = top_face(state)
    if spec[L.F_ANYWHERE + face] == 1 and spec[L.SP_WILD_NOT_ON] >= 0:
        # MM-JACK-1: no wild on that rank (option: only while its penalty is pending, which
        # the answer phase already enforces)
        if spec[L.SP_WILD_NOT_ON_PENDING_ONLY] == 0 and spec[L.F_RANK + top] == spec[L.SP_WILD_NOT_ON]:
            # the source lifts only the wildness: it still goes where it matches
            return (
                spec[L.F_COLOUR + face] == state[L.S_COLOUR] or spec[L.F_RANK + face] == spec[L.F_RANK + top]
            )
    if spec[L.SP_ACTION_SAME_SYMBOL] == 1:  # H-ACTION-1
        if spec[L.F_IS_NUMBER + top] == 0 and spec[L.F_IS_NUMBER + face] == 0:
            return spec[L.F_RANK + face] == spec[L.F_RANK + top]
    return True


@njit(cache=True, internal=True)
def answer_kind(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> int:
    """How ``face`` may answer the penalty pending on ``seat``: a PK_* code, or -1 if it can't.

    H-STACK-1 / MM-SEVEN-1 / MD-SEVEN-1 / MC-FOUR-1 / MC-DRAW-1: a penalty card whose rank
    the stack table allows on the pending penalty's rank, and that matches the pile.
    H-REFLECT-1: a matching Reverse sends a draw penalty back. M-STAR-1: a Super Star does.
    The legal answers as a set: :func:`answer_faces`.
    """
    if not _may_lay(state, spec, seat, face):
        return -1
    effect = spec[L.F_EFFECT + face]
    if effect == L.EF_DRAW or effect == L.EF_WILD_DRAW or effect == L.EF_SIT_OUT:
        rank = spec[L.F_RANK + face]
        if spec[L.STACK + rank * L.NUM_RANKS + state[L.S_PENDING_CLASS]] == 1:
            if matches(state, spec, face):
                return L.PK_STACK
    if state[L.S_PENDING] > 0:
        if effect == L.EF_STAR:
            return L.PK_STAR
        if effect == L.EF_REVERSE and spec[L.SP_REVERSE_REFLECTS] == 1 and matches(state, spec, face):
            return L.PK_REFLECT
    return -1


@njit(cache=True, internal=True)
def continues(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> bool:
    """Whether ``face`` may be laid next in the play being made (H-MULTI-1/2, H-SEQ-1, MC-TURN-1),
    face by face (the engine uses :func:`continue_faces`)."""
    if count_in_hand(state, seat, face) == 0:
        return False
    top = top_face(state)
    ok = False
    multi = spec[L.SP_MULTI]
    if multi == MULTI_IDENTICAL and face == top:
        ok = True
    elif multi == MULTI_SAME_RANK and spec[L.F_RANK + face] == spec[L.F_RANK + top]:
        # H-MULTI-2 is about numbers; MC-TURN-1 lays any cards of one value
        ok = spec[L.SP_DECK] == 1 or (spec[L.F_IS_NUMBER + face] == 1 and spec[L.F_IS_NUMBER + top] == 1)
    if not ok and spec[L.SP_RUNS] == 1 and spec[L.F_IS_NUMBER + face] == 1 and spec[L.F_IS_NUMBER + top] == 1:
        if spec[L.F_COLOUR + face] == spec[L.F_COLOUR + top]:  # H-SEQ-1: same colour, one step
            step = spec[L.F_RANK + face] - spec[L.F_RANK + top]
            run = state[L.S_RUN_STEP]
            ok = (step == 1 or step == -1) and (run == 0 or run == step)
    if not ok:
        return False
    if spec[L.SP_LEAVE_ONE] == 1 and state[L.HAND_SIZE + seat] == 1:
        return False  # H-LASTONE-1: a multi-card play leaves one card
    return _may_lay(state, spec, seat, face)


@njit(cache=True, internal=True)
def has_target(state: np.ndarray, seat: int) -> bool:
    """H-SCOPE-1: another player in play holds cards (may be swapped with or given to)."""
    for other in range(state[L.S_NPLAYERS]):
        if other != seat and state[L.FINISHED + other] == 0 and state[L.HAND_SIZE + other] > 0:
            return True
    return False


# ================================================================ the same rules as sets of faces
@njit(cache=True, inline="always")
def colour_faces(spec: np.ndarray, colour: int) -> int:
    """The faces whose colour/suit is ``colour``; ``-1``: the colourless faces."""
    if 0 <= colour < L.NUM_COLOURS:
        return spec[L.COLOUR_FACES + colour]
    if colour == -1:
        return spec[L.COLOURLESS_FACES]
    return 0


@njit(cache=True, inline="always")
def matching_faces(state: np.ndarray, spec: np.ndarray) -> int:
    """:func:`matches` as a set: the faces of the active colour, of the top card's rank, or
    wild; a joker only on its colour group (MC-OPT-1)."""
    colour = state[L.S_COLOUR]
    match = (
        spec[L.ANYWHERE_FACES]
        | spec[L.RANK_FACES + spec[L.F_RANK + top_face(state)]]
        | colour_faces(spec, colour)
    )
    black = spec[L.PLAY_ON_FACES + L.PO_BLACK]
    red = spec[L.PLAY_ON_FACES + L.PO_RED]
    if (black | red) != 0:
        match &= ~(black | red)
        match |= black if colour == 0 or colour == 3 else red
    return match


@njit(cache=True, inline="always")
def wild_draw_proof(state: np.ndarray, spec: np.ndarray) -> int:
    """U-WD4-1: the faces a legal Wild Draw Four laid now shows its player holds none of: those
    of the active colour (with ``wd4_legal_when = "no_playable_card"``, every card that matches;
    with ``"no_playable_number_card"``, every number card that matches), never a Wild Draw
    Four, which does not count against it (:func:`wild_draw_legal`)."""
    legal_when = spec[L.SP_WD4_LEGAL_WHEN]
    if legal_when == WD4_NO_PLAYABLE_CARD:
        return matching_faces(state, spec) & ~spec[L.WILD_DRAW_FACES]
    if legal_when == WD4_NO_PLAYABLE_NUMBER_CARD:
        return matching_faces(state, spec) & spec[L.NUMBER_FACES] & ~spec[L.WILD_DRAW_FACES]
    return colour_faces(spec, state[L.S_COLOUR]) & ~spec[L.WILD_DRAW_FACES]


@njit(cache=True, internal=True)
def wild_draw_legal(state: np.ndarray, spec: np.ndarray, seat: int) -> bool:
    """U-WD4-1: ``seat`` holds no card of the active colour (options: no other playable card;
    no playable number card)."""
    return (state[L.HELD + seat] & wild_draw_proof(state, spec)) == 0


@njit(cache=True, internal=True)
def _wild_draw_proof_under(state: np.ndarray, spec: np.ndarray) -> int:
    """:func:`wild_draw_proof` of the pending Wild Draw Four, read with the colour before it and
    the card under it on top, as when it was laid (a later card of the same play, H-MULTI-1,
    can only make the set smaller: still true)."""
    colour = state[L.S_COLOUR]
    state[L.S_COLOUR] = state[L.S_COLOUR_BEFORE]
    under = state[L.S_NDISCARD] >= 2
    if under:
        state[L.S_NDISCARD] -= 1
    faces = wild_draw_proof(state, spec)
    if under:
        state[L.S_NDISCARD] += 1
    state[L.S_COLOUR] = colour
    return faces


@njit(cache=True, inline="always")
def lay_allowed(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """:func:`_may_lay` as a set: the faces that may leave ``seat``'s hand in a play now (all
    but an illegal Wild Draw Four where bluffs are refused, U-WD4-2, and but the action
    cards of a last card, H-NOFINISH-1)."""
    allowed = -1
    if spec[L.SP_WD4_MODE] == WD4_REFUSED and not wild_draw_legal(state, spec, seat):
        allowed = ~spec[L.WILD_DRAW_FACES]
    if spec[L.SP_NO_FINISH_ACTION] == 1 and state[L.HAND_SIZE + seat] == 1:
        allowed &= spec[L.NUMBER_FACES]
    return allowed


@njit(cache=True, inline="always")
def playable_set(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """:func:`playable` as a set: the faces ``seat`` may start a play with on its turn, held or
    not (U-MATCH-1, U-WD4-2 refused, H-NOFINISH-1, MM-JACK-1, H-ACTION-1, MC-OPT-1)."""
    match = matching_faces(state, spec)
    if spec[L.SP_PLAIN_MATCHING] == 1:  # U-MATCH-1 alone: most rule sets
        return match
    faces = match & lay_allowed(state, spec, seat)
    top = top_face(state)
    top_rank = spec[L.F_RANK + top]
    wilds = 0
    if spec[L.SP_WILD_NOT_ON] >= 0 and spec[L.SP_WILD_NOT_ON_PENDING_ONLY] == 0:
        if top_rank == spec[L.SP_WILD_NOT_ON]:  # MM-JACK-1: a wild only where it matches
            anywhere = spec[L.ANYWHERE_FACES]
            wilds = faces & anywhere & (colour_faces(spec, state[L.S_COLOUR]) | spec[L.RANK_FACES + top_rank])
            faces &= ~anywhere
    if spec[L.SP_ACTION_SAME_SYMBOL] == 1 and spec[L.F_IS_NUMBER + top] == 0:  # H-ACTION-1
        faces &= spec[L.NUMBER_FACES] | spec[L.RANK_FACES + top_rank]
    return faces | wilds


@njit(cache=True, inline="always")
def playable_faces(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """The faces ``seat`` holds and may start a play with: its legal plays on its turn."""
    return state[L.HELD + seat] & playable_set(state, spec, seat)


@njit(cache=True, inline="always")
def answer_faces(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """The faces ``seat`` holds that answer the pending penalty (:func:`answering_faces`)."""
    return answering_faces(state, spec, seat) & state[L.HELD + seat]


@njit(cache=True, inline="always")
def answering_faces(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """The faces that would answer the pending penalty for ``seat`` (:func:`answer_kind` >= 0),
    held or not: penalty cards the stack table allows on it that match (H-STACK-1, MM-SEVEN-1,
    MD-SEVEN-1, MC-FOUR-1, MC-DRAW-1), a matching Reverse (H-REFLECT-1), a Super Star (M-STAR-1)."""
    match = matching_faces(state, spec)
    pending_class = state[L.S_PENDING_CLASS]
    faces = 0
    if 0 <= pending_class < L.NUM_RANKS:
        faces = spec[L.STACK_FACES + pending_class] & match
    if state[L.S_PENDING] > 0:
        faces |= spec[L.STAR_FACES]
        if spec[L.SP_REVERSE_REFLECTS] == 1:
            faces |= spec[L.REVERSE_FACES] & match
    return faces & lay_allowed(state, spec, seat)


@njit(cache=True, inline="always")
def continue_faces(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """:func:`continues` as a set: the faces ``seat`` may lay next in the play it is making
    (H-MULTI-1, H-MULTI-2, MC-TURN-1, H-SEQ-1, H-LASTONE-1)."""
    if spec[L.SP_LEAVE_ONE] == 1 and state[L.HAND_SIZE + seat] == 1:
        return 0  # H-LASTONE-1: a multi-card play leaves one card
    top = top_face(state)
    top_rank = spec[L.F_RANK + top]
    top_number = spec[L.F_IS_NUMBER + top] == 1
    multi = spec[L.SP_MULTI]
    faces = 0
    if multi == MULTI_IDENTICAL:
        faces = 1 << top
    elif multi == MULTI_SAME_RANK and (spec[L.SP_DECK] == 1 or top_number):
        # H-MULTI-2 is about numbers; MC-TURN-1 lays any cards of one value
        faces = spec[L.RANK_FACES + top_rank]
        if spec[L.SP_DECK] != 1:
            faces &= spec[L.NUMBER_FACES]
    if spec[L.SP_RUNS] == 1 and top_number:  # H-SEQ-1: same colour, one step, one direction
        run = state[L.S_RUN_STEP]
        steps = 0
        if (run == 0 or run == 1) and top_rank + 1 < L.NUM_RANKS:
            steps |= spec[L.RANK_FACES + top_rank + 1]
        if (run == 0 or run == -1) and top_rank >= 1:
            steps |= spec[L.RANK_FACES + top_rank - 1]
        faces |= steps & spec[L.NUMBER_FACES] & colour_faces(spec, spec[L.F_COLOUR + top])
    return faces & state[L.HELD + seat] & lay_allowed(state, spec, seat)


# ================================================================ legal actions, phase by phase
# One mask function per phase (legal_play, legal_play_drawn, ...): each returns the legal set
# of the player to move as two bitmasks, (faces, others): bit f of ``faces`` is the action of
# playing face f, bit k of ``others`` the action ``num_faces + k`` (L.A_*_OFFSET: colours,
# targets, draw, pass, call, challenge, accept). legal_sets picks the phase's function;
# fill_mask writes the sets into a mask, and the random players pick from them without one.
@njit(cache=True, inline="always")
def _call_bit(state: np.ndarray, spec: np.ndarray, seat: int, phase: int) -> int:
    """The call action's bit of ``others`` if ``seat`` may call now (U-UNO-1, MC-CALL-1, MM-CALL-1)."""
    return (1 << L.A_CALL_OFFSET) if call_legal(state, spec, seat, phase) else 0


@njit(cache=True, inline="always")
def legal_play(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int]:
    """PH_PLAY: a card that may be played (U-MATCH-1 and the restrictions), draw (U-DRAW-3:
    only with nothing to play unless the rules allow it), call."""
    faces = playable_faces(state, spec, seat)
    others = _call_bit(state, spec, seat, L.PH_PLAY)
    if spec[L.SP_DRAW_WHEN_PLAYABLE] == 1 or faces == 0:
        others |= 1 << L.A_DRAW_OFFSET
    return faces, others


@njit(cache=True, inline="always")
def legal_play_drawn(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int]:
    """PH_PLAY_DRAWN: the drawn card (U-DRAW-1, U-DRAW-2) or any playable card (MM-DRAW-1);
    pass (keep it) unless a playable drawn card must be played; call."""
    any_card = spec[L.SP_DRAW_RULE] == DRAW_ONE_THEN_ANY
    if any_card:  # MM-DRAW-1: any playable card, or pass
        faces = playable_faces(state, spec, seat)
    else:
        drawn = state[L.S_DRAWN]
        faces = 0
        if 0 <= drawn < spec[L.SP_NUM_FACES] and count_in_hand(state, seat, drawn) > 0:
            # playable when drawn, but asked again: a call's penalty since (MM-CALL-1) may have
            # brought a card of the colour that makes a Wild Draw Four illegal (U-WD4-2 refused)
            faces = (1 << drawn) & playable_set(state, spec, seat)
    others = _call_bit(state, spec, seat, L.PH_PLAY_DRAWN)
    if faces == 0 or spec[L.SP_DRAWN_MUST_PLAY] == 0 or any_card:
        others |= 1 << L.A_PASS_OFFSET
    return faces, others


@njit(cache=True, inline="always")
def legal_choose_colour(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int]:
    """PH_CHOOSE_COLOUR: the four colours or suits (U-WILD-1, MM-JACK-1, MC-ACE-1, H-CUBE-1)."""
    return 0, ((1 << L.NUM_COLOURS) - 1) << L.A_CHOOSE_OFFSET


@njit(cache=True, inline="always")
def legal_answer(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int]:
    """PH_ANSWER: accept the pending penalty, or answer it with a card (:func:`answer_faces`);
    call along with an answer. MD-SEVEN-1 (``must_answer``): accept only without an answer."""
    faces = answer_faces(state, spec, seat)
    others = 0
    if faces == 0 or spec[L.SP_MUST_ANSWER] == 0:
        others = 1 << L.A_ACCEPT_OFFSET
    if faces != 0:
        others |= _call_bit(state, spec, seat, L.PH_ANSWER)
    return faces, others


@njit(cache=True, inline="always")
def legal_challenge(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int]:
    """PH_CHALLENGE: challenge the Wild Draw Four (U-WD4-2), or as :func:`legal_answer`."""
    faces = answer_faces(state, spec, seat)
    others = 1 << L.A_CHALLENGE_OFFSET
    if faces == 0 or spec[L.SP_MUST_ANSWER] == 0:
        others |= 1 << L.A_ACCEPT_OFFSET
    if faces != 0:
        others |= _call_bit(state, spec, seat, L.PH_CHALLENGE)
    return faces, others


@njit(cache=True, inline="always")
def legal_continue(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int]:
    """PH_CONTINUE: another card of the play (:func:`continue_faces`), pass (stop), call."""
    others = (1 << L.A_PASS_OFFSET) | _call_bit(state, spec, seat, L.PH_CONTINUE)
    return continue_faces(state, spec, seat), others


@njit(cache=True, inline="always")
def legal_choose_target(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int]:
    """PH_CHOOSE_TARGET: another player in play who holds cards (H-SEVEN-1, H-ZERO-1, H-TWO-1,
    H-SCOPE-1, H-CUBE-1); pass where swapping is optional (H-ZERO-1)."""
    n = state[L.S_NPLAYERS]
    others = 0
    for k in range(1, n):
        other = wrap_seat(seat + k, n)
        if state[L.FINISHED + other] == 0 and state[L.HAND_SIZE + other] > 0:
            others |= 1 << (L.A_TARGET_OFFSET + k - 1)
    if state[L.S_TARGET_REASON] == L.TR_SWAP and spec[L.SP_ZERO_RULE] == ZERO_SWAP_OPTIONAL:
        if spec[L.F_RANK + top_face(state)] == spec[L.SP_ZERO_RANK]:
            others |= 1 << L.A_PASS_OFFSET  # H-ZERO-1: "may or may not swap"
    return 0, others


@njit(cache=True, inline="always")
def legal_give(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int]:
    """PH_GIVE: any card of the hand (H-TWO-1)."""
    return state[L.HELD + seat], 0


@njit(cache=True, inline="always")
def legal_jump_in(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int]:
    """PH_JUMP_IN: the card identical to the top (H-JUMP-1), pass, call."""
    top = top_face(state)
    faces = 0
    if 0 <= top < spec[L.SP_NUM_FACES] and count_in_hand(state, seat, top) > 0:
        faces = 1 << top
    return faces, (1 << L.A_PASS_OFFSET) | _call_bit(state, spec, seat, L.PH_JUMP_IN)


@njit(cache=True, inline="always")
def legal_block(state: np.ndarray, spec: np.ndarray, seat: int) -> tuple[int, int]:
    """PH_BLOCK: any 0 blocks the look at the hands (H-ZEROSEE-1), pass, call."""
    faces = state[L.HELD + seat] & spec[L.NUMBER_FACES] & spec[L.RANK_FACES + 0]
    return faces, (1 << L.A_PASS_OFFSET) | _call_bit(state, spec, seat, L.PH_BLOCK)


@njit(cache=True, internal=True)
def legal_sets(state: np.ndarray, spec: np.ndarray, staged: bool | None) -> tuple[int, int]:
    """The legal actions of the player to move as ``(faces, others)`` bitmasks (see the
    phase functions above); ``(0, 0)`` when the game is over or the state unusable."""
    if state[L.S_STATUS] != L.ST_RUNNING or not state_usable(state):
        return 0, 0
    seat = state[L.S_CURRENT]
    phase = state[L.S_PHASE]
    if phase == L.PH_PLAY:
        return legal_play(state, spec, seat)
    if phase == L.PH_PLAY_DRAWN:
        return legal_play_drawn(state, spec, seat)
    if phase == L.PH_CHOOSE_COLOUR:
        return legal_choose_colour(state, spec, seat)
    if phase == L.PH_CHALLENGE:
        return legal_challenge(state, spec, seat)
    if phase == L.PH_ANSWER:
        return legal_answer(state, spec, seat)
    if staged is not None:  # phases of the staged machinery only (pruned when staged is None)
        if phase == L.PH_CONTINUE:
            return legal_continue(state, spec, seat)
        if phase == L.PH_CHOOSE_TARGET:
            return legal_choose_target(state, spec, seat)
        if phase == L.PH_GIVE:
            return legal_give(state, spec, seat)
        if phase == L.PH_JUMP_IN:
            return legal_jump_in(state, spec, seat)
        if phase == L.PH_BLOCK:
            return legal_block(state, spec, seat)
    return 0, 0


@njit(cache=True)
def fill_mask(state: np.ndarray, spec: np.ndarray, mask: np.ndarray, staged: bool | None) -> int:
    """Write the legal actions of the player to move into ``mask``; return how many."""
    for a in range(spec[L.SP_NUM_ACTIONS]):
        mask[a] = 0
    faces, others = legal_sets(state, spec, staged)
    count = popcount(faces) + popcount(others)
    while faces != 0:
        mask[lowest_bit(faces)] = 1
        faces &= faces - 1
    nf = spec[L.SP_NUM_FACES]
    while others != 0:
        mask[nf + lowest_bit(others)] = 1
        others &= others - 1
    return count


# ================================================================ the Uno cube (H-CUBE-1)
@njit(cache=True, internal=True)
def cube_roll(state: np.ndarray, spec: np.ndarray, seat: int, at_uno: int) -> None:
    """H-CUBE-1: ``seat`` rolls the action and target dice (chance, the game's generator).

    The roller then picks a player and/or a colour where the faces ask for it; the effect
    applies and the roller returns to the decision the roll interrupted.
    """
    state[L.S_CUBE_ACTION] = rand_below(state, L.RNG, 6)
    state[L.S_CUBE_FACE] = rand_below(state, L.RNG, 6)
    state[L.S_CUBE_ROLLER] = seat
    state[L.S_CUBE_AT_UNO] = at_uno
    state[L.S_CUBE_RETURN] = state[L.S_PHASE]
    state[L.S_CUBE_CHOSEN] = -1
    state[L.S_CUBE_COLOUR] = -1
    if state[L.S_CUBE_ACTION] <= L.CUBE_DISCARD:  # faces 4 and 5 are blank
        cube_next(state, spec)


@njit(cache=True, internal=True)
def cube_next(state: np.ndarray, spec: np.ndarray) -> None:
    """Ask the roller the next choice the dice call for, or apply the roll."""
    seat = state[L.S_CUBE_ROLLER]
    face = state[L.S_CUBE_FACE]
    if (face == L.CUBE_CHOSEN or face == L.CUBE_CHOSEN_COLOUR) and state[L.S_CUBE_CHOSEN] < 0:
        if not has_target(state, seat):
            _cube_return(state, spec)  # nobody to choose (H-SCOPE-1): the roll does nothing
            return
        state[L.S_CURRENT] = seat
        state[L.S_PHASE] = L.PH_CHOOSE_TARGET
        state[L.S_TARGET_REASON] = L.TR_CUBE
        return
    names_colour = face >= L.CUBE_YOU_COLOUR or state[L.S_CUBE_ACTION] == L.CUBE_DISCARD
    if names_colour and state[L.S_CUBE_COLOUR] < 0:
        state[L.S_CURRENT] = seat
        state[L.S_PHASE] = L.PH_CHOOSE_COLOUR
        state[L.S_AFTER_CHOICE] = L.AC_CUBE
        return
    cube_apply(state, spec)


@njit(cache=True, inline="always")
def cube_apply(state: np.ndarray, spec: np.ndarray) -> None:
    """H-CUBE-1: the action hits the players the target die names; then back to the roller."""
    seat = state[L.S_CUBE_ROLLER]
    face = state[L.S_CUBE_FACE]
    action = state[L.S_CUBE_ACTION]
    colour = state[L.S_CUBE_COLOUR]
    if face >= L.CUBE_YOU_COLOUR and colour >= 0:
        state[L.S_COLOUR] = colour  # "choose the colour": play goes on in it
    for target in range(state[L.S_NPLAYERS]):
        if state[L.FINISHED + target] != 0:
            continue
        if face == L.CUBE_CHOSEN or face == L.CUBE_CHOSEN_COLOUR:
            hit = target == state[L.S_CUBE_CHOSEN]
        elif face == L.CUBE_OTHERS:
            hit = target != seat
        elif face == L.CUBE_YOU or face == L.CUBE_YOU_COLOUR:
            hit = target == seat
        else:
            hit = True
        if not hit:
            continue
        if action == L.CUBE_DRAW_TWO:
            draw_cards(state, target, 2)
        elif action == L.CUBE_DRAW_FOUR:
            draw_cards(state, target, 4)
        elif action == L.CUBE_SKIP:
            state[L.SITOUT + target] += 1
        elif state[L.S_CUBE_AT_UNO] == 1 and (face == L.CUBE_YOU or face == L.CUBE_YOU_COLOUR):
            draw_cards(state, seat, 2)  # the discard face "only for you" at UNO: +2 instead
        else:
            _cube_discard(state, spec, target, colour)
    _cube_return(state, spec)


@njit(cache=True, inline="always")
def _cube_discard(state: np.ndarray, spec: np.ndarray, seat: int, colour: int) -> None:
    """The discard face: every card of ``colour`` goes under the top card (under the cards of
    the play being made, for a roll in its middle); one card stays."""
    depth = state[L.S_PLAY_COUNT] if state[L.S_CUBE_RETURN] == L.PH_CONTINUE else 1
    for face in range(spec[L.SP_NUM_FACES]):
        if spec[L.F_COLOUR + face] == colour:
            while count_in_hand(state, seat, face) > 0 and state[L.HAND_SIZE + seat] > 1:
                remove_from_hand(state, seat, face)
                tuck_discard(state, face, depth)


@njit(cache=True, internal=True)
def _cube_return(state: np.ndarray, spec: np.ndarray) -> None:
    state[L.S_CURRENT] = state[L.S_CUBE_ROLLER]
    state[L.S_PHASE] = state[L.S_CUBE_RETURN]
    state[L.S_CUBE_CHOSEN] = -1
    state[L.S_CUBE_COLOUR] = -1


# ================================================================ turns
@njit(cache=True, internal=True)
def begin_turn(state: np.ndarray, spec: np.ndarray, seat: int, staged: bool | None) -> None:
    """``seat`` starts a normal turn, unless it must sit turns out (MC-FOUR-1)."""
    for _ in range(100 * L.MAX_PLAYERS):
        if state[L.SITOUT + seat] == 0:
            break
        state[L.SITOUT + seat] -= 1
        seat = next_seat(state, seat, 1)
    state[L.S_CURRENT] = seat
    state[L.S_PHASE] = L.PH_PLAY
    state[L.S_TURNS] += 1
    state[L.S_DRAWN] = -1
    state[L.S_DREW] = 0
    if staged is not None and spec[L.SP_CUBE] == 1:  # H-CUBE-1: a player holding 10 cards rolls
        if state[L.HAND_SIZE + seat] < 10:
            state[L.CUBE_ROLLED + seat] = 0
        elif state[L.CUBE_ROLLED + seat] == 0:
            state[L.CUBE_ROLLED + seat] = 1
            cube_roll(state, spec, seat, 0)


@njit(cache=True, internal=True)
def end_turn(state: np.ndarray, spec: np.ndarray, seat: int, staged: bool | None) -> None:
    """Play passes to the seat after ``seat``, which starts a normal turn."""
    begin_turn(state, spec, next_seat(state, seat, 1), staged)


@njit(cache=True, inline="always")
def _clear_pending(state: np.ndarray) -> None:
    state[L.S_PENDING] = 0
    state[L.S_PENDING_SKIP] = 0
    state[L.S_PENDING_FROM] = -1
    state[L.S_PENDING_CLASS] = 0
    state[L.S_CHALLENGEABLE] = 0
    state[L.S_BLUFF] = 0
    state[L.S_COLOUR_BEFORE] = -1


@njit(cache=True, internal=True)
def random_seat(state: np.ndarray, exclude: int) -> int:
    """A uniformly random player in play other than ``exclude`` (-1: anyone).

    Reflex penalties hit anyone (H-REACT-1); a false accusation comes from another player
    (MM-CALL-1).
    """
    k = rand_below(state, L.RNG, active_players(state) - (1 if exclude >= 0 else 0))
    for seat in range(state[L.S_NPLAYERS]):
        if seat != exclude and state[L.FINISHED + seat] == 0:
            if k == 0:
                return seat
            k -= 1
    return max(exclude, 0)


# ================================================================ a play, card by card
@njit(cache=True, inline="always")
def _add_draw(state: np.ndarray, spec: np.ndarray, face: int) -> None:
    """Add one laid draw card to the play's draw amount: its amount, or, with
    ``stack_growth = "double"``, double the amount when a draw card of the play came before
    (MD-SEVEN-1: 3, 6, 12 for 7s laid together as for 7s answered one by one)."""
    if spec[L.SP_STACK_DOUBLE] == 1 and state[L.S_ACC_DRAW] > 0:
        state[L.S_ACC_DRAW] = min(2 * state[L.S_ACC_DRAW], L.PENALTY_LIMIT)
    else:
        state[L.S_ACC_DRAW] += spec[L.F_AMOUNT + face]


@njit(cache=True, inline="always")
def _lay_effects(state: np.ndarray, spec: np.ndarray, face: int) -> None:
    """Add one laid card's effect to the play being resolved."""
    effect = spec[L.F_EFFECT + face]
    if effect == L.EF_NONE:
        return
    if effect == L.EF_SKIP:  # U-SKIP-1, MM-ACE-1, MD-ACE-1
        state[L.S_ACC_SKIP] += 1
    elif effect == L.EF_REVERSE:  # U-REV-1, MM-QUEEN-1, H-REFLECT-1
        if (
            active_players(state) == 2
            and spec[L.SP_REVERSE_SKIPS_TWO] == 1
            and state[L.S_PLAY_KIND] != L.PK_REFLECT
        ):
            state[L.S_ACC_SKIP] += 1
        else:
            state[L.S_DIRECTION] = -state[L.S_DIRECTION]
    elif effect == L.EF_DRAW or effect == L.EF_SIT_OUT:  # U-D2-1, MM-SEVEN-1, MC-DRAW-1, MC-FOUR-1
        if effect == L.EF_DRAW:
            _add_draw(state, spec, face)
        else:
            state[L.S_ACC_SIT] += spec[L.F_AMOUNT + face]
        state[L.S_ACC_PENALTY_CARDS] += 1
    elif effect == L.EF_WILD_DRAW:  # U-WD4-1
        _add_draw(state, spec, face)
        state[L.S_ACC_PENALTY_CARDS] += 1
        state[L.S_ACC_CHOOSE] = 1
    elif effect == L.EF_PREVIOUS_DRAWS:  # MM-NINE-1, MD-NINE-1, MC-OPT-1
        state[L.S_ACC_PREVIOUS] += spec[L.F_AMOUNT + face]
    else:  # EF_WILD, EF_CHOOSE_SUIT, EF_STAR: U-WILD-1, MM-JACK-1, MC-ACE-1, M-STAR-1
        state[L.S_ACC_CHOOSE] = 1


@njit(cache=True, internal=True)
def _lay_card(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> None:
    """One card of the play leaves the hand, lands on the pile and adds its effect."""
    wild_draw = spec[L.F_EFFECT + face] == L.EF_WILD_DRAW and state[L.S_PLAY_COUNT] == 0
    if wild_draw:
        # U-WD4-2: remember whether it was a bluff, and the colour before it
        state[L.S_BLUFF] = 0 if wild_draw_legal(state, spec, seat) else 1
        state[L.S_COLOUR_BEFORE] = state[L.S_COLOUR]
    if state[L.S_PLAY_COUNT] > 0 and spec[L.F_IS_NUMBER + face] == 1:
        step = spec[L.F_RANK + face] - spec[L.F_RANK + top_face(state)]
        if step == 1 or step == -1:
            state[L.S_RUN_STEP] = step
    remove_from_hand(state, seat, face)
    if wild_draw and 0 <= state[L.S_COLOUR_BEFORE] < L.NUM_COLOURS:
        # U-WD4-1: it had no card of the colour before: proven where bluffs are refused,
        # implied where a bluff is possible. That hint stands alone (joins no older one), so a
        # challenge that finds the card legal can make it the proof, slack and all (U-WD4-2)
        refused = spec[L.SP_WD4_MODE] == WD4_REFUSED
        record = L.VOID_FACES if refused else L.HINT_FACES
        record_lack(state, record, seat, wild_draw_proof(state, spec), 0, refused)
    push_discard(state, face)
    state[L.S_DRAWN] = -1
    state[L.S_PLAY_COUNT] += 1
    state[L.S_PLAY_RANK] = spec[L.F_RANK + face]
    state[L.S_JUMP_BLOCK_SEAT] = -1
    if spec[L.F_COLOUR + face] >= 0:
        state[L.S_COLOUR] = spec[L.F_COLOUR + face]
    _lay_effects(state, spec, face)


@njit(cache=True, inline="always")
def _reset_play(state: np.ndarray, seat: int, kind: int) -> None:
    state[L.S_ACTOR] = seat
    state[L.S_PLAY_KIND] = kind
    state[L.S_PLAY_COUNT] = 0
    state[L.S_RUN_STEP] = 0
    state[L.S_ACC_SKIP] = 0
    state[L.S_ACC_DRAW] = 0
    state[L.S_ACC_SIT] = 0
    state[L.S_ACC_PREVIOUS] = 0
    state[L.S_ACC_CHOOSE] = 0
    state[L.S_ACC_PENALTY_CARDS] = 0
    state[L.S_CARRY_DRAW] = 0
    state[L.S_CARRY_SIT] = 0


@njit(cache=True, inline="always")
def plain_play_possible(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> bool:
    """Whether ``seat`` laying ``face`` on its turn is a one-card play that asks nothing more
    than the general path would, so that :func:`play_plain` resolves it to the same state.

    Not for a card that names a colour. Under rule sets without staged rules
    (``SP_PLAIN_PLAYS`` 1) every other play is; under the others a play is when it sets none
    of them off: the player keeps cards (no leaving, MC-END-1), the card carries no number
    rule (:func:`number_rule_applies`), its penalty cannot be answered (H-STACK-1, H-REFLECT-1,
    M-STAR-1), no further card could join the play (H-MULTI-1/2, H-SEQ-1, MC-TURN-1), and no
    other player holds the card to jump in with (H-JUMP-1). ``SP_PLAIN_PLAYS`` -1 sends every
    play down the general path (the tests compare the two).
    """
    effect = spec[L.F_EFFECT + face]
    if effect == L.EF_WILD or effect == L.EF_WILD_DRAW or effect == L.EF_CHOOSE_SUIT or effect == L.EF_STAR:
        return False
    plain = spec[L.SP_PLAIN_PLAYS]
    if plain != 0:
        return plain == 1
    if state[L.HAND_SIZE + seat] <= 1:
        return False
    rank = spec[L.F_RANK + face]
    number = spec[L.F_IS_NUMBER + face] == 1
    if number and number_rule_applies(spec, rank):
        return False
    jump = spec[L.SP_JUMP_IN] == 1
    if effect == L.EF_DRAW or effect == L.EF_SIT_OUT:
        if jump or spec[L.STACKABLE + rank] == 1:
            return False
        if effect == L.EF_DRAW and (spec[L.SP_REVERSE_REFLECTS] == 1 or spec[L.SP_HAS_STAR] == 1):
            return False
    multi = spec[L.SP_MULTI]
    if multi != MULTI_NONE or spec[L.SP_RUNS] == 1:  # the faces that could follow it
        held = state[L.HELD + seat]
        if count_in_hand(state, seat, face) == 1:
            held &= ~(1 << face)
        near = 0
        if multi == MULTI_IDENTICAL:
            near = 1 << face
        elif multi == MULTI_SAME_RANK and (spec[L.SP_DECK] == 1 or number):
            near = spec[L.RANK_FACES + rank]
        if spec[L.SP_RUNS] == 1 and number:
            steps = spec[L.RANK_FACES + rank - 1] if rank >= 1 else 0
            if rank + 1 < L.NUM_RANKS:
                steps |= spec[L.RANK_FACES + rank + 1]
            near |= steps & spec[L.NUMBER_FACES] & colour_faces(spec, spec[L.F_COLOUR + face])
        if held & near != 0:
            return False
    if jump:
        for other in range(state[L.S_NPLAYERS]):
            if other != seat and (state[L.HELD + other] >> face) & 1:
                return False
    return True


@njit(cache=True, inline="always")
def play_plain(state: np.ndarray, spec: np.ndarray, seat: int, face: int, staged: bool | None) -> None:
    """Fast path of a one-card play that asks nothing more (:func:`plain_play_possible`).

    It must leave the state the general path (:func:`start_play`) leaves, but for the
    scratch slots of a play's resolution (``S_ACTOR``, ``S_STAGE``, ``S_ACC_*``, ...); a test
    plays games both ways under every preset and switch to prove it.
    """
    effect = spec[L.F_EFFECT + face]
    state[L.S_JUMP_BLOCK_SEAT] = -1
    remove_from_hand(state, seat, face)
    push_discard(state, face)
    state[L.S_DRAWN] = -1
    if spec[L.F_COLOUR + face] >= 0:
        state[L.S_COLOUR] = spec[L.F_COLOUR + face]
    _check_call(state, spec, seat)
    if state[L.HAND_SIZE + seat] == 0:  # the general path scores the round
        _reset_play(state, seat, L.PK_NORMAL)
        state[L.S_PLAY_COUNT] = 1
        state[L.S_PLAY_RANK] = spec[L.F_RANK + face]
        _lay_effects(state, spec, face)
        went_out(state, spec, seat, staged)
        return
    if effect == L.EF_NONE:  # U-MATCH-1
        begin_turn(state, spec, next_seat(state, seat, 1), staged)
    elif effect == L.EF_SKIP:  # U-SKIP-1
        begin_turn(state, spec, next_seat(state, seat, 2), staged)
    elif effect == L.EF_REVERSE:  # U-REV-1
        if active_players(state) == 2 and spec[L.SP_REVERSE_SKIPS_TWO] == 1:
            begin_turn(state, spec, next_seat(state, seat, 2), staged)
        else:
            state[L.S_DIRECTION] = -state[L.S_DIRECTION]
            begin_turn(state, spec, next_seat(state, seat, 1), staged)
    elif effect == L.EF_DRAW:  # U-D2-1: no answer possible, drawn at once
        victim = next_seat(state, seat, 1)
        draw_cards(state, victim, spec[L.F_AMOUNT + face])
        begin_turn(state, spec, next_seat(state, victim, 1), staged)
    elif effect == L.EF_SIT_OUT:
        victim = next_seat(state, seat, 1)
        state[L.SITOUT + victim] += spec[L.F_AMOUNT + face] - 1
        begin_turn(state, spec, next_seat(state, victim, 1), staged)
    else:  # EF_PREVIOUS_DRAWS
        draw_penalty(state, spec, previous_seat(state, seat), spec[L.F_AMOUNT + face], staged)
        begin_turn(state, spec, next_seat(state, seat, 1), staged)


@njit(cache=True, inline="always")
def start_play(
    state: np.ndarray, spec: np.ndarray, seat: int, face: int, kind: int, staged: bool | None
) -> None:
    """``seat`` starts a play with ``face``; ``kind`` says whether it answers a penalty."""
    carry_draw = state[L.S_PENDING]
    carry_sit = state[L.S_PENDING_SKIP]
    _reset_play(state, seat, kind)
    if kind != L.PK_NORMAL:
        state[L.S_CARRY_DRAW] = carry_draw
        state[L.S_CARRY_SIT] = carry_sit
        state[L.S_BLUFF] = 0  # only the latest Wild Draw Four may be challenged
        state[L.S_COLOUR_BEFORE] = -1
    _lay_card(state, spec, seat, face)
    _after_card(state, spec, seat, staged)


@njit(cache=True, internal=True)
def _after_card(state: np.ndarray, spec: np.ndarray, seat: int, staged: bool | None) -> None:
    """Offer another card of the same play where the rules allow it, else finish the play."""
    if (
        staged is not None
        and (spec[L.SP_MULTI] != MULTI_NONE or spec[L.SP_RUNS] == 1)
        and state[L.HAND_SIZE + seat] > 0
    ):
        kind = state[L.S_PLAY_KIND]
        if (kind == L.PK_NORMAL or kind == L.PK_STACK) and continue_faces(state, spec, seat) != 0:
            state[L.S_CURRENT] = seat
            state[L.S_PHASE] = L.PH_CONTINUE
            return
    finish_play(state, spec, staged)


@njit(cache=True, internal=True)
def _check_call(state: np.ndarray, spec: np.ndarray, seat: int) -> None:
    """U-UNO-1 / MC-CALL-1 / MM-CALL-1: a missed call may be caught; false accusations."""
    rule = spec[L.SP_CALL_RULE]
    if rule == CALL_NONE:
        return
    missed = state[L.HAND_SIZE + seat] == 1 and state[L.CALLED + seat] == 0
    if missed and (rule == CALL_UNO or state[L.S_DREW] == 0):
        if chance_ppm(state, L.RNG, spec[L.SP_UNO_CATCH_PPM]):
            draw_cards(state, seat, spec[L.SP_UNO_PENALTY])
    elif (
        rule == CALL_MAU_MAU
        and spec[L.SP_FALSE_ACCUSE_PPM] > 0
        and state[L.HAND_SIZE + seat] > 0
        and active_players(state) > 1
    ):
        if chance_ppm(state, L.RNG, spec[L.SP_FALSE_ACCUSE_PPM]):
            accuser = random_seat(state, seat)
            draw_cards(state, accuser, spec[L.SP_FALSE_CALL_PENALTY])  # nobody to accuse


@njit(cache=True, internal=True)
def finish_play(state: np.ndarray, spec: np.ndarray, staged: bool | None) -> None:
    """The play is complete: the call check, the empty hand, then its resolution."""
    seat = state[L.S_ACTOR]
    if not seat_ok(state, seat):
        return
    _check_call(state, spec, seat)
    if state[L.HAND_SIZE + seat] == 0 and went_out(state, spec, seat, staged):
        return
    state[L.S_STAGE] = L.STAGE_COLOUR
    resolve(state, spec, staged)


@njit(cache=True, inline="always")
def _penalty_sent(state: np.ndarray, spec: np.ndarray) -> tuple[int, int, int]:
    """(cards, turns, target) of the penalty the play being resolved sends on."""
    seat = state[L.S_ACTOR]
    kind = state[L.S_PLAY_KIND]
    draw = state[L.S_ACC_DRAW]
    sit = state[L.S_ACC_SIT]
    target = next_seat(state, seat, 1)
    if kind == L.PK_STACK:
        if spec[L.SP_STACK_DOUBLE] == 1 and state[L.S_CARRY_DRAW] > 0:  # MD-SEVEN-1: 3, 6, 12
            doublings = min(max(state[L.S_ACC_PENALTY_CARDS], 0), 21)  # 2**21 > PENALTY_LIMIT
            draw = state[L.S_CARRY_DRAW] * (1 << doublings)
        else:
            draw += state[L.S_CARRY_DRAW]
        sit += state[L.S_CARRY_SIT]
    elif kind == L.PK_REFLECT or kind == L.PK_STAR:
        draw = state[L.S_CARRY_DRAW]
        sit = state[L.S_CARRY_SIT]
        sender = state[L.S_PENDING_FROM]
        if 0 <= sender < state[L.S_NPLAYERS] and state[L.FINISHED + sender] == 0:
            target = sender
    # more than any deck holds draws the same cards; the cap keeps the products in range
    return min(draw, L.PENALTY_LIMIT), min(sit, L.PENALTY_LIMIT), target


@njit(cache=True, internal=True)
def _draw_last_card_penalty(state: np.ndarray, spec: np.ndarray, seat: int) -> None:
    """U-END-1 (``last_card_draw``): the draw penalty of the play that ended the round is still
    drawn, before the hands are scored."""
    draw, _, target = _penalty_sent(state, spec)
    if draw > 0 and target != seat:
        draw_cards(state, target, draw)
    # so is the draw of a "previous player draws" card (MM-NINE-1, MD-NINE-1, MC-OPT-1),
    # which pass_turn would have dealt had the round gone on
    if state[L.S_ACC_PREVIOUS] > 0:
        victim = previous_seat(state, state[L.S_ACTOR])
        if victim != seat:
            draw_cards(state, victim, state[L.S_ACC_PREVIOUS])


@njit(cache=True, internal=True)
def went_out(state: np.ndarray, spec: np.ndarray, seat: int, staged: bool | None) -> bool:
    """``seat`` emptied its hand; True if that ended the round or the game."""
    if staged is None or spec[L.SP_END_RULE] == 0:
        if spec[L.SP_LAST_CARD_DRAW] == 1:
            _draw_last_card_penalty(state, spec, seat)
        end_round(state, spec, seat, staged)
        return True
    state[L.S_NFINISHED] += 1  # MC-END-1: the player leaves; play goes on
    state[L.FINISHED + seat] = state[L.S_NFINISHED]
    state[L.CALLED + seat] = 0
    state[L.SITOUT + seat] = 0
    if active_players(state) <= 1:
        if spec[L.SP_LAST_CARD_DRAW] == 1:  # the last player left draws it, and is scored with it
            _draw_last_card_penalty(state, spec, seat)
        for other in range(state[L.S_NPLAYERS]):
            if state[L.FINISHED + other] == 0:
                state[L.S_NFINISHED] += 1
                state[L.FINISHED + other] = state[L.S_NFINISHED]  # the last player loses
        end_round(state, spec, seat, staged)
        return True
    return False


# ================================================================ resolving a play
@njit(cache=True, internal=True)
def resolve(state: np.ndarray, spec: np.ndarray, staged: bool | None) -> None:
    """Walk the resolution stages of the play; stop where a player must decide."""
    seat = state[L.S_ACTOR]
    if not seat_ok(state, seat):
        return
    while True:
        stage = state[L.S_STAGE]
        if stage == L.STAGE_COLOUR:
            state[L.S_STAGE] = L.STAGE_HOUSE
            if state[L.S_ACC_CHOOSE] == 1:
                state[L.S_ACC_CHOOSE] = 0
                state[L.S_CURRENT] = seat
                state[L.S_PHASE] = L.PH_CHOOSE_COLOUR
                state[L.S_AFTER_CHOICE] = L.AC_END_TURN
                return
        elif stage == L.STAGE_PASS or staged is None or spec[L.SP_NUMBER_EFFECTS] == 0:
            pass_turn(state, spec, seat, seat, staged)
            return
        elif stage == L.STAGE_HOUSE:
            state[L.S_STAGE] = L.STAGE_REACT
            if _number_effect(state, spec, seat, staged):
                return
        elif stage == L.STAGE_REACT:
            state[L.S_STAGE] = L.STAGE_REVEAL
            _reflex_penalty(state, spec, staged)
        else:
            state[L.S_STAGE] = L.STAGE_PASS
            if _open_block_window(state, spec, seat):
                return


@njit(cache=True, internal=True)
def _played_number(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """The number of a normal play of number cards, for house-rule effects; -1 otherwise.

    H-SCOPE-1: not for the starting card, nor for a player who has left the game.
    """
    if state[L.S_PLAY_KIND] != L.PK_NORMAL or state[L.S_PLAY_COUNT] == 0:
        return -1
    if state[L.FINISHED + seat] != 0 or state[L.S_STATUS] != L.ST_RUNNING:
        return -1
    top = top_face(state)
    if spec[L.F_IS_NUMBER + top] == 0:
        return -1
    return spec[L.F_RANK + top]


@njit(cache=True, internal=True)
def _ask_target(state: np.ndarray, seat: int, reason: int) -> None:
    state[L.S_CURRENT] = seat
    state[L.S_PHASE] = L.PH_CHOOSE_TARGET
    state[L.S_TARGET_REASON] = reason


@njit(cache=True, inline="always")
def number_rule_applies(spec: np.ndarray, number: int) -> bool:
    """Whether a normal play of the number ``number`` may set off a house rule: the effects
    of :func:`_number_effect` (H-SEVEN-1, H-ZERO-1, H-TWO-1), :func:`_reflex_penalty`
    (H-REACT-1), :func:`_open_block_window` (H-ZEROSEE-1) and the extra turn of
    :func:`pass_turn` (H-EIGHT-1). A new rule on a number belongs here too, or plain plays
    (:func:`plain_play_possible`) would skip it."""
    return (
        (number == 7 and (spec[L.SP_SEVEN_SWAP] == 1 or spec[L.SP_REACT_SEVEN] == 1))
        or (number == spec[L.SP_ZERO_RANK] and spec[L.SP_ZERO_RULE] != ZERO_NONE)
        or (number == 0 and spec[L.SP_ZERO_REVEALS] == 1)
        or (number == 2 and spec[L.SP_TWO_GIVES] == 1)
        or (number == 9 and spec[L.SP_REACT_NINE] == 1)
        or (number == 8 and spec[L.SP_EIGHT_AGAIN] == 1)
    )


@njit(cache=True, inline="always")
def _number_effect(state: np.ndarray, spec: np.ndarray, seat: int, staged: bool | None) -> bool:
    """H-SEVEN-1, H-ZERO-1, H-TWO-1; True if a decision is now asked (or the round ended)."""
    number = _played_number(state, spec, seat)
    if number < 0 or state[L.HAND_SIZE + seat] == 0:
        return False
    if number == 7 and spec[L.SP_SEVEN_SWAP] == 1 and has_target(state, seat):
        _ask_target(state, seat, L.TR_SWAP)
        return True
    zero_rule = spec[L.SP_ZERO_RULE]
    if number == spec[L.SP_ZERO_RANK] and zero_rule != ZERO_NONE:
        if zero_rule == ZERO_ROTATE:
            rotate_hands(state, spec)
        elif zero_rule == ZERO_DISCARD_COLOUR:
            colour = spec[L.F_COLOUR + top_face(state)]
            # H-LASTONE-1: the discard is part of the 0's play, which may not empty the hand:
            # the last card of the colour (in face order) stays, as under the cube (H-CUBE-1)
            keep = spec[L.SP_LEAVE_ONE]
            for face in range(spec[L.SP_NUM_FACES]):
                if spec[L.F_COLOUR + face] == colour:
                    while count_in_hand(state, seat, face) > 0 and state[L.HAND_SIZE + seat] > keep:
                        remove_from_hand(state, seat, face)
                        tuck_discard(state, face, 1)
            if state[L.HAND_SIZE + seat] == 0:
                return went_out(state, spec, seat, staged)
        elif has_target(state, seat):
            _ask_target(state, seat, L.TR_SWAP)
            return True
    # H-TWO-1: two cards, or what the hand holds; H-LASTONE-1: the gifts are part of the 2's
    # play, which may not empty the hand, so one card stays (with one left, nothing is given)
    give = min(2, state[L.HAND_SIZE + seat] - spec[L.SP_LEAVE_ONE])
    if number == 2 and spec[L.SP_TWO_GIVES] == 1 and give > 0 and has_target(state, seat):
        state[L.S_GIVE_LEFT] = give
        _ask_target(state, seat, L.TR_GIVE)
        return True
    return False


@njit(cache=True, inline="always")
def _knowers(state: np.ndarray, seat: int) -> int:
    """Bitmask of the seats that know ``seat``'s hand as it is now (a look, H-ZEROSEE-1, or a
    hand they passed, H-SEVEN-1, H-ZERO-1): ``SEEN`` holds the hand's version + 1."""
    mask = 0
    current = state[L.HAND_VERSION + seat] + 1
    for observer in range(state[L.S_NPLAYERS]):
        if observer != seat and state[L.SEEN + observer * L.MAX_PLAYERS + seat] == current:
            mask |= 1 << observer
    return mask


@njit(cache=True, inline="always")
def _set_knowers(state: np.ndarray, seat: int, mask: int) -> None:
    """Record that exactly the seats in ``mask`` (``seat`` itself aside) know ``seat``'s hand
    as it is now."""
    for observer in range(state[L.S_NPLAYERS]):
        knows = observer != seat and (mask >> observer) & 1 == 1
        state[L.SEEN + observer * L.MAX_PLAYERS + seat] = state[L.HAND_VERSION + seat] + 1 if knows else 0


@njit(cache=True, inline="always")
def exchange_hands(state: np.ndarray, a: int, b: int) -> None:
    """H-SEVEN-1 / H-ZERO-1: ``a`` and ``b`` swap hands (:func:`swap_hands`). Each knows the
    hand it passed, now the other's; a seat that knew either hand knows it at its new holder."""
    knew_a = _knowers(state, a) | (1 << a)
    knew_b = _knowers(state, b) | (1 << b)
    swap_hands(state, a, b)
    _set_knowers(state, b, knew_a)
    _set_knowers(state, a, knew_b)


@njit(cache=True, internal=True)
def swap_hands(state: np.ndarray, a: int, b: int) -> None:
    """H-SEVEN-1 / H-ZERO-1: two players exchange hands; both calls are void. Who knows the
    hands (``SEEN``) is left to the caller: both hands change, so every look at them lapses."""
    for face in range(L.MAX_FACES):
        ia = L.HANDS + a * L.MAX_FACES + face
        ib = L.HANDS + b * L.MAX_FACES + face
        tmp = state[ia]
        state[ia] = state[ib]
        state[ib] = tmp
    tmp = state[L.HELD + a]
    state[L.HELD + a] = state[L.HELD + b]
    state[L.HELD + b] = tmp
    tmp = state[L.HAND_SIZE + a]
    state[L.HAND_SIZE + a] = state[L.HAND_SIZE + b]
    state[L.HAND_SIZE + b] = tmp
    for record in (L.VOID_FACES, L.VOID_SLACK, L.HINT_FACES, L.HINT_SLACK):  # known with the hand
        tmp = state[record + a]
        state[record + a] = state[record + b]
        state[record + b] = tmp
    state[L.HAND_VERSION + a] += 1
    state[L.HAND_VERSION + b] += 1
    state[L.CALLED + a] = 0
    state[L.CALLED + b] = 0


@njit(cache=True, inline="always")
def rotate_hands(state: np.ndarray, spec: np.ndarray) -> None:
    """H-ZERO-1: every hand passes to the next player in the direction of play. Each player
    knows the hand it passed on; a seat that knew a hand knows it at its new holder.

    H-SCOPE-1: players without cards take no part.
    """
    n = state[L.S_NPLAYERS]
    holders = np.empty(n, dtype=np.int64)
    count = 0
    seat = state[L.S_ACTOR]
    for _ in range(n):
        if state[L.FINISHED + seat] == 0 and state[L.HAND_SIZE + seat] > 0:
            holders[count] = seat
            count += 1
        seat = (seat + state[L.S_DIRECTION]) % n
    # who knows each hand before it moves: its holder passes it on knowing it (H-ZEROSEE-1's
    # record then follows the hand; the swaps below would drop it)
    knew = np.empty(count, dtype=np.int64)
    for i in range(count):
        knew[i] = _knowers(state, holders[i]) | (1 << holders[i])
    # passing every hand one holder along = swapping backwards through the ring
    for i in range(count - 1, 0, -1):
        swap_hands(state, holders[i], holders[i - 1])
    for i in range(count):
        state[L.CALLED + holders[i]] = 0
        _set_knowers(state, holders[(i + 1) % count], knew[i])


@njit(cache=True, inline="always")
def _reflex_penalty(state: np.ndarray, spec: np.ndarray, staged: bool | None) -> None:
    """H-REACT-1: a 9 (slowest hand) or a 7 (broken silence) costs a random player cards:
    ``react_penalty`` for a 7, and for each 9 of the play (the Uno wiki: as many as there are
    9s; several are laid together under H-MULTI-1/2, and H-SEQ-1 may end on them)."""
    number = _played_number(state, spec, state[L.S_ACTOR])
    if number == 9 and spec[L.SP_REACT_NINE] == 1:
        nines = _nines_on_top(state, spec)
        draw_penalty(state, spec, random_seat(state, -1), nines * spec[L.SP_REACT_PENALTY], staged)
    elif number == 7 and spec[L.SP_REACT_SEVEN] == 1:
        draw_penalty(state, spec, random_seat(state, -1), spec[L.SP_REACT_PENALTY], staged)


@njit(cache=True, inline="always")
def _nines_on_top(state: np.ndarray, spec: np.ndarray) -> int:
    """The 9s the play ending on a 9 laid: its cards on top of the pile, down to the first that
    is not a 9 (a run reaches 9 once; the cube's discards lie under the play, H-CUBE-1)."""
    count = 0
    n = state[L.S_NDISCARD]
    for i in range(min(state[L.S_PLAY_COUNT], n)):
        face = state[L.DISCARD_PILE + n - 1 - i]
        if spec[L.F_IS_NUMBER + face] == 0 or spec[L.F_RANK + face] != 9:
            break
        count += 1
    return count


@njit(cache=True, inline="always")
def _window_eligible(state: np.ndarray, spec: np.ndarray, seat: int, block: bool) -> bool:
    if block:  # H-ZEROSEE-1: any 0
        return (state[L.HELD + seat] & spec[L.NUMBER_FACES] & spec[L.RANK_FACES + 0]) != 0
    if state[L.S_JUMP_BLOCK_SEAT] == L.JUMP_BLOCK_START:
        return False  # H-SCOPE-1: no jump-in on the starting card, even as a first discard
    top = top_face(state)
    held = count_in_hand(state, seat, top)
    if seat == state[L.S_JUMP_BLOCK_SEAT]:
        held -= state[L.S_JUMP_BLOCK_COUNT]  # H-JUMP-1: not with the penalty's own cards
    # H-NOFINISH-1 holds out of turn too
    return held > 0 and (lay_allowed(state, spec, seat) >> top) & 1 == 1


@njit(cache=True, internal=True)
def _open_window(state: np.ndarray, spec: np.ndarray, opener: int, phase: int) -> bool:
    """Ask the first eligible player after ``opener`` to act out of turn; False if nobody can."""
    state[L.S_WINDOW_FROM] = opener
    state[L.S_PHASE] = phase  # read by the eligibility test
    k = _window_candidate_for(state, spec, 1, phase == L.PH_BLOCK)
    if k < 0:
        return False
    state[L.S_WINDOW_SCAN] = k
    state[L.S_CURRENT] = (opener + state[L.S_DIRECTION] * k) % state[L.S_NPLAYERS]
    return True


@njit(cache=True, internal=True)
def _window_candidate_for(state: np.ndarray, spec: np.ndarray, start_k: int, block: bool) -> int:
    n = state[L.S_NPLAYERS]
    opener = state[L.S_WINDOW_FROM]
    for k in range(start_k, n):
        seat = (opener + state[L.S_DIRECTION] * k) % n
        if state[L.FINISHED + seat] == 0 and _window_eligible(state, spec, seat, block):
            return k
    return -1


@njit(cache=True, inline="always")
def _open_block_window(state: np.ndarray, spec: np.ndarray, seat: int) -> bool:
    """H-ZEROSEE-1: after a 0, holders of a 0 may block the look; else the player looks."""
    if spec[L.SP_ZERO_REVEALS] == 0 or _played_number(state, spec, seat) != 0:
        return False
    if _open_window(state, spec, seat, L.PH_BLOCK):
        return True
    reveal_hands(state, seat)
    return False


@njit(cache=True, internal=True)
def reveal_hands(state: np.ndarray, observer: int) -> None:
    """H-ZEROSEE-1: ``observer`` sees every other hand as it is now."""
    if not seat_ok(state, observer):
        return
    for seat in range(state[L.S_NPLAYERS]):
        if seat != observer:
            state[L.SEEN + observer * L.MAX_PLAYERS + seat] = state[L.HAND_VERSION + seat] + 1


@njit(cache=True, internal=True)
def pass_turn(state: np.ndarray, spec: np.ndarray, seat: int, opener: int, staged: bool | None) -> None:
    """The last stage of ``seat``'s play: the penalties it sends, then the next turn (or a
    jump-in window, which asks the players after ``opener``, who laid the top card: ``seat``,
    or the player who blocked the look with a 0, H-ZEROSEE-1)."""
    if state[L.S_ACC_PREVIOUS] > 0:  # MM-NINE-1, MD-NINE-1, MC-OPT-1 king of spades
        draw_penalty(state, spec, previous_seat(state, seat), state[L.S_ACC_PREVIOUS], staged)
    draw, sit, target = _penalty_sent(state, spec)
    kind = state[L.S_PLAY_KIND]
    if draw > 0 or sit > 0:
        if kind != L.PK_REFLECT and kind != L.PK_STAR:
            state[L.S_PENDING_CLASS] = spec[L.F_RANK + top_face(state)]
        top_effect = spec[L.F_EFFECT + top_face(state)]
        state[L.S_CHALLENGEABLE] = (
            1 if top_effect == L.EF_WILD_DRAW and kind != L.PK_REFLECT and kind != L.PK_STAR
            and spec[L.SP_WD4_MODE] == WD4_CHALLENGE else 0
        )  # fmt: skip
        state[L.S_PENDING] = draw
        state[L.S_PENDING_SKIP] = sit
        state[L.S_PENDING_FROM] = seat
        offer_penalty(state, spec, target, staged)
        return
    if state[L.S_PENDING_FROM] >= 0 or state[L.S_COLOUR_BEFORE] >= 0:
        _clear_pending(state)
    if (
        staged is not None
        and spec[L.SP_EIGHT_AGAIN] == 1
        and _played_number(state, spec, seat) == 8
        and state[L.HAND_SIZE + seat] > 0
    ):
        resume = seat  # H-EIGHT-1: another turn
    else:
        resume = next_seat(state, seat, 1 + state[L.S_ACC_SKIP])
    open_jump_window(state, spec, opener, resume, staged)


@njit(cache=True, inline="always")
def offer_penalty(state: np.ndarray, spec: np.ndarray, target: int, staged: bool | None) -> None:
    """The target of a penalty answers it where the rules allow any answer, else takes it."""
    if state[L.S_CHALLENGEABLE] == 1:
        state[L.S_CURRENT] = target
        state[L.S_PHASE] = L.PH_CHALLENGE  # U-WD4-2
        state[L.S_DREW] = 0
        return
    answerable = spec[L.STACKABLE + state[L.S_PENDING_CLASS]] == 1
    if state[L.S_PENDING] > 0 and (spec[L.SP_REVERSE_REFLECTS] == 1 or spec[L.SP_HAS_STAR] == 1):
        answerable = True
    if answerable:
        state[L.S_CURRENT] = target
        state[L.S_PHASE] = L.PH_ANSWER
        state[L.S_DREW] = 0
        return
    accept_penalty(state, spec, target, staged)


@njit(cache=True, internal=True)
def draw_penalty(state: np.ndarray, spec: np.ndarray, victim: int, count: int, staged: bool | None) -> None:
    """``victim`` draws ``count`` cards as a penalty the top card set off (its draw penalty, a
    "previous player draws" card, the reflex of H-REACT-1). H-JUMP-1: the copies of the top
    card among them cannot be used to jump in on it."""
    if not seat_ok(state, victim):  # a seat read from a corrupted state: an engine error, no read
        return
    top = top_face(state)
    before = count_in_hand(state, victim, top)
    draw_cards(state, victim, count)
    if staged is not None and spec[L.SP_JUMP_IN] == 1 and state[L.S_JUMP_BLOCK_SEAT] != L.JUMP_BLOCK_START:
        state[L.S_JUMP_BLOCK_SEAT] = victim
        state[L.S_JUMP_BLOCK_COUNT] = count_in_hand(state, victim, top) - before


@njit(cache=True, internal=True)
def accept_penalty(state: np.ndarray, spec: np.ndarray, victim: int, staged: bool | None) -> None:
    """The victim draws the pending cards / sits the turns out, and loses the turn."""
    draw_penalty(state, spec, victim, state[L.S_PENDING], staged)
    if state[L.S_PENDING_SKIP] > 0:  # MC-FOUR-1: this turn is the first one sat out
        state[L.SITOUT + victim] += state[L.S_PENDING_SKIP] - 1
    sender = state[L.S_PENDING_FROM]
    _clear_pending(state)
    open_jump_window(state, spec, sender if sender >= 0 else victim, next_seat(state, victim, 1), staged)


@njit(cache=True, internal=True)
def open_jump_window(
    state: np.ndarray, spec: np.ndarray, opener: int, resume: int, staged: bool | None
) -> None:
    """H-JUMP-1: holders of a card identical to the top may jump in; else ``resume`` plays.

    Wild cards too: a Wild is identical to a Wild, a Wild Draw Four to a Wild Draw Four (the
    rule gives a jumped-in wild card no effect, so the colour named before stands)."""
    if staged is not None and spec[L.SP_JUMP_IN] == 1:
        state[L.S_RESUME] = resume
        if _open_window(state, spec, opener, L.PH_JUMP_IN):
            # the window's actor is its opener (the observation shows it, a position rebuilds
            # it from window=), not whatever play was resolved last
            state[L.S_ACTOR] = opener
            return
    begin_turn(state, spec, resume, staged)


@njit(cache=True, inline="always")
def jump_in(state: np.ndarray, spec: np.ndarray, seat: int, staged: bool | None) -> None:
    """H-JUMP-1: ``seat`` lays the identical card out of turn, and play continues from ``seat``.

    A jumped-in action or wild card has no effect (a wild names no colour: the colour named
    before stands); the rule names action and wild cards only. A
    jumped-in number card is laid as ``seat``'s own play of it, so its house-rule effects
    hold for the jumper: the 7 swap and the 0 (or 1) rule (H-SEVEN-1, H-ZERO-1: the Uno wiki
    has the player who intercepts a 1 discard its colour), the 2 (H-TWO-1), the reflex
    (H-REACT-1), the look (H-ZEROSEE-1) and the extra turn of an 8 (H-EIGHT-1)."""
    face = top_face(state)
    state[L.S_DREW] = 0  # MM-CALL-1: laid out of turn, so without drawing (the draw was another's)
    if spec[L.F_IS_NUMBER + face] == 1:
        _reset_play(state, seat, L.PK_NORMAL)
        _lay_card(state, spec, seat, face)
        finish_play(state, spec, staged)  # one card: a jump-in is never a multi-card play
        return
    remove_from_hand(state, seat, face)
    push_discard(state, face)
    state[L.S_JUMP_BLOCK_SEAT] = -1
    _reset_play(state, seat, L.PK_NORMAL)
    _check_call(state, spec, seat)
    if state[L.HAND_SIZE + seat] == 0 and went_out(state, spec, seat, staged):
        return
    open_jump_window(state, spec, seat, next_seat(state, seat, 1), staged)


@njit(cache=True, inline="always")
def _pass_window(state: np.ndarray, spec: np.ndarray, staged: bool | None) -> None:
    """The asked player lets the out-of-turn window go; ask the next eligible one."""
    phase = state[L.S_PHASE]
    k = _window_candidate_for(state, spec, state[L.S_WINDOW_SCAN] + 1, phase == L.PH_BLOCK)
    if k >= 0:
        state[L.S_WINDOW_SCAN] = k
        state[L.S_CURRENT] = (state[L.S_WINDOW_FROM] + state[L.S_DIRECTION] * k) % state[L.S_NPLAYERS]
        return
    if phase == L.PH_BLOCK:
        reveal_hands(state, state[L.S_ACTOR])
        resolve(state, spec, staged)
    elif seat_ok(state, state[L.S_RESUME]):
        begin_turn(state, spec, state[L.S_RESUME], staged)


@njit(cache=True)
def let_windows_pass(state: np.ndarray, spec: np.ndarray, observer: int, staged: bool | None) -> bool:
    """Advance ``state`` (a copy: the game goes on with the real one) as if every seat asked by
    the open out-of-turn windows let them go, until a decision that is no window's or is
    ``observer``'s; whether the copy may stand for the game in ``observer``'s view.

    A window asks only the seats holding a card to lay (H-JUMP-1, H-ZEROSEE-1), so a seat not
    asked must see the game as it would be had nobody held one: what the AEC env's
    ``observe`` and the Parallel env show the other seats. Not where that game would already
    have drawn a card or used chance (a turn beginning with the cube's roll, H-CUBE-1): those
    are not known yet, so the copy would show what nobody may see. The player of a 0 whose
    look waits on the window sees the game go on without the look (it sees the hands only
    once nobody blocked)."""
    if staged is None:
        return False  # no windows without the staged machinery
    # a watcher (observer -1) has no looks; a seat's row is restored below
    looks = L.SEEN + max(observer, 0) * L.MAX_PLAYERS
    seen = state[looks : looks + L.MAX_PLAYERS].copy()
    ndraw = state[L.S_NDRAW]
    chance = state[L.RNG : L.RNG + L.RNG_WORDS].copy()
    for _ in range(4 * L.MAX_PLAYERS):  # each pass moves a window on or closes it
        phase = state[L.S_PHASE]
        if state[L.S_STATUS] != L.ST_RUNNING or state[L.S_CURRENT] == observer:
            break
        if phase != L.PH_JUMP_IN and phase != L.PH_BLOCK:
            break
        _pass_window(state, spec, staged)
    if observer >= 0:
        state[looks : looks + L.MAX_PLAYERS] = seen  # H-ZEROSEE-1: no look has happened yet
    return state[L.S_NDRAW] == ndraw and (state[L.RNG : L.RNG + L.RNG_WORDS] == chance).all()


@njit(cache=True, inline="always")
def block_look(state: np.ndarray, spec: np.ndarray, seat: int, face: int, staged: bool | None) -> None:
    """H-ZEROSEE-1: ``seat`` lays a 0 out of turn and nobody looks at the hands; the play of
    the 0 ends (the block is its last stage), and a jump-in window on the blocker's 0 asks the
    players after the blocker (H-JUMP-1: not the one who laid it)."""
    remove_from_hand(state, seat, face)
    push_discard(state, face)
    state[L.S_COLOUR] = spec[L.F_COLOUR + face]
    state[L.S_DREW] = 0  # MM-CALL-1: laid out of turn, so without drawing (the draw was another's)
    _check_call(state, spec, seat)
    if state[L.HAND_SIZE + seat] == 0 and went_out(state, spec, seat, staged):
        return
    actor = state[L.S_ACTOR]
    if seat_ok(state, actor):
        pass_turn(state, spec, actor, seat, staged)


# ================================================================ applying a decision
@njit(cache=True, inline="always")
def choose_colour(state: np.ndarray, spec: np.ndarray, seat: int, colour: int, staged: bool | None) -> None:
    """Name the colour/suit after a wild (U-WILD-1, MM-JACK-1, MC-ACE-1) or for the cube."""
    if staged is not None and state[L.S_AFTER_CHOICE] == L.AC_CUBE:
        state[L.S_AFTER_CHOICE] = L.AC_END_TURN
        state[L.S_CUBE_COLOUR] = colour
        cube_next(state, spec)
        return
    state[L.S_COLOUR] = colour
    if state[L.S_AFTER_CHOICE] == L.AC_SAME_PLAYER:  # U-START-1: a starting wild
        begin_turn(state, spec, seat, staged)  # the first turn begins once the colour is named
    else:
        resolve(state, spec, staged)


@njit(cache=True, inline="always")
def choose_target(state: np.ndarray, spec: np.ndarray, seat: int, offset: int, staged: bool | None) -> None:
    """Pick the seat ``offset`` places clockwise: swap with it, or give it cards."""
    target = (seat + offset) % state[L.S_NPLAYERS]
    if state[L.S_TARGET_REASON] == L.TR_CUBE:
        state[L.S_CUBE_CHOSEN] = target
        cube_next(state, spec)
        return
    if state[L.S_TARGET_REASON] == L.TR_GIVE:
        state[L.S_TARGET] = target
        state[L.S_PHASE] = L.PH_GIVE
        return
    exchange_hands(state, seat, target)
    resolve(state, spec, staged)


@njit(cache=True, inline="always")
def give_card(state: np.ndarray, spec: np.ndarray, seat: int, face: int, staged: bool | None) -> None:
    """H-TWO-1: one card to the chosen player; emptying the hand this way goes out."""
    target = state[L.S_TARGET]
    if not seat_ok(state, target):
        return
    # the card passes face down: of the players who knew either hand, only the other of the
    # two still knows it (each sees the card)
    knew_giver = _knowers(state, seat)
    knew_target = _knowers(state, target)
    remove_from_hand(state, seat, face, False)
    add_to_hand(state, target, face)
    _set_knowers(state, seat, knew_giver & (1 << target))
    _set_knowers(state, target, knew_target & (1 << seat))
    state[L.CALLED + target] = 0
    state[L.S_GIVE_LEFT] -= 1
    if state[L.HAND_SIZE + seat] == 0:
        if went_out(state, spec, seat, staged):
            return
    elif state[L.S_GIVE_LEFT] > 0:
        return
    resolve(state, spec, staged)


@njit(cache=True, inline="always")
def resolve_challenge(state: np.ndarray, spec: np.ndarray, challenger: int, staged: bool | None) -> None:
    """U-WD4-2: a caught bluffer draws the penalty; a wrong challenger draws it + extra.

    Either way a penalty was drawn, so the holders of the identical card may jump in before
    the next turn, as after a penalty accepted (H-JUMP-1: not with a copy just drawn)."""
    amount = state[L.S_PENDING]
    sender = state[L.S_PENDING_FROM]
    opener = sender if sender >= 0 else challenger
    if state[L.S_BLUFF] == 1:
        draw_penalty(state, spec, sender, amount, staged)
        if spec[L.SP_CHALLENGE_COLOUR_STANDS] == 0:
            state[L.S_COLOUR] = state[L.S_COLOUR_BEFORE]
        _clear_pending(state)
        # the challenger takes a normal turn, begun as any other (H-CUBE-1: a roll at 10
        # cards, a turn to sit out)
        open_jump_window(state, spec, opener, challenger, staged)
    else:
        # U-WD4-1: it held no card of the colour before: the hint written when it was laid is
        # now proven, cards gained since (a missed UNO call, H-CUBE-1) and all
        if 0 <= sender < state[L.S_NPLAYERS] and 0 <= state[L.S_COLOUR_BEFORE] < L.NUM_COLOURS:
            proof = _wild_draw_proof_under(state, spec)
            faces = state[L.HINT_FACES + sender]
            slack = state[L.HINT_SLACK + sender]
            if faces == 0:  # a position given without it: the card was just laid
                faces = proof
                slack = 0
            if faces & proof != 0 and slack >= 0:
                record_lack(state, L.VOID_FACES, sender, faces & proof, slack, True)
        _clear_pending(state)
        draw_penalty(state, spec, challenger, amount + spec[L.SP_CHALLENGE_PENALTY], staged)  # M-CHAL-1
        open_jump_window(state, spec, opener, next_seat(state, challenger, 1), staged)


@njit(cache=True, inline="always")
def call(state: np.ndarray, spec: np.ndarray, seat: int, staged: bool | None) -> None:
    """Call "UNO" / "Mau-Mau" / "macao" (U-UNO-1, MM-CALL-1, MC-CALL-1)."""
    if staged is not None and spec[L.SP_CALL_RULE] == CALL_MAU_MAU:
        # MM-CALL-1: a false call is one with more than two cards, or with two and none
        # playable; a call with one card is neither
        size = state[L.HAND_SIZE + seat]
        if size > 2 or (size == 2 and playable_faces(state, spec, seat) == 0):
            draw_cards(state, seat, spec[L.SP_FALSE_CALL_PENALTY])
            return
    state[L.CALLED + seat] = 1
    if staged is not None and spec[L.SP_CUBE] == 1:  # H-CUBE-1: calling UNO rolls the cube
        phase = state[L.S_PHASE]
        if phase == L.PH_PLAY or phase == L.PH_PLAY_DRAWN or phase == L.PH_CONTINUE:
            cube_roll(state, spec, seat, 1)  # in one's own turn, mid-play too (then the play goes on)


@njit(cache=True, inline="always")
def draw_for_turn(state: np.ndarray, spec: np.ndarray, seat: int, staged: bool | None) -> None:
    """U-DRAW-1, U-DRAW-2, MM-DRAW-1, MD-DRAW-1: draw, then maybe play."""
    rule = spec[L.SP_DRAW_RULE]
    if state[L.S_PHASE] == L.PH_PLAY:  # U-DRAW-3: proof of nothing to play, or a hint of it
        record = L.VOID_FACES if spec[L.SP_DRAW_WHEN_PLAYABLE] == 0 else L.HINT_FACES
        record_lack(state, record, seat, playable_set(state, spec, seat), 0, True)
    state[L.S_DREW] = 1
    while True:
        face = draw_one(state, seat)
        if face < 0 or rule == DRAW_ONE_THEN_PASS:  # U-DRAW-4 (MM-DRAW-1 too) / MD-DRAW-1: the turn ends
            end_turn(state, spec, seat, staged)
            return
        if rule == DRAW_ONE_THEN_ANY:  # MM-DRAW-1: then play any playable card, or pass
            state[L.S_DRAWN] = face
            state[L.S_PHASE] = L.PH_PLAY_DRAWN
            return
        if (playable_set(state, spec, seat) >> face) & 1:
            state[L.S_DRAWN] = face
            state[L.S_PHASE] = L.PH_PLAY_DRAWN
            return
        if rule != DRAW_UNTIL_PLAYABLE:
            end_turn(state, spec, seat, staged)
            return


# ================================================================ applying a decision, phase by phase
# One apply function per phase, the partner of its mask function (legal_play / apply_play,
# ...): ``seat`` is the player to move and ``action`` one of its legal actions other than the
# call, which apply_action handles in every phase. Each applies the decision, then resolves
# every chance event until the next decision.
@njit(cache=True, inline="always")
def apply_play(state: np.ndarray, spec: np.ndarray, seat: int, action: int, staged: bool | None) -> None:
    """PH_PLAY: lay a card (a plain one-card play, or the general path), or draw (U-DRAW-1..3);
    PH_PLAY_DRAWN too: lay the drawn card (or, MM-DRAW-1, any playable card), or keep it (pass)."""
    nf = spec[L.SP_NUM_FACES]
    if action < nf:
        if plain_play_possible(state, spec, seat, action):
            play_plain(state, spec, seat, action, staged)
        else:
            start_play(state, spec, seat, action, L.PK_NORMAL, staged)
    elif action == nf + L.A_DRAW_OFFSET:
        draw_for_turn(state, spec, seat, staged)
    else:
        end_turn(state, spec, seat, staged)


@njit(cache=True, inline="always")
def apply_choose_colour(
    state: np.ndarray, spec: np.ndarray, seat: int, action: int, staged: bool | None
) -> None:
    """PH_CHOOSE_COLOUR: name the colour or suit (:func:`choose_colour`)."""
    choose_colour(state, spec, seat, action - spec[L.SP_NUM_FACES] - L.A_CHOOSE_OFFSET, staged)


@njit(cache=True, inline="always")
def apply_answer(state: np.ndarray, spec: np.ndarray, seat: int, action: int, staged: bool | None) -> None:
    """PH_ANSWER and PH_CHALLENGE: answer the penalty with a card, challenge the Wild Draw Four
    (U-WD4-2), or accept."""
    nf = spec[L.SP_NUM_FACES]
    if action < nf:
        start_play(state, spec, seat, action, answer_kind(state, spec, seat, action), staged)
    elif action == nf + L.A_CHALLENGE_OFFSET:
        resolve_challenge(state, spec, seat, staged)
    else:
        if spec[L.SP_MUST_ANSWER] == 1:  # MD-SEVEN-1: taking the penalty proves no answer held
            record_lack(state, L.VOID_FACES, seat, answering_faces(state, spec, seat), 0, True)
        accept_penalty(state, spec, seat, staged)


@njit(cache=True, inline="always")
def apply_continue(state: np.ndarray, spec: np.ndarray, seat: int, action: int, staged: bool | None) -> None:
    """PH_CONTINUE: lay another card of the play, or end it (pass)."""
    if action < spec[L.SP_NUM_FACES]:
        _lay_card(state, spec, seat, action)
        _after_card(state, spec, seat, staged)
    else:
        finish_play(state, spec, staged)


@njit(cache=True, inline="always")
def apply_choose_target(
    state: np.ndarray, spec: np.ndarray, seat: int, action: int, staged: bool | None
) -> None:
    """PH_CHOOSE_TARGET: the seat ``k`` places clockwise (:func:`choose_target`), or no swap."""
    nf = spec[L.SP_NUM_FACES]
    if action == nf + L.A_PASS_OFFSET:
        resolve(state, spec, staged)
    else:
        choose_target(state, spec, seat, action - nf - L.A_TARGET_OFFSET + 1, staged)


@njit(cache=True, inline="always")
def apply_give(state: np.ndarray, spec: np.ndarray, seat: int, action: int, staged: bool | None) -> None:
    """PH_GIVE: give that card (:func:`give_card`)."""
    give_card(state, spec, seat, action, staged)


@njit(cache=True, inline="always")
def apply_jump_in(state: np.ndarray, spec: np.ndarray, seat: int, action: int, staged: bool | None) -> None:
    """PH_JUMP_IN: jump in with the identical card (:func:`jump_in`), or let the window pass."""
    if action < spec[L.SP_NUM_FACES]:
        jump_in(state, spec, seat, staged)
    else:
        _pass_window(state, spec, staged)


@njit(cache=True, inline="always")
def apply_block(state: np.ndarray, spec: np.ndarray, seat: int, action: int, staged: bool | None) -> None:
    """PH_BLOCK: block the look with a 0 (:func:`block_look`), or let the window pass."""
    if action < spec[L.SP_NUM_FACES]:
        block_look(state, spec, seat, action, staged)
    else:
        _pass_window(state, spec, staged)


# The play phases (most decisions under every rule set) are applied inside apply_action; every
# other phase through apply_other, compiled on its own. The split is for speed: numba gives
# each call of a compiled function a return slot and an error slot in the caller's frame,
# zeroed on every entry to the caller, so with every phase's handler inlined apply_action
# cleared some 150 slots per decision, about half its time under the staged rules.
@njit(cache=True, internal=True)
def apply_other(state: np.ndarray, spec: np.ndarray, seat: int, action: int, staged: bool | None) -> None:
    """The phase's apply function for every phase but the play phases (:func:`apply_action`)."""
    phase = state[L.S_PHASE]
    if phase == L.PH_CHOOSE_COLOUR:
        apply_choose_colour(state, spec, seat, action, staged)
    elif phase == L.PH_CHALLENGE or phase == L.PH_ANSWER:
        apply_answer(state, spec, seat, action, staged)  # one copy of the answers for both
    elif staged is not None:  # phases of the staged machinery only (pruned when staged is None)
        if phase == L.PH_CONTINUE:
            apply_continue(state, spec, seat, action, staged)
        elif phase == L.PH_CHOOSE_TARGET:
            apply_choose_target(state, spec, seat, action, staged)
        elif phase == L.PH_GIVE:
            apply_give(state, spec, seat, action, staged)
        elif phase == L.PH_JUMP_IN:
            apply_jump_in(state, spec, seat, action, staged)
        elif phase == L.PH_BLOCK:
            apply_block(state, spec, seat, action, staged)


@njit(cache=True, internal=True)
def apply_action(state: np.ndarray, spec: np.ndarray, action: int, staged: bool | None) -> None:
    """Apply one decision of the player to move. The action must be legal (see fill_mask):
    the call in any phase, else the phase's apply function (the play phases here, the others
    through :func:`apply_other`).

    A state the engine cannot use (:func:`state_usable`, or a bounds check failing during
    the decision) ends the game with ``S_ENGINE_ERROR`` set instead of writing out of place.
    """
    if not state_usable(state):
        finish(state, L.ST_TRUNCATED, -1)
        return
    seat = state[L.S_CURRENT]
    nf = spec[L.SP_NUM_FACES]
    phase = state[L.S_PHASE]
    state[L.S_LAST_ACTOR] = seat
    state[L.S_LAST_ACTION] = action
    state[L.S_DECISIONS] += 1
    if (phase == L.PH_JUMP_IN or phase == L.PH_BLOCK) and action == nf + L.A_PASS_OFFSET:
        # a window asks only the seats holding a card to lay: that one was asked and let it go
        # is the asked seat's secret, so the observation does not count it (S_LETGO)
        state[L.S_LETGO] += 1
    if action == nf + L.A_CALL_OFFSET:  # in every phase that allows it
        call(state, spec, seat, staged)
    elif phase == L.PH_PLAY or phase == L.PH_PLAY_DRAWN:
        apply_play(state, spec, seat, action, staged)  # one inlined copy for both phases
    else:
        apply_other(state, spec, seat, action, staged)
    if state[L.CALLED + seat] == 1 and state[L.HAND_SIZE + seat] != 1 and state[L.S_CURRENT] != seat:
        state[L.CALLED + seat] = 0  # U-UNO-1: a call stands only while its player holds one card
    if state[L.S_ENGINE_ERROR] != L.ERR_NONE:
        finish(state, L.ST_TRUNCATED, -1)
    if state[L.S_STATUS] == L.ST_RUNNING and state[L.S_DECISIONS] >= spec[L.SP_MAX_DECISIONS]:
        finish(state, L.ST_TRUNCATED, -1)  # E-END-1


@njit(cache=True, internal=True)
def list_legal(spec: np.ndarray, mask: np.ndarray, legal: np.ndarray) -> int:
    """Write the ids set in ``mask`` into ``legal`` in increasing order; return how many."""
    count = 0
    for a in range(spec[L.SP_NUM_ACTIONS]):
        if mask[a]:
            legal[count] = a
            count += 1
    return count


@njit(cache=True, inline="always")
def is_legal(spec: np.ndarray, action: int, mask: np.ndarray) -> bool:
    """Whether ``action`` is in the action table and set in ``mask`` (the current legal set)."""
    return 0 <= action < spec[L.SP_NUM_ACTIONS] and mask[action] == 1


@njit(cache=True, inline="always")
def step_checked(
    state: np.ndarray, spec: np.ndarray, action: int, mask: np.ndarray, staged: bool | None
) -> bool:
    """Check ``action`` against the legal set, apply it and refill ``mask``.

    Returns False (state and mask unchanged) when the action is illegal. ``mask`` must hold
    the legal actions of the current state on entry (as left by the previous call).
    """
    if not is_legal(spec, action, mask):
        return False
    apply_action(state, spec, action, staged)
    fill_mask(state, spec, mask, staged)
    return True


# ================================================================ rounds, scoring and the end
@njit(cache=True)
def hand_points(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """U-SCORE-1 / MM-SCORE-1: points of the cards ``seat`` holds."""
    total = 0
    for face in range(spec[L.SP_NUM_FACES]):
        total += count_in_hand(state, seat, face) * spec[L.F_POINTS + face]
    return total


@njit(cache=True, internal=True)
def finish(state: np.ndarray, status: int, winner: int) -> None:
    """End the game: won by ``winner`` or truncated (E-END-1)."""
    state[L.S_STATUS] = status
    state[L.S_WINNER] = winner
    state[L.S_PHASE] = L.PH_OVER
    state[L.S_CURRENT] = -1


@njit(cache=True, inline="always")
def end_round(state: np.ndarray, spec: np.ndarray, winner: int, staged: bool | None) -> None:
    """Score the round (U-SCORE-1/3, MM-SCORE-1); end the game or deal the next round."""
    n = state[L.S_NPLAYERS]
    won = 0
    for seat in range(n):
        points = hand_points(state, spec, seat)
        state[L.ROUND_POINTS + seat] = points
        won += points
    state[L.S_ROUND] += 1
    match = spec[L.SP_MATCH]
    if spec[L.SP_END_RULE] == 1:  # MC-END-1: the first to leave won, not the last to leave
        for seat in range(n):
            if state[L.FINISHED + seat] == 1:
                winner = seat
    state[L.S_ROUND_WINNER] = winner
    if spec[L.SP_END_RULE] == 1:
        # a single round, scored as any other: only the loser still holds points
        if spec[L.SP_ROUND_SCORE] == 1:  # MM-SCORE-1: everyone scores their own hand
            for seat in range(n):
                state[L.SCORE + seat] += state[L.ROUND_POINTS + seat]
        else:  # U-SCORE-1: the winner scores the hand left
            state[L.SCORE + winner] += won
        finish(state, L.ST_WON, winner)
        return
    if spec[L.SP_ROUND_SCORE] == 1 or match == MATCH_LOWEST_TOTAL:  # MM-SCORE-1, U-SCORE-3
        reached = False
        for seat in range(n):
            state[L.SCORE + seat] += state[L.ROUND_POINTS + seat]
            reached = reached or state[L.SCORE + seat] >= spec[L.SP_TARGET]
        if match == MATCH_SINGLE_ROUND:
            finish(state, L.ST_WON, winner)
            return
        if reached:
            best = 0
            for seat in range(1, n):
                if state[L.SCORE + seat] < state[L.SCORE + best]:
                    best = seat
            finish(state, L.ST_WON, best)
            return
    else:  # U-SCORE-1: the winner scores the others' cards
        state[L.SCORE + winner] += won
        if match == MATCH_SINGLE_ROUND or state[L.SCORE + winner] >= spec[L.SP_TARGET]:
            finish(state, L.ST_WON, winner)  # U-SCORE-2
            return
    state[L.S_DEALER] = (state[L.S_DEALER] + 1) % n  # the deal passes to the left
    deal_round(state, spec, staged)


@njit(cache=True)
def compute_ranking(state: np.ndarray, spec: np.ndarray, out: np.ndarray) -> None:
    """Seats from best to worst into ``out[:n]`` (all -1 if the game did not end in a win).

    MC-END-1: leaving order, the last player last. Single round: the winner, then fewest
    points left in hand. First-to-target match: most match points. Lowest-total match:
    fewest match points. Ties keep seat order clockwise from the winner.
    """
    n = state[L.S_NPLAYERS]
    for i in range(n):
        out[i] = -1
    if state[L.S_STATUS] != L.ST_WON:
        return
    winner = state[L.S_WINNER]
    keys = np.empty(n, dtype=np.int64)
    match = spec[L.SP_MATCH]
    for seat in range(n):
        if spec[L.SP_END_RULE] == 1:
            keys[seat] = state[L.FINISHED + seat]
        elif match == MATCH_SINGLE_ROUND:
            keys[seat] = state[L.ROUND_POINTS + seat]
        elif match == MATCH_FIRST_TO_TARGET:
            keys[seat] = -state[L.SCORE + seat]
        else:
            keys[seat] = state[L.SCORE + seat]
    out[0] = winner
    used = np.zeros(n, dtype=np.bool_)
    used[winner] = True
    for filled in range(1, n):
        best = -1
        for k in range(1, n):
            seat = (winner + k) % n
            if not used[seat] and (best < 0 or keys[seat] < keys[best]):
                best = seat
        used[best] = True
        out[filled] = best


# ================================================================ set-up
@njit(cache=True, internal=True)
def _fill_draw_pile_with_deck(state: np.ndarray, spec: np.ndarray) -> None:
    """All cards of the game into the draw pile (hands and discard emptied), shuffled."""
    count = 0
    for face in range(spec[L.SP_NUM_FACES]):
        for _ in range(state[L.DECK + face]):
            state[L.DRAW_PILE + count] = face
            count += 1
    state[L.S_NDRAW] = count
    state[L.S_NDISCARD] = 0
    for i in range(L.MAX_PLAYERS * L.MAX_FACES):
        state[L.HANDS + i] = 0
    for seat in range(L.MAX_PLAYERS):
        state[L.HAND_SIZE + seat] = 0
        state[L.HELD + seat] = 0
        state[L.CALLED + seat] = 0
        state[L.SITOUT + seat] = 0
        state[L.FINISHED + seat] = 0
        state[L.CUBE_ROLLED + seat] = 0  # H-CUBE-1: a roll at 10 cards was for the hand taken back
        state[L.HAND_VERSION + seat] += 1
        state[L.VOID_FACES + seat] = 0
        state[L.HINT_FACES + seat] = 0
    state[L.S_NFINISHED] = 0
    shuffle(state, L.DRAW_PILE, count, L.RNG)


@njit(cache=True, inline="always")
def draw_for_dealer(state: np.ndarray, spec: np.ndarray) -> int:
    """U-SETUP-2: each contender turns a card; the highest number deals; ties draw again."""
    n = state[L.S_NPLAYERS]
    _fill_draw_pile_with_deck(state, spec)
    contenders = np.ones(n, dtype=np.bool_)
    values = np.zeros(n, dtype=np.int64)
    while True:
        best = -1
        for seat in range(n):
            if contenders[seat]:
                if state[L.S_NDRAW] == 0:
                    _fill_draw_pile_with_deck(state, spec)
                state[L.S_NDRAW] -= 1
                values[seat] = spec[L.F_DEALER_VALUE + state[L.DRAW_PILE + state[L.S_NDRAW]]]
                best = max(best, values[seat])
        tied = 0
        dealer = -1
        for seat in range(n):
            if contenders[seat] and values[seat] == best:
                tied += 1
                dealer = seat
            else:
                contenders[seat] = False
        if tied == 1:
            return dealer


@njit(cache=True, inline="always")
def start_refused(spec: np.ndarray, face: int) -> bool:
    """Whether ``face`` may not start the discard pile and is replaced: a Wild Draw Four
    (U-START-1), any card with an effect under ``start_card = "number_only"`` (U-START-2,
    MC-START-1), a card without a suit that names none (a joker, MC-OPT-1: play needs a suit).
    :meth:`uno_env.engine.rules.RuleSet.start_faces` is the same test in Python."""
    start = spec[L.SP_START]
    effect = spec[L.F_EFFECT + face]
    names_colour = effect == L.EF_WILD or effect == L.EF_CHOOSE_SUIT or effect == L.EF_STAR
    return (
        (start == START_OFFICIAL and effect == L.EF_WILD_DRAW)
        or (start == START_PLAIN and spec[L.F_IS_NUMBER + face] == 0)
        or (spec[L.F_COLOUR + face] < 0 and not names_colour)
    )


@njit(cache=True, inline="always")
def _start_card_at(state: np.ndarray, spec: np.ndarray) -> int:
    """The index in the draw pile of a card that may start the discard pile (the one nearest the
    bottom, :func:`start_refused`), or -1 if the pile holds none."""
    for i in range(state[L.S_NDRAW]):
        if not start_refused(spec, state[L.DRAW_PILE + i]):
            return i
    return -1


@njit(cache=True, internal=True)
def deal_round(state: np.ndarray, spec: np.ndarray, staged: bool | None) -> None:
    """U-SETUP-1 deal and the starting card (U-START-1/2, MM-START-1, MC-START-1)."""
    n = state[L.S_NPLAYERS]
    dealer = state[L.S_DEALER]
    # MC-START-1, U-START-2: a refused starting card is replaced from the draw pile; a deal that
    # leaves no card there to replace it with (every card left is special, which eight players
    # of Macao can meet) is void, and the cards are dealt again. The rule set guarantees the
    # deck holds an allowed starting card (RuleSet.start_faces); the bound is a safeguard.
    for _deal in range(4 * L.MAX_CARDS):
        _fill_draw_pile_with_deck(state, spec)
        for _ in range(spec[L.SP_HAND_SIZE]):  # one card at a time, starting left of the dealer
            for k in range(1, n + 1):
                if state[L.S_NDRAW] > 1:  # a short game (from a position) keeps its starting card
                    draw_one(state, (dealer + k) % n)
        if _start_card_at(state, spec) >= 0:
            break
    state[L.S_DIRECTION] = 1
    state[L.S_DRAWN] = -1
    state[L.S_DREW] = 0  # no draw of the last round's turn excuses a call (MM-CALL-1)
    state[L.S_JUMP_BLOCK_SEAT] = -1
    _clear_pending(state)
    start = spec[L.SP_START]
    for _attempt in range(4 * L.MAX_CARDS):
        if not start_refused(spec, state[L.DRAW_PILE + state[L.S_NDRAW] - 1]):
            break
        shuffle(state, L.DRAW_PILE, state[L.S_NDRAW], L.RNG)  # back into the pile, reshuffled
    else:  # a bound for a long run of refused cards: turn the allowed card nearest the bottom
        allowed = _start_card_at(state, spec)
        if allowed >= 0:
            top = state[L.DRAW_PILE + state[L.S_NDRAW] - 1]
            state[L.DRAW_PILE + state[L.S_NDRAW] - 1] = state[L.DRAW_PILE + allowed]
            state[L.DRAW_PILE + allowed] = top
    state[L.S_NDRAW] -= 1
    face = state[L.DRAW_PILE + state[L.S_NDRAW]]
    push_discard(state, face)
    state[L.S_COLOUR] = spec[L.F_COLOUR + face]
    first = next_seat(state, dealer, 1)
    state[L.S_PHASE] = L.PH_PLAY
    effect = spec[L.F_EFFECT + face]
    if spec[L.F_COLOUR + face] < 0 and not (
        effect == L.EF_WILD or effect == L.EF_CHOOSE_SUIT or effect == L.EF_STAR
    ):
        # U-START-1: a Wild Draw Four (or a joker) is only turned for good when the pile holds
        # no other card to turn (a game from a position with few cards): it stays without its
        # effect, and the first player names the colour as on a starting Wild, so play never
        # starts without a colour
        effect = L.EF_WILD
    if staged is not None and start == START_FIRST_DISCARD:  # MM-START-1: the first player's discard
        _reset_play(state, first, L.PK_NORMAL)
        if spec[L.SP_JUMP_IN] == 1:
            # H-SCOPE-1: the optional rules do not hold for the card that starts the game (000:
            # "não valem no início do jogo (caso seja a carta que começa)"), so nobody jumps in
            # on it (H-JUMP-1), before or after its penalty; the first card laid on it ends that
            state[L.S_JUMP_BLOCK_SEAT] = L.JUMP_BLOCK_START
            state[L.S_JUMP_BLOCK_COUNT] = 0
        if effect == L.EF_WILD:
            state[L.S_ACC_CHOOSE] = 1  # a wild, or a colourless card turned for want of another
        else:
            _lay_effects(state, spec, face)
        if state[L.S_ACC_CHOOSE] == 1:  # the first player names the suit, then play passes
            state[L.S_ACC_CHOOSE] = 0
            state[L.S_STAGE] = L.STAGE_HOUSE
            state[L.S_CURRENT] = first
            state[L.S_PHASE] = L.PH_CHOOSE_COLOUR
            state[L.S_AFTER_CHOICE] = L.AC_END_TURN
        else:  # no house-rule effects on a starting card (H-SCOPE-1): straight to the pass
            pass_turn(state, spec, first, first, staged)
    elif effect == L.EF_SKIP or effect == L.EF_SIT_OUT:  # the first player is skipped
        if effect == L.EF_SIT_OUT:  # MC-FOUR-1: this turn is the first of the card's turns sat out
            state[L.SITOUT + first] += spec[L.F_AMOUNT + face] - 1
        state[L.S_CURRENT] = next_seat(state, first, 1)
    elif effect == L.EF_REVERSE:
        if spec[L.SP_START_REVERSE_AS_PLAY] != START_REVERSE_AS_PLAY:
            state[L.S_DIRECTION] = -1  # U-START-1 (003): the dealer plays first, then the dealer's right
            state[L.S_CURRENT] = dealer
        elif n == 2 and spec[L.SP_REVERSE_SKIPS_TWO] == 1:
            # U-START-1 (000, 002) as the dealer's play, with U-REV-1 at two players: the Reverse
            # acts as a Skip, so the other player is skipped and the dealer plays first
            state[L.S_CURRENT] = dealer
        else:  # U-START-1 (000, 002): as if the dealer had laid it, the dealer's right plays first
            state[L.S_DIRECTION] = -1
            state[L.S_CURRENT] = next_seat(state, dealer, 1)
    elif effect == L.EF_DRAW:  # the first player draws and is skipped
        draw_cards(state, first, spec[L.F_AMOUNT + face])
        state[L.S_CURRENT] = next_seat(state, first, 1)
    elif effect == L.EF_WILD or effect == L.EF_CHOOSE_SUIT or effect == L.EF_STAR:
        state[L.S_CURRENT] = first  # the first player names the colour, then plays
        state[L.S_PHASE] = L.PH_CHOOSE_COLOUR
        state[L.S_AFTER_CHOICE] = L.AC_SAME_PLAYER
    elif effect == L.EF_PREVIOUS_DRAWS:
        draw_cards(state, dealer, spec[L.F_AMOUNT + face])
        state[L.S_CURRENT] = first
    else:
        state[L.S_CURRENT] = first
    if start != START_FIRST_DISCARD and state[L.S_PHASE] == L.PH_PLAY:
        # the first turn begins as any other (H-CUBE-1: a roll at 10 cards); MM-START-1 begins
        # it through pass_turn
        begin_turn(state, spec, state[L.S_CURRENT], staged)


@njit(cache=True)
def new_game(
    state: np.ndarray,
    spec: np.ndarray,
    num_players: int,
    deck_counts: np.ndarray,
    seed: int,
    stream: int,
    staged: bool | None,
) -> None:
    """Reset ``state`` to a freshly dealt game from ``(seed, stream)``."""
    for i in range(L.STATE_SIZE):
        state[i] = 0
    state[L.S_NPLAYERS] = num_players
    state[L.S_DIRECTION] = 1
    state[L.S_WINNER] = -1
    state[L.S_ROUND_WINNER] = -1
    state[L.S_LAST_ACTOR] = -1
    state[L.S_LAST_ACTION] = -1
    seed_rng(state, L.RNG, seed, 2 * stream)
    seed_rng(state, L.AGENT_RNG, seed, 2 * stream + 1)
    for face in range(L.MAX_FACES):
        state[L.DECK + face] = deck_counts[face]
    if spec[L.SP_DEALER_DRAW] == 1:
        state[L.S_DEALER] = draw_for_dealer(state, spec)
    else:
        state[L.S_DEALER] = rand_below(state, L.RNG, num_players)
    deal_round(state, spec, staged)


# ================================================================ invariants (E-CONS-1)
INV_OK = 0
INV_CONSERVATION = 1
INV_NEGATIVE = 2
INV_HAND_SIZE = 3
INV_NO_LEGAL_ACTION = 4
INV_BAD_SEAT = 5
INV_EMPTY_DISCARD = 6
INV_BAD_COLOUR = 7
INV_FINISHED_HOLDS_CARDS = 8
INV_HELD = 9
INV_ENGINE_ERROR = 10
INV_BAD_FACE = 11
INV_VOID_RECORD = 12


@njit(cache=True)
def check_invariants(state: np.ndarray, spec: np.ndarray, mask: np.ndarray, staged: bool | None) -> int:
    """Return INV_OK or the code of the first broken invariant (see the INV_* names)."""
    n = state[L.S_NPLAYERS]
    nf = spec[L.SP_NUM_FACES]
    counts = np.zeros(L.MAX_FACES, dtype=np.int64)
    if state[L.S_ENGINE_ERROR] != L.ERR_NONE:
        return INV_ENGINE_ERROR
    if not 2 <= n <= L.MAX_PLAYERS:
        return INV_BAD_SEAT
    if state[L.S_NDRAW] < 0 or state[L.S_NDISCARD] < 0:
        return INV_NEGATIVE
    if state[L.S_NDRAW] + state[L.S_NDISCARD] > L.MAX_CARDS:
        return INV_CONSERVATION
    for i in range(state[L.S_NDRAW]):
        face = state[L.DRAW_PILE + i]
        if not 0 <= face < nf:
            return INV_BAD_FACE
        counts[face] += 1
    for i in range(state[L.S_NDISCARD]):
        face = state[L.DISCARD_PILE + i]
        if not 0 <= face < nf:
            return INV_BAD_FACE
        counts[face] += 1
    for seat in range(n):
        size = 0
        bits = 0
        for face in range(nf):
            held = count_in_hand(state, seat, face)
            if held < 0:
                return INV_NEGATIVE
            counts[face] += held
            size += held
            if held > 0:
                bits |= 1 << face
        if size != state[L.HAND_SIZE + seat]:
            return INV_HAND_SIZE
        if bits != state[L.HELD + seat]:
            return INV_HELD
        if state[L.SITOUT + seat] < 0:
            return INV_NEGATIVE
        if state[L.FINISHED + seat] != 0 and size != 0 and state[L.S_STATUS] == L.ST_RUNNING:
            return INV_FINISHED_HOLDS_CARDS
        void = state[L.VOID_FACES + seat]
        if void != 0:  # U-DRAW-3, U-WD4-2: a proven record holds (a hint may not: a bluff)
            lacking = 0
            for face in range(nf):
                if (void >> face) & 1:
                    lacking += count_in_hand(state, seat, face)
            if lacking > state[L.VOID_SLACK + seat]:
                return INV_VOID_RECORD
    for face in range(L.MAX_FACES):
        if counts[face] != state[L.DECK + face]:
            return INV_CONSERVATION
    if state[L.S_STATUS] == L.ST_RUNNING:
        if not 0 <= state[L.S_CURRENT] < n:
            return INV_BAD_SEAT
        if state[L.S_NDISCARD] < 1:
            return INV_EMPTY_DISCARD
        if state[L.S_PHASE] != L.PH_CHOOSE_COLOUR and not 0 <= state[L.S_COLOUR] < L.NUM_COLOURS:
            return INV_BAD_COLOUR
        if fill_mask(state, spec, mask, staged) < 1:
            return INV_NO_LEGAL_ACTION
    return INV_OK


INVARIANT_MESSAGES = {
    INV_CONSERVATION: "E-CONS-1: a card was created or destroyed",
    INV_NEGATIVE: "a count is negative",
    INV_HAND_SIZE: "a hand size disagrees with the cards held",
    INV_NO_LEGAL_ACTION: "the player to move has no legal action",
    INV_BAD_SEAT: "the seat to move is not a player",
    INV_EMPTY_DISCARD: "the discard pile is empty during play",
    INV_BAD_COLOUR: "no active colour during play",
    INV_FINISHED_HOLDS_CARDS: "MC-END-1: a player who left holds cards",
    INV_HELD: "a held-faces bitmask disagrees with the cards held",
    INV_ENGINE_ERROR: "the engine found an index out of range or no player to move, and ended the game",
    INV_BAD_FACE: "a pile holds a card that is not a face of the deck",
    INV_VOID_RECORD: (
        "U-DRAW-3/U-WD4-2: a hand holds more cards of the faces it was proven to lack than it gained since"
    ),
}
