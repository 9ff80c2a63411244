"""Memory layout of the compiled engine: one int64 buffer per game, one per rule set.

A game is a flat ``int64`` array (the *state*); a rule set compiles to another flat
``int64`` array (the *spec*: rule parameters and the per-face effect tables). Every
engine function takes ``(state, spec, ...)`` so that cloning is ``state.copy()``, a batch
is a 2-D array and numba compiles plain array code. The offsets below are module
constants, which numba freezes into the compiled code.

Nothing here implements a rule; the rule IDs live in :mod:`uno_env.engine`.
"""

from __future__ import annotations

# ---------------------------------------------------------------- sizes
MAX_PLAYERS = 10
MAX_FACES = 56  # Uno: 52 coloured + W, WD4, Super Star, customizable; French: 52 + 2 jokers
MAX_CARDS = 128  # physical cards in one game
NUM_COLOURS = 4

# ---------------------------------------------------------------- phases (the decision asked)
PH_PLAY = 0  # play a matching card, or draw (or call first)
PH_CHOOSE_COLOUR = 1  # name the colour/suit after a wild
PH_PLAY_DRAWN = 2  # play the card just drawn, or keep it
PH_CHALLENGE = 3  # challenge a Wild Draw Four, or accept it
PH_OVER = 4  # no decision: the game is over
NUM_PHASES = 5

# ---------------------------------------------------------------- status
ST_RUNNING = 0
ST_WON = 1  # a round (single-round game) or a match was won
ST_TRUNCATED = 2  # E-END-1: the decision limit was reached

# ---------------------------------------------------------------- face effects
EF_NONE = 0
EF_SKIP = 1
EF_REVERSE = 2
EF_DRAW = 3  # the next player draws F_AMOUNT and loses the turn
EF_WILD = 4  # choose the colour
EF_WILD_DRAW = 5  # choose the colour; the next player draws F_AMOUNT (challengeable)

# after a colour choice: what happens next
AC_END_TURN = 0
AC_SAME_PLAYER = 1  # starting wild: the first player named the colour and now plays
AC_WILD_DRAW = 2

# ---------------------------------------------------------------- state scalars
S_NPLAYERS = 0
S_PHASE = 1
S_CURRENT = 2  # seat that must decide now
S_DIRECTION = 3  # +1 clockwise (E-DIR-1), -1 counter-clockwise
S_COLOUR = 4  # active colour / suit
S_NDRAW = 5  # cards in the draw pile
S_NDISCARD = 6  # cards in the discard pile
S_PENDING = 7  # cards the victim of a Wild Draw Four must draw
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
NUM_SCALARS = 24

RNG = 24  # 6 words: xorwow state (5) + Weyl counter; chance events
RNG_WORDS = 6
AGENT_RNG = RNG + RNG_WORDS  # 6 words: randomness of compiled policies in the batch API

HAND_SIZE = AGENT_RNG + RNG_WORDS  # [MAX_PLAYERS] cards held
CALLED = HAND_SIZE + MAX_PLAYERS  # [MAX_PLAYERS] 1 while a player's call stands (U-UNO-1)
SCORE = CALLED + MAX_PLAYERS  # [MAX_PLAYERS] match points (U-SCORE-1..3)
ROUND_POINTS = SCORE + MAX_PLAYERS  # [MAX_PLAYERS] points of the last round
HANDS = ROUND_POINTS + MAX_PLAYERS  # [MAX_PLAYERS * MAX_FACES] count of each face per seat
DRAW_PILE = HANDS + MAX_PLAYERS * MAX_FACES  # [MAX_CARDS] faces, top of pile at S_NDRAW-1
DISCARD_PILE = DRAW_PILE + MAX_CARDS  # [MAX_CARDS] faces, top at S_NDISCARD-1
DECK = DISCARD_PILE + MAX_CARDS  # [MAX_FACES] copies of each face in this game (E-CONS-1)
STATE_SIZE = DECK + MAX_FACES

# ---------------------------------------------------------------- rule spec
SP_DECK = 0  # 0 Uno, 1 French
SP_NUM_FACES = 1
SP_NUM_ACTIONS = 2
SP_HAND_SIZE = 3
SP_DEALER_DRAW = 4  # U-SETUP-2: 1 draw for dealer, 0 random
SP_START_NUMBER_ONLY = 5  # U-START-2
SP_DRAW_UNTIL_PLAYABLE = 6  # U-DRAW-2
SP_DRAWN_MUST_PLAY = 7  # U-DRAW-2 option
SP_DRAW_WHEN_PLAYABLE = 8  # U-DRAW-3
SP_REVERSE_SKIPS_TWO = 9  # U-REV-1
SP_WD4_NO_PLAYABLE = 10  # U-WD4-1 option: legal only with no other playable card
SP_WD4_MODE = 11  # U-WD4-2: 0 challenge, 1 no challenge (bluffs unpunished), 2 bluffs refused
SP_CHALLENGE_PENALTY = 12
SP_CHALLENGE_COLOUR_STANDS = 13
SP_UNO_PENALTY = 14  # U-UNO-1
SP_UNO_CATCH_PPM = 15  # catch probability in millionths
SP_LAST_CARD_DRAW = 16  # U-END-1
SP_MATCH = 17  # 0 single round, 1 first to target (U-SCORE-2), 2 lowest total (U-SCORE-3)
SP_TARGET = 18
SP_MAX_DECISIONS = 19
NUM_SP_PARAMS = 32

F_COLOUR = NUM_SP_PARAMS  # [MAX_FACES] colour/suit 0..3, -1 for colourless
F_RANK = F_COLOUR + MAX_FACES  # [MAX_FACES] number/symbol, matched by U-MATCH-1
F_EFFECT = F_RANK + MAX_FACES  # [MAX_FACES] EF_* code
F_AMOUNT = F_EFFECT + MAX_FACES  # [MAX_FACES] cards to draw for EF_DRAW / EF_WILD_DRAW
F_ANYWHERE = F_AMOUNT + MAX_FACES  # [MAX_FACES] 1 if playable on any card
F_POINTS = F_ANYWHERE + MAX_FACES  # [MAX_FACES] U-SCORE-1 points
F_DEALER_VALUE = F_POINTS + MAX_FACES  # [MAX_FACES] U-SETUP-2 value
F_IS_NUMBER = F_DEALER_VALUE + MAX_FACES  # [MAX_FACES] 1 for number cards (U-START-2)
SPEC_SIZE = F_IS_NUMBER + MAX_FACES

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
