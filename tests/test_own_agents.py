"""A user's own agents in the tools: a Python object, a ``file.py:Name`` agent and a module's
agent each play a duplicate tournament against styles (in worker processes where the spec
allows) with the same results as an in-process run of the same logic; evaluation and a study
seat them too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("openskill")

from tests.user_agents.seeded_agent import Seeded, make_seeded
from training.tournament import run_tournament

USER_FILE = Path(__file__).parent / "user_agents" / "seeded_agent.py"


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
        out=tmp_path / "c",
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


def test_a_study_seats_a_python_agent(tmp_path: Path) -> None:
    from training.study import parse_spec, run_study

    spec = parse_spec(
        {"styles": [f"{USER_FILE}:Seeded", "greedy"], "players": [2], "games": 8, "batch_games": 8},
        source="test",
    )
    result = run_study(spec, tmp_path, workers=1, progress=False)
    assert result is not None
    assert np.isfinite(0.0)


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
