"""The environment pages of the documentation say what the envs are.

Each page under ``docs/environments/`` opens with a table in the form of PettingZoo's env
pages (import line, agents, action and observation spaces). These tests read the tables and
compare every entry with the env the page describes, so a change of an env that the page
does not follow fails here. (The code examples of every page run in ``tests/test_readme.py``;
``make docs`` builds the site in strict mode.)
"""

from __future__ import annotations

import doctest
import importlib
import io
import json
import re
import shlex
import sys
from pathlib import Path

import gymnasium
import pettingzoo
import pytest

import uno_env
from training.cli import main

DOCS = Path(__file__).resolve().parents[1] / "docs"


def header(page: str) -> dict[str, list[str]]:
    """The page's first table as ``{row name: [values]}`` (a name may repeat: ``Agents``)."""
    rows: dict[str, list[str]] = {}
    for line in (DOCS / "environments" / page).read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\| ([A-Z][\w ]+?) \| (.*) \|$", line)
        if match:
            rows.setdefault(match.group(1), []).append(match.group(2))
        elif rows and not line.startswith("|"):
            break
    return rows


def code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def imports(row: str) -> None:
    for statement in code_spans(row):
        if statement.startswith("from "):
            exec(statement, {})


def presets_table(page: str) -> list[list[str]]:
    text = (DOCS / "environments" / page).read_text(encoding="utf-8")
    body = text.split("## Presets", 1)[1].split("\n## ", 1)[0]
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in body.splitlines()
        if line.startswith("| `")
    ]


@pytest.mark.parametrize("page", ["aec.md", "parallel.md"])
def test_pettingzoo_pages(page: str) -> None:
    rows = header(page)
    imports(rows["Import"][0])
    make = uno_env.env if page == "aec.md" else uno_env.parallel_env
    uno, macao = make("uno", 4), make("macao", 3)
    agents = rows["Agents"][0]
    assert f"agents= {uno.possible_agents}" in agents
    assert rows["Agents"][1] == "2 to 10, by preset"
    values = code_spans(rows["Action Values"][0])
    assert values == [str(uno.action_space("player_0")), str(macao.action_space("player_0"))]
    shapes = code_spans(rows["Observation Shape"][0])[:2]
    assert shapes == [
        str(uno.observation_space("player_0")["observation"].shape),
        str(macao.observation_space("player_0")["observation"].shape),
    ]
    assert rows["Parallel API"][0].startswith("Yes")
    assert "pettingzoo.make(" in rows["Make"][0]


def test_aec_presets_table() -> None:
    table = presets_table("aec.md")
    assert [row[0].strip("`") for row in table] == list(uno_env.PRESETS)
    for name, env_id, players, _deck, action_space, shape in table:
        rules = uno_env.preset(name.strip("`"))
        assert players == f"{rules.min_players}-{rules.max_players}", name
        aec = pettingzoo.make("aec", env_id.strip("`"), num_players=rules.min_players)
        assert action_space == f"`{aec.action_space('player_0')}`", name
        assert shape == f"`{aec.observation_space('player_0')['observation'].shape}`", name


def test_single_agent_page() -> None:
    rows = header("single-agent.md")
    imports(rows["Import"][0])
    names = re.findall(r"`(\w+)`", rows["Make"][0].split("(", 2)[-1])
    for name in ["Uno", *names]:
        env = gymnasium.make(f"uno_env/{name}-v1", num_players=4)
        deck = "Uno deck" if name.startswith("Uno") else "French deck"
        assert f"`{env.action_space}` ({deck})" in rows["Action Values"][0], name
        assert f"`{env.observation_space.shape}` ({deck})" in rows["Observation Shape"][0], name
        env.close()


def test_vector_page() -> None:
    rows = header("vector.md")
    imports(rows["Import"][0])
    for rules, deck in (("uno", "Uno deck"), ("macao", "French deck")):
        venv = uno_env.VectorEnv(4, rules, 2)
        size = venv.single_observation_space.shape[0]
        actions = int(venv.single_action_space.n)
        assert f"`MultiDiscrete([{actions} ... {actions}])` ({deck})" in rows["Action Values"][0]
        assert f"`(num_envs, {size})` ({deck})" in rows["Observation Shape"][0]
        assert str(venv.action_space) == f"MultiDiscrete([{' '.join([str(actions)] * 4)}])"
        assert venv.metadata["autoreset_mode"].value == "SameStep"
        venv.close()


def test_simple_tables_in_docstrings_become_markdown_tables() -> None:
    """The API pages show the reST simple tables of the docstrings (the action table) as tables."""
    pytest.importorskip("griffe")
    sys.path.insert(0, str(DOCS))
    try:
        from griffe_plain import plain
    finally:
        sys.path.remove(str(DOCS))
    import uno_env.engine.actions

    text = plain(uno_env.engine.actions.__doc__ or "")
    assert "| ids | notation | meaning |" in text
    assert "| ``F+16`` | ``challenge`` | challenge the Wild Draw Four just played |" in text
    assert "====" not in text
    headerless = plain("a\n\n===  ===\nx    one | two\ny    three\n===  ===\n\nb")
    assert headerless == "a\n\n|  |  |\n| --- | --- |\n| x | one \\| two |\n| y | three |\n\nb"


def test_the_record_shown_on_the_play_page_is_the_record_play_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/play.md shows the record of ``uno-env play --players 3 --vs greedy,bluffer --seed 7``
    (answering 1 each time), elided with ``...``: its fields, in order, and every value it
    shows are those of the record the command writes (it showed env version 0 and a rules
    string the records no longer carry)."""
    text = (DOCS / "play.md").read_text(encoding="utf-8")
    shown_text = text.split("```json\n", 1)[1].split("```", 1)[0]
    shown = json.loads(re.sub(r",\.\.\.([\]}])", r"\1", shown_text))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 500))
    argv = ["play", "--rules", "uno", "--players", "3", "--vs", "greedy,bluffer", "--seed", "7"]
    assert main([*argv, "--record", "games.jsonl", "--no-color"]) == 0
    capsys.readouterr()
    written = json.loads((tmp_path / "games.jsonl").read_text(encoding="utf-8"))
    assert list(shown) == list(written)
    for key, value in shown.items():
        if isinstance(value, list):
            assert written[key][: len(value)] == value, key
        elif isinstance(value, dict):
            assert {k: written[key][k] for k in value} == value, key
        elif isinstance(value, str) and value.endswith("..."):
            assert written[key].startswith(value[:-3]), key
        else:
            assert written[key] == value, key


def test_the_table_shown_on_the_play_page_is_what_play_prints(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/play.md shows part of ``uno-env play --rules macao --players 3 --vs greedy --seed 1``
    (answering 1 every time): a run of lines the command prints, with the answer typed after
    each prompt (the page once showed a header and columns the table no longer prints)."""
    text = (DOCS / "play.md").read_text(encoding="utf-8")
    shown = next(b for b in text.split("```text\n")[1:] if b.startswith("macao · ")).split("```", 1)[0]
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 500))
    argv = ["play", "--rules", "macao", "--players", "3", "--vs", "greedy", "--seed", "1"]
    assert main([*argv, "--no-color"]) == 0
    printed = re.sub(r"(choice \[1-\d+\]>) ", r"\1 1\n", capsys.readouterr().out)
    assert shown in printed


def test_the_ambiguous_spec_error_on_the_agents_page_is_what_simulate_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/agents.md shows ``uno-env simulate --policy greedy/blocker`` run beside a file
    ``./greedy/blocker`` and the error it stops with, wrapped over two lines: the command's
    stderr, word for word (the page once left out the program's name before ``error:``)."""
    text = (DOCS / "agents.md").read_text(encoding="utf-8")
    shown_command = "$ uno-env simulate --policy greedy/blocker"
    block = next(b for b in text.split("```text\n")[1:] if b.startswith(shown_command))
    command, *shown = block.split("```", 1)[0].splitlines()
    argv = shlex.split(command.removeprefix("$ ").split("  #")[0])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "greedy").mkdir()
    (tmp_path / "greedy" / "blocker").write_bytes(b"x")
    assert main(argv[1:]) == 2
    printed = capsys.readouterr().err.strip().splitlines()[-1]
    assert printed == " ".join(shown)


def test_the_docstring_examples_run_as_shown() -> None:
    """The ``>>>`` examples of the package's docstrings print what they show (doctest)."""
    root = DOCS.parent
    modules = [
        ".".join(path.relative_to(root).with_suffix("").parts)
        for package in ("uno_env", "agents", "training")
        for path in sorted((root / package).rglob("*.py"))
        if ">>> " in path.read_text(encoding="utf-8")
    ]
    assert "uno_env.game.facade" in modules
    for name in modules:
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, name
