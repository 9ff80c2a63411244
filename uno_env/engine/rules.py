"""Rule sets: every switch and parameter of the rule reference, validated, and the presets.

A :class:`RuleSet` is a frozen dataclass. Each field cites the rule it configures (the rule
reference ``docs/rules.md``, :mod:`uno_env.game.reference`) and declares its allowed values;
construction validates them all and an error names the field, the bad value and what is
allowed. Variants derive with
``dataclasses.replace``; ``str(rules)`` is a canonical one-line form, the nearest preset and
the fields that differ from it (recorded in logs, result files and checkpoints), that
:meth:`RuleSet.parse` reads back, as it reads the older form listing every field; TOML files round-trip
through :meth:`RuleSet.from_toml` / :meth:`RuleSet.to_toml`.

The engine never reads a RuleSet: :func:`compile_spec` turns it into the flat array of
parameters and per-face effect tables that the compiled rule functions take.

Rules configured here: U-DECK-1, U-SETUP-1, U-SETUP-2, U-START-1, U-START-2, U-MATCH-1,
U-DRAW-1..4, U-SKIP-1, U-REV-1, U-D2-1, U-WILD-1, U-WD4-1, U-WD4-2, U-UNO-1, U-END-1,
U-SCORE-1..3, E-END-1.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

from .. import files
from ..spelling import each_with_suggestion, suggestion
from ..versions import RULES_FORMAT
from . import cards
from . import layout as L
from . import options as O

EFFECT_WORDS = L.EFFECT_NAMES
MAX_PLAYERS = L.MAX_PLAYERS
"""The most players any variant seats (the engine's table size)."""
RULE_FILE_LIMIT = files.TEXT_LIMIT
"""Largest rule file read (1 MiB)."""
AMOUNT_EFFECTS = (L.EF_DRAW, L.EF_WILD_DRAW, L.EF_PREVIOUS_DRAWS, L.EF_SIT_OUT)


class RuleError(ValueError):
    """An invalid rule value, unknown rule key, malformed rule file or impossible rule set."""


def _rule(
    default: Any,
    rule_id: str,
    doc: str,
    *,
    codes: Mapping[str, int] | None = None,
    bounds: tuple[float, float] | None = None,
    slot: int | None = None,
    scale: int = 1,
    features: tuple[str, ...] = (),
    plain: tuple[Any, ...] | None = None,
) -> Any:
    """A rule field and its metadata, the one place a rule is declared.

    ``codes``: the option table (:mod:`uno_env.engine.options`) of a field that picks one of several
    words (its allowed values are the table's keys); ``bounds``: the range of a number;
    ``slot``: the spec slot :func:`compile_spec` writes (the code of the word, the number
    times ``scale``, or the flag); ``features``: the fast-path features the field touches
    (:data:`uno_env.engine.options.FEATURES`) while its value is not one of ``plain`` (by default
    the default value).
    """
    return field(
        default=default,
        metadata={
            "rule": rule_id,
            "doc": doc,
            "choices": None if codes is None else tuple(codes),
            "bounds": bounds,
            "codes": codes,
            "slot": slot,
            "scale": scale,
            "features": features,
            "plain": (default,) if plain is None else plain,
        },
    )


@dataclass(frozen=True)
class RuleSet:
    """Every switch and parameter of one rule variant. Build presets with :func:`preset`."""

    # ---- deck and table
    deck: str = _rule(
        "uno",
        "U-DECK-1",
        "deck family: 'uno': the 108-card Uno deck; 'french': the 52-card French deck",
        codes=O.DECK,
        slot=L.SP_DECK,
    )
    decks: int = _rule(1, "MM-DECK-1", "copies of the base deck", bounds=(1, 2))
    extra_deck_above: int = _rule(
        0, "MD-DECK-1", "add one more deck copy above this many players (0: never)", bounds=(0, 10)
    )
    jokers: bool = _rule(False, "MC-OPT-1", "French deck: add a black and a red joker per deck copy")
    super_stars: int = _rule(
        0, "U-DECK-2", "Super Star wild cards in an Uno deck", bounds=(0, 8), features=(O.STAGED,)
    )
    custom_wilds: int = _rule(0, "U-DECK-2", "customizable wild cards in an Uno deck", bounds=(0, 8))
    card_effects: tuple[str, ...] = _rule(
        (),
        "U-DECK-1",
        "'RANK:effect[:n]' or 'CARD:effect[:n]' entries replacing the deck's default effects "
        "(Uno: the official ones; French: none), one per rank or card, a card's after its rank's "
        f"(it overrides it); effects: {', '.join(EFFECT_WORDS)}",
    )
    min_players: int = _rule(2, "U-DECK-1", "fewest players the variant allows", bounds=(2, 10))
    max_players: int = _rule(10, "U-DECK-1", "most players the variant allows", bounds=(2, 10))
    hand_size: int = _rule(7, "U-SETUP-1", "cards dealt to each player", bounds=(1, 20), slot=L.SP_HAND_SIZE)
    dealer: str = _rule(
        "draw",
        "U-SETUP-2",
        "'draw': each player draws a card, the highest number deals (Uno deck); "
        "'random': a random player deals",
        codes=O.DEALER,
        slot=L.SP_DEALER_DRAW,
    )
    start_card: str = _rule(
        "official",
        "U-START-1",
        "'official': the starting card's effect applies to the first player (U-START-1); "
        "'number_only': redraw until a card without effect (U-START-2, MC-START-1); "
        "'first_discard': it counts as the first player's discard (MM-START-1)",
        codes=O.START_CARD,
        slot=L.SP_START,
    )
    start_reverse: str = _rule(
        "dealer_first",
        "U-START-1",
        "a starting Reverse: 'dealer_first': the direction flips and the dealer plays first, then the "
        "player to the dealer's right (U-START-1 as Uno Super Mario reads it); 'as_dealers_play': "
        "it counts as laid by the dealer (U-START-1 as the Uno and Mau-Mau sheet and the Uno wiki "
        "read it): the direction flips and the player to the dealer's right plays first; at two "
        "players it acts as U-REV-1 says, so with reverse_with_two = skip the dealer plays first",
        codes=O.START_REVERSE,
        slot=L.declare_spec_slot("SP_START_REVERSE_AS_PLAY", 50),
    )

    # ---- a turn
    draw: str = _rule(
        "one",
        "U-DRAW-1",
        "'one': draw one card and play it if you can and want (U-DRAW-1); 'until_playable': keep "
        "drawing until a card can be played (U-DRAW-2); 'one_then_any': draw one, then play any "
        "playable card or pass (MM-DRAW-1); 'one_then_pass': draw one and the turn ends (MD-DRAW-1)",
        codes=O.DRAW,
        slot=L.SP_DRAW_RULE,
    )
    drawn_card: str = _rule(
        "may_keep",
        "U-DRAW-2",
        "a playable drawn card: 'may_keep': may be played at once or kept; 'must_play': must be played",
        codes=O.DRAWN_CARD,
        slot=L.SP_DRAWN_MUST_PLAY,
    )
    draw_when_playable: bool = _rule(
        True, "U-DRAW-3", "drawing is allowed while holding a playable card", slot=L.SP_DRAW_WHEN_PLAYABLE
    )
    reverse_with_two: str = _rule(
        "skip",
        "U-REV-1",
        "with two players a Reverse: 'skip': acts as a Skip; 'reverse': only reverses the direction",
        codes=O.REVERSE_WITH_TWO,
        slot=L.SP_REVERSE_SKIPS_TWO,
    )
    wild_not_on: str = _rule(
        "",
        "MM-JACK-1",
        "a rank on whose card a wild may not be played ('' none; Mau-Mau: '7')",
        features=(O.RESTRICTS_PLAY,),
    )
    wild_not_on_when: str = _rule(
        "top_card",
        "MM-JACK-1",
        "the restriction holds: 'top_card': whenever that rank is the top card (the source); "
        "'pending': only while its penalty is pending",
        codes=O.WILD_NOT_ON_WHEN,
        slot=L.SP_WILD_NOT_ON_PENDING_ONLY,
    )
    wd4_legal_when: str = _rule(
        "no_matching_colour",
        "U-WD4-1",
        "a Wild Draw Four is legal: 'no_matching_colour': with no card of the active colour in hand "
        "(official); 'no_playable_card': only with no playable card at all (the Uno and Mau-Mau sheet); "
        "'no_playable_number_card': with no playable number card (action cards and wilds do not "
        "count: the Uno wiki)",
        codes=O.WD4_LEGAL_WHEN,
        slot=L.SP_WD4_LEGAL_WHEN,
    )
    wd4_bluff: str = _rule(
        "challenge",
        "U-WD4-2",
        "an illegal Wild Draw Four (a bluff): 'challenge': may be played, and its victim may "
        "challenge it; 'unpunished': may be played and stands, no challenge; 'refused': is not offered",
        codes=O.WD4_BLUFF,
        slot=L.SP_WD4_MODE,
        features=(O.RESTRICTS_PLAY,),
        plain=("challenge", "unpunished"),
    )
    challenge_penalty: int = _rule(
        2,
        "U-WD4-2",
        "extra cards a failed challenger draws on top of the 4 (M-CHAL-1)",
        bounds=(0, 20),
        slot=L.SP_CHALLENGE_PENALTY,
    )
    challenge_colour: str = _rule(
        "annulled",
        "U-WD4-2",
        "after a successful challenge the named colour: 'annulled': no longer holds; 'stands': still holds",
        codes=O.CHALLENGE_COLOUR,
        slot=L.SP_CHALLENGE_COLOUR_STANDS,
    )
    call: str = _rule(
        "uno",
        "U-UNO-1",
        "'uno': call before playing your second-to-last card (U-UNO-1, MC-CALL-1); "
        "'mau_mau': call any time, false calls cost (MM-CALL-1); 'none': no call",
        codes=O.CALL,
        slot=L.SP_CALL_RULE,
        features=(O.STAGED,),
        plain=("uno", "none"),
    )
    uno_penalty: int = _rule(
        2, "U-UNO-1", "cards drawn when a missed call is caught", bounds=(0, 20), slot=L.SP_UNO_PENALTY
    )
    uno_catch: float = _rule(
        1.0,
        "U-UNO-1",
        "probability that a missed call is caught (a reflex)",
        bounds=(0.0, 1.0),
        slot=L.SP_UNO_CATCH_PPM,
        scale=1_000_000,
    )
    false_call_penalty: int = _rule(
        5,
        "MM-CALL-1",
        "cards drawn for a false call or a false accusation",
        bounds=(0, 20),
        slot=L.SP_FALSE_CALL_PENALTY,
    )
    false_accusation: float = _rule(
        0.0,
        "MM-CALL-1",
        "probability that someone falsely accuses a player who called correctly",
        bounds=(0.0, 1.0),
        slot=L.SP_FALSE_ACCUSE_PPM,
        scale=1_000_000,
    )
    last_card_draw: bool = _rule(
        True,
        "U-END-1",
        "a draw penalty sent by the last card is still drawn (by the next player, or by the previous "
        "one for a 'previous player draws' card such as MM-NINE-1's 9)",
        slot=L.SP_LAST_CARD_DRAW,
    )
    # ---- house rules (H-*)
    stacking: tuple[str, ...] = _rule(
        (),
        "H-STACK-1",
        "'CARD/ON' pairs: a penalty card of rank CARD answers a pending penalty raised by rank "
        "ON (Uno: D2, WD4; French: ranks such as 7, 2, 3, 4, JKB, JKR, K)",
        features=(O.STAGED,),
    )
    stack_growth: str = _rule(
        "add",
        "MD-SEVEN-1",
        "a stacked penalty: 'add': grows by the card's amount; 'double': doubles",
        codes=O.STACK_GROWTH,
        slot=L.SP_STACK_DOUBLE,
    )
    must_answer: bool = _rule(
        False,
        "MD-SEVEN-1",
        "a player holding a card that answers the pending penalty must lay one; only a player "
        "without one takes the penalty",
        slot=L.declare_spec_slot("SP_MUST_ANSWER", 49),
    )
    reverse_reflects: bool = _rule(
        False,
        "H-REFLECT-1",
        "a Reverse sends a pending draw penalty back to its sender",
        slot=L.SP_REVERSE_REFLECTS,
        features=(O.STAGED,),
    )
    seven_swap: bool = _rule(
        False,
        "H-SEVEN-1",
        "playing a 7 swaps hands with a chosen player",
        slot=L.SP_SEVEN_SWAP,
        features=(O.STAGED, O.NUMBER_EFFECT, O.UNO_DECK_ONLY),
    )
    zero_rule: str = _rule(
        "none",
        "H-ZERO-1",
        "playing a 0: 'rotate': every hand passes to the next player in the direction of play; "
        "'swap_optional': swaps hands with a chosen player, or not; 'swap': swaps hands with a chosen "
        "player; 'discard_colour': discards every card of its colour; 'none': nothing more",
        codes=O.ZERO_RULE,
        slot=L.SP_ZERO_RULE,
        features=(O.STAGED, O.NUMBER_EFFECT, O.UNO_DECK_ONLY),
    )
    zero_rule_rank: int = _rule(
        0,
        "H-ZERO-1",
        "the number that carries the zero rule (1: the Uno wiki's 'rule of the 1')",
        bounds=(0, 1),
        slot=L.SP_ZERO_RANK,
    )
    jump_in: bool = _rule(
        False,
        "H-JUMP-1",
        "a player holding the identical card may play it out of turn",
        slot=L.SP_JUMP_IN,
        features=(O.STAGED,),
    )
    multi_play: str = _rule(
        "none",
        "H-MULTI-1",
        "several cards in one play: 'none': never; 'identical': identical cards (H-MULTI-1); "
        "'same_rank': cards of one rank (H-MULTI-2, MC-TURN-1)",
        codes=O.MULTI_PLAY,
        slot=L.SP_MULTI,
        features=(O.STAGED,),
    )
    runs: bool = _rule(
        False,
        "H-SEQ-1",
        "a run of same-colour numbers up or down in one play",
        slot=L.SP_RUNS,
        features=(O.STAGED,),
    )
    multi_leave_one: bool = _rule(
        False,
        "H-LASTONE-1",
        "a play of several cards (or a 0's colour discard, a 2's gifts) must leave one card in hand",
        slot=L.SP_LEAVE_ONE,
    )
    eight_again: bool = _rule(
        False,
        "H-EIGHT-1",
        "playing an 8 gives another turn",
        slot=L.SP_EIGHT_AGAIN,
        features=(O.STAGED, O.UNO_DECK_ONLY),
    )
    two_gives: bool = _rule(
        False,
        "H-TWO-1",
        "playing a 2 gives two of your cards to a chosen player",
        slot=L.SP_TWO_GIVES,
        features=(O.STAGED, O.NUMBER_EFFECT, O.UNO_DECK_ONLY),
    )
    no_finish_on_action: bool = _rule(
        False,
        "H-NOFINISH-1",
        "the last card may not be an action or wild card",
        slot=L.SP_NO_FINISH_ACTION,
        features=(O.RESTRICTS_PLAY,),
    )
    action_same_symbol: bool = _rule(
        False,
        "H-ACTION-1",
        "an action card goes on an action card only with the same symbol",
        slot=L.SP_ACTION_SAME_SYMBOL,
        features=(O.RESTRICTS_PLAY,),
    )
    react_nine: bool = _rule(
        False,
        "H-REACT-1",
        "a 9: a random player (the slowest hand) draws",
        slot=L.SP_REACT_NINE,
        features=(O.STAGED, O.NUMBER_EFFECT, O.UNO_DECK_ONLY),
    )
    react_seven: bool = _rule(
        False,
        "H-REACT-1",
        "a 7: a random player (who broke the silence) draws",
        slot=L.SP_REACT_SEVEN,
        features=(O.STAGED, O.NUMBER_EFFECT, O.UNO_DECK_ONLY),
    )
    react_penalty: int = _rule(
        2,
        "H-REACT-1",
        "cards drawn for a reflex penalty (for the 9: per 9 laid)",
        bounds=(1, 20),
        slot=L.SP_REACT_PENALTY,
    )
    zero_reveals: bool = _rule(
        False,
        "H-ZEROSEE-1",
        "playing a 0 shows the player the other hands, unless blocked by a 0",
        slot=L.SP_ZERO_REVEALS,
        features=(O.STAGED, O.NUMBER_EFFECT, O.UNO_DECK_ONLY),
    )
    cube: bool = _rule(
        False,
        "H-CUBE-1",
        "the Uno cube: roll the action and target dice at UNO or 10 cards",
        slot=L.SP_CUBE,
        features=(O.UNO_DECK_ONLY,),
    )
    # ---- the end and scoring
    end: str = _rule(
        "first_out",
        "MC-END-1",
        "'first_out': the first empty hand ends the round; 'last_player': play on until one "
        "player holds cards, ranked by leaving order (MC-END-1)",
        codes=O.END,
        slot=L.SP_END_RULE,
        features=(O.STAGED,),
    )
    round_score: str = _rule(
        "winner_takes",
        "U-SCORE-1",
        "'winner_takes': the winner takes the points left in the other hands (U-SCORE-1); 'own_points': each "
        "player scores the points left in their own hand, lower is better (MM-SCORE-1)",
        codes=O.ROUND_SCORE,
        slot=L.SP_ROUND_SCORE,
    )
    ace_points: int = _rule(1, "MM-SCORE-1", "points of an Ace left in hand (French deck)", bounds=(0, 50))
    match: str = _rule(
        "single_round",
        "U-SCORE-2",
        "'single_round': a game is one round (U-SCORE-1); 'first_to_target': rounds until a "
        "player's winnings reach the target (U-SCORE-2); 'lowest_total': rounds until a "
        "player's own hand points reach it, lowest total wins (U-SCORE-3)",
        codes=O.MATCH,
        slot=L.SP_MATCH,
    )
    target: int = _rule(500, "U-SCORE-2", "points that end a match", bounds=(1, 100_000), slot=L.SP_TARGET)
    max_decisions: int = _rule(
        10_000,
        "E-END-1",
        "decisions after which a game is truncated",
        bounds=(10, 10_000_000),
        slot=L.SP_MAX_DECISIONS,
    )

    # ------------------------------------------------------------ validation
    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "tuple[str, ...]" and isinstance(value, list):
                object.__setattr__(self, f.name, tuple(value))  # TOML gives lists
            elif f.type == "float" and isinstance(value, int) and not isinstance(value, bool):
                object.__setattr__(self, f.name, float(value))  # one canonical form
            _check_value(f, getattr(self, f.name))
            if f.type == "tuple[str, ...]":
                for entry in getattr(self, f.name):
                    _check_token(f.name, entry)
        if self.wild_not_on:
            _check_token("wild_not_on", self.wild_not_on)
        if self.min_players > self.max_players:
            raise RuleError(f"min_players={self.min_players} is larger than max_players={self.max_players}")
        uno = self.deck == "uno"
        if not uno and (self.super_stars or self.custom_wilds):
            raise RuleError("super_stars and custom_wilds (U-DECK-2) need deck='uno'")
        if uno and self.jokers:
            raise RuleError("jokers (MC-OPT-1) need deck='french'")
        if not uno and self.dealer == "draw":
            raise RuleError("dealer='draw' (U-SETUP-2) needs deck='uno'; use dealer='random'")
        house_numbers = self.rules_with(O.UNO_DECK_ONLY)
        if not uno and house_numbers:
            raise RuleError(f"{', '.join(house_numbers)} (Uno house rules) need deck='uno'")
        if self.match == "first_to_target" and self.round_score != "winner_takes":
            raise RuleError("match='first_to_target' (U-SCORE-2) needs round_score='winner_takes'")
        if self.end == "last_player" and self.match != "single_round":
            raise RuleError("end='last_player' (MC-END-1) plays a single round: set match='single_round'")
        self.effect_table()  # validates card_effects
        self.stack_pairs()  # validates stacking
        if not self.start_faces():
            raise RuleError(
                f"impossible rule set: start_card={self.start_card!r} replaces a starting card that "
                "has an effect (U-START-2, MC-START-1), but every card of the deck has an effect "
                "(card_effects); leave a rank without an effect, or choose start_card 'official' "
                "or 'first_discard'"
                if self.start_card == "number_only"
                else f"impossible rule set: start_card={self.start_card!r} replaces a Wild Draw Four "
                "or a card without a suit (U-START-1), and the deck holds no other card; give cards "
                "other effects (card_effects)"
            )
        if self.wild_not_on:
            self._rank_index(self.wild_not_on, "wild_not_on")
        for n in range(self.min_players, self.max_players + 1):
            if self.deck_size(n) > L.MAX_CARDS:
                raise RuleError(
                    f"impossible rule set: {n} players get {self.deck_copies(n)} decks, "
                    f"{self.deck_size(n)} cards, but a game holds at most {L.MAX_CARDS}; lower decks "
                    "or extra_deck_above"
                )
        # U-SETUP-1 at every player count: the deck grows in steps (extra_deck_above), so a
        # count between min_players and max_players can be the one that runs short
        counts = range(self.min_players, self.max_players + 1)
        for n in counts:
            need = n * self.hand_size + 1
            if need > self.deck_size(n):
                largest = min((self.deck_size(m) - 1) // m for m in counts)
                raise RuleError(
                    f"impossible rule set: {n} players x hand_size={self.hand_size} needs {need} "
                    f"cards with the starting card, but the deck has {self.deck_size(n)} at {n} "
                    f"players (decks={self.decks}, extra_deck_above={self.extra_deck_above}); every "
                    f"count in min_players..max_players={self.min_players}..{self.max_players} "
                    f"allows hand_size at most {largest}; lower hand_size, add decks or narrow "
                    "the player range (min_players, max_players)"
                )

    def rules_with(self, feature: str) -> list[str]:
        """The fields that carry ``feature`` (:data:`uno_env.engine.options.FEATURES`) and are set to a
        value outside their plain ones, in field order (computed from the field metadata)."""
        return [
            f.name
            for f in dataclasses.fields(self)
            if feature in f.metadata["features"] and getattr(self, f.name) not in f.metadata["plain"]
        ]

    def check_players(self, num_players: int) -> None:
        """Raise :class:`RuleError` unless ``num_players`` can play this variant."""
        if not isinstance(num_players, (int, np.integer)) or isinstance(num_players, bool):
            raise RuleError(f"num_players must be an int, got {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            raise RuleError(
                f"num_players={num_players} is outside this variant's range "
                f"{self.min_players}..{self.max_players}; choose a player count in that range, or widen "
                f"the range with the rule fields min_players and max_players (at most {L.MAX_PLAYERS}), "
                "e.g. load_rules(rules, max_players=N), max_players = N in a rule file, or "
                "--set max_players=N on the command line"
            )

    @property
    def call_name(self) -> str:
        """The word a player calls before their last card: "UNO" (U-UNO-1), "Macao" (the same
        call on a French deck, MC-CALL-1), "Mau-Mau" (MM-CALL-1); "" without a call."""
        if self.call == "mau_mau":
            return "Mau-Mau"
        if self.call == "uno":
            return "UNO" if self.deck == "uno" else "Macao"
        return ""

    # ------------------------------------------------------------ deck
    @property
    def deck_family(self) -> cards.DeckFamily:
        """``"uno"`` or ``"french"``: decides the card notation and the action table."""
        return "uno" if self.deck == "uno" else "french"

    @property
    def num_faces(self) -> int:
        """Number of card faces (and of play actions) of the deck family."""
        return cards.NUM_FACES[self.deck_family]

    @property
    def num_actions(self) -> int:
        """Size of the flat action table of the deck family."""
        return self.num_faces + L.NUM_NONFACE_ACTIONS

    def deck_copies(self, num_players: int) -> int:
        """Copies of the base deck in a game of ``num_players`` (MM-DECK-1, MD-DECK-1)."""
        extra = 1 if self.extra_deck_above and num_players > self.extra_deck_above else 0
        return self.decks + extra

    def deck_counts(self, num_players: int) -> np.ndarray:
        """Copies of each face in a game of ``num_players`` (U-DECK-1/2, MM/MD/MC-DECK-1)."""
        counts = np.zeros(L.MAX_FACES, dtype=np.int64)
        if self.deck == "uno":
            for colour in range(4):
                base = colour * 13
                counts[base] = 1  # one 0 per colour
                counts[base + 1 : base + 13] = 2  # two each of 1-9, Skip, Reverse, Draw Two
            counts[cards.WILD] = 4
            counts[cards.WILD_DRAW_FOUR] = 4
            counts[cards.SUPER_STAR] = self.super_stars
            counts[cards.CUSTOM_WILD] = self.custom_wilds
        else:
            counts[:52] = 1
            if self.jokers:
                counts[cards.BLACK_JOKER] = counts[cards.RED_JOKER] = 1
        return counts * self.deck_copies(num_players)

    def deck_size(self, num_players: int) -> int:
        """Number of cards in a game of ``num_players``."""
        return int(self.deck_counts(num_players).sum())

    # ------------------------------------------------------------ card effects
    def _rank_index(self, token: str, where: str, entry: str | None = None) -> int:
        ranks = cards.RANK_TOKENS[self.deck_family]
        if token.upper() in ranks:
            return ranks.index(token.upper())
        context = f"{entry!r}: " if entry is not None and entry != token else ""
        raise RuleError(
            f"rule {where}: {context}{token!r} is not a rank of the {self.deck} deck; "
            f"ranks: {', '.join(ranks)}"
        )

    def effect_table(self) -> list[tuple[int, int]]:
        """(effect code, amount) of every face after applying :attr:`card_effects`."""
        nf = self.num_faces
        table = _default_effects(self.deck_family)
        ranks = [_face_rank(f, self.deck_family) for f in range(nf)]
        given: dict[tuple[str, int], str] = {}  # ("rank" | "card", index) -> the entry that set it
        for entry in self.card_effects:
            parts = entry.split(":")
            if len(parts) not in (2, 3):
                raise RuleError(
                    f"rule card_effects: {entry!r} must be 'RANK:effect' or 'RANK:effect:n' "
                    "(e.g. 'A:skip', '7:draw:2')"
                )
            key, word = parts[0].strip(), parts[1].strip().lower()
            if word not in EFFECT_WORDS:
                raise RuleError(
                    f"rule card_effects: unknown effect {word!r} in {entry!r}; "
                    f"effects: {', '.join(EFFECT_WORDS)}"
                )
            code = L.EFFECT_NAMES.index(word)
            needs_amount = code in AMOUNT_EFFECTS
            if needs_amount != (len(parts) == 3):
                raise RuleError(
                    f"rule card_effects: {entry!r}: effect {word!r} "
                    + ("needs an amount, e.g. 'draw:2'" if needs_amount else "takes no amount")
                )
            amount = 0
            if needs_amount:
                if not _ASCII_INT.fullmatch(parts[2]) or not 1 <= int(parts[2]) <= 20:
                    raise RuleError(f"rule card_effects: {entry!r}: the amount must be 1..20")
                amount = int(parts[2])
            try:
                faces = [cards.parse_face(key, self.deck_family)]
                target = ("card", faces[0])
            except cards.CardNotationError:
                rank = self._rank_index(key, "card_effects", entry)
                faces = [f for f in range(nf) if ranks[f] == rank]
                target = ("rank", rank)
            if target in given:
                raise RuleError(
                    f"rule card_effects: {files.describe(entry)} gives {key} an effect again (after "
                    f"{files.describe(given[target])}); allowed: one entry per rank or card"
                )
            replaced = [given[("card", f)] for f in faces if ("card", f) in given]
            if replaced:
                raise RuleError(
                    f"rule card_effects: {files.describe(entry)} would replace {files.describe(replaced[0])} "
                    "given before it; allowed: a rank's entry before the entries of its cards (which "
                    "then override it)"
                )
            given[target] = entry
            for face in faces:
                table[face] = (code, amount)
        return table

    def start_faces(self) -> list[int]:
        """The faces of the deck that may start the discard pile, the others being replaced
        (U-START-1: not a Wild Draw Four; U-START-2, MC-START-1: with ``start_card =
        "number_only"`` only cards without an effect; never a card without a suit that names
        none, such as a joker). The engine's ``start_refused`` is the same test."""
        counts = self.deck_counts(self.min_players)
        faces = []
        for face, (effect, _) in enumerate(self.effect_table()):
            rank = _face_rank(face, self.deck_family)
            number = effect == L.EF_NONE and (self.deck_family == "french" or rank < 10)
            names_colour = effect in (L.EF_WILD, L.EF_CHOOSE_SUIT, L.EF_STAR)
            refused = (
                (self.start_card == "official" and effect == L.EF_WILD_DRAW)
                or (self.start_card == "number_only" and not number)
                or (face >= 52 and not names_colour)
            )
            if counts[face] > 0 and not refused:
                faces.append(face)
        return faces

    @property
    def has_star_cards(self) -> bool:
        """Whether the deck holds a card with the Super Star effect (M-STAR-1): the printed Super
        Stars (``super_stars``) unless ``card_effects`` gave them another effect, and any card
        ``card_effects`` made a star (the customizable card, say). Such a card may answer a
        pending draw penalty, so every one is offered to its victim."""
        counts = self.deck_counts(self.min_players)
        return any(
            effect == L.EF_STAR and counts[face] > 0 for face, (effect, _) in enumerate(self.effect_table())
        )

    def stack_pairs(self) -> list[tuple[int, int]]:
        """(answering rank, answered rank) pairs of :attr:`stacking` (H-STACK-1); a pair given
        twice is refused, as a rank given two effects in ``card_effects`` is (the rule set would
        play as with one, yet compare and print as another)."""
        pairs: list[tuple[int, int]] = []
        given: dict[tuple[int, int], str] = {}
        for entry in self.stacking:
            card, sep, on = entry.partition("/")
            if not sep:
                raise RuleError(f"rule stacking: {entry!r} must be 'CARD/ON', e.g. 'D2/D2' or '7/7'")
            pair = (
                self._rank_index(card.strip(), "stacking", entry),
                self._rank_index(on.strip(), "stacking", entry),
            )
            if pair in given:
                raise RuleError(
                    f"rule stacking (H-STACK-1): {files.describe(entry)} repeats the pair "
                    f"{files.describe(given[pair])}; allowed: each CARD/ON pair once"
                )
            given[pair] = entry
            pairs.append(pair)
        return pairs

    # ------------------------------------------------------------ text forms
    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain dict (TOML-ready: tuples become lists)."""
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "rules") -> RuleSet:
        """Build from a mapping; ``preset = "name"`` picks the base, other keys override it.

        Unknown keys raise :class:`RuleError` listing the valid ones.
        """
        data = dict(data)
        base_name = data.pop("preset", None)
        if base_name is not None and not isinstance(base_name, str):
            raise RuleError(f"{source}: preset must be a preset name, got {base_name!r}")
        try:
            base = preset(base_name) if base_name is not None else cls()
            return base.with_overrides(data, source=source)
        except RuleError as exc:
            if str(exc).startswith(source):
                raise
            raise RuleError(f"{source}: {exc}") from None

    def with_overrides(self, overrides: Mapping[str, Any], *, source: str = "rules") -> RuleSet:
        """Return a copy with the given fields replaced, each validated."""
        valid = [f.name for f in dataclasses.fields(self)]
        unknown = sorted(set(overrides) - set(valid))
        if unknown:
            raise RuleError(
                f"{source}: unknown rule key(s) {each_with_suggestion(unknown, valid)}; valid keys: "
                f"{', '.join(valid)}"
            )
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items()}
        return dataclasses.replace(self, **values)

    @classmethod
    def from_toml(cls, path: str | Path) -> RuleSet:
        """Load a rule file: top-level keys, optionally ``preset = "name"`` as the base.

        The file is read through :mod:`uno_env.files`: a regular file (not a FIFO or device,
        also through a link) of at most :data:`RULE_FILE_LIMIT` bytes, UTF-8 TOML without
        integers too long or nesting too deep; every failure is one :class:`RuleError` line.
        """
        text = files.read_text(path, "rule file", RULE_FILE_LIMIT, error=RuleError)
        return cls.from_toml_string(text, source=f"rule file {path}")

    @classmethod
    def from_toml_string(cls, text: str, *, source: str = "rules") -> RuleSet:
        """Parse rule-file text (see :meth:`from_toml`)."""
        data = files.parse_toml(text, source, error=RuleError)
        version = data.pop("format", RULES_FORMAT)
        if version != RULES_FORMAT:
            raise RuleError(f"{source}: format={version!r} is not supported; expected {RULES_FORMAT!r}")
        return cls.from_dict(data, source=source)

    def to_toml(self) -> str:
        """Every field as TOML text; :meth:`from_toml_string` reads it back equal."""
        return tomli_w.dumps({"format": RULES_FORMAT, **self.to_dict()})

    def __str__(self) -> str:
        """The canonical one-line form: ``preset=NAME`` and the fields that differ from that
        preset (``preset=uno seven_swap=true``), read back by :meth:`parse`.

        The preset is the one this rule set differs from in the fewest fields (ties: the first
        in :data:`PRESETS`), so a field added later at its default leaves the text of every
        existing rule set, record and golden transcript unchanged. :meth:`full_text` writes
        every field.
        """
        if not globals().get("PRESETS"):  # while the presets themselves are built
            return self.full_text()
        return _one_line(self)

    def full_text(self) -> str:
        """Every field as ``name=value`` (the one-line form before rule sets named their preset;
        :meth:`parse` reads it too)."""
        return " ".join(f"{f.name}={_field_text(getattr(self, f.name))}" for f in dataclasses.fields(self))

    def _changed_fields(self, other: RuleSet) -> list[dataclasses.Field[Any]]:
        return [f for f in dataclasses.fields(self) if getattr(self, f.name) != getattr(other, f.name)]

    def differences(self, other: RuleSet) -> list[str]:
        """The fields in which this rule set differs from ``other``, compared as values, as
        ``name=ours (other: theirs)``; empty when they are equal."""
        return [
            f"{f.name}={_field_text(getattr(self, f.name)) or 'empty'} "
            f"(other: {_field_text(getattr(other, f.name)) or 'empty'})"
            for f in self._changed_fields(other)
        ]

    @classmethod
    def parse(cls, text: str) -> RuleSet:
        """Read back the canonical one-line form produced by ``str(rules)``: ``preset=NAME``
        and the fields that differ from it, or (the form written before) every field, the
        fields it does not name at their defaults."""
        types = {f.name: f.type for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        base_name: str | None = None
        for part in text.split():
            key, sep, raw = part.partition("=")
            if not sep:
                raise RuleError(f"malformed rule string item {part!r}: expected key=value")
            if key in values or (key == "preset" and base_name is not None):
                raise RuleError(f"rule string names {key!r} twice")
            if key == "preset":
                base_name = raw
                continue
            kind = types.get(key)
            if kind == "bool":
                if raw not in ("true", "false"):
                    raise RuleError(f"rule {key} must be true or false, got {files.describe(raw)}")
                values[key] = raw == "true"
            elif kind == "int":
                values[key] = _parse_number(key, raw, int)
            elif kind == "float":
                values[key] = _parse_number(key, raw, float)
            elif kind == "tuple[str, ...]":
                values[key] = tuple(x for x in raw.split(",") if x)
            else:
                values[key] = raw
        base = preset(base_name) if base_name is not None else cls()
        return base.with_overrides(values, source="rule string")

    def preset_name(self) -> str | None:
        """The name of the preset equal to this rule set, if any."""
        for name, rules in PRESETS.items():
            if rules == self:
                return name
        return None


@lru_cache(maxsize=1024)
def _one_line(rules: RuleSet) -> str:
    """``str(rules)`` (cached: rule sets are values)."""
    name, base = min(PRESETS.items(), key=lambda item: len(rules._changed_fields(item[1])))
    changed = [f"{f.name}={_field_text(getattr(rules, f.name))}" for f in rules._changed_fields(base)]
    return " ".join([f"preset={name}", *changed])


def _field_text(value: Any) -> str:
    """A field's value in the one-line form (``true``, ``D2/D2,WD4/WD4``, ``0.5``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


# numbers in rule strings: ASCII digits only (Python's int() and float() also take other
# scripts' digits, superscripts' neighbours and underscores, which str(rules) never writes)
_ASCII_INT = re.compile(r"[+-]?[0-9]+")
_ASCII_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _parse_number(key: str, raw: str, kind: type) -> Any:
    pattern = _ASCII_INT if kind is int else _ASCII_FLOAT
    what = "an integer" if kind is int else "a decimal number"
    if not pattern.fullmatch(raw):
        raise RuleError(
            f"rule {key} must be a number, got {files.describe(raw)}; write {what} in ASCII digits"
        )
    if len(raw) > files.NUMBER_DIGITS:
        raise RuleError(
            f"rule {key} must be {what} of at most {files.NUMBER_DIGITS} characters, got one of {len(raw):,}"
        )
    return kind(raw)


def _check_token(name: str, entry: str) -> None:
    """Entries of list rules (and ``wild_not_on``) are ASCII with no spaces or commas, so that
    ``str(rules)`` (space-separated items, comma-separated lists) always parses back."""
    if not entry or not entry.isascii() or "," in entry or any(c.isspace() for c in entry):
        raise RuleError(
            f"rule {name}: {entry!r} must be a non-empty ASCII token without spaces or commas, "
            f"e.g. {_TOKEN_EXAMPLES[name]}"
        )


_TOKEN_EXAMPLES = {
    "stacking": "'D2/D2' or '7/7'",
    "card_effects": "'A:skip' or '7:draw:2'",
    "wild_not_on": "'7'",
}


def _check_value(f: dataclasses.Field[Any], value: Any) -> None:
    meta = f.metadata
    where = f"rule {f.name} ({meta['rule']})"
    if f.type == "bool":
        if not isinstance(value, bool):
            raise RuleError(f"{where} must be true or false, got {files.describe(value)}")
        return
    if f.type in ("int", "float"):
        numeric = (int,) if f.type == "int" else (int, float)
        lo, hi = meta["bounds"]
        if isinstance(value, bool) or not isinstance(value, numeric):
            kind = "an integer" if f.type == "int" else "a number"
            raise RuleError(f"{where} must be {kind} between {lo} and {hi}, got {files.describe(value)}")
        if not lo <= value <= hi:
            raise RuleError(f"{where} must be between {lo} and {hi}, got {files.describe(value)}")
        return
    if f.type == "tuple[str, ...]":
        if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
            raise RuleError(f"{where} must be a list of strings, got {files.describe(value)}")
        return
    choices = meta["choices"]
    if choices is None:
        if not isinstance(value, str):
            raise RuleError(f"{where} must be a string, got {files.describe(value)}")
        return
    if value not in choices:
        raise RuleError(
            f"{where} must be one of {', '.join(repr(c) for c in choices)}, got {files.describe(value)}"
        )


def format_rule_value(value: Any) -> str:
    """A field value as a rule file writes it: ``true``, ``2``, ``"uno"``, ``["D2/D2"]``, ``[]``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(f'"{v}"' for v in value) + "]"
    return str(value)


def _allowed_text(f: dataclasses.Field[Any]) -> tuple[str, str]:
    """A field's type and its allowed values in words: ``("integer", "integer 0..10")``,
    ``("boolean", "true | false")``, ``("choice", 'one of "uno" | "french"')``."""
    meta = f.metadata
    if f.type == "bool":
        return "boolean", "true | false"
    if f.type in ("int", "float"):
        lo, hi = meta["bounds"]
        kind = "integer" if f.type == "int" else "number"
        return kind, f"{kind} {lo}..{hi}"
    if f.type == "tuple[str, ...]":
        return "list", "list of strings"
    if meta["choices"]:
        return "choice", "one of " + " | ".join(f'"{c}"' for c in meta["choices"])
    return "string", "string"


def rule_fields() -> list[dict[str, Any]]:
    """Describe every field: name, rule ID, type, default and allowed values (as a rule file
    writes them), documentation; ``choices`` / ``bounds`` hold the raw limits."""
    out = []
    for f in dataclasses.fields(RuleSet):
        meta = f.metadata
        kind, allowed = _allowed_text(f)
        out.append(
            {
                "name": f.name,
                "rule": meta["rule"],
                "type": kind,
                "default": format_rule_value(f.default),
                "allowed": allowed,
                "choices": meta["choices"],
                "bounds": meta["bounds"],
                "doc": meta["doc"],
            }
        )
    return out


# ---------------------------------------------------------------- ranks and default effects
def _face_rank(face: int, deck: cards.DeckFamily) -> int:
    """The rank index of a face: its symbol for U-MATCH-1 / MM-MATCH-1 and the stack table."""
    if face < 52:
        return face % 13
    if deck == "uno":
        return {cards.WILD: 13, cards.WILD_DRAW_FOUR: 14, cards.SUPER_STAR: 15, cards.CUSTOM_WILD: 13}[face]
    return 13 if face == cards.BLACK_JOKER else 14


def _default_effects(deck: cards.DeckFamily) -> list[tuple[int, int]]:
    """Official Uno effects (U-SKIP-1, U-REV-1, U-D2-1, U-WILD-1, U-WD4-1, M-STAR-1); none for French."""
    table = [(L.EF_NONE, 0)] * cards.NUM_FACES[deck]
    if deck == "uno":
        for colour in range(4):
            table[colour * 13 + cards.SKIP] = (L.EF_SKIP, 0)
            table[colour * 13 + cards.REVERSE] = (L.EF_REVERSE, 0)
            table[colour * 13 + cards.DRAW_TWO] = (L.EF_DRAW, 2)
        table[cards.WILD] = (L.EF_WILD, 0)
        table[cards.CUSTOM_WILD] = (L.EF_WILD, 0)  # U-DECK-2: plays as a plain Wild
        table[cards.WILD_DRAW_FOUR] = (L.EF_WILD_DRAW, 4)
        table[cards.SUPER_STAR] = (L.EF_STAR, 0)
    return table


# ---------------------------------------------------------------- presets
HOUSE_STACKING = ("D2/D2", "WD4/WD4", "WD4/D2")  # H-STACK-1 default table
# MC-DRAW-1: "2, 3, or an enabled joker or king" answer one another. The jokers' and kings'
# pairs are inert until MC-OPT-1 gives those cards a draw effect (only penalty cards stack).
MACAO_DRAW_RANKS = ("2", "3", "K", "JKB", "JKR")
MACAO_EFFECTS = ("A:choose_suit", "2:draw:2", "3:draw:3", "4:sit_out:1", "JKB:draw:5", "JKR:draw:10")
MACAO_KINGS = ("KH:draw:5", "KS:previous_draws:5")  # MC-OPT-1 kings


def _make_presets() -> dict[str, RuleSet]:
    uno = RuleSet()  # the official parts of the Uno sources; Mattel's reading where they disagree
    return {
        "uno": uno,
        # H-STACK-1, H-SEVEN-1, H-ZERO-1, H-JUMP-1: the house rules most tables play
        "uno_house": dataclasses.replace(
            uno, stacking=HOUSE_STACKING, seven_swap=True, zero_rule="rotate", jump_in=True
        ),
        # U-DECK-2, M-STAR-1, M-CHAL-1, M-SCORE-1
        "uno_mario": dataclasses.replace(uno, super_stars=4, custom_wilds=4),
        # MM-*: 2 decks, 4-8 players, 5 cards
        "mau_mau": RuleSet(
            deck="french",
            decks=2,
            min_players=4,
            max_players=8,
            hand_size=5,
            dealer="random",
            start_card="first_discard",
            draw="one_then_any",
            card_effects=("A:skip", "Q:reverse", "J:wild", "7:draw:2", "9:previous_draws:1"),
            # MM-QUEEN-1: the Queen only reverses; at two players (min_players lowered) the
            # opponent plays next. Acting as a Skip is U-REV-1's reading of the Uno Reverse
            reverse_with_two="reverse",
            wild_not_on="7",
            stacking=("7/7",),
            call="mau_mau",
            uno_penalty=5,
            last_card_draw=False,
            round_score="own_points",
        ),
        # MD-*: one deck up to 4 players, two above; 7 cards
        "mau_mau_doubling": RuleSet(
            deck="french",
            extra_deck_above=4,
            min_players=2,
            max_players=8,
            hand_size=7,
            dealer="random",
            draw="one_then_pass",
            draw_when_playable=False,
            card_effects=("A:skip", "7:draw:3", "9:previous_draws:1", "J:wild"),
            stacking=("7/7",),
            stack_growth="double",
            must_answer=True,
            call="none",
            last_card_draw=False,
            round_score="own_points",
        ),
        # MC-*: Romanian Macao, play on until one player is left
        "macao": RuleSet(
            deck="french",
            min_players=2,
            max_players=8,
            hand_size=5,
            dealer="random",
            start_card="number_only",
            draw="one_then_pass",
            draw_when_playable=False,
            card_effects=MACAO_EFFECTS,
            stacking=(*(f"{a}/{b}" for a in MACAO_DRAW_RANKS for b in MACAO_DRAW_RANKS), "4/4"),
            multi_play="same_rank",
            uno_penalty=5,
            last_card_draw=False,
            end="last_player",
        ),
    }


PRESETS: dict[str, RuleSet] = _make_presets()


def preset(name: str) -> RuleSet:
    """The rule set of a named preset; an unknown name lists the valid ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RuleError(
            f"unknown preset {name!r}{suggestion(str(name), PRESETS)}; available: {', '.join(PRESETS)}"
        ) from None


def _names_file(text: str) -> bool:
    """Whether a ``rules`` string is a rule file's path rather than a preset name: it ends in
    ``.toml`` (any case), holds a folder separator, or names something that exists: a file, a
    folder, a FIFO, a link (even a broken one). A rule file named without the suffix is read as
    TOML, and anything else there is refused as what it is (a folder, a link loop), where
    "unknown preset" would mislead."""
    if text.lower().endswith(".toml") or "/" in text or os.sep in text:
        return True
    try:
        path = Path(text)
        return path.exists() or path.is_symlink()
    except (OSError, ValueError):  # a name no file system accepts (a NUL byte, too long)
        return False


def load_rules(rules: RuleSet | str | Path = "uno", **overrides: Any) -> RuleSet:
    """Resolve a preset name, a TOML path or a RuleSet, then apply keyword overrides."""
    if isinstance(rules, RuleSet):
        base = rules
    elif isinstance(rules, Path) or (isinstance(rules, str) and rules not in PRESETS and _names_file(rules)):
        base = RuleSet.from_toml(rules)
    elif isinstance(rules, str):
        base = preset(rules)
    else:
        raise RuleError(
            f"rules must be a preset name ({', '.join(PRESETS)}), a .toml path or a RuleSet, got {rules!r}"
        )
    return base.with_overrides(overrides) if overrides else base


# ---------------------------------------------------------------- compiled form
@lru_cache(maxsize=256)
def compile_spec(rules: RuleSet) -> np.ndarray:
    """The flat int64 array of parameters and face tables the engine reads (read-only)."""
    spec = np.zeros(L.SPEC_SIZE, dtype=np.int64)
    for f in dataclasses.fields(rules):  # every rule with a slot: its option code, flag or number
        slot = f.metadata["slot"]
        if slot is not None:
            value = getattr(rules, f.name)
            codes = f.metadata["codes"]
            spec[slot] = codes[value] if codes is not None else round(value * f.metadata["scale"])
    spec[L.SP_NUM_FACES] = rules.num_faces
    spec[L.SP_NUM_ACTIONS] = rules.num_actions
    spec[L.SP_WILD_NOT_ON] = rules._rank_index(rules.wild_not_on, "wild_not_on") if rules.wild_not_on else -1
    # the fast-path flags, from the fields' declared features
    spec[L.SP_NUMBER_EFFECTS] = bool(rules.rules_with(O.NUMBER_EFFECT))
    spec[L.SP_HAS_STAR] = rules.has_star_cards
    spec[L.SP_PLAIN_PLAYS] = plain_plays(rules)
    spec[L.SP_PLAIN_MATCHING] = not rules.rules_with(O.RESTRICTS_PLAY)
    _face_tables(spec, rules)
    for card_rank, on_rank in rules.stack_pairs():
        spec[L.STACK + card_rank * L.NUM_RANKS + on_rank] = 1
        spec[L.STACKABLE + on_rank] = 1
    penalties = 0  # H-STACK-1: only penalty cards stack
    for face in range(rules.num_faces):
        if spec[L.F_EFFECT + face] in (L.EF_DRAW, L.EF_WILD_DRAW, L.EF_SIT_OUT):
            penalties |= 1 << face
    for card_rank, on_rank in rules.stack_pairs():
        spec[L.STACK_FACES + on_rank] |= spec[L.RANK_FACES + card_rank] & penalties
    spec[L.SET_FACES] = set_faces(rules)
    spec[L.COLOUR_FACES : L.SET_FACES] &= spec[L.SET_FACES]
    spec.setflags(write=False)
    return spec


def set_faces(rules: RuleSet) -> int:
    """The faces the spec's face sets may name, as a bitmask: in a French deck the faces it
    holds, so that what goes on a heart is no red joker where MC-OPT-1 is off and the records
    of what a player lacks (U-DRAW-3, U-WD4-1, MD-SEVEN-1) name no card the game does not have.
    An Uno deck's sets keep every face of the family, the Super Star and the customizable wild
    of a deck without them (U-DECK-2) included: the obs-v3 networks shipped for ``uno`` read
    their records with the Super Star's rank in them, and some of their games go otherwise
    without it."""
    if rules.deck_family == "uno":
        return (1 << rules.num_faces) - 1
    counts = rules.deck_counts(rules.min_players)  # copies scale with the player count; faces do not
    return sum(1 << face for face in range(rules.num_faces) if counts[face] > 0)


def plain_plays(rules: RuleSet) -> bool:
    """Whether a one-card play can resolve without the staged machinery (engine fast path):
    no rule field marked :data:`uno_env.engine.options.STAGED` is on (answerable penalties, multi-card
    plays, house-rule number effects, jump-in, extra turns, Mau-Mau calls, players leaving), and
    no card of the deck has the star effect (M-STAR-1: ``card_effects`` can give it to any card,
    and its holder answers a penalty)."""
    return not rules.rules_with(O.STAGED) and not rules.has_star_cards


def _face_tables(spec: np.ndarray, rules: RuleSet) -> None:
    """Per-face colour, rank, effect, amount, wildness, points (U-SCORE-1, MM-SCORE-1)."""
    deck = rules.deck_family
    effects = rules.effect_table()
    for face in range(L.MAX_FACES):
        spec[L.F_COLOUR + face] = -1
        spec[L.F_RANK + face] = L.NUM_RANKS - 1
    for face in range(rules.num_faces):
        effect, amount = effects[face]
        rank = _face_rank(face, deck)
        spec[L.F_RANK + face] = rank
        spec[L.F_EFFECT + face] = effect
        spec[L.F_AMOUNT + face] = amount
        wild = effect in (L.EF_WILD, L.EF_WILD_DRAW, L.EF_STAR)
        spec[L.F_ANYWHERE + face] = wild
        spec[L.RANK_FACES + rank] |= 1 << face
        if wild:
            spec[L.ANYWHERE_FACES] |= 1 << face
        spec[L.F_IS_NUMBER + face] = effect == L.EF_NONE and (deck == "french" or rank < 10)
        if spec[L.F_IS_NUMBER + face]:
            spec[L.NUMBER_FACES] |= 1 << face
        if effect == L.EF_WILD_DRAW:
            spec[L.WILD_DRAW_FACES] |= 1 << face
        elif effect == L.EF_STAR:
            spec[L.STAR_FACES] |= 1 << face
        elif effect == L.EF_REVERSE:
            spec[L.REVERSE_FACES] |= 1 << face
        if face < 52:
            spec[L.F_COLOUR + face] = face // 13
            spec[L.COLOUR_FACES + face // 13] |= 1 << face
        else:
            spec[L.COLOURLESS_FACES] |= 1 << face
        if deck == "uno":
            spec[L.F_POINTS + face] = rank if rank < 10 else (20 if rank < 13 else 50)
            spec[L.F_DEALER_VALUE + face] = rank if rank < 10 else 0
        else:
            # MM-SCORE-1: face value, Jack 30, Queen and King 10, Ace ace_points; jokers 50
            spec[L.F_POINTS + face] = (
                rules.ace_points if rank == 0 else rank + 1 if rank < 10 else (30, 10, 10, 50, 50)[rank - 10]
            )
            if face == cards.BLACK_JOKER:
                spec[L.F_PLAY_ON + face] = L.PO_BLACK
            elif face == cards.RED_JOKER:
                spec[L.F_PLAY_ON + face] = L.PO_RED
        spec[L.PLAY_ON_FACES + spec[L.F_PLAY_ON + face]] |= 1 << face
