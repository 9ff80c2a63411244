"""Option codes have one source: the tables of :mod:`uno_env.engine.options`.

Each multi-word rule field takes its words from one table, :func:`compile_spec` writes the
table's code, the engine's constants are read from it, and no other module spells a code
again (a tuple of an option's words, or a constant set to a literal). The fast-path and
feature lists are computed from the fields' declared features.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from uno_env.engine import engine
from uno_env.engine import layout as L
from uno_env.engine import options as O
from uno_env.engine.rules import PRESETS, RuleError, RuleSet, compile_spec

PACKAGE = Path(__file__).resolve().parent.parent / "uno_env"
FIELDS = {f.name: f for f in dataclasses.fields(RuleSet)}
OPTION_FIELDS = [name for name, f in FIELDS.items() if f.metadata["codes"] is not None]
TABLES = {name: value for name, value in vars(O).items() if name.isupper() and isinstance(value, dict)}


def _variant(name: str, value: Any) -> RuleSet | None:
    """A valid rule set with ``name = value``, from the first preset that allows it."""
    for rules in PRESETS.values():
        try:
            return dataclasses.replace(rules, **{name: value})
        except RuleError:
            continue
    return None


def test_every_table_is_a_field_and_its_codes_are_dense() -> None:
    used = {id(FIELDS[name].metadata["codes"]) for name in OPTION_FIELDS}
    for table_name, table in TABLES.items():
        assert id(table) in used, f"options.{table_name} is no RuleSet field's table"
        assert sorted(table.values()) == list(range(len(table))), table_name


@pytest.mark.parametrize("name", OPTION_FIELDS)
def test_the_field_allows_the_table_words_and_compiles_their_codes(name: str) -> None:
    meta = FIELDS[name].metadata
    assert meta["choices"] == tuple(meta["codes"])
    assert meta["slot"] is not None
    for word, code in meta["codes"].items():
        rules = _variant(name, word)
        assert rules is not None, f"no preset accepts {name}={word!r}"
        assert compile_spec(rules)[meta["slot"]] == code, (name, word)
    with pytest.raises(RuleError, match=f"rule {name} .*must be one of"):
        RuleSet().with_overrides({name: "no_such_word"})


def test_numbers_and_switches_compile_into_their_slots() -> None:
    rules = dataclasses.replace(PRESETS["uno"], uno_catch=0.25, challenge_penalty=3, jump_in=True)
    spec = compile_spec(rules)
    assert spec[L.SP_UNO_CATCH_PPM] == 250_000
    assert spec[L.SP_CHALLENGE_PENALTY] == 3
    assert spec[L.SP_JUMP_IN] == 1
    slots = [f.metadata["slot"] for f in FIELDS.values() if f.metadata["slot"] is not None]
    assert len(slots) == len(set(slots)), "two rule fields write the same spec slot"


def test_engine_constants_are_the_table_codes() -> None:
    assert O.DRAW["one_then_any"] == engine.DRAW_ONE_THEN_ANY
    assert O.WD4_BLUFF["challenge"] == engine.WD4_CHALLENGE
    assert O.CALL["mau_mau"] == engine.CALL_MAU_MAU
    assert O.MATCH["lowest_total"] == engine.MATCH_LOWEST_TOTAL
    assert O.ZERO_RULE["discard_colour"] == engine.ZERO_DISCARD_COLOUR
    assert O.MULTI_PLAY["same_rank"] == engine.MULTI_SAME_RANK
    assert O.START_CARD["number_only"] == engine.START_PLAIN


def _option_constants() -> set[str]:
    """Names the engine reads from an option table (``NAME = O.TABLE["word"]``)."""
    tree = ast.parse((PACKAGE / "engine" / "engine.py").read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
            base = node.value.value
            if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "O":
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_no_module_spells_an_option_code_again() -> None:
    constants = _option_constants()
    assert {"DRAW_ONE_THEN_ANY", "WD4_CHALLENGE", "CALL_NONE"} <= constants
    word_sets = [set(table) for table in TABLES.values() if len(table) > 2]  # 2-word ones are flags
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "options.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id in constants:
                        found.append(f"{path.name}:{node.lineno} sets {target.id} to a literal")
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                words = {
                    e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                }
                for option_words in word_sets:
                    if len(words & option_words) >= 3:
                        found.append(f"{path.name}:{node.lineno} lists option words {sorted(words)}")
    assert not found, "option codes spelled outside uno_env/engine/options.py:\n" + "\n".join(found)


TAGGED = {
    feature: {name for name, f in FIELDS.items() if feature in f.metadata["features"]}
    for feature in O.FEATURES
}
"""The fields that carry each fast-path feature, read from the field metadata: a new field is
tagged where it is declared (``features=``), and ``tests/test_fast_path.py`` checks by playing
every field off its plain values that the engine's fast paths skip no rule (a missing tag)."""
SAMPLES: dict[str, Any] = {"stacking": ("D2/D2",), "card_effects": ("7:skip",), "wild_not_on": "7"}
FLAGS = {
    O.STAGED: (L.SP_PLAIN_PLAYS, 0),
    O.RESTRICTS_PLAY: (L.SP_PLAIN_MATCHING, 0),
    O.NUMBER_EFFECT: (L.SP_NUMBER_EFFECTS, 1),
}


def _off_plain_values(name: str) -> list[Any]:
    """Values of field ``name`` outside its plain ones (one per word for options)."""
    f = FIELDS[name]
    plain = f.metadata["plain"]
    if name in SAMPLES:
        return [SAMPLES[name]]
    if f.metadata["choices"]:
        return [c for c in f.metadata["choices"] if c not in plain]
    if f.type == "bool":
        return [not f.default]
    if f.type == "int":
        return [int(f.default) + 1]  # type: ignore[arg-type]
    return []


def test_every_tag_names_a_feature_and_every_feature_is_carried() -> None:
    for name, f in FIELDS.items():
        assert set(f.metadata["features"]) <= set(O.FEATURES), name
    for feature in O.FEATURES:
        assert TAGGED[feature], feature


@pytest.mark.parametrize("feature", list(FLAGS))
def test_a_field_off_its_plain_values_sets_its_feature_flag(feature: str) -> None:
    slot, when_on = FLAGS[feature]
    checked = 0
    for name in FIELDS:
        for value in _off_plain_values(name):
            rules = _variant(name, value)
            if rules is None or any(
                feature in FIELDS[other].metadata["features"] and other != name
                for other in rules.rules_with(feature)
            ):
                continue  # only presets where this field alone can carry the feature
            expected = when_on if name in TAGGED[feature] else 1 - when_on
            assert compile_spec(rules)[slot] == expected, (feature, name, value)
            checked += 1
    assert checked > 20


def test_uno_deck_house_rules_are_refused_with_a_french_deck() -> None:
    for name in TAGGED[O.UNO_DECK_ONLY]:
        value = _off_plain_values(name)[0]
        with pytest.raises(RuleError, match=f"{name} .*need deck='uno'"):
            dataclasses.replace(PRESETS["mau_mau"], **{name: value})
