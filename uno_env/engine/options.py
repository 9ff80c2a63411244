"""The option tables: every rule that picks one of several words, and the code each word compiles to.

One table per option is the single source of its words and codes. The :class:`~uno_env.engine.rules.RuleSet`
field takes its allowed values from the table's keys (in the table's order, which is the
order error messages and the field docs list them), :func:`~uno_env.engine.rules.compile_spec` writes
the code into the field's spec slot, and the engine's constants (``engine.DRAW_ONE_THEN_ANY``,
...) are read from the same table. ``tests/test_options.py`` checks that nothing else spells
a code.

Two-word options whose slot is a 0/1 flag (``dealer``, ``drawn_card``, ...) are tables too, so
the word that sets the flag is written once.

Nothing here implements a rule; the rule IDs are those of the fields in :mod:`uno_env.engine.rules`.
This module imports nothing, so the lowest layer (layout, engine) can read it.
"""

from __future__ import annotations

from collections.abc import Mapping

DECK: Mapping[str, int] = {"uno": 0, "french": 1}  # U-DECK-1, MM-DECK-1
DEALER: Mapping[str, int] = {"draw": 1, "random": 0}  # U-SETUP-2: 1 draw for dealer
START_CARD: Mapping[str, int] = {
    "official": 0,
    "number_only": 1,
    "first_discard": 2,
}  # U-START-1/2, MM-START-1
START_REVERSE: Mapping[str, int] = {"dealer_first": 0, "as_dealers_play": 1}  # U-START-1: a starting Reverse
DRAW: Mapping[str, int] = {
    "one": 0,
    "until_playable": 1,
    "one_then_any": 2,
    "one_then_pass": 3,
}  # U-DRAW-1/2, MM-DRAW-1, MD-DRAW-1
DRAWN_CARD: Mapping[str, int] = {"may_keep": 0, "must_play": 1}  # U-DRAW-2
REVERSE_WITH_TWO: Mapping[str, int] = {"skip": 1, "reverse": 0}  # U-REV-1: 1 a Reverse skips
WILD_NOT_ON_WHEN: Mapping[str, int] = {"top_card": 0, "pending": 1}  # MM-JACK-1
WD4_LEGAL_WHEN: Mapping[str, int] = {
    "no_matching_colour": 0,
    "no_playable_card": 1,
    "no_playable_number_card": 2,
}  # U-WD4-1
WD4_BLUFF: Mapping[str, int] = {"challenge": 0, "unpunished": 1, "refused": 2}  # U-WD4-2
CHALLENGE_COLOUR: Mapping[str, int] = {"annulled": 0, "stands": 1}  # U-WD4-2
CALL: Mapping[str, int] = {"uno": 1, "mau_mau": 2, "none": 0}  # U-UNO-1, MC-CALL-1, MM-CALL-1
STACK_GROWTH: Mapping[str, int] = {"add": 0, "double": 1}  # H-STACK-1, MD-SEVEN-1
ZERO_RULE: Mapping[str, int] = {
    "none": 0,
    "rotate": 1,
    "swap_optional": 2,
    "swap": 3,
    "discard_colour": 4,
}  # H-ZERO-1
MULTI_PLAY: Mapping[str, int] = {"none": 0, "identical": 1, "same_rank": 2}  # H-MULTI-1/2, MC-TURN-1
END: Mapping[str, int] = {"first_out": 0, "last_player": 1}  # MC-END-1
ROUND_SCORE: Mapping[str, int] = {"winner_takes": 0, "own_points": 1}  # U-SCORE-1, MM-SCORE-1
MATCH: Mapping[str, int] = {"single_round": 0, "first_to_target": 1, "lowest_total": 2}  # U-SCORE-1..3

# the fast-path features a rule field can carry (RuleSet field metadata ``features``): a field
# whose value is not one of its ``plain`` values turns the feature's flag on or off
STAGED = "staged"  # a one-card play may ask more than a colour: clears SP_PLAIN_PLAYS
RESTRICTS_PLAY = "restricts_play"  # playability is more than U-MATCH-1: clears SP_PLAIN_MATCHING
NUMBER_EFFECT = "number_effect"  # a number card gets an effect (house rules): sets SP_NUMBER_EFFECTS
UNO_DECK_ONLY = "uno_deck_only"  # a house rule written for the Uno deck: refused with deck='french'
FEATURES = (STAGED, RESTRICTS_PLAY, NUMBER_EFFECT, UNO_DECK_ONLY)
