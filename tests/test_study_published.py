"""The README's results section quotes the current default study.

Running the default study takes 2.7 million games (about a minute of work per core, several
on a busy machine): too slow for the suite. Its finished run is stored instead
(``docs/study-default``: report, effects, spec, plots and the SHA-256 of every batch file,
written by ``python -m training.study.publish``), and these tests tie the quotes to the
current code without running it:

- the README and ``docs/study.md`` quote the stored report's answer exactly;
- the stored spec is the current default spec;
- the stored answer is what the current report code writes from the stored effects;
- two batches of the default study, played now from the current spec and engine, give the
  stored digests (results are byte-identical across runs: a change of the engine, the styles,
  the seeds or the batch format that moves the default study's games fails here, and the
  study must be run and published again: ``make study-docs``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from training.study import load_spec
from training.study.publish import (
    QUOTES,
    REPLAYED,
    STORED,
    answer_markdown,
    quoted_block,
    replay_digest,
    stored_digests,
)
from training.study.report import answer_lines

pd = pytest.importorskip("pandas")


def stored_effects() -> list[dict[str, object]]:
    frame = pd.read_csv(STORED / "effects.csv", keep_default_na=False)
    frame["detected"] = frame["detected"].astype(str).str.lower() == "true"
    return frame.to_dict("records")


@pytest.mark.parametrize("page", QUOTES, ids=lambda p: p.name)
def test_the_pages_quote_the_stored_answer(page: Path) -> None:
    stored = answer_markdown((STORED / "report.md").read_text(encoding="utf-8"))
    assert quoted_block(page.read_text(encoding="utf-8"), page) == stored
    assert "study-default/winrate_change.png" in page.read_text(encoding="utf-8")


def test_the_stored_study_is_the_default_spec() -> None:
    assert load_spec(STORED / "spec.toml").to_dict() == load_spec(None).to_dict()
    digests = stored_digests()
    assert len(digests) == 104 and set(REPLAYED) <= set(digests)


def test_the_stored_answer_is_what_the_report_code_writes_now() -> None:
    report = (STORED / "report.md").read_text(encoding="utf-8")
    start = report.index("## The answer")
    stored = report[start : report.index("## Styles")].rstrip("\n").split("\n")
    assert answer_lines(load_spec(None), stored_effects())[:-1] == stored


@pytest.mark.parametrize("batch", REPLAYED)
def test_replayed_batches_give_the_stored_digests(batch: str) -> None:
    assert replay_digest(batch) == stored_digests()[batch], (
        f"batch {batch} of the default study plays differently now: run the default study and publish it "
        "again (make study-docs)"
    )


PROSE_FIGURES = [
    (r"shortens 4-player games by ([\d.]+)\s+turns",
     r"\*\*Jump-in: on\*\*.*\*\*At 4 players\*\*.*?games are ([\d.]+) turns shorter"),
    (r"the bluffer's (\+[\d.]+) under\s+jump-in",
     r"Jump-in: on \(`jump_in=true`\): `bluffer` \*\*(\+[\d.]+)\*\* \[[^]]*\] \(not replicated\)"),
    (r"the hoarder's (\+[\d.]+) under identical multi-plays",
     r"identical \(`multi_play=identical`\): `hoarder` \*\*(\+[\d.]+)\*\* \[[^]]*\] \(not replicated\)"),
    (r"the aggressor's −([\d.]+)\s+under `zero_rule=rotate`",
     r"\(`zero_rule=rotate`\): `aggressor` \*\*-([\d.]+)\*\* \[[^]]*\] \(not replicated\)"),
    (r"and is its best rule \(\+([\d.]+) points at 2 players",
     r"`draw_when_playable=false`.*?\*\*At 2 players\*\*, against the field, `hoarder` gains ([\d.]+) pp"),
    (r"ruins the cautious\s+style, which keeps a wild back as its last card \(−([\d.]+) points",
     r"`no_finish_on_action=true`.*?`cautious` loses ([\d.]+) pp"),
]  # fmt: skip
"""Figures the prose of ``docs/study.md`` ("Reading it") quotes from the stored report: the
page's pattern and the report's, each capturing the same figure."""


@pytest.mark.parametrize(("prose", "reported"), PROSE_FIGURES, ids=range(len(PROSE_FIGURES)))
def test_the_study_page_s_prose_quotes_the_stored_report(prose: str, reported: str) -> None:
    """docs/study.md's reading of the default study kept two figures of the run before the
    last publication (jump-in shortened 4-player games by 8.0 turns, now 8.6; the bluffer's
    unreplicated +1.3 under jump-in, now +1.7)."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "study.md").read_text(encoding="utf-8")
    report = (STORED / "report.md").read_text(encoding="utf-8")
    quoted = re.search(prose, page[page.index("Reading it") :])
    stored = re.search(reported, report)
    assert quoted is not None and stored is not None
    assert quoted.group(1) == stored.group(1)
