"""The study's statistics hold up: coverage of a quantity known by symmetry, an A/A study, replication.

- Coverage: 300 small studies on fresh seeds (4 players, 5 styles in their 20 seatings,
  25 deals each). Seat 0 wins 25% by symmetry (the dealer is drawn
  each deal); its 95% interval, grouped by deal, must cover 25% at least 93% of the time. The
  intervals that treat every game as independent cover far less often (the check can fail).
- A/A: variations that do not change the game (a randomly chosen dealer instead of the
  drawn one: other deals of the same distribution; ``last_card_draw=false``: the same games,
  only points move) report no detected effect, in a study whose real variation
  (``no_finish_on_action``) is detected and replicated.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from training import study
from training.study.stats import control_family
from uno_env.stats import grouped_ratio, wilson_interval

pd = pytest.importorskip("pandas")

COVERAGE_STUDIES = 300
COVERAGE_DEALS = 25
COVERAGE_STYLES = ["greedy", "aggressor", "controller", "blocker", "hoarder"]


def test_seat_intervals_grouped_by_deal_cover_the_symmetric_share() -> None:
    """Study ``k`` plays deals ``[25 k, 25 k + 25)`` (fresh seeds) at the 20 seatings of five
    styles at 4 players; one batch plays them all, and each study's interval uses its deals."""
    seatings = len(study.seatings(COVERAGE_STYLES, 4))
    spec = study.parse_spec(
        {
            "name": "coverage",
            "seed": 1_000_000,
            "players": [4],
            "styles": COVERAGE_STYLES,
            "games": seatings * COVERAGE_DEALS * COVERAGE_STUDIES,
            "batch_games": 10**7,
            "reference": "",
            "variations": {},
        }
    )
    (task,) = study.plan(spec)
    cell = study.merge_cells(spec, [study.run_batch(task)])[("uno", 4, "field", 0)]
    assert cell.games.tolist() == [seatings] * (COVERAGE_DEALS * COVERAGE_STUDIES)
    covered = naive_covered = 0
    for k in range(COVERAGE_STUDIES):
        deals = slice(k * COVERAGE_DEALS, (k + 1) * COVERAGE_DEALS)
        wins, games = cell.seat_wins[0, deals], cell.games[deals]
        lo, hi = grouped_ratio(wins, games).proportion_interval()
        covered += lo <= 0.25 <= hi
        naive_lo, naive_hi = wilson_interval(int(wins.sum()), int(games.sum()))
        naive_covered += naive_lo <= 0.25 <= naive_hi
    assert covered / COVERAGE_STUDIES >= 0.93, covered
    assert naive_covered / COVERAGE_STUDIES < 0.85, naive_covered  # games are not independent


AA: dict[str, Any] = {
    "name": "aa",
    "seed": 3,
    "bases": ["uno"],
    "players": [2],
    "styles": ["greedy", "hoarder", "aggressor", "cautious"],
    "games": 2400,
    "replicate": True,
    "variations": {
        "dealer_random": {"dealer": "random"},
        "no_last_card_draw": {"last_card_draw": False},
        "no_finish_on_action": {"no_finish_on_action": True},
    },
}


@pytest.fixture(scope="module")
def aa_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("aa") / "run"
    study.run_study(study.parse_spec(AA), out, executor="serial", progress=False)
    return out


def test_variations_that_do_not_change_the_game_detect_nothing(aa_run: Path) -> None:
    effects = pd.read_csv(aa_run / "effects.csv", keep_default_na=False)
    null = effects[effects["variation"].isin(["dealer_random", "no_last_card_draw"])]
    assert len(null) == 2 * (4 + 3 + 3)
    assert not null["detected"].any(), null[null["detected"]]
    same_games = effects[effects["variation"] == "no_last_card_draw"]
    assert (same_games["change"] == 0).all() and (same_games["p"] == 1).all()
    # the real variation in the same family is detected and replicated (the check can fail)
    real = effects[(effects["variation"] == "no_finish_on_action") & effects["detected"]]
    assert (real["replicated"] == "yes").any()
    cautious = real[(real["measure"] == "win_rate") & (real["style"] == "cautious")].iloc[0]
    assert cautious["change"] < -0.1 and cautious["rep_change"] < -0.1


def test_changes_against_the_field_sum_to_zero(aa_run: Path) -> None:
    frame = pd.read_csv(aa_run / "results.csv", keep_default_na=False)
    for _, cell in frame[frame["variation"] != ""].groupby(["replica", "variant"]):
        assert cell["truncated_rate"].iloc[0] == 0
        assert abs(cell["delta_win_rate"].sum()) < 1e-5
    report = (aa_run / "report.md").read_text()
    answer = report[report.index("## The answer") : report.index("## Styles")]
    assert "**No going out on an action card: on** (H-NOFINISH-1" in answer
    assert "**Choosing the dealer: random**" not in answer  # no finding
    assert "No finding: Choosing the dealer: random (`dealer=random`)" in answer
    # the base rules' truncated share is a rate: it carries its interval by deal (it had none)
    assert re.search(r"; truncated 0\.00% \[0\.00%, [1-9]\.\d\d%\]\.", report)


def _rows(primary: float, replication: float, p: float = 1e-9) -> list[dict[str, Any]]:
    """Tidy rows of one variation at 2 players: every measure changes by ``primary`` on the
    primary deals and by ``replication`` on the fresh ones (interval +-0.01, p-value ``p``)."""
    base = {"variant": "uno+x", "base": "uno", "variation": "x", "switches": "seven_swap=true",
            "players": 2, "deals": 400, "style": "greedy", "ref_seat_games": 0}  # fmt: skip
    rows = []
    for replica, change in ((0, primary), (1, replication)):
        row: dict[str, Any] = {**base, "replica": replica}
        for level, delta, lo, hi, p_col in study.MEASURE_COLUMNS.values():
            row.update({level: 0.5, delta: change, lo: change - 0.01, hi: change + 0.01, p_col: p})
        rows.append(row)
    return rows


def test_replication_needs_the_same_sign_and_a_detection_again() -> None:
    spec = study.parse_spec({**AA, "variations": {"x": {"seven_swap": True}}})
    effects = study.effect_rows(spec, _rows(0.05, -0.04))
    assert {e["measure"] for e in effects} == {"win_rate", "turns", "decisions", "first_mover"}
    assert all(e["detected"] and e["rep_detected"] == "yes" for e in effects)
    assert all(e["replicated"] == "no" for e in effects)  # detected again, but the other way
    assert all(e["replicated"] == "yes" for e in study.effect_rows(spec, _rows(0.05, 0.04)))
    weak = _rows(0.05, 0.04)
    weak[1] = {k: (0.5 if k.endswith("_p") else v) for k, v in weak[1].items()}  # not detected again
    assert all(e["replicated"] == "no" for e in study.effect_rows(spec, weak))
    assert np.isclose(effects[0]["change"], 0.05)
    alone = study.effect_rows(study.parse_spec({**AA, "replicate": False}), _rows(0.05, 0.04))
    assert all(e["replicated"] == "" for e in alone)


def test_an_effect_without_its_replication_leaves_the_others_replicated() -> None:
    # one detected effect whose fresh deals gave no estimate (rep_p NaN) made every other
    # effect's replication read "no": the NaN went through Benjamini-Hochberg into them all
    effects = [
        {"change": 0.05, "p": 1e-9, "se": 0.01, "df": 399.0, "rep_change": 0.04, "rep_p": 1e-9},
        {"change": 0.03, "p": 1e-8, "se": 0.01, "df": 399.0, "rep_change": math.nan, "rep_p": math.nan},
    ]
    control_family(effects, replicate=True)
    assert [e["detected"] for e in effects] == [True, True]
    assert (effects[0]["rep_detected"], effects[0]["replicated"]) == ("yes", "yes")
    assert (effects[1]["rep_detected"], effects[1]["replicated"]) == ("", "")
    assert math.isnan(effects[1]["rep_p_adjusted"])


def test_a_single_deal_gives_lengths_and_points_their_whole_range() -> None:
    """One deal: the spread between deals is unknown, so the mean game length (at least 1 turn,
    1 decision) and points per game (at least 0) get the whole range [lower, inf]; the lengths
    were NaN and the points a zero-width [x, x]. A mean rank keeps its Wilson interval."""
    spec = study.parse_spec(
        {"name": "one", "seed": 3, "bases": ["uno"], "players": [2], "styles": ["greedy", "hoarder"],
         "games": 2, "batch_games": 2, "replicate": False, "reference": "", "variations": {}}
    )  # fmt: skip
    rows = study.cell_rows(spec, [study.run_batch(task) for task in study.plan(spec)])
    assert len(rows) == 2 and all(row["deals"] == 1 for row in rows)
    for row in rows:
        assert row["turns_mean"] >= 1 and (row["turns_lo"], row["turns_hi"]) == (1.0, np.inf)
        assert (row["length_lo"], row["length_hi"]) == (1.0, np.inf)
        assert (row["points_lo"], row["points_hi"]) == (0.0, np.inf)
        assert 1.0 <= row["rank_lo"] < row["rank_hi"] <= 2.0
