"""Memory layout of the compiled engine: one int64 buffer per game, one per rule set.

A game is a flat ``int64`` array (the *state*); a rule set compiles to another flat
``int64`` array (the *spec*: rule parameters and the per-face effect tables). Every
engine function takes ``(state, spec, ...)`` so that cloning is ``state.copy()``, a batch
is a 2-D array and numba compiles plain array code. The offsets below are module
constants, which numba freezes into the compiled code; a rule field's spec slot may instead
be declared beside its field (:func:`declare_spec_slot`), which makes it one of them.

Nothing here implements a rule; the rule IDs live in :mod:`uno_env.engine.engine`.
"""

from __future__ import annotations

import re

from .phases import Phase, TargetReason

# ---------------------------------------------------------------- sizes
MAX_PLAYERS = 10
MAX_FACES = 56  # Uno: 52 coloured + W, WD4, Super Star, customizable; French: 52 + 2 jokers
MAX_CARDS = 256  # physical cards in one game (two Uno decks with every Mario card fit)
NUM_COLOURS = 4
PENALTY_LIMIT = 1 << 20  # most cards (or turns) a pending penalty holds: more than any deck

# ---------------------------------------------------------------- phases (the decision asked)
# the codes of uno_env.engine.phases.Phase, the one table of phases, as module constants
# (numba freezes those into the compiled code)
PH_PLAY = int(Phase.PLAY)
PH_CHOOSE_COLOUR = int(Phase.CHOOSE_COLOUR)
PH_PLAY_DRAWN = int(Phase.PLAY_DRAWN)
PH_CHALLENGE = int(Phase.CHALLENGE)
PH_OVER = int(Phase.OVER)
PH_ANSWER = int(Phase.ANSWER)
PH_CONTINUE = int(Phase.CONTINUE)
PH_CHOOSE_TARGET = int(Phase.CHOOSE_TARGET)
PH_GIVE = int(Phase.GIVE)
PH_JUMP_IN = int(Phase.JUMP_IN)
PH_BLOCK = int(Phase.BLOCK)
NUM_PHASES = len(Phase)
PHASE_SLOTS = 16  # phases an observation can name: room for every rule family's decisions

# ---------------------------------------------------------------- engine errors (S_ENGINE_ERROR)
# Only a state the engine never makes (written directly, or a parser bug) gets one: the
# step that finds it skips the bad write, ends the game and the callers raise.
ERR_NONE = 0
ERR_SEAT = 1  # a seat index from the state is not a player
ERR_FACE = 2  # a card index from the state is not a face
ERR_PILE = 3  # a pile count outside 0..MAX_CARDS
ERR_NO_PLAYER = 4  # no player in play to pass the turn to (the step made no progress)

# ---------------------------------------------------------------- status
ST_RUNNING = 0
ST_WON = 1  # a round (single-round game) or a match was won
ST_TRUNCATED = 2  # E-END-1: the decision limit was reached

# ---------------------------------------------------------------- face effects
EF_NONE = 0
EF_SKIP = 1  # the next player loses the turn
EF_REVERSE = 2  # direction flips
EF_DRAW = 3  # the next player draws F_AMOUNT and loses the turn (stackable by table)
EF_WILD = 4  # playable on anything; name the colour
EF_WILD_DRAW = 5  # wild; the next player draws F_AMOUNT (challengeable, U-WD4-2)
EF_CHOOSE_SUIT = 6  # name the suit, but play it only where it matches (MC-ACE-1)
EF_PREVIOUS_DRAWS = 7  # the previous player draws F_AMOUNT (MM-NINE-1, MC-OPT-1)
EF_SIT_OUT = 8  # the next player sits out F_AMOUNT turns (stackable, MC-FOUR-1)
EF_STAR = 9  # wild; sends a pending draw penalty back to its sender (M-STAR-1)
NUM_EFFECTS = 10
EFFECT_NAMES = (
    "none", "skip", "reverse", "draw", "wild", "wild_draw", "choose_suit", "previous_draws",
    "sit_out", "star",
)  # fmt: skip

# face play restrictions (F_PLAY_ON)
PO_ANY = 0
PO_BLACK = 1  # only on a black suit: clubs, spades (MC-OPT-1 black joker)
PO_RED = 2  # only on a red suit: diamonds, hearts (MC-OPT-1 red joker)

# resolution stages of a play (S_STAGE)
STAGE_COLOUR = 0
STAGE_HOUSE = 1
STAGE_REACT = 2
STAGE_REVEAL = 3
STAGE_PASS = 4

# after a colour choice: what happens next (S_AFTER_CHOICE)
AC_END_TURN = 0  # the play's resolution goes on (S_STAGE)
AC_SAME_PLAYER = 1  # starting wild: the first player named the colour and now plays
AC_CUBE = 2  # the roller of the Uno cube names a colour (H-CUBE-1)

# what a play is (S_PLAY_KIND)
PK_NORMAL = 0
PK_STACK = 1  # answers a pending penalty with another penalty card
PK_REFLECT = 2  # a Reverse sends a pending penalty back (H-REFLECT-1)
PK_STAR = 3  # a Super Star sends a pending penalty back (M-STAR-1)

# why a target is chosen (S_TARGET_REASON)
TR_SWAP = int(TargetReason.SWAP)  # H-SEVEN-1, H-ZERO-1 swap readings
TR_GIVE = int(TargetReason.GIVE)  # H-TWO-1
TR_CUBE = int(TargetReason.CUBE)  # H-CUBE-1: who the cube's action hits

# the Uno cube (H-CUBE-1): action die faces, then target die faces
CUBE_DRAW_TWO = 0
CUBE_DRAW_FOUR = 1
CUBE_SKIP = 2
CUBE_DISCARD = 3  # faces 4 and 5 are blank
CUBE_CHOSEN = 0  # a chosen player but you
CUBE_OTHERS = 1  # everyone else
CUBE_YOU = 2  # only you
CUBE_YOU_COLOUR = 3  # only you, and choose the colour
CUBE_ALL_COLOUR = 4  # everyone, and choose the colour
CUBE_CHOSEN_COLOUR = 5  # a chosen player, and choose the colour

# ---------------------------------------------------------------- state scalars
S_NPLAYERS = 0
S_PHASE = 1
S_CURRENT = 2  # seat that must decide now
S_DIRECTION = 3  # +1 clockwise (E-DIR-1), -1 counter-clockwise
S_COLOUR = 4  # active colour / suit
S_NDRAW = 5  # cards in the draw pile
S_NDISCARD = 6  # cards in the discard pile
S_PENDING = 7  # cards the target of a pending penalty must draw
S_PENDING_FROM = 8  # seat that sent the pending penalty
S_DRAWN = 9  # face just drawn (PH_PLAY_DRAWN), else -1
S_COLOUR_BEFORE = 10  # active colour before a Wild Draw Four (U-WD4-2)
S_BLUFF = 11  # 1 if the pending Wild Draw Four was played illegally
S_AFTER_CHOICE = 12  # AC_* code for PH_CHOOSE_COLOUR
S_DECISIONS = 13  # decisions applied so far (E-END-1)
S_STATUS = 14  # ST_* code
S_WINNER = 15  # seat that won the game, or -1
S_DEALER = 16
S_ROUND = 17  # rounds finished so far in a match
S_ROUND_WINNER = 18  # winner of the last finished round, or -1
S_LAST_ACTOR = 19
S_LAST_ACTION = 20
S_PENDING_SKIP = 21  # turns the target of a pending penalty must sit out (MC-FOUR-1)
S_PENDING_CLASS = 22  # rank of the card that last raised the pending penalty (stack table)
S_CHALLENGEABLE = 23  # 1 if the pending penalty is a Wild Draw Four its target may challenge
S_ACTOR = 24  # seat whose play is being resolved
S_STAGE = 25  # STAGE_* of that resolution
S_PLAY_KIND = 26  # PK_* of that play
S_PLAY_COUNT = 27  # cards laid in that play
S_PLAY_RANK = 28  # rank of the cards laid (the last one for a run)
S_RUN_STEP = 29  # H-SEQ-1: +1 ascending, -1 descending, 0 not yet known
S_ACC_SKIP = 30  # skips laid in this play
S_ACC_DRAW = 31  # draw cards laid in this play (their amounts added; doubled per card, MD-SEVEN-1)
S_ACC_SIT = 32  # sit-out turns laid in this play
S_ACC_PREVIOUS = 33  # cards the previous player must draw
S_ACC_CHOOSE = 34  # 1 if a colour/suit must be named
S_ACC_PENALTY_CARDS = 35  # penalty cards laid (for doubling, MD-SEVEN-1)
S_CARRY_DRAW = 36  # pending cards an answering play took over
S_CARRY_SIT = 37  # pending sit-out turns an answering play took over
S_TARGET_REASON = 38  # TR_* of PH_CHOOSE_TARGET
S_TARGET = 39  # the chosen seat (H-TWO-1)
S_GIVE_LEFT = 40  # cards still to give (H-TWO-1)
S_RESUME = 41  # seat that plays once an out-of-turn window closes
S_WINDOW_FROM = 42  # seat whose card opened the window
S_WINDOW_SCAN = 43  # seat being asked in the window
S_JUMP_BLOCK_SEAT = 44  # H-JUMP-1: seat that drew the top card's penalty
S_JUMP_BLOCK_COUNT = 45  # copies of the top face that seat drew as the penalty
JUMP_BLOCK_START = -2  # S_JUMP_BLOCK_SEAT: the top card is the starting card; nobody jumps in on it
S_NFINISHED = 46  # players who left the game (MC-END-1)
S_DREW = 47  # 1 once the player to move has drawn this turn (MM-CALL-1)
S_CUBE_ACTION = 48  # H-CUBE-1: the action die of the roll being resolved
S_CUBE_FACE = 49  # H-CUBE-1: the target die
S_CUBE_ROLLER = 50
S_CUBE_AT_UNO = 51  # 1 if the roll came with an UNO call
S_CUBE_RETURN = 52  # the roller's decision the roll interrupted
S_CUBE_CHOSEN = 53  # the chosen player, or -1
S_CUBE_COLOUR = 54  # the chosen colour, or -1
S_TURNS = 55  # turns begun so far: a player entered the play phase (must play or draw)
S_ENGINE_ERROR = 56  # ERR_* code once the engine found its state unusable (the game is then ended)
S_LETGO = 57  # let-go answers to out-of-turn windows (H-JUMP-1, H-ZEROSEE-1): only the asked seat knows
NUM_SCALARS = 58

RNG = NUM_SCALARS  # 6 words: xorwow state (5) + Weyl counter; chance events
RNG_WORDS = 6
AGENT_RNG = RNG + RNG_WORDS  # 6 words: randomness of compiled policies in the batch API

HAND_SIZE = AGENT_RNG + RNG_WORDS  # [MAX_PLAYERS] cards held
CALLED = HAND_SIZE + MAX_PLAYERS  # [MAX_PLAYERS] 1 while a player's call stands (U-UNO-1)
SCORE = CALLED + MAX_PLAYERS  # [MAX_PLAYERS] match points (U-SCORE-1..3)
ROUND_POINTS = SCORE + MAX_PLAYERS  # [MAX_PLAYERS] points of the last round
SITOUT = ROUND_POINTS + MAX_PLAYERS  # [MAX_PLAYERS] turns still to sit out (MC-FOUR-1)
FINISHED = SITOUT + MAX_PLAYERS  # [MAX_PLAYERS] 0 playing, k: k-th to leave (MC-END-1)
HAND_VERSION = FINISHED + MAX_PLAYERS  # [MAX_PLAYERS] bumped when a hand changes unseen (not by a card laid)
SEEN = HAND_VERSION + MAX_PLAYERS  # [MAX_PLAYERS**2] observer*10+seat: version+1 when looked at
CUBE_ROLLED = SEEN + MAX_PLAYERS * MAX_PLAYERS  # [MAX_PLAYERS] rolled at 10 cards (H-CUBE-1)
HANDS = CUBE_ROLLED + MAX_PLAYERS  # [MAX_PLAYERS * MAX_FACES] count of each face per seat
DRAW_PILE = HANDS + MAX_PLAYERS * MAX_FACES  # [MAX_CARDS] faces, top of pile at S_NDRAW-1
DISCARD_PILE = DRAW_PILE + MAX_CARDS  # [MAX_CARDS] faces, top at S_NDISCARD-1
DECK = DISCARD_PILE + MAX_CARDS  # [MAX_FACES] copies of each face in this game (E-CONS-1)
HELD = DECK + MAX_FACES  # [MAX_PLAYERS] bit f set while the seat holds face f (mirrors HANDS)
# Public records of what a player's play showed about its hand: it holds at most SLACK cards
# of the faces in FACES (SLACK: cards gained since, less cards of those faces laid since).
# VOID: proven by the rules (a draw under U-DRAW-3 false; a Wild Draw Four found legal,
# U-WD4-2). HINT: implied if the player plays straight (it drew by choice, U-DRAW-3 true,
# so had nothing to play; it laid a Wild Draw Four, U-WD4-1, so had no card of the colour).
VOID_FACES = HELD + MAX_PLAYERS  # [MAX_PLAYERS] bitmask of faces (0: nothing known)
VOID_SLACK = VOID_FACES + MAX_PLAYERS  # [MAX_PLAYERS]
HINT_FACES = VOID_SLACK + MAX_PLAYERS  # [MAX_PLAYERS] bitmask of faces (0: nothing known)
HINT_SLACK = HINT_FACES + MAX_PLAYERS  # [MAX_PLAYERS]
RECORD_SLACK = MAX_PLAYERS  # a record's SLACK array follows its FACES array
STATE_SIZE = HINT_SLACK + MAX_PLAYERS

# ---------------------------------------------------------------- rule spec
SP_DECK = 0  # 0 Uno, 1 French
SP_NUM_FACES = 1
SP_NUM_ACTIONS = 2
SP_HAND_SIZE = 3
SP_DEALER_DRAW = 4  # U-SETUP-2: 1 draw for dealer, 0 random
SP_START = 5  # options.START_CARD code (U-START-1, U-START-2, MC-START-1, MM-START-1)
SP_DRAW_RULE = 6  # options.DRAW code (U-DRAW-1, U-DRAW-2, MM-DRAW-1, MD-DRAW-1)
SP_DRAWN_MUST_PLAY = 7  # U-DRAW-2 option
SP_DRAW_WHEN_PLAYABLE = 8  # U-DRAW-3
SP_REVERSE_SKIPS_TWO = 9  # U-REV-1
SP_WD4_LEGAL_WHEN = 10  # U-WD4-1: options.WD4_LEGAL_WHEN code (which held cards make it illegal)
SP_WD4_MODE = 11  # options.WD4_BLUFF code (U-WD4-2)
SP_CHALLENGE_PENALTY = 12
SP_CHALLENGE_COLOUR_STANDS = 13
SP_UNO_PENALTY = 14  # U-UNO-1
SP_UNO_CATCH_PPM = 15  # catch probability in millionths
SP_LAST_CARD_DRAW = 16  # U-END-1
SP_MATCH = 17  # options.MATCH code (U-SCORE-1..3)
SP_TARGET = 18
SP_MAX_DECISIONS = 19
SP_CALL_RULE = 20  # options.CALL code (U-UNO-1, MC-CALL-1, MM-CALL-1)
SP_FALSE_CALL_PENALTY = 21  # MM-CALL-1
SP_FALSE_ACCUSE_PPM = 22  # MM-CALL-1 accusation model
SP_END_RULE = 23  # 0 first out ends the round, 1 play on until one is left (MC-END-1)
SP_ROUND_SCORE = 24  # 0 winner takes the others' points (U-SCORE-1), 1 own points (MM-SCORE-1)
SP_MULTI = 25  # options.MULTI_PLAY code (H-MULTI-1, H-MULTI-2, MC-TURN-1)
SP_RUNS = 26  # H-SEQ-1
SP_LEAVE_ONE = 27  # H-LASTONE-1
SP_NO_FINISH_ACTION = 28  # H-NOFINISH-1
SP_ACTION_SAME_SYMBOL = 29  # H-ACTION-1
SP_STACK_DOUBLE = 30  # MD-SEVEN-1: each further penalty card doubles
SP_REVERSE_REFLECTS = 31  # H-REFLECT-1
SP_SEVEN_SWAP = 32  # H-SEVEN-1
SP_ZERO_RULE = 33  # options.ZERO_RULE code (H-ZERO-1)
SP_ZERO_RANK = 34  # H-ZERO-1: the rank carrying the zero rule (0, or 1 for "regra do 1")
SP_JUMP_IN = 35  # H-JUMP-1
SP_EIGHT_AGAIN = 36  # H-EIGHT-1
SP_TWO_GIVES = 37  # H-TWO-1
SP_REACT_NINE = 38  # H-REACT-1
SP_REACT_SEVEN = 39  # H-REACT-1
SP_REACT_PENALTY = 40
SP_ZERO_REVEALS = 41  # H-ZEROSEE-1
SP_WILD_NOT_ON = 42  # MM-JACK-1: rank on which wilds may not be played (-1 none)
SP_WILD_NOT_ON_PENDING_ONLY = 43  # MM-JACK-1 option: only while a penalty is pending
SP_CUBE = 44  # H-CUBE-1
SP_NUMBER_EFFECTS = 45  # 1 if any house rule gives number cards an effect (fast path flag)
SP_HAS_STAR = 46  # 1 if the deck holds Super Stars (M-STAR-1)
SP_PLAIN_MATCHING = 47  # 1 if playability is U-MATCH-1 alone (no restriction rule is on): fast path
SP_PLAIN_PLAYS = 48  # 1 if a one-card play never asks more than a colour: fast path
NUM_SP_PARAMS = 56  # a later rule field declares its SP_ slot beside the field (declare_spec_slot)

F_COLOUR = NUM_SP_PARAMS  # [MAX_FACES] colour/suit 0..3, -1 for colourless
F_RANK = F_COLOUR + MAX_FACES  # [MAX_FACES] number/symbol, matched by U-MATCH-1
F_EFFECT = F_RANK + MAX_FACES  # [MAX_FACES] EF_* code
F_AMOUNT = F_EFFECT + MAX_FACES  # [MAX_FACES] cards to draw / turns to sit out
F_ANYWHERE = F_AMOUNT + MAX_FACES  # [MAX_FACES] 1 if playable on any card
F_POINTS = F_ANYWHERE + MAX_FACES  # [MAX_FACES] U-SCORE-1 / MM-SCORE-1 points
F_DEALER_VALUE = F_POINTS + MAX_FACES  # [MAX_FACES] U-SETUP-2 value
F_IS_NUMBER = F_DEALER_VALUE + MAX_FACES  # [MAX_FACES] 1 for plain cards (U-START-2, H-NOFINISH-1)
F_PLAY_ON = F_IS_NUMBER + MAX_FACES  # [MAX_FACES] PO_* restriction (jokers)
NUM_RANKS = 16  # ranks (F_RANK values) of either deck family
STACK = F_PLAY_ON + MAX_FACES  # [NUM_RANKS * NUM_RANKS] STACK[a*16+b]: rank a answers rank b
STACKABLE = STACK + NUM_RANKS * NUM_RANKS  # [NUM_RANKS] 1 if some card may answer this rank
COLOUR_FACES = STACKABLE + NUM_RANKS  # [NUM_COLOURS] bitmask of the faces of each colour/suit
RANK_FACES = COLOUR_FACES + NUM_COLOURS  # [NUM_RANKS] bitmask of the faces of each rank
ANYWHERE_FACES = RANK_FACES + NUM_RANKS  # bitmask of the faces playable on any card
# more face sets as bitmasks, so that every legal set is a few ``and``/``or`` of words
COLOURLESS_FACES = ANYWHERE_FACES + 1  # faces without a colour/suit (F_COLOUR -1)
NUMBER_FACES = COLOURLESS_FACES + 1  # F_IS_NUMBER faces (H-NOFINISH-1, H-ACTION-1, H-SEQ-1, ...)
WILD_DRAW_FACES = NUMBER_FACES + 1  # EF_WILD_DRAW faces (U-WD4-1, U-WD4-2)
STAR_FACES = WILD_DRAW_FACES + 1  # EF_STAR faces (M-STAR-1)
REVERSE_FACES = STAR_FACES + 1  # EF_REVERSE faces (H-REFLECT-1)
PLAY_ON_FACES = REVERSE_FACES + 1  # [3] faces by F_PLAY_ON: PO_ANY, PO_BLACK, PO_RED (MC-OPT-1)
STACK_FACES = PLAY_ON_FACES + 3  # [NUM_RANKS] penalty faces whose rank may answer this rank (STACK)
SET_FACES = STACK_FACES + NUM_RANKS  # the faces the sets from COLOUR_FACES to here may name (compile_spec)
SPEC_SIZE = SET_FACES + 1

# ---------------------------------------------------------------- action offsets (per deck)
NUM_TARGETS = MAX_PLAYERS - 1  # "target +k": the seat k places clockwise from the actor
A_CHOOSE_OFFSET = 0  # + num_faces
A_TARGET_OFFSET = NUM_COLOURS
A_DRAW_OFFSET = A_TARGET_OFFSET + NUM_TARGETS
A_PASS_OFFSET = A_DRAW_OFFSET + 1
A_CALL_OFFSET = A_PASS_OFFSET + 1
A_CHALLENGE_OFFSET = A_CALL_OFFSET + 1
A_ACCEPT_OFFSET = A_CHALLENGE_OFFSET + 1
NUM_NONFACE_ACTIONS = A_ACCEPT_OFFSET + 1
MAX_ACTIONS = MAX_FACES + NUM_NONFACE_ACTIONS


def declare_spec_slot(name: str, slot: int) -> int:
    """Declare the spec slot ``name`` (``SP_...``) of a rule field where the field is declared,
    and return it: ``_rule(..., slot=L.declare_spec_slot("SP_FIVE_REVERSES", 49))`` in
    :mod:`uno_env.engine.rules`, so that a new switch's slot is written once, beside its field.

    The slot becomes a constant of this module like the ones above, which numba freezes into
    the compiled code that reads it (``spec[L.SP_FIVE_REVERSES]``): the rules module is
    imported with the package, before any engine function compiles, and it is part of the
    compiled engine's cache key. Refused (``ValueError``): a name that is not ``SP_`` and
    capitals, a name already taken, and a slot outside ``0..NUM_SP_PARAMS - 1`` or in use.
    """
    used = {v: k for k, v in globals().items() if k.startswith("SP_") and isinstance(v, int)}
    if re.fullmatch(r"SP_[A-Z0-9_]+", name) is None:
        raise ValueError(f"a spec slot's name is SP_ and capitals, digits or '_', got {name!r}")
    if name in globals():
        raise ValueError(f"spec slot {name} is declared twice")
    if not 0 <= slot < NUM_SP_PARAMS or slot in used:
        free = [s for s in range(NUM_SP_PARAMS) if s not in used]
        why = f"is {used[slot]}'s" if slot in used else f"is outside 0..{NUM_SP_PARAMS - 1}"
        left = free or "none (raise NUM_SP_PARAMS)"
        raise ValueError(f"spec slot {slot} for {name} {why}; free slots: {left}")
    globals()[name] = slot
    return slot


def __getattr__(name: str) -> int:
    """Only reached for a name this module does not have (a slot declared with its field is a
    plain constant here once :mod:`uno_env.engine.rules` is imported); typed ``int`` so that
    the type checker takes those slots as the constants they are."""
    if name.startswith("SP_"):
        raise AttributeError(
            f"uno_env.engine.layout has no spec slot {name}: a rule field declares its slot "
            "(slot=L.declare_spec_slot(...) in uno_env/engine/rules.py), imported with uno_env"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
