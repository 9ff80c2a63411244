"""Card faces, deck families and their text notation.

A *face* is a small int naming a kind of card (a deck holds several copies of most faces).
Two deck families share the engine:

``uno`` (U-DECK-1, U-DECK-2), 56 faces
    ``colour * 13 + symbol`` for the coloured cards, colours ``R Y G B`` (0..3) and
    symbols ``0``..``9``, ``S`` (skip, 10), ``R`` (reverse, 11), ``D2`` (draw two, 12):
    ``R7``, ``YS``, ``GR``, ``BD2``. Then ``W`` (wild, 52), ``WD4`` (wild draw four, 53),
    ``SS`` (Super Star, 54) and ``WC`` (customizable wild, 55).

``french`` (MM-DECK-1, MD-DECK-1, MC-DECK-1), 54 faces
    ``suit * 13 + rank`` with suits ``C D H S`` (clubs, diamonds, hearts, spades; 0..3)
    and ranks ``A 2 .. 10 J Q K`` (0..12): ``7H``, ``QS``, ``10D``, ``AC``. Then ``JKB``
    (black joker, 52) and ``JKR`` (red joker, 53).

Notation is case-insensitive on input and canonical (upper case) on output.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Literal

DeckFamily = Literal["uno", "french"]

UNO_COLOURS = "RYGB"
UNO_COLOUR_NAMES = ("red", "yellow", "green", "blue")
UNO_SYMBOLS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "D2")
UNO_SYMBOL_NAMES = (*(str(i) for i in range(10)), "Skip", "Reverse", "Draw Two")
SKIP, REVERSE, DRAW_TWO = 10, 11, 12
WILD, WILD_DRAW_FOUR, SUPER_STAR, CUSTOM_WILD = 52, 53, 54, 55
UNO_WILD_TOKENS = {"W": WILD, "WD4": WILD_DRAW_FOUR, "SS": SUPER_STAR, "WC": CUSTOM_WILD}
UNO_WILD_NAMES = {
    WILD: "Wild",
    WILD_DRAW_FOUR: "Wild Draw Four",
    SUPER_STAR: "Super Star",
    CUSTOM_WILD: "Customizable Wild",
}

FRENCH_SUITS = "CDHS"
FRENCH_SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
FRENCH_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FRENCH_RANK_NAMES = (
    "Ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King",
)  # fmt: skip
BLACK_JOKER, RED_JOKER = 52, 53
FRENCH_JOKER_TOKENS = {"JKB": BLACK_JOKER, "JKR": RED_JOKER}

NUM_FACES: dict[str, int] = {"uno": 56, "french": 54}
# rank tokens, indexed by a face's rank (its symbol for matching and the stack table)
UNO_RANK_TOKENS = (*UNO_SYMBOLS[:10], "S", "R", "D2", "W", "WD4", "SS")
FRENCH_RANK_TOKENS = (*FRENCH_RANKS, "JKB", "JKR")
RANK_TOKENS: dict[str, tuple[str, ...]] = {"uno": UNO_RANK_TOKENS, "french": FRENCH_RANK_TOKENS}
COLOUR_LETTERS: dict[str, str] = {"uno": UNO_COLOURS, "french": FRENCH_SUITS}
COLOUR_NAMES: dict[str, tuple[str, ...]] = {"uno": UNO_COLOUR_NAMES, "french": FRENCH_SUIT_NAMES}


class CardNotationError(ValueError):
    """A card or colour token that does not parse in the given deck family."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card face of a deck family; ``str(card)`` is its notation."""

    face: int
    deck: DeckFamily = "uno"

    def __post_init__(self) -> None:
        if not 0 <= self.face < NUM_FACES[self.deck]:
            raise CardNotationError(
                f"face {self.face} is outside the {self.deck} deck (0..{NUM_FACES[self.deck] - 1})"
            )

    @classmethod
    def parse(cls, text: str, deck: DeckFamily = "uno") -> Card:
        """Parse a card token such as ``R7``, ``WD4`` or ``10D``."""
        return cls(parse_face(text, deck), deck)

    def __str__(self) -> str:
        return format_face(self.face, self.deck)

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r}, {self.deck!r})"

    @property
    def name(self) -> str:
        """Long English name, e.g. ``red 7`` or ``Queen of spades``."""
        return face_name(self.face, self.deck)


def parse_face(text: str, deck: DeckFamily = "uno") -> int:
    """Return the face id of a card token; raise :class:`CardNotationError` if malformed."""
    token = text.strip().upper()
    if deck == "uno":
        if token in UNO_WILD_TOKENS:
            return UNO_WILD_TOKENS[token]
        if len(token) >= 2 and token[0] in UNO_COLOURS and token[1:] in UNO_SYMBOLS:
            return UNO_COLOURS.index(token[0]) * 13 + UNO_SYMBOLS.index(token[1:])
        raise CardNotationError(
            f"{text!r} is not an Uno card: write a colour R/Y/G/B then 0-9, S (skip), "
            "R (reverse) or D2 (draw two), e.g. R7, YS, GR, BD2; or W, WD4, SS, WC"
        )
    if deck == "french":
        if token in FRENCH_JOKER_TOKENS:
            return FRENCH_JOKER_TOKENS[token]
        if len(token) >= 2 and token[-1] in FRENCH_SUITS and token[:-1] in FRENCH_RANKS:
            return FRENCH_SUITS.index(token[-1]) * 13 + FRENCH_RANKS.index(token[:-1])
        raise CardNotationError(
            f"{text!r} is not a French card: write a rank A, 2-10, J, Q, K then a suit "
            "C/D/H/S, e.g. 7H, QS, 10D; or JKB / JKR for the black / red joker"
        )
    raise CardNotationError(f"unknown deck family {deck!r}; expected 'uno' or 'french'")


def check_face(face: int, deck: DeckFamily) -> int:
    """``face`` as an int if it is a face id of ``deck``; :class:`CardNotationError` if not
    (a negative id would otherwise index from the end and name a wrong card)."""
    if deck not in NUM_FACES:
        raise CardNotationError(f"unknown deck family {deck!r}; expected 'uno' or 'french'")
    try:
        index = operator.index(face) if not isinstance(face, bool) else -1
    except TypeError:
        index = -1
    if not 0 <= index < NUM_FACES[deck]:
        raise CardNotationError(f"{face!r} is not a face id of the {deck} deck (0..{NUM_FACES[deck] - 1})")
    return index


def format_face(face: int, deck: DeckFamily = "uno") -> str:
    """Return the notation of a face id."""
    face = check_face(face, deck)
    if deck == "uno":
        if face < 52:
            return UNO_COLOURS[face // 13] + UNO_SYMBOLS[face % 13]
        return {v: k for k, v in UNO_WILD_TOKENS.items()}[face]
    if face < 52:
        return FRENCH_RANKS[face % 13] + FRENCH_SUITS[face // 13]
    return {v: k for k, v in FRENCH_JOKER_TOKENS.items()}[face]


def face_name(face: int, deck: DeckFamily = "uno") -> str:
    """Long English name of a face."""
    face = check_face(face, deck)
    if deck == "uno":
        if face < 52:
            return f"{UNO_COLOUR_NAMES[face // 13]} {UNO_SYMBOL_NAMES[face % 13]}"
        return UNO_WILD_NAMES[face]
    if face < 52:
        return f"{FRENCH_RANK_NAMES[face % 13]} of {FRENCH_SUIT_NAMES[face // 13]}"
    return "black joker" if face == BLACK_JOKER else "red joker"


def parse_colour(text: str, deck: DeckFamily = "uno") -> int:
    """Parse a colour (Uno ``R Y G B``) or suit (French ``C D H S``) letter or name."""
    token = text.strip().upper()
    letters = COLOUR_LETTERS[deck]
    if len(token) == 1 and token in letters:
        return letters.index(token)
    names = [n.upper() for n in COLOUR_NAMES[deck]]
    if token in names:
        return names.index(token)
    raise CardNotationError(
        f"{text!r} is not a {'colour' if deck == 'uno' else 'suit'} of the {deck} deck; "
        f"expected one of {', '.join(letters)}"
    )


def format_colour(colour: int, deck: DeckFamily = "uno") -> str:
    """Return the letter of a colour/suit index, or ``-`` for none."""
    return COLOUR_LETTERS[deck][colour] if 0 <= colour < 4 else "-"


def parse_cards(text: str, deck: DeckFamily = "uno") -> list[int]:
    """Parse a space- or comma-separated list of card tokens (``-`` or empty: no cards)."""
    tokens = text.replace(",", " ").split()
    if tokens == ["-"]:
        return []
    return [parse_face(t, deck) for t in tokens]


def format_cards(faces: list[int], deck: DeckFamily = "uno") -> str:
    """Format faces as a space-separated list (``-`` for none)."""
    return " ".join(format_face(f, deck) for f in faces) if faces else "-"
