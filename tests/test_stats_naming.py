"""Every "vs random" line names its random player: ``random`` is an alias of ``random_legal``
(``uno_env.styles.params.STYLE_ALIASES``), the much weaker of the two random players, and a
report that says "random" leaves a reader to guess whether it means ``random_playable``."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.benchmark import format_report
from training import exploitability, train
from uno_env.styles.params import spelled_out


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("random", "random_legal"),
        ("random_playable", "random_playable"),
        ("greedy/random", "greedy/random_legal"),
        ("random | blocker", "random_legal | blocker"),
        ("random:seed=1", "random_legal:seed=1"),
        ("runs/random/model.zip", "runs/random/model.zip"),  # a path, not a seat table
    ],
)
def test_spelled_out_names_the_random_player(text: str, named: str) -> None:
    assert spelled_out(text) == named


def test_the_benchmark_line_names_the_random_player() -> None:
    report = {
        "agent": "random", "opponent": "random", "win_rate": 0.5, "win_low": 0.4, "win_high": 0.6,
        "games": 200, "deals": 100, "players": 2, "fair_share": 0.5, "truncated": 0, "decisions": 10,
        "seconds_per_decision": 0.001,
    }  # fmt: skip
    line = format_report(report).splitlines()[0]
    assert line.startswith("random_legal vs random_legal: win rate 50.0%")  # was "random vs random"
    seats = format_report({**report, "players": 3, "opponent": ["random", "greedy"]}).splitlines()[0]
    assert seats.startswith("random_legal vs random_legal | greedy:")


def test_training_log_lines_name_the_random_player() -> None:
    row = {"opponents": "random", "win_rate": 0.9, "win_low": 0.85, "win_high": 0.94, "truncated": 0,
           "games": 200}  # fmt: skip
    assert train.eval_summary(row).startswith("vs random_legal 90.0% (85.0%-94.0%)")
    report = {"agent": "random", "win_rate": 0.9, "win_low": 0.85, "win_high": 0.94, "games": 200,
              "deals": 100, "fair_share": 0.5, "truncated": 0}  # fmt: skip
    assert train.best_response_summary(report).startswith("best response vs random_legal: 90.0%")


def test_the_exploitability_report_names_the_random_player(tmp_path: Path) -> None:
    cfg = exploitability.ExploitConfig(agents=["random"])
    row = {"agent": "random", "win_rate": 0.9, "win_low": 0.85, "win_high": 0.94, "margin": 0.4,
           "margin_low": 0.35, "margin_high": 0.44, "games": 200, "train_seconds": 60.0}  # fmt: skip
    exploitability.write_table(cfg, tmp_path, [row])
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| `random_legal` | 90.0% (85.0%-94.0%) |" in report
