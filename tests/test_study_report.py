"""The study's report and plots as a reader meets them.

- ``report.md`` opens with the answer in plain language: one paragraph per rule switch with a
  finding, naming the rule in words with its ID and field, and for every finding the style,
  the direction, the size and the interval (:func:`answer_problems` reads a report the way
  a reader would and lists what is missing). Checked on a small study that replicates, one
  that does not, and the stored report of the default study (``docs/study-default``).
- The tables name every switch in words with the field beside.
- The plots: every label inside the canvas (bounding boxes), one colour scale and one colour
  bar for all panels, "not detected" marked ``n.d.`` (never ``~``), and a variant whose games
  are the base's marked ``identical``; the tournament's standings plot keeps its labels in.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from training import study
from training.study.plots import IDENTICAL, NOT_DETECTED, study_figures
from training.study.report import variation_words
from uno_env.game.reference import SettingWords

pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "docs" / "study-default"

# strong switches, so that a small study has findings that replicate; a switch that changes
# no game at 2 players (the last card's penalty only moves points) must read as identical
SMALL: dict[str, Any] = {
    "name": "small",
    "seed": 3,
    "bases": ["uno"],
    "players": [2],
    "styles": ["greedy", "hoarder", "cautious"],
    "games": 3000,
    "batch_games": 3000,
    "replicate": True,
    "variations": {
        "no_finish_on_action": {"no_finish_on_action": True},
        "no_draw_when_playable": {"draw_when_playable": False},
        "no_last_card_draw": {"last_card_draw": False},
    },
}


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("study") / "run"
    study.run_study(study.parse_spec(SMALL), out, executor="process", workers=2, progress=False)
    return out


@pytest.fixture(scope="module")
def unreplicated_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("study") / "run"
    spec = {**SMALL, "replicate": False, "players": [2, 3], "reference": "", "games": 1500}
    study.run_study(study.parse_spec(spec), out, executor="process", workers=2, progress=False)
    return out


# ---------------------------------------------------------------- reading the answer
def answer_section(report: str) -> str:
    start = report.index("## The answer")
    end = report.index("\n## ", start + 1)
    return report[start:end]


def _segment(paragraph: str, players: int) -> str:
    """The part of a paragraph about one player count."""
    start = paragraph.index(f"**At {players} players**")
    following = paragraph.find("**At ", start + 1)
    return paragraph[start : following if following > 0 else len(paragraph)]


_MEASURE_LEAD = {
    "win_rate": "against the field, ",
    "vs_reference": "alone against `",
}


def _measure_part(segment: str, measure: str) -> str:
    """Within a player count's part, the clause of a style measure (up to the next clause)."""
    start = segment.index(_MEASURE_LEAD[measure])
    ends = [
        segment.find(lead, start + 1) for lead in ("; alone against `", "; games are", "; the first mover")
    ]
    ends = [e for e in ends if e > 0]
    return segment[start : min(ends) if ends else len(segment)]


def answer_problems(report: str, spec: study.StudySpec, effects: list[dict[str, Any]]) -> list[str]:
    """What a reader of the answer would not find: for every finding, a paragraph naming the
    switch in words (its name from the rule reference), its rule ID and field, and in the part
    about its player count the style, the direction, the size and the interval of the change."""
    answer = answer_section(report)
    paragraphs = [p for p in answer.split("\n\n") if p.startswith("**")]
    words = variation_words(spec)
    problems = []
    findings = [e for e in effects if e["detected"] and (e["replicated"] == "yes" or not spec.replicate)]
    assert findings, "the study has no finding to look for"
    for e in findings:
        switch: list[SettingWords] = words[e["variation"]]
        paragraph = next((p for p in paragraphs if all(f"`{w.assignment}`" in p for w in switch)), None)
        if paragraph is None:
            problems.append(f"no paragraph for {e['variation']}")
            continue
        for w in switch:
            if w.rule_id not in paragraph or w.name.lower() not in paragraph.lower():
                problems.append(f"{e['variation']}: the rule {w.rule_id} ({w.name}) is not named")
        try:
            segment = _segment(paragraph, int(e["players"]))
        except ValueError:
            problems.append(f"{e['variation']}: nothing at {e['players']} players")
            continue
        percent = e["measure"] in ("win_rate", "vs_reference", "first_mover")
        scale = 100 if percent else 1
        size = f"{abs(e['change']) * scale:.1f}"
        interval = f"[{e['lo'] * scale:+.1f}, {e['hi'] * scale:+.1f}]"
        if e["measure"] in _MEASURE_LEAD:
            part = _measure_part(segment, e["measure"])
            verb = "gains" if e["change"] > 0 else "loses"
            group = next((g for g in part.split("; ") if re.search(rf"` {verb} ", g)), "")
            if f"`{e['style']}` " not in group or f"{size}" not in group or interval not in group:
                problems.append(
                    f"{e['variation']}, {e['players']} players: {e['style']} {verb} {size} {interval}"
                )
        elif e["measure"] in ("turns", "decisions"):
            direction = "longer" if e["change"] > 0 else "shorter"
            if f"{size} {e['measure']} {direction} {interval}" not in segment:
                problems.append(f"{e['variation']}, {e['players']} players: {e['measure']} {direction}")
        else:
            verb = "gains" if e["change"] > 0 else "loses"
            if f"the first mover {verb} {size} pp {interval}" not in segment:
                problems.append(f"{e['variation']}, {e['players']} players: the first mover {verb}")
    return problems


def read_effects(folder: Path) -> list[dict[str, Any]]:
    frame = pd.read_csv(folder / "effects.csv", keep_default_na=False)
    frame["detected"] = frame["detected"].astype(str).str.lower() == "true"
    return frame.to_dict("records")


def test_the_report_opens_with_every_replicated_finding_in_words(small_run: Path) -> None:
    report = (small_run / "report.md").read_text()
    assert report.split("\n")[2] == "## The answer"
    spec = study.load_spec(small_run / "spec.toml")
    effects = read_effects(small_run)
    assert any(e["replicated"] == "yes" for e in effects)
    assert answer_problems(report, spec, effects) == []
    # a finding that did not replicate is no finding: it is not in the answer
    answer = answer_section(report)
    assert "**No going out on an action card: on** (H-NOFINISH-1, `no_finish_on_action=true`" in answer
    assert "`cautious` loses" in answer
    # the switch that changes no game says so
    assert "(`last_card_draw=false`; its games are exactly the base's)" in answer


def test_the_check_finds_a_missing_or_wrong_finding(small_run: Path) -> None:
    """The reader's check can fail: a finding dropped from the answer, or its interval changed."""
    report = (small_run / "report.md").read_text()
    spec = study.load_spec(small_run / "spec.toml")
    effects = read_effects(small_run)
    finding = next(e for e in effects if e["replicated"] == "yes" and e["measure"] == "win_rate")
    interval = f"[{finding['lo'] * 100:+.1f}, {finding['hi'] * 100:+.1f}]"
    assert answer_problems(report.replace(interval, "[+0.0, +0.0]"), spec, effects)
    name = f"`{finding['style']}` "
    assert answer_problems(report.replace(name, "`someone` "), spec, effects)


def test_without_replication_the_detected_effects_are_the_answer(unreplicated_run: Path) -> None:
    report = (unreplicated_run / "report.md").read_text()
    spec = study.load_spec(unreplicated_run / "spec.toml")
    assert answer_problems(report, spec, read_effects(unreplicated_run)) == []
    assert "**At 3 players**" in answer_section(report)


def test_tables_name_every_switch_in_words_with_the_field_beside(small_run: Path) -> None:
    report = (small_run / "report.md").read_text()
    spec = study.load_spec(small_run / "spec.toml")
    tables = report[report.index("## Summary") :]
    for label, switch in variation_words(spec).items():
        cell = f"| {' + '.join(w.name[:1].upper() + w.name[1:] for w in switch)} (`"
        assert cell in tables, label
        assert f"| {label} |" not in tables  # the spec's own label is not a name for readers
    assert "| Drawing with a playable card in hand: off (`draw_when_playable=false`) |" in tables


def test_the_stored_default_study_answers_in_words() -> None:
    """The stored report of the default study (what the README quotes) passes the same check."""
    spec = study.load_spec(STORED / "spec.toml")
    report = (STORED / "report.md").read_text()
    assert answer_problems(report, spec, read_effects(STORED)) == []


# ---------------------------------------------------------------- plots
def labels_outside(fig: Any) -> list[str]:
    """What of ``fig`` is drawn outside its canvas (1 px tolerance): each panel with everything
    drawn for it (tick labels, axis labels, title, legend: its tight bounding box), and each
    text of the figure itself (titles, notes)."""
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox

    def outside(box: Any) -> bool:
        return bool(
            box.x0 < canvas.x0 - 1
            or box.y0 < canvas.y0 - 1
            or box.x1 > canvas.x1 + 1
            or box.y1 > canvas.y1 + 1
        )

    found = [f"panel {ax.get_title()!r}" for ax in fig.axes if outside(ax.get_tightbbox(renderer))]
    in_panels = {id(t) for ax in fig.axes for t in ax.findobj(Text)}
    for text in fig.findobj(Text):
        if id(text) not in in_panels and text.get_visible() and text.get_text().strip():
            if outside(text.get_window_extent(renderer)):
                found.append(text.get_text())
    return found


def test_the_label_check_finds_a_cut_label() -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))  # no layout: long rotated labels fall off the bottom
    ax.set_xticks([0, 1], ["a very long style label", "another very long label"], rotation=45, ha="right")
    assert labels_outside(fig)
    plt.close(fig)


def _figures(run: Path) -> dict[str, Any]:
    frame = pd.read_csv(run / "results.csv", keep_default_na=False)
    effects = pd.read_csv(run / "effects.csv", keep_default_na=False)
    effects["detected"] = effects["detected"].astype(str).str.lower() == "true"
    spec = study.load_spec(run / "spec.toml")
    return study_figures(frame, effects, study.report.variation_labels(spec))


def test_study_plots_keep_every_label_inside_the_picture(small_run: Path, unreplicated_run: Path) -> None:
    import matplotlib.pyplot as plt

    for run in (small_run, unreplicated_run):
        for name, fig in _figures(run).items():
            assert labels_outside(fig) == [], name
            plt.close(fig)


def test_the_heat_map_has_one_colour_scale_and_unambiguous_marks(unreplicated_run: Path) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    fig = _figures(unreplicated_run)["winrate_change.png"]
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 2  # 2 and 3 players
    coloured = [im for ax in panels for im in ax.get_images() if im.get_cmap().name == "RdBu"]
    assert len(coloured) == 2
    assert len({(im.norm.vmin, im.norm.vmax) for im in coloured}) == 1
    vmin, vmax = coloured[0].norm.vmin, coloured[0].norm.vmax
    assert -vmin == vmax > 0
    assert len(fig.axes) == len(panels) + 1  # one colour bar for every panel
    texts = [t.get_text() for t in fig.findobj(Text)]
    cells = [t for ax in panels for t in (x.get_text() for x in ax.texts)]
    assert not any("~" in t for t in texts)
    assert NOT_DETECTED in cells and IDENTICAL in cells
    # the switch that changes no game is identical in every cell of its row
    assert cells.count(IDENTICAL) == 2 * 3
    # every axis names the switches in words with the field beside
    labels = "\n".join(t.get_text() for t in panels[0].get_yticklabels())
    assert "No going out on an action card: on" in labels and "(no_finish_on_action=true)" in labels
    plt.close(fig)


def test_the_tournament_standings_plot_keeps_its_labels_inside() -> None:
    import matplotlib.pyplot as plt

    from training.tournament import standings_figure

    frame = pd.DataFrame(
        {
            "agent": ["bluffer:bluff=0.3,challenge=0.8", "runs/some_long_run_name/model.zip", "greedy"],
            "win_rate": [0.4, 0.35, 0.25],
            "win_lo": [0.38, 0.33, 0.23],
            "win_hi": [0.42, 0.37, 0.27],
            "strength": [0.3, 0.1, -0.4],
            "strength_lo": [0.2, 0.0, -0.5],
            "strength_hi": [0.4, 0.2, -0.3],
        }
    )
    fig = standings_figure(frame, "uno, 3 players")
    assert labels_outside(fig) == []
    plt.close(fig)


def test_the_report_names_what_each_agent_is() -> None:
    """A user's agents in a study's styles read 'compiled play style (parameters Memory)'."""
    from training.study.report import style_line

    assert style_line("greedy").startswith("`greedy`: greedy")
    assert "parameters bluff=0.3" in style_line("bluffer:bluff=0.3")
    assert style_line("tests/user_agents/seeded_agent.py:Seeded").endswith(
        "a Python agent (a file's or a module's)"
    )
    assert "out-of-process agent" in style_line("cmd:python3 agent.py")
    assert "language model" in style_line("llm:model=m,base_url=http://127.0.0.1:8000/v1")
    assert "exported policy" in style_line("ppo_uno_2p")
    assert "not found here" in style_line("/nowhere/agent.py:Mine")
    assert not any("compiled play style" in style_line(s) for s in ("cmd:x", "/nowhere/a.py:A"))
