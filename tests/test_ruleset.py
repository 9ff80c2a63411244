"""RuleSet validation, text forms (canonical string, TOML), presets and ``load_rules``.

Every field of :class:`uno_env.RuleSet` is checked generically from its metadata, so fields
added later are covered: a bad value raises :class:`uno_env.RuleError` naming the field, the
value and what is allowed; unknown keys list the valid ones; impossible combinations are
refused (U-DECK-1 / U-SETUP-1: the deal must fit in the deck).
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

import uno_env
from uno_env import PRESETS, RuleError, RuleSet
from uno_env.engine.rules import RULES_FORMAT

FIELDS = dataclasses.fields(RuleSet)
FIELD_NAMES = [f.name for f in FIELDS]


def _derive(base: RuleSet, **changes: Any) -> RuleSet:
    """``dataclasses.replace`` with field names chosen at run time."""
    return dataclasses.replace(base, **changes)


def _kind(f: dataclasses.Field[Any]) -> str:
    """The declared type of a field (annotations are strings: ``from __future__ import annotations``)."""
    return str(f.type)


# fields whose values are free-form (rank tokens, effect mappings, stack tables): sample values
FREE_FORM_ALTERNATIVES: dict[str, list[Any]] = {
    "card_effects": [(), ("D2:draw:3",), ("7:draw:2", "A:skip"), ("A:skip", "Q:reverse", "J:wild")],
    "stacking": [(), ("D2/D2",), ("D2/D2", "WD4/WD4", "WD4/D2"), ("7/7",), ("2/2", "3/3", "4/4")],
    "wild_not_on": ["", "7", "D2"],
}
FREE_FORM_BAD: dict[str, list[Any]] = {
    "card_effects": [("D2",), ("D2:explode",), ("D2:draw",), ("D2:skip:2",), ("ZZ:skip",), ("D2:draw:0",)],
    "stacking": [("D2",), ("D2/ZZ",), ("XX/D2",)],
    "wild_not_on": ["ZZ", "11"],
}


def _valid_alternatives(base: RuleSet, f: dataclasses.Field[Any]) -> list[Any]:
    """Valid non-default values of one field (those that do not make the rule set impossible)."""
    current = getattr(base, f.name)
    kind = _kind(f)
    if kind == "bool":
        candidates: list[Any] = [not current]
    elif kind == "tuple[str, ...]" or (kind == "str" and not f.metadata["choices"]):
        candidates = [v for v in FREE_FORM_ALTERNATIVES[f.name] if v != current]
    elif f.metadata["choices"]:
        candidates = [c for c in f.metadata["choices"] if c != current]
    else:
        lo, hi = f.metadata["bounds"]
        if kind == "int":
            candidates = sorted({int(lo), int(hi), (int(lo) + int(hi)) // 2} - {current})
        else:
            candidates = sorted({float(lo), float(hi), (lo + hi) / 4} - {current})
    out = []
    for value in candidates:
        try:
            _derive(base, **{f.name: value})
        except RuleError:
            continue
        out.append(value)
    return out


def _variants() -> dict[str, RuleSet]:
    """Every preset, plus every preset with one field changed to each valid alternative."""
    out: dict[str, RuleSet] = {}
    for name, rules in uno_env.PRESETS.items():
        out[name] = rules
        for f in FIELDS:
            for value in _valid_alternatives(rules, f):
                out[f"{name}:{f.name}={value}"] = _derive(rules, **{f.name: value})
    return out


VARIANTS = _variants()


def test_every_field_declares_rule_id_and_allowed_values() -> None:
    for f in FIELDS:
        assert re.fullmatch(r"[A-Z]+(-[A-Z0-9]+)+", f.metadata["rule"]), f.name
        assert f.metadata["doc"], f.name
        kind = _kind(f)
        assert kind in ("bool", "int", "float", "str", "tuple[str, ...]"), (f.name, kind)
        if (kind == "str" and not f.metadata["choices"]) or kind == "tuple[str, ...]":
            assert f.name in FREE_FORM_ALTERNATIVES, f"{f.name} is free-form: list sample values"
        if kind in ("int", "float"):
            assert f.metadata["bounds"] is not None, f"{f.name} has no bounds"


def test_rule_error_is_a_value_error() -> None:
    assert issubclass(RuleError, ValueError)


def test_every_field_has_valid_alternatives_and_one_field_variants_exist() -> None:
    base = RuleSet()
    for f in FIELDS:
        alternatives = _valid_alternatives(base, f)
        single_choice = f.metadata["choices"] is not None and len(f.metadata["choices"]) == 1
        # the deck family changes together with the dealer rule and card effects (see presets)
        # jokers need the French deck
        needs_other_fields = f.name in ("deck", "jokers")
        assert alternatives or single_choice or needs_other_fields, f"{f.name} has no valid non-default value"


# ---------------------------------------------------------------- bad values, field by field
def _wrong_types(f: dataclasses.Field[Any]) -> list[Any]:
    kind = _kind(f)
    if kind == "bool":
        return ["true", 1, 0, None]
    if kind == "int":
        lo = int(f.metadata["bounds"][0])
        return [str(lo), float(lo), True, None]
    if kind == "float":
        return [str(f.metadata["bounds"][0]), True, None]
    if kind == "tuple[str, ...]":
        return ["D2/D2", 3, None, (1, 2)]
    if not f.metadata["choices"]:
        return [3, None, True]
    return [3, None, True, tuple(f.metadata["choices"])]


def _out_of_range(f: dataclasses.Field[Any]) -> list[Any]:
    kind = _kind(f)
    if kind not in ("int", "float"):
        return []
    lo, hi = f.metadata["bounds"]
    if kind == "int":
        return [int(lo) - 1, int(hi) + 1, -(10**9)]
    return [lo - 0.01, hi + 0.01, math.nan, -math.inf, math.inf]


def _bad_choices(f: dataclasses.Field[Any]) -> list[Any]:
    if f.name in FREE_FORM_BAD:
        return FREE_FORM_BAD[f.name]
    choices = f.metadata["choices"]
    if not choices:
        return []
    return ["bogus", "", str(choices[0]).upper() if str(choices[0]).upper() != choices[0] else "X"]


def _allowed_texts(f: dataclasses.Field[Any]) -> list[str]:
    kind = _kind(f)
    if f.name in FREE_FORM_ALTERNATIVES:
        return []  # free-form values: the message shows the expected form instead
    if kind == "bool":
        return ["true", "false"]
    if f.metadata["choices"]:
        return [repr(c) for c in f.metadata["choices"]]
    lo, hi = f.metadata["bounds"]
    return [str(lo), str(hi)]


def _problems(bad_values: Any) -> list[str]:
    """Try every field with its bad values; describe each error that is not as required."""
    problems: list[str] = []
    base = RuleSet()
    for f in FIELDS:
        for value in bad_values(f):
            try:
                _derive(base, **{f.name: value})
            except RuleError as exc:
                message = str(exc)
                shown = (
                    [repr(v) for v in value]
                    if isinstance(value, tuple) and value and f.name in FREE_FORM_BAD
                    else [repr(value)]
                )
                missing = [t for t in [f.name, *shown, *_allowed_texts(f)] if t not in message]
                if missing:
                    problems.append(f"{f.name}={value!r}: message {message!r} lacks {missing}")
            else:
                problems.append(f"{f.name}={value!r} was accepted")
    return problems


def test_wrong_type_names_field_value_and_allowed_values() -> None:
    problems = _problems(_wrong_types)
    assert not problems, "\n".join(problems)


def test_out_of_range_names_field_value_and_bounds() -> None:
    problems = _problems(_out_of_range)
    assert not problems, "\n".join(problems)


def test_bad_choice_names_field_value_and_choices() -> None:
    problems = _problems(_bad_choices)
    assert not problems, "\n".join(problems)


def test_bounds_themselves_are_accepted() -> None:
    base = RuleSet()
    for f in FIELDS:
        if _kind(f) not in ("int", "float"):
            continue
        for value in f.metadata["bounds"]:
            value = int(value) if _kind(f) == "int" else float(value)
            try:
                rules = _derive(base, **{f.name: value})
            except RuleError as exc:  # only a combination rule may refuse a bound
                assert "impossible" in str(exc) or "larger than" in str(exc), str(exc)
            else:
                assert getattr(rules, f.name) == value


# ---------------------------------------------------------------- unknown keys
def _assert_lists_valid_keys(message: str, unknown: str) -> None:
    assert unknown in message
    assert f"valid keys: {', '.join(FIELD_NAMES)}" in message


def test_unknown_key_in_from_dict_lists_valid_keys() -> None:
    with pytest.raises(RuleError) as exc:
        RuleSet.from_dict({"hand_sise": 5})
    _assert_lists_valid_keys(str(exc.value), "hand_sise")


def test_unknown_keys_in_with_overrides_are_all_named() -> None:
    with pytest.raises(RuleError) as exc:
        uno_env.preset("uno").with_overrides({"zeta": 1, "hand_size": 5, "alpha": 2})
    message = str(exc.value)
    assert "unknown rule key(s) alpha, zeta" in message
    _assert_lists_valid_keys(message, "alpha")


def test_unknown_key_in_toml_names_file_and_valid_keys(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text('preset = "uno"\nbogus_rule = true\n', encoding="utf-8")
    with pytest.raises(RuleError) as exc:
        RuleSet.from_toml(path)
    assert str(path) in str(exc.value)
    _assert_lists_valid_keys(str(exc.value), "stacking")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\xff\xfe hand_size = 7\n", "is not UTF-8 text"),
        (b"hand_size = " + b"[" * 100_000, "nests arrays or tables too deeply"),
        (b"hand_size = = 7\n", "is not TOML"),
    ],
)
def test_broken_rule_files_are_one_rule_error_naming_the_file(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    """Bad bytes gave a UnicodeDecodeError naming no file; deep nesting a RecursionError."""
    path = tmp_path / "broken.toml"
    path.write_bytes(content)
    with pytest.raises(RuleError, match=expected) as exc:
        uno_env.load_rules(str(path))
    assert str(path) in str(exc.value)


def test_unknown_key_as_override_keyword_lists_valid_keys() -> None:
    with pytest.raises(RuleError) as exc:
        uno_env.load_rules("uno", hand_sixe=3)
    _assert_lists_valid_keys(str(exc.value), "hand_sixe")
    with pytest.raises(RuleError) as exc:
        uno_env.Game("uno", 4, seed=0, colour_count=3)
    _assert_lists_valid_keys(str(exc.value), "colour_count")


# ---------------------------------------------------------------- TOML
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_toml_round_trip(name: str, tmp_path: Path) -> None:
    rules = VARIANTS[name]
    text = rules.to_toml()
    assert f'format = "{RULES_FORMAT}"' in text
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    loaded = RuleSet.from_toml(path)
    assert loaded == rules
    assert RuleSet.from_toml(str(path)) == rules
    assert loaded.to_toml() == text
    assert str(loaded) == str(rules)


@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_toml_preset_base_with_overrides(name: str, tmp_path: Path) -> None:
    base = uno_env.preset(name)
    overrides: dict[str, Any] = {}
    for f in FIELDS:
        if f.name in ("min_players", "max_players", "hand_size"):
            continue
        for value in _valid_alternatives(base, f):
            try:  # the overrides must also be valid together
                _derive(base, **{**overrides, f.name: value})
            except RuleError:
                continue
            overrides[f.name] = value
            break
        if len(overrides) == 3:
            break
    assert overrides, f"preset {name} has no field to override"
    path = tmp_path / f"{name}_variant.toml"
    path.write_text(tomli_w.dumps({"preset": name, **overrides}), encoding="utf-8")
    expected = dataclasses.replace(base, **overrides)
    assert RuleSet.from_toml(path) == expected
    assert uno_env.load_rules(path) == expected
    assert uno_env.load_rules(str(path)) == expected


def test_toml_without_preset_starts_from_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "plain.toml"
    path.write_text("hand_size = 5\n", encoding="utf-8")
    assert RuleSet.from_toml(path) == dataclasses.replace(RuleSet(), hand_size=5)


def test_malformed_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('preset = "uno"\nhand_size = = 5\n', encoding="utf-8")
    with pytest.raises(RuleError) as exc:
        RuleSet.from_toml(path)
    assert str(path) in str(exc.value)
    assert "is not TOML" in str(exc.value)


def test_missing_toml_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.toml"
    with pytest.raises(RuleError) as exc:
        uno_env.load_rules(path)
    assert str(path) in str(exc.value)


def test_toml_preset_must_be_a_known_name(tmp_path: Path) -> None:
    path = tmp_path / "bad_preset.toml"
    path.write_text('preset = "unoo"\n', encoding="utf-8")
    with pytest.raises(RuleError, match=r"unknown preset 'unoo' \(did you mean 'uno'\?\); available: "):
        RuleSet.from_toml(path)
    path.write_text("preset = 3\n", encoding="utf-8")
    with pytest.raises(RuleError, match="preset must be a preset name, got 3"):
        RuleSet.from_toml(path)


def test_toml_bad_value_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad_value.toml"
    path.write_text('preset = "uno"\nhand_size = "seven"\n', encoding="utf-8")
    with pytest.raises(RuleError, match=r"hand_size.*'seven'"):
        RuleSet.from_toml(path)


def test_wd4_legal_when_no_playable_number_card_round_trips(tmp_path: Path) -> None:
    """U-WD4-1's third reading (the Uno wiki) through every way a rule set is written: a TOML
    file, ``--set``, the canonical string; a misspelt value names the field and the three words."""
    rules = uno_env.load_rules("uno", wd4_legal_when="no_playable_number_card")
    assert rules.wd4_legal_when == "no_playable_number_card"
    _assert_uno_option_round_trips(
        tmp_path,
        "wd4_legal_when",
        "no_playable_number_card",
        "no_playable_numbers",
        ("no_matching_colour", "no_playable_card", "no_playable_number_card"),
    )


def test_start_reverse_as_dealers_play_round_trips(tmp_path: Path) -> None:
    """U-START-1's other reading of a starting Reverse (the Uno and Mau-Mau sheet, the Uno wiki)
    through a TOML file, ``--set`` and the canonical string; every preset keeps the default
    (Uno Super Mario's); a misspelt value names the field and both words."""
    for name, preset_rules in uno_env.PRESETS.items():
        assert preset_rules.start_reverse == "dealer_first", name
    _assert_uno_option_round_trips(
        tmp_path, "start_reverse", "as_dealers_play", "as_dealer_play", ("dealer_first", "as_dealers_play")
    )


def _assert_uno_option_round_trips(
    tmp_path: Path, field: str, value: str, misspelt: str, words: tuple[str, ...]
) -> None:
    """Official Uno with ``field = value`` reads the same from a TOML file (written by hand and
    by :meth:`RuleSet.to_toml`), from ``--set`` and from its canonical string; ``misspelt``
    is refused with a message naming the field, the value given and every allowed word."""
    from training.common import resolve_rules

    rules = uno_env.load_rules("uno", **{field: value})
    path = tmp_path / "option.toml"
    path.write_text(f'preset = "uno"\n{field} = "{value}"\n', encoding="utf-8")
    assert RuleSet.from_toml(path) == rules
    path.write_text(rules.to_toml(), encoding="utf-8")
    assert RuleSet.from_toml(path) == rules
    assert resolve_rules("uno", [f"{field}={value}"]) == rules
    assert str(rules) == f"preset=uno {field}={value}"
    assert RuleSet.parse(str(rules)) == rules
    with pytest.raises(RuleError) as exc:
        resolve_rules("uno", [f"{field}={misspelt}"])
    message = str(exc.value)
    assert field in message and misspelt in message
    for word in words:
        assert repr(word) in message


# ---------------------------------------------------------------- canonical string
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_canonical_string_round_trip(name: str) -> None:
    """``str(rules)``: ``preset=NAME`` and the fields that differ from that preset, the preset
    the one with the fewest differences; both it and the form listing every field parse back."""
    rules = VARIANTS[name]
    compact = str(rules)
    first, *changed = compact.split(" ")
    assert first.startswith("preset=")
    base = PRESETS[first.removeprefix("preset=")]
    assert [item.split("=", 1)[0] for item in changed] == [
        f.name for f in FIELDS if getattr(rules, f.name) != getattr(base, f.name)
    ]
    assert all(len(rules.differences(other)) >= len(changed) for other in PRESETS.values())
    assert RuleSet.parse(compact) == rules and str(RuleSet.parse(compact)) == compact
    text = rules.full_text()
    assert "\n" not in text
    assert [item.split("=", 1)[0] for item in text.split(" ")] == FIELD_NAMES
    for item, f in zip(text.split(" "), FIELDS, strict=True):
        value = getattr(rules, f.name)
        if isinstance(value, bool):
            assert item == f"{f.name}={'true' if value else 'false'}"
        elif isinstance(value, tuple):
            assert item == f"{f.name}={','.join(value)}"
        else:
            assert item == f"{f.name}={value}"
    assert RuleSet.parse(text) == rules
    assert RuleSet.parse(text).full_text() == text


def test_equal_rule_sets_print_the_same_canonical_string(tmp_path: Path) -> None:
    """A canonical form: rule sets that compare equal must print (and log) identically.

    A float field given as an integer (``uno_catch = 1`` in a TOML file) compares equal to
    the preset but prints ``uno_catch=1`` instead of ``uno_catch=1.0``.
    """
    base = RuleSet()
    for f in FIELDS:
        if _kind(f) != "float":
            continue
        value = getattr(base, f.name)
        if float(value).is_integer():
            as_int = _derive(base, **{f.name: int(value)})
            assert as_int == base
            assert str(as_int) == str(base), f"{f.name}: {str(as_int)!r} != {str(base)!r}"
    path = tmp_path / "catch.toml"
    path.write_text('preset = "uno"\nuno_catch = 1\n', encoding="utf-8")
    loaded = RuleSet.from_toml(path)
    assert loaded == uno_env.preset("uno")
    assert str(loaded) == str(uno_env.preset("uno"))


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("hand_size", r"malformed rule string item 'hand_size': expected key=value"),
        ("draw_when_playable=yes", r"draw_when_playable must be true or false, got 'yes'"),
        ("hand_size=seven", r"hand_size must be a number, got 'seven'"),
        ("uno_catch=often", r"uno_catch must be a number, got 'often'"),
        ("hand_size=0", r"hand_size .*between 1 and 20, got 0"),
        ("draw=sometimes", r"draw .*one of 'one', 'until_playable', .*got 'sometimes'"),
    ],
)
def test_bad_canonical_string_is_refused(text: str, pattern: str) -> None:
    with pytest.raises(RuleError, match=pattern):
        RuleSet.parse(text)


def test_unknown_key_in_canonical_string_lists_valid_keys() -> None:
    with pytest.raises(RuleError) as exc:
        RuleSet.parse(str(RuleSet()) + " bogus_rule=true")
    _assert_lists_valid_keys(str(exc.value), "bogus_rule")


@pytest.mark.parametrize(
    ("changes", "pattern"),
    [
        ({"stacking": ("D2 / D2",)}, r"stacking: 'D2 / D2' must be a non-empty ASCII token without spaces"),
        ({"stacking": ("D2/D2 ",)}, r"stacking: 'D2/D2 ' must be"),
        ({"stacking": ("D2/D2,WD4/WD4",)}, r"without spaces or commas"),
        ({"stacking": ("",)}, r"stacking: '' must be a non-empty"),
        ({"card_effects": ("7 :draw:2",)}, r"card_effects: '7 :draw:2' must be"),
        ({"card_effects": ("7:draw:\u0663",)}, r"card_effects: '7:draw:\u0663' must be .*ASCII"),
        ({"card_effects": ("7:draw:\u00b2",)}, r"card_effects: '7:draw:\u00b2' must be .*ASCII"),
        ({"wild_not_on": "\u00df"}, r"wild_not_on: '\u00df' must be .*ASCII"),
    ],
)
def test_list_entries_that_would_not_print_back_are_refused(changes: dict[str, Any], pattern: str) -> None:
    """``str(rules)`` separates items by spaces and list entries by commas: an entry holding
    either (or other scripts' digits) made a rule set whose own record did not load."""
    with pytest.raises(RuleError, match=pattern):
        _derive(RuleSet(), **changes)


@pytest.mark.parametrize(
    "text",
    [
        "hand_size=\u0667",  # Arabic-Indic seven
        "hand_size=0_7",
        "hand_size=\u00b2",  # superscript two: int() raises a bare ValueError
        "hand_size=\uff17",  # fullwidth seven
        "uno_catch=0_5",
        "uno_catch=\u0661.0",
        "card_effects=7:draw:\u0663",
        "card_effects=7:draw:\u00b2",
    ],
)
def test_numbers_in_rule_strings_are_ascii_digits(text: str) -> None:
    with pytest.raises(RuleError, match="must be"):
        RuleSet.parse(text)


@settings(max_examples=300, deadline=None)
@given(
    entries=st.lists(
        st.text(alphabet=st.sampled_from("D2W4/ :,7draw\t\u00a0\u0663\u00b2\u00dfAskip_"), max_size=9),
        max_size=3,
    ),
    field=st.sampled_from(["stacking", "card_effects"]),
)
def test_every_accepted_rule_set_prints_back(entries: list[str], field: str) -> None:
    """Whatever list entries are given, the rule set is refused with a RuleError or its
    canonical string reads back equal (records of its games load)."""
    try:
        rules = _derive(RuleSet(), **{field: tuple(entries)})
    except RuleError:
        return
    assert RuleSet.parse(str(rules)) == rules


# ---------------------------------------------------------------- derived variants
def test_replace_derives_a_variant_and_leaves_the_original() -> None:
    base = uno_env.preset("uno")
    variant = dataclasses.replace(base, draw="until_playable", hand_size=5)
    assert (variant.draw, variant.hand_size) == ("until_playable", 5)
    assert (base.draw, base.hand_size) == (RuleSet().draw, RuleSet().hand_size)
    assert variant != base
    assert variant.preset_name() is None
    assert hash(dataclasses.replace(variant)) == hash(variant)


def test_replace_revalidates() -> None:
    base = uno_env.preset("uno")
    with pytest.raises(RuleError, match="hand_size"):
        dataclasses.replace(base, hand_size=0)
    with pytest.raises(RuleError, match="wd4_bluff"):
        dataclasses.replace(base, wd4_bluff="sometimes")


def test_rule_sets_are_frozen() -> None:
    rules = uno_env.preset("uno")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.hand_size = 3  # type: ignore[misc]


# ---------------------------------------------------------------- impossible combinations
@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_hand_size_too_large_for_some_player_count_is_refused(name: str) -> None:
    """U-SETUP-1: at every player count of the range, every hand and the starting card must
    come out of the deck; the error names the first count that runs short."""
    base = uno_env.preset(name)
    lo, hi = next(f for f in FIELDS if f.name == "hand_size").metadata["bounds"]
    for players in range(base.min_players, base.max_players + 1):
        rules = dataclasses.replace(base, max_players=players, min_players=min(base.min_players, players))
        counts = range(rules.min_players, players + 1)
        largest = min((rules.deck_size(m) - 1) // m for m in counts)
        if largest + 1 > hi:
            continue
        if largest >= lo:
            ok = dataclasses.replace(rules, hand_size=largest)
            assert ok.hand_size == largest
        short = next(m for m in counts if m * (largest + 1) + 1 > rules.deck_size(m))
        with pytest.raises(RuleError) as exc:
            dataclasses.replace(rules, hand_size=largest + 1)
        message = str(exc.value)
        assert f"{short} players x hand_size={largest + 1}" in message
        assert f"at most {largest}" in message
        assert "max_players" in message


def test_every_player_count_of_the_range_is_checked() -> None:
    """MD-DECK-1 / U-SETUP-1: with an extra deck above 6 players, 20 cards fit 2..5 and 7..10
    players but not 6 (121 cards from 108); checking only the range's ends missed it, and the
    game dealt 18,18,18,17,18,18."""
    with pytest.raises(RuleError) as exc:
        RuleSet(hand_size=20, extra_deck_above=6, max_players=10)
    message = str(exc.value)
    assert "6 players x hand_size=20 needs 121 cards" in message
    assert "deck has 108 at 6 players" in message
    assert "extra_deck_above=6" in message
    assert RuleSet(hand_size=17, extra_deck_above=6, max_players=10).hand_size == 17


def test_largest_hand_size_deals_and_plays() -> None:
    """The largest allowed hand at the most players leaves a playable game (E-CONS-1)."""
    base = uno_env.preset("uno")
    players = base.max_players
    largest = (base.deck_size(players) - 1) // players
    rules = dataclasses.replace(base, hand_size=largest)
    game = uno_env.Game(rules, players, seed=3)
    game.check_invariants()
    assert sum(game.hand_sizes()) + game.draw_pile_size + len(game.discard_pile()) == base.deck_size(players)
    result = uno_env.simulate(rules, players, 5, seed=3, check_invariants=True)
    assert ((result.winner >= 0) | result.truncated).all()


def test_min_players_above_max_players_is_refused() -> None:
    with pytest.raises(RuleError, match="min_players=5 is larger than max_players=4"):
        dataclasses.replace(RuleSet(), min_players=5, max_players=4)


@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_check_players_accepts_the_range_and_refuses_outside_it(name: str) -> None:
    rules = uno_env.preset(name)
    for n in range(rules.min_players, rules.max_players + 1):
        rules.check_players(n)
    for n in (rules.min_players - 1, rules.max_players + 1, 0, 11):
        if rules.min_players <= n <= rules.max_players:
            continue
        with pytest.raises(RuleError) as exc:
            rules.check_players(n)
        message = str(exc.value)
        assert f"num_players={n}" in message
        assert f"{rules.min_players}..{rules.max_players}" in message
        assert "the rule fields min_players and max_players (at most 10)" in message
        assert "load_rules(rules, max_players=N)" in message and "--set max_players=N" in message


def test_check_players_on_a_derived_range() -> None:
    rules = dataclasses.replace(RuleSet(), min_players=3, max_players=5)
    with pytest.raises(RuleError, match=r"num_players=2 is outside this variant's range 3\.\.5"):
        rules.check_players(2)
    with pytest.raises(RuleError, match=r"num_players=2 is outside this variant's range 3\.\.5"):
        uno_env.Game(rules, 2, seed=0)
    with pytest.raises(RuleError, match=r"num_players=6 is outside"):
        uno_env.simulate(rules, 6, 1)
    assert uno_env.Game(rules, 5, seed=0).num_players == 5


@pytest.mark.parametrize("bad", ["4", 4.0, True, None])
def test_check_players_needs_an_int(bad: Any) -> None:
    with pytest.raises(RuleError, match=f"num_players must be an int, got {re.escape(repr(bad))}"):
        RuleSet().check_players(bad)


# ---------------------------------------------------------------- presets and load_rules
def test_presets_are_valid_named_rule_sets() -> None:
    assert "uno" in uno_env.PRESETS
    for name, rules in uno_env.PRESETS.items():
        assert isinstance(rules, RuleSet)
        assert uno_env.preset(name) is rules
        assert rules.preset_name() == name
        assert rules.min_players <= rules.max_players
        assert RuleSet.parse(str(rules)) == rules
    assert len({str(r) for r in uno_env.PRESETS.values()}) == len(uno_env.PRESETS), "two presets are equal"


def test_unknown_preset_lists_the_available_ones() -> None:
    with pytest.raises(RuleError) as exc:
        uno_env.preset("unoo")
    assert "'unoo'" in str(exc.value)
    assert f"available: {', '.join(uno_env.PRESETS)}" in str(exc.value)
    with pytest.raises(RuleError) as exc:
        uno_env.load_rules("house_uno")
    assert "'house_uno'" in str(exc.value)
    assert f"available: {', '.join(uno_env.PRESETS)}" in str(exc.value)


def test_load_rules_reads_any_path_as_a_rule_file(tmp_path: Path) -> None:
    """A rule file is a rule file whatever its name: without the .toml suffix (or with .TOML) it
    loads; a file that is not TOML, or a path that names no file, is reported as the file it is,
    not as an unknown preset."""
    variant = dataclasses.replace(uno_env.preset("uno"), seven_swap=True)
    for name in ("my_rules", "house.TOML"):
        (tmp_path / name).write_text(variant.to_toml(), encoding="utf-8")
        assert uno_env.load_rules(str(tmp_path / name)) == variant
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    with pytest.raises(RuleError, match=rf"rule file {re.escape(str(passwd))}") as exc:
        uno_env.load_rules(str(passwd))
    assert "unknown preset" not in str(exc.value)
    missing = tmp_path / "nope" / "rules"
    with pytest.raises(RuleError, match=re.escape(str(missing))) as exc:
        uno_env.load_rules(str(missing))
    assert "unknown preset" not in str(exc.value)
    unusable = "nope\x00"
    with pytest.raises(RuleError, match=re.escape(f"unknown preset {unusable!r}")):
        uno_env.load_rules(unusable)  # no file system takes the name: still a (bad) preset name


def test_load_rules_accepts_name_path_ruleset_and_overrides(tmp_path: Path) -> None:
    uno = uno_env.preset("uno")
    assert uno_env.load_rules() == uno
    assert uno_env.load_rules("uno") is uno
    variant = dataclasses.replace(uno, hand_size=6, uno_catch=0.5)
    assert uno_env.load_rules(variant) is variant
    assert uno_env.load_rules(uno, hand_size=6, uno_catch=0.5) == variant
    assert uno_env.load_rules("uno", hand_size=6, uno_catch=0.5) == variant
    path = tmp_path / "variant.toml"
    path.write_text(variant.to_toml(), encoding="utf-8")
    assert uno_env.load_rules(path) == variant
    assert uno_env.load_rules(str(path)) == variant
    assert uno_env.load_rules(path, hand_size=7) == dataclasses.replace(variant, hand_size=7)
    assert uno_env.Game(path, 3, seed=0).rules == variant


def test_load_rules_refuses_other_types_and_bad_overrides() -> None:
    with pytest.raises(RuleError) as exc:
        uno_env.load_rules(42)  # type: ignore[arg-type]
    assert "42" in str(exc.value)
    assert ", ".join(uno_env.PRESETS) in str(exc.value)
    with pytest.raises(RuleError, match=r"hand_size.*between 1 and 20, got 99"):
        uno_env.load_rules("uno", hand_size=99)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (("R:skip", "R:wild"), r"'R:wild' gives R an effect again \(after 'R:skip'\)"),
        (("r:skip", "R:wild"), r"'R:wild' gives R an effect again \(after 'r:skip'\)"),
        (("7:draw:2", "7:draw:2"), r"'7:draw:2' gives 7 an effect again"),
        (("R7:none", "R7:skip"), r"'R7:skip' gives R7 an effect again"),
        (("R7:none", "7:draw:2"), r"'7:draw:2' would replace 'R7:none' given before it"),
    ],
)
def test_card_effects_give_each_rank_or_card_one_effect(entries: tuple[str, ...], message: str) -> None:
    """U-DECK-1: an entry naming a rank or card again, or a rank's entry after one of its
    cards' entries, is refused: the later one replaced the earlier without a word, so the
    rule set played otherwise than the file read. A card's entry after its rank's overrides it."""
    with pytest.raises(RuleError, match=message):
        RuleSet(card_effects=entries)
    override = RuleSet(card_effects=("7:draw:2", "R7:none"))
    table = override.effect_table()
    red7, green7 = uno_env.parse_face("R7", "uno"), uno_env.parse_face("G7", "uno")
    assert table[red7] != table[green7] and table[green7][1] == 2
    french = uno_env.load_rules("macao", card_effects=(*uno_env.preset("macao").card_effects, "KH:draw:5"))
    with pytest.raises(RuleError, match="would replace 'KH:draw:5'"):
        french.with_overrides({"card_effects": (*french.card_effects, "K:skip")})
