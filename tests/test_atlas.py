"""The balance atlas (``uno-env atlas``, :mod:`training.atlas`) on tiny specs.

- A tiny atlas writes its tables, plots and report; the same spec gives byte-identical tables
  on one process, on a process pool and after a resume that re-runs deleted batches (a fit
  batch among them: its model is fitted again, the same).
- The controls: the coin flip (the winner drawn from the deal) reads exactly the fair share
  as skill depth, no value of hidden information and a deal share of 1; the A/A copy (the base
  rules on other deals) detects none of its effects, while a known direction (drawing until
  playable, U-DRAW-2, lengthens games) is detected with an interval above 0; a change of a
  trajectory measure reads both cells with the base rules' win-chance model, so two cells'
  different fits are not a change, while a planted one is found.
- Specs: unknown keys, switches, presets, pairs, cheating strong players, multi-round matches
  and impossible sizes are refused with one clear line; impossible player counts skip cells.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from training import atlas
from training.atlas.planning import (
    SHARED,
    baseline_tables,
    field_group,
    field_tables,
    measure_tasks,
    scripted_tables,
)
from training.atlas.play import play_table, run_task
from training.atlas.stats import MEASURE_BY_NAME, CellData, change, merge

TINY: dict[str, Any] = {
    "name": "tiny",
    "players": [2],
    "presets": ["uno"],
    "strong": "search:sims=4",
    "oracle": "oracle:sims=4",
    "field": ["greedy", "blocker"],
    "learned": "",
    "batch_games": 120,
    "deals": {"baseline": 40, "field": 8, "strong": 16, "scripted": 40, "fit": 16},
    "variations": {"until_playable": {"draw": "until_playable"}},
}


# the tests of the tiny atlas run on one pytest-xdist worker (make unit: --dist loadgroup), so
# the module-scoped fixture plays it once, not once per worker
ONE_WORKER_FOR_THE_TINY_ATLAS = pytest.mark.xdist_group("test_atlas.tiny_run")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("atlas") / "run"
    atlas.run_atlas(atlas.parse_spec(TINY), out, executor="serial", progress=False)
    return out


def level(frame: pd.DataFrame, variant: str, play: str, measure: str) -> dict[str, Any]:
    rows = frame[(frame["variant"] == variant) & (frame["play"] == play) & (frame["measure"] == measure)]
    assert len(rows) == 1, (variant, play, measure)
    return rows.iloc[0].to_dict()


@ONE_WORKER_FOR_THE_TINY_ATLAS
def test_a_tiny_atlas_writes_its_tables_plots_and_report(tiny_run: Path) -> None:
    for name in ("atlas.csv", "effects.csv", "calibration.csv", "agreement.csv", "report.md", "heatmap.png",
                 "ladder.png", "reliability.png", "spec.toml", "log.jsonl"):  # fmt: skip
        assert (tiny_run / name).is_file(), name
    report = (tiny_run / "report.md").read_text(encoding="utf-8")
    for heading in ("## The answer", "## Controls", "## Each rule set under strong play",
                    "## The skill ladder", "## Strong against scripted play", "## The win-chance estimate",
                    "## Method"):  # fmt: skip
        assert heading in report
    assert "Drawing until a card fits" in report and "`draw=until_playable`" in report
    frame = pd.read_csv(tiny_run / "atlas.csv")
    assert set(frame["variant"]) == {"uno", "uno+until_playable", "coin_flip", "aa_copy"}
    ladder = frame[(frame["variant"] == "uno") & (frame["play"] == "ladder")]
    assert {"field:random_legal", "field:search:sims=4", "field:oracle:sims=4", "baseline:blocker"} <= set(
        ladder["measure"]
    )


@ONE_WORKER_FOR_THE_TINY_ATLAS
def test_the_coin_flip_reads_no_skill_and_all_outcome_from_the_deal(tiny_run: Path) -> None:
    frame = pd.read_csv(tiny_run / "atlas.csv")
    for play in ("strong", "scripted"):
        skill = level(frame, "coin_flip", play, "skill_vs_baseline")
        assert skill["value"] == skill["lo"] == skill["hi"] == 0.5
        share = level(frame, "coin_flip", play, "deal_share")
        assert share["value"] == pytest.approx(1.0) and level(frame, "coin_flip", play, "player_share")[
            "value"
        ] == pytest.approx(0.0)
        assert level(frame, "coin_flip", play, "luck")["value"] == pytest.approx(1.0)
    assert level(frame, "coin_flip", "strong", "skill_vs_field")["value"] == 0.5
    assert level(frame, "coin_flip", "strong", "hidden_info")["value"] == 0.0
    # the real game: a scripted style beats the random player, the oracle beats the field, and the
    # cards decide less than all (the tiny search of sims=4 is too weak to read a skill depth)
    assert level(frame, "uno", "ladder", "baseline:blocker")["lo"] > 0.5
    assert level(frame, "uno", "ladder", "field:oracle:sims=4")["lo"] > 0.5
    assert level(frame, "uno", "strong", "deal_share")["value"] < 0.9


@ONE_WORKER_FOR_THE_TINY_ATLAS
def test_the_aa_copy_detects_nothing_and_a_known_direction_is_found(tiny_run: Path) -> None:
    effects = pd.read_csv(tiny_run / "effects.csv")
    aa = effects[effects["variant"] == "aa_copy"]
    assert len(aa) > 10 and not aa["detected"].any()
    # U-DRAW-2 (drawing until a card fits) lengthens games: found under scripted play (40 deals a set;
    # the tiny atlas' 16 traced games of strong play are too few to say)
    longer = effects[
        (effects["variant"] == "uno+until_playable")
        & (effects["measure"] == "turns_mean")
        & (effects["play"] == "scripted")
    ]
    assert len(longer) == 1 and (longer["lo"] > 0).all() and longer["detected"].all()
    assert "coin_flip" not in set(effects["variant"])  # a control, not a rule: outside the family


@ONE_WORKER_FOR_THE_TINY_ATLAS
def test_a_trajectory_change_reads_both_cells_with_one_model_and_finds_a_planted_one(tiny_run: Path) -> None:
    # two cells of the same rules on independent deals, each measured with its own fitted model:
    # the two fits differ (here: each cell's own model reads 0.6 more lead changes a game in the
    # copy), the shared base model reads both alike. The change is read with the shared model,
    # so the A/A comparison finds nothing; a real planted difference (0.6 more under every
    # model) is found, with its interval above 0.
    spec = atlas.load_spec(tiny_run / "spec.toml")
    measure = MEASURE_BY_NAME["lead_changes"]
    rng = np.random.default_rng(5)

    def cell(own: float, shared: float) -> CellData:
        games = rng.poisson(3.0, size=(400,)).astype(np.float64)
        columns = {
            "winner": np.zeros(400),
            "lead_changes": games + own,
            SHARED + "lead_changes": games + shared,
        }
        return CellData(2, traced={"strong": columns})

    base = cell(0.0, 0.0)
    copy = cell(0.6, 0.0)
    unshared = change(spec, copy, base, replace(measure, paired=None), "strong")
    assert unshared is not None and unshared.p_value() < 0.01  # the defect: two fits' difference found
    aa = change(spec, copy, base, measure, "strong")
    assert aa is not None and aa.p_value() > 0.05 and aa.interval()[0] < 0 < aa.interval()[1]
    planted = change(spec, cell(0.6, 0.6), base, measure, "strong")
    assert planted is not None and planted.p_value() < 0.01 and planted.interval()[0] > 0
    # every traced batch carries both readings, and the base cell's two are the same model's
    batch = json.loads(next((tiny_run / "batches").glob("uno__2p__strong0__*.json")).read_text())
    assert batch["games"]["lead_changes"] == batch["games"][SHARED + "lead_changes"]
    copy_batch = json.loads(next((tiny_run / "batches").glob("aa_copy__2p__strong0__*.json")).read_text())
    assert SHARED + "drama" in copy_batch["games"]


@ONE_WORKER_FOR_THE_TINY_ATLAS
def test_the_same_spec_gives_identical_tables_on_a_pool_and_after_a_resume(
    tiny_run: Path, tmp_path: Path
) -> None:
    pooled = tmp_path / "pool"
    atlas.run_atlas(atlas.parse_spec(TINY), pooled, executor="process", workers=2, progress=False)
    for name in ("atlas.csv", "effects.csv", "calibration.csv", "report.md"):
        assert (pooled / name).read_bytes() == (tiny_run / name).read_bytes(), name
    batches = sorted((pooled / "batches").glob("*.json"))
    removed = [p for p in batches if "fit_strong" in p.name or "strong0" in p.name or "field1" in p.name]
    assert removed
    for path in removed:
        path.unlink()
    (pooled / "atlas.csv").unlink()
    atlas.run_atlas(atlas.parse_spec(TINY), pooled, executor="serial", resume=True, progress=False)
    assert all(p.exists() for p in removed)
    for name in ("atlas.csv", "effects.csv", "calibration.csv", "report.md"):
        assert (pooled / name).read_bytes() == (tiny_run / name).read_bytes(), name


@ONE_WORKER_FOR_THE_TINY_ATLAS
def test_batches_of_another_design_are_never_mixed(tiny_run: Path, tmp_path: Path) -> None:
    other = dict(TINY, seed=7)
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "batches").mkdir()
    for path in (tiny_run / "batches").glob("*.json"):
        (folder / "batches" / path.name).write_bytes(path.read_bytes())
    with pytest.raises(atlas.AtlasSpecError, match="another design"):
        atlas.scan_batches(atlas.fit_tasks(atlas.parse_spec(other)), folder)


def test_tables_put_every_player_in_every_seat() -> None:
    tables, focal = baseline_tables(["search", "greedy"], "random_playable", 3)
    assert len(tables) == 6 and focal == ["search"] * 3 + ["greedy"] * 3
    assert [t.index("search") for t in tables[:3]] == [0, 1, 2]
    field = field_tables("search", ["a", "b", "c"], 3)
    assert len(field) == 9 and all(t.count("search") == 1 for t in field)
    assert {t[1:] for t in field if t[0] == "search"} == {("a", "b"), ("b", "c"), ("c", "a")}
    assert scripted_tables(["a", "b", "c"], 2) == [("a", "b"), ("b", "c"), ("c", "a")]


def test_one_rotation_a_deal_plays_the_same_games_on_k_times_the_deals() -> None:
    # "one": blocks of (rung, seat) tables, one block per rotation; "all": every table every deal
    tables, focal, block = field_group(["s", "o"], ["a", "b", "c"], 2, "one")
    assert block == 4 and len(tables) == 12 and focal[:4] == ["s", "s", "o", "o"] == focal[4:8]
    abc = ["a", "b", "c"]
    for b in range(3):  # block b: both rungs at every seat against rotation b
        assert tables[4 * b : 4 * b + 4] == [
            *field_tables("s", abc, 2)[2 * b : 2 * b + 2],
            *field_tables("o", abc, 2)[2 * b : 2 * b + 2],
        ]
    assert field_group(["s"], abc, 2, "all") == (field_tables("s", abc, 2), ["s"] * 6, 0)
    spec = atlas.parse_spec({**TINY, "field": ["greedy", "blocker", "cautious"], "deals": {"field": 12}})
    every = atlas.parse_spec({**spec.to_dict(), "field_rotations": "all", "deals": {"field": 4}})
    one = [t for t in measure_tasks(spec) if t.kind == "field" and t.variant == "uno"]
    assert sum(t.games for t in one) == sum(t.games for t in measure_tasks(every) if t.kind == "field" and
                                            t.variant == "uno")  # fmt: skip
    # each deal set in three equal runs of consecutive deals, run t rotation t; the strong
    # player and the oracle on the same deals at the same tables (the hidden cards' pairing)
    strong, oracle = (
        next(t for t in one if t.replica == 1 and t.focal[0] == a) for a in (spec.strong, spec.oracle)
    )
    for task in (strong, oracle):
        assert [task.block_of(task.first + i) for i in range(task.count)] == [0] * 4 + [1] * 4 + [2] * 4
    swap = {spec.oracle: spec.strong}
    assert [tuple(swap.get(a, a) for a in t) for t in oracle.tables] == list(strong.tables)


def test_a_one_rotation_batch_plays_each_deal_at_its_rotation_and_merges_by_deal() -> None:
    spec = atlas.parse_spec(
        {**TINY, "field": ["greedy", "blocker", "cautious"], "ladder": [], "deals": {"field": 6}}
    )
    task = next(t for t in measure_tasks(spec) if t.kind == "field" and t.id.endswith("__a0000") and
                t.variant == "uno" and t.replica == 1)  # fmt: skip
    result = run_task(task)
    won = np.asarray(result["winners"])
    assert won.shape == (task.block, task.count) and task.block == 4 * 2  # 4 cheap rungs, 2 seats
    seeds = task.deal_seeds()
    for i in range(task.count):
        b = task.block_of(task.first + i)
        for slot in range(task.block):
            game = play_table(task.rules, task.tables[b * task.block + slot], [seeds[i]])
            assert won[slot, i] == game["winner"][0]
    cell = merge(spec, [result])[("uno", 2, 1)]
    assert cell.winners[("field", "greedy")].shape == (6, 2)
    assert list(cell.focal_seat[("field", "greedy")]) == [0, 1]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"field_rotations": "some"}, 'field_rotations must be "one"'),
        ({"deals": {"field": 9}}, "field = 9 is not a multiple of the field's 2 styles.*use 8 or 10"),
    ],
)
def test_the_field_design_is_checked(change: dict[str, Any], message: str) -> None:
    with pytest.raises(atlas.AtlasSpecError, match=message):
        atlas.parse_spec({**TINY, **change})


def test_every_rotation_on_every_deal_takes_any_number_of_deals() -> None:
    spec = atlas.parse_spec({**TINY, "field_rotations": "all", "deals": {"field": 9}})
    assert spec.to_dict()["field_rotations"] == "all" and spec.deal_count("field") == 9
    # without [deals] field: 37 deals per rotation, the same games either way
    assert atlas.parse_spec({**TINY, "deals": {}}).deal_count("field") == 37 * 2
    assert atlas.parse_spec({**TINY, "deals": {}, "field_rotations": "all"}).deal_count("field") == 37


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": 1}, "unknown key"),
        ({"presets": ["uno", "poker"]}, "unknown preset 'poker'"),
        ({"variations": {"x": {"jumpin": True}}}, "unknown switch"),
        ({"pairs": [["until_playable", "nope"]]}, "'nope' is not a variation"),
        ({"strong": "oracle:sims=4"}, "cheats"),
        ({"oracle": "search:sims=4"}, "does not see the hidden cards"),
        ({"strong": "nosuchstyle"}, "unknown play style"),
        ({"variations": {"m": {"match": "first_to_target"}}}, "single rounds"),
        ({"deals": {"baseline": 1}}, "baseline must be an integer"),
        ({"deals": {"baseline": 10**7}}, "baseline must be an integer"),
        ({"deals": {"tables": 3}}, "unknown key"),
        ({"players": [2, 2]}, "twice"),
        # a final newline passed the label pattern ("$" matches before it): a folder and table
        # rows named with a line break
        ({"name": "tiny\n"}, "name must be letters, digits"),
        ({"variations": {"jump\n": {"jump_in": True}}}, "labels are letters, digits"),
        (
            {"presets": ["uno", "macao"], "strong": "search:sims=4,net=expert_uno_2p"},
            r"strong 'search:sims=4,net=expert_uno_2p' cannot play cell macao at 2 players: .* 74 actions, "
            r"these rules have 72",
        ),
        (
            {"strong": "search:sims=4,net=./no_such.npz"},
            "exported policy no_such.npz: the file does not exist",
        ),
        ({"learned": "./no_such.npz"}, r"learned: exported policy \./no_such\.npz does not exist"),
        ({"sweep": "."}, r"sweep '\.' is not a sweep folder \(no spec.toml\)"),
        (
            {
                "batch_games": 1,
                "deals": {"baseline": 10**6, "field": 10**6, "strong": 10**6, "scripted": 10**6},
            },
            "batches",
        ),
    ],
)
def test_bad_specs_are_refused_with_one_clear_line(change: dict[str, Any], message: str) -> None:
    with pytest.raises(atlas.AtlasSpecError, match=message):
        atlas.parse_spec({**TINY, **change})


def test_a_spec_file_is_read_through_the_bounded_reader_of_every_spec(tmp_path: Path) -> None:
    """An atlas spec is read as the study's and the sweep's are (``uno_env.files.read_toml``): a
    file over 1 MiB is refused before it is parsed (it was read whole, however large, and a
    FIFO blocked the command: ``tests/test_files_from_elsewhere.py`` runs that case)."""
    spec = tmp_path / "big.toml"
    spec.write_text("# a comment\n" * 100_000)  # 1,200,000 bytes of valid TOML
    too_large = r"big\.toml: the file holds 1,200,000 bytes; allowed: at most 1,048,576 bytes"
    with pytest.raises(atlas.AtlasSpecError, match=too_large):
        atlas.load_spec(spec)
    spec.write_text("name = [")
    with pytest.raises(atlas.AtlasSpecError, match=r"big\.toml: the document is not TOML"):
        atlas.load_spec(spec)


def test_the_default_spec_is_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    spec = atlas.load_spec(None)
    ids = {v.id for v in spec.variants()}
    assert {"uno", "uno_house", "uno_mario", "mau_mau", "mau_mau_doubling", "macao"} <= ids
    assert {"uno+stacking", "uno+seven_swap", "uno+jump_in", "uno+super_stars", "coin_flip", "aa_copy"} <= ids
    assert spec.players == (2, 4) and spec.replicate and spec.controls
    cells = spec.cells()
    assert ("mau_mau", 2) not in {(v.id, n) for v, n in cells}  # Mau-Mau needs 4 players
    assert "mau_mau does not allow 2 players" in capsys.readouterr().err
    learned = {v.id: spec.learned_players(v, n) for v, n in cells if v.id == "uno" and n == 2}
    assert "ppo_uno_2p" in learned["uno"]


def test_pairs_combine_two_switches() -> None:
    spec = atlas.parse_spec(
        {
            **TINY,
            "variations": {**TINY["variations"], "jump": {"jump_in": True}},
            "pairs": ["until_playable+jump"],
        }
    )
    pair = next(v for v in spec.variants() if v.kind == "pair")
    assert pair.id == "uno+until_playable+jump" and pair.rules.jump_in and pair.rules.draw == "until_playable"


def test_a_strong_player_whose_games_never_end_is_named_at_the_fit() -> None:
    """A strong player whose every game was cut at the decision limit (a user's agent that plays
    the first legal action forever) ended the atlas with 'no positions to fit a win-chance model
    to', naming neither the cell nor the players nor why."""
    from training.atlas.planning import fit_tasks

    agent = f"{Path(__file__).parent / 'user_agents' / 'faulty_agents.py'}:NumpyFirst"
    spec = atlas.parse_spec({**TINY, "strong": agent, "deals": {**TINY["deals"], "fit": 2}})
    task = next(t for t in fit_tasks(spec) if t.kind == "strong" and t.variant == "uno")
    message = (
        rf"atlas cell uno at 2 players: none of the 2 games of strong play \({re.escape(agent)}\) used to "
        r"fit its win-chance model ended with a winner \(each was cut at the decision limit, E-END-1\)"
    )
    with pytest.raises(ValueError, match=message):
        run_task(task)


@ONE_WORKER_FOR_THE_TINY_ATLAS
def test_the_cli_writes_the_report_again(tiny_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from training.cli import main

    before = (tiny_run / "report.md").read_bytes()
    assert main(["atlas", "--report", str(tiny_run)]) == 0
    assert (tiny_run / "report.md").read_bytes() == before
    assert "report.md" in capsys.readouterr().out
    assert math.isfinite(pd.read_csv(tiny_run / "calibration.csv")["brier"].iloc[0])


def test_the_ladder_figure_gives_each_rung_one_colour_in_every_panel() -> None:
    """More rungs than matplotlib's ten-colour cycle, and learned players that differ by player
    count: each rung keeps one colour of its own in every panel, and the one legend lists all."""
    from matplotlib.colors import to_hex

    from training.atlas.plots import ladder_figure

    spec = atlas.load_spec(None)
    assert list(spec.players) == [2, 4]
    shared = [f"field:style{k}" for k in range(11)]
    rows = [
        {"variant": "uno", "players": n, "play": "ladder", "measure": m, "value": 0.5, "lo": 0.4, "hi": 0.6}
        for n, own in ((2, "field:net_2p"), (4, "field:net_4p"))
        for m in [*shared, own]
    ]
    fig = ladder_figure(spec, pd.DataFrame(rows), {"uno": ("Official Uno", "")})
    assert fig is not None
    colour: dict[str, str] = {}
    for ax in fig.axes:
        for container in ax.containers:
            label = container.get_label()
            hex_colour = to_hex(container.lines[0].get_color())
            assert colour.setdefault(label, hex_colour) == hex_colour, label
    assert len(colour) == 13 and len(set(colour.values())) == 13
    legend = fig.axes[-1].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [m.split(":", 1)[1] for m in shared] + [
        "net_2p",
        "net_4p",
    ]


def test_the_files_the_atlas_agents_read_travel_to_the_nodes(tmp_path: Path) -> None:
    """A strong player guided by a network file and a learned player's file are among the files
    sent with the batches (Ray nodes need not share the driver's folders); styles send none."""
    import shutil

    from training.atlas.planning import fit_tasks
    from training.atlas.run import agent_files
    from uno_env.sim.learned import shipped_policies

    shipped = Path(shipped_policies()["expert_uno_2p"])
    for name in ("guide", "player"):
        shutil.copy(shipped, tmp_path / f"{name}.npz")
        shutil.copy(shipped.with_suffix(".json"), tmp_path / f"{name}.json")
    guide, player = tmp_path / "guide.npz", tmp_path / "player.npz"
    spec = atlas.parse_spec({**TINY, "strong": f"search:sims=4,net={guide}", "learned": str(player)})
    tasks = measure_tasks(spec, {})
    assert agent_files(fit_tasks(spec)) == [str(guide.with_suffix(".json")), str(guide)]
    assert agent_files(tasks) == sorted(
        str(p) for p in (guide, guide.with_suffix(".json"), player, player.with_suffix(".json"))
    )
    assert agent_files(measure_tasks(atlas.parse_spec(TINY), {})) == []


def test_a_resume_refuses_an_agent_file_replaced_since_the_start(tmp_path: Path) -> None:
    """The learned player's network replaced since the atlas started would play the missing
    batches as another player under the same name: the resume is refused naming the file."""
    from uno_env.sim.learned import shipped_policies

    player = tmp_path / "player.npz"

    def install(name: str) -> None:
        shipped = Path(shipped_policies()[name])
        for suffix in (".npz", ".json"):
            player.with_suffix(suffix).write_bytes(shipped.with_suffix(suffix).read_bytes())

    install("distilled_uno_2p")
    small = {"baseline": 4, "field": 2, "strong": 2, "scripted": 4, "fit": 4}
    spec = atlas.parse_spec({**TINY, "learned": str(player), "variations": {}, "deals": small})
    out = tmp_path / "run"
    atlas.run_atlas(spec, out, executor="serial", progress=False, report=False)
    recorded = json.loads((out / "agent_files.json").read_text())
    assert set(recorded) == {str(player), str(player.with_suffix(".json"))}
    atlas.run_atlas(spec, out, executor="serial", resume=True, progress=False, report=False)  # unchanged
    install("expert_uno_2p")
    with pytest.raises(
        atlas.AtlasSpecError,
        match=re.escape(f"agent file(s) {player.with_suffix('.json')}, {player} changed"),
    ):
        atlas.run_atlas(spec, out, executor="serial", resume=True, progress=False, report=False)


def test_a_named_learned_player_sits_in_the_cells_its_network_fits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Official Uno's network plays every Uno-deck cell (other rules as a transfer) and no
    French-deck cell; the spec says where it is not seated. One that fits no cell is refused."""
    spec = atlas.parse_spec({**TINY, "presets": ["uno", "macao"], "learned": "expert_uno_2p"})
    assert "note: learned 'expert_uno_2p' is not seated where its network does not fit: macao at 2" in (
        capsys.readouterr().err
    )
    seated = {v.id: spec.learned_players(v, n) for v, n in spec.cells()}
    assert seated["macao"] == ()
    assert seated["uno"] == seated["uno+until_playable"] == ("expert_uno_2p",)
    with pytest.raises(atlas.AtlasSpecError, match="learned 'expert_uno_2p' fits no cell"):
        atlas.parse_spec(
            {**TINY, "presets": ["macao"], "base": "macao", "variations": {}, "learned": "expert_uno_2p"}
        )


def test_the_answer_names_the_random_player_it_means() -> None:
    """A skill finding against the baseline says which player the baseline is (it read "against the
    random player", which does not say random_legal or random_playable)."""
    from training.atlas.report import answer_lines

    spec = atlas.parse_spec(TINY)
    effect = {
        "play": "strong", "kind": "rule", "measure": "skill_vs_baseline", "variant": "v", "players": 2,
        "change": 0.05, "lo": 0.01, "hi": 0.09, "level": 0.99, "detected": True, "replicated": "yes",
    }  # fmt: skip
    text = "\n".join(answer_lines(spec, [effect], {"v": ("A rule", "x=1")}))
    assert f"the strong player wins more against `{spec.baseline}` players" in text
    assert "the random player" not in text


def test_resume_refuses_another_output_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--resume DIR --out OTHER`` wrote to DIR and ignored OTHER without a word: refused."""
    assert atlas.main(["--resume", str(tmp_path), "--out", str(tmp_path / "other"), "--quiet"]) == 2
    assert "do not give a SPEC, --out" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()


def test_a_used_folder_is_refused_naming_an_atlas(tmp_path: Path) -> None:
    """A new atlas in a folder that holds one said "already holds a atlas": the article fits
    the kind of run ("an atlas"), in the message of another design too. Refused before any
    game."""
    from training.runner import write_toml_atomic

    spec = atlas.parse_spec(TINY)
    write_toml_atomic(tmp_path / "spec.toml", spec.to_dict())
    with pytest.raises(
        atlas.AtlasSpecError, match=f"^{re.escape(str(tmp_path))} already holds an atlas; continue it with"
    ):
        atlas.run_atlas(spec, str(tmp_path), executor="serial", progress=False)  # a str folder too
    other = atlas.parse_spec(dict(TINY, seed=7))
    with pytest.raises(atlas.AtlasSpecError, match=r"holds an atlas of another design \(spec\.toml differs"):
        atlas.run_atlas(other, tmp_path, executor="serial", progress=False, resume=True)
    assert not (tmp_path / "batches").exists() and not (tmp_path / "log.jsonl").exists()  # nothing played


def test_level_intervals_of_rates_at_0_or_1_and_of_shares_stay_honest() -> None:
    """A rate never seen (a player that won none of 56 games, 8 deals) read [0.0, 0.0]; it gets
    the Wilson interval at the number of deals now. A mean of values in [0, 1] (the share of the
    game played before it was decided) had a t interval past 1 (99.7% [99.2, 100.1])."""
    from training.atlas.stats import _interval
    from uno_env.stats import grouped_ratio, wilson_interval

    none_won = grouped_ratio(np.zeros(8), np.full(8, 7.0))
    low, high = _interval(none_won, True)
    assert (low, high) == pytest.approx(wilson_interval(0, 8, 2.3646), rel=1e-3) and high > 0.2
    all_won = grouped_ratio(np.full(8, 7.0), np.full(8, 7.0))
    assert _interval(all_won, True)[0] < 0.8 and _interval(all_won, True)[1] == 1.0
    # a control's exact value with no spread between deals (the coin flip's fair share) stays exact
    assert _interval(grouped_ratio(np.full(8, 3.5), np.full(8, 7.0)), True) == (0.5, 0.5)
    near_one = grouped_ratio(np.array([1.0, 1.0, 1.0, 0.98, 1.0, 1.0]), np.ones(6))
    assert near_one.interval()[1] > 1.0
    assert _interval(near_one, False, unit=True)[1] == 1.0
    assert _interval(near_one, False)[1] > 1.0  # a measure without that range is not clipped
