"""The rule reference (``uno_env/game/rule_reference.toml``, rendered as ``docs/rules.md``).

Every rule ID cited anywhere in the code, tests, notebooks and docs must be defined in the
reference, and every ID defined there must be cited by a test. The reference must agree with
the code: its fields exist and cover every :class:`~uno_env.RuleSet` field's own rule ID, its
presets and sources exist, a rule switched by booleans alone is in force in exactly the
presets that turn it on, and ``docs/rules.md`` is the current rendering. The README and the
home page say which rules have a switch as the reference does.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import uno_env
from training.cli import main
from uno_env.engine.rules import RuleError, RuleSet
from uno_env.game import reference

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("uno_env", "agents", "training", "tests", "benchmarks", "examples", "notebooks", "docs")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".ipynb", ".txt", ".json", ".jsonl", ".cfg", ".ini", ""}
THIS_FILE = Path(__file__).resolve()
RECIPES = ROOT / "tests" / "test_recipes.py"
"""Adds a rule of its own (and its ID) in a copy of the project, not here."""


def repository_texts() -> dict[Path, str]:
    """The text files of the project (not the virtual environment, caches or run outputs)."""
    files = [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]
    for top in SCANNED:
        files += [p for p in (ROOT / top).rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES]
    texts = {}
    for path in files:
        if "__pycache__" in path.parts or ".ipynb_checkpoints" in path.parts:
            continue
        texts[path] = path.read_text(encoding="utf-8")
    return texts


def test_cited_ids_expand_ranges_and_ignore_look_alikes() -> None:
    text = "U-DRAW-1..4, U-START-1/2 and MD-NOTE; not SHA-256, UTF-8, X-1, pre-2024-01 or [A-Z0-9]+"
    assert reference.cited_ids(text) == {
        "U-DRAW-1", "U-DRAW-2", "U-DRAW-3", "U-DRAW-4", "U-START-1", "U-START-2", "MD-NOTE",
    }  # fmt: skip


def test_every_cited_rule_id_is_defined() -> None:
    defined = set(reference.rule_ids())
    undefined = {
        f"{path.relative_to(ROOT)}: {rule_id}"
        for path, text in repository_texts().items()
        if path not in (THIS_FILE, RECIPES)
        for rule_id in reference.cited_ids(text) - defined
    }
    assert not undefined, f"rule IDs cited but not in uno_env/game/rule_reference.toml: {sorted(undefined)}"


def test_no_rule_id_is_cited_without_its_number() -> None:
    """A family prefix and a stem without the rule's number (``E-CARD``) reads as a rule ID that
    the reference does not have (only ``MD-NOTE`` has no number)."""
    prefixes = "|".join(sorted((f.prefix for f in reference.reference().families), key=len, reverse=True))
    stem = re.compile(rf"(?<![\w-])(?:{prefixes})-[A-Z][A-Z0-9]*(?![\w-])")
    cut = {
        f"{path.relative_to(ROOT)}: {found}"
        for path, text in repository_texts().items()
        if path not in (THIS_FILE, RECIPES)
        for found in set(stem.findall(text)) - {"MD-NOTE"}
    }
    assert not cut, f"rule IDs without their number: {sorted(cut)}"


def test_every_defined_rule_id_is_cited_by_a_test() -> None:
    cited: set[str] = set()
    for path in (ROOT / "tests").glob("test_*.py"):
        if path.resolve() != THIS_FILE:
            cited |= reference.cited_ids(path.read_text(encoding="utf-8"))
    missing = [rule_id for rule_id in reference.rule_ids() if rule_id not in cited]
    assert not missing, f"rule IDs no test cites: {missing}"


def test_the_reference_names_real_fields_presets_and_sources() -> None:
    ref = reference.reference()
    names = {f.name for f in dataclasses.fields(RuleSet)}
    prefixes = {f.prefix for f in ref.families}
    assert list(ref.sources) == ["uno_and_mau_mau", "doubling_sevens", "uno_wiki", "super_mario", "macao"]
    for rule in ref.rules.values():
        assert rule.title and rule.text, rule.id
        assert rule.prefix in prefixes, rule.id
        assert set(rule.fields) <= names, (rule.id, set(rule.fields) - names)
        assert set(rule.presets) <= set(uno_env.PRESETS), rule.id
        assert set(rule.sources) <= set(ref.sources), rule.id
        assert rule.sources or rule.prefix == "E", f"{rule.id} names no source"
    for f in dataclasses.fields(RuleSet):
        owner = f.metadata["rule"]
        assert f.name in ref.rules[owner].fields, f"{owner} does not list the field {f.name} that cites it"


def test_boolean_switches_are_in_force_exactly_where_a_preset_turns_them_on() -> None:
    for rule in reference.reference().rules.values():
        kinds = {f.name: f.type for f in dataclasses.fields(RuleSet)}
        if not rule.fields or any(kinds[name] != "bool" for name in rule.fields):
            continue
        on = [name for name, rules in uno_env.PRESETS.items() if any(getattr(rules, f) for f in rule.fields)]
        assert list(rule.presets) == on, rule.id


def test_docs_rules_md_is_the_current_rendering() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert text == reference.markdown(), "docs/rules.md is stale: run `make rules-doc`"
    for rule_id in reference.rule_ids():
        assert f"### {rule_id}: " in text


def test_docs_rule_switches_md_is_the_current_rendering() -> None:
    """The table of switches is generated from the field metadata into the hand-written page
    (``docs/rule-switches.md.in``): a new field is a new row after ``make rules-doc``."""
    template = (ROOT / "docs" / "rule-switches.md.in").read_text(encoding="utf-8")
    text = (ROOT / "docs" / "rule-switches.md").read_text(encoding="utf-8")
    assert text == reference.switches_markdown(template), (
        "docs/rule-switches.md is stale: run `make rules-doc`"
    )


def test_the_switches_table_has_a_row_per_field_with_its_rule_and_default() -> None:
    table = reference.switches_table()
    rows = [line for line in table.splitlines()[2:]]
    assert [row.split("|")[1].strip() for row in rows] == [f"`{f.name}`" for f in dataclasses.fields(RuleSet)]
    house = next(row for row in rows if row.startswith("| `seven_swap` |"))
    cells = [cell.strip() for cell in house.strip("|").split("|")]
    assert cells[1] == "H-SEVEN-1" and cells[3] == "true / false (false)"
    hand = next(row for row in rows if row.startswith("| `hand_size` |"))
    assert hand.endswith("| integer 1..20 (7) |")


def test_explain_prints_the_rule_its_fields_and_presets() -> None:
    text = reference.explain("u-wd4-2")
    assert text.startswith("U-WD4-2: Bluffing a Wild Draw Four, and the challenge (Uno)")
    assert "sources: Uno and Mau-Mau; Uno wiki; Uno Super Mario" in text
    assert "in force in: uno, uno_house, uno_mario" in text
    assert 'wd4_bluff: one of "challenge" | "unpunished" | "refused"; default "challenge"' in text
    assert "challenge_penalty: integer 0..20; default 2" in text
    assert 'challenge_colour = "annulled" in every preset' in text
    assert "left open by the sources" in text
    stacking = " ".join(reference.explain("H-STACK-1").split())  # presets with one value share a line
    assert 'stacking: uno, uno_mario []; uno_house ["D2/D2", "WD4/WD4", "WD4/D2"]; mau_mau, ' in stacking
    assert 'mau_mau_doubling ["7/7"]; macao ["2/2", ' in stacking


def test_unknown_rule_id_lists_close_matches() -> None:
    with pytest.raises(RuleError, match=r"unknown rule ID 'U-WD4'; did you mean U-WD4-2, U-WD4-1"):
        reference.explain("U-WD4")
    with pytest.raises(RuleError, match=r"unknown rule ID 'Z-1' \(IDs start with U-, H-"):
        reference.explain("Z-1")


def test_cli_rules_explain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--explain", "MC-FOUR-1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("MC-FOUR-1: The Four makes a player sit out (Macao)")
    assert "in force in: macao" in out
    assert main(["rules", "--explain", "all"]) == 0
    index = capsys.readouterr().out
    assert all(rule_id in index for rule_id in reference.rule_ids())
    assert main(["rules", "--explain", "MC-FOR-1"]) == 2
    assert "did you mean MC-FOUR-1" in capsys.readouterr().err


# ---------------------------------------------------------------- switches in words
def test_every_option_of_every_choice_field_has_words() -> None:
    """Each option of a field that picks one of several words is documented as ``'option':
    what it does``, so reports can name any switch in words without a hand-kept table."""
    for f in dataclasses.fields(RuleSet):
        choices = f.metadata["choices"]
        if not choices:
            continue
        meanings = set()
        for option in choices:
            words = reference.setting_words(f.name, option)
            assert words.meaning and "'" not in words.meaning.replace("'s ", ""), (f.name, option)
            assert words.rule_id in reference.rule_ids()
            assert words.title == reference.find_rule(words.rule_id).title
            meanings.add(words.meaning)
        assert len(meanings) == len(choices), f"{f.name}: two options read the same"


def test_setting_words_name_the_rule_and_what_the_value_does() -> None:
    words = reference.setting_words("draw_when_playable", False)
    assert (words.rule_id, words.assignment, words.value_words) == (
        "U-DRAW-3",
        "draw_when_playable=false",
        "off",
    )
    assert words.name == "Drawing with a playable card in hand: off"
    assert words.meaning == "drawing is allowed while holding a playable card: no"
    # an option that cites a rule of its own takes that rule's ID and title
    until = reference.setting_words("draw", "until_playable")
    assert (until.rule_id, until.title) == ("U-DRAW-2", "Drawing until a card fits")
    assert until.meaning == "keep drawing until a card can be played"
    assert reference.setting_words("start_card", "number_only").rule_id == "U-START-2"
    # a field that shares its rule with others is named by what the value does
    drawn = reference.setting_words("drawn_card", "must_play")
    assert drawn.name == "a playable drawn card: must be played"
    stack = reference.setting_words("stacking", ("D2/D2", "WD4/WD4"))
    assert stack.name == "Stacking draw penalties: D2/D2, WD4/WD4"
    assert stack.assignment == "stacking=D2/D2,WD4/WD4"
    assert reference.setting_words("uno_penalty", 4).name == "cards drawn when a missed call is caught: 4"


def test_switches_words_read_a_rules_string_fragment() -> None:
    words = reference.switches_words("stacking=D2/D2,WD4/WD4 seven_swap=true")
    assert [w.assignment for w in words] == ["stacking=D2/D2,WD4/WD4", "seven_swap=true"]
    assert [w.rule_id for w in words] == ["H-STACK-1", "H-SEVEN-1"]
    assert reference.switches_words({"jump_in": True})[0].name == "Jump-in: on"
    with pytest.raises(RuleError, match="unknown rule field"):
        reference.setting_words("jump", True)
    with pytest.raises(RuleError, match="unknown rule field"):
        reference.switches_words("jump=true")
    with pytest.raises(RuleError, match="must be one of"):
        reference.switches_words("draw=sometimes")


def test_reference_script_writes_the_make_rules_doc_pages_and_refuses_bad_arguments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``make rules-doc`` runs ``python -m uno_env.game.reference RULES TEMPLATE SWITCHES``; its ``--help``
    once wrote the rule reference to a file named ``--help``, and a template without the page to write
    was ignored."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as helped:
        reference.main(["--help"])
    assert helped.value.code == 0 and "usage:" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []
    template = ROOT / "docs" / "rule-switches.md.in"
    with pytest.raises(SystemExit) as refused:
        reference.main(["rules.md", str(template)])
    assert refused.value.code == 2 and "needs the switches page" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    assert reference.main(["rules.md", str(template), "switches.md"]) == 0
    assert (tmp_path / "rules.md").read_text(encoding="utf-8") == reference.markdown()
    switches = reference.switches_markdown(template.read_text(encoding="utf-8"))
    assert (tmp_path / "switches.md").read_text(encoding="utf-8") == switches


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_the_pages_say_which_rules_have_a_switch(page: str) -> None:
    """The README and the home page say that every rule has a switch of a RuleSet unless it
    always holds where it applies, naming a rule with no field; they once said every rule has
    one, while some (E-SEED-1, U-MATCH-1, ...) have none."""
    rules = reference.reference().rules.values()
    fixed = {rule.id for rule in rules if not rule.fields}
    assert fixed and len(fixed) < len(rules)
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
    claim = re.search(
        r"a switch of a `RuleSet` unless it always holds where it applies \(([A-Z]+-[A-Z]+-\d+)", text
    )
    assert claim, f"{page} no longer says which rules have a switch"
    assert claim[1] in fixed, f"{page} names {claim[1]} as a rule without a switch; those are {sorted(fixed)}"
