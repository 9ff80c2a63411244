"""Rule sets are values: their one-line text is the preset plus the fields that differ, and
every check compares rule sets field by field, so a rule field added later at its default
changes nothing that was trained, recorded or golden.

- ``str(rules)`` is ``preset=NAME`` and the changed fields; :meth:`RuleSet.parse` reads it and
  the older form that listed every field (shipped policies' sidecars, records and checkpoints
  written before keep loading and matching);
- the proof: a copy of the package with one more rule field (a boolean at its default, as a
  new house-rule switch is added) loads the shipped policies and checks them against their
  own rules in strict mode, replays records written by this version, reads checkpoint
  sidecars, and plays every golden transcript to the same text.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import uno_env
from agents.policy_agent import PolicyMetadata, PolicyMismatchError, check_policy_metadata
from uno_env import PRESETS, RuleError, RuleSet
from uno_env.game import records
from uno_env.sim.learned import load_policy, shipped_policies

REPO_ROOT = Path(__file__).resolve().parent.parent
NEW_FIELD = """    test_added_switch: bool = _rule(
        False, "H-SCOPE-1", "a house rule added after everything else was written (tests only)"
    )
"""


def test_a_preset_is_its_name_and_a_variant_its_changes() -> None:
    for name, rules in PRESETS.items():
        assert str(rules) == f"preset={name}"
    variant = uno_env.load_rules("uno", seven_swap=True, stacking=("D2/D2",))
    assert str(variant) == "preset=uno stacking=D2/D2 seven_swap=true"
    macao = uno_env.load_rules("macao", hand_size=6)
    assert str(macao) == "preset=macao hand_size=6"


def test_both_one_line_forms_read_back_equal() -> None:
    variants = [*PRESETS.values(), uno_env.load_rules("uno_house", jump_in=False, cube=True)]
    for rules in variants:
        assert RuleSet.parse(str(rules)) == rules
        assert RuleSet.parse(rules.full_text()) == rules
    assert RuleSet.parse("preset=uno hand_size=5") == uno_env.load_rules("uno", hand_size=5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("preset=nope", "unknown preset 'nope'"),
        ("preset=uno preset=macao", "names 'preset' twice"),
        ("preset=uno no_such_field=1", "unknown rule key"),
        ("preset=uno hand_size=seven", "hand_size must be a number"),
    ],
)
def test_a_bad_rules_string_is_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(RuleError, match=message):
        RuleSet.parse(text)


def test_differences_are_named_field_by_field() -> None:
    house = uno_env.preset("uno_house")
    assert house.differences(house) == []
    changed = house.differences(uno_env.preset("uno"))
    assert any(c.startswith("seven_swap=true (other: false)") for c in changed)


def test_shipped_policies_carry_the_full_form_and_match_their_rules() -> None:
    """The shipped sidecars were written with every field listed: read as a value, their rules
    are the presets they were trained on, in strict mode too."""
    for name in shipped_policies():
        policy = load_policy(name)
        assert "preset=" not in policy.rules and "max_decisions=" in policy.rules  # the older form
        policy.check_game("uno", policy.num_players, allow_rules_mismatch=False)
        with pytest.raises(ValueError, match=r"trained on other rules .*seven_swap=true"):
            policy.check_game(
                uno_env.load_rules("uno", seven_swap=True), policy.num_players, allow_rules_mismatch=False
            )


def test_a_checkpoint_sidecar_in_either_form_matches_equal_rules() -> None:
    rules = uno_env.preset("uno")
    for text in (str(rules), rules.full_text()):
        meta = PolicyMetadata(rules=text, observation_spec="obs-v2", env_version="v1", num_players=2)
        check_policy_metadata(meta, "uno", num_players=2, observation_spec="obs-v2", env_version="v1")
    meta = PolicyMetadata(rules=rules.full_text(), observation_spec="obs-v2", env_version="v1", num_players=2)
    with pytest.raises(PolicyMismatchError, match="seven_swap"):
        check_policy_metadata(
            meta,
            uno_env.load_rules("uno", seven_swap=True),
            num_players=2,
            observation_spec="obs-v2",
            env_version="v1",
        )


def _played(name: str, players: int, seed: int) -> uno_env.Game:
    game = uno_env.Game(name, players, seed=seed)
    chooser = random.Random(seed)
    while not game.is_over():
        game.step(chooser.choice(game.legal_actions()))
    return game


def _in_full_form(record: records.GameRecord, rules: RuleSet) -> records.GameRecord:
    """The record as this version would have written it before: every field in its rules."""
    old = dataclasses.replace(record, rules=rules.full_text(), digest=None)
    return dataclasses.replace(old, digest=old.game_digest())


def test_a_record_with_the_full_form_still_replays() -> None:
    game = _played("uno_house", 3, 4)
    record = records.record_game(game, source="test")
    assert record.rules == "preset=uno_house"
    old = _in_full_form(record, game.rules)
    records.replay_game(old, check=True)
    assert old.ruleset() == game.rules


# ------------------------------------------------------------------ a field added later
CHECK_IN_THE_COPY = r"""
import dataclasses, json, sys
from pathlib import Path
import uno_env
from uno_env import RuleSet
from uno_env.game import records
from uno_env.sim.learned import load_policy, shipped_policies
from agents.policy_agent import PolicyMetadata, check_policy_metadata
from tests.golden.regenerate import cases, transcript, GOLDEN_DIR

out = {"package": uno_env.__file__}
out["field"] = "test_added_switch" in {f.name for f in dataclasses.fields(RuleSet)}
for name in shipped_policies():
    policy = load_policy(name)
    policy.check_game("uno", policy.num_players, allow_rules_mismatch=False)  # raises on a mismatch
out["policies"] = sorted(shipped_policies())
recorded = records.load_records(sys.argv[1])
for record in recorded:
    records.replay_game(record, check=True)
out["records"] = len(recorded)
for text in json.loads(Path(sys.argv[2]).read_text()):
    meta = PolicyMetadata(rules=text, observation_spec="obs-v2", env_version="v1", num_players=2)
    check_policy_metadata(meta, "uno", num_players=2, observation_spec="obs-v2", env_version="v1")
out["goldens"] = [
    c.file_name for c in cases() if transcript(c) != (GOLDEN_DIR / c.file_name).read_text(encoding="utf-8")
]
out["checked_goldens"] = len(cases())
print(json.dumps(out))
"""


def _copy_with_a_new_field(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    shutil.copytree(
        REPO_ROOT / "uno_env", site / "uno_env", ignore=shutil.ignore_patterns("__pycache__", "_compiled")
    )
    rules_py = site / "uno_env" / "engine" / "rules.py"
    text = rules_py.read_text(encoding="utf-8")
    anchor = "    max_decisions: int = _rule("
    assert anchor in text
    rules_py.write_text(text.replace(anchor, NEW_FIELD + anchor, 1), encoding="utf-8")
    return site


def test_a_rule_field_added_at_its_default_changes_nothing_trained_recorded_or_golden(tmp_path: Path) -> None:
    """In a copy of the package with one more rule field: the shipped policies match their
    rules strictly, records written by this version (both one-line forms) replay, checkpoint
    sidecars (both forms) match, and every golden transcript plays to the same text."""
    written = []
    for name, players in (("uno", 2), ("uno_house", 4), ("macao", 3)):
        game = _played(name, players, 9)
        record = records.record_game(game, source="test")
        written += [record, _in_full_form(record, game.rules)]
    records_file = tmp_path / "records.jsonl"
    records.save_records(records_file, written)
    sidecars = tmp_path / "sidecars.json"
    sidecars.write_text(json.dumps([str(uno_env.preset("uno")), uno_env.preset("uno").full_text()]))
    site = _copy_with_a_new_field(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "UNO_ENV_"))}
    env.update(
        PYTHONPATH=os.pathsep.join([str(site), str(REPO_ROOT)]),
        NUMBA_DISABLE_JIT="1",  # the copy is not compiled: the same engine, run as Python
        UNO_ENV_CACHE_DIR=str(tmp_path / "cache"),
    )
    done = subprocess.run(
        [sys.executable, "-c", CHECK_IN_THE_COPY, str(records_file), str(sidecars)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["package"] == str(site / "uno_env" / "__init__.py")
    assert result["field"] is True
    assert result["policies"] == sorted(shipped_policies())
    assert result["records"] == len(written)
    assert result["checked_goldens"] > 20
    assert result["goldens"] == []


def test_the_copy_check_sees_a_changed_default(tmp_path: Path) -> None:
    """The check can fail: in a copy where an existing field's default changes (official Uno
    deals eight cards), a policy trained on seven no longer matches its rules in strict mode."""
    site = _copy_with_a_new_field(tmp_path)
    rules_py = site / "uno_env" / "engine" / "rules.py"
    text = rules_py.read_text(encoding="utf-8")
    start = text.index("    hand_size: int = _rule(")
    assert text[start : start + 60].count("7") == 1
    rules_py.write_text(text[:start] + text[start:].replace("7", "8", 1), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "UNO_ENV_"))}
    env.update(PYTHONPATH=os.pathsep.join([str(site), str(REPO_ROOT)]), NUMBA_DISABLE_JIT="1")
    code = (
        "from uno_env.sim.learned import load_policy\n"
        "try:\n    load_policy('ppo_uno_2p').check_game('uno', 2, allow_rules_mismatch=False)\n"
        "except ValueError as exc:\n    print('refused:', exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    assert "refused:" in done.stdout and "hand_size=8 (trained: 7)" in done.stdout
