"""The sweep (a policy per rule variant) and its transfer matrix: specs, kill and resume, executors.

Budget: about 90 s of CPU (tiny training budgets: a few hundred steps per run, 8 deals per
cross-evaluation). The kill test runs the sweep as a user would, in its own process, and kills
it with SIGKILL in the middle of a run (after a checkpoint, before the run ends).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("pandas")

from training.runner import check_agent_files
from training.study import SpecError
from training.sweep import load_sweep, parse_sweep, run_sweep, status_rows
from training.train import read_eval_rows
from training.transfer import FieldTask, play_field_task

ROOT = Path(__file__).resolve().parent.parent
TINY = """
name = "tiny"
seed = 5
bases = ["uno"]
players = [2]
steps = 512

[train]
num_envs = 8
n_steps = 8
batch_size = 64
n_epochs = 1
net_arch = [16]
eval_every = 256
eval_games = 8
eval_opponents = ["random_playable"]
opponents = ["random_playable", "greedy"]
tensorboard = false

[transfer]
deals = 8
field = ["greedy", "blocker"]

[variations]
seven_swap = { seven_swap = true }
"""


def write_spec(tmp: Path, text: str = TINY) -> Path:
    path = tmp / "sweep.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path (the lock file left out)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------- specs
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("colour = 1", "unknown key(s) colour"),
        ("steps = 0", "steps must be an integer >= 1"),
        ("steps = true", "steps must be an integer >= 1"),
        ("players = [1]", "impossible player count 1"),
        ("bases = ['nonsense']", "base 'nonsense'"),
        ("[train]\nseed = 3", "seed are set by the sweep"),
        ("[train]\nlearning_rat = 0.1", "unknown option(s) learning_rat"),
        ("[train]\nnum_envs = 'many'", "num_envs must be a int"),
        ("[train]\nnet_arch = [0]", "net_arch must list positive layer widths"),
        ("[train]\nopponents = [1]", "opponents must be a list of str"),
        ("[transfer]\ndeals = 0", "deals must be an integer in 1..1000000"),
        ("[transfer]\nfield = ['nobody']", "style 'nobody'"),
        ("[transfer]\nbaseline = 'nobody'", "baseline 'nobody'"),
        ("[transfer]\nreferee = 1", "unknown key(s) referee"),
        ("[transfer]\nfield = ['greedy', 'oracle']", "set [transfer] allow_cheating = true"),
        ("[transfer]\nfield = ['greedy', 'runs/x/model.zip']", "not SB3 checkpoints: runs/x/model.zip"),
        ("[variations]\nx = { no_such_switch = true }", "unknown switch(es) no_such_switch"),
        (
            "[transfer]\ncompare = ['search:net=./no_such.npz']",
            "exported policy no_such.npz: the file does not",
        ),
        (
            "bases = ['uno', 'macao']\n[transfer]\ncompare = ['search:net=expert_uno_2p']",
            "[transfer] compare 'search:net=expert_uno_2p' cannot play macao: agent",
        ),
    ],
)
def test_malformed_specs_name_what_is_wrong(tmp_path: Path, change: str, message: str) -> None:
    import tomllib

    base = {k: v for k, v in tomllib.loads(TINY).items() if k not in ("train", "transfer", "variations")}
    extra = tomllib.loads(change)
    data = {**base, **extra}
    with pytest.raises(SpecError) as info:
        parse_sweep(data, source="s.toml")
    assert message in str(info.value)
    assert str(info.value).startswith("s.toml")


def test_field_may_seat_the_search_agent_the_oracle_and_exported_policies() -> None:
    import tomllib

    data = tomllib.loads(TINY)
    data["transfer"] = {
        "field": ["greedy", "search:sims=20", "oracle:sims=20", "distilled_uno_2p"], "allow_cheating": True
    }  # fmt: skip
    spec = parse_sweep(data)
    assert spec.field == ("greedy", "search:sims=20", "oracle:sims=20", "distilled_uno_2p")
    assert spec.allow_cheating and parse_sweep(spec.to_dict()) == spec


def test_default_sweep_has_official_uno_and_five_single_switch_variants_at_two_players() -> None:
    spec = load_sweep()
    variants = spec.variants()
    assert variants[0].id == "uno" and variants[0].variation == ""
    assert len(variants) == 6 and all(len(v.switches.split()) == 1 for v in variants[1:])
    assert spec.players == (2,)
    runs = spec.runs()
    assert [r.cfg.total_steps for r in runs] == [spec.steps] * len(runs)
    assert len({r.cfg.seed for r in runs}) == 1  # common seed across variants


def test_run_config_carries_the_variant(tmp_path: Path) -> None:
    from training.common import resolve_rules

    spec = load_sweep(write_spec(tmp_path))
    run = spec.runs()[1]
    assert run.id == "uno+seven_swap__2p"
    assert run.cfg.overrides == ["seven_swap=true"]
    assert resolve_rules(run.cfg.rules, run.cfg.overrides) == run.variant.rules


# ---------------------------------------------------------------- field games
def test_field_games_at_two_players_pair_up() -> None:
    """At 2 players, 'a alone against b' and 'b alone against a' are the same games: per deal
    their wins and the truncated games add up to the two seatings."""
    import uno_env

    rules = uno_env.load_rules("uno")
    task = FieldTask("uno__2p", "uno", 2, str(rules), ("greedy", "blocker"), 50, 11)
    pairs = {k: np.asarray(v) for k, v in play_field_task(task)["pairs"].items()}
    both = pairs["greedy|blocker"] + pairs["blocker|greedy"]
    assert both.max() <= 2 and both.sum() >= 95  # a few games may end at the decision limit
    sim = uno_env.simulate(rules, 2, 50, seed=11, policies=["greedy", "blocker"])
    sim2 = uno_env.simulate(rules, 2, 50, seed=11, policies=["blocker", "greedy"])
    assert np.array_equal(pairs["greedy|blocker"], (sim.winner == 0).astype(int) + (sim2.winner == 1))


# ---------------------------------------------------------------- kill and resume
KILLER = """
import os, signal, sys
from training import train as train_module

original = train_module.ProgressLog.write
seen = {"rows": 0}

def write(self, *args, **kwargs):
    original(self, *args, **kwargs)
    if "seven_swap" in str(self.path):
        seen["rows"] += 1
        if seen["rows"] == 6:  # step 384: after the checkpoint at step 256, before the run ends
            os.kill(os.getpid(), signal.SIGKILL)

train_module.ProgressLog.write = write
from training.cli import main
sys.exit(main(sys.argv[1:]))
"""


# the tests of the killed sweep run on one pytest-xdist worker (make unit: --dist loadgroup), so
# the module-scoped fixture trains, kills and resumes the sweep once, not once per worker
ONE_WORKER_FOR_THE_KILLED_SWEEP = pytest.mark.xdist_group("test_sweep.killed_sweep")


@pytest.fixture(scope="module")
def killed_sweep(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A tiny sweep killed (SIGKILL) in the middle of its second run, then resumed to the end,
    as a user runs it; with what the folder held between the two."""
    tmp = tmp_path_factory.mktemp("sweep")
    spec_path = write_spec(tmp)
    out = tmp / "sweep"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-c", KILLER, "sweep", str(spec_path), "--out", str(out), "--workers", "1"]
    killed = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    first, second = out / "runs" / "uno__2p", out / "runs" / "uno+seven_swap__2p"
    before = {
        "summary_exists": (out / "results" / "uno__2p.json").is_file(),
        "second_summary_exists": (out / "results" / "uno+seven_swap__2p.json").exists(),
        "checkpoint": json.loads((second / "checkpoints" / "latest.json").read_text())["step"],
        "states": {row["run"]: row["state"] for row in status_rows(load_sweep(out / "spec.toml"), out)},
        "finished": tree(first),
        "summary": (out / "results" / "uno__2p.json").read_bytes(),
    }
    resumed = subprocess.run(
        [sys.executable, "-m", "training.sweep", "--resume", str(out), "--workers", "1"],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    return {"out": out, "before": before}


@ONE_WORKER_FOR_THE_KILLED_SWEEP
def test_killed_sweep_resumes_with_nothing_lost_and_nothing_trained_twice(
    killed_sweep: dict[str, Any],
) -> None:
    out, before = killed_sweep["out"], killed_sweep["before"]
    first, second = out / "runs" / "uno__2p", out / "runs" / "uno+seven_swap__2p"
    assert before["summary_exists"] and not before["second_summary_exists"]
    checkpoint = before["checkpoint"]
    assert 0 < checkpoint < 512
    assert before["states"] == {"uno__2p": "done", "uno+seven_swap__2p": "training"}
    # the finished run is not touched: same files, same summary, trained once
    assert tree(first) == before["finished"]
    assert (out / "results" / "uno__2p.json").read_bytes() == before["summary"]
    assert "resuming" not in (first / "train.log").read_text()
    # the interrupted run continued from its last checkpoint, not from step 0
    log = (second / "train.log").read_text()
    assert log.count("run directory:") == 1
    assert f"resuming {second} at step {checkpoint:,} of 512" in log
    result = json.loads((out / "results" / "uno+seven_swap__2p.json").read_text())
    assert result["resumed"] and result["step"] == 512
    # every evaluation point once; the rows written after the checkpoint moved aside, none lost
    steps = [r["step"] for r in read_eval_rows(second / "eval.csv")]
    assert steps == sorted(set(steps)) and steps[-1] == 512
    progress = (second / "progress.csv").read_text().splitlines()
    column = progress[0].split(",").index("charts/total_timesteps")
    cells = [line.split(",")[column] for line in progress[1:]]
    counts = [int(float(c)) for c in cells if c]  # the final row holds the last evaluation only
    assert counts == sorted(set(counts)) and counts[-1] == 512
    assert (second / "progress.superseded.csv").is_file()
    # and the cross-evaluation ran on both policies
    import pandas as pd

    matrix = pd.read_csv(out / "transfer.csv")
    assert len(matrix) == 2 * 2 * 4  # trained-on x played-on x (field, greedy, blocker, baseline)
    diagonal = matrix[matrix["adapted"]]
    assert len(diagonal) == 2 * 4 and (diagonal["delta_vs_adapted"] == 0).all()
    assert matrix["win_lo"].le(matrix["win_rate"]).all() and matrix["win_rate"].le(matrix["win_hi"]).all()
    assert (out / "transfer.png").is_file() and (out / "report.md").is_file()
    skill = pd.read_csv(out / "skill.csv")
    assert list(skill["variant"]) == ["uno", "uno+seven_swap"]
    assert skill["premium_lo"].le(skill["premium"]).all() and skill["premium"].le(skill["premium_hi"]).all()
    assert skill["stronger_share"].between(0, 1).all()


@ONE_WORKER_FOR_THE_KILLED_SWEEP
def test_transfer_rows_give_the_truncated_share_and_game_length_with_intervals_by_deal(
    killed_sweep: dict[str, Any],
) -> None:
    """transfer.csv gave the truncated share and the mean game length without intervals; each
    is checked against the statistics helpers on the per-deal counts the sweep wrote (the deal
    is the unit, as for the win rate next to them; the field pools its styles' games)."""
    import pandas as pd

    from uno_env.stats import GAME_LENGTH_RANGE, grouped_ratio

    out = killed_sweep["out"]
    field = list(load_sweep(out / "spec.toml").field)
    matrix = pd.read_csv(out / "transfer.csv")
    appended = ["truncated_lo", "truncated_hi", "decisions_lo", "decisions_hi"]
    assert list(matrix.columns[-5:]) == ["seed", *appended]  # after the earlier columns
    for row in matrix.itertuples():
        task = f"{row.trained_on}__{row.players}p__on__{row.played_on}"
        per = json.loads((out / "transfer" / f"{task}.json").read_text())["opponents"]
        names = field if row.opponents == "field" else [row.opponents]
        games = row.players * len(names)  # per deal
        truncated = np.sum([per[name]["truncated"] for name in names], axis=0)
        decisions = np.sum([per[name]["decisions"] for name in names], axis=0)
        share, length = grouped_ratio(truncated, games), grouped_ratio(decisions, games)
        near = {"abs": 1e-6, "rel": 1e-6}  # the file keeps six decimals
        assert (row.truncated_rate, row.decisions_mean) == pytest.approx((share.value, length.value), **near)
        assert (row.truncated_lo, row.truncated_hi) == pytest.approx(share.proportion_interval(), **near)
        length_interval = length.bounded_interval(*GAME_LENGTH_RANGE)
        assert (row.decisions_lo, row.decisions_hi) == pytest.approx(length_interval, **near)
        assert row.decisions_lo < row.decisions_mean < row.decisions_hi


@ONE_WORKER_FOR_THE_KILLED_SWEEP
def test_report_of_a_sweep_still_playing_shows_the_pairs_so_far(killed_sweep: dict[str, Any]) -> None:
    from training.transfer import assemble

    out = killed_sweep["out"]
    pending = out / "transfer" / "uno+seven_swap__2p__on__uno.json"
    moved = pending.with_name("held.json.bak")
    pending.rename(moved)
    try:
        frame = assemble(load_sweep(out / "spec.toml"), out)
        report = (out / "report.md").read_text()
    finally:
        moved.rename(pending)
        assemble(load_sweep(out / "spec.toml"), out)
    assert "Partial: 3 of 4 policy x variant pairs played so far" in report
    assert "not played yet" in report
    assert len(frame) == 3 * 4


@ONE_WORKER_FOR_THE_KILLED_SWEEP
def test_report_of_a_sweep_still_training_lists_the_runs_and_no_games(killed_sweep: dict[str, Any]) -> None:
    """`uno-env sweep --report` while the runs train (no cross-evaluation game yet), and while the
    field's games are not in: a report of what there is, not a traceback."""
    from training.cli import main

    out = killed_sweep["out"]
    held = {name: out / name for name in ("transfer", "field")}
    try:
        (out / "transfer").rename(out / "transfer.held")
        assert main(["sweep", "--report", str(out)]) == 0
        training = (out / "report.md").read_text()
        drawn_while_training = (out / "transfer.png").exists()
        (out / "transfer.held").rename(out / "transfer")
        (out / "field").rename(out / "field.held")
        assert main(["sweep", "--report", str(out)]) == 0
        without_field = (out / "report.md").read_text()
    finally:
        for name, folder in held.items():
            if folder.with_name(f"{name}.held").exists():
                folder.with_name(f"{name}.held").rename(folder)
        main(["sweep", "--report", str(out)])
    assert "Partial: none of the 4 policy x variant pairs played yet" in training
    assert "| `uno__2p` | 512 |" in training and "| `uno+seven_swap__2p` | 512 |" in training
    assert "## Transfer matrix" not in training and not drawn_while_training
    # the matrix is complete; the skill table has no row until the field's games are in
    assert "## Transfer matrix, 2 players" in without_field and "Partial" not in without_field
    skill_table = without_field.split("## Which rules reward skill, 2 players", 1)[1]
    assert "`uno+seven_swap`" not in skill_table and "`uno`" not in skill_table
    assert (out / "transfer.png").is_file()


@ONE_WORKER_FOR_THE_KILLED_SWEEP
def test_a_study_naming_the_sweep_seats_each_cells_own_policy(
    killed_sweep: dict[str, Any], tmp_path: Path
) -> None:
    import pandas as pd

    from training.study import LEARNED, parse_spec, plan, run_study

    out = killed_sweep["out"]
    data = {
        "name": "adapted", "seed": 3, "bases": ["uno"], "players": [2], "styles": ["greedy", "blocker"],
        "games": 12, "sweep": str(out), "variations": {"seven_swap": {"seven_swap": True}},
    }  # fmt: skip
    spec = parse_spec(data)
    assert spec.styles == ("greedy", "blocker", LEARNED)
    models = {task.variant: task.learned for task in plan(spec)}
    assert models == {
        "uno": str(out / "runs" / "uno__2p" / "model.zip"),
        "uno+seven_swap": str(out / "runs" / "uno+seven_swap__2p" / "model.zip"),
    }
    run_study(spec, tmp_path / "study", executor="serial", progress=False)
    results = pd.read_csv(tmp_path / "study" / "results.csv")
    learned = results[results["style"] == LEARNED]
    assert sorted(learned["variant"]) == ["uno", "uno+seven_swap"]
    assert (learned["seat_games"] > 0).all()
    report = (tmp_path / "study" / "report.md").read_text()
    assert "Which rules reward skill (adapted players)" in report
    # a cell the sweep did not train is refused when the spec is read
    data["variations"] = {"jump_in": {"jump_in": True}}
    with pytest.raises(SpecError, match="no finished run for cell uno\\+jump_in at 2 players"):
        parse_spec(data)


def test_a_second_sweep_in_the_same_folder_is_refused(tmp_path: Path) -> None:
    spec = load_sweep(write_spec(tmp_path))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "spec.toml").write_text("name = 'other'\n")
    with pytest.raises(SpecError, match="already holds a sweep"):
        run_sweep(spec, str(tmp_path / "out"), progress=False)  # a str folder too
    with pytest.raises(SpecError, match="no sweep to resume"):
        run_sweep(spec, tmp_path / "empty", resume=True, progress=False)


def test_a_resume_refuses_a_field_file_replaced_since_the_start(tmp_path: Path) -> None:
    """The field's exported policy is read again by a resumed sweep: one replaced since the
    sweep started would put two players under one name, so the resume is refused by name."""
    import shutil

    import uno_env
    from training.sweep import write_spec as write_normalised

    shipped = Path(uno_env.__file__).parent / "pretrained"
    for suffix in (".npz", ".json"):
        shutil.copy(shipped / f"distilled_uno_2p{suffix}", tmp_path / f"mine{suffix}")
    mine = str(tmp_path / "mine.npz")
    spec = load_sweep(
        write_spec(tmp_path, TINY.replace('field = ["greedy", "blocker"]', f'field = ["greedy", "{mine}"]'))
    )
    assert spec.read_files() == sorted([mine, str(tmp_path / "mine.json")])
    out = tmp_path / "out"
    out.mkdir()
    write_normalised(spec, out)
    check_agent_files(out, spec.read_files(), "sweep", error=SpecError)  # what the first start records
    for suffix in (".npz", ".json"):
        shutil.copy(shipped / f"expert_ppo_uno_2p{suffix}", tmp_path / f"mine{suffix}")
    with pytest.raises(
        SpecError, match=r"agent file\(s\) .*mine\.json, .*mine\.npz changed since the sweep started"
    ):
        run_sweep(spec, out, resume=True, progress=False)


# ---------------------------------------------------------------- executors
def test_ray_and_process_pool_write_the_same_run_directories(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    import torch

    spec = load_sweep(write_spec(tmp_path))
    outs = {}
    for executor in ("process", "ray"):
        outs[executor] = run_sweep(
            spec, tmp_path / executor, executor=executor, workers=2, progress=False, transfer=False
        )
    for run in spec.runs():
        a, b = outs["process"] / "runs" / run.id, outs["ray"] / "runs" / run.id
        for name in ("config.json", "rules.txt", "env.json"):
            assert (a / name).read_bytes() == (b / name).read_bytes(), name

        def rows(folder: Path) -> list[dict[str, object]]:
            return [
                {k: v for k, v in r.items() if k != "seconds"} for r in read_eval_rows(folder / "eval.csv")
            ]

        assert rows(a) == rows(b)
        from training.common import load_model

        pa, pb = (
            load_model(a / "model.zip").policy.state_dict(),
            load_model(b / "model.zip").policy.state_dict(),
        )
        assert pa.keys() == pb.keys() and all(torch.equal(pa[k], pb[k]) for k in pa)
        ra = json.loads((outs["process"] / "results" / f"{run.id}.json").read_text())
        rb = json.loads((outs["ray"] / "results" / f"{run.id}.json").read_text())
        ra.pop("seconds"), rb.pop("seconds")
        assert ra == rb


# ---------------------------------------------------------------- moved folders, other fields
@ONE_WORKER_FOR_THE_KILLED_SWEEP
def test_a_moved_sweep_folder_keeps_its_results(killed_sweep: dict[str, Any], tmp_path: Path) -> None:
    """Result files name no absolute path: a sweep folder copied elsewhere is reported and resumed
    there with nothing played again."""
    import shutil

    from training.transfer import _scan, assemble, plan

    out = killed_sweep["out"]
    for path in (out / "transfer").glob("*.json"):
        assert str(out) not in path.read_text()
    moved = tmp_path / "elsewhere" / "sweep"
    shutil.copytree(out, moved, ignore=shutil.ignore_patterns("*.lock"))
    spec = load_sweep(moved / "spec.toml")
    policy_tasks, field_tasks = plan(spec, moved)
    assert all(task.model.startswith("runs/") for task in policy_tasks)
    assert _scan(policy_tasks, moved / "transfer")[1] == [] and _scan(field_tasks, moved / "field")[1] == []
    assert len(assemble(spec, moved)) == 2 * 2 * 4


@ONE_WORKER_FOR_THE_KILLED_SWEEP
def test_policy_plays_against_the_oracle_and_an_exported_policy(killed_sweep: dict[str, Any]) -> None:
    """A trained policy (a checkpoint, on the vector env) against field entries the env's compiled
    step does not run: an exported policy, and a search guided by a network (on the seven-swap
    variant: a transfer of the official-Uno network, as a sweep's field plays every variant)."""
    from training.transfer import PolicyTask, play_policy_task

    out = killed_sweep["out"]
    spec = load_sweep(out / "spec.toml")
    opponents = ("oracle:sims=8", "distilled_uno_2p", "search:sims=8,net=expert_uno_2p")
    task = PolicyTask(
        "t", "uno__2p", "uno", 2, "runs/uno__2p/model.zip", str(spec.variants()[1].rules), opponents, 3, 7,
        str(out),
    )  # fmt: skip
    result = play_policy_task(task)["opponents"]
    for opponent in opponents:
        wins, truncated = np.asarray(result[opponent]["wins"]), np.asarray(result[opponent]["truncated"])
        assert wins.shape == (3,) and ((wins + truncated) <= 2).all()
        assert (np.asarray(result[opponent]["decisions"]) > 0).all()


def test_skill_table_reports_the_oracle_gap_and_leaves_the_oracle_out_of_the_spread(tmp_path: Path) -> None:
    """Per-deal results written by hand: the oracle gap is the oracle's rate against the other
    field styles minus the adapted policy's against the field, paired by deal."""
    import tomllib

    from training.runner import write_json_atomic
    from training.transfer import plan, skill_rows, task_key

    data = tomllib.loads(TINY)
    data.pop("variations")
    data["transfer"] = {"field": ["greedy", "blocker", "oracle"], "allow_cheating": True, "deals": 4}
    spec = parse_sweep(data)
    (policy_task,), (field_task,) = plan(spec, tmp_path)
    per_deal = {  # wins per deal (of 2 seats) of the row style against the column style
        "policy": {"greedy": [1, 1, 2, 0], "blocker": [1, 2, 1, 1], "oracle": [0, 0, 1, 0]},
        "greedy": {"blocker": [1, 1, 1, 1], "oracle": [0, 1, 0, 0]},
        "blocker": {"greedy": [1, 1, 1, 1], "oracle": [0, 0, 0, 1]},
        "oracle": {"greedy": [2, 1, 2, 2], "blocker": [2, 2, 2, 1]},
    }
    zeros = [0, 0, 0, 0]
    opponents = {
        style: {"wins": per_deal["policy"].get(style, [1, 1, 1, 1]), "truncated": zeros, "decisions": [9] * 4}
        for style in policy_task.opponents
    }
    write_json_atomic(
        tmp_path / "transfer" / f"{policy_task.id}.json",
        {"id": policy_task.id, "opponents": opponents, "key": task_key(policy_task)},
    )
    pairs = {f"{a}|{b}": wins for a, row in per_deal.items() if a != "policy" for b, wins in row.items()}
    write_json_atomic(
        tmp_path / "field" / f"{field_task.id}.json",
        {"id": field_task.id, "pairs": pairs, "key": task_key(field_task)},
    )
    (row,) = skill_rows(spec, tmp_path)
    policy_rate = (4 + 5 + 1) / (2 * 3 * 4)
    oracle_rate = (7 + 7) / (2 * 2 * 4)
    assert row["oracle"] == "oracle"
    assert row["oracle_gap"] == pytest.approx(oracle_rate - policy_rate)
    assert row["oracle_gap_lo"] < row["oracle_gap"] < row["oracle_gap_hi"]
    assert "oracle" not in (row["strongest"], row["weakest"])


@ONE_WORKER_FOR_THE_KILLED_SWEEP
def test_a_finished_run_stays_finished_when_a_later_version_adds_a_training_option(
    killed_sweep: dict[str, Any], tmp_path: Path
) -> None:
    """A results file whose digest came from an older TrainConfig (fewer options) is still the
    run's, when its config.json matches the spec with the new options at their defaults; a
    config that really differs is refused."""
    import shutil

    from training.sweep import scan_results

    out = tmp_path / "sweep"
    shutil.copytree(killed_sweep["out"], out, ignore=shutil.ignore_patterns("*.lock"))
    spec = load_sweep(out / "spec.toml")
    summary = out / "results" / "uno__2p.json"
    data = json.loads(summary.read_text())
    summary.write_text(json.dumps({**data, "key": "0" * 64}))  # the digest of an older config
    config = out / "runs" / "uno__2p" / "config.json"
    recorded = json.loads(config.read_text())
    config.write_text(json.dumps({k: v for k, v in recorded.items() if k != "init_policy"}))
    done, todo = scan_results(spec, out)
    assert sorted(done) == ["uno+seven_swap__2p", "uno__2p"] and todo == []
    config.write_text(json.dumps({**recorded, "learning_rate": 0.5}))
    with pytest.raises(SpecError, match="written for another config of run uno__2p"):
        scan_results(spec, out)


# ---------------------------------------------------------------- the status of a fine-tuning stage
def finetune_sweep(tmp_path: Path, finetune_steps: int) -> tuple[Any, Path]:
    """A one-run expert sweep with a fine-tuning stage, its spec stored in ``tmp_path/expert``."""
    from training.sweep import write_spec as store_spec

    expert = parse_sweep(
        {
            "name": "ft", "bases": ["uno"], "players": [2], "mode": "expert",
            "expert": {"rounds": 2, "games": 4, "chunk_games": 2, "finetune_steps": finetune_steps},
        }
    )  # fmt: skip
    store_spec(expert, tmp_path / "expert")
    return expert, tmp_path / "expert"


def test_the_status_counts_an_expert_runs_finetuning_steps_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--status``: an expert sweep with ``finetune_steps`` shows each run's fine-tuning steps
    beside its labelled games (read from the stage's checkpoint record); a PPO sweep's lines and
    rows keep no fine-tuning count."""
    from training.cli import main
    from training.sweep import write_spec as store_spec

    expert, out = finetune_sweep(tmp_path, 1000)
    stage = out / "runs" / "uno__2p" / "finetune" / "checkpoints"
    stage.mkdir(parents=True)
    (stage / "latest.json").write_text(json.dumps({"step": 384, "seconds": 2.0}), encoding="utf-8")
    assert main(["sweep", "--status", str(out)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.split() == ["uno__2p", "training", "0", "/", "8", "labelled", "games,", "384", "/", "1,000",
                            "fine-tuning", "steps"]  # fmt: skip
    assert status_rows(expert, out)[0]["finetune"] == 384
    ppo = load_sweep(write_spec(tmp_path))
    store_spec(ppo, tmp_path / "ppo")
    assert main(["sweep", "--status", str(tmp_path / "ppo")]) == 0
    assert "fine-tuning" not in capsys.readouterr().out
    assert {(r["finetune"], r["finetune_budget"]) for r in status_rows(ppo, tmp_path / "ppo")} == {(0, 0)}


def test_the_status_line_rates_each_stage_over_the_last_ten_minutes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An expert sweep's labelling and fine-tuning advance in turns: the line's rates and times
    left are each stage's own over the recent window, and a stage that stood still in it gets
    no estimate (a rate averaged since the start put the labelling hours off)."""
    from training import sweep as sweep_module
    from training.sweep import StatusLine

    expert, out = finetune_sweep(tmp_path, 100_000)
    clock = [1000.0]
    monkeypatch.setattr(sweep_module.time, "perf_counter", lambda: clock[0])
    status = StatusLine(expert, out, every=60, enabled=False)
    stage = out / "runs" / "uno__2p" / "finetune" / "checkpoints"
    stage.mkdir(parents=True)
    (stage / "latest.json").write_text(json.dumps({"step": 6000, "seconds": 2.0}), encoding="utf-8")
    clock[0] = 1100.0
    line = status.line()
    assert "0.0 labelled games/s," in line and "labelling left" not in line
    assert "fine-tuning 6,000/100,000 steps (60/s, ~26 min left at this rate)" in line
    clock[0] = 2000.0  # fifteen minutes without a step: the window holds no progress
    line = status.line()
    assert "fine-tuning 6,000/100,000 steps |" in line and "left" not in line


def test_a_sweep_of_two_deck_families_plays_each_policy_on_its_own_family(tmp_path: Path) -> None:
    """Official Uno and Macao in one sweep: a policy meets only the variants of its deck (another
    action table cannot be played), and the report marks the other deck's cells as such."""
    import pandas as pd

    from training.transfer import plan, report_text

    spec = parse_sweep({"name": "mixed", "bases": ["uno", "macao"], "players": [2]})
    tasks, _ = plan(spec, tmp_path)
    pairs = [(t.trained.rsplit("__", 1)[0], t.played) for t in tasks]
    assert pairs == [("uno", "uno"), ("macao", "macao")]
    cell = {"win_rate": 0.5, "win_lo": 0.4, "win_hi": 0.6, "delta_vs_adapted": 0.0, "delta_lo": 0.0}
    rows = [
        {"trained_on": a, "played_on": b, "players": 2, "opponents": "field", "adapted": True, **cell}
        for a, b in pairs
    ]
    report = report_text(spec, tmp_path, pd.DataFrame(rows), pd.DataFrame())
    assert "| `uno` | **50.0% [40.0, 60.0]** | other deck |" in report
    assert "| `macao` | other deck | **50.0% [40.0, 60.0]** |" in report


@pytest.mark.parametrize("every", ["nan", "inf", "0", "-1"])
def test_a_status_interval_that_is_not_a_positive_finite_number_is_refused_before_the_sweep(
    every: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--status-every nan`` (or ``inf``) passed the ``<= 0`` test: the sweep started and its
    status thread died on ``Event.wait(nan)`` with a traceback, leaving no status line."""
    from training import sweep

    started: list[Path] = []
    monkeypatch.setattr(sweep, "run_sweep", lambda spec, out, **options: started.append(out))
    assert sweep.main(["--status-every", every, "--out", str(tmp_path / "s"), "--quiet"]) == 2
    assert "--status-every must be a finite number of seconds > 0" in capsys.readouterr().err
    assert not started
