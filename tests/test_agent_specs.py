"""The agent-spec grammar (agents.spec): every form, paths always paths, ambiguity refused, and
every tool reading a spec the same way (train, selfplay, evaluate, simulate, tournament, play
and a study spec)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.spec import (
    AgentSpec,
    AgentSpecError,
    as_spec,
    parse_agent,
    parse_seats,
    parse_weighted,
    split_seats,
)
from uno_env.sim.learned import shipped_policies
from uno_env.styles.registry import parse_policy

USER_FILE = Path(__file__).parent / "user_agents" / "seeded_agent.py"
SHIPPED_2P = shipped_policies()["ppo_uno_2p"]


def kinds(specs: list[AgentSpec]) -> list[str]:
    return [s.kind for s in specs]


# ---------------------------------------------------------------- the forms
@pytest.mark.parametrize(
    ("text", "kind", "target"),
    [
        ("greedy", "style", "greedy"),
        ("search:sims=300", "style", "search:sims=300"),
        (f"search:net={SHIPPED_2P},sims=50", "style", f"search:net={SHIPPED_2P},sims=50"),
        ("random", "style", "random"),
        ("ppo_uno_2p", "policy", "ppo_uno_2p"),
        ("tests.user_agents.seeded_agent:Seeded", "python", "tests.user_agents.seeded_agent"),
        ("py:tests.user_agents.seeded_agent:make_seeded", "python", "tests.user_agents.seeded_agent"),
    ],
)
def test_names(text: str, kind: str, target: str) -> None:
    spec = parse_agent(text)
    assert (spec.kind, spec.target) == (kind, target)
    assert spec.compiled == (kind in ("style", "policy"))


def test_a_path_is_always_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # absolute, relative with slashes, relative without, with ./ and file:, all one agent
    absolute = str(SHIPPED_2P)
    assert split_seats(absolute) == [AgentSpec("policy", absolute, target=absolute)]
    monkeypatch.chdir(SHIPPED_2P.parent.parent)  # uno_env/: "pretrained/ppo_uno_2p.npz"
    for text in (
        "pretrained/ppo_uno_2p.npz",
        "./pretrained/ppo_uno_2p.npz",
        "file:pretrained/ppo_uno_2p.npz",
    ):
        (spec,) = split_seats(text)
        assert spec.kind == "policy" and Path(spec.target).resolve() == SHIPPED_2P.resolve(), text
    monkeypatch.chdir(SHIPPED_2P.parent)
    (spec,) = split_seats("ppo_uno_2p.npz")
    assert spec.kind == "policy" and Path(spec.target).resolve() == SHIPPED_2P.resolve()
    # a Python file agent with slashes in its path, and options
    (spec,) = split_seats(f"{USER_FILE}:Seeded:bias=0.5")
    assert (spec.kind, spec.attr, dict(spec.options)) == ("python", "Seeded", {"bias": 0.5})
    # a missing file is named as a missing file, never read as seats
    with pytest.raises(AgentSpecError, match="does not exist"):
        split_seats(str(tmp_path / "runs" / "nope.npz"))
    with pytest.raises(AgentSpecError, match="does not exist"):
        split_seats("/no/such/model.zip")


def test_seat_tables() -> None:
    assert kinds(split_seats("greedy/blocker/ppo_uno_2p")) == ["style", "style", "policy"]
    table = split_seats(f"{SHIPPED_2P} | search:sims=50 | {USER_FILE}:Seeded")
    assert kinds(table) == ["policy", "style", "python"]
    assert kinds(parse_seats("blocker", 3)) == ["style"] * 3
    assert kinds(parse_seats([str(SHIPPED_2P), "greedy"], 2)) == ["policy", "style"]
    with pytest.raises(AgentSpecError, match="names 2 seats; 4 players need 3"):
        parse_seats("greedy/blocker", 3)
    with pytest.raises(AgentSpecError, match="empty seat"):
        split_seats("greedy | | blocker")
    # a bad entry is named by its place in the table, which may list every seat (from 0) or
    # the opponents (from 1 clockwise): "seat 2" of a 2-player table was the wrong name
    with pytest.raises(AgentSpecError, match=r"--policy, entry 2 of 2: Python file nofile\.py"):
        split_seats("greedy | nofile.py:X", where="--policy")
    with pytest.raises(AgentSpecError, match=r"--vs, entry 1 of 2: "):
        parse_seats(["nofile.py:X", "greedy"], 2, where="--vs")


def test_ambiguous_and_unknown_specs_say_how_to_write_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "greedy").mkdir()
    (tmp_path / "greedy" / "blocker").write_bytes(b"x")
    with pytest.raises(AgentSpecError, match=r"ambiguous.*write \./greedy/blocker .*'greedy \| blocker'"):
        split_seats("greedy/blocker")
    (tmp_path / "blocker").write_bytes(b"x")
    with pytest.raises(AgentSpecError, match=r"ambiguous.*write \./blocker"):
        parse_agent("blocker")
    with pytest.raises(AgentSpecError, match=r"neither a file .* nor a seat table.*write a file as \./x/y"):
        split_seats("x/y")
    with pytest.raises(AgentSpecError, match=r"unknown play style 'nonsense'.*styles: .*greedy.*ppo_uno_2p"):
        parse_agent("nonsense")
    with pytest.raises(AgentSpecError, match="one agent is asked for here"):
        parse_agent("greedy | blocker")
    with pytest.raises(AgentSpecError, match="Python file agent names its agent"):
        parse_agent("./agent.py")
    with pytest.raises(AgentSpecError, match="no parameter"):
        parse_agent("search:nope=3")


def test_a_module_named_like_a_style_is_shown_its_explicit_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's greedy.py (or Python's own random module) read as the style with a bad
    parameter, and the message did not say that py:MODULE:NAME names the module's agent."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("agents.spec._MODULES", {})  # the user's greedy.py imported for this test only
    monkeypatch.delitem(sys.modules, "greedy", raising=False)
    (tmp_path / "greedy.py").write_text("from tests.user_agents.faulty_agents import NumpyFirst as Mine\n")
    with pytest.raises(
        AgentSpecError,
        match=r"must be a number, got 'Mine'; .*module named 'greedy' is written py:greedy:Mine",
    ):
        parse_agent("greedy:Mine")
    with pytest.raises(AgentSpecError, match=r"is not key=value; .*written py:random:Random$"):
        parse_agent("random:Random")
    with pytest.raises(AgentSpecError, match=r"no parameter") as refused:
        parse_agent("search:nope=3")
    assert "py:" not in str(refused.value)  # a style's option, not a module's name
    spec = parse_agent("py:greedy:Mine")
    assert (spec.kind, spec.target, spec.attr) == ("python", "greedy", "Mine")
    assert spec.make().act(None, np.array([0, 1, 1])) == 1


def test_weights() -> None:
    assert parse_weighted("blocker@2") == ("blocker", 2.0)
    assert parse_weighted("blocker") == ("blocker", 1.0)
    assert parse_weighted(f"{SHIPPED_2P}@0.5") == (str(SHIPPED_2P), 0.5)
    assert parse_weighted("greedy | blocker @ 3") == ("greedy | blocker", 3.0)
    with pytest.raises(AgentSpecError, match="weight after '@' must be a number"):
        parse_weighted("blocker@x")


def test_python_agents_are_built_from_files_modules_objects_and_factories() -> None:
    from tests.user_agents import seeded_agent

    for text in (
        f"{USER_FILE}:Seeded",
        f"{USER_FILE}:make_seeded:bias=1",
        "tests.user_agents.seeded_agent:Seeded",
    ):
        agent = parse_agent(text).make(seed=3)
        assert agent.act(None, np.array([0, 1, 1], dtype=np.int8)) in (1, 2)
    assert parse_agent(f"{USER_FILE}:make_seeded:bias=1").make(seed=3).bias == 1
    assert as_spec(seeded_agent.Seeded).make(seed=1).act(None, np.array([1, 0])) == 0
    shared = as_spec(seeded_agent.SHARED)
    assert shared.kind == "object" and shared.text == "seeded" and shared.make(seed=2) is seeded_agent.SHARED
    with pytest.raises(AgentSpecError, match="defines no 'Missing'"):
        parse_agent(f"{USER_FILE}:Missing").make()
    with pytest.raises(AgentSpecError, match="takes no options"):
        parse_agent(f"{USER_FILE}:SHARED:bias=1").make()
    # an object is no compiled agent; the message read "(a object agent)"
    with pytest.raises(AgentSpecError, match=r"^agent 'seeded' is not compiled \(an object agent\)$"):
        assert shared.policy
    with pytest.raises(AgentSpecError, match=r"is not compiled \(a python agent\)$"):
        assert parse_agent(f"{USER_FILE}:Seeded").policy


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("search:sims=5,", r"'search:sims=5,' has an empty parameter entry; allowed: search alone or "),
        ("search:,sims=5", r"'search:,sims=5' has an empty parameter entry"),
        ("search:sims=5,,depth=3", r"'search:sims=5,,depth=3' has an empty parameter entry"),
        ("greedy:", r"'greedy:' has an empty parameter entry; .*\(its parameters: doubt\)"),
        (
            "random:",
            r"'random:' has an empty parameter entry; allowed: random alone \(it has no parameters\)",
        ),
        ("llm:model=m,", r"'llm:model=m,' has an empty option entry; allowed: key=value options"),
        ("tests.user_agents.seeded_agent:Seeded:", r"has nothing after its last ':'; allowed: "),
        (
            "tests.user_agents.seeded_agent:Seeded:,bias=1",
            r"'tests\.user_agents\.seeded_agent:Seeded:,bias=1' "
            r"has an empty option entry",
        ),
        (f"{USER_FILE}:make_seeded:bias=1,", r"has an empty option entry"),
    ],
)
def test_an_empty_parameter_or_option_entry_is_refused(text: str, message: str) -> None:
    """``search:sims=5,`` and ``greedy:`` played as if the empty entry were not there: an entry
    lost in editing went unnoticed. Refused by the agent grammar, and by the style parser the
    compiled tools call directly."""
    with pytest.raises(AgentSpecError, match=message) as refused:
        parse_agent(text, where="--agents")
    assert str(refused.value).startswith("--agents: ")  # the message names where the spec was given
    if text.partition(":")[0] in ("search", "greedy", "random"):
        with pytest.raises(ValueError, match=message):
            parse_policy(text)
    assert parse_agent(text.rstrip(":,").replace(":,", ":").replace(",,", ",")).text  # the mended spec


def test_a_study_spec_refuses_an_empty_parameter_entry() -> None:
    from training.study.load import parse_spec

    with pytest.raises(ValueError, match=r"'search:sims=5,' has an empty parameter entry"):
        parse_spec({"styles": ["search:sims=5,", "blocker"], "players": [2]}, source="spec")


# ---------------------------------------------------------------- every tool reads them alike
FORMS = [
    ("greedy", ["style"]),
    ("search:sims=20", ["style"]),
    ("ppo_uno_2p", ["policy"]),
    (str(SHIPPED_2P), ["policy"]),
    (f"{USER_FILE}:Seeded", ["python"]),
    ("tests.user_agents.seeded_agent:Seeded", ["python"]),
]


def test_play_vs_keeps_every_parameter_with_its_agent() -> None:
    """A parameter whose value holds a ':' (an llm: agent's base_url) was split off as a seat."""
    from training.play import split_opponents

    llm = "llm:model=m,base_url=http://127.0.0.1:8000/v1"
    assert split_opponents(llm) == [llm]
    assert split_opponents(f"{llm},greedy") == [llm, "greedy"]
    assert split_opponents("bluffer:bluff=0.3,challenge=0.8,greedy") == [
        "bluffer:bluff=0.3,challenge=0.8",
        "greedy",
    ]
    assert split_opponents("a.py:A:path=/x/y,k=1,cmd:./b.sh") == ["a.py:A:path=/x/y,k=1", "cmd:./b.sh"]


@pytest.mark.parametrize(("text", "expected"), FORMS)
def test_every_tool_parses_each_form_the_same(text: str, expected: list[str], tmp_path: Path) -> None:
    import uno_env
    from training.cli import simulate_policies
    from training.evaluate import opponent_seats
    from training.play import split_opponents
    from training.pool import parse_pool
    from training.study.load import parse_spec
    from training.tournament import agent_specs

    reference = parse_agent(text)
    # train's (and selfplay's evaluation) opponent entries, with a weight
    ((pool_text, weight),) = parse_pool([f"{text}@2"])
    assert weight == 2.0 and split_seats(pool_text) == [reference]
    # evaluate's opponent sets
    seats = opponent_seats(text, 2)
    assert [s if isinstance(s, AgentSpec) else parse_agent(s) for s in seats] == [reference]
    # tournament
    assert agent_specs([text])[0] == [reference]
    # play --vs
    assert [parse_agent(e) for e in split_opponents(text)] == [reference]
    assert [parse_agent(e) for e in split_opponents(f"{text},blocker")] == [reference, parse_agent("blocker")]
    # a study spec's styles
    study = parse_spec({"styles": [text, "blocker"], "players": [2]}, source="spec")
    assert parse_agent(study.styles[0]) == reference
    # simulate runs compiled agents only, and says so for the others
    if reference.compiled:
        assert simulate_policies(text, 2) == reference.policy
    else:
        with pytest.raises(ValueError, match="simulate runs compiled agents only"):
            simulate_policies(text, 2)
    assert uno_env  # imported for the tools' side


def test_seat_tables_read_alike_by_every_tool() -> None:
    from training.cli import simulate_policies
    from training.evaluate import opponent_seats
    from training.play import split_opponents

    table = f"{SHIPPED_2P} | blocker | greedy"
    assert simulate_policies(f"{table} | greedy", 4) == [str(SHIPPED_2P), "blocker", "greedy", "greedy"]
    assert [str(s) for s in opponent_seats(table, 4)] == [str(SHIPPED_2P), "blocker", "greedy"]
    assert split_opponents(table) == [str(SHIPPED_2P), "blocker", "greedy"]
    assert os.sep == "/"


def test_simulate_refuses_a_network_trained_for_another_game(capsys: pytest.CaptureFixture[str]) -> None:
    """simulate holds exported policies (and a search's guide network) to the rules and player
    count they were trained for, as a tournament does: a 2-player policy at a 4-player table
    played without a word; --allow-rules-mismatch seats it on purpose."""
    from training.cli import main

    argv = ["simulate", "--games", "2", "--players", "4"]
    for policy in ("ppo_uno_2p | greedy", "search:sims=5,net=ppo_uno_2p"):
        assert main([*argv, "--policy", policy]) == 2
        err = capsys.readouterr().err
        assert err.startswith("uno-env: error: ") and err.count("\n") == 1
        assert "trained for 2 players, the game has 4" in err and "--allow-rules-mismatch" in err
    assert main([*argv, "--policy", "ppo_uno_2p", "--allow-rules-mismatch"]) == 0
    capsys.readouterr()
    other_rules = ["--players", "2", "--set", "hand_size=5", "--policy", "ppo_uno_2p"]
    assert main(["simulate", "--games", "2", *other_rules]) == 2
    assert "trained on other rules (hand_size=5 (trained: 7)" in capsys.readouterr().err
