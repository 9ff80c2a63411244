"""Rule sets: every switch and parameter of the rule catalogue, validated, and the presets.

A :class:`RuleSet` is a frozen dataclass. Each field cites the catalogue rule it configures
(``../shared/RULES.md``) and declares its allowed values; construction validates them all and
an error names the field, the bad value and what is allowed. Variants derive with
``dataclasses.replace``; ``str(rules)`` is a canonical one-line form (recorded in logs,
result files and checkpoints) that :meth:`RuleSet.parse` reads back; TOML files round-trip
through :meth:`RuleSet.from_toml` / :meth:`RuleSet.to_toml`.

The engine never reads a RuleSet: :func:`compile_spec` turns it into the flat array of
parameters and per-face effect tables that the compiled rule functions take.

Rules configured here: U-DECK-1, U-SETUP-1, U-SETUP-2, U-START-1, U-START-2, U-MATCH-1,
U-DRAW-1..4, U-SKIP-1, U-REV-1, U-D2-1, U-WILD-1, U-WD4-1, U-WD4-2, U-UNO-1, U-END-1,
U-SCORE-1..3, E-END-1.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

from . import cards
from . import layout as L

RULES_FORMAT = "uno-env-rules/1"


class RuleError(ValueError):
    """An invalid rule value, unknown rule key, malformed rule file or impossible rule set."""


def _rule(
    default: Any,
    rule_id: str,
    doc: str,
    *,
    choices: tuple[Any, ...] | None = None,
    bounds: tuple[float, float] | None = None,
) -> Any:
    return field(
        default=default,
        metadata={"rule": rule_id, "doc": doc, "choices": choices, "bounds": bounds},
    )


@dataclass(frozen=True)
class RuleSet:
    """Every switch and parameter of one rule variant. Build presets with :func:`preset`."""

    deck: str = _rule("uno", "U-DECK-1", "deck family", choices=("uno",))
    min_players: int = _rule(2, "U-DECK-1", "fewest players the variant allows", bounds=(2, 10))
    max_players: int = _rule(10, "U-DECK-1", "most players the variant allows", bounds=(2, 10))
    hand_size: int = _rule(7, "U-SETUP-1", "cards dealt to each player", bounds=(1, 20))
    dealer: str = _rule(
        "draw",
        "U-SETUP-2",
        "'draw': each player draws a card, highest number deals; 'random': uniform dealer",
        choices=("draw", "random"),
    )
    start_card: str = _rule(
        "official",
        "U-START-1",
        "'official': the starting card's effect applies (U-START-1); 'number_only': "
        "redraw until a number card (U-START-2)",
        choices=("official", "number_only"),
    )
    draw: str = _rule(
        "one",
        "U-DRAW-1",
        "'one': draw one card, play it if you can and want (U-DRAW-1); 'until_playable': "
        "draw until a playable card comes (U-DRAW-2)",
        choices=("one", "until_playable"),
    )
    drawn_card: str = _rule(
        "may_keep",
        "U-DRAW-2",
        "a playable drawn card 'may_keep' (play or keep) or 'must_play'",
        choices=("may_keep", "must_play"),
    )
    draw_when_playable: bool = _rule(True, "U-DRAW-3", "drawing is allowed while holding a playable card")
    reverse_with_two: str = _rule(
        "skip",
        "U-REV-1",
        "with two players a Reverse acts as 'skip', or only 'reverse's",
        choices=("skip", "reverse"),
    )
    wd4_legal_when: str = _rule(
        "no_matching_colour",
        "U-WD4-1",
        "a Wild Draw Four is legal with 'no_matching_colour' in hand (official) or "
        "'no_playable_card' at all (000)",
        choices=("no_matching_colour", "no_playable_card"),
    )
    wd4_bluff: str = _rule(
        "challenge",
        "U-WD4-2",
        "an illegal Wild Draw Four may be played and 'challenge'd by the victim; "
        "'unpunished': no challenge; 'refused': the engine refuses illegal ones",
        choices=("challenge", "unpunished", "refused"),
    )
    challenge_penalty: int = _rule(
        2, "U-WD4-2", "extra cards a failed challenger draws on top of the 4", bounds=(0, 20)
    )
    challenge_colour: str = _rule(
        "annulled",
        "U-WD4-2",
        "after a successful challenge the named colour is 'annulled' or 'stands'",
        choices=("annulled", "stands"),
    )
    uno_penalty: int = _rule(2, "U-UNO-1", "cards drawn when a missed call is caught", bounds=(0, 20))
    uno_catch: float = _rule(
        1.0, "U-UNO-1", "probability that a missed call is caught (a reflex)", bounds=(0.0, 1.0)
    )
    last_card_draw: bool = _rule(
        True, "U-END-1", "a Draw Two / Wild Draw Four played as the last card is still drawn"
    )
    match: str = _rule(
        "single_round",
        "U-SCORE-2",
        "'single_round': a game is one round (U-SCORE-1); 'first_to_target': rounds until a "
        "player's winnings reach the target (U-SCORE-2); 'lowest_total': rounds until a "
        "player's own hand points reach it, lowest total wins (U-SCORE-3)",
        choices=("single_round", "first_to_target", "lowest_total"),
    )
    target: int = _rule(500, "U-SCORE-2", "points that end a match", bounds=(1, 100_000))
    max_decisions: int = _rule(
        10_000, "E-END-1", "decisions after which a game is truncated", bounds=(10, 10_000_000)
    )

    # ------------------------------------------------------------ validation
    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _check_value(f, getattr(self, f.name))
        if self.min_players > self.max_players:
            raise RuleError(f"min_players={self.min_players} is larger than max_players={self.max_players}")
        max_hand = (self.deck_size(self.max_players) - 1) // self.max_players
        if self.hand_size > max_hand:
            raise RuleError(
                f"impossible rule set: {self.max_players} players x hand_size={self.hand_size} "
                f"needs {self.max_players * self.hand_size + 1} cards with the starting card, "
                f"but the deck has {self.deck_size(self.max_players)}; lower hand_size to at "
                f"most {max_hand} or max_players"
            )

    def check_players(self, num_players: int) -> None:
        """Raise :class:`RuleError` unless ``num_players`` can play this variant."""
        if not isinstance(num_players, (int, np.integer)) or isinstance(num_players, bool):
            raise RuleError(f"num_players must be an int, got {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            raise RuleError(
                f"num_players={num_players} is outside this variant's range "
                f"{self.min_players}..{self.max_players}; to override, derive a variant with "
                f"dataclasses.replace(rules, min_players=..., max_players=...) (at most "
                f"{L.MAX_PLAYERS})"
            )

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

    def deck_counts(self, num_players: int) -> np.ndarray:
        """Copies of each face in a game of ``num_players`` (U-DECK-1)."""
        del num_players  # the Uno deck does not depend on the player count
        counts = np.zeros(L.MAX_FACES, dtype=np.int64)
        for colour in range(4):
            base = colour * 13
            counts[base] = 1  # one 0 per colour
            counts[base + 1 : base + 13] = 2  # two each of 1-9, Skip, Reverse, Draw Two
        counts[cards.WILD] = 4
        counts[cards.WILD_DRAW_FOUR] = 4
        return counts

    def deck_size(self, num_players: int) -> int:
        """Number of cards in a game of ``num_players``."""
        return int(self.deck_counts(num_players).sum())

    # ------------------------------------------------------------ text forms
    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain dict (TOML-ready)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "rules") -> RuleSet:
        """Build from a mapping; ``preset = "name"`` picks the base, other keys override it.

        Unknown keys raise :class:`RuleError` listing the valid ones.
        """
        data = dict(data)
        base_name = data.pop("preset", None)
        if base_name is not None and not isinstance(base_name, str):
            raise RuleError(f"{source}: preset must be a preset name, got {base_name!r}")
        base = preset(base_name) if base_name is not None else cls()
        return base.with_overrides(data, source=source)

    def with_overrides(self, overrides: Mapping[str, Any], *, source: str = "rules") -> RuleSet:
        """Return a copy with the given fields replaced, each validated."""
        valid = [f.name for f in dataclasses.fields(self)]
        unknown = sorted(set(overrides) - set(valid))
        if unknown:
            raise RuleError(
                f"{source}: unknown rule key(s) {', '.join(unknown)}; valid keys: {', '.join(valid)}"
            )
        return dataclasses.replace(self, **dict(overrides))

    @classmethod
    def from_toml(cls, path: str | Path) -> RuleSet:
        """Load a rule file: top-level keys, optionally ``preset = "name"`` as the base."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RuleError(f"cannot read rule file {path}: {exc}") from exc
        return cls.from_toml_string(text, source=str(path))

    @classmethod
    def from_toml_string(cls, text: str, *, source: str = "rules") -> RuleSet:
        """Parse rule-file text (see :meth:`from_toml`)."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RuleError(f"{source} is not valid TOML: {exc}") from exc
        data.pop("format", None)
        return cls.from_dict(data, source=source)

    def to_toml(self) -> str:
        """Every field as TOML text; :meth:`from_toml_string` reads it back equal."""
        return tomli_w.dumps({"format": RULES_FORMAT, **self.to_dict()})

    def __str__(self) -> str:
        parts = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            parts.append(f"{f.name}={text}")
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> RuleSet:
        """Read back the canonical one-line form produced by ``str(rules)``."""
        types = {f.name: f.type for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for part in text.split():
            key, sep, raw = part.partition("=")
            if not sep:
                raise RuleError(f"malformed rule string item {part!r}: expected key=value")
            kind = types.get(key)
            if kind == "bool":
                if raw not in ("true", "false"):
                    raise RuleError(f"rule {key} must be true or false, got {raw!r}")
                values[key] = raw == "true"
            elif kind == "int":
                values[key] = _parse_number(key, raw, int)
            elif kind == "float":
                values[key] = _parse_number(key, raw, float)
            else:
                values[key] = raw
        return cls().with_overrides(values, source="rule string")

    def preset_name(self) -> str | None:
        """The name of the preset equal to this rule set, if any."""
        for name, rules in PRESETS.items():
            if rules == self:
                return name
        return None


def _parse_number(key: str, raw: str, kind: type) -> Any:
    try:
        return kind(raw)
    except ValueError:
        raise RuleError(f"rule {key} must be a number, got {raw!r}") from None


def _check_value(f: dataclasses.Field[Any], value: Any) -> None:
    meta = f.metadata
    where = f"rule {f.name} ({meta['rule']})"
    if f.type == "bool":
        if not isinstance(value, bool):
            raise RuleError(f"{where} must be true or false, got {value!r}")
        return
    if f.type in ("int", "float"):
        numeric = (int,) if f.type == "int" else (int, float)
        if isinstance(value, bool) or not isinstance(value, numeric):
            raise RuleError(
                f"{where} must be {'an integer' if f.type == 'int' else 'a number'}, got {value!r}"
            )
        lo, hi = meta["bounds"]
        if not lo <= value <= hi:
            raise RuleError(f"{where} must be between {lo} and {hi}, got {value!r}")
        return
    choices = meta["choices"]
    if value not in choices:
        raise RuleError(f"{where} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}")


def rule_fields() -> list[dict[str, Any]]:
    """Describe every field: name, rule ID, default, allowed values, documentation."""
    out = []
    for f in dataclasses.fields(RuleSet):
        meta = f.metadata
        allowed = meta["choices"] if meta["choices"] else meta["bounds"]
        out.append(
            {
                "name": f.name,
                "rule": meta["rule"],
                "default": f.default,
                "allowed": allowed,
                "doc": meta["doc"],
            }
        )
    return out


# ---------------------------------------------------------------- presets
def _make_presets() -> dict[str, RuleSet]:
    return {
        # 000, 002, 003 official parts; Mattel's reading wherever the sources disagree.
        "uno": RuleSet(),
    }


PRESETS: dict[str, RuleSet] = _make_presets()


def preset(name: str) -> RuleSet:
    """The rule set of a named preset; an unknown name lists the valid ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RuleError(f"unknown preset {name!r}; available: {', '.join(PRESETS)}") from None


def load_rules(rules: RuleSet | str | Path = "uno", **overrides: Any) -> RuleSet:
    """Resolve a preset name, a TOML path or a RuleSet, then apply keyword overrides."""
    if isinstance(rules, RuleSet):
        base = rules
    elif isinstance(rules, Path) or (isinstance(rules, str) and rules.endswith(".toml")):
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
    spec[L.SP_DECK] = 0 if rules.deck == "uno" else 1
    spec[L.SP_NUM_FACES] = rules.num_faces
    spec[L.SP_NUM_ACTIONS] = rules.num_actions
    spec[L.SP_HAND_SIZE] = rules.hand_size
    spec[L.SP_DEALER_DRAW] = rules.dealer == "draw"
    spec[L.SP_START_NUMBER_ONLY] = rules.start_card == "number_only"
    spec[L.SP_DRAW_UNTIL_PLAYABLE] = rules.draw == "until_playable"
    spec[L.SP_DRAWN_MUST_PLAY] = rules.drawn_card == "must_play"
    spec[L.SP_DRAW_WHEN_PLAYABLE] = rules.draw_when_playable
    spec[L.SP_REVERSE_SKIPS_TWO] = rules.reverse_with_two == "skip"
    spec[L.SP_WD4_NO_PLAYABLE] = rules.wd4_legal_when == "no_playable_card"
    spec[L.SP_WD4_MODE] = ("challenge", "unpunished", "refused").index(rules.wd4_bluff)
    spec[L.SP_CHALLENGE_PENALTY] = rules.challenge_penalty
    spec[L.SP_CHALLENGE_COLOUR_STANDS] = rules.challenge_colour == "stands"
    spec[L.SP_UNO_PENALTY] = rules.uno_penalty
    spec[L.SP_UNO_CATCH_PPM] = round(rules.uno_catch * 1_000_000)
    spec[L.SP_LAST_CARD_DRAW] = rules.last_card_draw
    spec[L.SP_MATCH] = ("single_round", "first_to_target", "lowest_total").index(rules.match)
    spec[L.SP_TARGET] = rules.target
    spec[L.SP_MAX_DECISIONS] = rules.max_decisions
    _uno_faces(spec)
    spec.setflags(write=False)
    return spec


def _uno_faces(spec: np.ndarray) -> None:
    """Face tables of the Uno deck: U-MATCH-1 colours/symbols, effects, U-SCORE-1 points."""
    for face in range(L.MAX_FACES):
        spec[L.F_COLOUR + face] = -1
        spec[L.F_RANK + face] = 13 + face  # wilds match only themselves by symbol
    for colour in range(4):
        for symbol in range(13):
            face = colour * 13 + symbol
            spec[L.F_COLOUR + face] = colour
            spec[L.F_RANK + face] = symbol
            if symbol < 10:
                spec[L.F_POINTS + face] = symbol
                spec[L.F_DEALER_VALUE + face] = symbol
                spec[L.F_IS_NUMBER + face] = 1
            else:
                spec[L.F_POINTS + face] = 20
            if symbol == cards.SKIP:
                spec[L.F_EFFECT + face] = L.EF_SKIP  # U-SKIP-1
            elif symbol == cards.REVERSE:
                spec[L.F_EFFECT + face] = L.EF_REVERSE  # U-REV-1
            elif symbol == cards.DRAW_TWO:
                spec[L.F_EFFECT + face] = L.EF_DRAW  # U-D2-1
                spec[L.F_AMOUNT + face] = 2
    for face in (cards.WILD, cards.WILD_DRAW_FOUR, cards.SUPER_STAR, cards.CUSTOM_WILD):
        spec[L.F_ANYWHERE + face] = 1
        spec[L.F_POINTS + face] = 50
        spec[L.F_EFFECT + face] = L.EF_WILD  # U-WILD-1
    spec[L.F_EFFECT + cards.WILD_DRAW_FOUR] = L.EF_WILD_DRAW  # U-WD4-1
    spec[L.F_AMOUNT + cards.WILD_DRAW_FOUR] = 4
