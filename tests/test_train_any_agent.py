"""Training against any agent: shipped policies by name, exported ones by absolute path, a user's
``file.py:Name`` agent, seat tables and weighted mixtures, at 2 and 4 players; and
``uno-env train --best-response AGENT`` with its duplicate, deal-grouped measurement."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from training.train import TrainConfig, main, train
from uno_env.sim.learned import shipped_policies

USER_FILE = Path(__file__).parent / "user_agents" / "seeded_agent.py"


def config(tmp: Path, players: int, opponents: list[str], **changes: object) -> TrainConfig:
    cfg = TrainConfig(
        players=players, total_steps=2048, num_envs=16, n_steps=64, batch_size=256, n_epochs=1,
        net_arch=[32, 32], eval_every=1024, eval_games=8, eval_opponents=["greedy"], opponents=opponents,
        runs_dir=str(tmp), progress_bar=False, tensorboard=False,
    )  # fmt: skip
    for key, value in changes.items():
        setattr(cfg, key, value)
    return cfg


def played_tables(run: Path) -> set[str]:
    """The opponent tables whose games ended during training (``win_rate_vs_<label>`` columns)."""
    with (run / "progress.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {
        key.removeprefix("charts/win_rate_vs_")
        for row in rows
        for key, value in row.items()
        if key.startswith("charts/win_rate_vs_") and value not in ("", None)
    }


@pytest.mark.parametrize(
    ("players", "policy"), [(2, "ppo_uno_2p"), (4, "distilled_uno_4p")], ids=["2 players", "4 players"]
)
def test_training_against_a_mixture_of_every_kind_of_agent(players: int, policy: str, tmp_path: Path) -> None:
    absolute = str(shipped_policies()[policy].resolve())
    user = f"{USER_FILE}:Seeded"
    mixture = [f"{policy}@1", f"{absolute}@1", f"{user}@1.5", "blocker@1"]
    run = train(config(tmp_path, players, mixture, eval_opponents=[user], num_envs=32))
    labels = played_tables(run)
    # each entry of the mixture dealt games: the shipped policy by name, the same file by its
    # absolute path, the user's Python agent and a style
    assert {policy, f"{policy}.npz", "seeded_agent.py_Seeded", "blocker"} <= labels, labels
    assert (run / "model.zip").is_file()
    with (run / "eval.csv").open(encoding="utf-8") as handle:
        evals = list(csv.DictReader(handle))
    assert evals and all(row["opponents"] == user for row in evals)


def test_a_seat_table_of_an_exported_path_and_a_user_agent_at_4_players(tmp_path: Path) -> None:
    absolute = str(shipped_policies()["distilled_uno_4p"].resolve())
    table = f"{absolute} | {USER_FILE}:Seeded | greedy"
    run = train(config(tmp_path, 4, [table], total_steps=1024))
    assert played_tables(run) == {"distilled_uno_4p.npz-seeded_agent.py_Seeded-greedy"}


def test_best_response_reports_its_win_rate_with_a_deal_grouped_interval(tmp_path: Path) -> None:
    args = ["--players", "2", "--best-response", "ppo_uno_2p", "--best-response-deals", "30"]
    args += [
        "--steps",
        "2048",
        "--num-envs",
        "16",
        "--n-steps",
        "64",
        "--batch-size",
        "256",
        "--n-epochs",
        "1",
    ]
    args += [
        "--net-arch",
        "32",
        "32",
        "--eval-every",
        "1024",
        "--eval-games",
        "8",
        "--runs-dir",
        str(tmp_path),
    ]
    assert main([*args, "--no-progress", "--no-tensorboard"]) == 0
    (run,) = tmp_path.iterdir()
    config_data = json.loads((run / "config.json").read_text(encoding="utf-8"))
    assert config_data["best_response"] == "ppo_uno_2p"
    assert config_data["eval_opponents"] == ["ppo_uno_2p"]  # the evaluation follows the agent
    report = json.loads((run / "best_response.json").read_text(encoding="utf-8"))
    assert report["agent"] == "ppo_uno_2p" and report["deals"] == 30 and report["games"] == 60
    assert report["wins"] == round(report["win_rate"] * 60)
    assert 0 <= report["win_low"] <= report["win_rate"] <= report["win_high"] <= 1
    assert report["win_high"] - report["win_low"] > 0.05  # 60 games: a wide interval
    assert played_tables(run) == {"ppo_uno_2p"}


def test_best_response_refuses_snapshots_and_bad_agents(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="snapshot-weight must be 0"):
        train(config(tmp_path, 2, [], best_response="blocker", snapshot_weight=1.0))
    with pytest.raises(ValueError, match="unknown play style 'nonsense'"):
        train(config(tmp_path, 2, [], best_response="nonsense"))
    assert not any(tmp_path.iterdir())  # refused before a run folder was made
