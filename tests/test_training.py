"""Training, self-play and evaluation scripts: smoke runs, resume, determinism, checkpoint checks.

Budget: about 150 s of CPU on 2 workers. The scripts run on tiny budgets (a few thousand
steps), through their command lines (``main(argv)`` of each module, its exit code, its output),
in the test process; one child process checks that ``python -m training.<name>`` exits with that
code.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import uno_env
from training.common import resolve_rules
from training.evaluate import GameRecords, opponent_seats, play_style, summarize, write_results
from training.evaluate import main as evaluate_main
from training.pool import pool_tables
from training.train import TrainConfig, namespaced_key, parse_opponent, read_eval_rows, train
from training.train import main as train_main
from uno_env.stats import mean_interval, t_quantile, wilson_interval

ROOT = Path(__file__).resolve().parent.parent
TINY = [
    "--num-envs", "8", "--n-steps", "64", "--batch-size", "256", "--n-epochs", "1",
    "--net-arch", "32", "32", "--eval-games", "16", "--no-progress", "--no-tensorboard",
]  # fmt: skip


def tiny_config(tmp: Path, **changes: object) -> TrainConfig:
    """A training config that runs in a few seconds."""
    cfg = TrainConfig(
        total_steps=1024, num_envs=8, n_steps=64, batch_size=256, n_epochs=1, net_arch=[32, 32],
        eval_every=512, eval_games=8, eval_opponents=["greedy"], opponents=["random", "greedy"],
        runs_dir=str(tmp), progress_bar=False, tensorboard=False,
    )  # fmt: skip
    for key, value in changes.items():
        setattr(cfg, key, value)
    return cfg


# the tests of the trained run run on one pytest-xdist worker (make unit: --dist loadgroup), so
# the module-scoped fixture trains it once, not once per worker
ONE_WORKER_FOR_THE_TRAINED_RUN = pytest.mark.xdist_group("test_training.trained_run")


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run with styles and snapshots, through the command line."""
    tmp = tmp_path_factory.mktemp("runs")
    args = [*TINY, "--steps", "1024", "--eval-every", "512", "--runs-dir", str(tmp), "--seed", "3"]
    args += ["--opponents", "random", "blocker@2", "--snapshot-weight", "1", "--snapshot-every", "256"]
    args += [
        "--snapshot-pool",
        "2",
        "--eval-opponents",
        "greedy",
        "--exp",
        "smoke",
        "--set",
        "max_decisions=300",
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp)
        assert train_main(args) == 0
    (run_dir,) = tmp.iterdir()
    return run_dir


@ONE_WORKER_FOR_THE_TRAINED_RUN
def test_train_writes_the_run_directory(trained_run: Path) -> None:
    assert trained_run.name.startswith("custom__smoke__3__")  # a preset with an override
    config = json.loads((trained_run / "config.json").read_text())
    assert config["seed"] == 3 and config["opponents"] == ["random", "blocker@2"]
    rules = uno_env.load_rules("uno", max_decisions=300)
    assert (trained_run / "rules.txt").read_text().strip() == str(rules)
    env_info = json.loads((trained_run / "env.json").read_text())
    assert env_info["observation_spec"] == f"obs-v{uno_env.envs.OBS_VERSION}"
    assert env_info["env_version"] == f"v{uno_env.envs.ENV_VERSION}"
    rows = read_eval_rows(trained_run / "eval.csv")
    assert [r["step"] for r in rows] == [512, 1024]
    assert all(r["opponents"] == "greedy" and r["games"] == 16 for r in rows)
    assert all(r["win_low"] <= r["win_rate"] <= r["win_high"] for r in rows)
    assert (trained_run / "eval_curve.png").read_bytes()[:4] == b"\x89PNG"
    latest = json.loads((trained_run / "checkpoints" / "latest.json").read_text())
    assert latest["step"] == 1024 and latest["checkpoint"] == "step_0000001024.zip"
    assert latest["snapshot_steps"] == [768, 1024]  # the two most recent of 0, 256, 512, 768, 1024
    meta = json.loads((trained_run / "checkpoints" / "step_0000001024.meta.json").read_text())
    assert meta["rules"] == str(rules) and meta["num_players"] == 2
    assert (trained_run / "model.zip").exists() and (trained_run / "model.meta.json").exists()
    header = (trained_run / "progress.csv").read_text().splitlines()[0].split(",")
    assert {"charts/win_rate_vs_blocker", "losses/value_loss", "eval/win_rate_vs_greedy"} <= set(header)
    assert all(key.split("/")[0] in ("charts", "losses", "eval") for key in header)


@ONE_WORKER_FOR_THE_TRAINED_RUN
def test_eval_and_progress_rows_carry_the_intervals_of_every_rate_and_mean(trained_run: Path) -> None:
    """eval.csv gave the mean rank and points without intervals, and progress.csv the evaluation's
    win rate with its lower end only; each interval is checked against the statistics helper on
    the evaluation's games played again (the checkpoint saved with that evaluation, the same
    deals, arg-max play)."""
    from sb3_contrib import MaskablePPO

    from training.common import BatchActor
    from training.evaluate import play_policy
    from uno_env.stats import POINTS_RANGE, bounded_mean_interval

    rules = uno_env.load_rules("uno", max_decisions=300)
    model = MaskablePPO.load(str(trained_run / "checkpoints" / "step_0000000512.zip"), device="cpu")
    records = play_policy(BatchActor(model.policy), rules, 2, ["greedy"], 16, TrainConfig().eval_seed)
    rank = bounded_mean_interval(records.rank[~np.isnan(records.rank)], 1, 2)  # a rank lies in 1..2
    points = bounded_mean_interval(records.points, *POINTS_RANGE)
    first = read_eval_rows(trained_run / "eval.csv")[0]
    assert first["step"] == 512 and first["wins"] == int(records.won.sum())
    assert (first["mean_rank"], first["rank_low"], first["rank_high"]) == pytest.approx(rank)
    assert (first["points"], first["points_low"], first["points_high"]) == pytest.approx(points)
    header = (trained_run / "eval.csv").read_text().splitlines()[0].split(",")
    assert header[-5:] == ["truncated", "rank_low", "rank_high", "points_low", "points_high"]  # appended
    with (trained_run / "progress.csv").open(encoding="utf-8") as handle:
        logged = next(r for r in csv.DictReader(handle) if r["eval/win_rate_vs_greedy"])  # step 512's
    assert float(logged["eval/win_low_vs_greedy"]) == pytest.approx(first["win_low"])
    assert float(logged["eval/win_high_vs_greedy"]) == pytest.approx(first["win_high"])
    assert float(logged["eval/rank_low_vs_greedy"]) == pytest.approx(rank[1])
    assert float(logged["eval/rank_high_vs_greedy"]) == pytest.approx(rank[2])
    truncated = wilson_interval(int(records.truncated.sum()), 16)
    assert float(logged["eval/truncated_low_vs_greedy"]) == pytest.approx(truncated[0])
    assert float(logged["eval/truncated_high_vs_greedy"]) == pytest.approx(truncated[1])


@ONE_WORKER_FOR_THE_TRAINED_RUN
def test_the_last_evaluation_row_describes_the_final_model(trained_run: Path) -> None:
    """The evaluation at the run's last step was taken inside the last rollout, before that
    rollout's update, so eval.csv's last row described weights that model.zip does not have (and
    that step's checkpoint was written twice, with different weights). It is now taken after
    learning ends: the row is model.zip's evaluation played again (same deals, arg-max play)."""
    from sb3_contrib import MaskablePPO

    from training.common import BatchActor
    from training.evaluate import play_policy

    rules = uno_env.load_rules("uno", max_decisions=300)
    model = MaskablePPO.load(str(trained_run / "model.zip"), device="cpu")
    records = play_policy(BatchActor(model.policy), rules, 2, ["greedy"], 16, TrainConfig().eval_seed)
    last = read_eval_rows(trained_run / "eval.csv")[-1]
    assert last["step"] == 1024
    assert (last["wins"], last["truncated"]) == (int(records.won.sum()), int(records.truncated.sum()))
    assert last["mean_rank"] == pytest.approx(float(np.nanmean(records.rank)))
    assert last["points"] == pytest.approx(float(np.mean(records.points)))
    final = MaskablePPO.load(str(trained_run / "checkpoints" / "step_0000001024.zip"), device="cpu")
    for mine, theirs in zip(final.policy.parameters(), model.policy.parameters(), strict=True):
        assert bool((mine == theirs).all())


def test_an_eval_log_from_before_the_rank_and_points_intervals_is_read_and_superseded(tmp_path: Path) -> None:
    """A run from before eval.csv had the rank and points intervals resumes: its rows read without
    them, and rows after the checkpoint move aside with the new columns left empty."""
    from training.train import EVAL_FIELDS, Run

    old = ["step,seconds,opponents,games,wins,win_rate,win_low,win_high,mean_rank,points,truncated"]
    old += ["512,1.4,greedy,16,1,0.0625,0.011,0.283,1.9375,1.9,0"]
    old += ["1024,2.3,greedy,16,0,0.0,0.0,0.194,2.0,0.0,1"]
    (tmp_path / "eval.csv").write_text("\n".join(old) + "\n")
    run = Run(tiny_config(tmp_path), tmp_path, uno_env.load_rules("uno"))
    assert [sorted(r) for r in run.eval_rows] == [sorted(EVAL_FIELDS[:11])] * 2
    run.supersede_eval_rows(512)
    assert csv_lines(tmp_path / "eval.csv") == [",".join(EVAL_FIELDS), old[1] + ",,,,"]
    assert csv_lines(tmp_path / "eval.superseded.csv") == [",".join(EVAL_FIELDS), old[2] + ",,,,"]


@ONE_WORKER_FOR_THE_TRAINED_RUN
def test_resume_continues_the_step_counter_and_keeps_eval_rows(
    trained_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    run_dir = tmp_path / trained_run.name
    shutil.copytree(trained_run, run_dir)
    before = read_eval_rows(run_dir / "eval.csv")
    monkeypatch.chdir(tmp_path)
    assert train_main(["--resume", str(run_dir), "--steps", "2048"]) == 0
    out = capsys.readouterr().out
    assert "resuming" in out and "step 1,024 of 2,048" in out
    after = read_eval_rows(run_dir / "eval.csv")
    assert after[: len(before)] == before
    assert [r["step"] for r in after[len(before) :]] == [1536, 2048]
    latest = json.loads((run_dir / "checkpoints" / "latest.json").read_text())
    assert latest["step"] == 2048
    assert latest["snapshot_steps"] == [1792, 2048]


def test_a_run_killed_between_its_first_files_is_trained_again_by_the_sweep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """config.json marks a run directory: the sweep and exploitability resume a run that has
    one. A kill after the first file a new run writes must not leave a config.json without the
    rules.txt a resume reads (that run, and its whole sweep, could not be resumed)."""
    import training.train as train_module
    from training.sweep import RunTask, train_run

    cfg = tiny_config(tmp_path, total_steps=64, n_steps=8, batch_size=64, eval_every=64)
    rules = resolve_rules(cfg.rules, cfg.overrides)
    real_write = train_module.Run._write
    written: list[str] = []

    def killed_after_the_first_file(self: train_module.Run, name: str, text: str) -> None:
        if written:
            raise KeyboardInterrupt
        written.append(name)
        real_write(self, name, text)

    monkeypatch.setattr(train_module.Run, "_write", killed_after_the_first_file)
    run_dir = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        train(dataclasses.replace(cfg), run_dir=run_dir, rules=rules)
    monkeypatch.undo()
    assert not (run_dir / "config.json").exists() or (run_dir / "rules.txt").exists()
    summary = train_run(RunTask("run", "", str(run_dir), dataclasses.asdict(cfg), str(rules)))
    assert summary["step"] == 64
    assert (run_dir / "rules.txt").read_text() == f"{rules}\n"


def test_resume_refuses_a_training_option_given_at_its_default_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train --resume RUN --seed 0`` went on with the run's own seed without a word: an
    option given at its default value was taken for one not given. Refused like any other."""
    from training.train import main

    assert main(["--resume", str(tmp_path), "--seed", "0"]) == 2
    assert "not --seed" in capsys.readouterr().err


def test_the_time_budget_starts_after_compiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--max-minutes budgets training: the engine is compiled (warm_up) before the run's clock
    (Run.start_time, set when the Run is made) starts, in a new run and in a resumed one."""
    import training.train as train_module

    events: list[str] = []
    real_run = train_module.Run

    def run_after_warm_up(*args: object, **kwargs: object) -> object:
        events.append("clock starts")
        return real_run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(train_module, "warm_up", lambda part: events.append(f"compile {part}"))
    monkeypatch.setattr(train_module, "Run", run_after_warm_up)
    run_dir = train(tiny_config(tmp_path, total_steps=64, n_steps=8, batch_size=64, eval_every=64))
    assert events == ["compile vector", "clock starts"]
    events.clear()
    train_module.resume(run_dir, total_steps=128)
    assert events == ["compile vector", "clock starts"]


def test_a_resume_may_raise_the_time_budget_and_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """uno-env train --resume DIR --max-minutes M: a run stopped by its wall-time budget
    continues with the new budget, which its config.json then records; options a resumed run
    would not use are refused by name, not dropped."""
    import training.train as train_module

    budget = {"max_minutes": 1e-9}
    run_dir = train(tiny_config(tmp_path, total_steps=128, n_steps=8, batch_size=64, eval_every=64, **budget))
    stopped = json.loads((run_dir / "checkpoints" / "latest.json").read_text())["step"]
    assert stopped < 128  # the budget stopped it at its first check

    assert train_module.main(["--resume", str(run_dir), "--lr", "0.1", "--num-envs", "4"]) == 2
    err = capsys.readouterr().err
    assert "--lr" in err and "--num-envs" in err and "--max-minutes" in err
    assert json.loads((run_dir / "checkpoints" / "latest.json").read_text())["step"] == stopped  # not run

    assert train_module.main(["--resume", str(run_dir), "--max-minutes", "0"]) == 0
    assert json.loads((run_dir / "checkpoints" / "latest.json").read_text())["step"] >= 128  # whole rollouts
    config = json.loads((run_dir / "config.json").read_text())
    assert config["max_minutes"] == 0 and config["learning_rate"] == TrainConfig().learning_rate


def test_same_seed_same_parameters(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    def params(run: Path) -> list[np.ndarray]:
        model = MaskablePPO.load(str(run / "model.zip"))
        return [p.detach().numpy().copy() for p in model.policy.parameters()]

    a = params(train(tiny_config(tmp_path / "a", seed=5)))
    b = params(train(tiny_config(tmp_path / "b", seed=5)))
    c = params(train(tiny_config(tmp_path / "c", seed=6)))
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_the_default_progress_bar_trains(tmp_path: Path) -> None:
    """``uno-env train`` shows SB3's progress bar unless ``--no-progress``: the packages it needs
    (tqdm, rich) come with the ``train`` extra, so the default run finishes."""
    run = train(tiny_config(tmp_path, total_steps=512, eval_every=512, progress_bar=True))
    assert [r["step"] for r in read_eval_rows(run / "eval.csv")] == [512]


def test_every_preset_trains_with_the_same_command(tmp_path: Path) -> None:
    for preset in uno_env.PRESETS:
        cfg = tiny_config(tmp_path, rules=preset, players=4, total_steps=512, eval_every=512, eval_games=4)
        run = train(cfg)
        assert (run / "rules.txt").read_text().strip() == str(uno_env.load_rules(preset))
        assert [r["step"] for r in read_eval_rows(run / "eval.csv")] == [512]


def test_rule_overrides_and_toml(tmp_path: Path) -> None:
    rules = resolve_rules("uno", ["seven_swap=true", "stacking=D2/D2,WD4/WD4"])
    assert rules.seven_swap and rules.stacking == ("D2/D2", "WD4/WD4")
    toml = tmp_path / "r.toml"
    toml.write_text('preset = "uno_house"\nseven_swap = false\n')
    assert resolve_rules(toml) == uno_env.load_rules("uno_house", seven_swap=False)
    with pytest.raises(uno_env.RuleError, match=r"unknown rule key.*sevens"):
        resolve_rules("uno", ["sevens=true"])
    with pytest.raises(ValueError, match="key=value"):
        resolve_rules("uno", ["seven_swap"])


@ONE_WORKER_FOR_THE_TRAINED_RUN
def test_evaluate_refuses_a_mismatched_checkpoint(
    trained_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    model = str(trained_run / "model.zip")
    common = ["--players", "2", "--vs", "greedy", "--games", "20"]
    monkeypatch.chdir(tmp_path)
    assert evaluate_main([model, "--rules", "uno_house", *common]) == 2
    err = capsys.readouterr().err
    assert "rules differ" in err and "--allow-rules-mismatch" in err
    same_rules = ["--set", "max_decisions=300", "--players", "3"]
    assert evaluate_main([model, *common, *same_rules]) == 2
    assert "players: trained for 2, game has 3" in capsys.readouterr().err
    assert (
        evaluate_main([model, "--rules", "mau_mau", "--allow-rules-mismatch", *common, "--players", "4"]) == 2
    )
    assert "deck family" in capsys.readouterr().err
    out = tmp_path / "transfer"
    args = [model, "--rules", "uno_house", "--allow-rules-mismatch", *common, "--out", str(out)]
    assert evaluate_main(args) == 0
    assert "TRANSFER EVALUATION" in capsys.readouterr().out
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["results"][0]["games"] == 20 and data["results"][0]["rules"] == "uno_house"


def test_evaluate_a_style_matches_the_batch_simulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "eval"
    args = ["blocker", "--players", "3", "--vs", "greedy", "random/greedy", "--games", "300", "--seed", "7"]
    monkeypatch.chdir(tmp_path)
    assert evaluate_main([*args, "--out", str(out)]) == 0
    data = json.loads(out.with_suffix(".json").read_text())
    assert [r["opponents"] for r in data["results"]] == ["greedy", "random/greedy"]
    csv_text = out.with_suffix(".csv").read_text().splitlines()
    assert csv_text[0].startswith("model,opponents,") and len(csv_text) == 3
    # the same games by hand: game j from seed 7 + j, blocker at seat (7 + j) % 3
    wins = 0
    for seat in range(3):
        names = ["random"] * 3
        names[seat] = "blocker"
        names[(seat + 1) % 3] = "random"
        names[(seat + 2) % 3] = "greedy"
        result = uno_env.simulate("uno", 3, 300, seed=7, policies=names)
        games = [j for j in range(300) if (7 + j) % 3 == seat]
        wins += int(sum(result.winner[j] == seat for j in games))
    assert data["results"][1]["wins"] == wins


def test_selfplay_smoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from training.selfplay import main as selfplay_main

    args = ["--players", "3", "--steps", "512", "--envs", "2", "--n-steps", "128", "--batch-size", "128"]
    args += ["--net-arch", "32", "--eval-games", "12", "--eval-opponents", "greedy", "--no-progress"]
    monkeypatch.chdir(tmp_path)
    assert selfplay_main([*args, "--runs-dir", str(tmp_path)]) == 0
    (run_dir,) = tmp_path.iterdir()
    assert run_dir.name.startswith("uno__selfplay__0__")
    result = json.loads((run_dir / "eval.json").read_text())
    assert result["steps"] == 512 and result["results"][0]["games"] == 12
    assert json.loads((run_dir / "model.meta.json").read_text())["num_players"] == 3
    with (run_dir / "progress.csv").open(encoding="utf-8") as fh:  # the training curve
        rows = list(csv.DictReader(fh))
    assert rows and int(rows[-1]["charts/total_timesteps"]) == 512


def test_python_m_exits_with_the_code_of_main(tmp_path: Path) -> None:
    """``python -m training.train / evaluate / selfplay`` end the process with the exit code of
    ``main(argv)`` (2 for a refused command line). This test is about the process, so it runs
    one: a child process that runs each module as ``__main__`` in turn, as ``python -m`` does."""
    cases = [
        ("training.train", ["--resume", str(tmp_path), "--seed", "0"]),
        ("training.evaluate", ["greedy", "--threads", "0"]),
        ("training.selfplay", ["--players", "1"]),
    ]
    program = textwrap.dedent(
        """
        import json, runpy, sys, warnings
        warnings.simplefilter("ignore", RuntimeWarning)  # a module run after another one imported it
        for module, argv in json.loads(sys.argv[1]):
            sys.argv = [module, *argv]
            try:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
            except SystemExit as exc:
                print(module, exc.code, flush=True)
        """
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-c", program, json.dumps(cases)]
    proc = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.stdout.splitlines() == ["training.train 2", "training.evaluate 2", "training.selfplay 2"], (
        proc.stderr
    )
    assert "not --seed" in proc.stderr
    assert "--batch and --threads must be >= 1, got 1024 and 0" in proc.stderr
    assert "--players 1: games seat 2..10 players" in proc.stderr


def test_selfplay_env_rotates_the_learner_and_pays_the_final_reward() -> None:
    from training.selfplay_env import SelfPlayEnv

    env = SelfPlayEnv("uno", 3)
    env.set_opponent(lambda obs, mask: int(np.flatnonzero(mask)[0]))
    for seed in (30, 31, 32):
        env.reset(seed=seed)
        assert env.learner == f"player_{seed % 3}"
        done, reward = False, 0.0
        while not done:
            _obs, reward, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            done = term or trunc
        assert reward == env.aec.rewards[env.learner] and reward in (1.0, -0.5, 0.0)


def test_interval_math() -> None:
    rules = uno_env.load_rules("uno")
    won = np.array([True] * 7 + [False] * 3)
    rank = np.where(won, 1.0, 2.0)
    rank[-1] = np.nan  # a truncated game has no rank
    points = np.arange(10, dtype=float)
    lengths = np.arange(10) + 20
    records = GameRecords(won, rank, points, np.arange(10) == 9, np.arange(10) % 2, lengths + 5, lengths)
    res = summarize(records, model="m", opponents="o", rules=rules, players=2, seconds=1.0)
    assert res.games == 10 and res.wins == 7 and res.win_rate == 0.7 and res.truncated == 1
    p, n, z = 0.7, 10, t_quantile(0.975, math.inf)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert res.win_low == pytest.approx(centre - half) and res.win_high == pytest.approx(centre + half)
    assert (res.win_low, res.win_high) == wilson_interval(7, 10)
    assert res.mean_rank == pytest.approx(11 / 9)
    sd = np.std([1.0] * 7 + [2.0] * 2, ddof=1)
    assert res.rank_high - res.mean_rank == pytest.approx(t_quantile(0.975, 8) * sd / 3)
    mean, _lo, hi = mean_interval(np.array([1.0, 2.0, 3.0]))
    assert (mean, hi - mean) == (2.0, pytest.approx(t_quantile(0.975, 2) / math.sqrt(3)))
    assert res.points == 4.5 and res.games_per_second == 10.0
    assert (res.turns, res.decisions) == (24.5, 29.5) and res.turns_low < 24.5 < res.turns_high


def test_evaluation_intervals_stay_in_the_possible_range() -> None:
    """Lengths are at least 1 and points at least 0: three games, one short and two long, give
    a t interval of the mean length below 1, cut at 1; games that all score 0 points or all
    last as long give [0, inf] and [1, inf] (nothing measured the spread), not [x, x]."""
    rules = uno_env.load_rules("uno")
    won = np.array([False, False, False])
    lengths = np.array([1, 70, 70])
    seat = np.zeros(3, dtype=np.int64)
    records = GameRecords(won, np.full(3, 2.0), np.zeros(3), np.zeros(3, dtype=bool), seat, lengths, lengths)
    res = summarize(records, model="m", opponents="o", rules=rules, players=2, seconds=1.0)
    assert mean_interval(lengths)[1] < 1
    assert (res.turns_low, res.decisions_low) == (1.0, 1.0)
    assert res.turns_high == pytest.approx(mean_interval(lengths)[2])
    assert (res.points, res.points_low, res.points_high) == (0.0, 0.0, math.inf)
    same = dataclasses.replace(records, turns=np.full(3, 9), decisions=np.full(3, 12))
    res = summarize(same, model="m", opponents="o", rules=rules, players=2, seconds=1.0)
    assert (res.turns, res.turns_low, res.turns_high) == (9.0, 1.0, math.inf)
    assert (res.decisions, res.decisions_low, res.decisions_high) == (12.0, 1.0, math.inf)


def test_evaluation_files_are_strict_json_where_an_interval_has_no_end(tmp_path: Path) -> None:
    """An interval the games do not bound (points all 0: ``[0, inf]``) is ``null`` in
    ``OUT.json``, which strict JSON readers load (Python's default writer would put
    ``Infinity``, which JavaScript and :func:`uno_env.files.parse_json` refuse); the CSV
    keeps ``inf``."""
    rules = uno_env.load_rules("uno")
    lengths = np.array([30, 70, 50])
    records = GameRecords(
        np.zeros(3, dtype=bool), np.full(3, 2.0), np.zeros(3), np.zeros(3, dtype=bool),
        np.zeros(3, dtype=np.int64), lengths, lengths,
    )  # fmt: skip
    res = summarize(records, model="m", opponents="o", rules=rules, players=2, seconds=1.0)
    assert res.points_high == math.inf
    json_path = write_results([res], tmp_path / "eval")
    text = json_path.read_text(encoding="utf-8")
    row = json.loads(text, parse_constant=lambda name: pytest.fail(f"non-standard JSON {name}"))["results"][0]
    assert (row["points"], row["points_low"], row["points_high"]) == (0.0, 0.0, None)
    assert uno_env.files.parse_json(text, "eval.json", finite=True)["results"][0]["points_high"] is None
    with (tmp_path / "eval.csv").open(encoding="utf-8") as handle:
        assert next(csv.DictReader(handle))["points_high"] == "inf"


def test_seats_rotate_in_style_evaluation() -> None:
    rules = uno_env.load_rules("uno")
    records = play_style("greedy", rules, 4, opponent_seats("random", 4), 40, seed=5)
    assert list(records.seat[:5]) == [1, 2, 3, 0, 1]
    assert np.bincount(records.seat).tolist() == [10, 10, 10, 10]


def test_argument_checks() -> None:
    assert parse_opponent("blocker@2.5") == ("blocker", 2.5)
    assert parse_opponent("bluffer:bluff=0.3") == ("bluffer:bluff=0.3", 1.0)
    with pytest.raises(ValueError, match="weight"):
        parse_opponent("blocker@x")
    with pytest.raises(ValueError, match="seats; 3 players need 2"):
        opponent_seats("greedy/random/random", 3)
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        TrainConfig(num_envs=0).check()
    assert namespaced_key("train/value_loss") == "losses/value_loss"
    assert namespaced_key("rollout/ep_rew_mean") == "charts/ep_rew_mean"
    assert namespaced_key("train/learning_rate") == "charts/learning_rate"
    assert namespaced_key("eval/win_rate_vs_random") == "eval/win_rate_vs_random"


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        # these were not checked: NaN reached torch's optimiser after the envs were built
        # ("Invalid learning rate: nan"), and a discount of 2 or a negative clip range trained
        ("learning_rate", float("nan"), r"learning_rate must be a finite number > 0, got nan"),
        ("learning_rate", 0.0, r"learning_rate must be a finite number > 0, got 0\.0"),
        ("learning_rate", float("inf"), r"learning_rate must be a finite number > 0, got inf"),
        ("gamma", 2.0, r"gamma must be a finite number in \[0, 1\], got 2\.0"),
        ("gae_lambda", -0.1, r"gae_lambda must be a finite number in \[0, 1\], got -0\.1"),
        ("clip_range", -0.2, r"clip_range must be a finite number > 0, got -0\.2"),
        ("ent_coef", float("nan"), r"ent_coef must be a finite number >= 0, got nan"),
        ("vf_coef", -1.0, r"vf_coef must be a finite number >= 0, got -1\.0"),
        ("max_grad_norm", 0.0, r"max_grad_norm must be a finite number > 0, got 0\.0"),
        ("max_minutes", float("nan"), r"max_minutes must be a finite number >= 0, got nan"),
        ("snapshot_weight", float("inf"), r"snapshot_weight must be a finite number >= 0, got inf"),
        ("learning_rate", "0.1", r"learning_rate must be a finite number > 0, got '0\.1'"),
        ("gamma", True, r"gamma must be a finite number in \[0, 1\], got True"),
        # a width that is not an integer raised TypeError from the comparison, or built a layer of 2.5
        ("net_arch", ["64"], r"net_arch must list positive layer widths \(integers\), got \['64'\]"),
        ("net_arch", [2.5], r"net_arch must list positive layer widths \(integers\), got \[2\.5\]"),
        # NumPy's legacy seeding (through SB3) took the seed only after the envs were built
        ("seed", 2**32, r"seed must be an integer in 0\.\.4,292,967,295: stable-baselines3 seeds"),
        ("seed", -1, r"seed must be an integer in 0\.\..*got -1"),
        ("seed", 1.0, r"seed must be an integer in 0\.\..*got 1\.0"),
        ("eval_seed", 2**63 - 10, r"eval_seed must be in 0\.\.9,223,372,036,854,772,808 "),
        ("eval_seed", "7", r"eval_seed must be an integer, got '7'"),
    ],
)
def test_training_options_out_of_range_are_refused(option: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TrainConfig(**{option: value}).check()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("learning_rate", float("nan"), r"learning_rate must be a finite number > 0, got nan"),
        ("ent_coef", -0.5, r"ent_coef must be a finite number >= 0, got -0\.5"),
        ("gamma", 1.5, r"gamma must be a finite number in \[0, 1\], got 1\.5"),
        ("net_arch", [0], r"net_arch must list positive layer widths \(integers\), got \[0\]"),
        ("seed", 2**32, r"seed must be an integer in 0\.\.4,294,967,295: stable-baselines3 seeds"),
    ],
)
def test_self_play_options_out_of_range_are_refused(option: str, value: object, message: str) -> None:
    """SelfPlayConfig checked its integers only: these reached torch and SB3 as given."""
    from training.selfplay import SelfPlayConfig

    with pytest.raises(ValueError, match=message):
        SelfPlayConfig(**{option: value}).check()  # type: ignore[arg-type]


def test_training_win_rates_per_opponent_table_carry_their_wilson_intervals() -> None:
    """progress.csv's charts/ win rates (per opponent table and pooled) had no intervals; each is
    checked against the Wilson interval of the games counted here from the steps themselves."""
    from training.train import build_env

    cfg = TrainConfig(num_envs=16, opponents=["random", "blocker@2"])
    env = build_env(cfg, uno_env.load_rules("uno", max_decisions=200))
    env.seed(3)
    env.reset()
    games: dict[str, list[int]] = {}  # label: [games, wins]
    for _ in range(300):
        tables = env.venv.table_index.copy()
        env.step_async(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
        _obs, rewards, dones, infos = env.step_wait()
        for i in np.flatnonzero(dones):
            count = games.setdefault(env.labels[int(tables[i])], [0, 0])
            count[0] += 1
            count[1] += int(not infos[i]["TimeLimit.truncated"] and rewards[i] > 0)
    stats = env.pop_stats()
    assert set(games) == {"random", "blocker"} and all(n > 5 for n, _ in games.values())
    for label, (n, wins) in games.items():
        assert stats[f"win_rate_vs_{label}"] == wins / n
        assert (stats[f"win_low_vs_{label}"], stats[f"win_high_vs_{label}"]) == wilson_interval(wins, n)
    total = [sum(c[k] for c in games.values()) for k in (0, 1)]
    assert (stats["win_low"], stats["win_high"]) == wilson_interval(total[1], total[0])
    keys = list(stats)  # the intervals come after the earlier keys (progress.csv keeps its columns)
    assert keys.index("win_low") > max(keys.index(k) for k in keys if k.startswith(("reward_vs", "win_rate")))


def test_the_training_envs_infos_carry_each_finished_games_final_info() -> None:
    """The training env wrote only ``terminal_observation`` and ``TimeLimit.truncated`` into a
    finished game's info, as the SB3 adapter it extends did: ``VecMonitor(env, info_keywords=
    ("illegal_action", "decision_limit"))`` raised ``KeyError``. It now gives the adapter's infos."""
    from stable_baselines3.common.vec_env import VecMonitor

    from training.train import build_env

    env = build_env(
        TrainConfig(num_envs=4, opponents=["random"]), uno_env.load_rules("uno", max_decisions=30)
    )
    monitor = VecMonitor(env, info_keywords=("illegal_action", "decision_limit"))
    monitor.seed(0)
    monitor.reset()
    cut = 0
    for _ in range(40):
        _obs, _rewards, dones, infos = monitor.step(
            np.array([np.flatnonzero(m)[0] for m in env.action_masks()])
        )
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["episode"]["decision_limit"] == info["decision_limit"] == info["TimeLimit.truncated"]
            assert not info["episode"]["illegal_action"] and info["decisions"] >= info["turns"] > 0
            cut += int(info["decision_limit"])
    assert cut > 0 and env.pop_stats()["games"] >= cut


def test_snapshot_tables_play_with_batched_inference() -> None:
    from sb3_contrib import MaskablePPO

    from training.snapshots import SnapshotPool
    from training.train import build_env, refresh_pool

    cfg = TrainConfig(num_envs=32, opponents=["random", "blocker@2"], snapshot_weight=1.0, net_arch=[16])
    env = build_env(cfg, uno_env.load_rules("uno"))
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, policy_kwargs={"net_arch": [16]}, seed=0)
    snapshots = SnapshotPool(capacity=2, seed=0)
    for step in (0, 10, 20):
        snapshots.add(model.policy, step)
    assert snapshots.steps == [10, 20]
    pool, labels = pool_tables([("random", 1.0), ("blocker", 2.0)], list(snapshots), 1.0)
    assert (
        list(pool.weights or []) == [1.0, 2.0, 0.5, 0.5]
        and labels == ["random", "blocker"] + ["snapshots"] * 2
    )
    calls = [0, 0]
    for k, actor in enumerate(snapshots.actors):
        original = actor.__call__

        def counting(obs: np.ndarray, masks: np.ndarray, k: int = k, original=original) -> np.ndarray:
            calls[k] += obs.shape[0]
            return original(obs, masks)

        snapshots.actors[k] = counting  # type: ignore[assignment]
    refresh_pool(env, cfg, snapshots)
    env.seed(0)
    env.reset()
    seen = set()
    for _ in range(40):
        seen |= set(env.venv.table_index.tolist())
        env.step_async(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
        env.step_wait()
    assert seen == {0, 1, 2, 3} and min(calls) > 0


def copy_run(run: Path, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / run.name
    shutil.copytree(run, target)
    return target


def csv_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


@ONE_WORKER_FOR_THE_TRAINED_RUN
def test_resuming_a_finished_run_keeps_every_log_row(
    trained_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = copy_run(trained_run, tmp_path)
    progress, evals = csv_lines(run_dir / "progress.csv"), csv_lines(run_dir / "eval.csv")
    assert len(progress) > 2
    monkeypatch.chdir(tmp_path)
    assert train_main(["--resume", str(run_dir)]) == 0
    assert csv_lines(run_dir / "progress.csv") == progress  # not even an empty row added
    assert csv_lines(run_dir / "eval.csv") == evals
    assert not (run_dir / "progress.superseded.csv").exists()


@ONE_WORKER_FOR_THE_TRAINED_RUN
def test_resuming_from_an_earlier_checkpoint_moves_rows_aside(
    trained_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = copy_run(trained_run, tmp_path)
    progress = csv_lines(run_dir / "progress.csv")
    earlier = run_dir / "checkpoints" / "step_0000000512.state.json"
    kept = json.loads(earlier.read_text())["progress_rows"]  # rows written when it was saved
    assert 0 <= kept < len(progress) - 1  # 0: saved before the first PPO update was logged
    (run_dir / "checkpoints" / "latest.json").write_text(earlier.read_text())  # as if killed after it
    monkeypatch.chdir(tmp_path)
    assert train_main(["--resume", str(run_dir)]) == 0
    after = csv_lines(run_dir / "progress.csv")
    assert after[: kept + 1] == progress[: kept + 1] and len(after) > kept + 1
    moved = csv_lines(run_dir / "progress.superseded.csv")
    assert moved[1:] == progress[kept + 1 :]
    assert [r["step"] for r in read_eval_rows(run_dir / "eval.csv")] == [512, 1024]
    assert len(csv_lines(run_dir / "eval.superseded.csv")) == 2  # header + the old row of step 1024


@ONE_WORKER_FOR_THE_TRAINED_RUN
def test_resume_stays_inside_the_run_directory(
    trained_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkpoint named outside the run directory is refused before it is loaded. The resumes
    run in the test process: had one unpickled the poisoned file, its payload would have made the
    marker file here as well (and the load would have gone on to fail)."""
    from tests.hostile import poison

    run_dir = copy_run(trained_run, tmp_path / "runs")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    marker = tmp_path / "code-ran"
    poison(run_dir / "model.zip", elsewhere / "model.zip", marker)
    latest = run_dir / "checkpoints" / "latest.json"
    state = json.loads(latest.read_text())
    monkeypatch.chdir(tmp_path)
    for name in ("../../elsewhere/model.zip", str(elsewhere / "model.zip"), "step_0000000512.zip"):
        latest.write_text(json.dumps({**state, "checkpoint": name}))
        code, err = train_main(["--resume", str(run_dir)]), capsys.readouterr().err
        assert code == 2 and "must name a file step_<N>.zip" in err, err
    latest.write_text(json.dumps(state))
    ckpt = run_dir / "checkpoints" / "step_0000001024.zip"
    ckpt.unlink()
    ckpt.symlink_to(elsewhere / "model.zip")
    code, err = train_main(["--resume", str(run_dir)]), capsys.readouterr().err
    assert code == 2 and "leads outside the run directory" in err, err
    assert not marker.exists()


@ONE_WORKER_FOR_THE_TRAINED_RUN
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("observation_spec", "obs-v999", "observation spec: trained 'obs-v999'"),
        ("env_version", "v999", "env version: trained 'v999'"),
        ("num_players", 3, "players: trained for 3, game has 2"),
        ("rules", str(uno_env.load_rules("uno_house")), "rules differ"),
    ],
)
def test_resume_checks_the_checkpoint_sidecar(
    trained_run: Path, tmp_path: Path, field: str, value: object, message: str
) -> None:
    from agents import PolicyMismatchError
    from training.train import resume

    run_dir = copy_run(trained_run, tmp_path)
    side = run_dir / "checkpoints" / "step_0000001024.meta.json"
    side.write_text(json.dumps({**json.loads(side.read_text()), field: value}))
    with pytest.raises(PolicyMismatchError, match=message):
        resume(run_dir)


@ONE_WORKER_FOR_THE_TRAINED_RUN
def test_resume_refuses_an_unsigned_checkpoint_without_the_flag(trained_run: Path, tmp_path: Path) -> None:
    from agents import UntrustedCheckpointError
    from training.train import resume

    run_dir = copy_run(trained_run, tmp_path)
    side = run_dir / "checkpoints" / "step_0000001024.meta.json"
    side.write_text(json.dumps({**json.loads(side.read_text()), "signature": None}))
    with pytest.raises(UntrustedCheckpointError, match="--trust-checkpoint"):
        resume(run_dir)
    assert resume(run_dir, trust=True) == run_dir


def test_a_second_session_of_a_run_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two ``uno-env train --resume`` of one run at once logged and checkpointed over each
    other (every progress.csv row twice): the folder is held (``.lock``) by its session, and a
    second one stops in one line naming the holder, before it writes anything."""
    import training.train as train_module
    from training.runner import lock_folder

    run_dir = train(tiny_config(tmp_path, total_steps=64, n_steps=8, batch_size=64, eval_every=64))
    before = {p.name: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != ".lock"}
    capsys.readouterr()
    with lock_folder(run_dir, "training"):  # another session holds the folder
        assert train_module.main(["--resume", str(run_dir), "--steps", "128"]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and "in use by another training run" in err
        assert f"pid {os.getpid()}" in err
        with pytest.raises(ValueError, match="in use by another training run"):
            train(tiny_config(tmp_path, total_steps=64, n_steps=8, batch_size=64), run_dir=run_dir)
    after = {p.name: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after == before  # nothing written by the refused sessions
    assert train_module.main(["--resume", str(run_dir), "--steps", "128"]) == 0  # free again
    assert json.loads((run_dir / "checkpoints" / "latest.json").read_text())["step"] >= 128


def test_resume_refuses_an_opponent_file_replaced_since_the_run_started(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An exported policy among the opponents, replaced (policy and sidecar, consistent) after
    the run started: the resumed run trained on against the new one under the old name. Its
    SHA-256 is recorded in agent_files.json at the start and a resume refuses it in one line."""
    import shutil

    import training.train as train_module
    from uno_env.sim.learned import shipped_policies

    def place(name: str) -> None:
        source = Path(shipped_policies()[name])
        for suffix in (".npz", ".json"):
            shutil.copyfile(source.with_suffix(suffix), (tmp_path / "opp").with_suffix(suffix))

    place("distilled_uno_2p")
    opponent = str(tmp_path / "opp.npz")
    cfg = tiny_config(tmp_path / "runs", total_steps=64, n_steps=8, batch_size=64, eval_every=64)
    run_dir = train(dataclasses.replace(cfg, opponents=[opponent]))
    place("ppo_uno_2p")  # another network under the same file name
    capsys.readouterr()
    assert train_module.main(["--resume", str(run_dir), "--steps", "128"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "agent file(s)" in err and opponent in err and "changed since" in err
    assert opponent in json.loads((run_dir / "agent_files.json").read_text())
    assert json.loads((run_dir / "checkpoints" / "latest.json").read_text())["step"] == 64  # not trained on
    place("distilled_uno_2p")  # restored: the run goes on
    assert train_module.main(["--resume", str(run_dir), "--steps", "128"]) == 0


def test_a_resume_with_the_spent_budget_trains_no_further(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run its wall-time budget stopped, resumed without a larger one: it used to take
    another step, evaluation and checkpoint past the budget on every resume. Now it says the
    budget is spent and leaves the run as it was."""
    import training.train as train_module

    run_dir = train(
        tiny_config(tmp_path, total_steps=128, n_steps=8, batch_size=64, eval_every=64, max_minutes=1e-9)
    )
    latest = json.loads((run_dir / "checkpoints" / "latest.json").read_text())
    rows = (run_dir / "eval.csv").read_text()
    capsys.readouterr()
    assert train_module.main(["--resume", str(run_dir)]) == 0
    assert "budget of 1e-09 minutes was spent" in capsys.readouterr().out
    assert json.loads((run_dir / "checkpoints" / "latest.json").read_text())["step"] == latest["step"]
    assert (run_dir / "eval.csv").read_text() == rows  # no evaluation past the budget


def test_a_failed_write_of_the_run_config_leaves_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A resume rewrites config.json (its new --steps): the write used to truncate the file
    first, so a full disk or a kill there left a run no resume could read. It is now written
    whole or not at all: the failed session stops in one line, the next resume continues."""
    import errno

    import training.runner as runner
    import training.train as train_module

    run_dir = train(tiny_config(tmp_path, total_steps=64, n_steps=8, batch_size=64, eval_every=64))
    before = (run_dir / "config.json").read_bytes()
    real = runner.write_file_atomic

    def full_disk(path: Path, write: object) -> None:
        if path.name == "config.json":

            def half(handle: object) -> None:
                handle.write(b'{"rules": ')  # type: ignore[attr-defined]
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

            real(path, half)
        real(path, write)  # type: ignore[arg-type]

    monkeypatch.setattr(train_module, "write_file_atomic", full_disk)
    write_text = Path.write_text

    def truncate_then_full(self: Path, *args: object, **kwargs: object) -> int:
        if self.name == "config.json":  # what a full disk does to a plain rewrite
            self.open("w").close()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return write_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", truncate_then_full)
    capsys.readouterr()
    assert train_module.main(["--resume", str(run_dir), "--steps", "128"]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert (run_dir / "config.json").read_bytes() == before
    monkeypatch.undo()
    assert train_module.main(["--resume", str(run_dir), "--steps", "128"]) == 0
