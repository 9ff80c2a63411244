"""Input from elsewhere, second audit: what the first campaign (``test_files_from_elsewhere.py``)
did not probe.

1. A JSON key given twice (``{"players": 2, "players": 3}``): Python's reader kept the last
   value without a word (a record replayed as "verified" whatever the first value said; a
   tournament folder resumed with another player count; a new web table got 3 players). Every
   reader of JSON from elsewhere now refuses it, naming the key. So is a rule field given
   twice on the command line (``--set hand_size=7 --set hand_size=8`` played with 8), and a
   training option given twice to ``uno-env exploitability --train``.
2. ``stacking = ["D2/D2", "D2/D2"]`` was accepted: a rule set that plays as ``["D2/D2"]``
   but compares and prints as another (a rank given two effects in ``card_effects`` was
   already refused); a pair given twice is refused now (H-STACK-1).
3. The options of an ``llm:`` agent: ``timeout=-1``, ``nan`` or ``inf`` raised ValueError or
   OverflowError from the socket layer at the first request, ``temperature=nan`` was sent as
   JSON no endpoint reads, ``max_tokens=0`` asked for answers of no tokens, ``key_env=123`` and
   ``base_url=5`` (a spec's numbers) raised TypeError and AttributeError: each now refused
   when the agent is named, one line naming the option and what it allows.
4. A name written with a typo (``stackng``, ``color``, ``gams``, ``greedyy``) listed every
   valid name but not the one meant: errors now say "did you mean ...?" first.
5. ``--rules NAME`` where ``NAME`` is a folder or a link loop in the current folder said
   "unknown preset 'NAME'", and an agent ``p.npz`` or ``m.zip`` that is a folder, a FIFO or a
   broken link said "does not exist": each is named as what it is now.
6. An exported policy's sidecar with a key its ``architecture`` does not have (``layer_norm``,
   ``activaton``) loaded, the key ignored: a network run otherwise than it was trained, or a
   typo's value replaced by nothing. Unknown keys of ``architecture`` and its ``critic`` are
   refused now, with the name meant.
7. A position field holding an integer of more than 19 digits (``decisions=``, ``scores=``)
   said "must be an integer"; it says how many digits it has and how many are allowed.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

import pytest

import uno_env
from agents import ChatAgent
from agents.spec import AgentSpecError, parse_agent
from training.common import resolve_rules
from uno_env import files
from uno_env.engine.rules import RuleError, load_rules
from uno_env.game import records
from uno_env.game.records import RecordError
from uno_env.spelling import close_names, suggestion

POSITION = "hands=R1 R7 W/G3 B9; discard=R5; draw=B2 G9; colour=R; seat=0; dir=+; phase=play"


# ================================================================ 1. a key given twice
def test_a_json_key_given_twice_is_refused_naming_the_key() -> None:
    with pytest.raises(files.FileError) as info:
        files.parse_json('{"a": {"players": 2, "players": 3}}', "tournament record t.json")
    assert str(info.value) == (
        "tournament record t.json: the document gives the key 'players' twice in one object; "
        "allowed: each key at most once in an object"
    )
    with pytest.raises(files.FileError, match="gives the key 'seed' twice"):
        files.parse_json('[{"seed": 1}, {"seed": 1, "seed": 1}]', "x", finite=True)
    assert files.parse_json('[{"seed": 1}, {"seed": 2}]', "x") == [{"seed": 1}, {"seed": 2}]


def test_a_tournament_folder_with_a_key_given_twice_is_not_resumed(tmp_path: Path) -> None:
    from training.tournament import recorded_design

    design = {"format": "uno-env-tournament/1", "rules": "preset=uno", "players": 2}
    text = json.dumps(design).replace('"players": 2', '"players": 2, "players": 3')
    (tmp_path / "tournament.json").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="gives the key 'players' twice in one object"):
        recorded_design(tmp_path)


def test_a_record_with_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    game = uno_env.Game("uno", 2, seed=1)
    while not game.is_over():
        game.step(game.legal_actions()[0])
    line = json.dumps(records.record_game(game, agents=["a", "b"]).to_dict())
    path = tmp_path / "r.jsonl"
    path.write_text(line + "\n" + line.replace('{"format"', '{"seed": 5, "format"', 1) + "\n")
    # without the refusal the last value won: the record replayed and verified as seed 1
    with pytest.raises(RecordError, match=r"r\.jsonl, line 2: not a record \(the key 'seed' appears twice"):
        records.load_records(path)


def test_web_messages_and_requests_with_a_key_given_twice_are_refused(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from training.serve.app import make_app
    from training.serve.protocol import ProtocolError, parse_message

    with pytest.raises(ProtocolError, match="the key 'action' appears twice in one object"):
        parse_message('{"type": "act", "action": 1, "action": 2, "decision": 0}')
    app, _ = make_app(records=tmp_path / "g.jsonl")
    body = '{"preset": "uno", "rules": {}, "players": 2, "players": 3, "seats": ["human", "greedy"]}'
    answer = TestClient(app).post("/api/tables", content=body.encode())
    assert answer.status_code == 400
    assert answer.json()["error"] == (
        "the request body: the key 'players' appears twice in one object; "
        "allowed: each key at most once in an object"
    )


def test_a_rule_field_set_twice_on_the_command_line_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from training.cli import main

    with pytest.raises(ValueError, match=r"^--set hand_size is given twice \('7', then '8'\); allowed: each"):
        resolve_rules("uno", ["hand_size=7", "hand_size=8"])
    assert main(["simulate", "--games", "1", "--set", "hand_size=7", "--set", "hand_size = 8"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-env: error: --set hand_size is given twice") and err.count("\n") == 1
    assert resolve_rules("uno", ["hand_size=6", "stacking=D2/D2,WD4/WD4"]).hand_size == 6
    from training.exploitability import _train_options

    with pytest.raises(ValueError, match=r"^--train learning_rate is given twice; allowed: each training"):
        _train_options(["learning_rate=1e-3", "learning_rate=2e-3"])


# ================================================================ 2. a stacking pair given twice
def test_a_stacking_pair_given_twice_is_refused() -> None:
    """H-STACK-1: each CARD/ON pair once, however it is spelled."""
    for pairs in (["D2/D2", "D2/D2"], ["D2/D2", "WD4/WD4", "d2/d2"]):
        with pytest.raises(
            RuleError, match=r"rule stacking \(H-STACK-1\): '(D2|d2)/(D2|d2)' repeats the pair "
        ):
            load_rules("uno", stacking=tuple(pairs))
    with pytest.raises(RuleError, match="repeats the pair '7/7'; allowed: each CARD/ON pair once"):
        uno_env.RuleSet.from_toml_string('preset = "mau_mau"\nstacking = ["7/7", "7/7"]')
    assert load_rules("uno", stacking=("D2/D2", "WD4/D2")).stack_pairs() != []


# ================================================================ 3. the options of an llm: agent
LLM = "llm:model=m,base_url=http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("option", "allowed"),
    [
        ("timeout=-1", "a number of seconds above 0, at most 86,400"),  # raised ValueError at the request
        ("timeout=0", "a number of seconds above 0"),  # a non-blocking socket
        ("timeout=nan", "a number of seconds above 0"),  # raised ValueError at the request
        ("timeout=inf", "a number of seconds above 0"),  # raised OverflowError at the request
        ("timeout=1e12", "at most 86,400"),  # raised OverflowError at the request
        ("temperature=nan", "a finite number 0 or more"),  # sent as NaN, which is not JSON
        ("temperature=-1", "a finite number 0 or more"),
        ("max_tokens=0", "an integer 1 or more"),
        ("retries=-1", "an integer 0 or more"),
        ("base_url=5", "an http:// or https:// URL"),  # raised AttributeError
        ("history=1.5", "an integer 0 or more"),
    ],
)
def test_llm_options_out_of_range_are_refused_when_the_agent_is_named(option: str, allowed: str) -> None:
    key = option.partition("=")[0]
    with pytest.raises(AgentSpecError) as info:
        parse_agent(f"{LLM},{option}" if key != "base_url" else f"llm:model=m,{option}")
    message = str(info.value)
    assert f"option {key} is " in message and "\n" not in message
    assert allowed in message.partition("; allowed: ")[2]


def test_llm_text_options_take_a_number_as_text_and_the_class_checks_its_arguments() -> None:
    agent = parse_agent(f"{LLM},key_env=123").make("uno", 2, 0)
    assert isinstance(agent, ChatAgent) and agent.key_env == "123"  # os.environ.get(123) raised TypeError
    assert agent.timeout == 60.0 and agent.max_tokens == 64
    for bad in ({"timeout": -1}, {"timeout": math.inf}, {"temperature": math.nan}, {"retries": True}):
        with pytest.raises(ValueError, match=f"option {next(iter(bad))} is "):
            ChatAgent("m", "http://127.0.0.1:9/v1", **bad)
    with pytest.raises(ValueError, match="base_url must start with http"):
        ChatAgent("m", 5)  # type: ignore[arg-type]


# ================================================================ 4. did you mean ...?
def _message(call: Any) -> str:
    try:
        call()
    except (ValueError, RuleError) as exc:
        return str(exc)
    raise AssertionError("no error")


@pytest.mark.parametrize(
    ("call", "hint"),
    [
        (lambda: load_rules("uno", stackng=("D2/D2",)), "stackng (did you mean 'stacking'?); valid keys"),
        (lambda: load_rules("unoo"), "unknown preset 'unoo' (did you mean 'uno'?); available"),
        (lambda: resolve_rules("uno", ["sevenswap=true"]), "sevenswap (did you mean 'seven_swap'?)"),
        (
            lambda: uno_env.Game.from_position("uno", POSITION.replace("colour=", "color=")),
            "unknown position field 'color' (did you mean 'colour'?)",
        ),
        (lambda: uno_env.styles.registry.parse_policy("greedyy"), "'greedyy' (did you mean 'greedy'?)"),
        (lambda: parse_agent("bluffer:blff=0.3"), "no parameter 'blff' (did you mean 'bluff'?)"),
        (lambda: parse_agent("ppo_uno2p"), "'ppo_uno2p' (did you mean 'ppo_uno_2p'?), and no shipped"),
        (lambda: parse_agent(f"{LLM},modle=x"), "no option 'modle' (did you mean 'model'?)"),
    ],
)
def test_a_typo_in_a_name_is_answered_with_the_name_meant(call: Any, hint: str) -> None:
    assert hint in _message(call)


def test_a_typo_in_a_spec_key_or_switch_is_answered_with_the_name_meant() -> None:
    from training import study, sweep
    from training.atlas.spec import parse_spec as parse_atlas

    assert "unknown key(s) gams (did you mean 'games'?); allowed" in _message(
        lambda: study.parse_spec({"gams": 100})
    )
    assert "unknown switch(es) jumpin (did you mean 'jump_in'?)" in _message(
        lambda: parse_atlas({"variations": {"x": {"jumpin": True}}})
    )
    assert "unknown key(s) step (did you mean 'steps'?)" in _message(lambda: sweep.parse_sweep({"step": 5}))


def test_a_suggestion_is_only_given_for_a_close_name() -> None:
    assert suggestion("poker", ["uno", "uno_house", "macao"]) == ""
    assert close_names("STACKING", ["stacking", "stack_growth"]) == ["stacking"]
    assert suggestion("stack", ["stacking", "stack_growth"]).startswith(" (did you mean 'stacking'")


# ================================================================ 5. a bare name that is no file
def test_a_bare_name_of_a_folder_or_a_link_loop_is_named_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "house").mkdir()
    os.symlink("loop_b", tmp_path / "loop_a")
    os.symlink("loop_a", tmp_path / "loop_b")
    with pytest.raises(
        RuleError, match=r"^rule file house: the file is a directory; allowed: a regular file$"
    ):
        load_rules("house")
    with pytest.raises(RuleError, match=r"^rule file loop_a: the file cannot be opened"):
        load_rules("loop_a")
    (tmp_path / "uno").mkdir()  # a preset's name stays the preset
    assert load_rules("uno") is uno_env.preset("uno")


@pytest.mark.parametrize(
    ("make", "found"),
    [
        (lambda path: path.mkdir(), "is a folder; allowed: a file"),
        (lambda path: os.mkfifo(path), "is not a regular file (a FIFO, device or socket); allowed: a file"),
        (lambda path: path.symlink_to(path.with_name("gone")), "is a broken link; allowed: a file"),
        (lambda path: None, "does not exist"),
    ],
)
@pytest.mark.parametrize(("name", "kind"), [("p.npz", "exported policy"), ("m.zip", "checkpoint")])
def test_an_agent_file_that_is_no_file_is_named_as_what_it_is(
    tmp_path: Path, make: Any, found: str, name: str, kind: str
) -> None:
    path = tmp_path / name
    make(path)
    with pytest.raises(AgentSpecError, match=f"^agent: {kind} {re.escape(str(path))} {re.escape(found)}"):
        parse_agent(str(path))


# ================================================================ 6. a sidecar's architecture
@pytest.mark.parametrize(
    ("architecture", "message"),
    [
        ({"layer_norm": True}, "architecture has unknown key(s) 'layer_norm' (each key describes"),
        ({"activaton": "relu"}, "architecture has unknown key(s) 'activaton' (did you mean 'activation'"),
        (
            {"critic": {"inputs": 0, "hidden": [8], "encoding": "public", "norm": 1}},
            "architecture.critic has unknown key(s) 'norm'",
        ),
    ],
)
def test_a_sidecar_architecture_key_this_reader_does_not_know_is_refused(
    tmp_path: Path, architecture: dict[str, Any], message: str
) -> None:
    from tests.policy_files import game_sizes, set_sidecar, write_policy
    from uno_env.sim.learned import PolicyFileError, load_exported

    path = write_policy(tmp_path)
    load_exported(path)  # the file as written loads
    if "critic" in architecture:
        architecture["critic"]["inputs"] = game_sizes()[0]
    set_sidecar(path, architecture=architecture)
    with pytest.raises(PolicyFileError, match=re.escape(message)) as info:
        load_exported(path)
    assert "allowed: the keys " in str(info.value) and "\n" not in str(info.value)


# ================================================================ 7. a position's long integers
def test_a_position_integer_of_too_many_digits_is_named_as_one() -> None:
    long = "9" * 23
    for extra, field in ((f"; decisions={long}", "decisions"), (f"; scores={long} 0", "scores")):
        with pytest.raises(uno_env.PositionError) as info:
            uno_env.Game.from_position("uno", POSITION + extra)
        assert str(info.value) == (
            f"position field {field}='{long}' is an integer of 23 digits; allowed: at most 19 digits "
            "(and the field's range)"
        )
    with pytest.raises(uno_env.PositionError, match=r"decisions='1x' must be an integer$"):
        uno_env.Game.from_position("uno", POSITION + "; decisions=1x")
