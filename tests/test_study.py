"""The house-rules study: spec validation, a tiny study end to end, determinism, resume after
a kill, the Ray executor giving the process executor's results, and learned policies (tiny
MaskablePPO checkpoints) seated next to scripted styles.

Budget: about 40 s of CPU on 2 workers (the Ray test starts a local Ray instance), plus about
30 s for the learned-policy tests (loading torch in the test and pool processes).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import uno_env
from training import study
from uno_env.versions import ENV_VERSION

pd = pytest.importorskip("pandas")

TINY: dict[str, Any] = {
    "name": "tiny",
    "seed": 5,
    "bases": ["uno"],
    "players": [2, 3],
    "styles": ["greedy", "hoarder", "aggressor"],
    "games": 3000,
    "batch_games": 250,
    "variations": {
        "stacking": {"stacking": ["D2/D2", "WD4/WD4", "WD4/D2"]},
        "seven_swap": {"seven_swap": True},
    },
}


def write_spec(path: Path, data: dict[str, Any]) -> Path:
    import tomli_w

    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny study, uninterrupted, on a pool of 2 processes."""
    out = tmp_path_factory.mktemp("study") / "run"
    study.run_study(study.parse_spec(TINY), out, executor="process", workers=2, progress=False)
    return out


# ---------------------------------------------------------------- spec validation
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": 1}, "unknown key(s) colour; allowed: name, seed"),
        ({"variations": {"x": {"stackin": True}}}, "unknown switch(es) stackin"),
        ({"variations": {"x": {"zero_rule": "spin"}}}, "zero_rule"),
        ({"variations": {"x": {}}}, "one or more switches"),
        ({"variations": {"bad label": {"jump_in": True}}}, "labels are letters"),
        ({"players": [2, 11]}, "impossible player count 11"),
        ({"players": [1]}, "impossible player count 1"),
        (
            {"bases": ["mau_mau"], "players": [2], "variations": {}},
            "impossible player count 2 for variant mau_mau",
        ),
        ({"bases": ["mau_mau"], "players": [4]}, "variation 'stacking' of mau_mau: rule stacking"),
        ({"bases": ["uno_deluxe"]}, "unknown preset 'uno_deluxe'"),
        ({"styles": ["greedy", "sneaky"]}, "unknown play style 'sneaky'"),
        ({"styles": ["greedy", "greedy"]}, "lists a style twice"),
        ({"styles": ["runs/model.zip"]}, "checkpoint runs/model.zip does not exist"),
        ({"allow_rules_mismatch": "yes"}, "allow_rules_mismatch must be true or false"),
        ({"styles": ["bluffer:bluf=0.2"]}, "has no parameter 'bluf'"),
        ({"games": 0}, "games must be an integer >= 1"),
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"name": "a b"}, "name must be letters"),
        # a final newline passed the label pattern ("$" matches before it)
        ({"name": "study\n"}, "name must be letters"),
        ({"variations": {"jump\n": {"jump_in": True}}}, "labels are letters"),
        ({"replicate": "yes"}, "replicate must be true or false"),
        ({"reference": "sneaky"}, "reference 'sneaky': unknown play style 'sneaky'"),
        ({"reference": 3}, "reference must be a style name"),
        ({"reference": "oracle"}, "reference 'oracle' cheats (it sees the other hands); set allow_cheating"),
        ({"styles": ["greedy", "random", "random_legal"]}, "styles 'random' and 'random_legal' play alike"),
        (
            {"variations": {"swap": {"seven_swap": True}, "seven": {"seven_swap": True}}},
            "variation 'seven' gives uno the same rules as variation 'swap' (preset=uno seven_swap=true)",
        ),
        (
            {"variations": {"a": {"stacking": ["D2/D2"]}, "b": {"stacking": ["D2/D2"], "jump_in": False}}},
            "variation 'b' gives uno the same rules as variation 'a'",
        ),
    ],
)
def test_bad_specs_are_refused_with_a_clear_message(change: dict[str, Any], message: str) -> None:
    with pytest.raises(study.SpecError) as info:
        study.parse_spec({**TINY, **change})
    assert message in str(info.value)


def test_the_reference_may_be_the_search_agent_the_oracle_or_an_exported_policy() -> None:
    spec = study.parse_spec({**TINY, "reference": "distilled_uno_2p", "allow_rules_mismatch": True})
    assert spec.reference == "distilled_uno_2p" and "distilled_uno_2p" in spec.exported()
    assert study.parse_spec({**TINY, "reference": "search:sims=20"}).reference == "search:sims=20"
    assert study.parse_spec({**TINY, "reference": "oracle", "allow_cheating": True}).reference == "oracle"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\xff\xfe games = 5\n", "is not UTF-8 text"),
        (b"games = " + b"[" * 100_000, "nests arrays or tables too deeply"),
    ],
)
def test_broken_spec_files_are_one_spec_error(tmp_path: Path, content: bytes, expected: str) -> None:
    """Bad bytes gave a UnicodeDecodeError naming no file; deep nesting a RecursionError."""
    path = tmp_path / "spec.toml"
    path.write_bytes(content)
    with pytest.raises(study.SpecError, match=expected) as info:
        study.load_spec(path)
    assert str(path) in str(info.value)


def test_the_default_spec_is_valid_and_covers_official_uno_at_2_and_4_players() -> None:
    spec = study.load_spec()
    assert spec.bases == ("uno",) and spec.players == (2, 4)
    assert spec.styles == study.DEFAULT_FIELD
    variants = spec.variants()
    assert len(variants) == 1 + len(spec.variations)  # every variation changes official Uno
    assert all(v.rules != uno_env.load_rules("uno") for v in variants[1:])


def test_seatings_put_every_style_in_every_seat_and_every_pair_together() -> None:
    styles = ["a", "b", "c", "d", "e"]
    layout = study.seatings(styles, 3)
    assert len(layout) == 10 * 3
    for seat in range(3):
        assert {s: sum(t[seat] == s for t in layout) for s in styles} == dict.fromkeys(styles, 6)
    pairs = {(x, y): sum(x in t and y in t for t in layout) for x in styles for y in styles if x < y}
    assert set(pairs.values()) == {9}
    assert study.seatings(["a", "b"], 4) == [("a", "b", "a", "b"), ("b", "a", "b", "a")]


# ---------------------------------------------------------------- a tiny study end to end
def test_a_tiny_study_writes_results_plots_and_a_report(tiny_run: Path) -> None:
    for name in ("spec.toml", "results.csv", "results.parquet", "report.md", "winrate_change.png",
                 "game_length.png", "log.jsonl"):  # fmt: skip
        assert (tiny_run / name).stat().st_size > 0, name
    frame = pd.read_csv(tiny_run / "results.csv", keep_default_na=False)
    assert list(frame.columns) == list(study.COLUMNS)
    assert len(frame) == 3 * 2 * 3  # variants x player counts x styles (one deal set)
    assert (frame["replica"] == 0).all()
    assert not frame.duplicated(["variant", "players", "style"]).any()
    assert set(frame["variant"]) == {"uno", "uno+stacking", "uno+seven_swap"}
    assert (frame["env_version"] == ENV_VERSION).all()
    for variant in study.parse_spec(TINY).variants():
        assert (frame.loc[frame["variant"] == variant.id, "rules"] == str(variant.rules)).all()
    for (_, n), cell in frame.groupby(["variant", "players"]):
        seatings = len(study.seatings(TINY["styles"], n))
        games = cell["games"].iloc[0]
        assert games == seatings * cell["deals"].iloc[0] >= TINY["games"]
        # every game has one winner (or none when truncated), counted for the style of its seat
        truncated = round(cell["truncated_rate"].iloc[0] * games)
        assert cell["wins"].sum() + truncated == games
        assert cell["seat_games"].sum() == games * n
        seat_rates = [float(x) for x in cell["seat_win_rates"].iloc[0].split(";")]
        assert sum(seat_rates) == pytest.approx(1 - truncated / games, abs=1e-5)
        assert cell["turns_mean"].iloc[0] < cell["length_mean"].iloc[0]
        # the fixed-reference seatings: each style but greedy alone against greedy, every seat
        focal = cell[cell["style"] != "greedy"]
        assert (focal["ref_seat_games"] == n * cell["deals"].iloc[0]).all()
        assert (cell.loc[cell["style"] == "greedy", "ref_seat_games"] == 0).all()
    for lo, mid, hi in (("win_lo", "win_rate", "win_hi"), ("ref_win_lo", "ref_win_rate", "ref_win_hi"),
                        ("turns_lo", "turns_mean", "turns_hi"), ("first_mover_lo", "first_mover_win_rate",
                        "first_mover_hi"), ("rank_lo", "mean_rank", "rank_hi")):  # fmt: skip
        rows = frame[frame[mid] != ""].astype({mid: float, lo: float, hi: float})
        assert ((rows[lo] <= rows[mid]) & (rows[mid] <= rows[hi])).all(), mid
    effects = pd.read_csv(tiny_run / "effects.csv", keep_default_na=False)
    assert list(effects.columns) == list(study.EFFECT_COLUMNS)
    # per variation and player count: 3 styles vs the field, 2 vs greedy, turns, decisions, first mover
    assert len(effects) == 2 * 2 * (3 + 2 + 3)
    assert (effects["detected"] == (effects["p_adjusted"] <= study.FDR)).all()
    assert ((effects["lo"] > 0) | (effects["hi"] < 0) == effects["detected"]).all()
    report = (tiny_run / "report.md").read_text()
    for switch in ("| Stacking draw penalties: D2/D2, WD4/WD4, WD4/D2 (`stacking=D2/D2,WD4/WD4,WD4/D2`) |",
                   "| The 7 swaps hands: on (`seven_swap=true`) |"):  # fmt: skip
        assert switch in report
    for text in ("Benjamini-Hochberg", "`greedy`: greedy points dumper", "within ±", "first mover wins",
                 "turns per game", "sum to zero", "2,000 against the field"):  # fmt: skip
        assert text in report, text


def test_two_identical_studies_give_identical_results_files(tiny_run: Path, tmp_path: Path) -> None:
    # the second run plays in another order (one process), and must still match byte for byte
    # the folder as a str, as Python callers write it (docs/own-agents.md)
    study.run_study(study.parse_spec(TINY), str(tmp_path), executor="serial", progress=False)
    assert (tmp_path / "results.csv").read_bytes() == (tiny_run / "results.csv").read_bytes()
    assert (tmp_path / "results.parquet").read_bytes() == (tiny_run / "results.parquet").read_bytes()
    assert (tmp_path / "report.md").read_bytes() == (tiny_run / "report.md").read_bytes()


def start_study(spec_file: Path, out: Path, workers: int) -> subprocess.Popen[bytes]:
    """``python -m training.study SPEC --out OUT`` in its own process group, output discarded."""
    args = [str(spec_file), "--out", str(out), "--workers", str(workers), "--quiet"]
    return subprocess.Popen(
        [sys.executable, "-m", "training.study", *args],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_a_killed_study_resumes_without_losing_finished_batches(tiny_run: Path, tmp_path: Path) -> None:
    spec_file = write_spec(tmp_path / "tiny.toml", TINY)
    out = tmp_path / "run"
    total = len(study.plan(study.parse_spec(TINY)))
    proc = start_study(spec_file, out, workers=1)
    try:
        deadline = time.monotonic() + 60
        while len(list((out / "batches").glob("*.json"))) < 3 and time.monotonic() < deadline:
            assert proc.poll() is None, "the study ended before it could be killed"
            time.sleep(0.002)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = {p.name: p.stat().st_mtime_ns for p in (out / "batches").glob("*.json")}
    assert 3 <= len(before) < total
    assert not (out / "results.csv").exists()
    assert study.main(["--resume", str(out), "--workers", "1", "--quiet"]) == 0
    after = {p.name: p.stat().st_mtime_ns for p in (out / "batches").glob("*.json")}
    assert len(after) == total
    assert all(after[name] == mtime for name, mtime in before.items())  # not computed again
    assert (out / "results.csv").read_bytes() == (tiny_run / "results.csv").read_bytes()


def test_resume_refuses_another_output_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--resume DIR --out OTHER`` wrote to DIR and ignored OTHER without a word: refused."""
    assert study.main(["--resume", str(tmp_path), "--out", str(tmp_path / "other"), "--quiet"]) == 2
    assert "do not give a SPEC, --out" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()


def test_resume_refuses_a_folder_without_a_study(tmp_path: Path) -> None:
    with pytest.raises(study.SpecError, match="no study to resume"):
        study.run_study(study.parse_spec(TINY), tmp_path, resume=True, progress=False)


def test_the_ray_executor_gives_the_process_executors_results(tiny_run: Path, tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        study.run_study(study.parse_spec(TINY), tmp_path, executor="ray", workers=2, progress=False)
    finally:
        ray.shutdown()
    assert (tmp_path / "results.csv").read_bytes() == (tiny_run / "results.csv").read_bytes()


def test_the_cli_runs_a_study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from training.cli import main

    spec_file = write_spec(tmp_path / "s.toml", {**TINY, "variations": {}, "players": [2]})
    args = ["study", str(spec_file), "--out", str(tmp_path / "o"), "--games", "60", "--quiet", "--replicate"]
    assert main(args) == 0
    assert "report:" in capsys.readouterr().out
    frame = pd.read_csv(tmp_path / "o" / "results.csv", keep_default_na=False)
    assert len(frame) == 6 and (frame["games"] == 60).all()
    assert sorted(frame["replica"]) == [0, 0, 0, 1, 1, 1]
    assert study.load_spec(tmp_path / "o" / "spec.toml").replicate
    assert main(["study", str(tmp_path / "missing.toml")]) == 2


# ---------------------------------------------------------------- learned policies
LEARNED: dict[str, Any] = {
    "name": "learned",
    "seed": 11,
    "bases": ["uno"],
    "players": [2],
    "games": 60,
    "batch_games": 20,
    "variations": {"seven_swap": {"seven_swap": True}},
    "allow_rules_mismatch": True,
}


def make_checkpoint(path: Path, rules: str) -> Path:
    """An untrained MaskablePPO checkpoint with its sidecar (a fixed, seeded policy)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents import save_policy_metadata
    from uno_env.envs.single import SingleAgentEnv

    env = SingleAgentEnv(rules, 2, "greedy")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=16, seed=0, device="cpu", policy_kwargs={"net_arch": [32]}
    )
    model.save(path)
    save_policy_metadata(path, rules)
    return path


# the tests of the checkpoint and its study run on one pytest-xdist worker (make unit: --dist
# loadgroup), so the module-scoped fixtures make them once, not once per worker
ONE_WORKER_FOR_THE_LEARNED_STUDY = pytest.mark.xdist_group("test_study.learned_run")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A policy recorded for official Uno (any player count)."""
    return str(make_checkpoint(tmp_path_factory.mktemp("policy") / "uno_policy.zip", "uno"))


@pytest.fixture(scope="module")
def learned_run(checkpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study of the policy and two styles on a pool of 2 processes (a transfer to Seven-O)."""
    out = tmp_path_factory.mktemp("learned") / "run"
    spec = study.parse_spec({**LEARNED, "styles": [checkpoint, "greedy", "hoarder"]})
    study.run_study(spec, out, executor="process", workers=2, progress=False)
    return out


@ONE_WORKER_FOR_THE_LEARNED_STUDY
def test_a_learned_policy_gets_rows_like_the_styles(learned_run: Path, checkpoint: str) -> None:
    frame = pd.read_csv(learned_run / "results.csv", keep_default_na=False)
    assert list(frame.columns) == list(study.COLUMNS)
    assert set(frame["variant"]) == {"uno", "uno+seven_swap"}
    assert sorted(frame["style"].unique()) == sorted([checkpoint, "greedy", "hoarder"])
    for _, cell in frame.groupby("variant"):
        games = cell["games"].iloc[0]
        assert games == 6 * 10  # 3 pairs x 2 rotations, 10 deals each
        # every style sits in 4 of the 6 seatings
        assert (cell["seat_games"] == 4 * 10).all()
        truncated = round(cell["truncated_rate"].iloc[0] * games)
        assert cell["wins"].sum() + truncated == games
    mine = frame[frame["style"] == checkpoint]
    assert len(mine) == 2 and mine["win_lo"].le(mine["win_rate"]).all()
    assert (
        mine["rules"]
        == [str(v.rules) for v in study.parse_spec({**LEARNED, "styles": ["greedy"]}).variants()]
    ).all()


@ONE_WORKER_FOR_THE_LEARNED_STUDY
@pytest.mark.parametrize("seed", [LEARNED["seed"], 2**62])
def test_learned_seatings_replay_the_tournaments_game_loop(checkpoint: str, seed: int) -> None:
    # the batched loop plays exactly the games the tournament's one-game-at-a-time loop plays;
    # from a seed of 2**59 on, the scripted seats' seeds (seed + d) * 16 + seat wrap at 2**63 as
    # the tournament's do (they were passed on unwrapped and refused mid-run)
    from training import tournament

    spec = study.parse_spec({**LEARNED, "seed": seed, "styles": [checkpoint, "greedy"], "variations": {}})
    task = study.plan(spec)[0]
    for table in task.seatings:
        mine = study.play_learned(task, table)
        theirs = tournament.run_task(
            tournament.TournamentTask("x", task.rules, 0, 0, table, task.seed, task.first, task.count, False)
        )
        for key in ("winner", "length", "ranking", "scores"):
            assert np.array_equal(mine[key], theirs[key]), key
        assert (mine["winner"] >= 0).all()


@ONE_WORKER_FOR_THE_LEARNED_STUDY
def test_a_study_with_a_learned_policy_is_deterministic(
    learned_run: Path, checkpoint: str, tmp_path: Path
) -> None:
    spec = study.parse_spec({**LEARNED, "styles": [checkpoint, "greedy", "hoarder"]})
    study.run_study(spec, tmp_path, executor="serial", progress=False)
    assert (tmp_path / "results.csv").read_bytes() == (learned_run / "results.csv").read_bytes()
    assert (tmp_path / "report.md").read_bytes() == (learned_run / "report.md").read_bytes()


@ONE_WORKER_FOR_THE_LEARNED_STUDY
def test_mismatched_checkpoints_are_refused(checkpoint: str, tmp_path: Path) -> None:
    styles = {"styles": [checkpoint, "greedy"]}
    # other rules than the policy was trained on need the transfer option
    with pytest.raises(study.SpecError) as info:
        study.parse_spec({**LEARNED, **styles, "allow_rules_mismatch": False})
    text = str(info.value)
    assert "cell uno+seven_swap at 2 players" in text and "seven_swap" in text
    assert "set allow_rules_mismatch = true" in text
    # a policy of another deck family never plays, transfer or not
    macao = str(make_checkpoint(tmp_path / "macao_policy.zip", "macao"))
    with pytest.raises(study.SpecError, match=r"trained on the french deck family .*uses the uno family"):
        study.parse_spec({**LEARNED, "styles": [macao, "greedy"]})
    # a checkpoint without its sidecar
    bare = tmp_path / "bare.zip"
    bare.write_bytes((tmp_path / "macao_policy.zip").read_bytes())
    with pytest.raises(study.SpecError, match="has no metadata sidecar"):
        study.parse_spec({**LEARNED, "styles": [str(bare), "greedy"]})


@ONE_WORKER_FOR_THE_LEARNED_STUDY
def test_resume_refuses_a_checkpoint_replaced_since_the_start(checkpoint: str, tmp_path: Path) -> None:
    import shutil

    from agents.policy_agent import metadata_path

    path = tmp_path / "policy.zip"
    shutil.copy(checkpoint, path)
    shutil.copy(metadata_path(checkpoint), metadata_path(path))
    spec = study.parse_spec({**LEARNED, "styles": [str(path), "greedy"]})
    study.check_checkpoints(spec, tmp_path)
    recorded = (tmp_path / "checkpoints.json").read_text()
    study.check_checkpoints(spec, tmp_path)  # unchanged: fine
    path.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(
        study.SpecError, match=re.escape(f"checkpoint(s) or agent file(s) {path} changed since the study")
    ):
        study.check_checkpoints(spec, tmp_path)
    assert (tmp_path / "checkpoints.json").read_text() == recorded


def test_resume_refuses_an_agent_file_replaced_since_the_start(tmp_path: Path) -> None:
    """A FILE.py agent and the network of a guided search are files too: one edited since the
    start would play the missing batches as another agent under the same name (the results
    mixed both), so the resume is refused naming it; unchanged, it resumes."""
    agent = tmp_path / "first.py"
    agent.write_text(
        "class First:\n    def act(self, observation, action_mask=None, view=None):\n"
        "        return min(view.legal_actions())\n"
    )
    shipped = Path(uno_env.__file__).parent / "pretrained"
    for suffix in (".npz", ".json"):
        (tmp_path / f"net{suffix}").write_bytes((shipped / f"distilled_uno_2p{suffix}").read_bytes())
    styles = ["greedy", f"{agent}:First", f"search:sims=4,net={tmp_path / 'net.npz'}"]
    small = {"games": 2, "batch_games": 2, "replicate": False, "reference": "", "variations": {}}
    spec = study.parse_spec({"name": "files", "bases": ["uno"], "players": [2], "styles": styles, **small})
    out = tmp_path / "run"
    study.run_study(spec, out, executor="serial", progress=False, report=False)
    recorded = json.loads((out / "checkpoints.json").read_text())
    assert set(recorded) == {str(agent), str(tmp_path / "net.npz"), str(tmp_path / "net.json")}
    victim = sorted((out / "batches").glob("*.json"))[-1]
    victim.unlink()
    study.run_study(spec, out, executor="serial", progress=False, report=False, resume=True)  # unchanged
    assert victim.exists()
    victim.unlink()
    agent.write_text(agent.read_text().replace("min(", "max("))
    with pytest.raises(study.SpecError, match=re.escape(f"agent file(s) {agent} changed since the study")):
        study.run_study(spec, out, executor="serial", progress=False, report=False, resume=True)
    assert not victim.exists()
    # a study recorded before agent files were: they are recorded on resume, not refused
    (out / "checkpoints.json").write_text("{}")
    study.run_study(spec, out, executor="serial", progress=False, report=False, resume=True)
    assert json.loads((out / "checkpoints.json").read_text())[str(agent)] != recorded[str(agent)]


# ---------------------------------------------------------------- hostile conditions
def children(pid: int) -> set[int]:
    """The child processes of ``pid`` (Linux /proc)."""
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        out |= {int(c) for c in (task / "children").read_text().split()}
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_die_with_a_killed_study(tmp_path: Path) -> None:
    spec_file = write_spec(tmp_path / "long.toml", {**TINY, "games": 60_000})
    out = tmp_path / "run"
    proc = start_study(spec_file, out, workers=2)
    try:
        deadline = time.monotonic() + 120
        while not list((out / "batches").glob("*.json")) and time.monotonic() < deadline:
            assert proc.poll() is None, "the study ended before it could be killed"
            time.sleep(0.01)
        workers = children(proc.pid)
        assert len(workers) >= 2
        os.kill(proc.pid, signal.SIGKILL)  # the study only, not its process group
        proc.wait()
        deadline = time.monotonic() + 10
        while any(alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(w) for w in workers), "pool workers outlived the study"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
    # the kill left the folder's lock file behind, but no lock: a resume takes it over
    assert (out / ".lock").read_text().startswith(f"pid {proc.pid} ")


def test_a_folder_in_use_is_locked_and_a_stale_lock_is_taken_over(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from training.runner import RunFolderError, lock_folder

    out = tmp_path / "run"
    shutil.copytree(tiny_run, out)
    with lock_folder(out, "study"):  # another run holds the folder
        with pytest.raises(RunFolderError, match=r"in use by another study run \(pid \d+ on "):
            study.run_study(study.load_spec(out / "spec.toml"), out, resume=True, progress=False)
        assert study.main(["--resume", str(out), "--quiet"]) == 2
        assert "is in use by another study run" in capsys.readouterr().err
    (out / ".lock").write_text("pid 999999999 on elsewhere, started then\n")  # a killed run's
    study.run_study(study.load_spec(out / "spec.toml"), out, resume=True, progress=False, report=False)
    assert "stale lock of a run that was killed (pid 999999999" in capsys.readouterr().err
    assert (out / ".lock").read_text() == ""


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"games": 10**15}, r"this study would need [\d,]+ batches; at most 100,000 are allowed"),
        ({"games": 10**8, "batch_games": 10**8}, "has batches of 83,333,335 games; at most 1,000,000 games"),
        ({"seed": 2**63 - 10}, "the seed must be at most 9,223,372,036,854,774,808"),
    ],
)
def test_impossible_sizes_are_refused_up_front(change: dict[str, Any], message: str) -> None:
    start = time.perf_counter()
    with pytest.raises(study.SpecError, match=message):
        study.parse_spec({**TINY, **change})
    assert time.perf_counter() - start < 5  # refused by arithmetic, not by building the plan


def test_a_truncated_batch_file_is_run_again(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    out = tmp_path / "run"
    shutil.copytree(tiny_run, out)
    batch = sorted((out / "batches").glob("*.json"))[4]
    batch.write_bytes(batch.read_bytes()[:100])  # cut short (a full disk, a copy interrupted)
    assert study.main(["--resume", str(out), "--workers", "1", "--quiet"]) == 0
    assert f"batch file {batch}: the document is not JSON" in capsys.readouterr().err
    assert (out / "results.csv").read_bytes() == (tiny_run / "results.csv").read_bytes()


def test_a_large_batch_file_is_read_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A batch of 60,000 games keeps its counts per deal: a result file of about 1.5 MB (written
    compact), more than the 1 MiB that bounds specs and records. It is read back (the report, a
    resume), not run again nor refused: result files have their own bound,
    :data:`uno_env.files.RESULT_LIMIT`."""
    from uno_env import files

    spec = {
        "name": "large", "seed": 1, "bases": ["uno"], "players": [2], "styles": ["greedy", "blocker"],
        "games": 60_000, "batch_games": 60_000, "variations": {}, "replicate": False, "reference": "",
    }  # fmt: skip
    out = tmp_path / "run"
    study.run_study(study.parse_spec(spec), out, executor="serial", progress=False)
    (batch,) = (out / "batches").glob("*.json")
    assert files.TEXT_LIMIT < batch.stat().st_size < files.RESULT_LIMIT
    assert int(study.results_frame(out)["games"].iloc[0]) == 60_000
    before = batch.stat().st_mtime_ns
    assert study.main(["--resume", str(out), "--workers", "1", "--quiet"]) == 0
    assert batch.stat().st_mtime_ns == before and "running it again" not in capsys.readouterr().err


def test_batches_of_another_seed_are_never_mixed(tiny_run: Path, tmp_path: Path) -> None:
    import shutil

    out = tmp_path / "run"
    shutil.copytree(tiny_run, out)
    data = json.loads((sorted((out / "batches").glob("*.json"))[0]).read_text())
    assert data["seed"] == TINY["seed"] and len(data["key"]) == 64  # each file names its seed
    spec = out / "spec.toml"
    spec.write_text(spec.read_text().replace("seed = 5", "seed = 6"))
    with pytest.raises(
        study.SpecError, match=r"computed for another design \(seed 5; this study.s spec.toml says seed 6"
    ):
        study.run_study(study.load_spec(spec), out, resume=True, progress=False)
    with pytest.raises(study.SpecError, match="computed for another design"):
        study.results_frame(out)


def test_disk_errors_are_one_clean_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    spec_file = write_spec(tmp_path / "tiny.toml", {**TINY, "games": 30, "variations": {}})

    def full_disk(path: Path, data: Any, **options: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(study.run, "write_json_atomic", full_disk)  # the run writes the batches
    args = [str(spec_file), "--executor", "serial", "--quiet"]
    assert study.main([*args, "--out", str(tmp_path / "full")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err
    assert err.startswith(f"uno-env: error: cannot write the results in {tmp_path / 'full'}")
    monkeypatch.undo()
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    assert study.main([*args, "--out", str(blocker / "run")]) == 2  # a file where a folder must be
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{blocker} is a file" in err and "--resume" not in err


def test_a_file_a_task_cannot_read_is_not_reported_as_the_folders(tmp_path: Path) -> None:
    """A policy file missing where a batch runs (deleted after the spec was read, or absent on
    a node) is named as that file, not as a full or read-only results folder."""
    from training.runner import RunFolderError, folder_errors
    from uno_env.sim.learned import MissingPolicyError

    missing = r"^exported policy gone\.npz: the file does not exist$"
    with pytest.raises(MissingPolicyError, match=missing), folder_errors(tmp_path):
        raise MissingPolicyError("exported policy gone.npz: the file does not exist")
    with (
        pytest.raises(RunFolderError, match=f"cannot write the results in {tmp_path}: "),
        folder_errors(tmp_path),
    ):
        raise PermissionError(13, "Permission denied", str(tmp_path / "batch.json"))
