"""Expert iteration (``uno-env expert``) and the sweep's expert-iteration mode.

Tiny budgets (a few games per round, the search at 12 simulations): the loop labels, learns,
exports and evaluates; a run interrupted after a chunk resumes to the same network; a finished
run is refused without ``--resume``; the sweep trains a player per variant by expert iteration,
cross-evaluates the exported players compiled, compares them with the search on the same
deals, and a study naming that sweep seats each cell's network.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("pandas")

from training.expert import ExpertConfig, chunk_path, network_path, run_expert, status_lines
from training.study import SpecError
from training.sweep import load_sweep, parse_sweep, run_sweep, status_rows
from uno_env.sim.learned import load_exported

TINY = {
    "games": 4, "chunk_games": 2, "rounds": 2, "search": "search:sims=12,depth=6",
    "opponents": ["blocker", "self"], "critic_rate": 0.5, "net_arch": [8], "critic_arch": [8], "epochs": 1,
    "eval_deals": 10, "eval_search_deals": 2,
}  # fmt: skip


def test_expert_iteration_labels_learns_exports_and_resumes(tmp_path: Path) -> None:
    cfg = ExpertConfig(**TINY)  # type: ignore[arg-type]
    first = run_expert(cfg, tmp_path / "a", "test", executor="serial", progress=False)
    policy = load_exported(first)
    assert policy.has_critic and list(policy.hidden) == [8]
    rounds = policy.meta["training"]["rounds"]
    assert [r["round"] for r in rounds] == [0, 1]
    assert rounds[1]["searcher"].endswith("rounds/00/net.npz")  # round 1 searches with round 0's network
    assert all(r["labelling"]["rows"] > 0 and r["critic_rows"] > 0 for r in rounds)
    assert 0.0 <= rounds[1]["evaluation"]["win_lo"] <= rounds[1]["evaluation"]["win_hi"] <= 1.0
    assert rounds[1]["search_evaluation"]["games"] == 4
    progress = (tmp_path / "a" / "progress.csv").read_text().splitlines()
    assert len(progress) == 3 and progress[0].startswith("round,games,rows")
    header, row = progress[0].split(","), progress[1].split(",")
    # the labelling's wall clock, not only the chunks' (progress.csv rounds it to 0.1 s)
    assert rounds[0]["labelling"]["wall"] > 0 and float(row[header.index("label_wall")]) >= 0
    with pytest.raises(ValueError, match="continue it with --resume"):
        run_expert(cfg, tmp_path / "a", "test", executor="serial", progress=False)
    # the same run, interrupted: round 1's second chunk and everything after it missing
    second = tmp_path / "b"
    run_expert(cfg, second, "test", executor="serial", progress=False)
    chunk_path(second, 1, 1).unlink()
    for name in ("net.npz", "net.json", "record.json"):
        (network_path(second, 1).parent / name).unlink()
    (second / "final.npz").unlink()
    assert "labelling" in status_lines(second)[1]
    run_expert(cfg, second, "test", executor="serial", resume=True, progress=False)
    again = load_exported(second / "final.npz")
    for a, b in zip(
        policy.weights + policy.critic_weights, again.weights + again.critic_weights, strict=True
    ):
        assert np.array_equal(a, b)
    with pytest.raises(ValueError, match="was run with another config"):
        run_expert(ExpertConfig(**{**TINY, "games": 6}), second, "test", executor="serial", resume=True)  # type: ignore[arg-type]


def test_select_play_keeps_the_epoch_that_wins_most_on_the_selection_deals(tmp_path: Path) -> None:
    """``select = "play"``: every epoch (0: where it started) is played against the evaluation
    opponent on the selection deals, and the round keeps the one that wins most (ties: the later)."""
    import csv

    cfg = ExpertConfig(**{**TINY, "rounds": 1, "epochs": 3, "select": "play", "learning_rate": 0.05})  # type: ignore[arg-type]
    run_expert(cfg, tmp_path / "p", "test", executor="serial", progress=False)
    with (tmp_path / "p" / "rounds" / "00" / "train.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    rates = [float(row["selection_win_rate"]) for row in rows]
    assert len(rates) == 4 and all(0.0 <= rate <= 1.0 for rate in rates)
    record = json.loads((tmp_path / "p" / "rounds" / "00" / "record.json").read_text())
    kept = record["kept_epochs"]["policy"]
    assert record["select"] == "play"
    assert rates[kept] == max(rates) and all(rate < max(rates) for rate in rates[kept + 1 :])
    assert record["evaluation"]["win_rate"] == pytest.approx(rates[kept])  # the same deals, the same games
    assert not list((tmp_path / "p" / "rounds" / "00").glob("epoch_candidate*"))


def test_window_and_epochs_change_on_resume_from_the_next_round(tmp_path: Path) -> None:
    """``--resume --window W --epochs E`` trains the rounds not yet trained with them; the change
    is recorded in config.json, so a fresh run of the recorded config is the same run."""
    from training.expert import with_changes

    cfg = ExpertConfig(**{**TINY, "rounds": 2, "window": 1})  # type: ignore[arg-type]
    run_expert(cfg, tmp_path / "a", "test", executor="serial", progress=False)
    assert with_changes(cfg, tmp_path / "a", 1, 1) is cfg  # nothing differs from round 2's options
    with pytest.raises(ValueError, match="--window must be >= 1, got 0"):
        with_changes(cfg, tmp_path / "a", 0, None)
    longer = with_changes(dataclasses.replace(cfg, rounds=3), tmp_path / "a", 3, 2)
    assert longer.changes == [{"round": 2, "window": 3, "epochs": 2}]
    assert longer.at_round(1) == (1, 1) and longer.at_round(2) == (3, 2)
    run_expert(longer, tmp_path / "a", "test", executor="serial", resume=True, progress=False)
    folders = [network_path(tmp_path / "a", r).parent for r in range(3)]
    records = [json.loads((folder / "record.json").read_text()) for folder in folders]
    assert [r["window"] for r in records] == [[0], [1], [0, 1, 2]]
    assert [len(r["epochs"]) for r in records] == [2, 2, 3]  # epoch 0 (the start) and the trained ones
    assert json.loads((tmp_path / "a" / "config.json").read_text())["changes"] == longer.changes
    # the recorded config, run afresh, gives the same networks
    run_expert(longer, tmp_path / "b", "test", executor="serial", progress=False)
    for r in range(3):
        a, b = load_exported(network_path(tmp_path / "a", r)), load_exported(network_path(tmp_path / "b", r))
        assert all(np.array_equal(x, y) for x, y in zip(a.weights, b.weights, strict=True))
    # a trained round keeps the options it was trained with
    rewritten = dataclasses.replace(longer, rounds=4, changes=[{"round": 1, "window": 2}])
    refusal = "rounds 0-2 are trained; --window and --epochs can change from round 3 on"
    with pytest.raises(ValueError, match=refusal):
        run_expert(rewritten, tmp_path / "a", "test", executor="serial", resume=True, progress=False)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"select": "luck"}, "--select must be one of agreement, play"),
        ({"select": "play", "eval_deals": 0}, "--select play needs --eval-deals"),
        ({"search": "blocker"}, "must be the search or the oracle"),
        ({"search": "search:net=ppo_uno_2p"}, "must not name a network"),
        ({"opponents": ["nobody"]}, "^--opponents 'nobody': unknown play style 'nobody'"),
        ({"eval_opponent": "nobody"}, "^--eval-opponent 'nobody': unknown play style 'nobody'"),
        ({"init_policy": "greedy"}, "^--init-policy 'greedy': 'greedy' names no exported policy"),
        (
            {"init_policy": "./missing.npz"},
            "^--init-policy './missing.npz': exported policy missing.npz: the file",
        ),
        ({"critic_rate": 2.0}, "critic-rate must be in"),
        ({"net_arch": []}, "one or more positive widths"),
        ({"changes": [{"window": 3}]}, "each entry needs a round number"),
        ({"changes": [{"round": True, "window": 3}]}, "each entry needs a round number >= 0"),
        ({"changes": [{"round": -1, "window": 3}]}, "each entry needs a round number >= 0"),
        ({"changes": [{"round": 2}]}, "changes window or epochs from a round on"),
        ({"changes": [{"round": 2, "lr": 3}]}, "changes window or epochs from a round on"),
        ({"changes": [{"round": 2, "window": 3}, {"round": 2, "epochs": 3}]}, "rounds must increase"),
        ({"changes": [{"round": 2, "window": 0}]}, "window must be an integer >= 1"),
        ({"finetune_steps": -1}, r"--finetune-steps must be >= 0 \(0: no fine-tuning\), got -1"),
        ({"finetune_steps": 1.5}, "--finetune-steps must be an integer >= 0, got 1.5"),
        ({"finetune_lr": 0.0}, "--finetune-lr must be a finite number > 0, got 0.0"),
        ({"finetune_ent_coef": -0.1}, "--finetune-ent-coef must be a finite number >= 0, got -0.1"),
        # not finite: a NaN temperature passed "<= 0", infinities passed "> 0"
        ({"temperature": float("nan")}, "--temperature must be a finite number > 0, got nan"),
        ({"learning_rate": float("inf")}, "--learning-rate must be a finite number > 0, got inf"),
        ({"finetune_lr": float("inf")}, "--finetune-lr must be a finite number > 0, got inf"),
        ({"finetune_num_envs": 0}, "--finetune-num-envs must be an integer >= 1, got 0"),
        ({"finetune_n_steps": 0}, "--finetune-n-steps must be an integer >= 1, got 0"),
        ({"finetune_batch_size": 0}, "--finetune-batch-size must be an integer >= 1, got 0"),
        ({"finetune_eval_every": 0}, "--finetune-eval-every must be an integer >= 1, got 0"),
        ({"finetune_eval_games": 0}, "--finetune-eval-games must be an integer >= 1, got 0"),
        ({"finetune_opponents": ["nobody"]}, "--finetune-opponents 'nobody'.*nobody"),
        ({"finetune_opponents": ["blocker@x"]}, "--finetune-opponents 'blocker@x'.*weight"),
        # refused before the rounds, not when the fine-tuning stage seeds NumPy hours later
        ({"seed": 2**32, "finetune_steps": 1000}, r"--seed \(with --finetune-steps\) must be an integer in"),
        # NumPy refused a negative seed naming no option; the compiled labeller wrapped past 2**63
        ({"seed": -1}, r"^--seed must be an integer in 0\.\.9,223,372,036,844,775,804 \(game i of round r"),
        ({"seed": 2**63 - 5}, r"^--seed must be an integer in 0\.\.9,223,372,036,844,775,804 .*got 922"),
        ({"eval_seed": 2**63 - 5}, r"^--eval-seed must be an integer in 0\.\.9,223,372,036,854,775,798 "),
        # the round's network file refused the name only after the round's games and training
        ({"name": "n" * 191}, r"^--name has 191 characters; at most 190: the run's networks are named"),
    ],
)
def test_bad_expert_configs_name_what_is_wrong(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ExpertConfig(**{**TINY, **change}).check()  # type: ignore[arg-type]


FINETUNE = {
    "finetune_steps": 256, "finetune_num_envs": 4, "finetune_n_steps": 32, "finetune_batch_size": 64,
    "finetune_eval_every": 128, "finetune_eval_games": 8,
}  # fmt: skip
"""A fine-tuning stage of two PPO rollouts (4 games x 32 steps each), a checkpoint after each."""


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_finetuning_stage_trains_on_from_the_network_exports_its_player_and_resumes(
    tmp_path: Path,
) -> None:
    """``finetune_steps``: MaskablePPO from ``final.npz``'s actor in ``OUT/finetune``; its player
    ``finetuned.npz`` differs from the expert network and plays; a stage stopped at a checkpoint
    continues from it to the budget; a finished stage is not redone; the budget cannot shrink."""
    import uno_env
    from training.expert import FINETUNED, finetune_step, player_path
    from uno_env.sim.learned import file_digest

    cfg = ExpertConfig(**{**TINY, "rounds": 1, "eval_search_deals": 0, **FINETUNE})  # type: ignore[arg-type]
    out = tmp_path / "a"
    final = run_expert(cfg, out, "test", executor="serial", progress=False)
    assert final == out / "final.npz" and player_path(cfg, out) == out / FINETUNED
    expert, tuned = load_exported(final), load_exported(out / FINETUNED)
    assert expert.has_critic and not tuned.has_critic  # the expert network keeps its critic for searches
    assert list(tuned.hidden) == [8] and tuned.activation == "tanh"
    assert any(not np.array_equal(a, b) for a, b in zip(expert.weights, tuned.weights, strict=True))
    record = tuned.meta["training"]
    assert record["step"] == 256 and record["checkpoint"] == "step_0000000256.zip"
    assert record["config"]["init_policy"] == str(final.resolve()) and record["config"]["net_arch"] == [8]
    assert record["config"]["opponents"] == ["blocker"] and record["config"]["threads"] == 1
    assert [r["opponents"] for r in record["evaluation"]] == ["blocker"]
    config = json.loads((out / "finetune" / "config.json").read_text())
    assert (config["total_steps"], config["learning_rate"], config["ent_coef"]) == (256, 1e-4, 0.005)
    assert status_lines(out)[-1].startswith("fine-tuning: done       256/256 steps; ")
    # the player plays, compiled, at either seat
    result = uno_env.simulate("uno", 2, 6, seed=1, policies=[str(out / FINETUNED), "blocker"])
    assert len(result.winner) == 6 and set(result.winner) <= {-1, 0, 1}
    # finished: a resume rewrites nothing of the stage
    before = _tree(out / "finetune") | {FINETUNED: (out / FINETUNED).read_bytes()}
    run_expert(cfg, out, "test", executor="serial", resume=True, progress=False)
    assert _tree(out / "finetune") | {FINETUNED: (out / FINETUNED).read_bytes()} == before
    with pytest.raises(
        ValueError, match="fine-tuning has trained 256 steps; --finetune-steps must be at least"
    ):
        run_expert(dataclasses.replace(cfg, finetune_steps=128), out, "test", executor="serial", resume=True)
    # stopped after its first checkpoint (a budget of one rollout), then continued to 256
    second = tmp_path / "b"
    run_expert(
        dataclasses.replace(cfg, finetune_steps=128), second, "test", executor="serial", progress=False
    )
    assert finetune_step(second) == 128 and load_exported(second / FINETUNED).meta["training"]["step"] == 128
    assert status_lines(second)[-1].startswith("fine-tuning: done       128/128 steps")
    chunks = _tree(second / "rounds")
    run_expert(cfg, second, "test", executor="serial", resume=True, progress=False)
    assert _tree(second / "rounds") == chunks  # the rounds are not touched again
    assert finetune_step(second) == 256 and load_exported(second / FINETUNED).meta["training"]["step"] == 256
    steps = [line.split(",")[0] for line in (second / "finetune" / "eval.csv").read_text().splitlines()[1:]]
    assert steps == ["128", "256"]  # continued from step 128, not started again
    assert load_exported(second / FINETUNED).meta["training"]["started_from_sha256"] == file_digest(
        second / "final.npz"
    )
    with pytest.raises(ValueError, match="the fine-tuning started from round 0's network; --rounds cannot"):
        run_expert(dataclasses.replace(cfg, rounds=2), second, "test", executor="serial", resume=True)
    # the player file lost after the stage finished: exported again, not trained again
    (second / FINETUNED).unlink()
    checkpoints = _tree(second / "finetune" / "checkpoints")
    run_expert(cfg, second, "test", executor="serial", resume=True, progress=False)
    assert load_exported(second / FINETUNED).meta["training"]["step"] == 256
    assert _tree(second / "finetune" / "checkpoints") == checkpoints
    # killed between its checkpoints: the last one (step 128) is where it goes on from
    third = tmp_path / "c"
    run_expert(cfg, third, "test", executor="serial", progress=False)
    ckpts = third / "finetune" / "checkpoints"
    for part in ckpts.glob("step_0000000256.*"):
        part.unlink()
    (ckpts / "latest.json").write_bytes((ckpts / "step_0000000128.state.json").read_bytes())
    for name in ("model.zip", "model.meta.json"):
        (third / "finetune" / name).unlink()
    (third / FINETUNED).unlink()
    assert status_lines(third)[-1].startswith("fine-tuning: training   128/256 steps")
    run_expert(cfg, third, "test", executor="serial", resume=True, progress=False)
    assert load_exported(third / FINETUNED).meta["training"]["step"] == 256
    assert (ckpts / "step_0000000256.zip").is_file() and finetune_step(third) == 256
    superseded = (third / "finetune" / "eval.superseded.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in superseded[1:]] == ["256"]  # the row after the checkpoint
    steps = [line.split(",")[0] for line in (third / "finetune" / "eval.csv").read_text().splitlines()[1:]]
    assert steps == ["128", "256"]


def test_a_run_recorded_before_the_finetuning_options_resumes_and_can_gain_the_stage(tmp_path: Path) -> None:
    """The fine-tuning options at their defaults are not recorded: a run's config.json, its
    final.npz sidecar and the sweep's digest are what they were before the options existed, a
    config.json without them loads, and a resume may add the stage (``--finetune-steps``)."""
    import hashlib

    from training.expert import FINETUNED, _load_config
    from training.sweep import SWEEP_FORMAT, run_key

    cfg = ExpertConfig(**{**TINY, "rounds": 1, "eval_search_deals": 0})  # type: ignore[arg-type]
    out = tmp_path / "a"
    run_expert(cfg, out, "test", executor="serial", progress=False)
    recorded = json.loads((out / "config.json").read_text())
    assert not [k for k in recorded if k.startswith("finetune")]
    assert not [
        k for k in load_exported(out / "final.npz").meta["training"]["config"] if k.startswith("finetune")
    ]
    assert _load_config(out) == cfg and not (out / "finetune").exists() and not (out / FINETUNED).exists()
    # the sweep's digest of such a run: as computed before the options existed
    spec = parse_sweep(
        {"name": "x", "bases": ["uno"], "players": [2], "mode": "expert", "expert": {"games": 2}}
    )
    run = spec.runs()[0]
    old_fields = {k: v for k, v in dataclasses.asdict(run.cfg).items() if not k.startswith("finetune")}
    old_key = hashlib.sha256(
        json.dumps([SWEEP_FORMAT, run.id, old_fields, str(run.variant.rules)], sort_keys=True).encode()
    ).hexdigest()
    assert run_key(run) == old_key
    # the same run resumed with a fine-tuning stage: the rounds stay, the stage runs
    tuned = dataclasses.replace(cfg, **FINETUNE)  # type: ignore[arg-type]
    run_expert(tuned, out, "test", executor="serial", resume=True, progress=False)
    assert load_exported(out / FINETUNED).meta["training"]["step"] == 256
    assert json.loads((out / "config.json").read_text())["finetune_steps"] == 256
    # once the stage started its options are fixed (its budget may still grow)
    with pytest.raises(ValueError, match=r"was run with another config \(it differs in finetune_lr\)"):
        run_expert(dataclasses.replace(tuned, finetune_lr=0.01), out, "test", executor="serial", resume=True)


SWEEP = """
name = "tinyexpert"
seed = 2
bases = ["uno"]
players = [2]
mode = "expert"

[expert]
games = 2
chunk_games = 2
rounds = 1
search = "search:sims=8,depth=4"
opponents = ["blocker"]
net_arch = [8]
critic_arch = [8]
epochs = 1
eval_deals = 4

[transfer]
deals = 4
field = ["greedy", "blocker"]
compare = ["search:sims=8,depth=4"]

[variations]
seven_swap = { seven_swap = true }
"""


def test_the_sweep_trains_players_by_expert_iteration_and_compares_them(tmp_path: Path) -> None:
    import pandas as pd

    from training.study import LEARNED, parse_spec, plan, run_study

    path = tmp_path / "sweep.toml"
    path.write_text(textwrap.dedent(SWEEP), encoding="utf-8")
    spec = load_sweep(path)
    assert spec.mode == "expert" and spec.budget() == 2 and spec.unit == "labelled games"
    out = tmp_path / "out"
    run_sweep(spec, out, executor="serial", progress=False)
    assert [r["state"] for r in status_rows(spec, out)] == ["done", "done"]
    for run in ("uno__2p", "uno+seven_swap__2p"):
        assert load_exported(out / "runs" / run / "final.npz").has_critic
        result = json.loads((out / "results" / f"{run}.json").read_text())
        assert result["step"] == 2 and result["final_eval"][0]["games"] == 8
    transfer = pd.read_csv(out / "transfer.csv")
    assert len(transfer.drop_duplicates(["trained_on", "played_on"])) == 4
    skill = pd.read_csv(out / "skill.csv")
    assert set(skill["compare0"]) == {"search:sims=8,depth=4"}
    assert skill["compare0_vs_field"].between(0, 1).all() and skill["compare0_policy_minus"].notna().all()
    assert "policy minus `search:sims=8,depth=4`" in (out / "report.md").read_text()
    # a study naming the sweep seats each cell's exported player, compiled
    data = {
        "name": "adapted", "seed": 3, "bases": ["uno"], "players": [2], "styles": ["greedy", "blocker"],
        "games": 12, "sweep": str(out), "variations": {"seven_swap": {"seven_swap": True}},
    }  # fmt: skip
    study = parse_spec(data)
    assert {t.learned for t in plan(study)} == {
        str(out / "runs" / "uno__2p" / "final.npz"),
        str(out / "runs" / "uno+seven_swap__2p" / "final.npz"),
    }
    run_study(study, tmp_path / "study", executor="serial", progress=False)
    results = pd.read_csv(tmp_path / "study" / "results.csv")
    assert (results[results["style"] == LEARNED]["seat_games"] > 0).all()


def test_an_expert_sweep_with_finetuning_cross_evaluates_and_seats_the_finetuned_players(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``finetune_steps`` in ``[expert]``: every run fine-tunes its network, its summary carries
    the stage, the status counts its steps apart from the labelled games, and the
    cross-evaluation and a study naming the sweep seat ``finetuned.npz``, not ``final.npz``."""
    import training.transfer as transfer
    from training.study import parse_spec, plan
    from training.sweep import StatusLine

    text = textwrap.dedent(SWEEP).replace(
        "eval_deals = 4\n",
        "eval_deals = 4\nfinetune_steps = 128\nfinetune_num_envs = 4\nfinetune_n_steps = 32\n"
        "finetune_batch_size = 64\nfinetune_eval_every = 128\nfinetune_eval_games = 4\n",
    )
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    spec = load_sweep(path)
    assert spec.model_file == "finetuned.npz" and spec.budget() == 2 and spec.finetune_budget() == 128
    out = tmp_path / "out"
    assert "fine-tuning 0/256 steps" in StatusLine(spec, out, 1.0, False).line()
    loaded: list[str] = []
    where = transfer.model_path

    def recorded(task: transfer.PolicyTask) -> Path:  # the file each policy task plays
        loaded.append(task.model)
        return where(task)

    monkeypatch.setattr(transfer, "model_path", recorded)
    run_sweep(spec, out, executor="serial", progress=True, status_every=3600.0)
    assert "fine-tuned at step 128: vs blocker" in capsys.readouterr().err
    rows = status_rows(spec, out)
    assert [(r["state"], r["finetune"], r["finetune_budget"]) for r in rows] == [("done", 128, 128)] * 2
    assert "2/2 runs done, 4/4 labelled games (100%)" in StatusLine(spec, out, 1.0, False).line()
    assert "fine-tuning 256/256 steps" in StatusLine(spec, out, 1.0, False).line()
    for run in ("uno__2p", "uno+seven_swap__2p"):
        result = json.loads((out / "results" / f"{run}.json").read_text())
        assert result["step"] == 2 and result["finetune"]["step"] == 128 and result["finetune"]["seconds"] > 0
        assert result["finetune"]["player"] == "finetuned.npz"
        assert [r["games"] for r in result["finetune"]["evaluation"]] == [4]
        tuned = load_exported(out / "runs" / run / "finetuned.npz")
        assert (
            tuned.meta["training"]["step"] == 128
            and load_exported(out / "runs" / run / "final.npz").has_critic
        )
    assert loaded and {Path(m).name for m in loaded} == {"finetuned.npz"}
    assert len(pd_rows(out / "transfer.csv")) >= 4
    data = {
        "name": "adapted", "seed": 3, "bases": ["uno"], "players": [2], "styles": ["greedy", "blocker"],
        "games": 12, "sweep": str(out), "variations": {"seven_swap": {"seven_swap": True}},
    }  # fmt: skip
    assert {t.learned for t in plan(parse_spec(data))} == {
        str(out / "runs" / "uno__2p" / "finetuned.npz"),
        str(out / "runs" / "uno+seven_swap__2p" / "finetuned.npz"),
    }
    # the sweep resumed: the finished runs (and their stages) are kept as they are
    before = {run: _tree(out / "runs" / run / "finetune") for run in ("uno__2p", "uno+seven_swap__2p")}
    run_sweep(spec, out, executor="serial", resume=True, progress=False, transfer=False)
    assert {run: _tree(out / "runs" / run / "finetune") for run in before} == before


def test_a_shipped_run_folder_finetunes_on_the_node_and_comes_back_whole(tmp_path: Path) -> None:
    """Under Ray a run's folder travels to the node and back whole (:func:`train_shipped`, what
    a Ray node runs; Ray itself is tested with the sweep): the stage (``finetune/``) and its
    player come back, the same player the serial sweep trains."""
    from training.cluster import unpack_folder
    from training.sweep import RunTask, ShippedRun, run_key, train_shipped

    text = textwrap.dedent(SWEEP).replace(
        "eval_deals = 4\n",
        "eval_deals = 4\nfinetune_steps = 128\nfinetune_num_envs = 4\nfinetune_n_steps = 32\n"
        "finetune_batch_size = 64\nfinetune_eval_every = 128\nfinetune_eval_games = 4\n",
    )
    text = text.replace("seven_swap = { seven_swap = true }\n", "")  # one run
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    spec = load_sweep(path)
    out = run_sweep(spec, tmp_path / "serial", executor="serial", workers=1, progress=False, transfer=False)
    result = json.loads((out / "results" / "uno__2p.json").read_text())
    assert result["finetune"]["step"] == 128
    (run,) = spec.runs()
    task = RunTask(
        run.id, run_key(run), str(tmp_path / "driver" / run.id), dataclasses.asdict(run.cfg),
        str(run.variant.rules), spec.mode,
    )  # fmt: skip
    shipped = train_shipped(ShippedRun(task, b""))
    assert shipped["finetune"]["step"] == 128
    back = tmp_path / "back" / run.id
    unpack_folder(shipped.pop("folder"), back)
    assert (back / "finetune" / "checkpoints" / "step_0000000128.zip").is_file()
    mine = load_exported(out / "runs" / "uno__2p" / "finetuned.npz")
    theirs = load_exported(back / "finetuned.npz")
    assert all(
        np.array_equal(a, b)
        for a, b in zip(mine.weights + mine.biases, theirs.weights + theirs.biases, strict=True)
    )


def test_the_documented_finetuning_sweep_spec_parses() -> None:
    """docs/sweep.md's example ``[expert]`` table with ``finetune_steps``: a valid spec whose
    players are the fine-tuned files."""
    import re
    import tomllib

    page = (Path(__file__).resolve().parents[1] / "docs" / "sweep.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- doc-test: file expert_finetune_sweep.toml -->\n```toml\n(.*?)```", page, re.S)
    assert block is not None
    spec = parse_sweep(tomllib.loads(block[1]))
    assert spec.model_file == "finetuned.npz" and spec.finetune_budget() == 20_000_000


def pd_rows(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV file."""
    import csv

    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_expert_sweep_specs_are_checked(tmp_path: Path) -> None:
    base = {"name": "x", "bases": ["uno"], "players": [2], "variations": {}}
    with pytest.raises(SpecError, match="mode must be one of ppo, expert"):
        parse_sweep({**base, "mode": "alphazero"})
    with pytest.raises(SpecError, match='needs mode = "expert"'):
        parse_sweep({**base, "expert": {"games": 2}})
    with pytest.raises(SpecError, match="name are set by the sweep"):
        parse_sweep({**base, "mode": "expert", "expert": {"name": "x"}})
    with pytest.raises(SpecError, match="games must be a int"):
        parse_sweep({**base, "mode": "expert", "expert": {"games": "many"}})
    with pytest.raises(SpecError, match=r"\[expert\]: --finetune-steps must be >= 0"):
        parse_sweep({**base, "mode": "expert", "expert": {"finetune_steps": -5}})
    with pytest.raises(SpecError, match="finetune_opponents must be a list of str"):
        parse_sweep({**base, "mode": "expert", "expert": {"finetune_opponents": "blocker"}})
    assert parse_sweep({**base, "mode": "expert", "expert": {"games": 2}}).model_file == "final.npz"
    with pytest.raises(SpecError, match="compare names 'oracle', which cheats"):
        parse_sweep({**base, "transfer": {"compare": ["oracle"]}})
    ppo = parse_sweep(base)
    assert "mode" not in ppo.to_dict() and "compare" not in ppo.to_dict()["transfer"]  # PPO specs unchanged


def test_ray_and_the_process_pool_label_the_same_chunks(tmp_path: Path) -> None:
    """Chunks are tasks of the study's executors: Ray and the process pool write the same data
    and train the same networks as a run in this process."""
    pytest.importorskip("ray")
    cfg = ExpertConfig(**{**TINY, "rounds": 1, "eval_search_deals": 0})  # type: ignore[arg-type]
    finals = {}
    for executor in ("serial", "process", "ray"):
        finals[executor] = run_expert(
            cfg, tmp_path / executor, "test", executor=executor, workers=2, progress=False
        )
    for executor in ("process", "ray"):
        for k in range(2):
            with (
                np.load(chunk_path(tmp_path / "serial", 0, k)) as a,
                np.load(chunk_path(tmp_path / executor, 0, k)) as b,
            ):
                assert a.files == b.files and all(np.array_equal(a[f], b[f]) for f in a.files)
        mine, theirs = load_exported(finals["serial"]), load_exported(finals[executor])
        assert all(np.array_equal(a, b) for a, b in zip(mine.weights, theirs.weights, strict=True))


def test_the_expert_sweep_spec_parses() -> None:
    """training/specs/expert_sweep.toml: the default sweep's six variants by expert iteration,
    the search compared on the same deals (at least 10,000 games per variant)."""
    from training.sweep import default_spec_path

    spec = load_sweep(default_spec_path().with_name("expert_sweep.toml"))
    assert spec.mode == "expert" and spec.compare == ("search",) and len(spec.runs()) == 6
    assert spec.deals * 2 * len(spec.field) >= 10_000


def test_the_tuned_expert_sweep_spec_starts_every_variant_from_the_shipped_expert_network() -> None:
    """training/specs/expert_sweep_tuned.toml: the same six variants and comparison, each player
    continued from ``expert_uno_2p`` (a shipped 128-128 network) for seven rounds."""
    from training.sweep import default_spec_path

    spec = load_sweep(default_spec_path().with_name("expert_sweep_tuned.toml"))
    assert spec.mode == "expert" and spec.compare == ("search",) and len(spec.runs()) == 6
    for run in spec.runs():
        cfg = run.cfg
        assert isinstance(cfg, ExpertConfig)
        cfg.check()
        assert cfg.init_policy == "expert_uno_2p" and cfg.net_arch == [128, 128] and cfg.rounds == 7
    assert spec.deals * 2 * len(spec.field) >= 10_000


def test_the_finetuned_expert_sweep_spec_adds_the_stage_to_the_tuned_one() -> None:
    """training/specs/expert_sweep_finetuned.toml: the tuned spec's expert iteration unchanged,
    then 20,000,000 MaskablePPO steps per variant against the field's seven styles; the players
    the comparison seats are the runs' ``finetuned.npz``."""
    from training.sweep import default_spec_path

    tuned = load_sweep(default_spec_path().with_name("expert_sweep_tuned.toml"))
    spec = load_sweep(default_spec_path().with_name("expert_sweep_finetuned.toml"))
    assert spec.model_file == "finetuned.npz" and tuned.model_file == "final.npz"
    assert spec.compare == tuned.compare and spec.field == tuned.field and spec.deals == tuned.deals
    for run, tuned_run in zip(spec.runs(), tuned.runs(), strict=True):
        cfg = run.cfg
        assert isinstance(cfg, ExpertConfig) and isinstance(tuned_run.cfg, ExpertConfig)
        cfg.check()
        assert cfg.finetune_steps == 20_000_000 and cfg.finetune_opponents == list(spec.field)
        labelling = dataclasses.replace(cfg, finetune_steps=0, finetune_opponents=[], name=tuned_run.cfg.name)
        assert labelling == tuned_run.cfg  # the same rounds as the measured tuned sweep


def test_a_run_labelled_with_older_observations_is_not_resumed(tmp_path: Path) -> None:
    """Rows of an older observation spec lack the fields added since: resuming such a run
    would train on them as if nothing were known, so it is refused with the way on."""
    cfg = ExpertConfig(**{**TINY, "rounds": 1, "eval_search_deals": 0})  # type: ignore[arg-type]
    out = tmp_path / "a"
    run_expert(cfg, out, "test", executor="serial", progress=False)
    config = json.loads((out / "config.json").read_text())
    assert config["observation_spec"] == "obs-v3"
    del config["observation_spec"]  # as written before the field was recorded: obs-v2
    (out / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"labelled with 'obs-v2' observations.*--init-policy"):
        run_expert(cfg, out, "test", executor="serial", resume=True, progress=False)


def test_a_network_of_an_older_observation_spec_starts_a_run_with_the_new_inputs_at_zero() -> None:
    """``--init-policy`` of an obs-v2 network: its first layer is copied into the first 884
    rows and the inputs added since start at weight zero, so it first plays as before."""
    from training.expert import _network
    from uno_env.game.encoding import obs_layout
    from uno_env.sim.learned import load_policy

    old = load_policy("expert_uno_2p")
    net = _network(obs_layout("uno").size, list(old.hidden), old.num_actions)
    net.load_layers(old.weights, old.biases)
    weights, biases = net.layers()
    assert weights[0].shape == (old.hidden[0], obs_layout("uno").size)  # exported out x in
    assert np.array_equal(weights[0][:, :884], old.weights[0]) and not weights[0][:, 884:].any()
    for mine, theirs in zip(weights[1:] + biases, old.weights[1:] + old.biases, strict=True):
        assert np.array_equal(mine, theirs)


def test_a_resume_refused_by_the_running_session_records_nothing(tmp_path: Path) -> None:
    """A resume of a folder another session holds is refused before it checks or records
    anything: it used to write its config (here ``--rounds 3``) into the running run's
    config.json before it met the lock, so the refused command still changed the run."""
    from training.runner import lock_folder

    cfg = ExpertConfig(**{**TINY, "rounds": 1, "eval_deals": 0, "eval_search_deals": 0})  # type: ignore[arg-type]
    out = tmp_path / "e"
    run_expert(cfg, out, "test", executor="serial", progress=False)
    before = (out / "config.json").read_bytes()
    running = lock_folder(out, "expert iteration")  # the running session
    with running, pytest.raises(ValueError, match="in use by another expert iteration run"):
        run_expert(dataclasses.replace(cfg, rounds=3), out, "test", executor="serial", resume=True)
    assert (out / "config.json").read_bytes() == before  # still one round, as the run holding it


def test_resume_refuses_options_that_contradict_the_run_naming_both_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``uno-env expert --resume OUT --seed 5`` went on with the run's seed and dropped the
    option without a word: options other than --rounds, --window, --epochs and the fine-tuning's
    that differ from the recorded config are refused, the given and the recorded value named."""
    from training import cli

    cfg = ExpertConfig(**{**TINY, "rounds": 1, "eval_deals": 0, "eval_search_deals": 0})  # type: ignore[arg-type]
    out = tmp_path / "e"
    run_expert(cfg, out, "test", executor="serial", progress=False)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != ".lock"}
    capsys.readouterr()
    args = ["expert", "--resume", str(out), "--quiet", "--executor", "serial"]
    assert cli.main([*args, "--seed", "5", "--players", "3", "--net-arch", "8"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "--seed 5 (the run's: 0)" in err and "--players 3 (the run's: 2)" in err
    assert "--net-arch" not in err  # the run's own value may be repeated
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != ".lock"} == before
    assert cli.main([*args, "--net-arch", "8", "--games", "4"]) == 0  # the same values: resumed


def test_resume_refuses_fewer_rounds_than_the_run_naming_both_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``uno-env expert --resume OUT --rounds N`` with N below the run's rounds was accepted and
    rewrote final.npz from round N - 1 (config.json saying N rounds of a run that trained more).
    The docs let --rounds be raised on resume: a lower value is refused in one line naming the
    given and the run's value, before anything is written; so is the default value (4) given
    against a run of more rounds, which used to be dropped without a word."""
    from training import cli

    cfg = ExpertConfig(**{**TINY, "rounds": 2, "eval_deals": 0, "eval_search_deals": 0})  # type: ignore[arg-type]
    out = tmp_path / "e"
    run_expert(cfg, out, "test", executor="serial", progress=False)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != ".lock"}
    capsys.readouterr()
    args = ["expert", "--resume", str(out), "--quiet", "--executor", "serial"]
    assert cli.main([*args, "--rounds", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert "--rounds 1 (the run's: 2)" in err, err
    with pytest.raises(ValueError, match=r"--rounds 1 \(the run's: 2\)"):
        run_expert(dataclasses.replace(cfg, rounds=1), out, "test", executor="serial", resume=True)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != ".lock"} == before
    assert cli.main([*args, "--rounds", "2"]) == 0  # the run's own value: nothing to train
    assert (out / "final.npz").read_bytes() == before[out / "final.npz"]
    # a run planned for more rounds than the default (here 5, two trained): --rounds 4 is lower too
    config = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**config, "rounds": 5}))
    assert cli.main([*args, "--rounds", "4"]) == 2
    assert "--rounds 4 (the run's: 5)" in capsys.readouterr().err
    assert not (out / "rounds" / "02").exists()


@pytest.mark.parametrize("option", ["opponents", "eval_opponent"])
def test_an_opponent_network_of_other_rules_is_refused_before_any_game(option: str, tmp_path: Path) -> None:
    """The opponents were seated with the rules mismatch allowed, so a network trained for
    other rules labelled and judged the run without a word; now it is refused before the run
    folder is made, as every tool refuses it (check_fits), naming the option and the difference."""
    from uno_env.sim.learned import PolicyGameMismatchError

    value: object = ["distilled_uno_2p"] if option == "opponents" else "distilled_uno_2p"
    cfg = ExpertConfig(**{**TINY, "overrides": ["seven_swap=true"], option: value})  # type: ignore[arg-type]
    out = tmp_path / "run"
    flag = option.replace("_", "-")
    message = rf"^--{flag} 'distilled_uno_2p': .*seven_swap.*has no transfer option"
    with pytest.raises(PolicyGameMismatchError, match=message):
        run_expert(cfg, out, executor="serial", progress=False)
    assert not out.exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"net_arch": [4097]},
            r"^--net-arch 4097: an exported network has 1 to 7 hidden layers of 1 to 4,096",
        ),
        ({"critic_arch": [4] * 8}, r"^--critic-arch 4 4 4 4 4 4 4 4: an exported network has 1 to 7 hidden"),
        (
            {"net_arch": [4096, 4096], "critic_arch": [8]},
            r"^--net-arch and --critic-arch: the network has 2\d,\d{3},\d{3} weights and biases .*16,777,216",
        ),
    ],
)
def test_a_network_the_exported_file_refuses_is_refused_before_any_game(
    change: dict[str, object], message: str, tmp_path: Path
) -> None:
    """A network wider, deeper or larger than an exported policy file holds was labelled for
    and trained, and then refused when the round's ``net.npz`` was read back (a width of 10**8
    stopped in a traceback from torch's allocator): now it is refused before the run folder is
    made, naming the option and the limit."""
    cfg = ExpertConfig(**{**TINY, **change})  # type: ignore[arg-type]
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=message):
        run_expert(cfg, out, executor="serial", progress=False)
    assert not out.exists()


def test_resume_refuses_a_default_value_given_against_the_run_and_another_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--resume OUT --seed 0`` on a run of seed 5 went on with seed 5 without a word: an option
    given at its default value was taken for one not given. ``--out`` with ``--resume`` was
    dropped as well (the run stays in OUT). Both are refused before anything runs."""
    from training import cli
    from training.expert import _config_record

    out = tmp_path / "e"
    out.mkdir()
    cfg = ExpertConfig(**{**TINY, "seed": 5})  # type: ignore[arg-type]
    (out / "config.json").write_text(json.dumps(_config_record(cfg)))
    args = ["expert", "--resume", str(out), "--quiet", "--executor", "serial"]
    assert cli.main([*args, "--seed", "0"]) == 2
    assert "--seed 0 (the run's: 5)" in capsys.readouterr().err
    assert cli.main([*args, "--out", str(tmp_path / "other")]) == 2
    assert f"--out {tmp_path / 'other'}" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["config.json"]  # nothing written
