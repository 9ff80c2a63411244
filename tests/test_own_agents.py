"""A user's own agents in the tools: a Python object, a ``file.py:Name`` agent and a module's
agent each play a duplicate tournament against styles (in worker processes where the spec
allows) with the same results as an in-process run of the same logic; evaluation and a study
seat them too."""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import psutil
import pytest

from agents.text import decision_json
from tests.test_env_encoding import hidden_variant
from uno_env import Game
from uno_env.engine import layout as L
from uno_env.engine.actions import ActionKind, action_kind
from uno_env.styles.facts import own_bluff_known
from uno_env.styles.public import HIDDEN
from uno_env.styles.registry import STYLES
from uno_env.styles.view import PublicView

pytest.importorskip("openskill")

from tests.user_agents.faulty_agents import Exits
from tests.user_agents.seeded_agent import Seeded, make_seeded
from training.tournament import run_tournament

USER_FILE = Path(__file__).parent / "user_agents" / "seeded_agent.py"
Entry = tuple[int, int, int]  # a raw log entry: seat, action, phase


def games_of(result: object) -> pd.DataFrame:
    games = result.games.drop(columns=["seating", "winner", "ranking"])  # type: ignore[attr-defined]
    return games.reset_index(drop=True)


def test_python_agents_play_a_duplicate_tournament_with_the_same_results(tmp_path: Path) -> None:
    common = {"games": 12, "seed": 40, "batch_games": 5, "progress": False}
    # in process, the agent handed over as a factory
    serial = run_tournament(
        "uno", 2, [make_seeded, "greedy"], out=tmp_path / "a", executor="serial", **common
    )
    # the same logic named by file, in two worker processes (three batches per seating)
    by_file = f"{USER_FILE}:Seeded"
    workers = run_tournament("uno", 2, [by_file, "greedy"], out=tmp_path / "b", workers=2, **common)
    # and by module, and as a class
    module = run_tournament(
        "uno",
        2,
        ["tests.user_agents.seeded_agent:Seeded", "greedy"],
        out=str(tmp_path / "c"),  # a folder given as a str, as Python callers write it
        executor="serial",
        **common,
    )
    cls = run_tournament("uno", 2, [Seeded, "greedy"], out=tmp_path / "d", workers=2, **common)
    reference = games_of(serial)
    assert len(reference) == 12 * 2 and (reference["length"] > 0).all()
    for other in (workers, module, cls):
        pd.testing.assert_frame_equal(games_of(other), reference)
    names = set(workers.standings["agent"])
    assert names == {by_file, "greedy"}
    row = workers.standings.set_index("agent").loc[by_file]
    assert row["games"] == 24 and row["deals"] == 12 and row["win_lo"] <= row["win_rate"] <= row["win_hi"]


def test_a_python_agent_against_a_field_of_styles_at_4_players(tmp_path: Path) -> None:
    result = run_tournament(
        "uno", 4, [f"{USER_FILE}:Seeded:bias=0.5"], games=3, seed=7, out=tmp_path, field="blocker",
        progress=False, executor="serial",
    )  # fmt: skip
    assert set(result.standings["agent"]) == {f"{USER_FILE}:Seeded:bias=0.5", "blocker"}
    assert len(result.games) == 3 * 4


def test_resume_replays_nothing_for_python_agents(tmp_path: Path) -> None:
    args = ("uno", 2, [f"{USER_FILE}:Seeded", "blocker"])
    first = run_tournament(
        *args, games=6, seed=1, out=tmp_path, batch_games=3, progress=False, executor="serial"
    )
    batch = next((tmp_path / "batches").iterdir())
    stamp = batch.stat().st_mtime_ns
    again = run_tournament(
        *args, games=6, seed=1, out=tmp_path, batch_games=3, progress=False, executor="serial", resume=True
    )
    assert batch.stat().st_mtime_ns == stamp
    pd.testing.assert_frame_equal(games_of(first), games_of(again))


def test_evaluate_any_agent_against_any_opponents() -> None:
    import uno_env
    from training.evaluate import evaluate

    rules = uno_env.load_rules("uno")
    by_file, by_object = (
        evaluate(agent, rules, 2, ["greedy", f"{USER_FILE}:Seeded"], 10, seed=3)
        for agent in (f"{USER_FILE}:Seeded", make_seeded)
    )
    for a, b in zip(by_file, by_object, strict=True):
        assert (a.wins, a.games, a.decisions) == (b.wins, b.games, b.decisions)
    # a compiled agent against a Python opponent plays at Game tables, the same deals
    (result,) = evaluate("ppo_uno_2p", rules, 2, [f"{USER_FILE}:Seeded"], 10, seed=3)
    assert result.games == 10 and result.win_rate > 0.5


class NamedLikeAStyle(Seeded):
    """An agent whose name is a style's."""

    def __init__(self) -> None:
        super().__init__(0)
        self.name = "greedy"


STUDY = {"players": [2], "games": 8, "batch_games": 4, "bases": ["uno"], "variations": {}}


def study_counts(out: Path, rename: dict[str, str] | None = None) -> dict[str, object]:
    """Every batch's per-deal counts, the style names mapped through ``rename``."""
    from training.study import load_batches

    rename = rename or {}
    out_counts: dict[str, object] = {}
    for batch in load_batches(out):
        per_style = {}
        for key, counts in batch["per_style"].items():
            per_style[key] = {rename.get(style, style): v for style, v in counts.items()}
        out_counts[batch["id"]] = (per_style, batch["per_deal"], batch["seat_wins"])
    return out_counts


def test_a_study_seats_a_python_agent_by_spec_and_as_an_object(tmp_path: Path) -> None:
    """A style column given as a file spec, as a factory and as a class: the same counts, deal
    by deal, in this process and in two worker processes; the object's name is its column."""
    from training.study import parse_spec, run_study

    by_file = parse_spec({**STUDY, "styles": [f"{USER_FILE}:Seeded", "greedy"]}, source="test")
    run_study(by_file, tmp_path / "file", executor="serial", progress=False, report=False)
    reference = study_counts(tmp_path / "file", {f"{USER_FILE}:Seeded": "seeded"})
    assert len(reference) >= 4  # field and reference seatings, two deal chunks each

    class_spec = parse_spec({**STUDY, "styles": [Seeded, "greedy"]}, source="test")
    assert class_spec.styles == ("Seeded", "greedy") and class_spec.agent("Seeded") is not None
    run_study(class_spec, tmp_path / "class", workers=2, progress=False, report=False)
    assert study_counts(tmp_path / "class", {"Seeded": "seeded"}) == reference

    factory = parse_spec({**STUDY, "styles": [make_seeded, "greedy"]}, source="test")
    out = run_study(factory, tmp_path / "factory", workers=2, progress=False)
    assert study_counts(out, {"make_seeded": "seeded"}) == reference
    results = pd.read_csv(out / "results.csv")
    rows = results[results["style"] == "make_seeded"]
    assert len(rows) > 0
    assert (rows["win_lo"] <= rows["win_rate"]).all() and (rows["win_rate"] <= rows["win_hi"]).all()


def test_an_object_may_be_the_reference_field() -> None:
    from training.study import parse_spec

    spec = parse_spec({**STUDY, "styles": ["greedy", "blocker"], "reference": Seeded}, source="test")
    assert spec.reference == "Seeded" and [a.text for a in spec.agents] == ["Seeded"]
    tasks = [t for t in __import__("training.study", fromlist=["plan"]).plan(spec) if t.kind == "reference"]
    assert tasks and all(t.object_agent("Seeded") is not None for t in tasks)


def test_a_study_of_agent_objects_resumes_from_python_and_not_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training import study

    spec = study.parse_spec({**STUDY, "styles": [make_seeded, "greedy"]}, source="test")
    out = study.run_study(spec, tmp_path / "run", executor="serial", progress=False, report=False)
    toml = (out / "spec.toml").read_text(encoding="utf-8")
    assert 'objects = [\n    "make_seeded",' in toml or 'objects = ["make_seeded"]' in toml
    batches = sorted((out / "batches").glob("*.json"))
    kept = {p.name: p.stat().st_mtime_ns for p in batches[1:]}
    before = study_counts(out)
    batches[0].unlink()  # as if the run had been cut short
    assert study.main(["--resume", str(out), "--quiet"]) == 2
    assert "given as Python objects" in capsys.readouterr().err
    again = study.parse_spec({**STUDY, "styles": [make_seeded, "greedy"]}, source="test")
    study.run_study(again, out, executor="serial", progress=False, report=False, resume=True)
    assert {p.name: p.stat().st_mtime_ns for p in sorted((out / "batches").glob("*.json"))[1:]} == kept
    assert study_counts(out) == before
    # another object under the same name is the same design by name: a different name is not
    other = study.parse_spec({**STUDY, "styles": [Seeded, "greedy"]}, source="test")
    with pytest.raises(study.SpecError, match="another design"):
        study.run_study(other, out, executor="serial", progress=False, report=False, resume=True)


@pytest.mark.parametrize(
    ("styles", "message"),
    [
        ([lambda seed=None: Seeded(seed), "greedy"], "letters, digits"),
        ([NamedLikeAStyle(), "blocker"], "also an agent spec"),
        ([42, "greedy"], "not an agent"),
    ],
)  # fmt: skip
def test_bad_agent_objects_are_refused_with_one_line(styles: list[object], message: str) -> None:
    from training.study import SpecError, parse_spec

    with pytest.raises(SpecError, match=message):
        parse_spec({**STUDY, "styles": styles}, source="test")


def test_an_object_that_cannot_reach_worker_processes_is_refused_before_any_batch(tmp_path: Path) -> None:
    from training.study import SpecError, parse_spec, run_study

    def local_factory(seed: int | None = None) -> Seeded:
        return Seeded(seed)

    spec = parse_spec({**STUDY, "styles": [local_factory, "greedy"]}, source="test")
    with pytest.raises(SpecError, match="cannot be sent to the worker processes"):
        run_study(spec, tmp_path / "run", workers=2, progress=False)
    assert not (tmp_path / "run" / "batches").exists()
    run_study(spec, tmp_path / "serial", executor="serial", progress=False, report=False)


def test_a_tournament_refuses_an_object_that_cannot_reach_its_worker_processes(tmp_path: Path) -> None:
    """The study refused such an object before any batch; the tournament ended in the pool's
    bare "AttributeError: Can't pickle local object", naming no agent."""

    def local_factory(seed: int | None = None) -> Seeded:
        return Seeded(seed)

    out = tmp_path / "run"
    with pytest.raises(ValueError, match="agent 'local_factory' cannot be sent to the worker processes"):
        run_tournament("uno", 2, [local_factory, "greedy"], games=2, workers=2, out=out, progress=False)
    assert not out.exists()


def test_every_agent_plays_in_every_env_without_extra_arguments() -> None:
    """Scripted styles, exported policies and Python agents act from an env's observation
    alone: the AEC env's observation carries the view; the single-agent and vector envs hand
    agent opponents theirs."""
    import agents
    import uno_env

    env = uno_env.env("uno", 3)
    env.reset(seed=3)
    seats = [agents.make("greedy", seed=1), agents.make("search:sims=20", seed=2), make_seeded(3)]
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        seat = env.possible_agents.index(agent)
        env.step(None if terminated or truncated else seats[seat].act(obs))
    single = uno_env.SingleAgentEnv("uno", 3, opponents=[agents.make("blocker", seed=1), make_seeded(2)])
    single.reset(seed=4)
    done = False
    while not done:
        _, _, terminated, truncated, _ = single.step(int(np.flatnonzero(single.action_masks())[0]))
        done = terminated or truncated
    vector = uno_env.VectorEnv(4, "uno", 3, opponents=[agents.make("aggressor", seed=1), make_seeded(2)])
    vector.reset(seed=5)
    for _ in range(50):
        vector.step(vector.action_masks().argmax(axis=1))
    with pytest.raises(ValueError, match="reads the public game state"):
        agents.make("greedy").act(np.zeros(3), np.ones(3))


class OneGameMemory:
    """A user's agent that keeps state across one game and must be reset between games: it
    fails when it sees the public history shrink or the seat change (two games or two seats
    through one instance), and records the seeds its resets got."""

    name = "one_game_memory"

    def __init__(self) -> None:
        self.seeds: list[int] = []
        self.seen = -1
        self.seat = -1

    def reset(self, seed: int) -> None:
        self.seeds.append(seed)
        self.seen, self.seat = -1, -1

    def act(self, observation: object, action_mask: object = None, view: PublicView | None = None) -> int:
        assert view is not None
        if self.seeds == []:
            raise AssertionError("act() before any reset()")
        history = len(view.public_history())
        if history < self.seen or self.seat not in (-1, view.current_player):
            raise AssertionError(f"not reset: history {self.seen} -> {history}, seat {self.seat}")
        self.seen, self.seat = history, view.current_player
        return view.legal_actions()[0]


def test_an_agent_that_keeps_state_gets_an_instance_per_game_and_seat_reset_before_each_game() -> None:
    """The envs (and so train --opponents, --best-response, exploitability) shared one agent
    object between all the games of a vector env and all its seats and never reset it."""
    import uno_env
    from uno_env.envs.common import seat_seed

    mine = OneGameMemory()
    vector = uno_env.VectorEnv(3, "uno", 3, opponents=mine)
    vector.reset(seed=5)
    for _ in range(300):
        vector.step(vector.action_masks().argmax(axis=1))
    assert mine.seeds[0] in {seat_seed(5 + i, s) for i in range(3) for s in range(3)}
    again = uno_env.VectorEnv(3, "uno", 3, opponents=OneGameMemory())
    again.reset(seed=5)
    again.reset(seed=5)  # the same deals anew: every instance is reset again
    for _ in range(20):
        again.step(again.action_masks().argmax(axis=1))
    single_agent = OneGameMemory()
    # first-legal play never ends a 4-player game: each is truncated at the decision limit, and
    # every act reads the whole public history, so the default 10,000 decisions took minutes
    single = uno_env.SingleAgentEnv("uno", 4, opponents=single_agent, max_decisions=400)
    for seed in (1, 2, 2):
        single.reset(seed=seed)
        done = False
        while not done:
            _, _, terminated, truncated, _ = single.step(int(np.flatnonzero(single.action_masks())[0]))
            done = terminated or truncated
    assert single_agent.seeds[0] in {seat_seed(1, s) for s in range(4)}


class OneSeat(Seeded):
    """:class:`Seeded` that fails when one instance plays two seats of a game."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.seat = -1

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> int:
        if self.seat not in (-1, view.current_player):
            raise AssertionError(f"one instance at seats {self.seat} and {view.current_player}")
        self.seat = view.current_player
        return super().act(observation, action_mask, view)


def test_one_agent_object_at_several_seats_plays_each_with_an_instance_of_its_own() -> None:
    """An agent object with reset() at several seats of a Game table (evaluate's opponents, a
    gauntlet's field, the benchmark's opponent) was one instance for all of them: re-seeded for
    each seat in turn, its state shared, so it played otherwise than its class at those seats."""
    from agents.benchmark import benchmark
    from agents.match import make_seats, play_deals

    seeds = [3, 4, 5]
    by_class = play_deals("uno", [OneSeat] * 3, seeds)
    mine = OneSeat()
    by_object = play_deals("uno", [OneSeat, mine, mine], seeds)
    for key, values in by_class.items():
        assert np.array_equal(values, by_object[key]), key
    seated = make_seats([mine, "greedy", mine], None)
    assert seated[0] is mine and seated[2] is not mine and isinstance(seated[2], OneSeat)
    report = benchmark(mine, mine, players=3, deals=2, seed=3)  # the agent at every seat, beside itself
    assert report["games"] == 6


def test_an_agent_built_for_one_game_is_reset_with_its_seed_before_it() -> None:
    """``uno-env play`` and the web table build each agent for one game and never called its
    ``reset(seed)``: an agent seeded only there played unseeded, or failed at its first move."""
    from training import play
    from training.serve.seats import agent_seed, build_agent
    from uno_env import load_rules

    rules = load_rules("uno")
    spec = f"{USER_FILE}:NeedsReset"
    terminal = play.build_opponents(spec, rules, 2, 0, 7)[1]
    web = build_agent(spec, rules, 2, agent_seed(7, 1))
    for agent in (terminal, web):
        expected = np.random.default_rng(agent_seed(7, 1)).random(3)
        assert np.array_equal(agent.rng.random(3), expected)  # type: ignore[attr-defined]


class AnswersNone:
    name = "answers_none"

    def act(self, observation: object, action_mask: object = None, view: object = None) -> None:
        return None


class Raises:
    name = "raises"

    def act(self, observation: object, action_mask: object = None, view: object = None) -> int:
        raise KeyError("no such card")


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (AnswersNone(), r"agent 'answers_none' at seat \d answered None \(a NoneType\), not an action id"),
        (
            Raises(),
            r"agent 'raises' at seat \d raised KeyError: 'no such card' \(at .*test_own_agents.py:\d+, in",
        ),
        (Exits(), r"agent 'Exits' at seat \d raised SystemExit: 3 \(at .*faulty_agents.py:\d+, in act\)"),
    ],
)
def test_an_opponent_that_misbehaves_in_an_env_is_one_value_error_naming_it(
    agent: object, message: str
) -> None:
    """train --opponents FILE.py:NAME ended in a TypeError traceback from inside the vector env."""
    import uno_env
    from uno_env.envs.common import OpponentError

    vector = uno_env.VectorEnv(2, "uno", 2, opponents=agent)
    with pytest.raises(OpponentError, match=message):
        vector.reset(seed=1)
        for _ in range(5):
            vector.step(vector.action_masks().argmax(axis=1))
    single = uno_env.SingleAgentEnv("uno", 2, opponents=agent)
    with pytest.raises(OpponentError, match=message):
        single.reset(seed=1)
        for _ in range(5):
            single.step(int(np.flatnonzero(single.action_masks())[0]))
    assert issubclass(OpponentError, ValueError)  # the command line prints it in one line


def test_the_file_resolver_reads_a_specs_files_where_this_process_has_them(tmp_path: Path) -> None:
    """As on a Ray node: the spec names the driver's paths; the agent is built from the copies
    the resolver points at, and the spec's text (its name in tables) is the driver's."""
    import shutil

    from agents.spec import AgentSpecError, local_file, parse_agent, set_file_resolver
    from uno_env.sim.learned import shipped_policies, sidecar_path

    driver, node = tmp_path / "driver", tmp_path / "node"
    driver.mkdir()
    node.mkdir()
    (driver / "mine.py").write_text("raise RuntimeError('the driver copy was read')\n", encoding="utf-8")
    shutil.copy(USER_FILE, node / "mine.py")
    for folder in (driver, node):
        shutil.copy(shipped_policies()["ppo_uno_2p"], folder / "exported.npz")
        shutil.copy(sidecar_path(shipped_policies()["ppo_uno_2p"]), folder / "exported.json")
    python, policy = parse_agent(f"{driver / 'mine.py'}:Seeded"), parse_agent(str(driver / "exported.npz"))
    assert python.files() == (str(driver / "mine.py"),)
    assert policy.files() == (str(driver / "exported.npz"), str(driver / "exported.json"))
    assert parse_agent("ppo_uno_2p").files() == () and parse_agent("greedy").files() == ()
    seen: list[str] = []

    def resolver(path: str) -> Path:
        seen.append(path)
        return node / Path(path).name

    set_file_resolver(resolver)
    try:
        assert local_file(driver / "mine.py") == str(node / "mine.py")
        agent = python.make(seed=3)
        assert type(agent).__name__ == "Seeded" and python.text == f"{driver / 'mine.py'}:Seeded"
        assert policy.policy == str(node / "exported.npz")
        assert parse_agent("ppo_uno_2p").policy == "ppo_uno_2p"  # shipped: found by name everywhere
    finally:
        set_file_resolver(None)
    assert seen == [str(driver / "mine.py"), str(driver / "mine.py"), str(driver / "exported.npz")]
    assert parse_agent(str(driver / "exported.npz")).policy == str(driver / "exported.npz")
    with pytest.raises(AgentSpecError, match="RuntimeError: the driver copy was read"):
        parse_agent(f"{driver / 'mine.py'}:Seeded").make(seed=3)


def test_a_tournament_sends_its_agents_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files given to the runner (what reaches Ray nodes) are the agents' own files."""
    import shutil

    import training.tournament as tournament
    from uno_env.sim.learned import shipped_policies, sidecar_path

    exported = tmp_path / "exported.npz"
    shutil.copy(shipped_policies()["ppo_uno_2p"], exported)
    shutil.copy(sidecar_path(shipped_policies()["ppo_uno_2p"]), exported.with_suffix(".json"))
    sent: list[list[str]] = []
    real = tournament.run_batches

    def recording(*args: object, **kwargs: object) -> object:
        sent.append(list(kwargs["files"]))  # type: ignore[call-overload]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tournament, "run_batches", recording)
    run_tournament(
        "uno", 2, [f"{USER_FILE}:Seeded", str(exported), "ppo_uno_2p"], games=2, out=tmp_path / "t",
        executor="serial", progress=False,
    )  # fmt: skip
    assert sent == [sorted([str(USER_FILE), str(exported), str(exported.with_suffix(".json"))])]


def test_the_aec_envs_view_carries_the_public_history() -> None:
    """At every decision the AEC env's view has the history a Game of the same deal gives
    (PublicView.of), a given card hidden from the seats it does not concern (H-TWO-1)."""
    import uno_env
    from uno_env import Game
    from uno_env.styles.public import HIDDEN
    from uno_env.styles.view import PublicView

    rules = uno_env.load_rules("uno", two_gives=True)
    hidden = checked = 0
    for seed in range(3):
        env = uno_env.env(rules, 3)
        env.reset(seed=seed)
        game = Game(rules, 3, seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            history = obs.view.public_history()
            assert history == PublicView.of(game).public_history() and len(history) == game.decisions
            hidden += sum(action == HIDDEN for _, action in history)
            checked += 1
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            game.step(action)
        assert env.unwrapped.position() == game.position()
    assert checked > 100 and hidden > 0


class LogReader:
    """A Python opponent that keeps, at each of its decisions, its seat, the game's raw log
    (the list object, which grows with its game) and its length then, the public history
    its view shows and the game's position. It carries the oracle's registered style, so it is
    handed the complete view as the oracle is, to read the raw log; what an agent is handed is
    its ``public()`` copy."""

    style = STYLES["oracle"]

    def __init__(self, seed: int, env: object) -> None:
        self.rng = np.random.default_rng(seed)
        self.env = env
        self.seen: list[tuple[int, list[tuple[int, int, int]], int, list[tuple[int, int]], str]] = []

    def act(self, observation: object, action_mask: np.ndarray | None = None, view: object = None) -> int:
        assert view is not None and action_mask is not None
        assert view.complete  # type: ignore[attr-defined]
        position = self.env.compiled.position(view.state)  # type: ignore[attr-defined]
        public = view.public()  # type: ignore[attr-defined]
        self.seen.append((view.seat, view.log, view.log_length, public.public_history(), position))  # type: ignore[attr-defined]
        return int(self.rng.choice(np.flatnonzero(action_mask)))


def aec_histories(
    rules: object, n: int, seed: int, log: list[Entry]
) -> list[tuple[int, list[tuple[int, int]], str]]:
    """An AEC env of the same deal driven by ``log``'s actions: before each one, the seat to
    move, the public history the env's view gives it and the position."""
    import uno_env

    env = uno_env.env(rules, n)
    env.reset(seed=seed)
    out = []
    for seat, action, phase in log:
        view = env.unwrapped.public_view()
        assert (view.seat, int(view.phase)) == (seat, phase)
        out.append((seat, view.public_history(), env.unwrapped.position()))
        env.step(action)
    view = env.unwrapped.public_view()
    out.append((view.seat, view.public_history(), env.unwrapped.position()))
    return out


def check_against_aec(rules: object, n: int, seed: int, seen: list, log: list[Entry]) -> int:
    """Each of a reader's decisions in one game: the same seat, history and position as the
    AEC env of that deal after as many decisions; the number of hidden entries seen."""
    aec = aec_histories(rules, n, seed, log)
    rng = random.Random(int(seed))  # info["game_seed"] is a NumPy integer
    hidden = 0
    for k, (seat, _, length, history, position) in enumerate(seen):
        assert aec[length] == (seat, history, position)
        if k % 5 == 0:  # the re-deal check: changing what the seat may not see changes no view
            other_world, receiver = [], -1
            for who, action, phase in log[:length]:
                if phase == L.PH_CHOOSE_TARGET:
                    receiver = (who + action_kind(action)[1]) % n
                if phase == L.PH_GIVE and seat not in (who, receiver):
                    action = (action + 1) % 10  # another card given between two other seats
                other_world.append((who, action, phase))
            same = Game.from_position(rules, position)  # type: ignore[arg-type]
            redealt = Game.from_position(rules, hidden_variant(position, seat, rng, rules))  # type: ignore[arg-type]
            a = PublicView(same.state, same.compiled.spec, same.rules, log, length)
            b = PublicView(redealt.state, redealt.compiled.spec, redealt.rules, other_world, length)
            assert decision_json(a) == decision_json(b)
            # the view an agent is handed holds nothing else either: its state and log fields
            # read alike in both worlds (a cheating style alone gets the complete view)
            public_a, public_b = a.public(), b.public()
            differ = public_a.state != public_b.state
            if own_bluff_known(a.state):  # the mover's own Wild Draw Four: the redeal drops its flag
                differ[L.S_BLUFF] = False
            assert not differ.any(), (position, np.flatnonzero(differ))
            assert list(public_a.log or ()) == list(public_b.log or ())
            assert public_a.public_history() == history
        # nothing hidden: a card given is shown only to its giver and receiver (H-TWO-1), and
        # another seat's let-go answer to an out-of-turn window is left out (H-JUMP-1)
        receiver = -1
        shown = iter(history)
        for who, action, phase in log[:length]:
            if phase == L.PH_CHOOSE_TARGET:
                receiver = (who + action_kind(action)[1]) % n
            if (
                phase in (L.PH_JUMP_IN, L.PH_BLOCK)
                and who != seat
                and action_kind(action)[0] == ActionKind.PASS
            ):
                continue
            entry = next(shown)
            if phase == L.PH_GIVE and seat not in (who, receiver):
                assert entry == (who, HIDDEN)
                hidden += 1
            else:
                assert entry == (who, action)
        assert next(shown, None) is None
    return hidden


def deals(rules: object, seed: int, log: list[Entry], position: str) -> bool:
    """Whether ``log``'s decisions, from the deal of ``seed``, reach ``position``."""
    game = Game(rules, 3, seed=seed)  # type: ignore[arg-type]
    for seat, action, _ in log:
        if game.current_player != seat or action not in game.legal_actions():
            return False
        game.step(action)
    return game.position() == position


HISTORY_RULES = [{"two_gives": True}, {"jump_in": True}]


@pytest.mark.parametrize("overrides", HISTORY_RULES)
def test_the_single_agent_envs_views_carry_the_whole_public_history(overrides: dict[str, object]) -> None:
    """A compiled opponent (moving inside the compiled step) and a Python one at the table:
    at each of the Python agent's decisions its view's public history is the one the AEC env
    of the same deal gives that seat after the same decisions, and hides what it must (a card
    given to another, H-TWO-1; another seat's let-go answer, H-JUMP-1); the learner's view
    (public_view) carries the same log."""
    import uno_env

    rules = uno_env.load_rules("uno", **overrides)
    reader = LogReader(2, None)
    env = uno_env.SingleAgentEnv(rules, 3, opponents=["greedy", reader], seat=None)
    reader.env = env
    rng = np.random.default_rng(0)
    decisions = hidden = 0
    for episode in range(4):
        _, info = env.reset(seed=20 + episode)
        done = False
        while not done:
            mine = env.public_view()
            assert (
                mine.seat == env.learner_seat
                and mine.legal_actions() == np.flatnonzero(env.action_masks()).tolist()
            )
            _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = terminated or truncated
        final = env._complete_view()  # the raw log (an agent's view hides the cards given)
        log = list(final.log[: final.log_length])
        assert aec_histories(rules, 3, info["game_seed"], log)[-1][2] == env.position()  # the whole game
        decisions += len(reader.seen)
        hidden += check_against_aec(rules, 3, int(info["game_seed"]), reader.seen, log)
        reader.seen.clear()
    assert decisions > 40 and (hidden > 0 or "two_gives" not in overrides)


@pytest.mark.parametrize("overrides", HISTORY_RULES)
def test_the_vector_envs_agents_see_the_whole_public_history(overrides: dict[str, object]) -> None:
    """The same in the vector env: an agent object beside a compiled opponent, over auto-reset
    games in two rows; each game is identified by the deal whose AEC replay reaches the
    positions the agent saw."""
    import uno_env
    from uno_env.envs import core

    rules = uno_env.load_rules("uno", **overrides)
    reader = LogReader(3, None)
    venv = uno_env.VectorEnv(2, rules, 3, opponents=[reader, "random_playable"], seat=None)
    reader.env = venv
    venv.reset(seed=5)
    rng = np.random.default_rng(1)
    seeds: set[int] = set()
    for _ in range(120):
        seeds.update(int(s) for s in venv.game_seeds)
        masks = venv.action_masks()
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    games: dict[int, list] = {}
    for entry in reader.seen:
        games.setdefault(id(entry[1]), []).append(entry)
    checked = hidden = 0
    for seen in games.values():
        log, length = seen[-1][1], seen[-1][2]
        log = list(log[:length])
        seed = next(
            s for s in sorted(seeds | {core.next_seed(s) for s in seeds}) if deals(rules, s, log, seen[-1][4])
        )
        hidden += check_against_aec(rules, 3, seed, seen, log)
        checked += len(seen)
    assert len(games) >= 3 and checked > 40 and (hidden > 0 or "two_gives" not in overrides)


@pytest.mark.parametrize("overrides", HISTORY_RULES)
def test_the_vector_envs_learners_see_the_whole_public_history(overrides: dict[str, object]) -> None:
    """VectorEnv.public_view(i), with public_views=True and compiled opponents only: at each
    learner decision of each row the view is the learner's and its public history the one the
    AEC env of the same deal gives that seat after the same decisions, hiding what it must;
    changing what the learner may not see changes nothing in it (the re-deal check)."""
    import uno_env

    rules = uno_env.load_rules("uno", **overrides)
    venv = uno_env.VectorEnv(
        2, rules, 3, opponents=["greedy", "random_playable"], seat=None, public_views=True
    )
    venv.reset(seed=7)
    rng = np.random.default_rng(2)
    games: dict[int, tuple[int, list]] = {}  # the log list of each game: its seed, the views
    for _ in range(90):
        for i in range(2):
            view = venv.public_view(i)
            assert view.seat == int(venv.learner_seats[i])
            assert view.legal_actions() == np.flatnonzero(venv.action_masks()[i]).tolist()
            raw = venv._view(i)  # the complete view: the game's raw log list
            entry = (view.seat, raw.log, view.log_length, view.public_history(), venv.position(i))
            games.setdefault(id(raw.log), (int(venv.game_seeds[i]), []))[1].append(entry)
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()]))
    checked = hidden = 0
    for seed, seen in games.values():
        log = list(seen[-1][1][: seen[-1][2]])
        hidden += check_against_aec(rules, 3, seed, seen, log)
        checked += len(seen)
    assert len(games) >= 4 and checked == 180 and (hidden > 0 or "two_gives" not in overrides)


def test_the_vector_envs_public_view_needs_the_log_kept_from_the_deal() -> None:
    """Without public_views=True the games keep no public move log: public_view says which
    argument it needs rather than showing a partial history."""
    import uno_env

    venv = uno_env.VectorEnv(2, "uno", 2, opponents="random_playable")
    venv.reset(seed=1)
    with pytest.raises(RuntimeError, match="public_views=True"):
        venv.public_view(0)
    venv = uno_env.VectorEnv(2, "uno", 2, opponents="random_playable", public_views=True)
    with pytest.raises(RuntimeError, match="reset"):
        venv.public_view(0)
    venv.reset(seed=1)
    with pytest.raises(IndexError, match=r"0\.\.1"):
        venv.public_view(2)


def test_the_sb3_adapter_gives_each_games_public_view() -> None:
    """Through SB3's VecEnv (what MaskablePPO and callbacks hold), public_view(i) and
    env_method("public_view", indices=...) give game i's view, the vector env's own, one per
    index; other arguments are refused."""
    pytest.importorskip("stable_baselines3")
    import uno_env

    venv = uno_env.VectorEnv(3, "uno", 2, opponents="random_playable", public_views=True)
    sb3 = venv.to_sb3()
    sb3.seed(5)
    sb3.reset()
    rng = np.random.default_rng(0)
    for _ in range(12):
        sb3.step(np.array([rng.choice(np.flatnonzero(m)) for m in sb3.env_method("action_masks")]))
    views = sb3.env_method("public_view", indices=[2, 0])
    for i, view in zip([2, 0], views, strict=True):
        assert view.seat == int(venv.learner_seats[i])
        assert view.public_history() == venv.public_view(i).public_history()
        assert view.legal_actions() == np.flatnonzero(venv.action_masks()[i]).tolist()
    assert sb3.public_view(1).hand() == venv.public_view(1).hand()
    assert views[0].public_history() != views[1].public_history()
    with pytest.raises(TypeError, match="indices="):
        sb3.env_method("public_view", 1)


def test_a_long_play_on_within_one_step_keeps_the_whole_history() -> None:
    """Under MC-END-1 with uniform random opponents and large hands, the learner's last step
    lets the others play on for thousands of decisions inside one compiled call (more than a
    512-entry ring holds); the view after it still has the whole game: the log a Game of the
    same deal keeps when replayed, and the same public history."""
    import agents
    import uno_env

    rules = uno_env.load_rules("uno", end="last_player", hand_size=20, max_players=4)
    env = uno_env.SingleAgentEnv(rules, 4, opponents="random_legal", seat=0)
    learner = agents.make("greedy")
    env.reset(seed=0)
    longest, done = 0, False
    while not done:
        view = env.public_view()
        before = view.log_length
        action = learner.act(None, env.action_masks().astype(np.int8), view=view)
        _, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
        longest = max(longest, env.public_view().log_length - before)
    assert longest > 512  # the case: one call applied more decisions than a 512-entry ring
    final = env._complete_view()
    assert final.log is not None
    log = list(final.log[: final.log_length])
    game = Game(rules, 4, seed=0)
    for _, action, _ in log:
        game.step(action)
    assert log == list(game.log) and game.position() == env.position()
    assert final.public_history() == PublicView.of(game).public_history()


def test_a_sweeps_field_seats_a_python_agent() -> None:
    """The transfer field (uno-env sweep's [transfer] field) with a user's agent: its games are
    played at Game tables on the deals the compiled field plays, each deal once per seat, and
    its file is among those sent to Ray nodes."""
    import uno_env
    from agents.match import play_deals
    from training.sweep import parse_sweep
    from training.transfer import FieldTask, play_field_task, style_files

    mine = f"{USER_FILE}:Seeded"
    rules = uno_env.load_rules("uno")
    task = FieldTask("uno__2p", "uno", 2, str(rules), (mine, "blocker", "greedy"), 12, 11)
    pairs = {k: np.asarray(v) for k, v in play_field_task(task)["pairs"].items()}
    seeds = list(range(11, 23))
    first = play_deals(rules, [mine, "blocker"], seeds)["winner"]
    second = play_deals(rules, ["blocker", mine], seeds)["winner"]
    assert np.array_equal(pairs[f"{mine}|blocker"], (first == 0).astype(int) + (second == 1))
    assert np.array_equal(pairs[f"blocker|{mine}"], (first == 1).astype(int) + (second == 0))
    ahead = uno_env.simulate(rules, 2, 12, seed=11, policies=["blocker", "greedy"]).winner
    behind = uno_env.simulate(rules, 2, 12, seed=11, policies=["greedy", "blocker"]).winner
    assert np.array_equal(pairs["blocker|greedy"], (ahead == 0).astype(int) + (behind == 1))  # compiled
    assert style_files([mine, "blocker", "ppo_uno_2p"]) == [str(USER_FILE)]
    spec = parse_sweep(
        {"players": [2], "steps": 256, "transfer": {"field": [mine, "greedy"], "deals": 8}}, source="s.toml"
    )
    assert spec.field == (mine, "greedy")


def test_a_sweeps_transfer_takes_agent_objects_and_file_agents_in_worker_processes(tmp_path: Path) -> None:
    """The transfer field and compare list from Python: a factory in the field, a class and a
    file agent compared. In two worker processes they give the results, deal by deal, of the
    same logic named by file and played in this process; spec.toml keeps the objects' names,
    and a spec read back without the objects is refused before anything is played."""
    import json
    import shutil

    from training.study import SpecError
    from training.sweep import parse_sweep, write_spec
    from training.transfer import run_transfer
    from uno_env.sim.learned import shipped_policies, sidecar_path

    def sweep(field: list[object], compare: list[object], out: Path) -> tuple[object, Path]:
        data = {
            "name": "mine", "seed": 1, "bases": ["uno"], "players": [2], "mode": "expert",
            "transfer": {"deals": 4, "field": field, "compare": compare},
        }  # fmt: skip
        spec = parse_sweep(data, source="test")
        run = out / "runs" / "uno__2p"  # an exported player where the sweep's training leaves it
        run.mkdir(parents=True)
        shutil.copy(shipped_policies()["ppo_uno_2p"], run / "final.npz")
        shutil.copy(sidecar_path(shipped_policies()["ppo_uno_2p"]), run / "final.json")
        return spec, out

    by_file = f"{USER_FILE}:Seeded"
    objects, out = sweep([make_seeded, "greedy"], [Seeded, f"{by_file}:bias=0.5"], tmp_path / "objects")
    assert objects.field == ("make_seeded", "greedy") and objects.compare == ("Seeded", f"{by_file}:bias=0.5")
    run_transfer(objects, out, workers=2, progress=False)
    texts, reference = sweep([by_file, "greedy"], [by_file, f"{by_file}:bias=0.5"], tmp_path / "texts")
    run_transfer(texts, reference, executor="serial", progress=False)

    def named(value: object, names: dict[str, str]) -> object:
        """``value`` with the agents' names (also in "a|b" pair keys) mapped by ``names``."""
        if isinstance(value, dict):
            return {
                "|".join(names.get(p, p) for p in k.split("|")): named(v, names) for k, v in value.items()
            }
        return value

    played = 0
    for folder in ("field", "transfer", "compare"):
        for path in sorted((out / folder).glob("*.json")):
            got = json.loads(path.read_text(encoding="utf-8"))
            want = json.loads((reference / folder / path.name).read_text(encoding="utf-8"))
            assert got["id"] == want["id"]
            assert named(got, {"make_seeded": "S", "Seeded": "S"}) == {
                **named(want, {by_file: "S"}),
                "key": got["key"],
            }
            played += 1
    assert played == 1 + 1 + 2  # a field task, a policy task, two compared players
    write_spec(objects, out)
    read_back = parse_sweep(__import__("tomllib").loads((out / "spec.toml").read_text()), source="spec.toml")
    assert read_back == objects and read_back.missing_objects() == ("make_seeded", "Seeded")
    with pytest.raises(SpecError, match="given as Python objects"):
        run_transfer(read_back, tmp_path / "again", executor="serial", progress=False)


def build_file_agent(spec: str) -> str:
    """A node task of the test below: the agent built from its spec, and where its file was read."""
    from agents.spec import local_file, parse_agent

    agent = parse_agent(spec).make(seed=1)
    return f"{type(agent).__name__} {local_file(spec.rsplit(':', 1)[0])}"


def test_a_ray_node_task_builds_file_agents_from_the_nodes_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """training.cluster.run_on_node (each Ray task's entry) injects the runner's node_file as
    agents.spec's file resolver: a task building a file.py agent reads the node's copy of the
    driver's file (here the copy :func:`training.cluster.materialize` would write), never the
    driver's path."""
    import shutil

    from agents.spec import set_file_resolver
    from training import cluster

    driver, node = tmp_path / "driver" / "mine.py", tmp_path / "node" / "mine.py"
    driver.parent.mkdir()
    node.parent.mkdir()
    driver.write_text("raise RuntimeError('the driver copy was read')\n", encoding="utf-8")
    shutil.copy(USER_FILE, node)
    state = {"engine": "used", "counter": cluster._CompileCounter(), "address": "127.0.0.2"}
    monkeypatch.setattr(cluster, "_NODE_STATE", state)  # as after the node's first task
    monkeypatch.setattr(cluster, "materialize", lambda path, _: node if path == str(driver) else Path(path))
    try:
        done = cluster.run_on_node(build_file_agent, f"{driver}:Seeded", {str(driver): "ref"})
    finally:
        set_file_resolver(None)
        cluster.SHIPPED_FILES.clear()
    assert done["result"] == f"Seeded {node}"


# ---------------------------------------------------------------- agents that break the contract
FAULTY = Path(__file__).parent / "user_agents" / "faulty_agents.py"
FAILURES = [
    ("Illegal", r"answered 999, which is not legal here; act\(\) returns one of the legal action ids"),
    ("Unmasked", r"answered \d+, which is not legal here; act\(\) returns one of the legal action ids"),
    ("Nothing", r"answered None \(a NoneType\), not an action id"),
    ("Fraction", r"answered \d+\.5 \(a float\), not an action id"),
    ("Raises", r"its act\(\) raised RuntimeError: agent exploded \(at .*faulty_agents\.py:\d+, in act\)"),
    ("broken_factory", r"calling broken_factory failed: RuntimeError: factory boom"),
    # Python's own "takes 2 positional arguments but 4 were given", said at the tools' call
    (
        "ObservationOnly",
        r"its act\(\) raised TypeError: ObservationOnly.act\(observation\) cannot be called as "
        r"act\(observation, action_mask, view\) nor as act\(observation, action_mask\)",
    ),
    # a plain act function is taken for a factory: the error said only that 'observation' was missing
    (
        "act_function",
        r"calling act_function failed: .*'observation' \(act_function is a function, so it is taken as a "
        r"factory: .*returns the agent, an object with act\(observation, action_mask, view\)",
    ),
    # sys.exit() is no Exception: it ended every tool with exit code 3 and no word of the agent
    ("Exits", r"its act\(\) raised SystemExit: 3 \(at .*faulty_agents\.py:\d+, in act\)"),
    # an agent object is reset when built: its failure was a traceback from deep in the tools
    (
        "reset_raises",
        r"its reset\(\d+\) raised RuntimeError: reset exploded \(at .*faulty_agents\.py:\d+, in reset\)",
    ),
]


def _one_error_line(capsys: pytest.CaptureFixture[str], code: int) -> str:
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("uno-env: error: "), err
    return lines[0]


@pytest.mark.parametrize(("name", "message"), FAILURES)
def test_an_agent_that_breaks_the_contract_ends_each_tool_with_one_line_naming_it(
    name: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.cli import main

    spec = f"{FAULTY}:{name}"
    runs = {
        "tournament": ["tournament", "--agents", f"{spec},greedy", "--games", "2", "--seed", "1",
                       "--workers", "2", "--quiet", "--out", str(tmp_path / "t")],
        "evaluate": ["evaluate", spec, "--vs", "greedy", "--games", "2", "--seed", "1"],
        "benchmark": ["benchmark", spec, "--vs", "greedy", "--deals", "1", "--seed", "1"],
    }  # fmt: skip
    for tool, argv in runs.items():
        line = _one_error_line(capsys, main(argv))
        assert f"agent {spec!r}" in line and re.search(message, line), (tool, line)


def test_an_agent_file_that_exits_when_loaded_is_named_with_why(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file written as a script (argparse at its top level) read the tool's own arguments and
    exited: the tool ended with argparse's complaint about them and exit code 2, naming no agent."""
    from training.cli import main

    spec = f"{Path(__file__).parent / 'user_agents' / 'exits_on_load.py'}:FirstLegal"
    words = ["evaluate", spec, "--vs", "greedy", "--games", "2", "--seed", "1"]
    # the command line the file's argparse reads, as under `uno-env evaluate ...` (the test
    # runner's own, which differs under pytest-xdist, is not what a user's run has)
    monkeypatch.setattr(sys, "argv", ["uno-env", *words])
    assert main(words) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]  # after argparse's own lines
    assert last.startswith(f"uno-env: error: agent {spec!r}: ") and "Traceback" not in last, last
    assert "it exited while loading (SystemExit: 2)" in last and "if __name__ == '__main__':" in last


def test_an_agent_class_is_refused_where_an_agent_object_is_taken() -> None:
    """A class handed to an env's opponents or to agents.play had its act called unbound (the
    observation as self): it answered action 0 wherever that was illegal, or TypeError
    'NoAct() takes no arguments' for a class without act."""
    import agents
    import uno_env
    from tests.user_agents.faulty_agents import NumpyFirst

    message = r"opponents\[0\]: NumpyFirst is a class, not an agent: pass an agent object \(NumpyFirst\(\)\)"
    with pytest.raises(TypeError, match=message):
        uno_env.SingleAgentEnv("uno", 2, opponents=NumpyFirst)
    with pytest.raises(TypeError, match=message):
        uno_env.VectorEnv(2, "uno", 2, opponents=[NumpyFirst])
    with pytest.raises(TypeError, match=r"agents\[1\]: NumpyFirst is a class, not an agent"):
        agents.play(uno_env.Game("uno", 2, seed=1), [NumpyFirst(), NumpyFirst])
    single = uno_env.SingleAgentEnv("uno", 2, opponents=NumpyFirst())  # the object plays
    single.reset(seed=1)
    single.step(int(np.flatnonzero(single.action_masks())[0]))


def test_an_out_of_process_agent_that_breaks_the_protocol_ends_a_tournament_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.cli import main

    garbage = tmp_path / "garbage.py"
    garbage.write_text("import sys\nfor line in sys.stdin:\n    print('hello, I am not JSON', flush=True)\n")
    argv = ["tournament", "--agents", f"cmd:{sys.executable} {garbage},greedy", "--games", "2",
            "--workers", "2", "--quiet", "--out", str(tmp_path / "t")]  # fmt: skip
    line = _one_error_line(capsys, main(argv))
    assert "answered the 'hello' message with a line that is not JSON" in line and str(garbage) in line


def test_a_failing_agent_stops_the_other_seats_programs() -> None:
    from agents.match import AgentError, play_deals

    protocol_agent = Path(__file__).parent / "user_agents" / "protocol_agent.py"
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with pytest.raises(AgentError, match="its act\\(\\) raised RuntimeError"):
        play_deals("uno", [f"cmd:{sys.executable} {protocol_agent}", f"{FAULTY}:Raises"], [1, 2])
    left = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
    assert not [p for p in left if p.is_running() and p.status() != psutil.STATUS_ZOMBIE], left


def test_numpy_integers_are_action_ids_and_an_agent_needs_no_name(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import io

    from agents.match import play_deals
    from training.cli import main
    from uno_env.game.records import load_records

    result = play_deals("uno", [f"{FAULTY}:NumpyFirst", "greedy"], [1, 2, 3])
    assert (result["length"] > 0).all()
    spec = f"{FAULTY}:NumpyFirst"
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 3000))
    record = tmp_path / "game.jsonl"
    argv = ["play", "--players", "3", "--vs", f"{spec},greedy", "--seed", "1", "--record", str(record)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"seat 1: {spec}, seat 2: greedy" in out and f"seat 1 ({spec}) plays" in out
    assert list(load_records(record)[0].agents or [])[:2] == ["human", spec]
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 3000))
    line = _one_error_line(
        capsys, main(["play", "--players", "2", "--vs", f"{FAULTY}:Raises", "--seed", "3"])
    )
    assert f"agent '{FAULTY}:Raises' at seat 1: its act() raised RuntimeError: agent exploded" in line


class MaskReader:
    """A user's agent in the envs' opponent form, ``act(observation, action_mask)``: no view."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        assert isinstance(observation, np.ndarray) and observation.shape == (1262,)
        return int(np.flatnonzero(action_mask)[-1])


class KeywordView:
    """Takes the view as a keyword-only argument, as the envs hand it (``view=``)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, view: PublicView) -> int:
        assert isinstance(observation, np.ndarray) and observation.shape == (1262,)
        return view.legal_actions()[0]


def test_every_tool_takes_an_act_with_or_without_the_view_and_gives_the_observation() -> None:
    """The tools hand ``act`` the view the way it takes it (by position, by keyword, or not at
    all, as the envs do) and always the observation vector: ``agents.play`` and the match loop
    of tournaments and evaluation alike."""
    import agents
    import uno_env
    from agents.match import play_deals

    result = play_deals("uno", [MaskReader(), KeywordView(), "greedy"], [1, 2])
    assert (result["length"] > 0).all()
    seats = [MaskReader(), KeywordView(), agents.make("greedy")]
    outcome = agents.play(uno_env.Game("uno", 3, seed=4), seats)
    assert outcome.decisions > 0
    # the same agents as env opponents: the same call
    single = uno_env.SingleAgentEnv("uno", 3, opponents=[MaskReader(), KeywordView()])
    single.reset(seed=4)
    done = False
    while not done:
        _, _, terminated, truncated, _ = single.step(int(np.flatnonzero(single.action_masks())[0]))
        done = terminated or truncated
    vector = uno_env.VectorEnv(3, "uno", 3, opponents=[MaskReader(), KeywordView()])  # train --opponents
    vector.reset(seed=5)
    for _ in range(60):
        vector.step(vector.action_masks().argmax(axis=1))


class Peeker:
    """An agent that reads the view's raw fields, as a careless (or a cheating) one might: the
    state buffer's other hands, draw pile and chance generator, and the log's given cards."""

    hidden = 0  # log entries seen hidden, over every instance

    def __init__(self) -> None:
        self.views = 0

    def act(self, observation: object, action_mask: np.ndarray, view: PublicView) -> int:
        me = view.seat
        for other in range(L.MAX_PLAYERS):
            start = L.HANDS + other * L.MAX_FACES
            if other != me:
                assert not view.state[start : start + L.MAX_FACES].any(), f"seat {other}'s hand is readable"
        assert not view.state[L.DRAW_PILE : L.DRAW_PILE + L.MAX_CARDS].any(), "the draw pile is readable"
        assert not view.state[L.RNG : L.RNG + L.RNG_WORDS].any(), "the game's generator is readable"
        assert not view.complete
        receiver = -1
        for seat, action, phase in view.log or ():
            if phase == L.PH_CHOOSE_TARGET:
                receiver = (seat + action_kind(action)[1]) % view.num_players
            if phase == L.PH_GIVE and me not in (seat, receiver):
                assert action == HIDDEN, "a card given between two other seats is readable"
                Peeker.hidden += 1
        self.views += 1
        return int(np.flatnonzero(action_mask)[-1])


def test_no_tool_hands_an_agent_a_hidden_card_in_the_views_raw_fields() -> None:
    """The view handed to an agent (tournaments, evaluation, ``agents.play``, env opponents, the
    envs' ``public_view()`` and the AEC observation's ``view``) is the public copy: another
    hand, the draw pile, the chance generator or a card given between two other seats (H-TWO-1)
    is not in ``view.state`` or ``view.log`` either. The oracle alone (a cheating style) is
    handed the complete view, and refuses a public one with what to do instead."""
    import agents
    import uno_env
    from agents.match import play_deals

    rules = uno_env.load_rules("uno", two_gives=True)
    peeker = Peeker()
    result = play_deals(rules, [peeker, "greedy", "random_legal"], [1, 2, 3])
    assert (result["length"] > 0).all()
    agents.play(Game(rules, 3, seed=4), [peeker, agents.make("greedy"), Peeker()])
    single = uno_env.SingleAgentEnv(rules, 3, opponents=[Peeker(), "greedy"])
    single.reset(seed=4)
    vector = uno_env.VectorEnv(2, rules, 3, opponents=[Peeker(), Peeker()], public_views=True)
    vector.reset(seed=5)
    for _ in range(40):
        Peeker().act(None, single.action_masks(), single.public_view())
        _, _, terminated, truncated, _ = single.step(int(np.flatnonzero(single.action_masks())[-1]))
        if terminated or truncated:
            single.reset()
        for i in range(2):
            Peeker().act(None, vector.action_masks()[i], vector.public_view(i))
        vector.step(vector.action_masks().argmax(axis=1))
    aec = uno_env.env(rules, 3)
    aec.reset(seed=6)
    for _ in aec.agent_iter(max_iter=60):
        observation, _, terminated, truncated, _ = aec.last()
        aec.step(
            None
            if terminated or truncated
            else Peeker().act(None, observation["action_mask"], observation.view)
        )
    assert peeker.views > 20 and Peeker.hidden > 0
    # the oracle is handed the complete view where cheating is allowed, and says so where not
    oracle = agents.make("oracle:sims=20,depth=6", seed=1)
    game = Game(rules, 3, seed=7)
    assert agents.play(game, [oracle, agents.make("greedy"), agents.make("greedy")]).decisions > 0
    with pytest.raises(ValueError, match="oracle reads the other hands"):
        oracle.act(None, single.action_masks(), single.public_view())


def test_an_agent_claiming_to_cheat_is_still_handed_the_public_view() -> None:
    """Only the package's own cheating style (the oracle) is handed the complete view: an
    object with a ``cheats`` flag of its own, or a cheating style built outside the registry,
    is handed the public copy as every agent is."""
    import dataclasses

    from uno_env.envs.common import call_act, cheats_by_design
    from uno_env.styles.registry import STYLES

    class Claimant:
        def __init__(self, style: object) -> None:
            self.style = style
            self.complete: list[bool] = []

        def act(self, observation: object, action_mask: np.ndarray, view: PublicView) -> int:
            self.complete.append(view.complete)
            return int(np.flatnonzero(action_mask)[0])

    game = Game("uno", 3, seed=2)
    view = PublicView.of(game)
    assert view.complete
    lookalike = dataclasses.replace(STYLES["oracle"])  # equal to the oracle's, not the registry's
    for style in (SimpleNamespace(cheats=True), lookalike, STYLES["search"], None):
        claimant = Claimant(style)
        assert not cheats_by_design(claimant)
        call_act(claimant, None, game.legal_mask(), view)
        assert claimant.complete == [False]
    oracle_style = Claimant(STYLES["oracle"])
    assert cheats_by_design(oracle_style)
    call_act(oracle_style, None, game.legal_mask(), view)
    assert oracle_style.complete == [True]


@pytest.mark.parametrize(
    "text",
    [f"{USER_FILE}:Seeded", "tests.user_agents.seeded_agent:Seeded", "cmd:python3 agent.py", "./model.zip"],
)
def test_an_agent_spec_where_only_compiled_styles_run_says_so(text: str) -> None:
    """The envs' opponent names and ``uno_env.simulate`` run compiled styles only: a Python
    agent's, a program's or a checkpoint's spec text is refused with what to pass instead (it
    read as an unknown play style named after the file: 'seeded_agent.py')."""
    import uno_env

    message = re.escape(f"{text!r} is not a compiled play style: it reads as an agent spec of another kind")
    make = "make the agent"
    with pytest.raises(ValueError, match=f"{message}.*{make}"):
        uno_env.simulate("uno", 2, 2, policies=text)
    with pytest.raises(ValueError, match=message):
        uno_env.SingleAgentEnv("uno", 2, opponents=text)
    with pytest.raises(ValueError, match="unknown play style 'greedyy'"):
        uno_env.simulate("uno", 2, 2, policies="greedyy")


def test_an_illegal_action_error_crosses_process_boundaries() -> None:
    import pickle

    from uno_env import IllegalActionError

    game = Game("uno", 2, seed=1)
    with pytest.raises(IllegalActionError) as raised:
        game.step(999)
    again = pickle.loads(pickle.dumps(raised.value))
    assert str(again) == str(raised.value) and again.action == 999 and again.legal == raised.value.legal


SLOW_AGENT = """
import time

import numpy as np


class Slow:
    def act(self, observation, action_mask=None, view=None):
        time.sleep(0.25)
        return int(np.flatnonzero(action_mask)[0])
"""


def test_a_python_agent_over_the_decision_budget_ends_a_tournament_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Python agent runs in the tournament's own process and had no time limit at all; with
    decision_seconds (--decision-seconds) a decision that took longer ends the tournament with
    one AgentError naming the agent, once the decision has returned (nothing interrupts it)."""
    from agents.match import AgentError
    from training.cli import main

    slow = tmp_path / "slow.py"
    slow.write_text(SLOW_AGENT)
    spec = f"{slow}:Slow"
    over = r"took [\d.]+ s for one decision, over the budget of 0\.05 s a decision \(measured when"
    with pytest.raises(AgentError, match=rf"agent '{re.escape(spec)}' at seat \d {over}"):
        run_tournament("uno", 2, [spec, "greedy"], 1, out=tmp_path / "a", executor="serial", progress=False,
                       decision_seconds=0.05)  # fmt: skip
    # a budget the agent keeps: the tournament plays; compiled styles are not timed
    fast = run_tournament("uno", 2, [f"{FAULTY}:NumpyFirst", "greedy"], 1, out=tmp_path / "b",
                          executor="serial", progress=False, decision_seconds=5.0)  # fmt: skip
    assert (fast.standings["games"] == 2).all()
    with pytest.raises(ValueError, match=r"decision_seconds must be a number of seconds > 0, got 0"):
        run_tournament("uno", 2, [spec, "greedy"], 1, out=tmp_path / "c", progress=False, decision_seconds=0)
    argv = ["tournament", "--agents", f"{spec},greedy", "--games", "1", "--workers", "1", "--quiet",
            "--decision-seconds", "0.05", "--out", str(tmp_path / "d")]  # fmt: skip
    line = _one_error_line(capsys, main(argv))
    assert f"agent {spec!r} at seat" in line and "over the budget of 0.05 s a decision" in line
    # the budget is recorded: --resume keeps it (the slow agent's tournament fails again), a
    # resume with another budget is refused, and a run folder resumed from Python must match
    assert json.loads((tmp_path / "d" / "tournament.json").read_text())["decision_seconds"] == 0.05
    line = _one_error_line(capsys, main(["tournament", "--resume", str(tmp_path / "d"), "--quiet"]))
    assert "over the budget of 0.05 s a decision" in line
    line = _one_error_line(
        capsys, main(["tournament", "--resume", str(tmp_path / "d"), "--decision-seconds", "9", "--quiet"])
    )
    assert "recorded (--decision-seconds 0.05); do not give --decision-seconds 9" in line
    with pytest.raises(ValueError, match="decision_seconds"):
        run_tournament("uno", 2, [f"{FAULTY}:NumpyFirst", "greedy"], 1, out=tmp_path / "b", resume=True,
                       executor="serial", progress=False, decision_seconds=1.0)  # fmt: skip
