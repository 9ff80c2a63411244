"""Card, colour and action notation of both deck families (U-DECK-1, U-DECK-2, MM-DECK-1, MC-DECK-1).

Every face and every action id formats to one token that parses back to it, input is
case-insensitive, and malformed text raises an error naming the bad token and the forms
that are allowed.
"""

from __future__ import annotations

from typing import get_args

import pytest

import uno_env
from uno_env.engine import actions, cards
from uno_env.engine.cards import Card, DeckFamily

DECKS: tuple[DeckFamily, ...] = get_args(DeckFamily)


def test_both_deck_families_are_known() -> None:
    assert set(DECKS) == {"uno", "french"}
    assert cards.NUM_FACES == {"uno": 56, "french": 54}


# ---------------------------------------------------------------- faces
@pytest.mark.parametrize("deck", DECKS)
def test_every_face_formats_and_parses_back(deck: DeckFamily) -> None:
    tokens = [uno_env.format_face(face, deck) for face in range(cards.NUM_FACES[deck])]
    assert len(set(tokens)) == len(tokens), "two faces share a notation"
    for face, token in enumerate(tokens):
        assert token == token.upper().strip()
        assert uno_env.parse_face(token, deck) == face
        card = Card(face, deck)
        assert str(card) == token
        assert Card.parse(token, deck) == card
        assert eval(repr(card), {"Card": Card}) == card


@pytest.mark.parametrize("deck", DECKS)
def test_face_input_is_case_insensitive_and_stripped(deck: DeckFamily) -> None:
    for face in range(cards.NUM_FACES[deck]):
        token = uno_env.format_face(face, deck)
        mixed = "".join(c.lower() if i % 2 else c for i, c in enumerate(token))
        for text in (token.lower(), mixed, f"  {token}\t"):
            assert uno_env.parse_face(text, deck) == face, text


def test_uno_face_layout_is_colour_times_13_plus_symbol() -> None:
    """U-DECK-1 / U-DECK-2: the documented ids of the Uno faces."""
    assert [uno_env.parse_face(t) for t in ("R0", "R7", "YS", "GR", "BD2")] == [0, 7, 23, 37, 51]
    assert [uno_env.parse_face(t) for t in ("W", "WD4", "SS", "WC")] == [52, 53, 54, 55]


def test_french_face_layout_is_suit_times_13_plus_rank() -> None:
    """MM-DECK-1 / MC-DECK-1: the documented ids of the French faces."""
    parse = [uno_env.parse_face(t, "french") for t in ("AC", "10D", "7H", "QS", "KS")]
    assert parse == [0, 13 + 9, 26 + 6, 39 + 11, 51]
    assert [uno_env.parse_face(t, "french") for t in ("JKB", "JKR")] == [52, 53]


def test_card_names() -> None:
    assert Card.parse("r7").name == "red 7"
    assert Card.parse("WD4").name == "Wild Draw Four"
    assert Card.parse("qs", "french").name == "Queen of spades"
    assert Card.parse("JKR", "french").name == "red joker"


UNO_BAD = ["", "R", "7", "X7", "R10", "RD4", "RD", "W4", "WD2", "7R", "R 7", "RS2", "JKB", "7H", "R-7"]
FRENCH_BAD = ["", "1H", "11H", "0S", "HQ", "7X", "JK", "JKX", "R7", "W", "10", "QQ", "7 H", "WD4"]


@pytest.mark.parametrize("token", UNO_BAD)
def test_malformed_uno_card_names_token_and_allowed_forms(token: str) -> None:
    with pytest.raises(uno_env.CardNotationError) as exc:
        uno_env.parse_face(token, "uno")
    message = str(exc.value)
    assert repr(token) in message
    for form in ("R/Y/G/B", "0-9", "S (skip)", "R (reverse)", "D2 (draw two)", "W, WD4"):
        assert form in message


@pytest.mark.parametrize("token", FRENCH_BAD)
def test_malformed_french_card_names_token_and_allowed_forms(token: str) -> None:
    with pytest.raises(uno_env.CardNotationError) as exc:
        uno_env.parse_face(token, "french")
    message = str(exc.value)
    assert repr(token) in message
    for form in ("A, 2-10, J, Q, K", "C/D/H/S", "JKB", "JKR"):
        assert form in message


def test_card_notation_error_is_a_value_error() -> None:
    assert issubclass(uno_env.CardNotationError, ValueError)


def test_unknown_deck_family_is_named() -> None:
    with pytest.raises(uno_env.CardNotationError, match=r"'pinochle'.*'uno' or 'french'"):
        uno_env.parse_face("R7", "pinochle")  # type: ignore[arg-type]


@pytest.mark.parametrize("deck", DECKS)
def test_face_outside_the_deck_is_refused(deck: DeckFamily) -> None:
    last = cards.NUM_FACES[deck] - 1
    for face in (-1, last + 1):
        with pytest.raises(uno_env.CardNotationError, match=f"face {face} is outside the {deck} deck"):
            Card(face, deck)


# ---------------------------------------------------------------- colours and card lists
@pytest.mark.parametrize("deck", DECKS)
def test_colours_format_and_parse_back(deck: DeckFamily) -> None:
    for colour in range(4):
        letter = cards.format_colour(colour, deck)
        assert cards.parse_colour(letter, deck) == colour
        assert cards.parse_colour(letter.lower(), deck) == colour
        name = cards.COLOUR_NAMES[deck][colour]
        assert cards.parse_colour(name.upper(), deck) == colour
    assert cards.format_colour(-1, deck) == "-"


@pytest.mark.parametrize(("deck", "bad"), [("uno", "X"), ("uno", "H"), ("french", "R"), ("french", "")])
def test_bad_colour_names_it_and_lists_allowed(deck: DeckFamily, bad: str) -> None:
    with pytest.raises(uno_env.CardNotationError) as exc:
        cards.parse_colour(bad, deck)
    letters = cards.COLOUR_LETTERS[deck]
    assert repr(bad) in str(exc.value)
    assert ", ".join(letters) in str(exc.value)


@pytest.mark.parametrize("deck", DECKS)
def test_card_lists_round_trip(deck: DeckFamily) -> None:
    faces = [*range(cards.NUM_FACES[deck]), 0, 5, 5]
    text = cards.format_cards(faces, deck)
    assert cards.parse_cards(text, deck) == faces
    assert cards.parse_cards(text.replace(" ", ", "), deck) == faces
    assert cards.format_cards([], deck) == "-"
    assert cards.parse_cards("-", deck) == []
    assert cards.parse_cards("  ", deck) == []


# ---------------------------------------------------------------- actions
@pytest.mark.parametrize("deck", DECKS)
def test_action_table_formats_and_parses_back(deck: DeckFamily) -> None:
    table = uno_env.action_table(deck)
    assert [a for a, _ in table] == list(range(actions.num_actions(deck)))
    names = [name for _, name in table]
    assert len(set(names)) == len(names), "two actions share a notation"
    for action, name in table:
        assert uno_env.format_action(action, deck) == name
        assert uno_env.parse_action(name, deck) == action
        assert uno_env.parse_action(name.upper(), deck) == action
        assert uno_env.parse_action(name.lower(), deck) == action
        assert uno_env.parse_action(f"  {name} ", deck) == action


@pytest.mark.parametrize("deck", DECKS)
def test_action_table_layout(deck: DeckFamily) -> None:
    """The documented order: faces, 4 colours, targets +1..+9, draw, pass, call, challenge, accept."""
    nf = cards.NUM_FACES[deck]
    names = [name for _, name in uno_env.action_table(deck)]
    assert names[:nf] == [cards.format_face(f, deck) for f in range(nf)]
    word = "colour" if deck == "uno" else "suit"
    assert names[nf : nf + 4] == [f"{word} {letter}" for letter in cards.COLOUR_LETTERS[deck]]
    assert names[nf + 4 : nf + 13] == [f"target +{k}" for k in range(1, 10)]
    assert names[nf + 13 :] == ["draw", "pass", "call", "challenge", "accept"]


@pytest.mark.parametrize(
    ("text", "deck", "expected"),
    [
        ("color g", "uno", "colour G"),
        ("choose Blue", "uno", "colour B"),
        ("colour green", "uno", "colour G"),
        ("suit hearts", "french", "suit H"),
        ("colour s", "french", "suit S"),
        ("target 3", "uno", "target +3"),
        ("TARGET +9", "french", "target +9"),
        ("Draw", "uno", "draw"),
        ("ACCEPT", "french", "accept"),
        ("10h", "french", "10H"),
        ("wd4", "uno", "WD4"),
    ],
)
def test_action_synonyms_and_case(text: str, deck: DeckFamily, expected: str) -> None:
    assert uno_env.format_action(uno_env.parse_action(text, deck), deck) == expected


@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize(
    "text", ["", "fly", "draw 2", "target +10", "target 0", "target +x", "colour", "play R7", "R10", "7Z"]
)
def test_bad_action_text_lists_the_allowed_forms(deck: DeckFamily, text: str) -> None:
    with pytest.raises(ValueError) as exc:
        uno_env.parse_action(text, deck)
    message = str(exc.value)
    assert repr(text) in message
    example_card, colour_form = ("R7", "'colour R'") if deck == "uno" else ("7H", "'suit H'")
    for form in (
        example_card,
        colour_form,
        "'target +1'",
        "'draw'",
        "'pass'",
        "'call'",
        "'challenge'",
        "'accept'",
    ):
        assert form in message


def test_card_of_the_other_deck_is_not_an_action() -> None:
    with pytest.raises(ValueError, match="'7H' is not an action"):
        uno_env.parse_action("7H", "uno")
    with pytest.raises(ValueError, match="'R7' is not an action"):
        uno_env.parse_action("R7", "french")


@pytest.mark.parametrize(("text", "deck"), [("colour X", "uno"), ("suit R", "french")])
def test_bad_colour_action_names_the_colour_and_allowed_letters(text: str, deck: DeckFamily) -> None:
    with pytest.raises(ValueError) as exc:
        uno_env.parse_action(text, deck)
    # the colour is echoed lower-cased (parse_action lower-cases the text first)
    assert repr(text.split()[1]).lower() in str(exc.value).lower()
    assert ", ".join(cards.COLOUR_LETTERS[deck]) in str(exc.value)


@pytest.mark.parametrize("deck", DECKS)
def test_action_id_outside_the_table_is_refused(deck: DeckFamily) -> None:
    size = actions.num_actions(deck)
    for action in (-1, size):
        with pytest.raises(
            ValueError, match=f"action {action} is outside the {deck} action table 0..{size - 1}"
        ):
            uno_env.format_action(action, deck)
